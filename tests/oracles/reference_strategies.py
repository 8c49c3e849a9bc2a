r"""The box and the unmarked strategies of the extraction reference
(``tests/oracles/reference_extract.py``), each ``(text, start) -> RefExtraction | None``:

* ``boxed``: the last ``\boxed``/``\fbox`` (the boxes of the last sentence joined, "boxed_multi");
* ``code_output``: the last output block after a code block;
* ``choice``: a lone or announced choice letter A-J at the end;
* ``bare``: a short answer that is the whole text (with the function-word table ``FUNCTION_WORDS``
  and ``looks_like_text``);
* ``final_span``: what the last math span states ($..$, \[..\], math environments);
* ``last_number``: in ``reference_last_number``.

Built on ``reference_common``; the answer phrase (``reference_phrase``) and the markers
(``reference_markers``) use its math-span, relation and signed-number helpers.
"""

from __future__ import annotations

import re

from tests.oracles.reference_common import (
    _SPACE,
    RefExtraction,
    _ascii_istarts,
    _ends_with_list_ellipsis,
    _fullwidth_ascii,
    _is_digit,
    _is_letter,
    _letters_end,
    _markup_tag_end,
    _trim,
    _u8,
    _unwrap_math,
)
from tests.oracles.reference_domain import _quantifier_domain

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
# choice

#: detail/markers.hpp's kChoiceWords: ASCII words (any case) and the CJK verb 选.
_CHOICE_WORDS = ("answer", "option", "choice", "选")


def _decoration(c: str, chars: str) -> bool:
    """`c` is one of `chars`, as ASCII or in its full-width form."""
    return c in chars or (_fullwidth_ascii(c) != "" and _fullwidth_ascii(c) in chars)


def _choice(s: str, start: int) -> RefExtraction | None:
    e = len(s)
    while e > start and (s[e - 1] in _SPACE or _decoration(s[e - 1], ".)]*") or s[e - 1] == "。"):
        e -= 1
    if e == start or not ("A" <= s[e - 1] <= "J"):
        return None
    letter = e - 1
    if letter > start and (_is_letter(s[letter - 1]) or _is_digit(s[letter - 1]) or s[letter - 1] == "\\"):
        return None
    b = letter
    parenthesized = letter > start and s[letter - 1] == "(" and s[letter + 1 : letter + 2] == ")"
    while b > start and (s[b - 1] in " \t" or _decoration(s[b - 1], "([:*")):
        b -= 1
    after_is = False
    if b - 2 >= start and _ascii_istarts(s, b - 2, "is") and (b - 2 == start or not _is_letter(s[b - 3])):
        after_is = True
        b -= 2
        while b > start and (s[b - 1] in " \t" or _decoration(s[b - 1], "([:*")):
            b -= 1
    lone = b == start or s[b - 1] == "\n" or (parenthesized and after_is)
    announced = False
    for w in _CHOICE_WORDS:
        w_start = b - len(w)
        if w_start >= start and (s[w_start:b] == w if not w.isascii() else _ascii_istarts(s, w_start, w)):
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
        "ff",
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


#: latex_vocab.hpp's kAngleCommands: the capital letters after one name an angle's points.
_ANGLE_COMMANDS = ("angle", "measuredangle")


# detail/latex_vocab.hpp kTextWrappers: commands whose group holds words or a font's letters
_TEXT_WRAPPERS = frozenset(
    ("text", "textrm", "textnormal", "textbf", "textit", "mbox", "mathrm", "mathbf", "mathit", "mathsf", "boldsymbol")
)
_MAX_MATH_GROUPS = 32


