"""Every fast twin gives what its general form gives, on one corpus.

Speed work left several pairs of code paths that must agree: a fast form for the common case
and the general form it stands in for. This file is the one harness for them: :data:`TWINS` is
a table whose rows name a fast form, its general form and the inputs they take, and every row
runs on the same corpus —

* the packaged demo set (800 real responses, ``rapidgrade/data/qwen25_math_cot_800.jsonl``),
* the pairs of ``tests/data`` (math-verify's cases, the deliberate differences, the physics dev
  set) and the adversarial corpus (``tests/data/adversarial``: deep nesting, huge numbers,
  1 MiB answers, pathological repeats),
* a few edge texts (empty, non-ASCII, no answer),

and, for the rows where inputs are cheap to make, on inputs Hypothesis generates. The forms:

* the core's JSON-lines reader (``_core.jsonl_pick``, ``jsonl_pick_block``) and writer
  (``jsonl_splice``) against orjson, the scoring job's reader and writer of record;
* columns against rows: the batch entry points against one call per item, and the scoring job's
  columnar path (``MathRun.grade_block`` on blocks read with the run's pick) against its row
  path (``MathRun.grade`` on whole rows), and against the same job reading every line with orjson;
* all-str input (read by the core with no Python step per pair) against mixed input (non-str
  items among the pairs: the pairs are sorted into usable ones and error verdicts first);
* the forms of the whole-text loops the core compiles per instruction set (AVX2, SSE2, and a
  portable form where the build has one), each run in its own process because the choice is made
  once per process (:data:`LOOP_FORMS`).

"Agree" means equal outputs, compared whole (every verdict field, every byte of a line).
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rapidgrade
from rapidgrade import _core
from rapidgrade._io import Pick, _may_hold_huge_integer, iter_blocks
from rapidgrade.score import score_file
from rapidgrade.tasks import get_task
from tests.datasets import DATA_DIR, DEMO_CORPUS, load_data, load_demo_corpus

ROOT = Path(__file__).resolve().parents[2]

# -- the corpus ---------------------------------------------------------------------------------

#: Texts that sit at the edges of the batch machinery: empty, non-ASCII (offsets in code points
#: differ from bytes), no answer at all.
EDGE_PAIRS = [("\\frac12", "é😀 \\boxed{½}"), ("1", ""), ("x", "no answer"), ("2", "答案 \\boxed{2}\n")]


def _adversarial_pairs() -> list[tuple[str, str]]:
    rows = json.loads((DATA_DIR / "adversarial" / "corpus.json").read_text(encoding="utf-8"))
    return [(r["gold"], "".join(text * repeat for text, repeat in r["parts"])) for r in rows]


@cache
def corpus_pairs() -> tuple[tuple[str, str], ...]:
    """Every (gold, response) pair of the corpus, in a fixed order."""
    pairs = [(r["gold"], r["response"]) for r in load_demo_corpus()]
    pairs += [(c["gold"], c["pred"]) for c in load_data("math_verify_0.9.0_cases.jsonl")]
    pairs += [(c["gold"], c["response"]) for c in load_data("deliberate_differences.jsonl")]
    pairs += [(c["gold"], c["response"]) for c in load_data("physics/dev.jsonl")]
    pairs += _adversarial_pairs()
    pairs += EDGE_PAIRS
    return tuple((str(g), str(r)) for g, r in pairs)


#: The JSON-lines files of the corpus, with the keys of their gold and response.
CORPUS_FILES = [
    (DEMO_CORPUS, "gold", "response"),
    (DATA_DIR / "math_verify_0.9.0_cases.jsonl", "gold", "pred"),
    (DATA_DIR / "deliberate_differences.jsonl", "gold", "response"),
    (DATA_DIR / "physics" / "dev.jsonl", "gold", "response"),
]

#: Rows the scoring job must treat apart: non-str golds, a list of responses, a reserved key,
#: a missing gold, a line that is not JSON, an empty line.
HOSTILE_ROWS = [
    {"id": "a", "gold": "1", "response": "\\boxed{1}", "level": "L1"},
    {"id": "b", "gold": "2", "response": "so it is $\\frac{4}{2}$", "level": 2, "type": "Algebra"},
    {"id": "c", "gold": 3, "response": "\\boxed{3}"},
    {"id": "d", "gold": "4", "response": ["\\boxed{4}", "\\boxed{5}"], "subject": "x"},
    {"id": "e", "gold": "5", "response": "答案 \\boxed{6}\n", "level": 1.5},
    {"id": "f", "gold": "6", "response": "\\boxed{6}", "correct": "theirs"},
    {"id": "g", "gold": ["7", "7.0"], "response": "\\boxed{7.0}"},
    {"id": "h", "response": "\\boxed{1}"},
]


def hostile_file(folder: Path) -> Path:
    """The demo set's first 40 rows with the hostile rows, a broken line and an empty one mixed in."""
    lines = [json.dumps(r) for r in load_demo_corpus()[:40]]
    for k, row in enumerate(HOSTILE_ROWS):
        lines.insert(3 * k, json.dumps(row | {"n": k}, ensure_ascii=bool(k % 2)))
    lines.insert(5, "{broken")
    lines.insert(9, "")
    path = folder / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@cache
