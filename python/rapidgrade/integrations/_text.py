"""The text of a completion as the trainers pass it (kept apart from the reward code, so that
``import rapidgrade``, which exports ``grade_dataset``, loads no more than it needs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["completion_text"]


def completion_text(completion: Any) -> str:
    """The text of one completion: a string, or a conversation (a list of messages, as TRL passes
    conversational completions), whose last message's ``content`` is taken (a list of content
    parts gives its text parts joined). ``None`` gives ``""``.

    >>> completion_text([{"role": "assistant", "content": "so 4"}])
    'so 4'
    """
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if type(completion) is list and completion and type(completion[-1]) is dict:
        # the common form, a list of plain message dicts, without the abstract-class checks below
        content = completion[-1].get("content")
        if type(content) is str:
            return content
    if isinstance(completion, Mapping):
        return completion_text(completion.get("content"))
    if isinstance(completion, Sequence) and not isinstance(completion, (bytes, bytearray)):
        if not completion:
            return ""
        last = completion[-1]
        if isinstance(last, Mapping) and "content" in last:
            return completion_text(last["content"])
        if isinstance(last, Mapping) and "text" in last:  # content parts: {"type": "text", "text": ...}
            return "".join(str(part.get("text", "")) for part in completion if isinstance(part, Mapping))
        return completion_text(last)
    return str(completion)