def looks_like_text(s: str) -> bool:
    """True when s holds a word (three letters or more) that is not a function name nor "and",
    or a CJK ideograph (U+4000..U+9FFF); the names after \\begin, \\end and \\operatorname do
    not count, nor the points after an angle command, nor a run of letters in a brace group
    that is an argument of math (after a command that wraps no text, '^' or '_', after such a
    group or inside one: "\\frac{a^3}{4abc}"), for _MAX_MATH_GROUPS levels."""
    groups: list[bool] = []  # whether each open group is math
    nxt = "inherit"  # what a '{' here opens: "math", "words" or "inherit"

    def in_math() -> bool:
        return 0 < len(groups) <= _MAX_MATH_GROUPS and groups[-1]

    i, n = 0, len(s)
    while i < n:
        if s[i] == "\\":
            j = _letters_end(s, i + 1, n)
            name = s[i + 1 : j]
            nxt = "inherit" if not name else "words" if name in _TEXT_WRAPPERS or name == "operatorname" else "math"
            i = j if j > i + 1 else i + 2
            if name in ("begin", "end", "operatorname") and i < n and s[i] == "{":
                close = s.find("}", i)
                i = n if close < 0 else close + 1
                nxt = "inherit"
            if name in _ANGLE_COMMANDS:  # an angle's points ("\\angle ACB") are no word
                while i < n and (s[i] in _SPACE or "A" <= s[i] <= "Z"):
                    i += 1
            continue
        if "\u4000" <= s[i] <= "\u9fff":
            return True
        if _is_letter(s[i]):
            j = _letters_end(s, i, n)
            word = s[i:j]
            before_paren = s.startswith("(", j) or s.startswith("}(", j)
            is_function = word in FUNCTION_WORDS and (before_paren or word not in _CALL_ONLY)
            if len(word) >= 3 and not in_math() and not is_function and word != "and":
                return True
            nxt = "inherit"
            i = j
            continue
        c = s[i]
        if c == "{":
            groups.append(nxt == "math" or (nxt == "inherit" and in_math()))
            nxt = "inherit"
        elif c == "}":
            nxt = "math" if in_math() else "inherit"
            if groups:
                groups.pop()
        elif c in "^_":
            nxt = "math"
        elif c == "[" and nxt == "math":
            close = s.find("]", i + 1)
            i = n - 1 if close < 0 else close  # an optional argument ("\\sqrt[3]{abc}")
        elif c not in _SPACE:
            nxt = "inherit"
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


_SPAN_TAILS = ("\\nonumber", "\\notag", "\\qquad", "\\quad", "\\\\", ".", ",", ";", "&")


#: extract_math.cpp's kAlignmentEnvironments: a display span may hold one whole.
_ALIGNMENT_ENVIRONMENTS = ("aligned", "gathered", "split", "alignedat")


def _strip_span_tails(s: str, a: int, b: int) -> tuple[int, int]:
    changed = True
    while changed and b > a:
        changed = False
        a, b = _trim(s, a, b)
        if _ends_with_list_ellipsis(s, a, b):
            break
        for tail in _SPAN_TAILS:
            if b - a >= len(tail) and s.endswith(tail, a, b):
                b -= len(tail)
                changed = True
                break
    return a, b


def _unwrap_alignment(s: str, a: int, b: int) -> tuple[int, int]:
    """s[a:b] without an alignment environment that encloses all of it."""
    if not s.startswith("\\begin{", a, b):
        return a, b
    close = s.find("}", a + 7, b)
    if close < 0:
        return a, b
    name = s[a + 7 : close]
    if name not in _ALIGNMENT_ENVIRONMENTS:
        return a, b
    end = -1  # the \end that closes it: environments inside it nest
    nested = 0
    k = s.find("\\", close + 1, b)
    while 0 <= k < b:
        if s.startswith("\\begin{", k, b):
            nested += 1
        elif s.startswith("\\end{", k, b):
            if nested == 0:
                end = k
                break
            nested -= 1
        elif k + 1 < b and s[k + 1] == "\\":
            k += 1
        k = s.find("\\", k + 1, b)
    if end < 0 or end + 5 + len(name) + 1 != b or s[end + 5 : end + 5 + len(name)] != name:
        return a, b
    inner = close + 1
    if name == "alignedat" and inner < end and s[inner] == "{":
        c = s.find("}", inner, end)
        if c < 0:
            return a, b
        inner = c + 1
    return inner, end


