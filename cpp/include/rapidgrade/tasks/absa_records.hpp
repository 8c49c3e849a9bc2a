// The record schema of the ABSA batch scorer: how one record (a JSON-like object) becomes the
// rows and groups of a BatchInput, and why a record is refused.
//
// A record is {"gold": [tuple...], "stages": {name: [tuple...], ...}} or has the stage lists at
// its top level. A gold tuple's aspect term is chosen by select_gold_term among aspect_term,
// opinion_term.term, aspect_ref and term; a predicted tuple has aspect_term and aspect_ref;
// every tuple may have a polarity. Fields must be strings or null (or missing).
//
// The walk is written once, here, over any document model: `Doc` is an accessor the caller
// supplies (the bindings: Python dicts, lists and str, read in place), with
//
//   using Value = ...;                       // a cheap handle on a value
//   bool missing(Value) const;               // absent (a lookup found nothing)
//   bool is_null(Value), is_dict(Value), is_list(Value), is_str(Value) const;
//   std::string type_name(Value) const;      // for messages: "int", "list", ...
//   Value get(Value dict, Field field);      // the field of a dict, or a missing Value
//   Value stage(Value dict, std::size_t k);  // the list of stage k (by the caller's names)
//   std::size_t size(Value list) const;
//   Value item(Value list, std::size_t i) const;
//   CodePoints view(Value str) const;        // the string as it is
//   CodePoints keep(Value str);              // as it is, kept alive until rollback/clear
//   CodePoints keep_folded(Value str);       // lower-cased (see absa.hpp), kept alive
//   std::size_t mark() const;                // how many strings are kept
//   void rollback(std::size_t mark);         // forget the strings kept since `mark`
//
// Its members may throw (the bindings raise Python errors that way); the walk then stops.
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "rapidgrade/tasks/absa.hpp"

namespace rapidgrade::absa {

/// The fields the schema reads.
enum class RecordField { kId, kGold, kStages, kAspectTerm, kOpinionTerm, kAspectRef, kTerm, kPolarity };

namespace detail {

// Where a field sits, e.g. "stages.final[2]" or "gold[0].opinion_term"; spelled out only when
// there is something to report, since building the string for every tuple would be wasteful.
struct Where {
  const std::string* list = nullptr;  // nullptr: `name` alone
  std::size_t index = 0;
  const char* suffix = "";
  const char* name = "";

  std::string str() const {
    if (list == nullptr) return std::string(name) + suffix;
    return *list + "[" + std::to_string(index) + "]" + suffix;
  }
  Where nested(const char* s) const {
    Where w = *this;
    w.suffix = s;
    return w;
  }
};

inline const char* field_name(RecordField f) noexcept {
  switch (f) {
    case RecordField::kId: return "id";
    case RecordField::kGold: return "gold";
    case RecordField::kStages: return "stages";
    case RecordField::kAspectTerm: return "aspect_term";
    case RecordField::kOpinionTerm: return "opinion_term";
    case RecordField::kAspectRef: return "aspect_ref";
    case RecordField::kTerm: return "term";
    case RecordField::kPolarity: return "polarity";
  }
  return "";
}

// A string field: a missing Value when missing or null; `reason` set when it is another type.
template <typename Doc>
typename Doc::Value string_field(Doc& doc, typename Doc::Value d, RecordField key, const Where& where,
                                 std::string& reason) {
  const typename Doc::Value v = doc.get(d, key);
  if (doc.missing(v) || doc.is_null(v)) return typename Doc::Value{};
  if (!doc.is_str(v)) {
    reason = where.str() + "." + field_name(key) + ": expected a string or null, got " + doc.type_name(v);
    return typename Doc::Value{};
  }
  return v;
}

}  // namespace detail

/// The gold aspect term of tuple `d`: the string it comes from (missing for "") and its bounds
/// without surrounding whitespace. `reason` is set when the tuple breaks the schema.
template <typename Doc>
struct GoldTerm {
  typename Doc::Value source{};
  std::size_t begin = 0, end = 0;
};

template <typename Doc>
GoldTerm<Doc> gold_term(Doc& doc, typename Doc::Value d, const detail::Where& where, std::string& reason) {
  using detail::string_field;
  GoldTerm<Doc> out;
  const auto aspect_term = string_field(doc, d, RecordField::kAspectTerm, where, reason);
  if (!reason.empty()) return out;
  const auto aspect_ref = string_field(doc, d, RecordField::kAspectRef, where, reason);
  if (!reason.empty()) return out;
  const auto term = string_field(doc, d, RecordField::kTerm, where, reason);
  if (!reason.empty()) return out;
  typename Doc::Value opinion_term{};
  const auto opinion = doc.get(d, RecordField::kOpinionTerm);
  if (!doc.missing(opinion) && !doc.is_null(opinion)) {
    if (!doc.is_dict(opinion)) {
      reason = where.str() + ".opinion_term: expected an object or null, got " + doc.type_name(opinion);
      return out;
    }
    opinion_term = string_field(doc, opinion, RecordField::kTerm, where.nested(".opinion_term"), reason);
    if (!reason.empty()) return out;
  }
  auto field = [&doc](typename Doc::Value s) {
    Field f;
    if (!doc.missing(s)) {
      f.present = true;
      f.text = doc.view(s);
    }
    return f;
  };
  switch (select_gold_term(field(aspect_term), field(opinion_term), field(aspect_ref), field(term))) {
    case GoldTermSource::kAspectTerm: out.source = aspect_term; break;
    case GoldTermSource::kOpinionTerm: out.source = opinion_term; break;
    case GoldTermSource::kAspectRef: out.source = aspect_ref; break;
    case GoldTermSource::kTerm: out.source = term; break;
    case GoldTermSource::kNone: return out;
  }
  std::tie(out.begin, out.end) = strip_bounds(doc.view(out.source));
  return out;
}

/// Appends the groups of records to a BatchInput, record by record, by the schema above.
template <typename Doc>
class RecordReader {
 public:
  /// `stage_names` name the stages in messages ("final" at the top level, "stages.final" in a
  /// "stages" object).
  RecordReader(Doc& doc, BatchInput& in, const std::vector<std::string>& stage_names) : doc_(doc), in_(in) {
    for (const std::string& name : stage_names) {
      top_level_names_.push_back(name);
      nested_names_.push_back("stages." + name);
    }
  }

