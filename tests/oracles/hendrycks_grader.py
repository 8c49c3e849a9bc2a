"""A plain-Python Hendrycks-style grader: the baseline users pick today because it is fast.

The last ``\\boxed{}`` of the response, the MATH dataset's ``strip_string``-style normalization
of both sides, then string equality. It misses equivalent forms (``0.5`` vs ``\\frac12``,
``x+1`` vs ``1+x``), which is the point of comparing against it: rapidgrade should be at least as
fast while agreeing with math-verify instead.
"""

from __future__ import annotations


def last_boxed_only_string(string: str) -> str | None:
    idx = string.rfind("\\boxed")
    if idx < 0:
        idx = string.rfind("\\fbox")
        if idx < 0:
            return None
    depth = 0
    for i in range(idx, len(string)):
        if string[i] == "{":
            depth += 1
        elif string[i] == "}":
            depth -= 1
            if depth == 0:
                return string[idx : i + 1]
    return None


def remove_boxed(s: str) -> str | None:
    for left in ("\\boxed{", "\\fbox{"):
        if s.startswith(left) and s.endswith("}"):
            return s[len(left) : -1]
    if s.startswith("\\boxed "):
        return s[len("\\boxed ") :]
    return None


def _fix_fracs(string: str) -> str:
    parts = string.split("\\frac")
    out = parts[0]
    for part in parts[1:]:
        out += "\\frac"
        if part.startswith("{") or len(part) < 2:
            out += part
            continue
        a, b, rest = part[0], part[1], part[2:]
        if b == "{":
            out += "{" + a + "}" + b + rest
        else:
            out += "{" + a + "}{" + b + "}" + rest
    return out


def _fix_a_slash_b(string: str) -> str:
    if string.count("/") != 1:
        return string
    a, b = string.split("/")
    if a.isdigit() and b.isdigit():
        return "\\frac{" + a + "}{" + b + "}"
    return string


def _remove_right_units(string: str) -> str:
    if "\\text{ " in string:
        return string.split("\\text{ ")[0]
    return string


def _fix_sqrt(string: str) -> str:
    if "\\sqrt" not in string:
        return string
    parts = string.split("\\sqrt")
    out = parts[0]
    for part in parts[1:]:
        if part and part[0] != "{":
            out += "\\sqrt{" + part[0] + "}" + part[1:]
        else:
            out += "\\sqrt" + part
    return out


def strip_string(string: str) -> str:
    string = string.replace("\n", "").replace("\\!", "").replace("\\\\", "\\")
    string = string.replace("tfrac", "frac").replace("dfrac", "frac")
    string = string.replace("\\left", "").replace("\\right", "")
    string = string.replace("^{\\circ}", "").replace("^\\circ", "")
    string = string.replace("\\$", "")
    string = _remove_right_units(string)
    string = string.replace("\\%", "").replace("%", "")
    string = string.replace(" .", " 0.").replace("{.", "{0.")
    if not string:
        return string
    if string[0] == ".":
        string = "0" + string
    if len(string.split("=")) == 2 and len(string.split("=")[0]) <= 2:
        string = string.split("=")[1]
    string = _fix_sqrt(string)
    string = string.replace(" ", "")
    string = _fix_fracs(string)
    if string == "0.5":
        string = "\\frac{1}{2}"
    return _fix_a_slash_b(string)


def hendrycks_grade(gold: str, response: str) -> bool:
    """True when the last boxed answer equals the gold after strip_string."""
    boxed = last_boxed_only_string(response)
    answer = remove_boxed(boxed) if boxed is not None else None
    if answer is None:
        return False
    return strip_string(answer) == strip_string(gold)