def _span_content(s: str, a: int, b: int) -> tuple[int, int]:
    a, b = _trim(s, a, b)
    for cmd in ("\\tag", "\\label"):
        at = s.find(cmd, a, b)
        if at >= 0:
            b = at
    a, b = _strip_span_tails(s, a, b)
    ia, ib = _unwrap_alignment(s, a, b)
    return (a, b) if ia == a else _strip_span_tails(s, ia, ib)


def _last_own_row(s: str, a: int, b: int) -> tuple[int, int]:
    """The last row of s[a:b] (after its last "\\\\" outside braces and environments) when it
    does not start with a relation; s[a:b] itself otherwise."""
    row = -1
    depth = environments = 0
    before = False  # a row before the break
    k = a
    while k < b:
        c = s[k]
        if c == "\\" and k + 1 < b and s[k + 1] == "\\":
            if depth == 0 and environments == 0 and before:
                row = k + 2
            k += 2
            continue
        before = before or c not in _SPACE
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == "\\" and k + 1 < b:
            if s.startswith("\\begin{", k, b):
                environments += 1
            elif s.startswith("\\end{", k, b):
                environments = max(environments - 1, 0)
            elif s[k + 1] in "{}":
                k += 1
        k += 1
    if row < 0:
        return a, b
    k = row
    while k < b and (s[k] in _SPACE or s[k] == "&"):
        k += 1
    if k == b or _relation_at(s, k, b)[0]:
        return a, b
    return k, b


#: latex_vocab.hpp's kApproximationCommands: equalities of a chain.
_EQUALITY_COMMANDS = ("approx", "simeq", "cong", "doteq")
_INEQUALITY_COMMANDS = ("le", "leq", "ge", "geq", "neq", "ne", "lt", "gt", "leqslant", "geqslant")
#: latex_vocab.hpp's kDivisibilityCommands: relations that are no equality either.
_DIVISIBILITY_COMMANDS = ("mid", "nmid", "divides", "ndivides")


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
        if name in _INEQUALITY_COMMANDS or name in _DIVISIBILITY_COMMANDS:
            return e - k, False
        return 0, False
    if c == "\u2248":
        return 1, True
    if c in "\u2264\u2265\u2260":
        return 1, False
    return 0, False


def _number_starts(s: str, start: int, k: int) -> bool:
    """Whether a number starts at s[k] in a scan from *start*: a digit after no digit and no comma."""
    return _is_digit(s[k]) and (k == start or not (_is_digit(s[k - 1]) or s[k - 1] == ","))


def _thousands_groups_end(s: str, k: int) -> int:
    """The end of the number at s[k] with its comma thousands groups: one to three digits, not
    starting with 0, then groups ",ddd" ("1,000,000"); the end of its digits when it has none."""
    m = re.compile(r"[1-9][0-9]{0,2}(?![0-9])(?:,[0-9]{3}(?![0-9]))*").match(s, k)
    if m is not None:
        return m.end()
    return re.compile(r"[0-9]*").match(s, k).end()  # type: ignore[union-attr]


#: extract_math.cpp's kConclusionWords: a \text{} holding one of them in a span starts its answer.
_CONCLUSION_WORDS = frozenset(
    [
        "is",
        "are",
        "was",
        "be",
        "equals",
        "becomes",
        "get",
        "gets",
        "got",
        "obtain",
        "obtains",
        "obtained",
        "gives",
        "give",
        "yields",
        "yield",
        "so",
        "thus",
        "therefore",
        "hence",
        "then",
    ]
)


def _span_answer(s: str, a: int, b: int) -> tuple[int, int]:
    """What a math span states: the last member of a chain of equalities, the right side of an
    arithmetic left side, the relation itself otherwise; after the last \\Rightarrow."""
    return _span_reading(s, a, b)[0]


