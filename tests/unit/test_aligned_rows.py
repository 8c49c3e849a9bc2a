r"""Display math written in rows: a span that holds a whole alignment environment
(``$$\begin{aligned} V &= \int_0^1 A(x)\,dx \\ &= \frac{2\pi}{15} \end{aligned}$$``), the rows of
``align`` and ``gather``, and the alignment mark ``&`` before a relation.

- The environment's ``\begin``/``\end`` are no part of the answer: its rows are the span's.
- Environments inside it nest: an ``array`` or a matrix in a row does not end it.
- A last row that starts with a relation (``& = 0.23``, or ``= & 0.23`` with the mark after the
  relation) continues the chain: the answer is the chain's last member. A last row with its own
  left side (``\theta_0 &= ...``) states something of
  its own: the answer is that row.
- ``&`` right before or after a relation is an alignment mark, not math (``x &= 5`` is ``x = 5``);
  between the cells of a matrix it still separates them.

Textbook and model solutions end this way (SciBench's, for one), often with Windows line ends."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("$$ \\begin{aligned} x & = 1 \\\\ & =0.23 \\end{aligned} $$", "0.23"),
        ("$$\r\n\\begin{aligned}\r\nx & = 1 \\\\\r\n & =0.23\r\n\\end{aligned}\r\n$$", "0.23"),
        ("$$ \\begin{aligned} P & =\\frac{0.48}{0.70}=0.686 . \\end{aligned} $$", "0.686"),
        ("$$ \\begin{aligned} & =2.24 \\times 10^7 \\\\ \\end{aligned} $$", "2.24 \\times 10^7"),
        ("$$\\begin{gathered} a = 1 \\\\ b = 2 \\end{gathered}$$", "b = 2"),
        ("$$\\begin{alignedat}{2} x &= 3 &&+ 1 \\\\ &= 4 \\end{alignedat}$$", "4"),
        ("\\begin{align} y &= 2 + 2 \\\\ &= 4 \\end{align}", "4"),
        ("\\begin{align*} u &= 1 \\\\ v &= 7 \\end{align*}", "v &= 7"),
        # a last row of its own without a relation, an empty last row, a row indented with \quad
        ("$$\\begin{aligned} P(A) &= 0.5 \\\\ & 0.59 \\end{aligned}$$", "0.59"),
        ("$$ \\begin{aligned} & =1.775 \\times 10^{-5} \\\\ & \\end{aligned} $$", "1.775 \\times 10^{-5}"),
        ("$$\\begin{aligned} D &= 3 \\\\ &\\quad \\times 2 \\\\ &= 6 \\end{aligned}$$", "6"),
        # the mark after the relation
        ("$$\\begin{aligned} P = & 0.43+0.40-0.24 \\\\ = & 0.59 \\end{aligned}$$", "0.59"),
        (
            "$$\\begin{aligned}\r\nS= & 22.0-4.8 \\\\\r\n= & 24.4 \\mathrm{~J}\r\n\\end{aligned}\r\n$$",
            "24.4 \\mathrm{~J}",
        ),
        # an environment inside a row
        (
            "$$\\begin{aligned} M & =\\left[\\begin{array}{l} 1 \\\\ 2 \\end{array}\\right] \\\\ "
            "& =355.1 \\end{aligned}$$",
            "355.1",
        ),
        (
            "$$\\begin{aligned} x &= \\begin{cases} 1 \\\\ 2 \\end{cases} \\\\ y &= 7 \\end{aligned}$$",
            "y &= 7",
        ),
    ],
)
def test_the_rows_of_an_alignment_are_the_spans(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == answer, text
    assert found.method == "final_span"
    assert text[found.start : found.end] == answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # a matrix's rows are its own
        (
            "So $$A = \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}$$",
            "A = \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
        ),
        # two environments: no one of them holds the whole span
        (
            "$$ \\begin{aligned} a &= 1 \\end{aligned} = \\begin{aligned} b \\end{aligned} $$",
            "\\begin{aligned} b \\end{aligned}",
        ),
        # an environment that is not closed where the span ends
        (
            "$$ \\begin{aligned} a &= \\begin{array}{l} 1 \\end{aligned} $$",
            "\\begin{aligned} a &= \\begin{array}{l} 1 \\end{aligned}",
        ),
        # an escaped backslash before a command breaks no row
        ("Then $\\\\boxed{(3, 4)}$", "\\\\boxed{(3, 4)}"),
    ],
)
def test_what_is_not_one_alignment_is_read_whole(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == answer, text


@pytest.mark.parametrize(
    ("gold", "answer", "correct"),
    [
        ("5", "x &= 5", True),
        ("5", "x =& 5", True),
        ("y=2", "y &= 2", True),
        ("3", "x &= 5", False),
        (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"$\begin{pmatrix}1 & 2\\3&4\end{pmatrix}$", True),
        (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", r"$\begin{pmatrix}1 & 2\\3&5\end{pmatrix}$", False),
    ],
)
def test_an_alignment_mark_is_no_math(gold: str, answer: str, correct: bool) -> None:
    verdict = grade(gold, answer)
    assert verdict.correct is correct
    assert verdict.decided_by == "fast"


_rows = st.lists(
    st.sampled_from(["x", "V", "\\int_0^1 x\\,dx", "\\frac{3}{4}", "2 \\times 3", "a+b", "\\sqrt{2}"]),
    min_size=1,
    max_size=4,
)


@given(
    lhs=st.sampled_from(["x", "V", "P(A)", "\\theta_0", ""]),
    rows=_rows,
    value=st.integers(min_value=-999, max_value=999),
    env=st.sampled_from(["aligned", "split", "gathered"]),
    newline=st.sampled_from(["\n", "\r\n", " "]),
    tail=st.sampled_from(["", ".", " .", " \\\\"]),
    mark=st.sampled_from(["& =", "&=", "= &", "=&"]),
    inner=st.sampled_from(
        ["", "\\left[\\begin{array}{l} 2 \\\\ 3 \\end{array}\\right]", "\\begin{pmatrix} 1 & 0 \\end{pmatrix}"]
    ),
)
def test_the_last_member_of_any_aligned_chain_is_read(
    lhs: str, rows: list[str], value: int, env: str, newline: str, tail: str, mark: str, inner: str
) -> None:
    rows = [*rows[:-1], rows[-1] + inner]  # an environment inside a row nests
    first = [f"{lhs} & = {rows[0]}"]
    body = (" \\\\" + newline).join(first + [f"{mark} {r}" for r in rows[1:]] + [f"{mark} {value}{tail}"])
    text = f"Hence{newline}$${newline}\\begin{{{env}}}{newline}{body}{newline}\\end{{{env}}}{newline}$$"
    found = extract_answer(text)
    assert found is not None and found.text == str(value), text
    assert grade(str(value), text).correct
    assert not grade(str(value + 1), text).correct
