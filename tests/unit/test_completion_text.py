"""The text of a completion in every form the trainers pass one (rapidgrade.integrations._text)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade.integrations._text import completion_text


@pytest.mark.parametrize(
    ("completion", "text"),
    [
        ("so 4", "so 4"),
        (None, ""),
        ([], ""),
        ({"role": "assistant", "content": "so 4"}, "so 4"),
        ([{"role": "user", "content": "q"}, {"role": "assistant", "content": "so 4"}], "so 4"),
        ([{"role": "assistant", "content": None}], ""),
        ([{"role": "assistant", "content": [{"type": "text", "text": "so "}, {"type": "text", "text": "4"}]}], "so 4"),
        ([{"type": "text", "text": "so "}, {"type": "text", "text": "4"}], "so 4"),
        (({"role": "assistant", "content": "so 4"},), "so 4"),  # a tuple of messages
        ([OrderedDict(role="assistant", content="so 4")], "so 4"),  # a Mapping that is not a dict
        ([["so 4"]], "so 4"),
        (4, "4"),
    ],
)
def test_forms(completion: Any, text: str) -> None:
    assert completion_text(completion) == text


@given(st.lists(st.tuples(st.sampled_from(["user", "assistant", "system"]), st.text(max_size=20)), min_size=1))
def test_the_last_message_of_a_conversation(messages: list[tuple[str, str]]) -> None:
    as_dicts = [{"role": role, "content": content} for role, content in messages]
    as_mappings = [OrderedDict(role=role, content=content) for role, content in messages]
    # plain dicts (the common form, read without the abstract-class checks) and other mappings agree
    assert completion_text(as_dicts) == completion_text(as_mappings) == messages[-1][1]
