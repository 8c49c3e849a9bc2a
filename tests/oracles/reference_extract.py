r"""Plain-Python reference of rapidgrade's answer extraction and normalization.

It implements the same documented cascade (boxed -> answer_is -> tagged -> code_output ->
choice -> bare -> final_span -> last_number, after the last ``</think>``) and the same
normalization rules as the C++ core, the way a pure-Python grader would: ``re``, ``str``
methods and character loops, in the manner of the Hendrycks MATH ``strip_string``. It is

* the baseline that ``benchmarks/bench_extract.py`` times rapidgrade against, and
* the oracle of ``tests/parity/test_extract_parity.py``.

It is not part of the package. Offsets are Python string indices (code points).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

__all__ = ["FUNCTION_WORDS", "RefExtraction", "extract_answer", "looks_like_text", "normalize_answer", "strip_string"]

_SPACE = " \t\n\r\f\v"


class RefExtraction(NamedTuple):
    text: str
    start: int
    end: int
    method: str


def _is_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _trim(s: str, a: int, b: int) -> tuple[int, int]:
    while a < b and s[a] in _SPACE:
        a += 1
    while b > a and s[b - 1] in _SPACE:
        b -= 1
    return a, b


# --------------------------------------------------------------------------------------------
# boxed

_BACKSLASH = re.compile(r"\\(?:([A-Za-z]+)|.)", re.S)
_BRACE_OR_ESCAPE = re.compile(r"[{}\\]")


def _match_brace(s: str, open_: int) -> int:
    """Index of the '}' closing the '{' at open_, or -1 (escapes skipped)."""
    depth = 0
    i = open_
    n = len(s)
    while i < n:
        m = _BRACE_OR_ESCAPE.search(s, i)
        if m is None:
            return -1
        i = m.start()
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        else:
            if depth == 0:
                return -1
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _bare_end(s: str, k: int) -> int:
    n = len(s)
    while k < n and s[k] not in _SPACE and s[k] not in "${}\\":
        k += 1
    return k


def _bare_argument_end(s: str, begin: int) -> int:
    k = _bare_end(s, begin)
    while k > begin and s[k - 1] in ".,;":
        k -= 1
    return k


def _all_boxes(s: str) -> list[tuple[int, int, int, int]]:
    """Every box of s (like rapidgrade.find_boxed), as (outer_start, start, end, outer_end)."""
    out: list[tuple[int, int, int, int]] = []
    stack: list[int] = []
    pending: list[tuple[int, int]] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "{":
            stack.append(-1)
            i += 1
        elif c == "}":
            if stack:
                box = stack.pop()
                if box >= 0:
                    o, st = pending[box]
                    out.append((o, st, i, i + 1))
            i += 1
        elif c == "\\":
            if i + 1 >= n:
                break
            if not _is_letter(s[i + 1]):
                i += 2
                continue
            j = i + 1
            while j < n and _is_letter(s[j]):
                j += 1
            name = s[i + 1 : j]
            if name not in ("boxed", "fbox"):
                i = j
                continue
            k = j
            while k < n and s[k] in _SPACE:
                k += 1
            if k < n and s[k] == "{":
                stack.append(len(pending))
                pending.append((i, k + 1))
                i = k + 1
            elif name == "boxed":
                e = _bare_argument_end(s, k)
                if e > k:
                    out.append((i, k, e, e))
                    i = e
                else:
                    i = k
            else:
                i = k
        else:
            i += 1
    out.sort(key=lambda b: b[0])
    return out


def _top_level_boxes(s: str, start: int) -> list[tuple[int, int, int, int]]:
    out: list[tuple[int, int, int, int]] = []
    pos = start
    n = len(s)
    while True:
        m = _BACKSLASH.search(s, pos)
        if m is None:
            break
        name = m.group(1)
        if name not in ("boxed", "fbox"):
            pos = m.end()
            continue
        i = m.start()
        k = m.end()
        while k < n and s[k] in _SPACE:
            k += 1
        if k < n and s[k] == "{":
            close = _match_brace(s, k)
            if close < 0:
                base = k + 1
                last_end = -1
                for o, a, b, e in _all_boxes(s[base:]):
                    if o < last_end:
                        continue
                    out.append((base + o, base + a, base + b, base + e))
                    last_end = e
                break
            out.append((i, k + 1, close, close + 1))
            pos = close + 1
        elif name == "boxed":
            e = _bare_argument_end(s, k)
            if e > k:
                out.append((i, k, e, e))
                pos = e
            else:
                pos = k
        else:
            pos = k
    return out


_SENTENCE_END = re.compile(r"[.!?](?=[ \t\n\r\f\v$\\]|\Z)|\n[ \t\r]*\n")


_BOX_COMMAND = re.compile(r"\\(boxed|fbox)(?![A-Za-z])")


def _unwrap_raw(s: str, a: int, b: int) -> tuple[int, int]:
    for _ in range(8):
        ta, tb = _trim(s, a, b)
        if tb - ta < 2 or s[ta] != "\\":
            return a, b
        inner = s[:tb]
        m = _BOX_COMMAND.match(inner, ta)
        if m is None:
            return a, b
        k = m.end()
        while k < tb and s[k] in _SPACE:
            k += 1
        if k < tb and s[k] == "{":
            if _match_brace(inner, k) != tb - 1:
                return a, b
            a, b = k + 1, tb - 1
        elif m.group(1) == "boxed" and k < tb:
            if _bare_argument_end(inner, k) != tb:
                return a, b
            a, b = k, tb
        else:
            return a, b
    return a, b


def _unwrap(s: str, a: int, b: int) -> tuple[int, int]:
    return _trim(s, *_unwrap_raw(s, a, b))


def _boxed(s: str, start: int) -> RefExtraction | None:
    boxes = _top_level_boxes(s, start)
    if not boxes:
        return None
    first = len(boxes) - 1
    while first > 0 and not _SENTENCE_END.search(s[boxes[first - 1][3] : boxes[first][0]]):
        first -= 1
    if first == len(boxes) - 1:
        a, b = _unwrap(s, boxes[-1][1], boxes[-1][2])
        return RefExtraction(s[a:b], a, b, "boxed")
    parts = [_unwrap(s, box[1], box[2]) for box in boxes[first:]]
    return RefExtraction(", ".join(s[a:b] for a, b in parts), parts[0][0], parts[-1][1], "boxed_multi")


# --------------------------------------------------------------------------------------------
# answer_is

_MARKER = re.compile(r"(?<![A-Za-z])answer", re.I | re.A)
_AFTER_MARKER = re.compile(r"(?:\*\*)?[ \t]*(?::(?:\*\*)?|is(?![A-Za-z])[ \t]*:?)", re.I | re.A)


def _has_no_dollar(t: str) -> bool:
    return "$" not in re.sub(r"\\.", "", t, flags=re.S)


def _strip_delimiters(s: str, a: int, b: int) -> tuple[int, int]:
    a, b = _trim(s, a, b)
    if b - a >= 4 and s.startswith("**", a) and s[b - 2 : b] == "**":
        a, b = _trim(s, a + 2, b - 2)
    return _unwrap_math(s, a, b)


def _unwrap_math(s: str, a: int, b: int) -> tuple[int, int]:
    """One layer of math delimiters enclosing all of s[a:b], removed; the result trimmed."""
    a, b = _trim(s, a, b)
    t = s[a:b]
    if len(t) >= 4 and t.startswith("$$") and t.endswith("$$") and _has_no_dollar(t[2:-2]):
        return _trim(s, a + 2, b - 2)
    if len(t) >= 2 and t[0] == "$" and t[-1] == "$" and (len(t) < 3 or t[-2] != "\\") and _has_no_dollar(t[1:-1]):
        return _trim(s, a + 1, b - 1)
    for open_, close in (("\\(", "\\)"), ("\\[", "\\]")):
        if len(t) >= 4 and t.startswith(open_) and t.endswith(close) and close not in t[2:-2]:
            return _trim(s, a + 2, b - 2)
    return a, b


def _display_close(s: str, i: int, dollars: bool) -> int:
    n = len(s)
    k = i
    while k < n:
        c = s[k]
        if c == "\\":
            if not dollars and k + 1 < n and s[k + 1] == "]":
                return k
            k += 2
        elif dollars and c == "$" and k + 1 < n and s[k + 1] == "$":
            return k
        else:
            k += 1
    return -1


def _answer_value(s: str, j: int) -> tuple[int, int]:
    n = len(s)
    while j < n and s[j] in _SPACE:
        j += 1
    if j == n:
        return j, j
    if s.startswith("$$", j) or s.startswith("\\[", j):
        close = _display_close(s, j + 2, s[j] == "$")
        if close >= 0:
            return _strip_delimiters(s, j, close + 2)
    in_dollar = in_paren = False
    depth = 0
    k = j
    while k < n:
        c = s[k]
        if c in "\n\r":
            break
        if c == "\\":
            if k + 1 < n and s[k + 1] in "\n\r":
                break
            if k + 1 < n:
                if s[k + 1] == "(":
                    in_paren = True
                elif s[k + 1] == ")":
                    in_paren = False
            k += 2
            continue
        if c == "$":
            in_dollar = not in_dollar
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth > 0:
                depth -= 1
        elif c in ".!?" and not in_dollar and not in_paren and depth == 0 and (k + 1 >= n or s[k + 1] in _SPACE):
            break
        k += 1
    return _strip_delimiters(s, j, min(k, n))


# --------------------------------------------------------------------------------------------
# tagged

_GSM8K_LINE = re.compile(r"^[ \t]*####(.*)$", re.M)
_GSM8K_VALUE = re.compile(r"[0-9,.\-+/ $\u2212]*[0-9][0-9,.\-+/ $\u2212]*")


# --------------------------------------------------------------------------------------------
# code_output


def _code_output(s: str, start: int) -> RefExtraction | None:
    in_block = is_output = seen_code = False
    content_start = 0
    best = None
    pos = start
    n = len(s)
    while pos <= n:
        eol = s.find("\n", pos)
        if eol < 0:
            eol = n
        line = s[pos:eol]
        stripped = line.lstrip(" \t")
        if stripped.startswith("```"):
            info = stripped[3:].strip(_SPACE)
            if not in_block:
                w = 0
                while w < len(info) and info[w] not in _SPACE:
                    w += 1
                lang = info[:w].lower()
                is_output = lang in ("output", "text")
                in_block = True
                content_start = min(eol + 1, n)
            elif not info:
                if is_output and seen_code:
                    a, b = _trim(s, content_start, pos)
                    if b > a:
                        best = (a, b)
                if not is_output:
                    seen_code = True
                in_block = False
        if eol >= n:
            break
        pos = eol + 1
    if best is None:
        return None
    return RefExtraction(s[best[0] : best[1]], best[0], best[1], "code_output")


# --------------------------------------------------------------------------------------------
# helpers of the unmarked strategies


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


def _u8(s: str, a: int, b: int) -> int:
    """Length of s[a:b] in UTF-8 bytes (the unit of the core's size limits)."""
    return len(s[a:b].encode("utf-8", "surrogatepass"))


def _ascii_istarts(s: str, i: int, word: str) -> bool:
    """s[i:] starts with the lower-case ASCII `word`, ignoring ASCII case only."""
    if i < 0 or i + len(word) > len(s):
        return False
    return all(c.isascii() and c.lower() == w for c, w in zip(s[i : i + len(word)], word))


def _letters_end(s: str, i: int, end: int) -> int:
    while i < end and _is_letter(s[i]):
        i += 1
    return i


# --------------------------------------------------------------------------------------------
# choice

_CHOICE_WORDS = ("answer", "option", "choice")


def _choice(s: str, start: int) -> RefExtraction | None:
    e = len(s)
    while e > start and (s[e - 1] in _SPACE or s[e - 1] in ".)]*"):
        e -= 1
    if e == start or not ("A" <= s[e - 1] <= "J"):
        return None
    letter = e - 1
    if letter > start and (_is_letter(s[letter - 1]) or _is_digit(s[letter - 1]) or s[letter - 1] == "\\"):
        return None
    b = letter
    while b > start and s[b - 1] in " \t([:*":
        b -= 1
    if b - 2 >= start and _ascii_istarts(s, b - 2, "is") and (b - 2 == start or not _is_letter(s[b - 3])):
        b -= 2
        while b > start and s[b - 1] in " \t([:*":
            b -= 1
    lone = b == start or s[b - 1] == "\n"
    announced = False
    for w in _CHOICE_WORDS:
        w_start = b - len(w)
        if w_start >= start and _ascii_istarts(s, w_start, w):
            announced = announced or w_start == start or not _is_letter(s[w_start - 1])
    if not lone and not announced:
        return None
    return RefExtraction(s[letter], letter, letter + 1, "choice")


# --------------------------------------------------------------------------------------------
# bare

# The bare words that name functions (rapidgrade's function table, listed here so that the
# reference stays independent of the package; test_extract_parity checks it against
# rapidgrade._core.expr_function_table()). Those in _CALL_ONLY name a function only before "(".
FUNCTION_WORDS = frozenset(
    [
        "sin",
        "cos",
        "tan",
        "sec",
        "csc",
        "cot",
        "asin",
        "arcsin",
        "acos",
        "arccos",
        "atan",
        "arctan",
        "asec",
        "arcsec",
        "acsc",
        "arccsc",
        "acot",
        "arccot",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "arsinh",
        "arcsinh",
        "acosh",
        "arcosh",
        "arccosh",
        "atanh",
        "artanh",
        "arctanh",
        "exp",
        "log",
        "ln",
        "sqrt",
        "root",
        "floor",
        "ceiling",
        "ceil",
        "Abs",
        "abs",
        "factorial",
        "binomial",
        "sign",
        "sgn",
        "det",
        "max",
        "min",
        "gcd",
        "lcm",
        "erf",
        "erfc",
        "Si",
        "Ci",
        "Ei",
        "gamma",
        "besselj",
    ]
)
_CALL_ONLY = frozenset(["erf", "erfc", "Si", "Ci", "Ei", "gamma", "besselj"])
_MAX_BARE_BYTES = 200
_MAX_BARE_TEXT_BYTES = 40
_MAX_BARE_WORDS = 4


def looks_like_text(s: str) -> bool:
    """True when s holds a word (three letters or more) that is not a function name nor "and";
    the names after \\begin, \\end and \\operatorname do not count."""
    i, n = 0, len(s)
    while i < n:
        if s[i] == "\\":
            j = _letters_end(s, i + 1, n)
            name = s[i + 1 : j]
            i = j if j > i + 1 else i + 2
            if name in ("begin", "end", "operatorname") and i < n and s[i] == "{":
                close = s.find("}", i)
                i = n if close < 0 else close
            continue
        if _is_letter(s[i]):
            j = _letters_end(s, i, n)
            word = s[i:j]
            before_paren = s.startswith("(", j) or s.startswith("}(", j)
            is_function = word in FUNCTION_WORDS and (before_paren or word not in _CALL_ONLY)
            if len(word) >= 3 and not is_function and word != "and":
                return True
            i = j
            continue
        i += 1
    return False


def _bare(s: str, start: int) -> RefExtraction | None:
    a, b = _trim(s, start, len(s))
    if a == b or _u8(s, a, b) > _MAX_BARE_BYTES or "\n" in s[a:b]:
        return None
    a, b = _unwrap_math(s, a, b)
    inner = s[a:b]
    if not inner or any(m in inner for m in ("$", "\\(", "\\[", "\\begin{")):
        return None
    # a prose word among several tokens ("so it is 4"), unless the answer is words only
    tokens = re.findall(r"[^ \t\n\r\f\v]+", inner)
    letters = [bool(re.fullmatch(r"[A-Za-z]+", t)) for t in tokens]
    prose = any(
        ok and len(t) >= 2 and t not in ("pi", "oo", "inf") and t not in FUNCTION_WORDS
        for t, ok in zip(tokens, letters)
    )
    if len(tokens) >= 2 and prose and not all(letters):
        return None
    if looks_like_text(inner):
        words = re.findall(r"[^ \t\n\r\f\v]+", inner)
        if _u8(s, a, b) > _MAX_BARE_TEXT_BYTES or len(words) > _MAX_BARE_WORDS:
            return None
        if re.search(r"[0-9$]", inner):
            return None
    return RefExtraction(inner, a, b, "bare")


# --------------------------------------------------------------------------------------------
# final_span

_MATH_ENVIRONMENTS = ("equation", "align", "gather", "multline", "displaymath", "eqnarray", "math")
_Span = tuple[int, int, int, int]  # outer_start, start, end, outer_end


def _environments(s: str, start: int) -> list[_Span]:
    out: list[_Span] = []
    at = s.find("\\begin{", start)
    while at >= 0:
        close = s.find("}", at + 7)
        if close < 0:
            break
        name = s[at + 7 : close]
        nxt = close + 1
        if name.removesuffix("*") in _MATH_ENVIRONMENTS:
            end_tag = "\\end{" + name + "}"
            end = s.find(end_tag, close + 1)
            if end < 0:
                break
            out.append((at, close + 1, end, end + len(end_tag)))
            nxt = end + len(end_tag)
        at = s.find("\\begin{", nxt)
    return out


def _math_closer(s: str, i: int, close: str) -> int:
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            if close[0] == "\\" and s.startswith(close, i):
                return i
            i += 2
        elif c == "$":
            if close == "$" or (close == "$$" and s.startswith("$$", i)):
                return i
            i += 1
        else:
            i += 1
    return -1


def _delimited_spans(s: str, start: int) -> list[_Span]:
    """$..$, $$..$$, \\(..\\), \\[..\\] from start on (a closer that was not found is not looked for again)."""
    out: list[_Span] = []
    exhausted: set[str] = set()
    i, n = start, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            if s.startswith("\\(", i):
                opener, closer = "\\(", "\\)"
            elif s.startswith("\\[", i):
                opener, closer = "\\[", "\\]"
            else:
                i += 2
                continue
        elif c == "$":
            opener = closer = "$$" if s.startswith("$$", i) else "$"
        else:
            i += 1
            continue
        close = -1 if closer in exhausted else _math_closer(s, i + len(opener), closer)
        if close < 0:
            exhausted.add(closer)
            i += len(opener)
            continue
        out.append((i, i + len(opener), close, close + len(closer)))
        i = close + len(closer)
    return out


def _math_spans(s: str, start: int) -> list[_Span]:
    envs = _environments(s, start)
    out: list[_Span] = []
    e = 0
    for span in _delimited_spans(s, start):
        while e < len(envs) and envs[e][3] <= span[0]:
            out.append(envs[e])
            e += 1
        if e < len(envs) and envs[e][0] < span[3]:
            continue  # inside or across an environment
        out.append(span)
    out.extend(envs[e:])
    return out


def _skip_command(s: str, k: int, end: int) -> int:
    """Past the command or control symbol whose backslash is at k."""
    j = _letters_end(s, k + 1, end)
    return j if j > k + 1 else k + 2


def _has_content(s: str, a: int, b: int) -> bool:
    """A digit or a letter outside command names."""
    k = a
    while k < b:
        if s[k] == "\\":
            k = _skip_command(s, k, b)
            continue
        if _is_digit(s[k]) or _is_letter(s[k]):
            return True
        k += 1
    return False


def _has_symbol(s: str, a: int, b: int) -> bool:
    """A letter outside command names."""
    k = a
    while k < b:
        if s[k] == "\\":
            k = _skip_command(s, k, b)
            continue
        if _is_letter(s[k]):
            return True
        k += 1
    return False


_SPAN_TAILS = ("\\nonumber", "\\notag", "\\qquad", "\\quad", "\\\\", ".", ",", ";")


def _span_content(s: str, a: int, b: int) -> tuple[int, int]:
    a, b = _trim(s, a, b)
    for cmd in ("\\tag", "\\label"):
        at = s.find(cmd, a, b)
        if at >= 0:
            b = at
    changed = True
    while changed and b > a:
        changed = False
        a, b = _trim(s, a, b)
        for tail in _SPAN_TAILS:
            if b - a >= len(tail) and s.endswith(tail, a, b):
                b -= len(tail)
                changed = True
                break
    return a, b


_EQUALITY_COMMANDS = ("approx",)
_INEQUALITY_COMMANDS = ("le", "leq", "ge", "geq", "neq", "ne", "lt", "gt", "leqslant", "geqslant")


def _relation_at(s: str, k: int, end: int) -> tuple[int, bool]:
    """(length, is an equality) of the relation operator at s[k]; length 0 when there is none."""
    c = s[k]
    if c == "=":
        return (2 if k + 1 < end and s[k + 1] == "=" else 1), True
    if c in "<>!":
        if k + 1 < end and s[k + 1] == "=":
            return 2, False
        return (0 if c == "!" else 1), False
    if c == "\\":
        e = _letters_end(s, k + 1, end)
        name = s[k + 1 : e]
        if name in _EQUALITY_COMMANDS:
            return e - k, True
        if name in _INEQUALITY_COMMANDS:
            return e - k, False
        return 0, False
    if c == "\u2248":
        return 1, True
    if c in "\u2264\u2265\u2260":
        return 1, False
    return 0, False


def _span_answer(s: str, a: int, b: int) -> tuple[int, int]:
    """What a math span states: the last member of a chain of equalities, the right side of an
    arithmetic left side, the relation itself otherwise; after the last \\Rightarrow."""
    a, b = _span_content(s, a, b)
    ops: list[tuple[int, int]] = []  # (position, length)
    all_equalities = True
    parts = False
    depth = 0
    k = a
    while k < b:
        c = s[k]
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth = max(depth - 1, 0)
        elif c == "\\":
            e = _letters_end(s, k + 1, b)
            if e == k + 1:  # \{ and \} are braces
                if k + 1 < b and s[k + 1] == "{":
                    depth += 1
                elif k + 1 < b and s[k + 1] == "}":
                    depth = max(depth - 1, 0)
                k += 2
                continue
            name = s[k + 1 : e]
            if depth == 0:
                if name in ("Rightarrow", "Longrightarrow", "implies", "therefore"):
                    ops, all_equalities, parts, a = [], True, False, e
                elif name in ("quad", "qquad"):
                    parts = True
                elif name in ("text", "mbox", "textrm") and e < b and s[e] == "{":
                    close = s.find("}", e, b)
                    if close >= 0 and _u8(s, e, close) < 16 and s[e + 1 : close].strip(_SPACE) in ("or", "and"):
                        parts = True
                else:
                    length, equality = _relation_at(s, k, b)
                    if length:
                        ops.append((k, length))
                        all_equalities = all_equalities and equality
            k = e
            continue
        elif depth == 0 and c in ",;":
            thousands = c == "," and k > a and _is_digit(s[k - 1]) and re.match(r"[0-9]{3}(?![0-9])", s[k + 1 : b])
            if not thousands:
                parts = True
        elif depth == 0:
            length, equality = _relation_at(s, k, b)
            if length:
                ops.append((k, length))
                all_equalities = all_equalities and equality
                k += length
                continue
        k += 1
    a, b = _trim(s, a, b)
    if parts or not ops or not all_equalities:
        return a, b
    at, length = ops[-1]
    ra, rb = _trim(s, at + length, b)
    if ra == rb:
        return a, b
    if len(ops) >= 2:
        return ra, rb
    la, lb = _trim(s, a, at)
    return (a, b) if _has_symbol(s, la, lb) else (ra, rb)


def _relation_lhs(s: str, a: int, b: int) -> tuple[int, int]:
    """The left side of the first top-level relation of s[a:b], trimmed; empty when none."""
    depth = 0
    k = a
    while k < b:
        c = s[k]
        if c in "{([":
            depth += 1
        elif c in "})]" and depth > 0:
            depth -= 1
        elif depth == 0 and _relation_at(s, k, b)[0]:
            return _trim(s, a, k)
        elif c == "\\":
            k = _skip_command(s, k, b)
            continue
        k += 1
    return a, a


_REFERENCE_WORDS = ("see", "cf", "fig", "table", "eq", "step")
_MAX_SKIPPED_BYTES = 80  # how far a "<tag>" or a "(reference)" may reach, in UTF-8 bytes
_TAG = re.compile(r"[^>\n ]{0,80}>")
_PARENTHESIZED = re.compile(r"[^)\n]{0,80}\)")


def _digit_after(s: str, k: int) -> bool:
    """A digit after k, outside <...> tags and references in parentheses."""
    n = len(s)
    while k < n:
        c = s[k]
        if c == "<":
            m = _TAG.match(s, k + 1)
            if m is not None and _u8(s, k, m.end() - 1) <= _MAX_SKIPPED_BYTES:
                k = m.end()
                continue
        elif c == "(":
            m = _PARENTHESIZED.match(s, k + 1)
            if m is not None and _u8(s, k, m.end() - 1) <= _MAX_SKIPPED_BYTES:
                close = m.end() - 1
                inside = s[k + 1 : close].strip(_SPACE)
                numbered = inside != "" and all(_is_digit(d) or d == "." for d in inside)
                if numbered or any(_ascii_istarts(inside, 0, w) for w in _REFERENCE_WORDS):
                    k = close + 1
                    continue
        elif _is_digit(c):
            return True
        k += 1
    return False


_CONNECTORS = re.compile(r"[ \t\n\r\f\v]*(?:(?:[,;]|(?<![A-Za-z])(?:and|or)(?![A-Za-z]))[ \t\n\r\f\v]*)+")


def _joins_parts(s: str, a: int, b: int) -> bool:
    """Only ',', ';', "and", "or" and whitespace between two spans (a short gap)."""
    if _u8(s, a, b) > 16:
        return False
    return _CONNECTORS.fullmatch(s, a, b) is not None


def _sentence_break(s: str, a: int, b: int) -> bool:
    return re.compile(r"\n|[.!?](?=[ \t\n\r\f\v]|\Z)").search(s[a:b]) is not None


def _is_lone_symbol(s: str, a: int, b: int) -> bool:
    return re.fullmatch(r"(?:\\[A-Za-z]+|[A-Za-z]{1,2})[ \t]*(?:_[ \t0-9A-Za-z{}]*)?", s[a:b]) is not None


def _final_span(s: str, start: int) -> RefExtraction | None:
    spans = [sp for sp in _math_spans(s, start)]
    full = [_has_content(s, sp[1], sp[2]) for sp in spans]
    last = len(spans)
    while last > 0 and not full[last - 1]:
        last -= 1
    if last == 0:
        return None
    # "$m = 2$ after solving for $m$": the variable named again is not the answer
    prev = last - 1
    while prev > 0 and not full[prev - 1]:
        prev -= 1
    if prev > 0:
        name = _span_content(s, spans[last - 1][1], spans[last - 1][2])
        before = _span_content(s, spans[prev - 1][1], spans[prev - 1][2])
        if (
            _is_lone_symbol(s, *name)
            and not _sentence_break(s, spans[prev - 1][3], spans[last - 1][0])
            and s.startswith(s[name[0] : name[1]], before[0], before[1])
        ):
            last = prev
    if _digit_after(s, spans[last - 1][3]):
        return None
    final = _span_answer(s, spans[last - 1][1], spans[last - 1][2])
    final_lhs = s[slice(*_relation_lhs(s, *final))]
    first = last - 1
    while first > 0 and full[first - 1] and _joins_parts(s, spans[first - 1][3], spans[first][0]):
        part = _span_answer(s, spans[first - 1][1], spans[first - 1][2])
        lhs = s[slice(*_relation_lhs(s, *part))]
        if (lhs == "") != (final_lhs == "") or lhs != final_lhs:
            break
        first -= 1
    parts = [_span_answer(s, sp[1], sp[2]) for sp in spans[first:last]]
    a, b = parts[0][0], parts[-1][1]
    if b <= a:
        return None
    return RefExtraction(", ".join(s[pa:pb] for pa, pb in parts), a, b, "final_span")


# --------------------------------------------------------------------------------------------
# last_number

_EXP = r"(?:[eE][+-]?\d+)?"
# Commands and escapes are matched as whole tokens (group "skip") so that scanning stays aligned
# with the C++ tokenizer: the "1" of "\\1" is escaped, the "frac" of "\\\\frac" is not a command.
_NUMBER = re.compile(
    r"(?P<num>"
    r"\\[dt]?frac(?:\{-?\d+\}\{\d+\}|\d\d)"  # \frac{3}{4}, \dfrac12
    r"|\d{1,3}(?:,\d{3}(?!\d))+(?:\.\d+)?"
    + _EXP  # 1,234,567.5
    + r"|\d+\.\d+"
    + _EXP  # 3.25, 1.5e-3
    + r"|\d+[eE][+-]?\d+"  # 2e5
    r"|\d+/\d+"  # 3/4
    r"|\d+"
    r"|(?<!\d)\.\d+" + _EXP + r")"  # .5
    r"|(?P<skip>\\(?:[A-Za-z]+|.))",
    re.A | re.S,
)
_SIGN_AFTER = " \t\n\r\f\v([{=,:;$"  # a '-' glued to its number is a sign after these
# commands after which a '-' written apart is a sign: "\times - 3", "\le - 2"
_OPERATOR_COMMANDS = frozenset(
    [
        "times",
        "cdot",
        "div",
        "pm",
        "mp",
        "le",
        "leq",
        "ge",
        "geq",
        "neq",
        "ne",
        "approx",
        "to",
        "quad",
        "qquad",
        "Rightarrow",
        "implies",
        "therefore",
        "because",
        "left",
        "lt",
        "gt",
    ]
)


def _sign_written_apart(r: str, p: int) -> bool:
    """The '-' at r[p], blanks before its number, is a sign: it comes after the start, a line
    break, one of ( [ { = , : ; $, a word of two letters or more, or an operator command."""
    q = p
    while q > 0 and r[q - 1] in " \t":
        q -= 1
    if q == 0 or r[q - 1] in "\n\r([{=,:;$":
        return True
    w = q
    while w > 0 and _is_letter(r[w - 1]):
        w -= 1
    if w == q:
        return False
    if w > 0 and r[w - 1] == "\\":
        return r[w:q] in _OPERATOR_COMMANDS
    return q - w >= 2


def _signed_start(r: str, i: int) -> int:
    """Start of the number at r[i] with the '-' or U+2212 before it when that is its sign."""
    q = i
    while q > 0 and r[q - 1] in " \t":
        q -= 1
    if q == 0 or r[q - 1] not in "-\u2212":
        return i
    p = q - 1
    if q != i:
        return p if _sign_written_apart(r, p) else i
    return p if p == 0 or r[p - 1] in _SIGN_AFTER else i


def _last_number(s: str, start: int) -> RefExtraction | None:
    region = s[start:]
    last = None
    for m in _NUMBER.finditer(region):
        if m.group("num") is not None:
            last = m
    if last is None:
        return None
    a, b = start + _signed_start(region, last.start()), start + last.end()
    return RefExtraction(s[a:b], a, b, "last_number")


# --------------------------------------------------------------------------------------------
# the answer phrase (extract::read_answer_phrase) and the marker table (detail/markers.hpp)


def _read_units_table() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(unit symbols, prefixable symbols, prefixes) of cpp/include/rapidgrade/detail/units.hpp."""
    header = Path(__file__).resolve().parents[2] / "cpp" / "include" / "rapidgrade" / "detail" / "units.hpp"
    text = header.read_text(encoding="utf-8")

    def c_string(lit: str) -> str:
        return lit.encode("latin-1").decode("unicode_escape").encode("latin-1").decode("utf-8")

    symbols, prefixable, prefixes = set(), set(), set()
    for m in re.finditer(r'\{"((?:[^"\\]|\\.)*)", "[^"]*", (true|false)\}', text):
        symbols.add(c_string(m.group(1)))
        if m.group(2) == "true":
            prefixable.add(c_string(m.group(1)))
    for m in re.finditer(r'\{"((?:[^"\\]|\\.)*)", "[a-z]+"\}', text):
        prefixes.add(c_string(m.group(1)))
    return frozenset(symbols), frozenset(prefixable), frozenset(prefixes)


_UNIT_SYMBOLS, _PREFIXABLE_UNITS, _UNIT_PREFIXES = _read_units_table()
_MATH_NON_ASCII = (
    "\u2212",
    "\u03c0",
    "\u221a",
    "\u221e",
    "\u00b0",
    "\u00b2",
    "\u00b3",
    "\u00d7",
    "\u00f7",
    "\u00b7",
    "\u00b1",
    "\u2264",
    "\u2265",
    "\u2260",
    "\u2248",
    "\u22c5",
    "根号",
)
_CJK_JOINERS = ("和", "或")
_CURRENCY = ("\u00a5", "\u20ac", "\u00a3", "\uffe5")
_PHRASE_OPERATORS = "+-*/^=<>_("


def _is_unit_word(w: str) -> bool:
    if w in _UNIT_SYMBOLS:
        return True
    return any(w[:p] in _UNIT_PREFIXES and w[p:] in _PREFIXABLE_UNITS for p in (1, 2) if p < len(w))


def _unit_end(s: str, e: int, end: int) -> int:
    k = e
    while k < end:
        q = k
        if s[q] == "^":
            q += 1
            if q < end and s[q] in "-{":
                q += 1
            d = q
            while d < end and _is_digit(s[d]):
                d += 1
            if d == q:
                break
            k = d + 1 if d < end and s[d] == "}" else d
            continue
        if s[q] not in "/*":
            break
        q += 1
        w = _letters_end(s, q, end)
        if w == q or not _is_unit_word(s[q:w]):
            break
        k = w
    return k


def _fullwidth_ascii(c: str) -> str:
    return chr(ord(c) - 0xFEE0) if "\uff01" <= c <= "\uff5e" else ""


def _math_non_ascii(s: str, k: int) -> int:
    a = _fullwidth_ascii(s[k])
    if a:
        return 1 if (_is_digit(a) or a in "+-*/=<>()[],.%^") else 0
    for m in _MATH_NON_ASCII:
        if s.startswith(m, k):
            return len(m)
    return 0


def _cjk_joiner(s: str, k: int) -> int:
    return 1 if k < len(s) and s[k] in _CJK_JOINERS else 0


def _math_word(w: str) -> bool:
    return len(w) == 1 or w in ("pi", "oo", "inf", "infty", "infinity", "sqrt") or w in FUNCTION_WORDS


def _operand_word(s: str, begin: int, k: int, w: int, end: int) -> bool:
    b = k
    while b > begin and s[b - 1] in " \t":
        b -= 1
    if b > begin and (s[b - 1] in _PHRASE_OPERATORS or s[b - 1] == "{"):
        return True
    a = w
    while a < end and s[a] in " \t":
        a += 1
    return a < end and s[a] in _PHRASE_OPERATORS


def _math_follows(s: str, k: int, end: int) -> bool:
    while k < end and s[k] in " \t":
        k += 1
    if k >= end:
        return False
    c = s[k]
    if _is_digit(c) or c in "-$\\([{":
        return True
    if _is_letter(c):
        w = _letters_end(s, k, end)
        return w == k + 1 or _math_word(s[k:w])
    return _math_non_ascii(s, k) > 0


def _digits_end(s: str, i: int, end: int) -> int:
    while i < end and _is_digit(s[i]):
        i += 1
    return i


def _latex_group_separator(s: str, k: int) -> int:
    for cand in (",\\!", "{,}", "\\,", "\\ ", ",", " "):
        if s.startswith(cand, k):
            return len(cand)
    return 0


def _number_end(t: str, i: int) -> int:
    """extract.cpp's number_end on t (the text up to the phrase's end)."""
    n = len(t)
    k = i
    plain = True
    if t[k] == ".":
        k = _digits_end(t, k + 1, n)
        plain = False
    else:
        k = _digits_end(t, k, n)
        if k - i <= 3:
            while k + 3 < n + 1 and k < n and t[k] == "," and k + 3 < n + 1 and _digits_end(t, k + 1, n) == k + 4:
                k += 4
                plain = False
        if k + 1 < n and t[k] == "." and _is_digit(t[k + 1]):
            k = _digits_end(t, k + 1, n)
            plain = False
    if k < n and t[k] in "eE":
        m = k + 1
        if m < n and t[m] in "+-":
            m += 1
        if m < n and _is_digit(t[m]):
            k = _digits_end(t, m, n)
            plain = False
    if plain and k + 1 < n and t[k] == "/" and _is_digit(t[k + 1]):
        k = _digits_end(t, k + 1, n)
    return k


def _phrase_number_end(s: str, i: int, end: int) -> int:
    t = s[:end]
    k = _number_end(t, i)
    run = _digits_end(t, i, end)
    if k == run and run - i <= 3:
        g = run
        while True:
            sep = _latex_group_separator(t, g)
            d = g + sep
            if sep == 0 or _digits_end(t, d, end) != d + 3:
                break
            g = d + 3
        if g != run and t[run] == " " and all(_is_digit(c) or c == " " for c in t[run:g]):
            k = g
    if k == run and k + 1 < end and t[k] == " " and _is_digit(t[k + 1]):
        num = _digits_end(t, k + 1, end)
        if num + 1 < end and t[num] == "/" and _is_digit(t[num + 1]):
            den = _digits_end(t, num + 1, end)
            if den >= end or t[den] != ".":
                k = den
    return k


def _group_end(s: str, k: int, end: int) -> int:
    depth = 0
    q = k
    while q < end:
        c = s[q]
        if c == "\\":
            q += 2
            continue
        if c in "([{":
            depth += 1
        if c in ")]}":
            depth -= 1
            if depth == 0:
                return q + 1
        q += 1
    return -1


def _holds_prose(s: str, b: int, e: int) -> bool:
    k = b
    while k < e:
        c = s[k]
        if c == "\\":
            w = _letters_end(s, k + 1, e)
            k = w if w > k + 1 else min(e, k + 2)
            continue
        if _is_letter(c):
            w = _letters_end(s, k, e)
            if not _math_word(s[k:w]) and s[k:w] not in ("and", "or"):
                return True
            k = w
            continue
        if not c.isascii():
            m = max(_math_non_ascii(s, k), _cjk_joiner(s, k))
            if m == 0:
                return True
            k += m
            continue
        k += 1
    return False


def _span_delimiters(s: str, k: int, end: int) -> tuple[int, str]:
    dollar = s[k] == "$"
    open_ = 2 if dollar and k + 1 < end and s[k + 1] == "$" else (1 if dollar else 2)
    close = ("$$" if open_ == 2 else "$") if dollar else ("\\)" if s[k + 1] == "(" else "\\]")
    return open_, close


def _math_objects(s: str, b: int, e: int) -> tuple[int, tuple[int, int]]:
    count, last = 0, (b, b)
    k = b
    while k < e:
        c = s[k]
        if c == "$" or (c == "\\" and k + 1 < e and s[k + 1] in "(["):
            open_, close = _span_delimiters(s, k, e)
            at = _math_closer(s[:e], k + open_, close)
            if at < 0:
                return 2, last
            count += 1
            last = (k, at + len(close))
            k = at + len(close)
            continue
        if _is_digit(c) and (k == b or not _is_letter(s[k - 1])):
            ne = _phrase_number_end(s, k, e)
            count += 1
            last = (b + _signed_start(s[b:e], k - b), ne)
            k = ne
            continue
        if c == "\\":
            k += 2
            continue
        k += 1
    return count, last


class _Phrase(NamedTuple):
    answer: tuple[int, int]
    unit: tuple[int, int]
    clean: bool
    cut: bool
    leading_prose: bool
    joined: bool


def read_answer_phrase(s: str, a: int, b: int) -> _Phrase:
    """The math object at the start of the phrase s[a:b] (see extract.hpp, read_answer_phrase)."""
    a, end = _trim(s, a, b)
    if end <= a:
        return _Phrase((a, end), (0, 0), True, False, False, False)
    k = a
    paren = s[k] == "("
    if paren:
        k += 1
    if k + 1 < end and "A" <= s[k] <= "J" and (s[k + 1] == ")" or (not paren and s[k + 1] == ".")):
        after = k + 2
        if after < end and s[after] in " \t" and _trim(s, after, end)[1] > after:
            return _Phrase((a, after if paren else k + 1), (0, 0), False, True, False, False)
    k = answer_start = math_end = a
    seen = cut = leading = joined = False
    unit = (0, 0)
    while k < end:
        c = s[k]
        if c in " \t":
            k += 1
            continue
        before = k
        if c == "*" and not seen:
            k += 1
            answer_start = k
            continue
        if c == "$" or (c == "\\" and k + 1 < end and s[k + 1] in "(["):
            open_, close = _span_delimiters(s, k, end)
            at = _math_closer(s[:end], k + open_, close)
            if (
                c == "$"
                and open_ == 1
                and k + 1 < end
                and _is_digit(s[k + 1])
                and ("$" not in s[k + 1 : end] if at < 0 else _holds_prose(s, k + 1, at) and "\\" not in s[k + 1 : at])
            ):
                if not seen:
                    answer_start = k + 1
                k += 1
                continue
            if at < 0:
                math_end, seen = end, True
                break
            k = at + len(close)
        elif c == "\\":
            w = _letters_end(s, k + 1, end)
            if w == k + 1:
                k = min(end, k + 2)
            else:
                text = s[k + 1 : w] in ("text", "textrm", "mbox", "mathrm")
                k = w
                if k < end and s[k] == "{":
                    g = _group_end(s, k, end)
                    if g < 0:
                        math_end, seen = end, True
                        break
                    if text and seen and _holds_prose(s, k + 1, g - 1):
                        cut = True
                        break
                    k = g
        elif c in "([{":
            g = _group_end(s, k, end)
            if g < 0:
                math_end, seen = end, True
                break
            if seen and before > a and s[before - 1] in " \t" and _holds_prose(s, k + 1, g - 1):
                cut = True
                break
            k = g
        elif _is_digit(c) or (c == "." and k + 1 < end and _is_digit(s[k + 1])):
            k = _phrase_number_end(s, k, end)
            w = _letters_end(s, k, end)
            if w > k and _is_unit_word(s[k:w]) and (w >= end or not _is_digit(s[w])):
                math_end, unit, cut, seen = k, (k, _unit_end(s, w, end)), True, True
                break
            if w > k and not _math_word(s[k:w]) and w - k > 1:
                math_end, cut, seen = k, True, True
                break
            k = w
        elif _is_letter(c):
            w = _letters_end(s, k, end)
            word = s[k:w]
            if seen and word in ("and", "or") and _math_follows(s, w, end):
                joined = True
                k = w
                continue
            if (
                seen
                and _is_unit_word(word)
                and before > a
                and s[before - 1] in " \t"
                and (_is_digit(s[math_end - 1]) or s[math_end - 1] in ")]")
                and (w >= end or s[w] in "/^.," or s[w] in _SPACE)
            ):
                unit, cut = (k, _unit_end(s, w, end)), True
                break
            article = (
                w - k == 1
                and c == "a"
                and w + 1 < end
                and s[w] in " \t"
                and _is_letter(s[w + 1])
                and not _math_word(s[w + 1 : _letters_end(s, w + 1, end)])
            )
            if article or (not _math_word(word) and not _operand_word(s, a, k, w, end)):
                if not seen:
                    leading = True
                    break
                if _is_unit_word(word):
                    unit = (k, _unit_end(s, w, end))
                cut = True
                break
            k = w
        elif not c.isascii():
            if not seen and c in _CURRENCY:
                k += 1
                answer_start = k
                continue
            m = _math_non_ascii(s, k)
            if m == 0 and seen and _math_follows(s, k + _cjk_joiner(s, k), end):
                m = _cjk_joiner(s, k)
                joined = joined or m > 0
            if m == 0:
                if not seen:
                    leading = True
                    break
                cut = True
                break
            k += m
        elif c in ".,;:?":
            if c in ",;:" and seen and _math_follows(s, k + 1, end):
                k += 1
                continue
            if seen:
                cut = _trim(s, k + 1, end)[1] > k + 1 or c in ",;:"
                break
            k += 1
            continue
        else:
            k += 1
        seen = True
        math_end = k
    if leading:
        count, last = _math_objects(s, a, end)
        if count == 1:
            return _Phrase(_trim(s, *last), unit, False, True, True, joined)
        return _Phrase((a, end), unit, count == 0, cut, True, joined)
    if not seen:
        return _Phrase((a, end), unit, True, cut, False, joined)
    x, y = _trim(s, answer_start, math_end)
    while y > x and s[y - 1] in ",;:.*":
        x, y = _trim(s, x, y - 1)
    if y <= x:
        return _Phrase((a, end), unit, True, False, False, joined)
    return _Phrase((x, y), unit, True, cut, False, joined)


def _sentence_end(s: str, j: int) -> int:
    n = len(s)
    in_dollar = in_paren = False
    depth = 0
    k = j
    while k < n:
        c = s[k]
        if c in "\n\r":
            break
        if c == "\\":
            if k + 1 < n and s[k + 1] in "\n\r":
                break
            if k + 1 < n:
                if s[k + 1] == "(":
                    in_paren = True
                elif s[k + 1] == ")":
                    in_paren = False
            k += 2
            continue
        if c == "$":
            in_dollar = not in_dollar
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth > 0:
                depth -= 1
        elif c in ".!?" and not in_dollar and not in_paren and depth == 0 and (k + 1 >= n or s[k + 1] in _SPACE):
            break
        k += 1
    return min(k, n)


def _marked_value(s: str, j: int, limit: int | None = None) -> tuple[_Phrase, tuple[int, int]]:
    """What follows a marker at j, read no further than limit: a display block, or the answer
    phrase of the rest of the sentence; (phrase, answer range)."""
    n = len(s) if limit is None else min(len(s), limit)
    while j < n and s[j] in _SPACE:
        j += 1
    empty = _Phrase((j, j), (0, 0), True, False, False, False)
    if j == n:
        return empty, (j, j)
    if s.startswith("$$", j) or s.startswith("\\[", j):
        close = _display_close(s[:n], j + 2, s[j] == "$")
        if close >= 0:
            return empty, _strip_delimiters(s, j, close + 2)
    a, b = _trim(s, j, min(_sentence_end(s, j), n))
    p = read_answer_phrase(s, a, b)
    x, y = _strip_delimiters(s, *p.answer)
    if not p.leading_prose and not p.joined and y > x:
        x, y = _span_answer(s, x, y)
    return p, (x, y)


def _heading_before(s: str, start: int, i: int) -> bool:
    b = i
    while b > start and s[b - 1] != "\n":
        c = s[b - 1]
        if c in "#* \t":
            b -= 1
        elif b >= start + 5 and s[b - 5 : b].lower() == "final" and (b - 5 == start or not _is_letter(s[b - 6])):
            b -= 5
        else:
            return False
    return True


def _answer_is_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    last = marker = -1
    for m in _MARKER.finditer(s, start):
        after = _AFTER_MARKER.match(s, m.end())
        if after is not None:
            last, marker = after.end(), m.start()
            continue
        j = m.end() + 2 if s.startswith("**", m.end()) else m.end()
        while j < len(s) and s[j] in " \t":
            j += 1
        if j < len(s) and s[j] in "\n\r" and _heading_before(s, start, m.start()):
            last, marker = j, m.start()
    if last < 0:
        return None
    _, (a, b) = _marked_value(s, last)
    if b <= a:
        return None
    return RefExtraction(s[a:b], a, b, "answer_is"), marker


def _tagged_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    tag = None
    close = s.rfind("</answer>", start)
    if close >= 0:
        open_ = s.rfind("<answer>", start, close)
        if open_ >= 0:
            a, b = _trim(s, open_ + 8, close)
            if b > a:
                tag = RefExtraction(s[a:b], a, b, "tagged"), open_
    best = None
    for m in _GSM8K_LINE.finditer(s[start:]):
        a, b = _trim(s, start + m.start(1), start + m.end(1))
        while b > a and s[b - 1] == ".":
            b -= 1
        a, b = _trim(s, a, b)
        if b > a and not _GSM8K_VALUE.fullmatch(s, a, b):
            ph = read_answer_phrase(s, a, b)
            w = ph.answer[1]
            while w < b and s[w] in " \t":
                w += 1
            a, b = ph.answer if not ph.leading_prose and ph.answer[1] < w < b and _is_letter(s[w]) else (0, 0)
        if b > a and _GSM8K_VALUE.fullmatch(s, a, b):
            best = (a, b, start + m.start(1) - 4)
    if best is None or (tag is not None and tag[1] > best[2]):
        return tag
    return RefExtraction(s[best[0] : best[1]], best[0], best[1], "tagged"), best[2]


def _line_end(s: str, i: int) -> int:
    e = s.find("\n", i)
    return len(s) if e < 0 else e


def _a_line_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    end = len(s)
    while end > start:
        p = s.rfind("A:", start, end)
        if p < 0:
            return None
        b = p
        while b > start and s[b - 1] in " \t":
            b -= 1
        if (b == start or s[b - 1] == "\n") and p + 2 < len(s) and s[p + 2] in " \t":
            _, (a, e) = _marked_value(s, p + 2, _line_end(s, p + 2))
            if e <= a:
                return None
            return RefExtraction(s[a:e], a, e, "answer_is"), p
        end = p + 1
    return None


def _cjk_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    n = len(s)
    out = None
    p = s.rfind("答案", start)
    if p >= 0:
        j = p + 2
        if p >= start + 1 and s[p - 1] == "【" and s.startswith("】", j):
            j += 1
            eol = _line_end(s, j)
            eoa = s.find("<eoa>", j, eol)
            ph = read_answer_phrase(s, j, eoa if eoa >= 0 else eol)
            a, b = _strip_delimiters(s, *ph.answer)
            if b > a:
                out = RefExtraction(s[a:b], a, b, "tagged"), p - 1
        else:
            while j < n and s[j] in " \t":
                j += 1
            copula = False
            if s.startswith(("是", "为"), j):
                j += 1
                copula = True
            while j < n and s[j] in " \t":
                j += 1
            if s.startswith(("：", ":"), j):
                j += 1
                copula = True
            if copula:
                _, (a, b) = _marked_value(s, j, _line_end(s, j))
                if b > a:
                    out = RefExtraction(s[a:b], a, b, "answer_is"), p
    conclusion = max(s.rfind("所以", start), s.rfind("因此", start))
    if conclusion < 0 or (out is not None and out[1] > conclusion):
        return out
    eol = _line_end(s, conclusion)
    copula_at = max(s.rfind("是", conclusion, eol), s.rfind("为", conclusion, eol))
    if copula_at < 0:
        return out
    ph, (a, b) = _marked_value(s, copula_at + 1, eol)
    if b <= a:
        return out
    rest = s[max(b, ph.unit[1]) :]
    if rest.strip(_SPACE + ".$。") != "":
        return out
    return RefExtraction(s[a:b], a, b, "answer_is"), conclusion


def _marked(s: str, start: int, which: str) -> RefExtraction | None:
    """The answer of the marker nearest the end (answer_is, tagged, "A:", CJK markers)."""
    found = []
    if which in ("auto", "answer_is"):
        found.append(_answer_is_at(s, start))
    if which in ("auto", "tagged"):
        found.append(_tagged_at(s, start))
    if which in ("auto", "answer_is"):
        found.append(_a_line_at(s, start))
    cjk = _cjk_at(s, start)
    if cjk is not None and which in ("auto", cjk[0].method):
        found.append(cjk)
    best = None
    for f in found:
        if f is not None and (best is None or f[1] > best[1]):
            best = f
    return None if best is None else best[0]


def _answer_is(s: str, start: int) -> RefExtraction | None:
    return _marked(s, start, "answer_is")


def _tagged(s: str, start: int) -> RefExtraction | None:
    return _marked(s, start, "tagged")


# --------------------------------------------------------------------------------------------
# cascade

_STRATEGIES = {
    "boxed": _boxed,
    "answer_is": _answer_is,
    "tagged": _tagged,
    "code_output": _code_output,
    "choice": _choice,
    "bare": _bare,
    "final_span": _final_span,
    "last_number": _last_number,
}


def extract_answer(text: str, strategy: str = "auto") -> RefExtraction | None:
    """The reference cascade (see rapidgrade.extract for the rules)."""
    think = text.rfind("</think>")
    start = think + 8 if think >= 0 else 0
    if strategy != "auto":
        return _STRATEGIES[strategy](text, start)
    for name, find in _STRATEGIES.items():
        if name == "tagged":
            continue  # the marker rules run as one (_marked, under answer_is), nearest the end winning
        found = _marked(text, start, "auto") if name == "answer_is" else find(text, start)
        if found is not None:
            return found
    return None


# --------------------------------------------------------------------------------------------
# normalization (Hendrycks-style strip_string with rapidgrade's documented rules)

# Rule 0: Unicode math folded to LaTeX.
_FRACTIONS = {
    "\u00bd": "\\frac{1}{2}",
    "\u2153": "\\frac{1}{3}",
    "\u2154": "\\frac{2}{3}",
    "\u00bc": "\\frac{1}{4}",
    "\u00be": "\\frac{3}{4}",
    "\u2155": "\\frac{1}{5}",
    "\u2156": "\\frac{2}{5}",
    "\u2157": "\\frac{3}{5}",
    "\u2158": "\\frac{4}{5}",
    "\u2159": "\\frac{1}{6}",
    "\u215a": "\\frac{5}{6}",
    "\u2150": "\\frac{1}{7}",
    "\u215b": "\\frac{1}{8}",
    "\u215c": "\\frac{3}{8}",
    "\u215d": "\\frac{5}{8}",
    "\u215e": "\\frac{7}{8}",
    "\u2151": "\\frac{1}{9}",
    "\u2152": "\\frac{1}{10}",
}
# Each is written followed by one space, so that "×x" stays "\times x".
_SYMBOLS = {
    "\u00d7": "\\times",
    "\u00f7": "\\div",
    "\u00b7": "\\cdot",
    "\u22c5": "\\cdot",
    "\u00b1": "\\pm",
    "\u2213": "\\mp",
    "\u2264": "\\le",
    "\u2265": "\\ge",
    "\u2260": "\\ne",
    "\u2248": "\\approx",
    "\u221e": "\\infty",
    "\u03c0": "\\pi",
    "\u00b0": "^\\circ",
    "\u03b1": "\\alpha",
    "\u03b2": "\\beta",
    "\u03b3": "\\gamma",
    "\u03b4": "\\delta",
    "\u03b8": "\\theta",
    "\u03bb": "\\lambda",
    "\u03bc": "\\mu",
    "\u03c3": "\\sigma",
    "\u03c6": "\\phi",
    "\u03c9": "\\omega",
    "\u2208": "\\in",
    "\u222a": "\\cup",
    "\u2229": "\\cap",
}
_SUPERSCRIPTS = dict(zip("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207a\u207b", "0123456789+-"))
_SUBSCRIPTS = dict(zip("\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089\u208a\u208b", "0123456789+-"))
_FOLD_SPACES = "\u3000\u00a0\u2009\u202f\u2007"
_ROOT_GROUP_BYTES = 256  # how far ahead a "√(" looks for its ")", in UTF-8 bytes


def _simple_fold(c: str) -> str:
    if "\uff01" <= c <= "\uff5e":
        return chr(ord(c) - 0xFEE0)
    if c in _FOLD_SPACES:
        return " "
    if c in "\u2212\ufe63":
        return "-"
    return c


def _root_group_close(s: str, k: int) -> int:
    """Index of the ')' closing the '(' at k, looked for within the group byte budget; -1 if none."""
    depth = 0
    used = 0
    for close in range(k, len(s)):
        if used >= _ROOT_GROUP_BYTES:
            return -1
        c = s[close]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return close
        used += len(c.encode("utf-8", "surrogatepass"))
    return -1


def _fold_math(s: str) -> str:
    if s.isascii():
        return s
    out: list[str] = []
    closes: list[int] = []  # indices of the ')' that close "√(" groups, innermost last
    i, n = 0, len(s)
    while i < n:
        if closes and i == closes[-1]:
            out.append("}")
            closes.pop()
            i += 1
            continue
        c = _simple_fold(s[i])
        i += 1
        if c.isascii():
            out.append(c)
        elif c in _FRACTIONS:
            out.append(_FRACTIONS[c])
        elif c in _SYMBOLS:
            out.append(_SYMBOLS[c] + " ")
        elif c in "\u221a\u221b":
            out.append("\\sqrt" if c == "\u221a" else "\\sqrt[3]")
            k = i
            while k < n and s[k] == " ":
                k += 1
            if k < n and s[k] == "(":
                close = _root_group_close(s, k)
                if close >= 0:
                    out.append("{")
                    closes.append(close)
                    i = k + 1
            elif k < n and (s[k].isascii() and (s[k].isalnum() or s[k] == ".")):
                e = k
                while e < n and s[e].isascii() and (s[e].isalnum() or s[e] == "."):
                    e += 1
                out.append("{" + s[k:e] + "}")
                i = e
        elif c in _SUPERSCRIPTS or c in _SUBSCRIPTS:
            table = _SUPERSCRIPTS if c in _SUPERSCRIPTS else _SUBSCRIPTS
            j = i
            while j < n and s[j] in table:
                j += 1
            out.append(("^{" if table is _SUPERSCRIPTS else "_{") + "".join(table[x] for x in s[i - 1 : j]) + "}")
            i = j
        else:
            out.append(c)
    return "".join(out)


# Rule 1: commands, delimiters, degree and percent signs, {,}.
_UNWRAP = ("text", "textbf", "textit", "textrm", "textnormal", "mathrm", "mbox")
_UNITS = frozenset(
    [
        "units",
        "unit",
        "sq",
        "square",
        "cubic",
        "mm",
        "cm",
        "m",
        "km",
        "millimeters",
        "millimeter",
        "centimeters",
        "centimeter",
        "meters",
        "meter",
        "metres",
        "metre",
        "kilometers",
        "kilometer",
        "inches",
        "inch",
        "in",
        "feet",
        "foot",
        "ft",
        "yards",
        "yard",
        "yd",
        "miles",
        "mile",
        "mph",
        "dollars",
        "dollar",
        "cents",
        "cent",
        "degrees",
        "degree",
        "seconds",
        "second",
        "sec",
        "minutes",
        "minute",
        "min",
        "hours",
        "hour",
        "hrs",
        "hr",
        "days",
        "day",
        "weeks",
        "week",
        "months",
        "month",
        "years",
        "year",
        "grams",
        "gram",
        "kg",
        "pounds",
        "pound",
        "lbs",
        "lb",
        "ounces",
        "ounce",
        "oz",
        "liters",
        "liter",
        "litres",
        "litre",
        "ml",
        "mL",
        "percent",
    ]
)


def _rewrite_commands(s: str) -> tuple[str, bool]:
    out: list[str] = []
    drop: list[bool] = []
    percent = False
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            if i + 1 >= n:
                out.append(c)
                break
            d = s[i + 1]
            if _is_letter(d):
                j = i + 1
                while j < n and _is_letter(s[j]):
                    j += 1
                name = s[i + 1 : j]
                if name in ("left", "right"):
                    i = j + 1 if j < n and s[j] == "." else j
                elif name in ("displaystyle", "degree"):
                    i = j
                elif name in ("dfrac", "tfrac", "cfrac"):
                    out.append("\\frac")
                    i = j
                elif name in _UNWRAP:
                    k = j
                    while k < n and s[k] in _SPACE:
                        k += 1
                    if k < n and s[k] == "{":
                        drop.append(True)
                        i = k + 1
                    else:
                        out.append(s[i:j])
                        i = j
                else:
                    out.append(s[i:j])
                    i = j
                continue
            if d in "!,;:$":
                pass
            elif d == " ":
                out.append(" ")
            elif d == "%":
                percent = True
            else:
                out.append(c + d)
            i += 2
            continue
        if c == "{":
            if s.startswith("{,}", i) and i > 0 and "0" <= s[i - 1] <= "9" and i + 3 < n and "0" <= s[i + 3] <= "9":
                # "10{,}000" groups thousands (exactly three digits follow); "0{,}5" is a decimal comma.
                digits = re.match(r"[0-9]*", s[i + 3 :])
                out.append("," if digits is not None and len(digits.group(0)) == 3 else ".")
                i += 3
                continue
            drop.append(False)
            out.append(c)
        elif c == "}":
            if not (drop and drop.pop()):
                out.append(c)
        elif c == "$":
            pass
        elif c == "%":
            percent = True
        elif c == "~":
            out.append(" ")
        elif c == "^" and s.startswith("^\\circ", i) and (i + 6 >= n or not _is_letter(s[i + 6])):
            i += 6
            continue
        elif c == "^" and s.startswith("^{\\circ}", i):
            i += 8
            continue
        elif c == "\u00b0":
            pass
        elif c == "\u2212":
            out.append("-")
        else:
            out.append(c)
        i += 1
    return "".join(out), percent


_WS_RUN = re.compile(r"[ \t\n\r\f\v]+")
_UNIT_TAIL = re.compile(r"(?<![A-Za-z\\])([A-Za-z]+)(?:\^\{[23]\}|\^[23])? *\Z")


def _strip_units(s: str) -> tuple[str, bool]:
    cut = None
    e = len(s)
    saw_percent = False
    while True:
        m = _UNIT_TAIL.search(s[:e])
        if m is None or m.group(1) not in _UNITS:
            break
        saw_percent = saw_percent or m.group(1) == "percent"
        cut = e = m.start(1)
    if cut is None:
        return s, False
    rest = s[:cut].rstrip(" ")
    if not rest or not (("0" <= rest[-1] <= "9") or rest[-1] == "}"):
        return s, False
    return rest, saw_percent


def _remove_spaces(s: str) -> str:
    # Escapes ("\\ ", "\\,") are kept whole by matching them first.
    def repl(m: re.Match[str]) -> str:
        if m.group(0).startswith("\\") and not m.group(1):
            return m.group(0)
        return m.group(1) + " " if m.group(1) else ""

    return re.sub(r"\\[^A-Za-z]|(\\[A-Za-z]+) +(?=[A-Za-z])| +", repl, s, flags=re.S)


def _bare_token_end(s: str, k: int) -> int:
    n = len(s)
    if k >= n or s[k] in "{} ":
        return k
    if s[k] == "\\":
        if k + 1 < n and _is_letter(s[k + 1]):
            j = k + 1
            while j < n and _is_letter(s[j]):
                j += 1
            return j
        return k
    return k + 1


def _brace_arguments(s: str) -> str:
    out: list[str] = []
    frac_first: list[bool] = []
    i, n = 0, len(s)

    def skip(k: int) -> int:
        while k < n and s[k] == " ":
            k += 1
        return k

    def wrap(k: int) -> int:
        e = _bare_token_end(s, k)
        if e != k:
            out.append("{" + s[k:e] + "}")
        return e

    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n:
            if not _is_letter(s[i + 1]):
                out.append(s[i : i + 2])
                i += 2
                continue
            j = i + 1
            while j < n and _is_letter(s[j]):
                j += 1
            name = s[i + 1 : j]
            out.append(s[i:j])
            i = j
            if name == "frac":
                k = skip(j)
                if k < n and s[k] == "{":
                    frac_first.append(True)
                    out.append("{")
                    i = k + 1
                    continue
                e1 = wrap(k)
                if e1 == k:
                    continue
                k = skip(e1)
                if k < n and s[k] == "{":
                    i = k
                    continue
                i = wrap(k)
                if i == k:
                    i = e1
            elif name == "sqrt":
                k = skip(j)
                if k < n and s[k] == "[":
                    close = s.find("]", k)
                    if close < 0:
                        continue
                    out.append(s[k : close + 1])
                    k = skip(close + 1)
                    i = k
                if k < n and s[k] == "{":
                    i = k
                    continue
                e = wrap(k)
                if e != k:
                    i = e
            continue
        if c == "{":
            frac_first.append(False)
            out.append(c)
            i += 1
            continue
        if c == "}":
            first = frac_first.pop() if frac_first else False
            out.append(c)
            i += 1
            if first:
                k = skip(i)
                if k < n and s[k] != "{":
                    e = wrap(k)
                    if e != k:
                        i = e
            continue
        out.append(c)
        i += 1
    return "".join(out)


_SYMBOL = re.compile(r"(?:[A-Za-z]|\\[A-Za-z]+)(?:_(?:[A-Za-z0-9]|\{[A-Za-z0-9]+\}))?")
_LEADING_DOT = re.compile(r"(?:(?<=[{(\[,=+\-*/^;:|<> ])|^)\.(?=[0-9])")
_THOUSANDS = re.compile(r"-?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_SLASH = re.compile(r"(-?)([0-9]+)/([0-9]+)")


def _one_round(s: str, units: bool, equations: bool) -> tuple[str, bool]:
    s, percent = _rewrite_commands(_fold_math(s))
    s = _WS_RUN.sub(" ", s).strip(" ")
    s = s.rstrip("." + _SPACE)
    if units:
        s, unit_percent = _strip_units(s)
        percent = percent or unit_percent
    s = _brace_arguments(_remove_spaces(s))
    if equations and s.count("=") == 1:
        lhs, rhs = s.split("=")
        if rhs and _SYMBOL.fullmatch(lhs):
            s = rhs
    s = _LEADING_DOT.sub("0.", s)
    if _THOUSANDS.fullmatch(s):
        s = s.replace(",", "")
    m = _SLASH.fullmatch(s)
    if m:
        s = m.group(1) + "\\frac{" + m.group(2) + "}{" + m.group(3) + "}"
    return s, percent


def normalize_answer(s: str, units: bool = True, equations: bool = True) -> tuple[str, bool]:
    """(normalized text, percent flag), the rules of rapidgrade.normalize repeated to a fixed point."""
    current, percent = _one_round(s, units, equations)
    if current == s:
        return current, percent
    for _ in range(3):
        nxt, p = _one_round(current, units, equations)
        percent = percent or p
        if nxt == current:
            break
        current = nxt
    return current, percent


def strip_string(s: str) -> str:
    """Hendrycks-style name for the normalized text."""
    return normalize_answer(s)[0]
