// LaTeX lexer of the expression engine (expr_latex_internal.hpp): numbers with thousands
// separators at top level ("7,425,000", "10{,}000"), words, commands (spacing and sizing commands
// skipped, "\lvert" read as "|") and punctuation, for the parser of expr_latex.cpp. One pass over
// the input: O(n) for n bytes, at most one token per byte.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr_build.hpp"
#include "expr_latex_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/utf8.hpp"

namespace rapidgrade::expr::detail {
namespace {

using namespace std::string_view_literals;
using rapidgrade::detail::same;

// Skipped besides the spacing commands of latex_vocab.hpp (kSpacingCommands).
constexpr std::string_view kSkip[] = {"[",      "]",     "left",         "right",     "big",    "Big",
                                      "bigg",   "Bigg",  "bigl",         "bigr",      "Bigl",   "Bigr",
                                      "biggl",  "biggr", "displaystyle", "textstyle", "limits", "nolimits",
                                      "middle", "$",     "mathstrut",    "strut",     "relax",  "hspace*"};

// The first bytes of kSkip's commands: a command starting with another byte ("frac", "cdot",
// "pi") is not looked for in the table.
constexpr rapidgrade::detail::ByteSet kSkipFirst = rapidgrade::detail::ByteSet::where([](char c) {
  for (const std::string_view s : kSkip)
    if (s[0] == c) return true;
  return false;
});

bool skipped_command(std::string_view c) {
  if (rapidgrade::detail::find_spacing_command(c) != nullptr) return true;
  if (c.empty() || !kSkipFirst.has(c[0])) return false;
  for (const std::string_view s : kSkip)
    if (same(c, s)) return true;
  return false;
}

/// Commands the lexer turns into punctuation or braces: "\lvert" -> "|", "\lbrace" -> "{".
struct CommandToken {
  std::string_view name;
  T type;
  std::string_view text;
  bool alternative = false;  // Tok::alternative
};
const CommandToken kCommandTokens[] = {
    {"lvert", T::kPunct, "|"},
    {"rvert", T::kPunct, "|"},
    {"vert", T::kPunct, "|"},
    {"mid", T::kPunct, "|"},
    {"|", T::kPunct, "|"},
    {"lbrace", T::kCmd, "{"},
    {"rbrace", T::kCmd, "}"},
    {"lbrack", T::kPunct, "["},
    {"rbrack", T::kPunct, "]"},
    // "\( 3, \frac{\pi}{2} \)" is read as brackets, as math-verify does
    {"(", T::kPunct, "("},
    {")", T::kPunct, ")"},
    {"langle", T::kPunct, "("},
    {"rangle", T::kPunct, ")"},
    // the logical joiners of conditions, read as the words "and" and "or" are (word())
    {"land", T::kPunct, ","},
    {"wedge", T::kPunct, ","},
    {"lor", T::kPunct, ",", true},
    {"vee", T::kPunct, ",", true},
};

class LatexLexer {
 public:
  /// Writes the tokens of `s` into `out` (emptied first).
  LatexLexer(std::string_view s, std::vector<Tok>& out, Texts& texts) : s_(s), n_(s.size()), out_(out), texts_(texts) {
    out_.clear();
  }

  /// Makes the tokens, ending with a kEnd token. After an unexpected character the tokens stop
  /// there and failure() holds it.
  void run() {
    out_.reserve(std::min<std::size_t>(n_ + 1, kReservedTokens));
    while (i_ < n_ && !failed_) {
      const char c = s_[i_];
      if (is_space(c) || c == '~' || c == '$') {
        space_ = true;
        ++i_;
        continue;
      }
      // made in place (moving a token copies its text): dropped again when nothing is read
      Tok& t = out_.emplace_back();
      t.pos = i_;
      t.space_before = space_;
      space_ = false;
      if (is_digit(c) || (c == '.' && i_ + 1 < n_ && is_digit(s_[i_ + 1]))) {
        number(t);
      } else if (is_alpha(c)) {
        word(t);
        // "1, 2, and 3": an "and" or "or" after a list's comma is no second comma
        if (t.type == T::kPunct && out_.size() >= 2 && out_[out_.size() - 2].type == T::kPunct &&
            same(out_[out_.size() - 2].text, ",")) {
          out_[out_.size() - 2].alternative |= t.alternative;  // ", or": the comma says "or"
          out_.pop_back();
          continue;
        }
      } else if (c == '\\') {
        if (!command(t)) {
          out_.pop_back();
          continue;
        }
      } else if (!punct(t)) {
        out_.pop_back();
        break;
      }
      if ((t.type == T::kPunct || t.type == T::kCmd) && t.text.size() == 1) {
        const char b = t.text[0];
        if (b == '{' || b == '[' || b == '(') ++depth_;
        if (b == '}' || b == ']' || b == ')') --depth_;
      }
    }
    out_.emplace_back().pos = n_;  // the end token
  }