def _span_reading(s: str, a: int, b: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(the answer, the statement) of s[a:b]: what _span_answer gives, and what the span states
    before a chain gives its last member (its row, after the last \\Rightarrow: "x = 2^{3} = 8"
    whole, where the answer is "8")."""
    a, b = _last_own_row(s, *_span_content(s, a, b))
    ops: list[tuple[int, int]] = []  # (position, length)
    all_equalities = True
    parts = False
    depth = 0
    grouped_end = 0
    row_start = True  # only blanks and "&" since the start or the last "\\\\": a \quad there indents
    concluded = False  # a starts after a conclusion
    k = a
    while k < b:
        c = s[k]
        if not (c in _SPACE or c in "&\\"):
            row_start = False
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
                if k + 1 < b and s[k + 1] in "{}":
                    row_start = False
                if k + 1 < b and s[k + 1] == "\\":
                    row_start = True
                k += 2
                continue
            name = s[k + 1 : e]
            wide = name in ("quad", "qquad")
            if not wide:
                row_start = False
            if depth == 0:
                if name in ("Rightarrow", "Longrightarrow", "implies", "therefore"):
                    ops, all_equalities, parts, a = [], True, False, e
                    concluded = True
                elif wide:
                    parts = parts or not row_start
                elif name in ("text", "mbox", "textrm") and s[e:b].lstrip(" ").startswith("{"):
                    g = e + len(s[e:b]) - len(s[e:b].lstrip(" "))  # "\text {so}" as "\text{so}"
                    close = s.find("}", g, b)
                    word = s[g + 1 : close].strip(_SPACE) if close >= 0 and _u8(s, g, close) < 16 else ""
                    if word in ("or", "and"):
                        parts = True
                    elif word.isascii() and word.isalpha() and word.lower() in _CONCLUSION_WORDS:
                        ops, all_equalities, parts, a = [], True, False, close + 1  # "\text{ so }"
                        concluded = True
                else:
                    length, equality = _relation_at(s, k, b)
                    if length:
                        ops.append((k, length))
                        all_equalities = all_equalities and equality
            k = e
            continue
        elif depth == 0 and _number_starts(s, a, k):
            grouped_end = _thousands_groups_end(s[:b], k)
        elif depth == 0 and c in ",;":
            if c == ";" or k >= grouped_end:  # not a thousands separator
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
    while concluded and (
        m := re.match(r"\\(?:qquad|quad|enspace|enskip|hfill)(?![A-Za-z])", s[a:b])
    ):  # "\text{so} \quad R"
        a, b = _trim(s, a + m.end(), b)
    statement = (a, b)
    if parts or not ops or not all_equalities:
        return (a, b), statement
    at, length = ops[-1]
    ra, rb = _trim(s, at + length, b)
    while ra < rb and (s[ra] == "&" or s[ra] in _SPACE):  # "= & 0.59": an alignment mark
        ra += 1
    if ra == rb:
        return (a, b), statement
    if len(ops) >= 2:
        return (ra, rb), statement
    la, lb = _trim(s, a, at)
    return ((a, b) if _has_symbol(s, la, lb) else (ra, rb)), statement


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
_MAX_SKIPPED_BYTES = 80  # how far a "(reference)" may reach, in UTF-8 bytes
_PARENTHESIZED = re.compile(r"[^)\n]{0,80}\)")


def _digit_after(s: str, k: int) -> bool:
    """A digit after k, outside markup tags and references in parentheses."""
    n = len(s)
    while k < n:
        c = s[k]
        if c == "<":
            tag_end = _markup_tag_end(s, k, n)
            if tag_end is not None:
                k = tag_end
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


_CONNECTORS = re.compile(r"[ \t\n\r\f\v]*(?:(?:[,;和或]|(?<![A-Za-z])(?:and|or)(?![A-Za-z]))[ \t\n\r\f\v]*)+")
_SAYS_OR = re.compile(r"(?<![A-Za-z])or(?![A-Za-z])|或")


def _joins_parts(s: str, a: int, b: int) -> bool:
    """Only ',', ';', "and", "or", "和", "或" and whitespace between two spans (a short gap)."""
    if _u8(s, a, b) > 16:
        return False
    return _CONNECTORS.fullmatch(s, a, b) is not None


def _sentence_break(s: str, a: int, b: int) -> bool:
    return re.compile(r"\n|[.!?](?=[ \t\n\r\f\v]|\Z)").search(s[a:b]) is not None


def _is_lone_symbol(s: str, a: int, b: int) -> bool:
    return re.fullmatch(r"(?:\\[A-Za-z]+|[A-Za-z]{1,2})[ \t]*(?:_[ \t0-9A-Za-z{}]*)?", s[a:b]) is not None


def _stated_lhs(s: str, a: int, b: int) -> str:
    """The left side of what s[a:b] states when it names something; "" for a computation
    ("1 + 2 = 3") as for a value."""
    la, lb = _relation_lhs(s, a, b)
    return s[la:lb] if _has_symbol(s, la, lb) else ""


def _final_span(s: str, start: int, bold: tuple[int, int] | None = None) -> RefExtraction | None:
    """final_span; with *bold* (reference_bold_span), on the span and part of the bolded answer."""
    spans = [sp for sp in _math_spans(s, start)]
    full = [_has_content(s, sp[1], sp[2]) for sp in spans]
    last = len(spans) if bold is None else bold[0] + 1
    while last > 0 and not full[last - 1]:
        last -= 1
    # a quantifier's domain after the answer is not the answer, unless nothing comes before it
    qualified = last
    while qualified > 0 and (not full[qualified - 1] or _quantifier_domain(s, spans[qualified - 1])):
        qualified -= 1
    domains = 0 < qualified < last
    if domains:
        last = qualified
    if last == 0:
        return None
    # "$m = 2$ after solving for $m$": the variable named again is not the answer
    prev = last - 1
    while prev > 0 and not full[prev - 1]:
        prev -= 1
    if prev > 0 and bold is None:
        name = _span_content(s, spans[last - 1][1], spans[last - 1][2])
        before = _span_content(s, spans[prev - 1][1], spans[prev - 1][2])
        if (
            _is_lone_symbol(s, *name)
            and not _sentence_break(s, spans[prev - 1][3], spans[last - 1][0])
            and s.startswith(s[name[0] : name[1]], before[0], before[1])
        ):
            last = prev
    if bold is None and not domains and _digit_after(s, spans[last - 1][3]):
        return None
    if bold is None and domains:
        from_ = spans[last - 1][3]
        for sp in spans[last:]:
            if _digit_after(s[: sp[0]], from_):
                return None
            from_ = sp[3]
        if _digit_after(s, from_):
            return None
    final, final_statement = _span_reading(s, bold[1] if bold is not None else spans[last - 1][1], spans[last - 1][2])
    final_lhs = _stated_lhs(s, *final_statement)
    first = last - 1
    while first > 0 and full[first - 1] and _joins_parts(s, spans[first - 1][3], spans[first][0]):
        # the left sides of what the spans state, before a chain gives its last member
        part, statement = _span_reading(s, spans[first - 1][1], spans[first - 1][2])
        lhs = _stated_lhs(s, *statement)
        # where only the statements agree, "or" joins alternatives; "and" may restate one value
        answers_differ = (s[slice(*_relation_lhs(s, *part))] == "") != (s[slice(*_relation_lhs(s, *final))] == "")
        if answers_differ and _SAYS_OR.search(s, spans[first - 1][3], spans[first][0]) is None:
            break
        if (lhs == "") != (final_lhs == "") or lhs != final_lhs:
            break
        first -= 1
    parts = [_span_answer(s, sp[1], sp[2]) for sp in spans[first : last - 1]] + [final]
    a, b = parts[0][0], parts[-1][1]
    if b <= a:
        return None
    # "or" in a gap makes the parts alternatives, joined with " or " ("x<2 or x>3")
    says_or = any(_SAYS_OR.search(s, spans[k][3], spans[k + 1][0]) for k in range(first, last - 1))
    return RefExtraction((" or " if says_or else ", ").join(s[pa:pb] for pa, pb in parts), a, b, "final_span")
