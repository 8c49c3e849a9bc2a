// Reading JSON lines on the scoring job's hot path: one pass over a line checks that it is a JSON
// object that orjson reads exactly (the job's reader of record), and picks the values of a few
// top-level keys, without building the rest of the object.
//
// A line is *picked* only when the answer is certain; anything else (invalid JSON or UTF-8, lone
// surrogates, integers of more than 18 digits, floats of magnitude >= 2**63 or out of double
// range, nesting deeper than kMaxDepth, a carriage return before the line's end, a top-level key
// written with escapes, a requested key given twice or holding an object or array, a reserved
// key) is left to the caller, which reads the line with its general reader. So the picked values
// are always those orjson would give, and a picked line is one the general reader would keep as
// the row's text.
//
// Complexity: O(n) time in the line's length, no recursion (containers are counted on a fixed
// stack of kMaxDepth entries), no allocation except for the caller's value vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rapidgrade::jsonl {

/// Lines nested deeper than this are left to the caller (orjson's own limit is 1024).
inline constexpr std::size_t kMaxDepth = 256;
/// Integers of more digits than this are left to the caller (orjson reads beyond 64 bits as
/// floats, which the job's reader treats apart).
inline constexpr std::size_t kMaxIntDigits = 18;
/// Number tokens longer than this are left to the caller.
inline constexpr std::size_t kMaxNumberBytes = 64;

enum class Kind : std::uint8_t { kMissing, kString, kTrue, kFalse, kNull, kInt, kFloat };

/// A picked value. For a string, [begin, end) is its content in the line, between the quotes,
/// still escaped when `escaped`; `decoded_size` is its size in bytes once decoded (UTF-8) and
/// `ascii` says whether every decoded byte is below 0x80.
struct Value {
  Kind kind = Kind::kMissing;
  bool escaped = false;
  bool ascii = true;
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t decoded_size = 0;
  std::int64_t integer = 0;
  double real = 0.0;
};

/// The keys to pick and the reserved keys (whose presence leaves a line to the caller).
struct Keys {
  std::vector<std::string> pick;
  std::vector<std::string> reserved;
};

/// Reads `line` (one line of a JSONL file, its newline included or not). Returns true when the
/// line is picked: then [begin, end) is the object's text (the line without the whitespace
/// around it) and values[k] is the value of keys.pick[k] (kMissing when absent). `values` must
/// hold keys.pick.size() entries; they are overwritten. Returns false (values unspecified) when
/// the line is left to the caller.
bool read_line(std::string_view line, const Keys& keys, std::size_t& begin, std::size_t& end, Value* values) noexcept;

/// Room decode_string needs past the decoded text (it stores sixteen bytes at a time).
inline constexpr std::size_t kDecodePadding = 16;

/// Writes the decoded UTF-8 bytes of the string value `v` of `line` to `out`, which must have
/// room for v.decoded_size + kDecodePadding bytes (those past v.decoded_size are left
/// unspecified). `v` must be a kString value read from `line` by read_line.
void decode_string(std::string_view line, const Value& v, char* out) noexcept;

/// The size of `text` (UTF-8) written as a JSON string by write_json_string, quotes included.
std::size_t json_string_size(std::string_view text) noexcept;

/// Writes `text` (UTF-8) to `out` as a JSON string, quotes included, escaped as orjson writes
/// it: '"' and '\\' with a backslash, \b \f \n \r \t by their short forms, other bytes below
/// 0x20 as \u00xx (lower-case hex), everything else as it is. `out` must have room for
/// json_string_size(text) bytes; returns the end of what was written.
char* write_json_string(char* out, std::string_view text) noexcept;

}  // namespace rapidgrade::jsonl