  bool failed() const { return failed_; }
  const Failure& failure() const { return failure_; }

 private:
  std::string_view s_;
  std::size_t n_;
  std::size_t i_ = 0;
  bool space_ = false;
  int mentions_modulus_ = -1;  // mentions_modulus(): -1 until searched
  bool failed_ = false;
  Failure failure_;
  int depth_ = 0;  // bracket depth, for thousands separators at top level only
  std::vector<Tok>& out_;
  Texts& texts_;

  /// "7,425,000", "10{,}000", "1 000", "3.25", "5." (-> 5), "1.5e-3", "2E5".
  void number(Tok& t) {
    const std::size_t i = i_;
    std::size_t j = i;
    while (j < n_ && is_digit(s_[j])) ++j;
    t.type = T::kNum;
    if (depth_ == 0 && !(i >= 2 && s_[i - 1] == ',' && is_digit(s_[i - 2]))) {
      // thousands separators at top level (number.hpp, GroupSeparators::kLatex), not in a list
      // of numbers joined by bare commas: after one ("1,2,300": "2" follows "1,"), or before
      // one that no group of three digits follows ("2,500,7500": 500 is no group of 2,500)
      const std::size_t last = rapidgrade::detail::thousands_end(s_, i, j, rapidgrade::detail::GroupSeparators::kLatex);
      const bool listed = last + 1 < n_ && s_[last] == ',' && is_digit(s_[last + 1]);
      if (last != j && !listed) {
        std::string m = rapidgrade::detail::group_digits(s_, i, last);
        j = last;
        if (j + 1 < n_ && s_[j] == '.' && is_digit(s_[j + 1])) {
          std::size_t q = j + 1;
          while (q < n_ && is_digit(s_[q])) ++q;
          m += std::string(s_.substr(j, q - j));
          j = q;
        }
        t.text = texts_.keep(canonical_number(m, ""));
        i_ = j;
        return;
      }
    }
    if (j < n_ && s_[j] == '.' && (j + 1 < n_ && is_digit(s_[j + 1]))) {
      ++j;
      while (j < n_ && is_digit(s_[j])) ++j;
    } else if (j < n_ && s_[j] == '.' && !(j + 1 < n_ && s_[j + 1] == '.')) {
      ++j;  // "5." -> 5
    }
    std::string_view mant = s_.substr(i, j - i);
    std::string_view exp;
    // scientific notation "1.5e-3" / "2E5": e, optional sign, digits, not followed by a letter
    if (j < n_ && (s_[j] == 'e' || s_[j] == 'E')) {
      std::size_t k = j + 1;
      if (k < n_ && (s_[k] == '+' || s_[k] == '-')) ++k;
      const std::size_t d = k;
      while (k < n_ && is_digit(s_[k])) ++k;
      // An integer mantissa counts too when digits follow the e directly ("1e5"): a product
      // 1*e*5 is written that way by nobody. "2e-3" with a sign is read as 2*10^-3 as well.
      if (k > d && (k >= n_ || !is_alpha(s_[k])) && (mant.find('.') != std::string_view::npos || k > j + 1)) {
        exp = s_.substr(j + 1, k - j - 1);
        j = k;
      }
    }
    if (mant.back() == '.') mant.remove_suffix(1);
    t.text = texts_.number(mant, exp);
    i_ = j;
  }

  /// A run of letters; "and" and "or" list answers ("1 and -2", "x = 1 or x = 2"; after a comma,
  /// run() drops them; "or" marks its comma Tok::alternative), a plain "pi" is \pi ("pi/2").
  void word(Tok& t) {
    std::size_t j = i_;
    while (j < n_ && is_alpha(s_[j])) ++j;
    t.type = T::kWord;
    t.text = s_.substr(i_, j - i_);
    if (const rapidgrade::detail::JoinerWord* joiner = rapidgrade::detail::joiner_word(t.text)) {
      t.type = T::kPunct;
      t.alternative = joiner->alternative;
      t.text = ",";
    } else if (same(t.text, "pi")) {
      t.type = T::kCmd;
    }
    i_ = j;
  }

