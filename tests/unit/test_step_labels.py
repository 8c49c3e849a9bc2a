r"""Labels of the parts of a solution are no last number.

"Step 5: print(total_days)", "## Step 3: Compute the area", "Case 2: n is odd", "there is no
solution in Case 3.", "see Figure 2": a number after a word of ``detail::kStepLabels`` (step,
case, part, lemma, figure, ...; any case) and blanks labels a part of the solution or of a text
it cites. The last-number rule, the last resort of a response with no marked answer, passes over
it, so that a program of steps or an outline cut short is not read as answering its own step
number, nor a closing reference to a figure as its value. Stated again in the reference
extractor (``reference_last_number._STEP``).

The digits of a markup tag are no value either: an image placeholder of a dump ("<img_4019>"), an
HTML tag ("<h2>"), a model's special token ("<|reserved_2|>"), as ``extract::markup_tag_end``
reads them (``reference_last_number._in_markup_tag``).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Step 1: photos = 210\nStep 2: batch = 7\nStep 3: days = 6\nStep 5: print(total_days)", "6"),
        ("## Step 6: Calculate the total", None),
        ("She has 12 apples.\n\nCase 3: none left", "12"),
        ("PART 2: the rest", None),
        ("So $x$ is 7.\n\nLemma 2: every root is real.", "7"),
        # a label with no ':' after it is a label too
        ("x is 12 in step 3.", "12"),
        ("We are in case 3", None),
        ("The area is 5. See Figure 2.", "5"),
        ("Therefore, $x = 4$, and there is no solution in Case 3.", "4"),
        # no label: a number before the word, a ratio, a number glued to the word
        ("The ratio is 3:2", "3:2"),
        ("So 12 parts: 5:", "5"),
        ("It took 3 steps", "3"),
        ("Then it is in step3", "3"),
        # the digits of a markup tag
        ("Hence $B T=\\sqrt{2} B M$ and the area is 12.\n\n<img_3695>\n\nFigure 1\n\n<img_4019>", "12"),
        ("So the total is 7 <h2>", "7"),
        ("So the total is 7 </h2>", "7"),
        ("So the total is 7<|reserved_12|>", "7"),
        ("The answer has <img_3939>", None),
        # no tag: a comparison, a '<' before a number, a tag that is never closed
        ("So x<y2 and y2 = 5", "5"),
        ("So 3 < 12", "12"),
        ("we get <img_12", "12"),
        ("So a<b_2 > 0", "0"),
    ],
)
def test_a_label_or_a_tag_is_no_last_number(text: str, answer: str | None) -> None:
    found = extract_answer(text)
    assert (found.text if found is not None else None) == answer, found


def test_a_program_of_steps_is_not_graded_by_its_step_number() -> None:
    text = (
        "Step 1: photos = 210\nStep 2: batch = 7\nStep 3: days = 6\n"
        "Step 4: total = (photos / batch) * days\nStep 5: print(total)"
    )
    assert grade("5", text, fallback=False).correct is False
    assert grade("180", text, fallback=False).correct is False  # the program's result is nowhere


@given(
    label=st.sampled_from(["Step", "step", "STEP", "Case", "Part"]),
    number=st.integers(1, 999),
    value=st.integers(-(10**6), 10**6),
    heading=st.sampled_from(["", "## ", "**"]),
    rest=st.sampled_from(["", " Compute the total", " print(x)", "\n"]),
)
def test_the_value_before_a_label_is_the_last_number(
    label: str, number: int, value: int, heading: str, rest: str
) -> None:
    text = f"So the total is {value}.\n\n{heading}{label} {number}:{rest}"
    found = extract_answer(text)
    assert found is not None and found.text == str(value), found


@given(
    value=st.integers(-(10**6), 10**6),
    tag=st.from_regex(r"</?[A-Za-z][A-Za-z_]{0,6}[0-9]{1,6}>", fullmatch=True),
    blank=st.sampled_from(["", " ", "\n\n"]),
)
def test_the_value_before_a_markup_tag_is_the_last_number(value: int, tag: str, blank: str) -> None:
    text = f"So the total is {value}.{blank}{tag}"
    found = extract_answer(text)
    assert found is not None and found.text == str(value), (text, found)