def corpus_lines() -> tuple[bytes, ...]:
    """JSON lines: each corpus file's lines as written, then each row written again with and
    without ASCII escapes, compactly, and with CRLF ends."""
    lines: list[bytes] = []
    for path, _, _ in CORPUS_FILES:
        lines += [line for line in path.read_bytes().splitlines(keepends=True) if line.strip()]
    rows = [json.loads(line) for line in lines]
    for i, row in enumerate(rows):
        if i % 2:
            lines.append(json.dumps(row, ensure_ascii=True).encode() + b"\n")
        else:
            lines.append(json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode() + b"\r\n")
    return tuple(lines)


# -- the twins ------------------------------------------------------------------------------------

KEYS = ["gold", "response", "pred", "level"]
RESERVED = ["correct", "_source"]


def _orjson_reading(line: bytes) -> tuple[bool, list[Any]]:
    """What the scoring job's rules make of *line* read by orjson: (whether a pick may stand in
    for the whole row, the picked keys' values)."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False, []
    if type(value) is not dict or _may_hold_huge_integer(value) or b"\r" in line.rstrip(b"\r\n"):
        return False, []
    if any(key in value for key in RESERVED) or any(isinstance(value.get(k), (dict, list)) for k in KEYS):
        return False, []
    return True, [value.get(key) for key in KEYS]


def _typed(value: Any) -> Any:
    """A value with its exact type, NaN made comparable (so 1 != 1.0 != True, NaN == NaN)."""
    if isinstance(value, float) and value != value:
        return ("float", "nan")
    return (type(value).__name__, value)


def _reading(line: bytes) -> tuple[Any, ...]:
    """What the job makes of *line* with orjson: the picked keys' values (typed), or
    ``("apart",)`` for a line read whole and kept apart (not an object, a reserved key ...)."""
    ok, values = _orjson_reading(line)
    return ("row", [_typed(v) for v in values]) if ok else ("apart",)


def pick_fast(lines: Sequence[bytes]) -> list[Any]:
    """Each line as the job reads it with the core's picker: the picked values where the core
    picks the line, else orjson's reading (the core may leave a line to orjson; it must never
    pick one orjson would read otherwise)."""
    status, columns = _core.jsonl_pick(list(lines), KEYS, RESERVED)
    return [
        ("row", [_typed(column[i]) for column in columns]) if status[i] else _reading(line)
        for i, line in enumerate(lines)
    ]


def pick_general(lines: Sequence[bytes]) -> list[Any]:
    """Each line as orjson reads it."""
    return [_reading(line) for line in lines]


def pick_block_fast(lines: Sequence[bytes]) -> Any:
    """One buffer cut into lines and picked by the core in one call."""
    data = b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines)
    status, columns, cut = _core.jsonl_pick_block(data + b"tail", KEYS, RESERVED, stop=len(data))
    return bytes(status), [[_typed(v) for v in c] for c in columns], cut


def pick_block_general(lines: Sequence[bytes]) -> Any:
    """The same buffer cut by ``readlines`` and picked line by line."""
    cut = io.BytesIO(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines)).readlines()
    status, columns = _core.jsonl_pick(cut, KEYS, RESERVED)
    return bytes(status), [[_typed(v) for v in c] for c in columns], cut


_HEAD, _TAIL = b',"correct":true,"extracted":', b',"decided_by":"fast","_source":"x"}'


def _splice_inputs(lines: Sequence[bytes]) -> tuple[list[bytes], list[str | None]]:
    texts = [line.rstrip(b"\r\n") for line in lines if _orjson_reading(line)[0]]
    strings: list[str | None] = []
    for k, text in enumerate(texts):
        value = orjson.loads(text).get("response") or orjson.loads(text).get("pred")
        strings.append(None if k % 7 == 0 or not isinstance(value, str) else value[-300:])
    return texts, strings


def splice_fast(lines: Sequence[bytes]) -> list[bytes]:
    """Result fields appended to each row's text by the core."""
    texts, strings = _splice_inputs(lines)
    return list(_core.jsonl_splice(texts, [_HEAD] * len(texts), strings, [_TAIL] * len(texts)))


