"""A program of thought that ends with its print() and shows no output.

Some datasets hold programs written step by step and never run: "Step 3: time = total_distance /
speed\\nStep 4: print(time)". With no output block (the ``code_output`` method) and no marked
answer, the last number of such a response is one of the program's constants, not the value it
prints. A FALSE from it is no certain verdict: the pair is UNKNOWN with its own reason, kept by the
fast path, since no reader of the fallback runs code (``markers.hpp``'s ``kProgramResults``:
"print", "return", as the first word of the last line, after a step label or none).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade
from tests.unit.test_last_number_readings import GUESS as LAST_NUMBER_GUESS

PROGRAM = (
    "undecided: the response ends with a program's print or return and shows no output; its last number is not "
    "the value the program prints, and no reader runs it"
)


@pytest.mark.parametrize(
    "response",
    [
        "Step 1: total_distance = 4*2\nStep 2: speed = 4\nStep 3: time = total_distance / speed\nStep 4: print(time)",
        "speed = 4\ntime = 8 / speed\nprint (time)",
        "def solve():\n    x = 4\n    return x",
        "Step 9: total = 3 * 4\nStep 10: print(total)\n",
    ],
)
def test_a_program_that_prints_without_output_states_no_value(response: str) -> None:
    v = grade("2", response)  # fallback on: the pair never reaches it
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", PROGRAM), v


@pytest.mark.parametrize(
    ("gold", "response", "reason"),
    [
        # an output shown, a marked answer, print() as a word of prose: read as before
        ("3", "```python\nprint(1 + 2)\n```\n```output\n4\n```", "not equivalent"),
        ("3", "x = 4\nprint(x)\nThe answer is 4.", "not equivalent"),
        ("3", "We print 4 copies.", "not equivalent"),
        ("3", "x = 4\nprinted(x)", LAST_NUMBER_GUESS),
    ],
)
def test_other_endings_are_read_as_before(gold: str, response: str, reason: str) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.reason) == (False, reason), v


def test_a_last_number_that_matches_is_still_the_guess_it_was() -> None:
    assert grade("4", "speed = 4\nprint(speed)", fallback=False).correct is True


@given(
    constants=st.lists(st.integers(1, 999), min_size=1, max_size=4),
    label=st.sampled_from(["", "Step 7: ", "step 2:  "]),
    call=st.sampled_from(["print(result)", "print (result)", "return result"]),
)
def test_any_program_ending_in_its_result_is_kept_undecided(constants: list[int], label: str, call: str) -> None:
    lines = [f"a{k} = {c}" for k, c in enumerate(constants)]
    text = "\n".join([*lines, f"{label}{call}"])
    v = grade("1000", text, fallback=False)
    assert v.reason == PROGRAM, v
