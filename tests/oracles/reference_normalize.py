"""The normalization of the extraction reference (``tests/oracles/reference_extract.py``): a
Hendrycks-style ``strip_string`` with rapidgrade's documented rules (Unicode math folded to LaTeX;
commands, delimiters, degree and percent signs rewritten; units and spaces removed; bare arguments of
``\\frac`` and ``\\sqrt`` braced; ``x = `` dropped, thousands and slashes rewritten), repeated to a
fixed point by ``normalize_answer``.

Built on ``reference_common`` only; it does not depend on extraction.
"""

from __future__ import annotations

import re

from tests.oracles import reference_parts as parts
from tests.oracles.reference_common import _SPACE, _is_letter, _read_units_table

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
    "\u2205": "\\emptyset",
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


def _keep_apart(out: list[str], s: str, nxt: int) -> None:
    """A removed "$" or "%" does not join a command's name to the letters after it."""
    if nxt < len(s) and _is_letter(s[nxt]) and re.search(r"\\[A-Za-z]+\Z", "".join(out)):
        out.append(" ")


def _rewrite_commands(s: str) -> tuple[str, bool, bool]:
    out: list[str] = []
    drop: list[bool] = []
    percent = False
    degrees = False
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
                elif name == "displaystyle":
                    i = j
                elif name == "degree":
                    degrees = True
                    i = j
                elif name in ("dfrac", "tfrac", "cfrac"):
                    out.append("\\frac")
                    i = j
                elif name in _UNWRAP:
                    k = j
                    while k < n and s[k] in _SPACE:
                        k += 1
                    if k < n and s[k] == "{":
                        # right after a number, its content is a word apart ("6\\,\\text{m}" is "6 m")
                        if out and out[-1] and "0" <= out[-1][-1] <= "9":
                            out.append(" ")
                        drop.append(True)
                        i = k + 1
                    else:
                        out.append(s[i:j])
                        i = j
                else:
                    out.append(s[i:j])
                    i = j
                continue
            if d in "!,;:":
                # a thin space and the spaces after it are one spacing ("32,\\! 349" is 32349)
                i += 2
                while i < n and s[i] == " ":
                    i += 1
                continue
            if d == "$":
                _keep_apart(out, s, i + 2)
            elif d == " ":
                out.append(" ")
            elif d == "%":
                percent = True
                _keep_apart(out, s, i + 2)
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
            _keep_apart(out, s, i + 1)
        elif c == "%":
            percent = True
            _keep_apart(out, s, i + 1)
        elif c == "~":
            out.append(" ")
        elif c == "^" and s.startswith("^\\circ", i) and (i + 6 >= n or not _is_letter(s[i + 6])):
            degrees = True
            i += 6
            continue
        elif c == "^" and s.startswith("^{\\circ}", i):
            degrees = True
            i += 8
            continue
        elif c == "\u00b0":
            degrees = True
        elif c == "\u2212":
            out.append("-")
        else:
            out.append(c)
        i += 1
    return "".join(out), percent, degrees


_WS_RUN = re.compile(r"[ \t\n\r\f\v]+")
_UNIT_TAIL = re.compile(r"(?<![A-Za-z\\])([A-Za-z]+)(?:\^\{-?[0-9]+\}|\^-?[0-9]+)? *\Z")
_UNIT_JOINER = re.compile(r"(?:/|\*|\\cdot) *\Z")
_TABLE_UNITS, _TABLE_PREFIXABLE, _TABLE_PREFIXES, _TABLE_WHOLE_ONLY = _read_units_table()
_UNIT_GROUP = re.compile(r"\{([A-Za-z ]*)\} *\Z")
_TWO_ARGUMENTS = ("frac", "dfrac", "tfrac", "cfrac", "binom", "dbinom", "tbinom")


def _is_unit_word(word: str) -> bool:
    """A unit word, or two of two letters or more run together ("squareinches", "sqft")."""
    if word in _UNITS:
        return True
    return any(word[:k] in _UNITS and word[k:] in _UNITS for k in range(2, len(word) - 1))