def splice_general(lines: Sequence[bytes]) -> list[bytes]:
    """The same lines as orjson writes the appended string."""
    texts, strings = _splice_inputs(lines)
    return [text.strip()[:-1] + _HEAD + orjson.dumps(s) + _TAIL for text, s in zip(texts, strings)]


def _grade_rows(pairs: Sequence[tuple[str, str]], threads: int) -> list[Any]:
    results = rapidgrade.grade_many([g for g, _ in pairs], [r for _, r in pairs], fallback=False, threads=threads)
    return list(zip(results, results.normalized))


def grade_columns(pairs: Sequence[tuple[str, str]], threads: int = 3) -> list[Any]:
    """``grade_many``: the core's columns, on several threads."""
    return _grade_rows(pairs, threads)


def grade_one_by_one(pairs: Sequence[tuple[str, str]], threads: int = 3) -> list[Any]:
    """``grade`` per pair, with the prediction as compared (``normalized``) of the pair alone."""
    out = []
    for g, r in pairs:
        single = rapidgrade.grade_many([g], [r], fallback=False, threads=1)
        out.append((rapidgrade.grade(g, r, fallback=False), single.normalized[0]))
    return out


def _responses(pairs: Sequence[tuple[str, str]]) -> list[str]:
    return [r for _, r in pairs]


def scans_columns(pairs: Sequence[tuple[str, str]], threads: int = 3) -> list[Any]:
    """The scanning and normalizing batch entry points."""
    texts, golds = _responses(pairs), [g for g, _ in pairs]
    return [
        rapidgrade.extract_many(texts, threads=threads),
        rapidgrade.find_boxed_many(texts, threads=threads),
        rapidgrade.normalize_many(golds, threads=threads),
        rapidgrade.normalize_answer_many(golds, threads=threads),
    ]


def scans_one_by_one(pairs: Sequence[tuple[str, str]], threads: int = 3) -> list[Any]:
    """The same, one call per text."""
    texts, golds = _responses(pairs), [g for g, _ in pairs]
    return [
        [rapidgrade.extract_answer(t) for t in texts],
        [rapidgrade.find_boxed(t) for t in texts],
        [rapidgrade.normalize_latex(g) for g in golds],
        [rapidgrade.normalize_answer(g) for g in golds],
    ]


#: What is put among the pairs to make the input mixed: inputs ``grade_many`` refuses per pair.
_NOT_STR: list[tuple[Any, Any]] = [(None, "\\boxed{1}"), ("1", b"\\boxed{1}"), (["1"], "1"), ("2", 2.0)]


def all_str(pairs: Sequence[tuple[str, str]]) -> list[Any]:
    """``grade_many`` on str pairs only (the core reads them with no Python step per pair)."""
    return _grade_rows(pairs, 2)


