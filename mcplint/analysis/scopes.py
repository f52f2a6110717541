"""Which function (by qualified name) the walk is currently inside.

Function keys are Python ``__qualname__``s (``Notes.add``, ``make.<locals>.inner``);
the same key for a redefined function merges both definitions, which is what a
call by that name could reach anyway.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst


def enclosing_function_keys(key: str | None) -> Iterator[str]:
    """``a.<locals>.b`` then ``a``: the function and those it is nested in."""
    while key:
        yield key
        key = parent_function(key)


def parent_function(key: str) -> str | None:
    head, separator, _ = key.rpartition(".<locals>.")
    return head if separator else None


@dataclass(frozen=True)
class Frame:
    kind: str  # "function" or "class"
    qualname: str


class Frames:
    """The stack of enclosing functions and classes, and the names it gives."""

    def __init__(self) -> None:
        self.frames: list[Frame] = []

    def qualname_for(self, name: str) -> str:
        if not self.frames:
            return name
        parent = self.frames[-1]
        if parent.kind == "function":
            return f"{parent.qualname}.<locals>.{name}"
        return f"{parent.qualname}.{name}"

    @property
    def current_function(self) -> str | None:
        for frame in reversed(self.frames):
            if frame.kind == "function":
                return frame.qualname
        return None


class ScopeTracker(Frames):
    """Keeps the stack of enclosing functions and classes during the walk.

    A frame is pushed when the walk enters a body, not the definition, so that
    decorators, defaults and annotations count as code of the enclosing scope.
    """

    def __init__(self) -> None:
        super().__init__()
        self._frame_of_body: dict[int, Frame] = {}
        self._open_bodies: list[cst.BaseSuite] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._frame_of_body[id(node.body)] = Frame("function", self.qualname_for(node.name.value))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._frame_of_body[id(node.body)] = Frame("class", self.qualname_for(node.name.value))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_body(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_body(node)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._leave_body(node)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._leave_body(node)

    def _enter_body(self, body: cst.BaseSuite) -> None:
        frame = self._frame_of_body.pop(id(body), None)
        if frame is not None:
            self.frames.append(frame)
            self._open_bodies.append(body)

    def _leave_body(self, body: cst.BaseSuite) -> None:
        if self._open_bodies and self._open_bodies[-1] is body:
            self._open_bodies.pop()
            self.frames.pop()
