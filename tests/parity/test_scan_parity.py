"""Parity of rapidgrade.find_boxed with the plain-Python oracle (tests/oracles/scan_oracle.py):
the boxed contents of the 800 real responses, hand-written escapes and nesting, and generated
brace soups (braced boxes only: the oracle does not read the unbraced ``\\boxed 5`` form)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rapidgrade
from tests.datasets import load_demo_corpus
from tests.oracles.scan_oracle import find_boxed_contents


def ours(text: str) -> list[str]:
    return [span.content for span in rapidgrade.find_boxed(text)]


def test_demo_corpus() -> None:
    rows = load_demo_corpus()
    differ = [row["id"] for row in rows if ours(row["response"]) != find_boxed_contents(row["response"])]
    assert differ == []


@pytest.mark.parametrize(
    "text",
    [
        r"\boxed{1} and \fbox{2}",
        r"\boxed{\frac{1}{2}} then \boxed{x^{\boxed{3}}}",
        r"\boxed{a\{b} \boxed{c\}d}",
        r"\boxed{\\{x}}",
        r"\boxed {5} \boxed" + "\n{6}",
        r"\boxed{unclosed {x}",
        r"}}} \boxed{ok} {{{",
        r"\boxedx{no} \fboxes{no}",
        "é😀 \\boxed{½} \\boxed{\U0001d400}",
    ],
)
def test_hand_written(text: str) -> None:
    assert ours(text) == find_boxed_contents(text)


SOUP = st.lists(
    st.sampled_from(["\\boxed{", "\\fbox{", "{", "}", "\\{", "\\}", "\\\\", "\\", "a", "x^", " ", "\n", "é", "1"]),
    max_size=40,
).map("".join)


@given(SOUP)
def test_generated_brace_soups(text: str) -> None:
    assert ours(text) == find_boxed_contents(text)