  /// Appends the rows of one record; on a bad record, rolls back and returns the reason.
  std::string add_record(typename Doc::Value record) {
    if (!doc_.is_dict(record)) return "record is not an object (got " + doc_.type_name(record) + ")";
    const std::size_t rows_before = in_.rows.size();
    const std::size_t groups_before = in_.groups.size();
    const std::size_t kept_before = doc_.mark();
    std::string reason = add_groups(record);
    if (!reason.empty()) {
      in_.rows.resize(rows_before);
      in_.groups.resize(groups_before);
      doc_.rollback(kept_before);
    }
    return reason;
  }

 private:
  using Value = typename Doc::Value;

  std::string add_groups(Value record) {
    std::string reason;
    const Value gold = doc_.get(record, RecordField::kGold);
    if (doc_.missing(gold) || doc_.is_null(gold)) return "missing 'gold'";
    if (!doc_.is_list(gold)) return "'gold' is not a list (got " + doc_.type_name(gold) + ")";
    add_list(gold, gold_name_, true, reason);
    if (!reason.empty()) return reason;
    Value source = record;
    const std::vector<std::string>* names = &top_level_names_;
    const Value container = doc_.get(record, RecordField::kStages);
    if (!doc_.missing(container)) {
      if (!doc_.is_dict(container)) return "'stages' is not an object (got " + doc_.type_name(container) + ")";
      source = container;
      names = &nested_names_;
    }
    for (std::size_t k = 0; k < names->size(); ++k) {
      const Value list = doc_.stage(source, k);
      const std::string& where = (*names)[k];
      if (doc_.missing(list) || doc_.is_null(list)) return "missing stage '" + where + "'";
      if (!doc_.is_list(list)) return "'" + where + "' is not a list (got " + doc_.type_name(list) + ")";
      add_list(list, where, false, reason);
      if (!reason.empty()) return reason;
    }
    return reason;
  }

  void add_list(Value list, const std::string& name, bool is_gold, std::string& reason) {
    const std::size_t n = doc_.size(list);
    for (std::size_t i = 0; i < n; ++i) {
      const Value t = doc_.item(list, i);
      if (!doc_.is_dict(t)) {
        reason = name + "[" + std::to_string(i) + "]: not an object (got " + doc_.type_name(t) + ")";
        return;
      }
      add_tuple(t, name, i, is_gold, reason);
      if (!reason.empty()) return;
    }
    in_.groups.push_back(in_.rows.size());
  }

  void add_tuple(Value t, const std::string& name, std::size_t i, bool is_gold, std::string& reason) {
    detail::Where where;
    where.list = &name;
    where.index = i;
    TupleRow row;
    Value term{};
    Value ref{};
    if (is_gold) {
      const GoldTerm<Doc> g = gold_term(doc_, t, where, reason);
      if (!reason.empty()) return;
      term = g.source;
    } else {
      term = detail::string_field(doc_, t, RecordField::kAspectTerm, where, reason);
      if (!reason.empty()) return;
      ref = detail::string_field(doc_, t, RecordField::kAspectRef, where, reason);
      if (!reason.empty()) return;
    }
    const Value polarity = detail::string_field(doc_, t, RecordField::kPolarity, where, reason);
    if (!reason.empty()) return;
    if (!doc_.missing(term)) row.term = doc_.keep_folded(term);
    if (!doc_.missing(polarity)) {
      row.polarity = doc_.keep_folded(polarity);
      row.has_polarity = true;
    }
    if (!doc_.missing(ref)) {
      row.ref = doc_.keep(ref);
      row.has_ref = true;
    }
    in_.rows.push_back(row);
  }

  Doc& doc_;
  BatchInput& in_;
  std::vector<std::string> top_level_names_, nested_names_;
  const std::string gold_name_ = "gold";
};

}  // namespace rapidgrade::absa
