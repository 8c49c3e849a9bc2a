r"""The answer markers (``cpp/include/rapidgrade/detail/markers.hpp``): one test per row of the
table, the precedence between them (the marker nearest the end that yields an answer wins), what
disagreeing markers do to certainty, and the CJK reading rules (``为-3``, full-width ``－３``,
``根号3``, ``π``, ``1和3``).

The styles are those of real evaluation dumps: GSM8K's "A: 18" and "#### 18", PRM800K/Minerva's
``# Answer`` section, GAOKAO-Bench's ``【答案】…<eoa>``, Chinese "答案是 12" and "所以…为 -3"."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade, normalize_latex

# ---------------------------------------------------------------------------------------------
# one row of the table each


@pytest.mark.parametrize(
    ("text", "answer", "method"),
    [
        (r"So it is \boxed{18}.", "18", "boxed"),
        (r"So it is \fbox{18}.", "18", "boxed"),
        ("She sells 9 * 2 = 18.\nThe answer is 18 eggs.", "18", "answer_is"),
        ("Thus, 6 is the correct answer.", "6", "answer_is"),
        ("Thus.\n**Final Answer:** 5", "5", "answer_is"),
        ("Thus.\n**Answer:** (B)", "(B)", "answer_is"),
        ("So the point is (8,-2).\n\n# Answer\n\n(8,-2)", "(8,-2)", "answer_is"),
        ("So the point is (8,-2).\n\n## Final Answer\n(8,-2)", "(8,-2)", "answer_is"),
        ("She pays 3 * 4 = 12 dollars.\n#### 12", "12", "tagged"),
        ("#### 18 eggs", "18", "tagged"),
        ("It takes 2 + 1 = 3 bolts\nA: 3", "3", "answer_is"),
        ("think <answer> 17 </answer>", "17", "tagged"),
        ("【解析】由题意得 a=-3。<eoe>\n【答案】-3<eoa>", "-3", "tagged"),
        ("【解析】…<eoe>\n【答案】根号3<eoa>", "根号3", "tagged"),
        ("【答案】分层抽样<eoa>", "分层抽样", "tagged"),
        ("【答案】1和3", "1和3", "tagged"),
        ("【解析】…<eoe>\n【答案】: A <eoa>", "A", "tagged"),
        ("【答案】：-3<eoa>", "-3", "tagged"),
        ("所以答案是12。", "12", "answer_is"),
        ("故答案为：－３", "－３", "answer_is"),
        ("答案：14π", "14π", "answer_is"),
        ("答案是：12", "12", "answer_is"),
        ("所以a的值为-3", "-3", "answer_is"),
        ("因此面积是6。", "6", "answer_is"),
    ],
)
def test_each_marker(text: str, answer: str, method: str) -> None:
    found = extract_answer(text)
    assert found is not None
    assert (found.text, found.method) == (answer, method)
    assert text[found.start : found.end] == answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("So, the answer to the question is 2 bars have values larger than 4.", "2"),
        ("The answer to this problem is: 7", "7"),
        ("The answer to part one is 9.", "9"),
    ],
)
def test_the_answer_to_a_named_question_is_the_answer_marker(text: str, answer: str) -> None:
    # "the answer to the question is" is the "the answer is" row: up to four words name what it answers
    found = extract_answer(text)
    assert found is not None
    assert (found.text, found.method) == (answer, "answer_is")


@pytest.mark.parametrize(
    "text",
    ["The answer to a question with many more words is 5 apples", "The answer to (a) is 3 and then 6 more"],
)
def test_the_answer_to_words_no_marker_past_four_words_or_other_signs(text: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.method != "answer_is"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Thus $x <= 2$ is our answer.", "x <= 2"),  # a case of math-verify's own tests
        ("We are told there is one such number, so 623 must be the only answer.\n\nWhy? Since a=6.", "623"),
        ("So -3.5 is the final answer", "-3.5"),
        ("So $2 \\cdot 3 = 6$ is the right answer, as expected.", "6"),
        ("Hence 12% is the answer; we are done.", "12%"),
        ("The answer is 5. Checking again, 7 is the answer.", "7"),
    ],
)
def test_a_value_before_is_the_answer(text: str, answer: str) -> None:
    # the kValueBefore row: the value, the verb, a determiner and at most one adjective, then
    # "answer" at a sentence's or a clause's end
    found = extract_answer(text)
    assert found is not None
    assert (found.text, found.method) == (answer, "answer_is")


@pytest.mark.parametrize(
    "text",
    [
        "We check whether 5 is the answer. So it is 7.",  # a condition
        "If 5 is the answer, then 7 is not.",
        "Here 5 is the answer to part (a), and 7 follows.",  # more after "answer"
        "So 5 is the answer we want, then 7.",
        "Then 5 is an answer, and so is 7.",  # no determiner
        "So x5 is the answer, with 7.",  # no value apart
        "So 5 is the many answers, with 7.",
    ],
)
def test_what_is_no_value_before_the_answer(text: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == "7", found


@given(
    value=st.integers(-(10**6), 10**6),
    verb=st.sampled_from(["is", "must be", "IS"]),
    determiner=st.sampled_from(["the", "our"]),
    adjective=st.sampled_from(["", "only ", "correct ", "final ", "right "]),
    math=st.booleans(),
    end=st.sampled_from([".", "", ",  as claimed.", "!", ".\n\nWhy? Because 9 > 8."]),
)
def test_any_value_before_the_answer(
    value: int, verb: str, determiner: str, adjective: str, math: bool, end: str
) -> None:
    written = f"$x = {value}$" if math else str(value)
    text = f"We find 17 cases. Hence {written} {verb} {determiner} {adjective}answer{end}"
    found = extract_answer(text)
    assert found is not None
    assert (found.text, found.method) == (f"x = {value}" if math else str(value), "answer_is"), text
    assert grade(str(value), text, fallback=False).correct, text


def test_an_a_line_needs_a_blank_after_its_colon() -> None:
    # "A:B:C = 2:3:4" is a ratio, not GSM8K's answer line
    found = extract_answer("A:B:C = 2:3:4\nC gets 4 parts")
    assert found is None or found.method != "answer_is"


def test_a_heading_marker_is_a_line_of_its_own() -> None:
    # "answer" followed by a line break, with prose before it on its line, is no section
    found = extract_answer("we compare the answer\nwith 7 others and 9 more")
    assert found is None or found.method != "answer_is"


def test_a_conclusion_clause_counts_only_at_the_end() -> None:
    # "所以…为" in the middle of a solution, followed by more text, is a step, not the answer
    found = extract_answer("所以a的值为3，再代入得 b=5，因此 c 等于 8 了")
    assert found is None or found.text != "3"


# ---------------------------------------------------------------------------------------------
# precedence and certainty


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is 5.\n#### 6", "6"),
        ("#### 6\nThe answer is: 5", "5"),
        ("#### 8\nStep 10: The answer is: 8", "8"),
        ("The answer is 40 songs. #### 40", "40"),
        ("A: 3\n\n# Answer\n\n4", "4"),
        ("The answer is 3.\n【答案】4<eoa>", "4"),
        # a box is the answer wherever the other markers are
        ("\\boxed{7}\nThe answer is 8.", "7"),
    ],
)
def test_the_marker_nearest_the_end_wins(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == answer


def test_markers_that_agree_confirm_each_other() -> None:
    v = grade("7", "#### 8\nThe answer is: 8", fallback=False)
    assert v.correct is False and v.reason == "not equivalent"


def test_markers_that_disagree_make_a_mismatch_uncertain() -> None:
    v = grade("7", "#### 7\nThe answer is: 8", fallback=False)
    assert v.correct is False
    assert v.reason.startswith("undecided")
    v = grade("9", "#### 7\nThe answer is: 8", fallback=False)
    assert v.reason.startswith("undecided")
    # the winner still decides a match
    assert grade("8", "#### 7\nThe answer is: 8", fallback=False).correct is True


EARLIER = (
    "undecided: the last marked answer differs, but an earlier answer marker's answer matches (a general answer "
    "after a particular one, or a change of mind)"
)


@pytest.mark.parametrize(
    ("gold", "text"),
    [
        ("960", "So the final answer is $n=960$. In general, if there are $N>1$ boxes, the answer is $n=N^2-1$."),
        ("5", "So the answer is 5. Let me check again. Thus the answer is 6."),
        ("5", "The answer is 5.\n\nFinal Answer: 7"),
        ("5", "The answer is 5. The answer is 6. The answer is 7. The answer is 8."),
    ],
)
def test_an_earlier_answer_marker_that_matches_makes_a_mismatch_uncertain(gold: str, text: str) -> None:
    v = grade(gold, text, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", EARLIER), v


@pytest.mark.parametrize(
    ("gold", "text"),
    [
        ("4", "So the answer is 5. Thus the answer is 6."),  # no earlier answer matches
        ("5", "The answer is 5. " + "The answer is 6. " * 5),  # past the four markers read back
        ("5", "We have 5 apples. The answer is 6."),  # a number, no marker
    ],
)
def test_a_last_marker_stays_certain_without_an_earlier_match(gold: str, text: str) -> None:
    v = grade(gold, text, fallback=False)
    assert (v.correct, v.reason) == (False, "not equivalent"), v


@given(
    earlier=st.integers(-999, 999),
    last=st.integers(-999, 999),
    marker=st.sampled_from(["The answer is {}.", "So the final answer is ${}$.", "Answer: {}", "The answer is: {}"]),
    between=st.sampled_from([" ", "\n\n", " Wait, let me recheck the sum. "]),
)
def test_any_two_markers(earlier: int, last: int, marker: str, between: str) -> None:
    text = marker.format(earlier) + between + "Therefore, the answer is " + str(last) + "."
    assert grade(str(last), text, fallback=False).correct is True  # the last marker decides a match
    if earlier != last:
        v = grade(str(earlier), text, fallback=False)
        assert (v.correct, v.reason) == (False, EARLIER), (text, v)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("So the answer is 10</s>", "10"),
        ("The answer is 10<|endoftext|>", "10"),
        ("#### 10<|im_end|>", "10"),
        ("Answer: <b>5</b> apples", "5"),
        ("The answer is x<y.", "x<y"),  # a relation, not a tag
    ],
)
def test_markup_and_end_tokens_end_the_answer(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == answer, found


@given(
    answer=st.integers(-999, 999),
    token=st.sampled_from(["</s>", "<eos>", "<|endoftext|>", "<|im_end|>", "<|eot_id|>", "</answer>"]),
    marker=st.sampled_from(["The answer is {}", "#### {}", "Answer: {}", "Final Answer: {}"]),
)
def test_an_end_token_after_any_answer_is_not_read(answer: int, token: str, marker: str) -> None:
    found = extract_answer(marker.format(answer) + token)
    assert found is not None and found.text == str(answer), found


# ---------------------------------------------------------------------------------------------
# CJK reading rules


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("-3", "【解析】…<eoe>\n【答案】-3<eoa>"),
        ("12", "所以答案是12。"),
        ("-3", "所以a的值为-3"),
        ("-3", "故答案为：－３"),
        (r"\sqrt{3}", "【答案】根号3<eoa>"),
        (r"14\pi", "【答案】14π<eoa>"),
        ("1, 3", "【答案】1和3<eoa>"),
        ("1 和 3", "【答案】1和3<eoa>"),
        ("-3 .", "【答案】-3<eoa>"),
        ("分层抽样.", "【答案】分层抽样<eoa>"),
        (r"\infty", "【答案】无穷大<eoa>"),
        (r"-\infty", "所以极限为负无穷大。"),
        (r"+\infty", "故答案为：正无穷"),
    ],
)
def test_cjk_answers_grade_true(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True, v


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("根号3", r"\sqrt{3}"),
        ("2根号2", r"2\sqrt{2}"),
        ("1和3", "1,3"),
        ("2 或 5", "2,5"),
        ("甲和乙", "甲和乙"),
        ("无穷大", r"\infty"),
        ("负无穷大", r"-\infty"),
        ("正无穷", r"+\infty"),
        ("无穷多", "无穷多"),  # infinitely many: not infinity
        ("无穷小", "无穷小"),  # infinitesimal
    ],
)
def test_cjk_words_in_normalization(text: str, normalized: str) -> None:
    assert normalize_latex(text) == normalized


# ---------------------------------------------------------------------------------------------
# the anchors: a text without a marker's bytes skips that rule, and never changes its answer


@given(st.text(alphabet=st.sampled_from(list("0123456789 abcxyz.+-=\n")), max_size=80))
def test_texts_without_markers_read_as_their_last_number_or_span(text: str) -> None:
    found = extract_answer(text)
    assert found is None or found.method not in ("answer_is", "tagged")


@given(
    body=st.text(alphabet=st.sampled_from(list("0123456789 abcxyz.+-=\n")), max_size=60),
    answer=st.integers(min_value=-999, max_value=999),
    marker=st.sampled_from(
        [
            "A: {}",
            "#### {}",
            "答案是{}",
            "【答案】{}<eoa>",
            "【答案】: {} <eoa>",
            "【答案】：{}<eoa>",
            "# Answer\n\n{}",
            "The answer is {}.",
        ]
    ),
)
def test_a_last_marker_after_any_body_is_read(body: str, answer: int, marker: str) -> None:
    text = body + "\n" + marker.format(answer)
    found = extract_answer(text)
    assert found is not None and found.text == str(answer), text


# ---------------------------------------------------------------------------------------------
# the choice words (detail/markers.hpp's kChoiceWords): a letter that closes the text after
# "answer", "option", "choice" or the CJK verb 选 ("choose": a teacher's "故选：D.", "应选 B")


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("故 $A \\cap B=\\{0,1,2\\}$.\n\n故选: D.", "D"),
        ("所以 $z=1+i$. 故选 C.", "C"),
        ("显然极差变小.\n\n应选 B", "B"),
        ("故选：A。", "A"),
        ("答案选C", "C"),
        ("故选（B）", "B"),
        ("The correct option is (C).", "C"),
        ("So the correct choice is E", "E"),
    ],
)
def test_a_choice_word_announces_the_closing_letter(text: str, letter: str) -> None:
    found = extract_answer(text)
    assert found is not None and (found.text, found.method) == (letter, "choice"), text
    assert text[found.start : found.end] == letter


@pytest.mark.parametrize(
    "text",
    [
        "故选 D 和 E",  # the word before E is 和, not 选
        "所以选项 D 不正确",  # the text does not close with the letter
        "可以看出 D",  # no choice word and not alone on its line
    ],
)
def test_a_letter_without_its_choice_word_is_no_choice(text: str) -> None:
    found = extract_answer(text)
    assert found is None or found.method != "choice", text


@given(
    body=st.lists(st.sampled_from([*"0123456789 abcxyz.+-=\n,", "因为", "所以", "$x$"]), max_size=40).map("".join),
    verb=st.sampled_from(["故选", "应选", "选", "答案选", "所以选"]),
    colon=st.sampled_from(["", " ", ":", ": ", "：", " ："]),
    letter=st.sampled_from("ABCDE"),
    wrap=st.sampled_from(["{}", "({})", "（{}）"]),
    end=st.sampled_from(["", ".", "。", " ", ".\n"]),
)
def test_any_chinese_choice_conclusion_is_read(
    body: str, verb: str, colon: str, letter: str, wrap: str, end: str
) -> None:
    text = body + "\n\n" + verb + colon + wrap.format(letter) + end
    found = extract_answer(text)
    assert found is not None and found.text == letter, text
    assert grade(letter, text).correct
    other = "E" if letter != "E" else "A"
    verdict = grade(other, text)
    assert not verdict.correct and verdict.decided_by == "fast", text


@pytest.mark.parametrize(("text", "answer"), [("5个", "5"), ("共有12种", "12"), ("三棱锥", "三棱锥")])
def test_a_bare_answer_with_a_chinese_word_is_text(text: str, answer: str) -> None:
    # a CJK word makes a short answer text: with a digit it is no bare answer, and the number is
    # read as the last number; words alone stay one bare text answer
    found = extract_answer(text)
    assert found is not None and found.text == answer, text
    assert found.method == ("bare" if answer == text else "last_number")
