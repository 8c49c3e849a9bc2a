"""find_boxed / find_math_spans: nesting, escapes, unbalanced input, offsets, huge inputs."""

from __future__ import annotations

import time
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rapidgrade
from rapidgrade import Span, find_boxed, find_boxed_many, find_math_spans


def contents(text: str) -> list[str]:
    return [s.content for s in find_boxed(text)]


def test_simple_and_fbox() -> None:
    text = r"so \boxed{42} and \fbox{x}"
    spans = find_boxed(text)
    assert [s.content for s in spans] == ["42", "x"]
    assert [s.kind for s in spans] == ["boxed", "fbox"]
    assert text[spans[0].outer_start : spans[0].outer_end] == r"\boxed{42}"


def test_nested_braces_and_nested_boxes() -> None:
    assert contents(r"\boxed{\frac{1}{\sqrt{2}}}") == [r"\frac{1}{\sqrt{2}}"]
    assert contents(r"\boxed{\boxed{2}}") == [r"\boxed{2}", "2"]


def test_escaped_braces_do_not_count() -> None:
    assert contents(r"\boxed{\{1, 2\}}") == [r"\{1, 2\}"]
    assert contents(r"\boxed{a\}") == []  # the only closing brace is escaped
    # "\\" is a line break, so the brace after it is real
    assert contents(r"\boxed{a\\}") == ["a\\\\"]


def test_unbalanced_input() -> None:
    assert find_boxed(r"\boxed{unclosed") == []
    assert contents(r"\boxed{open \boxed{3}") == ["3"]
    assert contents(r"}} \boxed{1} }{") == ["1"]
    assert find_boxed("\\") == []
    assert find_boxed("") == []


def test_boxed_without_braces() -> None:
    assert contents(r"the answer is \boxed 5.") == ["5"]
    assert contents(r"$\boxed -3$") == ["-3"]
    assert contents(r"\boxedx{1}") == []  # another command


def test_code_point_offsets() -> None:
    text = "답은 😀 é \\boxed{√2} 끝"
    (span,) = find_boxed(text)
    assert span.content == "√2"
    assert text[span.start : span.end] == "√2"
    assert text[span.outer_start : span.outer_end] == "\\boxed{√2}"


def test_bytes_offsets_are_bytes() -> None:
    data = "é\\boxed{1}".encode()
    (span,) = find_boxed(data)
    assert span.content == b"1"
    assert data[span.start : span.end] == b"1"


def test_lone_surrogates_are_kept() -> None:
    text = "\ud800\\boxed{\udfffx}"
    (span,) = find_boxed(text)
    assert span.content == "\udfffx"
    assert text[span.start : span.end] == span.content


def test_math_spans() -> None:
    text = r"cost \$5, so $x=1$ and \[y\] then $$z$$ and \(w\)"
    spans = find_math_spans(text)
    assert [(s.kind, s.content) for s in spans] == [("$", "x=1"), ("\\[", "y"), ("$$", "z"), ("\\(", "w")]
    for s in spans:
        assert text[s.start : s.end] == s.content


def test_math_spans_unclosed_opener_is_text() -> None:
    assert [s.content for s in find_math_spans(r"$5 and \(x\)")] == ["x"]
    assert find_math_spans(r"\[ never closed") == []


def test_type_errors() -> None:
    with pytest.raises(TypeError, match="find_boxed: text must be str or bytes"):
        find_boxed(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        find_boxed_many(["a", None])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="threads"):
        find_boxed_many(["a"], threads=0)


def test_many_matches_single() -> None:
    texts = [rf"step {i} \boxed{{{i}}}" for i in range(5000)] + ["", "no box"]
    assert find_boxed_many(texts, threads=2) == [find_boxed(t) for t in texts]
    assert isinstance(find_boxed_many(texts[:1])[0][0], Span)


def test_deep_nesting_is_linear_and_safe() -> None:
    depth = 100_000
    text = "\\boxed{" + "{" * depth + "x" + "}" * depth + "}"
    (span,) = find_boxed(text)
    assert len(span.content) == 2 * depth + 1
    boxes = 2000
    spans = find_boxed("\\boxed{" * boxes + "}" * boxes)
    assert len(spans) == boxes
    assert [s.outer_start for s in spans] == sorted(s.outer_start for s in spans)


def _nested_boxes(depth: int) -> str:
    return "\\boxed{" * depth + "x" + "}" * depth


@pytest.mark.parametrize("many", [False, True])
def test_nested_boxes_cost_linear_time_and_memory(many: bool) -> None:
    # issue 14: 240 KB nested 30k deep took 14.7 s and 3.4 GB when every span copied its content
    text = _nested_boxes(30_000)
    assert 230_000 < len(text) < 250_000
    tracemalloc.start()
    t0 = time.perf_counter()
    spans = find_boxed_many([text], threads=1)[0] if many else find_boxed(text)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 1.0
    assert peak < 16_000_000  # about 200 bytes per span, nothing proportional to depth * size
    assert len(spans) == 30_000
    assert spans[0].outer_start == 0 and spans[0].outer_end == len(text)
    assert spans[-1].content == "x"
    assert spans[0].content == text[7:-1] and spans[1].content == text[14:-2]
    for s in (spans[0], spans[12_345], spans[-1]):
        assert s.text is text
        assert s.content == text[s.start : s.end]


def test_hundred_thousand_nested_boxes() -> None:
    text = _nested_boxes(100_000)
    t0 = time.perf_counter()
    spans = find_boxed(text)
    assert time.perf_counter() - t0 < 2.0
    assert len(spans) == 100_000
    assert spans[-1].content == "x"


def test_span_content_is_lazy_and_repr_is_short() -> None:
    text = "\\boxed{" + "y" * 1000 + "}"
    (span,) = find_boxed(text)
    assert span == Span(7, 1007, 0, 1008, "boxed", text)
    assert span.content == "y" * 1000
    assert len(repr(span)) < 200
    assert repr(span).startswith("Span(content='yyy")
    (bspan,) = find_boxed(b"\\boxed{ab}")
    assert bspan.content == b"ab"
    assert repr(bspan) == "Span(content=b'ab', start=7, end=9, outer_start=0, outer_end=10, kind='boxed')"


def test_version() -> None:
    assert rapidgrade.__version__.count(".") == 2


balanced_bodies = st.recursive(
    st.text(alphabet="ab 1+é가", max_size=5),
    lambda inner: st.builds(lambda a, b: a + "{" + b + "}", inner, inner),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(balanced_bodies, st.text(alphabet="xy. ", max_size=10))
def test_boxed_round_trip(body: str, prefix: str) -> None:
    text = prefix + "\\boxed{" + body + "}" + prefix
    spans = find_boxed(text)
    assert spans[0].content == body
    for s in spans:
        assert text[s.start : s.end] == s.content


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="\\{}$()[]ab xboed😀", max_size=200))
def test_any_text_gives_consistent_spans(text: str) -> None:
    for s in find_boxed(text) + find_math_spans(text):
        assert text[s.start : s.end] == s.content
        assert 0 <= s.outer_start <= s.start <= s.end <= s.outer_end <= len(text)


def test_huge_input_is_linear() -> None:
    reasoning = "Let x = {2} so \\alpha is \\{x\\} and 5 > 3. " * 1_200_000  # about 50 MB
    text = reasoning + "$\\boxed{42}$"
    assert len(text) > 50_000_000
    assert [s.content for s in find_boxed(text)] == ["42"]
    assert [s.content for s in find_math_spans(text)] == ["\\boxed{42}"]
