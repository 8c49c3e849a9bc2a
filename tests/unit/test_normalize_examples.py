"""The documented normalization rules are normative: every example in them holds.

The rules are written twice, for two audiences: in the C++ header
(cpp/include/rapidgrade/normalize.hpp, examples written "a" -> "b" in comments) and in the Python
module docstring (rapidgrade.normalize, examples written ``a`` -> ``b``). Both are read here, every
example is checked against normalize_latex with the default options, and both must document the
same numbered rules, each with at least one example in the header."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import rapidgrade.normalize
from rapidgrade import normalize_latex

HEADER = Path(__file__).resolve().parents[2] / "cpp" / "include" / "rapidgrade" / "normalize.hpp"

# "a" -> "b" on one comment line; the strings hold no double quote (backslashes are literal).
_HEADER_EXAMPLE = re.compile(r'"([^"\n]*)" -> "([^"\n]*)"')
_HEADER_RULE = re.compile(r"^//\s{1,2}(\d{1,2})\. ")
# ``a`` -> ``b`` on one line of the docstring (reStructuredText literals).
_DOC_EXAMPLE = re.compile(r"``((?:(?!``)[^\n])+)`` -> ``((?:(?!``)[^\n])+)``")
_DOC_RULE = re.compile(r"^(\d{1,2})\. ")


def header_comment_lines() -> list[str]:
    text = HEADER.read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip().startswith("//")]


def examples_by_rule(
    lines: list[str], rule: re.Pattern[str], example: re.Pattern[str]
) -> dict[int, list[tuple[str, str]]]:
    """Examples found after each numbered rule (rule -1: before the first one)."""
    found: dict[int, list[tuple[str, str]]] = {}
    current = -1
    for line in lines:
        m = rule.match(line)
        if m is not None:
            current = int(m.group(1))
            found.setdefault(current, [])
        found.setdefault(current, []).extend(example.findall(line))
    return found


HEADER_EXAMPLES = examples_by_rule(header_comment_lines(), _HEADER_RULE, _HEADER_EXAMPLE)
DOC_EXAMPLES = examples_by_rule((rapidgrade.normalize.__doc__ or "").splitlines(), _DOC_RULE, _DOC_EXAMPLE)
RULES = list(range(14))


def flat(found: dict[int, list[tuple[str, str]]]) -> list[tuple[int, str, str]]:
    return [(rule, a, b) for rule, pairs in sorted(found.items()) for a, b in pairs]


def test_header_documents_every_rule_with_examples() -> None:
    assert sorted(k for k in HEADER_EXAMPLES if k >= 0) == RULES
    assert all(HEADER_EXAMPLES[rule] for rule in RULES), {r: len(HEADER_EXAMPLES[r]) for r in RULES}
    assert HEADER_EXAMPLES.get(-1, []) == []  # no example outside a rule
    assert len(flat(HEADER_EXAMPLES)) >= 60


def test_docstring_documents_the_same_rules() -> None:
    assert sorted(k for k in DOC_EXAMPLES if k >= 0) == RULES
    assert DOC_EXAMPLES.get(-1, []) == []
    assert len(flat(DOC_EXAMPLES)) >= 40
    # The rules the docstring had lost (Unicode folding, the decimal comma) are there.
    assert DOC_EXAMPLES[0]
    assert ("0{,}5", "0.5") in DOC_EXAMPLES[1]


@pytest.mark.parametrize(("rule", "before", "after"), flat(HEADER_EXAMPLES))
def test_header_example(rule: int, before: str, after: str) -> None:
    assert normalize_latex(before) == after, f"rule {rule}"


@pytest.mark.parametrize(("rule", "before", "after"), flat(DOC_EXAMPLES))
def test_docstring_example(rule: int, before: str, after: str) -> None:
    assert normalize_latex(before) == after, f"rule {rule}"


def test_parser_reads_examples() -> None:
    # The parsers themselves: an example on a comment line, and one in a docstring line.
    assert _HEADER_EXAMPLE.findall(r'//  6. braced: "\frac12" -> "\frac{1}{2}", "x" -> "x".') == [
        (r"\frac12", r"\frac{1}{2}"),
        ("x", "x"),
    ]
    assert _DOC_EXAMPLE.findall(r"``3/4`` -> ``\frac{3}{4}``, ``x`` stays") == [("3/4", r"\frac{3}{4}")]