def _is_trailing_unit(word: str) -> bool:
    """A unit word of rule 4: _is_unit_word's, or a row of the units table (or an SI prefix and a
    prefixable row) that is not read only alone ("in", "mi")."""
    if _is_unit_word(word):
        return True
    if word in _TABLE_UNITS:
        return word not in _TABLE_WHOLE_ONLY
    return any(word[:p] in _TABLE_PREFIXES and word[p:] in _TABLE_PREFIXABLE for p in (1, 2) if p < len(word))


def _group_is_bare(before: str) -> bool:
    """Whether a group written after `before` is no command's argument."""
    before = before.rstrip(" ")
    if not before:
        return False
    command = re.search(r"\\([A-Za-z]+)\Z", before)
    if not before.endswith("}"):
        return command is None or command.group(1) == "pi"
    groups = 0
    while before.endswith("}") and groups < 2:
        depth = 0
        for k in range(len(before) - 1, -1, -1):
            depth += {"}": 1, "{": -1}.get(before[k], 0)
            if depth == 0:
                break
        else:
            return False
        before = before[:k]
        groups += 1
    command = re.search(r"\\([A-Za-z]+)\Z", before)
    if before[-1:] in ("^", "_", "]"):
        takes = 1
    elif command is not None:
        takes = 2 if command.group(1) in _TWO_ARGUMENTS else 1
    else:
        takes = 0
    return groups >= takes


def _units_only(c: str) -> list[str]:
    """The unit words of c when it holds units only (apart or joined; a one-letter word only in a
    group joined by "/"); [] otherwise."""
    words: list[str] = []
    joined = False
    e = len(c)
    while c[:e].rstrip(" "):
        m = _UNIT_TAIL.search(c[:e])
        if m is None or not _is_trailing_unit(m.group(1)):
            return []
        words.append(m.group(1))
        e = m.start(1)
        joiner = _UNIT_JOINER.search(c[:e])
        if joiner is not None:
            joined = joined or c[joiner.start()] == "/"
            e = joiner.start()
    if any(len(w) == 1 for w in words) and not joined:
        return []
    return words


_PAREN_TAIL = re.compile(r"\(([^()]*)\) *\Z")


def _strip_units(s: str) -> tuple[str, bool, bool]:
    cut = None
    e = len(s)
    saw_percent = saw_degrees = False
    group_read = False
    one_letter: list[str] = []
    while True:
        paren = _PAREN_TAIL.search(s[:e]) if cut is None else None
        words = _units_only(paren.group(1)) if paren else []
        if paren is not None and words:  # "130.4(min)", "12(m/s)"
            saw_percent = saw_percent or "percent" in words
            saw_degrees = saw_degrees or "degrees" in words or "degree" in words
            cut = e = paren.start()
            continue
        group = None if group_read else _UNIT_GROUP.search(s[:e])
        words = group.group(1).split() if group else []
        if (
            group is not None
            and words
            and all(len(w) >= 2 and _is_unit_word(w) for w in words)
            and _group_is_bare(s[: group.start()])
        ):
            saw_percent = saw_percent or "percent" in words
            saw_degrees = saw_degrees or "degrees" in words or "degree" in words
            group_read = True
            cut = e = group.start()
            continue
        m = _UNIT_TAIL.search(s[:e])
        if m is None or not _is_trailing_unit(m.group(1)):
            break
        if len(m.group(1)) == 1 and m.start(1) > 0 and s[m.start(1) - 1].isdigit():
            break
        if len(m.group(1)) == 1:
            one_letter.append(m.group(1))
        saw_percent = saw_percent or m.group(1) == "percent"
        saw_degrees = saw_degrees or m.group(1) in ("degrees", "degree")
        cut = e = m.start(1)
        joiner = _UNIT_JOINER.search(s[:e])  # "m / s", "J \\cdot s"
        if joiner is not None:
            e = joiner.start()
    if cut is None:
        return s, False, False
    rest = s[:cut].rstrip(" ")
    if not rest or not (("0" <= rest[-1] <= "9") or rest[-1] == "}" or rest.endswith("\\pi")):
        return s, False, False
    # a one-letter unit whose letter stands as a symbol before the units: "8 m - 2 m = 6 m" is in m
    if any(re.search(rf"(?<![A-Za-z\\]){c}(?![A-Za-z])", s[:cut]) for c in one_letter[:8]):
        return s, False, False
    return rest, saw_percent, saw_degrees


