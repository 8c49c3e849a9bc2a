"""The core's reader and writer of JSON lines (``_core.jsonl_pick``/``jsonl_pick_block``,
``_core.jsonl_splice``/``jsonl_splice_joined``),
checked against orjson, the scoring job's reader and writer of record: a line the core picks
gives exactly the values orjson reads, and a line orjson or the job's reader would treat apart
is never picked; a spliced line is the bytes orjson writes. (The corpus-wide comparisons, with
generated rows and the scoring job end to end, are in test_twins.py.)"""

from __future__ import annotations

import io
import math
import pickle
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import _core
from rapidgrade._io import JoinedLines, _may_hold_huge_integer, output_bytes, output_size

KEYS = ["gold", "response", "level"]
RESERVED = ["correct", "_source"]


def expected(line: bytes) -> tuple[bool, list[Any]]:
    """What the core must answer for *line*: (picked, values), from orjson's reading and the
    job's rules for rows it keeps as text."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False, []
    if type(value) is not dict or _may_hold_huge_integer(value):
        return False, []
    if b"\r" in line.rstrip(b"\r\n"):
        return False, []
    if any(key in value for key in RESERVED):
        return False, []
    if any(isinstance(value.get(key), (dict, list)) for key in KEYS):
        return False, []
    return True, [value.get(key) for key in KEYS]


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


def check(lines: list[bytes]) -> None:
    status, columns = _core.jsonl_pick(lines, KEYS, RESERVED)
    assert len(status) == len(lines) and len(columns) == len(KEYS)
    # the same lines in one buffer: cut where readlines() cuts them, read the same way
    data = b"".join(
        line if line.endswith(b"\n") or k + 1 == len(lines) else line + b"\n" for k, line in enumerate(lines)
    )
    block_status, block_columns, block_lines = _core.jsonl_pick_block(data + b"tail", KEYS, RESERVED, stop=len(data))
    assert block_lines == io.BytesIO(data).readlines()
    if block_lines == lines:
        assert block_status == status
        assert all(same(a, b) for got, want in zip(block_columns, columns) for a, b in zip(got, want))
    for i, line in enumerate(lines):
        picked, values = expected(line)
        if status[i]:
            # picked: orjson reads it the same way (the core may leave more lines to the caller
            # than needed, never fewer)
            assert picked, line
            got = [column[i] for column in columns]
            assert all(same(g, v) for g, v in zip(got, values)), (line, got, values)
        else:
            assert all(column[i] is None for column in columns)


def test_examples() -> None:
    lines = [
        b'{"gold": "1", "response": "\\\\boxed{1}", "level": 3}\n',
        b'  {"gold" : "2" , "response":"a\\nb\\u00e9\\ud83d\\ude00\\/", "level": 2.5e1}  \r\n',
        '{"gold": "x", "response": "答案 ✓", "level": null, "more": [1, {"a": [true, false]}]}'.encode(),
        b'{"gold": "1", "response": "r", "correct": true}',  # reserved key
        b'{"gold": "1", "gold": "2", "response": "r"}',  # given twice
        b'{"gold": ["1"], "response": "r"}',  # a requested key holding a list
        b'{"go\\u006cd": "1", "response": "r"}',  # a top-level key written with escapes
        b'{"gold": "1", "response": "\\ud800"}',  # lone surrogate
        b'{"gold": "1", "response": "r", "n": 123456789012345678901}',  # beyond 64 bits
        b'{"gold": "1", "response": "r", "n": 1e300}',  # a float orjson reads, the job treats apart
        b'{"gold": "1", "response": "r", "n": NaN}',
        b'{"gold": "1", "response": "a\rb"}',
        b'{"gold": "1",\r "response": "r"}',
        b'{"gold": "1", "response": "\xff"}',
        b'{"gold": "1", "response": "r"} x',
        b'["gold"]',
        b"",
        b"{}",
        b'{"gold": -0, "response": "r", "level": -12.5e-3}',
        b'{"gold": 01, "response": "r"}',
        b'{"a":' + b"[" * 300 + b"]" * 300 + b', "gold": "1", "response": "r"}',  # deeper than 256
    ]
    status, columns = _core.jsonl_pick(lines, KEYS, RESERVED)
    assert list(status[:3]) == [1, 1, 1] and not any(status[3:17])
    assert status[17] == 1 and all(column[17] is None for column in columns)  # {}: picked, nothing in it
    assert status[18] == 1
    assert columns[1][1] == "a\nbé\U0001f600/" and columns[2][1] == 25.0
    assert columns[0][18] == 0 and type(columns[0][18]) is int and columns[2][18] == -0.0125
    assert status[19] == 0 and status[20] == 0
    check(lines)


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
rows = st.dictionaries(st.sampled_from([*KEYS, *RESERVED, "id", "x", ""]) | st.text(max_size=4), json_values)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=60), st.integers(min_value=0, max_value=60))
def test_damaged_lines_are_never_misread(noise: bytes, at: int) -> None:
    base = b'{"gold": "1", "response": "\\\\frac{1}{2} \\u00e9", "level": 2}'
    at = min(at, len(base))
    check([base[:at] + noise + base[at:], noise, base[:at] + noise])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text()), min_size=1, max_size=6), st.lists(st.booleans(), min_size=6))
def test_splice_writes_what_orjson_writes(strings: list[str | None], flags: list[bool]) -> None:
    strings = [s if s is None else s.encode("utf-8", "replace").decode("utf-8") for s in strings]  # no surrogates
    texts = [b' {"id": 1, "x": [1]}\n' if flags[i] else b'{"id":"a"}' for i in range(len(strings))]
    heads = [b',"correct":true,"extracted":'] * len(strings)
    tails = [b',"z":0}'] * len(strings)
    lines = _core.jsonl_splice(texts, heads, strings, tails)
    for text, s, line in zip(texts, strings, lines):
        assert line == text.strip()[:-1] + heads[0] + orjson.dumps(s) + tails[0]
        assert orjson.loads(line)["extracted"] == s


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text()), max_size=6))
def test_joined_splice_is_the_lines_each_followed_by_a_newline(strings: list[str | None]) -> None:
    strings = [s if s is None else s.encode("utf-8", "replace").decode("utf-8") for s in strings]
    texts = [b'{"id": %d}' % i for i in range(len(strings))]
    heads, tails = [b',"extracted":'] * len(strings), [b"}"] * len(strings)
    lines = _core.jsonl_splice(texts, heads, strings, tails)
    joined = JoinedLines(*_core.jsonl_splice_joined(texts, heads, strings, tails))
    assert joined.data == b"".join(line + b"\n" for line in lines)
    assert len(joined) == len(lines) and list(joined) == lines and joined[:] == lines
    if lines:
        assert joined[-1] == lines[-1] and joined[1:] == lines[1:]
    with pytest.raises(IndexError):
        joined[len(lines)]
    assert pickle.loads(pickle.dumps(joined))[:] == lines  # Ray ships a block's lines so
    assert output_size(joined) == output_size(lines) == len(output_bytes(lines)) == len(joined.data)


def test_pick_block_cuts_lines_as_readlines_does() -> None:
    data = b'{"gold": "1"}\r\n\n{"gold": "2"}\r{"gold": "3"}\n{"gold": "\\u00e9"}'
    status, columns, lines = _core.jsonl_pick_block(data, ["gold"], [])
    assert lines == io.BytesIO(data).readlines()
    assert list(status) == [1, 0, 0, 1] and columns == [["1", None, None, "\u00e9"]]
    assert _core.jsonl_pick_block(data, ["gold"], [], stop=0)[2] == []
    with pytest.raises(ValueError, match="stop"):
        _core.jsonl_pick_block(data, ["gold"], [], stop=len(data) + 1)
    with pytest.raises(TypeError, match="data must be bytes"):
        _core.jsonl_pick_block(bytearray(data), ["gold"], [])  # type: ignore[arg-type]


def test_splice_refuses_what_is_not_an_object() -> None:
    with pytest.raises(ValueError, match="not a JSON object"):
        _core.jsonl_splice([b"[1]"], [b","], [None], [b"}"])
    with pytest.raises(ValueError, match="same length"):
        _core.jsonl_splice([b"{}"], [], [None], [b"}"])
    with pytest.raises(TypeError, match="must be bytes"):
        _core.jsonl_pick(["{}"], KEYS, RESERVED)
    with pytest.raises(TypeError, match="keys must be a sequence of str"):
        _core.jsonl_pick([b"{}"], "gold", RESERVED)  # a str is not a list of keys
