"""A finding's remedy, worded for the handlers it reaches.

`ToolError` and isError results belong to tools: a resource or a prompt that raised
`ToolError` would send a tool's error where the client reads a resource's or a
prompt's. So a rule states its remedy per handler kind and the engine, which knows
the handlers that reach the finding, picks the words once (`Advice.for_kinds`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class Advice:
    tool: str  # every reaching handler is a tool
    resource: str  # every reaching handler is a resource
    prompt: str  # every reaching handler is a prompt
    other: str  # handlers of several kinds, or of other kinds (list, completion, ...)

    def for_kinds(self, kinds: Collection[str]) -> str:
        if len(set(kinds)) == 1:
            (kind,) = set(kinds)
            return getattr(self, kind) if kind in ("tool", "resource", "prompt") else self.other
        return self.other


RAISE_INSTEAD = Advice(
    tool="raise a registry error (or the framework's ToolError) instead",
    resource="raise a registry error's `.for_resource()` (or the framework's ResourceError) instead",
    prompt="raise a registry error's `.for_prompt()` instead",
    other="raise a registry error instead",
)

RESULT_INSTEAD = Advice(
    tool="return an isError result (or raise a registry error) instead",
    resource="raise a registry error's `.for_resource()` instead",
    prompt="raise a registry error's `.for_prompt()` instead",
    other="raise a registry error instead",
)

FAILURE_INSTEAD = Advice(
    tool="raise a registry error (or return an isError result) instead",
    resource="raise a registry error's `.for_resource()` instead",
    prompt="raise a registry error's `.for_prompt()` instead",
    other="raise a registry error instead",
)