_JOINER_GAP = re.compile(r" +(and|or) +(?=[0-9+\-\\(\[{|]|[A-Za-z](?![A-Za-z]))")
_MATH_BEFORE_JOINER = re.compile(r"(?:\\[A-Za-z]+|(?<![A-Za-z])[A-Za-z]|[0-9})\]|!'])\Z")


def _joiner_gap(s: str, i: int) -> re.Match[str] | None:
    """The joiner word "and" or "or" with the space runs around it, from the space run at i, when
    it stands between math: after a digit, a closing bracket, "!", a prime, a control word or a
    lone letter; before a digit, a sign, an opening bracket, a control word or a lone letter."""
    m = _JOINER_GAP.match(s, i)
    return m if m is not None and i > 0 and _MATH_BEFORE_JOINER.search(s[:i]) else None


def _remove_spaces(s: str) -> str:
    # Escapes ("\\ ", "\\,") are kept whole by matching them first.
    def repl(m: re.Match[str]) -> str:
        if m.group(0).startswith("\\") and not m.group(1):
            return m.group(0)
        return m.group(1) + " " if m.group(1) else ""

    # A bare list of numbers keeps the space after a comma before exactly three digits: "45, 135"
    # is two numbers, not 45135 (a thousands separator is never followed by a space).
    # signs first or after a comma ("0, -1, 100"), "and" or "or" before the last ("1, 100 and 0",
    # "1, 100 and -1")
    numbers = re.fullmatch(r"-?(?:[0-9 .]|,(?: *-)?|(?<![A-Za-z])(?:and|or)(?![A-Za-z])(?: *-)?)*", s)

    def plain(part: str) -> str:
        if numbers:
            return re.sub(r"(?<=[0-9],)( +)(?=[0-9]{3}(?![0-9]))| +", lambda m: " " if m.group(1) else "", part)
        return re.sub(r"\\[^A-Za-z]|(\\[A-Za-z]+) +(?=[A-Za-z])| +", repl, part, flags=re.S)

    # a joiner word between math keeps its spaces ("x = 1 or x = 2"): the parts between are read
    # apart; a space run that an escape ("\\ ") opens is the escape's
    out: list[str] = []
    done = k = 0
    while k < len(s):
        if s[k] == "\\":
            k += 2
            continue
        gap = _joiner_gap(s, k) if s[k] == " " else None
        if gap is None:
            k += 1
            continue
        out += [plain(s[done:k]), f" {gap.group(1)} "]
        done = k = gap.end()
    return "".join(out) + plain(s[done:])


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
_THOUSANDS = re.compile(r"-?[1-9][0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?")  # no grouped number starts with 0
_SLASH = re.compile(r"(-?)([0-9]+)/([0-9]+)")


def _part_is_answer(p: str) -> bool:
    if not p or p[0] in "+*/^_=<>)]},;:" or p[-1] in "+-*/^_=<>([{\\,;:" or parts.labels(p, 0, len(p)):
        return False
    depth = 0
    k = 0
    while k < len(p):
        c = p[k]
        if c == "\\":
            k += 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return False
            depth -= 1
        elif c in ",;" and depth == 0:
            return False
        k += 1
    return depth == 0


def _enumerated_parts(s: str, units: bool) -> tuple[str, bool, bool]:
    """Rule 13: an answer of enumerated parts is the list of its parts, each without its units."""
    labels = parts.labels(s, 0, len(s))
    if len(labels) < 2:
        return s, False, False
    out = []
    percent = degrees = False
    for i, (_, end) in enumerate(labels):
        b, e = parts.trimmed(s, end, labels[i + 1][0] if i + 1 < len(labels) else len(s))
        part = s[b:e]
        if units:
            part, p, d = _strip_units(part)
            percent, degrees = percent or p, degrees or d
        if not _part_is_answer(part):
            return s, False, False
        out.append(part)
    return ", ".join(out), percent, degrees


