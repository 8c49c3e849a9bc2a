r"""Plain-Python reference of rapidgrade's answer extraction and normalization.

It implements the same documented cascade (boxed -> answer_is -> tagged -> code_output ->
last_number, after the last ``</think>``) and the same normalization rules as the C++ core, the
way a pure-Python grader would: ``re``, ``str`` methods and character loops, in the manner of
the Hendrycks MATH ``strip_string``. It is

* the baseline that ``benchmarks/bench_extract.py`` times rapidgrade against, and
* the oracle of ``tests/parity/test_extract_parity.py``.

It is not part of the package. Offsets are Python string indices (code points).
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["RefExtraction", "extract_answer", "normalize_answer", "strip_string"]

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


def _answer_is(s: str, start: int) -> RefExtraction | None:
    last = -1
    region = s[start:]
    for m in _MARKER.finditer(region):
        after = _AFTER_MARKER.match(region, m.end())
        if after is not None:
            last = start + after.end()
    if last < 0:
        return None
    a, b = _answer_value(s, last)
    if b <= a:
        return None
    return RefExtraction(s[a:b], a, b, "answer_is")


# --------------------------------------------------------------------------------------------
# tagged

_GSM8K_LINE = re.compile(r"^[ \t]*####(.*)$", re.M)
_GSM8K_VALUE = re.compile(r"[0-9,.\-+/ $\u2212]*[0-9][0-9,.\-+/ $\u2212]*")


def _tagged(s: str, start: int) -> RefExtraction | None:
    close = s.rfind("</answer>", start)
    if close >= 0:
        open_ = s.rfind("<answer>", start, close)
        if open_ >= 0:
            a, b = _trim(s, open_ + 8, close)
            if b > a:
                return RefExtraction(s[a:b], a, b, "tagged")
    best = None
    for m in _GSM8K_LINE.finditer(s[start:]):
        a, b = _trim(s, start + m.start(1), start + m.end(1))
        while b > a and s[b - 1] == ".":
            b -= 1
        a, b = _trim(s, a, b)
        if b > a and _GSM8K_VALUE.fullmatch(s, a, b):
            best = (a, b)
    if best is None:
        return None
    return RefExtraction(s[best[0] : best[1]], best[0], best[1], "tagged")


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
# last_number

_EXP = r"(?:[eE][+-]?\d+)?"
# Commands and escapes are matched as whole tokens (group "skip") so that scanning stays aligned
# with the C++ tokenizer: the "1" of "\\1" is escaped, the "frac" of "\\\\frac" is not a command.
_NUMBER = re.compile(
    r"(?P<num>"
    r"(?:(?<![^ \t\n\r\f\v(\[{=,:;$])[-\u2212])?"  # sign after start/space/([{=,:;$
    r"(?:\\[dt]?frac\{-?\d+\}\{\d+\}"  # \frac{3}{4}
    r"|\d{1,3}(?:,\d{3}(?!\d))+(?:\.\d+)?" + _EXP +  # 1,234,567.5
    r"|\d+\.\d+" + _EXP +  # 3.25, 1.5e-3
    r"|\d+[eE][+-]?\d+"  # 2e5
    r"|\d+/\d+"  # 3/4
    r"|\d+"
    r"|(?<!\d)\.\d+" + _EXP + r"))"  # .5
    r"|(?P<skip>\\(?:[A-Za-z]+|.))",
    re.A | re.S,
)


def _last_number(s: str, start: int) -> RefExtraction | None:
    region = s[start:]
    last = None
    for m in _NUMBER.finditer(region):
        if m.group("num") is not None:
            last = m
    if last is None:
        return None
    a, b = start + last.start(), start + last.end()
    return RefExtraction(s[a:b], a, b, "last_number")


# --------------------------------------------------------------------------------------------
# cascade

_STRATEGIES = {
    "boxed": _boxed,
    "answer_is": _answer_is,
    "tagged": _tagged,
    "code_output": _code_output,
    "last_number": _last_number,
}


def extract_answer(text: str, strategy: str = "auto") -> RefExtraction | None:
    """The reference cascade (see rapidgrade.extract for the rules)."""
    think = text.rfind("</think>")
    start = think + 8 if think >= 0 else 0
    if strategy != "auto":
        return _STRATEGIES[strategy](text, start)
    for find in _STRATEGIES.values():
        found = find(text, start)
        if found is not None:
            return found
    return None


# --------------------------------------------------------------------------------------------
# normalization (Hendrycks-style strip_string with rapidgrade's documented rules)

# Rule 0: Unicode math folded to LaTeX.
_FRACTIONS = {
    "\u00bd": "\\frac{1}{2}", "\u2153": "\\frac{1}{3}", "\u2154": "\\frac{2}{3}", "\u00bc": "\\frac{1}{4}",
    "\u00be": "\\frac{3}{4}", "\u2155": "\\frac{1}{5}", "\u2156": "\\frac{2}{5}", "\u2157": "\\frac{3}{5}",
    "\u2158": "\\frac{4}{5}", "\u2159": "\\frac{1}{6}", "\u215a": "\\frac{5}{6}", "\u2150": "\\frac{1}{7}",
    "\u215b": "\\frac{1}{8}", "\u215c": "\\frac{3}{8}", "\u215d": "\\frac{5}{8}", "\u215e": "\\frac{7}{8}",
    "\u2151": "\\frac{1}{9}", "\u2152": "\\frac{1}{10}",
}
# Each is written followed by one space, so that "×x" stays "\times x".
_SYMBOLS = {
    "\u00d7": "\\times", "\u00f7": "\\div", "\u00b7": "\\cdot", "\u22c5": "\\cdot", "\u00b1": "\\pm",
    "\u2213": "\\mp", "\u2264": "\\le", "\u2265": "\\ge", "\u2260": "\\ne", "\u2248": "\\approx",
    "\u221e": "\\infty", "\u03c0": "\\pi", "\u00b0": "^\\circ", "\u03b1": "\\alpha", "\u03b2": "\\beta",
    "\u03b3": "\\gamma", "\u03b4": "\\delta", "\u03b8": "\\theta", "\u03bb": "\\lambda", "\u03bc": "\\mu",
    "\u03c3": "\\sigma", "\u03c6": "\\phi", "\u03c9": "\\omega", "\u2208": "\\in", "\u222a": "\\cup",
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
        "units", "unit", "sq", "square", "cubic", "mm", "cm", "m", "km", "millimeters", "millimeter",
        "centimeters", "centimeter", "meters", "meter", "metres", "metre", "kilometers", "kilometer", "inches",
        "inch", "in", "feet", "foot", "ft", "yards", "yard", "yd", "miles", "mile", "mph", "dollars", "dollar",
        "cents", "cent", "degrees", "degree", "seconds", "second", "sec", "minutes", "minute", "min", "hours",
        "hour", "hrs", "hr", "days", "day", "weeks", "week", "months", "month", "years", "year", "grams", "gram",
        "kg", "pounds", "pound", "lbs", "lb", "ounces", "ounce", "oz", "liters", "liter", "litres", "litre", "ml",
        "mL", "percent",
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