def mixed(pairs: Sequence[tuple[str, str]]) -> list[Any]:
    """``grade_many`` with a non-str item after every 50th pair; the str pairs' verdicts."""
    golds: list[Any] = []
    responses: list[Any] = []
    keep: list[int] = []
    for k, (g, r) in enumerate(pairs):
        if k % 50 == 0:
            bad_gold, bad_response = _NOT_STR[(k // 50) % len(_NOT_STR)]
            golds.append(bad_gold)
            responses.append(bad_response)
        keep.append(len(golds))
        golds.append(g)
        responses.append(r)
    results = rapidgrade.grade_many(golds, responses, fallback=False, threads=2)
    assert sum(v.decided_by == "error" for v in results) >= len(golds) - len(pairs) > 0
    normalized = results.normalized
    return [(results[i], normalized[i]) for i in keep]


@dataclass(frozen=True)
class Twin:
    """A fast form and its general form over one kind of input (``pairs`` or ``lines``)."""

    name: str
    fast: Callable[[Sequence[Any]], Any]
    general: Callable[[Sequence[Any]], Any]
    inputs: str


TWINS = [
    Twin("jsonl_pick vs orjson", pick_fast, pick_general, "lines"),
    Twin("jsonl_pick_block vs readlines", pick_block_fast, pick_block_general, "lines"),
    Twin("jsonl_splice vs orjson.dumps", splice_fast, splice_general, "lines"),
    Twin("grade_many vs grade (columns vs rows)", grade_columns, grade_one_by_one, "pairs"),
    Twin("*_many vs one call each (columns vs rows)", scans_columns, scans_one_by_one, "pairs"),
    Twin("all-str vs mixed input", all_str, mixed, "pairs"),
]


def corpus_of(kind: str) -> Sequence[Any]:
    return corpus_pairs() if kind == "pairs" else corpus_lines()


def _first_difference(fast: Any, general: Any) -> str:
    if isinstance(fast, list) and isinstance(general, list) and len(fast) == len(general):
        for k, (a, b) in enumerate(zip(fast, general)):
            if a != b:
                return f"item {k}: fast {a!r:.300} != general {b!r:.300}"
    return f"fast {fast!r:.300} != general {general!r:.300}"


@pytest.mark.parametrize("twin", TWINS, ids=[t.name for t in TWINS])
def test_twins_agree_on_the_corpus(twin: Twin) -> None:
    inputs = corpus_of(twin.inputs)
    assert len(inputs) > 1_500
    fast, general = twin.fast(inputs), twin.general(inputs)
    assert fast == general, _first_difference(fast, general)


def test_the_corpus_exercises_the_fast_forms() -> None:
    # Agreement proves little if the fast form stood aside: the core picks every corpus line
    # (plain objects), and grade_many decides most pairs itself.
    status, _ = _core.jsonl_pick(list(corpus_lines()), KEYS, RESERVED)
    assert all(status)
    results = rapidgrade.grade_many(*zip(*corpus_pairs()), fallback=False)  # type: ignore[call-overload]
    assert sum(v.decided_by == "fast" for v in results) > 0.8 * len(results)
    assert 0.3 * len(results) < int(results.correct.sum()) < len(results)


# Hypothesis: rows of any JSON, and texts built from the pieces the scanners look for.
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)
json_rows = st.dictionaries(st.sampled_from([*KEYS, *RESERVED, "id", "x", ""]) | st.text(max_size=4), json_values)
line_ends = st.sampled_from([b"\n", b"\r\n", b"", b" \n"])
pieces = st.sampled_from(
    ["\\boxed{", "}", "{", "$", "$$", "\\(", "\\)", "\\[", "\\]", "\\frac{1}{2}", "x", "2", " ", "\n",
     "the answer is ", "####", "</think>", "é", "😀", "\\\\", "0.5", "=", "\\text{m}"]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join) | st.text(max_size=40)
generated_pairs = st.lists(st.tuples(st.sampled_from(["1", "\\frac{1}{2}", "x", "2", "0.5", "(1,2)"]) | texts, texts),
                           min_size=1, max_size=60)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(json_rows, min_size=1, max_size=8), line_ends)