def _one_round(s: str, units: bool, equations: bool) -> tuple[str, bool, bool]:
    s, percent, degrees = _rewrite_commands(_fold_math(s))
    s = _WS_RUN.sub(" ", s).strip(" ")
    stripped = s.rstrip("." + _SPACE)
    # an ellipsis of three dots or more after a list's comma is a term of the list, kept as "..."
    tail = stripped != s and max(len(run) for run in re.split(r"[^.]", s[len(stripped) :])) >= 3
    s = stripped + "..." if tail and stripped.endswith(",") else stripped
    if units:
        s, unit_percent, unit_degrees = _strip_units(s)
        percent = percent or unit_percent
        degrees = degrees or unit_degrees
    s, parts_percent, parts_degrees = _enumerated_parts(s, units)
    percent = percent or parts_percent
    degrees = degrees or parts_degrees
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
    return s, percent, degrees


_NUMBER_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_NUMBER_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_DIGIT = "one|two|three|four|five|six|seven|eight|nine"
_BELOW_100 = rf"(?:{'|'.join(_NUMBER_TENS)})(?:(?:-[ \t\n]*|[ \t\n]+)(?:{_DIGIT}))?|{'|'.join(_NUMBER_UNITS)}"
_NUMBER_WORDS = re.compile(
    rf"(?i)[ \t\n]*(?:(?P<neg>negative|minus)[ \t\n]+)?"
    rf"(?:(?P<h>a|{_DIGIT})[ \t\n]+hundred(?:(?:[ \t\n]+and)?[ \t\n]+(?P<r1>{_BELOW_100}))?"
    rf"|(?P<r2>{_BELOW_100}))[ \t\n]*\.?[ \t\n]*"
)


def _words_value(text: str) -> int:
    """The value of "twenty-one", "twelve" (a match of the rest of _NUMBER_WORDS)."""
    parts = re.split(r"[-\s]+", text.lower())
    value = _NUMBER_TENS.index(parts[0]) * 10 + 20 if parts[0] in _NUMBER_TENS else _NUMBER_UNITS.index(parts[0])
    return value + (_NUMBER_UNITS.index(parts[1]) if len(parts) > 1 and parts[1] else 0)


def _number_words(s: str) -> int | None:
    """detail/number_words.hpp's read_number_words: the number -999 to 999 the whole of s writes
    in English words ("negative five"), or None."""
    m = _NUMBER_WORDS.fullmatch(s)
    if m is None:
        return None
    sign = -1 if m.group("neg") else 1
    if m.group("h") is not None:
        hundreds = 1 if m.group("h").lower() in ("a", "one") else _NUMBER_UNITS.index(m.group("h").lower())
        rest = m.group("r1")
        if rest is not None and _words_value(rest) == 0:
            return None  # "one hundred zero"
        return sign * (100 * hundreds + (_words_value(rest) if rest else 0))
    return sign * _words_value(m.group("r2"))


def normalize_answer(s: str, units: bool = True, equations: bool = True) -> tuple[str, bool, bool]:
    """(normalized text, percent flag, degrees flag), the rules of rapidgrade.normalize repeated to a
    fixed point."""
    stripped = s.strip(" \t\n\r\f\v")
    if stripped and stripped[0].isascii() and stripped[0].isalpha():
        words = _number_words(s)
        if words is not None:
            return str(words), False, False
    current, percent, degrees = _one_round(s, units, equations)
    if current == s:
        return _words_read(current), percent, degrees
    for _ in range(3):
        nxt, p, d = _one_round(current, units, equations)
        percent = percent or p
        degrees = degrees or d
        if nxt == current:
            break
        current = nxt
    return _words_read(current), percent, degrees


def _words_read(s: str) -> str:
    """A result that is number words is that number ("\\text{Three}" leaves "Three": 3)."""
    if s and s[0].isascii() and s[0].isalpha():
        words = _number_words(s)
        if words is not None:
            return str(words)
    return s


def strip_string(s: str) -> str:
    """Hendrycks-style name for the normalized text."""
    return normalize_answer(s)[0]