  /// "\frac", "\{", "\%"; returns false for a skipped (spacing, sizing) command.
  bool command(Tok& t) {
    const std::size_t i = i_;
    std::size_t j = i + 1;
    if (j < n_ && is_alpha(s_[j])) {
      while (j < n_ && is_alpha(s_[j])) ++j;
      if (j < n_ && s_[j] == '*') ++j;
    } else if (j < n_) {
      j += utf8_length(s_, j);  // "\{", "\%", "\," or an escaped non-ASCII character
    }
    std::string_view name = s_.substr(i + 1, j - i - 1);
    // "\quadx" (a missing space after \quad): skip the spacing command, keep the letters
    for (const std::string_view sp : {"qquad"sv, "quad"sv}) {
      const std::size_t len = sp.size();
      if (name.size() > len && name.compare(0, len, sp) == 0 && name.back() != '*') {
        j = i + 1 + len;
        name = sp;
        break;
      }
    }
    i_ = j;
    if (skipped_command(name)) {
      space_ = true;
      // "\left." and "\right." are invisible delimiters
      if ((same(name, "left") || same(name, "right")) && i_ < n_ && s_[i_] == '.') ++i_;
      return false;
    }
    t.type = T::kCmd;
    t.text = name;
    if (joiner_in_text(name, t)) return true;
    for (const CommandToken& ct : kCommandTokens) {
      if (same(name, ct.name)) {
        t.type = ct.type;
        t.text = ct.text;
        t.alternative = ct.alternative;
        break;
      }
    }
    // "f(x) \equiv 1" states an identity, read as '='; in a text that speaks of a modulus
    // ("\equiv 1 \pmod{4}", "(mod 4)") it is a congruence, the unsupported command it is
    if (same(name, "equiv") && !mentions_modulus()) {
      t.type = T::kPunct;
      t.text = "=";
    }
    return true;
  }

  /// "\text{ or }", "\text{and}" (a text wrapper of latex_vocab.hpp around a joiner word alone)
  /// at i_, after the command `name`: read as the word (word()), into `t`, and passed.
  bool joiner_in_text(std::string_view name, Tok& t) {
    const rapidgrade::detail::TextWrapper* w = rapidgrade::detail::find_text_wrapper(name);
    if (w == nullptr || w->content != rapidgrade::detail::WrapperContent::kText || i_ >= n_ || s_[i_] != '{')
      return false;
    std::size_t b = i_ + 1;
    while (b < n_ && is_space(s_[b])) ++b;
    std::size_t e = b;
    while (e < n_ && is_alpha(s_[e])) ++e;
    const std::string_view word = s_.substr(b, e - b);
    while (e < n_ && is_space(s_[e])) ++e;
    const rapidgrade::detail::JoinerWord* joiner = rapidgrade::detail::joiner_word(word);
    if (e >= n_ || s_[e] != '}' || joiner == nullptr) return false;
    t.type = T::kPunct;
    t.text = ",";
    t.alternative = joiner->alternative;
    i_ = e + 1;
    return true;
  }

  /// Whether the text holds "mod" (\pmod, \bmod, "mod 4"); searched once per text.
  bool mentions_modulus() {
    if (mentions_modulus_ < 0) mentions_modulus_ = s_.find("mod") != std::string_view::npos ? 1 : 0;
    return mentions_modulus_ == 1;
  }

  /// One- or two-character punctuation ("<=", "**" -> "^", "==" -> "="); the degree sign.
  /// False at a character that is none of them (failure() says which).
  bool punct(Tok& t) {
    const char c = s_[i_];
    t.type = T::kPunct;
    if (i_ + 1 < n_ &&
        ((c == '<' && s_[i_ + 1] == '=') || (c == '>' && s_[i_ + 1] == '=') || (c == '!' && s_[i_ + 1] == '=') ||
         (c == '*' && s_[i_ + 1] == '*') || (c == '=' && s_[i_ + 1] == '='))) {
      t.text = s_.substr(i_, 2);
      if (same(t.text, "**")) t.text = "^";
      if (same(t.text, "==")) t.text = "=";
      i_ += 2;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      // a non-ASCII character: the degree sign U+00B0 is recognized; anything else is junk
      if (c == '\xC2' && i_ + 1 < n_ && s_[i_ + 1] == '\xB0') {
        t.text = "deg";
        i_ += 2;
      } else if ((c == '\xC2' && i_ + 1 < n_ && s_[i_ + 1] == '\xB7') ||
                 (c == '\xC3' && i_ + 1 < n_ && s_[i_ + 1] == '\x97')) {
        t.text = "*";  // U+00B7 middle dot, U+00D7 multiplication sign: "C·sin(x)", "2×x"
        i_ += 2;
      } else if (c == '\xCF' && i_ + 1 < n_ && s_[i_ + 1] == '\x80') {
        t.type = T::kCmd;  // U+03C0 π, read as \pi: "sin(πx)"
        t.text = "pi";
        i_ += 2;
      } else {
        failed_ = true;
        failure_ = Failure{"unexpected character", i_};
        return false;
      }
    } else {
      t.text = s_.substr(i_, 1);
      ++i_;
    }
    return true;
  }
};

}  // namespace

bool lex_latex(std::string_view s, std::vector<Tok>& out, Texts& texts, Failure& failure) {
  LatexLexer lexer(s, out, texts);
  lexer.run();
  if (lexer.failed()) failure = lexer.failure();
  return !lexer.failed();
}

}  // namespace rapidgrade::expr::detail