def test_line_twins_agree_on_generated_rows(objects: list[dict[str, Any]], end: bytes) -> None:
    lines = [json.dumps(o, ensure_ascii=bool(i % 2)).encode() + end for i, o in enumerate(objects)]
    for twin in TWINS:
        if twin.inputs == "lines":
            assert twin.fast(lines) == twin.general(lines), twin.name
    status, _ = _core.jsonl_pick(lines, KEYS, RESERVED)
    for i, o in enumerate(objects):
        # the picker stands aside only where it must: a plain object (no reserved key, no
        # container under a requested key, no escaped key, no huge number) is picked
        plain_keys = all("\\" not in json.dumps(k, ensure_ascii=bool(i % 2)) for k in o)
        if _orjson_reading(lines[i])[0] and plain_keys and not re.search(rb"\d{19}|e-3\d\d", lines[i]):
            assert status[i] == 1, lines[i]
        assert status[i] == 0 or not (set(o) & set(RESERVED))


@settings(max_examples=60, deadline=None)
@given(generated_pairs)
def test_pair_twins_agree_on_generated_texts(pairs: list[tuple[str, str]]) -> None:
    pairs = [(g.encode("utf-8", "replace").decode(), r.encode("utf-8", "replace").decode()) for g, r in pairs]
    for twin in TWINS:
        if twin.inputs == "pairs":
            assert twin.fast(pairs) == twin.general(pairs), twin.name


# -- the scoring job: columns vs rows, core reader vs orjson ---------------------------------------


def _math_run(response_key: str) -> Any:
    task = get_task("math")
    return task.start(task.configure(fallback=False, threads=1, response_key=response_key))


def job_columns(path: Path, response_key: str) -> tuple[list[Any], dict[str, Any], list[Any]]:
    """The job's hot path: blocks read with the run's pick, graded as columns (grade_block) into
    lines: each line's fields in order."""
    run = _math_run(response_key)
    lines: list[bytes] = []
    verdicts: list[Any] = []
    for block in iter_blocks(path, 16, run.pick):
        block_lines = list(run.grade_block(block))
        lines += block_lines
        verdicts += run.verdicts if len(run.verdicts) == len(block_lines) else [None] * len(block_lines)
    return [list(orjson.loads(line).items()) for line in lines], _metrics(run), verdicts


def job_rows(path: Path, response_key: str) -> tuple[list[Any], dict[str, Any], list[Any]]:
    """The row path: whole rows read by orjson, graded by ``grade`` into records (with the
    ``_source`` the job adds): each record's fields in order."""
    run = _math_run(response_key)
    records: list[Any] = []
    verdicts: list[Any] = []
    for block in iter_blocks(path, 16, None):
        rows = block.rows()
        for row, record in zip(rows, run.grade(rows)):
            records.append(list((record | {"_source": row.source}).items()))
            single = row.data is not None and isinstance(row.data.get(response_key), str) and "error" not in record
            verdicts.append((record["method"], record["decided_by"], record["correct"]) if single else None)
    return records, _metrics(run), verdicts


def _metrics(run: Any) -> dict[str, Any]:
    return {k: v for k, v in run.finish(1.0).to_dict().items() if k not in ("elapsed_s", "pairs_per_s")}


@pytest.fixture(scope="module")
def job_inputs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, str]]:
    hostile = hostile_file(tmp_path_factory.mktemp("twins"))
    return [(path, response_key) for path, _, response_key in CORPUS_FILES] + [(hostile, "response")]


def test_job_columns_and_rows_write_the_same(job_inputs: list[tuple[Path, str]]) -> None:
    for path, response_key in job_inputs:
        fast_lines, fast_metrics, fast_verdicts = job_columns(path, response_key)
        row_lines, row_metrics, row_verdicts = job_rows(path, response_key)
        assert len(fast_lines) == len(row_lines) > 7, path
        assert fast_lines == row_lines, (path, _first_difference(fast_lines, row_lines))
        assert fast_metrics == row_metrics, path
        # the drill-down's verdicts, where the columnar path gives them, are the records' own
        assert all(f is None or f == r for f, r in zip(fast_verdicts, row_verdicts)), path
        if path == DEMO_CORPUS:  # the common case takes the columnar path (other files have
            # rows with reserved keys, such as "reason", which take the row path)
            assert all(f is not None for f in fast_verdicts)


@pytest.mark.parametrize("chunk_size", [3, 4096])
def test_job_writes_the_same_with_the_core_reader_and_with_orjson(
    job_inputs: list[tuple[Path, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_size: int
) -> None:
    # The whole scoring job (evaluated.jsonl, metrics, report) with the core's picker, then with
    # a picker that picks nothing, so that orjson reads every line.
    def nothing_picked(lines: list[bytes], keys: Any, reserved: Any) -> tuple[bytes, list[list[Any]]]:
        return bytes(len(lines)), [[None] * len(lines) for _ in keys]

    def nothing_picked_in_block(
        data: bytes, keys: Any, reserved: Any, *, stop: int
    ) -> tuple[bytes, list[list[Any]], list[bytes]]:
        lines = data[:stop].splitlines(keepends=True)
        return (*nothing_picked(lines, keys, reserved), lines)

    speed = re.compile(r'<div class="v">[\d,.]+</div>\s*<div class="k">pairs/s</div>|[\d,.]+ pairs/s')
    for k, (path, response_key) in enumerate(job_inputs[2:]):  # the small files and the hostile rows
        options: dict[str, Any] = {"fallback": False, "threads": 1, "chunk_size": chunk_size}
        options["response_key"] = response_key
        fast = score_file(path, out=tmp_path / f"fast{k}", **options)
        with monkeypatch.context() as m:
            m.setattr(_core, "jsonl_pick", nothing_picked)
            m.setattr(_core, "jsonl_pick_block", nothing_picked_in_block)
            slow = score_file(path, out=tmp_path / f"slow{k}", **options)
        outputs = [(tmp_path / f"{d}{k}" / "evaluated.jsonl").read_bytes() for d in ("fast", "slow")]
        assert outputs[0] == outputs[1], path
        strip = {"elapsed_s", "pairs_per_s"}
        assert {a: b for a, b in fast.to_dict().items() if a not in strip} == {
            a: b for a, b in slow.to_dict().items() if a not in strip
        }
        pages = [
            speed.sub("", (tmp_path / f"{d}{k}" / "report.html").read_text(encoding="utf-8")) for d in ("fast", "slow")
        ]
        assert pages[0] == pages[1] and "Items (" in pages[0]


# -- the forms of the vector loops, one process each ----------------------------------------------

#: The forms of the core's whole-text loops: name -> the environment that selects it. The child
#: reports the form it ran (``_core.vector_loops()``); a form this build or CPU lacks is skipped.
#: ``RAPIDGRADE_NO_AVX2`` keeps the SSE2 loops. (The eight-byte ``Swar`` form of detail/simd.hpp
#: is what builds without SSE2 run; an x86-64 build cannot select it.)
LOOP_FORMS: dict[str, dict[str, str]] = {
    "avx2": {},
    "sse2": {"RAPIDGRADE_NO_AVX2": "1"},
}

# The child: reads the corpus (plus, for the loops' sake, the responses without their boxes,
# the same after 5 KB of other text, and every delimiter, box and anchor at each offset around
# the 16-, 32- and 64-byte steps of the loops) and prints what it read as JSON.
_CHILD = r"""
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import rapidgrade
from rapidgrade import _core
from benchmarks.bench_hard import unbox
from tests.unit.test_twins import corpus_lines, corpus_pairs, KEYS, RESERVED
from tests.datasets import load_shared

if sys.argv[2] == "unmarked":
    pairs = [(r["gold"], r["response"]) for r in load_shared("unmarked_dev.jsonl")]
else:
    pairs = list(corpus_pairs())
    unboxed = [(g, unbox(t)) for g, t in pairs]
    before = " ".join(t for _, t in unboxed[:800][-60:])[:5_000]
    pairs += unboxed + [(g, before + "\n\n" + t) for g, t in unboxed[:800]]
    pieces = ["$x$", "$$y$$", "\\(z\\)", "\\[w\\]", "\\$", "\\\\(", "\\boxed{7}", "\\fbox{8}",
              "the answer is 9", "</answer>", "#### 3", "```output\n4\n```", "\\begin{equation}q\\end{equation}"]
    for piece in pieces:
        for offset in range(0, 100):
            for tail in (0, 1, 31, 32, 33, 70):
                pairs.append(("7", "a " * (offset // 2) + "b" * (offset % 2) + piece + " c" * tail))
golds, texts = [g for g, _ in pairs], [t for _, t in pairs]
def digest(spans):  # where a span is and what kind; a 1 MiB response's many spans by digest
    spans = [(s.start, s.end, s.outer_start, s.outer_end, s.kind) for s in spans]
    return spans if len(spans) < 20 else hashlib.sha256(repr(spans).encode()).hexdigest()
result = rapidgrade.grade_many(golds, texts, fallback=False)
status, columns = _core.jsonl_pick(list(corpus_lines()), KEYS, RESERVED)
print(json.dumps({
    "loops": _core.vector_loops(),
    "verdicts": [[v.correct, v.decided_by, v.gold, v.extracted, v.method, v.reason] for v in result],
    "normalized": result.normalized,
    "spans": [digest(rapidgrade.find_math_spans(t)) for t in texts],
    "boxed": [digest(b) for b in rapidgrade.find_boxed_many(texts)],
    "picked": list(status),
    "picked_values": [list(values) for values in zip(*columns)],
}, default=repr))
"""


def _limit_memory() -> None:
    """A child that reads too much fails alone instead of starving the machine (4 GB)."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def _run_form(form: str, inputs: str = "repository") -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "RAPIDGRADE_NO_AVX2"}
    env.update(LOOP_FORMS[form])
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ROOT), inputs],
        env=env, capture_output=True, text=True, check=True, preexec_fn=_limit_memory,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def _cpu_has_avx2() -> bool:
    try:
        return " avx2" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.fixture(scope="module")
def loop_forms() -> dict[str, dict[str, Any]]:
    """What each form read, by the form the child reported running (forms the build or CPU
    lacks fall back to another and are left out)."""
    ran: dict[str, dict[str, Any]] = {}
    for form in LOOP_FORMS:
        result = _run_form(form)
        ran.setdefault(result["loops"], result)
    return ran


def test_each_switch_selects_its_form(loop_forms: dict[str, dict[str, Any]]) -> None:
    assert "sse2" in loop_forms  # selectable on any x86-64 machine
    # where the machine has AVX2 (x86-64 Linux), the default runs the AVX2 loops: both forms ran
    if sys.platform == "linux" and os.uname().machine == "x86_64" and _cpu_has_avx2():
        assert "avx2" in loop_forms


@pytest.mark.parametrize("form", [f for f in LOOP_FORMS if f != "sse2"])
@pytest.mark.parametrize("column", ["verdicts", "normalized", "spans", "boxed", "picked", "picked_values"])
def test_every_form_reads_as_the_sse2_form(loop_forms: dict[str, dict[str, Any]], form: str, column: str) -> None:
    if form not in loop_forms:
        pytest.skip(f"this build or CPU has no {form} form of the loops")
    reference, other = loop_forms["sse2"][column], loop_forms[form][column]
    assert len(reference) == len(other) > 2_000
    differing = [k for k, (a, b) in enumerate(zip(reference, other)) if a != b]
    assert differing == []


@pytest.mark.shared
def test_every_form_reads_the_unmarked_set_alike() -> None:
    ran = {f: _run_form(f, "unmarked") for f in LOOP_FORMS}
    forms = {r["loops"]: r for r in ran.values()}
    assert "sse2" in forms
    assert len(forms) >= 2 or not _cpu_has_avx2()
    for column in ("verdicts", "normalized", "spans", "boxed"):
        values = [r[column] for r in forms.values()]
        assert len(values[0]) > 2_000, column
        assert all(v == values[0] for v in values), column


def test_hostile_rows_take_the_general_paths(tmp_path: Path) -> None:
    # the job's inputs include rows the fast forms must hand over: the columnar path leaves the
    # block to the row path, and the picker leaves those lines to orjson
    path = hostile_file(tmp_path)
    run = _math_run("response")
    assert isinstance(run.pick, Pick)
    blocks = list(iter_blocks(path, 4096, run.pick))
    assert len(blocks) == 1 and not all(blocks[0].picked)
    assert run._grade_columns(blocks[0]) is None
