"""What a module's resolver asked of its project context, and whether another context tells it
the same.

A round of a run analyses a module again when its project context changed; the part of the
context a module's own handler scope reads (``lint._resolve``'s local inputs: servers, classes
and decorators other modules define, servers and classes they pass in) changes in a third of
those rounds in a way the module's resolver never asks about (the class passed to a parameter
no call of the module reads, a registration decorator it imports and never applies). The
resolver reads its context only through ``ProjectQuestions``: the tables it looks names up in
remember each name asked (``AskedTable``), the rest of the context the fields read whole
(``AskedProject``). A context whose answers to all of those are the same makes the same local
scope, for the resolver's computation is deterministic in its module's facts and those answers:
it is kept, with the resolver's answers about calls (``LocalScope``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import Any

from mcplint.analysis.project import ProjectContext

_MISSING = object()

# A table of the context: built from it alone, so a question is answered again by building the
# other context's table.
Build = Callable[[ProjectContext], dict[Any, Any]]


class ProjectQuestions:
    """The context a resolver was made with, and what it asked of it."""

    def __init__(self, project: ProjectContext) -> None:
        self.project = project
        self._whole: set[str] = set()  # fields read whole
        self._tables: list[tuple[tuple[str, ...], Build, AskedTable]] = []

    def read_whole(self, *fields: str) -> None:
        self._whole.update(fields)

    def table(self, fields: tuple[str, ...], build: Build) -> AskedTable:
        """``build(project)``, a table that remembers the names asked of it (built from
        ``fields`` of the context alone)."""
        table = AskedTable(build(self.project), self, fields)
        self._tables.append((fields, build, table))
        return table

    def answered_the_same(self, other: ProjectContext) -> bool:
        """Whether ``other`` answers every question asked so far as this context did."""
        return self._changes(other) is not None

    def move_to(self, other: ProjectContext) -> bool:
        """Go on with ``other`` if it ``answered_the_same``: the tables take ``other``'s entries
        for the names not asked yet (a later question reads those) and keep those the resolver
        set itself. False, changing nothing, where it answers otherwise."""
        changes = self._changes(other)
        if changes is None:
            return False
        for table, before, now in changes:
            for name in before.keys() | now.keys():
                if name in table.own or before.get(name, _MISSING) == now.get(name, _MISSING):
                    continue
                if name in now:
                    dict.__setitem__(table, name, now[name])
                else:
                    dict.pop(table, name, None)
        self.project = other
        return True

    def _changes(self, other: ProjectContext) -> list[tuple[AskedTable, dict[Any, Any], dict[Any, Any]]] | None:
        """Each table whose fields ``other`` holds otherwise, built from this context and from
        ``other``; None where a question asked so far is answered otherwise."""
        project = self.project
        if other is project:
            return []
        if any(getattr(other, field) != getattr(project, field) for field in self._whole):
            return None
        changes = []
        for fields, build, table in self._tables:
            if all(getattr(other, field) == getattr(project, field) for field in fields):
                continue
            before, now = build(project), build(other)
            if any(before.get(name, _MISSING) != now.get(name, _MISSING) for name in table.asked):
                return None
            changes.append((table, before, now))
        return changes


class AskedTable(dict):  # type: ignore[type-arg]
    """A table of the context that remembers each name looked up; reading it whole (iterating
    it, its length, its truth) counts as reading its fields whole. Entries the resolver adds
    itself (``__setitem__``, ``setdefault``'s default) are its own: they follow from the answers."""

    __slots__ = ("asked", "own", "_questions", "_fields")

    def __init__(self, entries: dict[Any, Any], questions: ProjectQuestions, fields: tuple[str, ...]) -> None:
        super().__init__(entries)
        self.asked: set[Hashable] = set()
        self.own: set[Hashable] = set()  # names the resolver set itself
        self._questions = questions
        self._fields = fields

    def get(self, key: Any, default: Any = None) -> Any:
        self.asked.add(key)
        return dict.get(self, key, default)

    def __getitem__(self, key: Any) -> Any:
        self.asked.add(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self.asked.add(key)
        return dict.__contains__(self, key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self.asked.add(key)
        return dict.setdefault(self, key, default)

    def __setitem__(self, key: Any, value: Any) -> None:
        self.own.add(key)
        dict.__setitem__(self, key, value)

    def _whole(self) -> None:
        self._questions.read_whole(*self._fields)

    def __iter__(self) -> Iterator[Any]:
        self._whole()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._whole()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._whole()
        return dict.keys(self)

    def values(self) -> Any:
        self._whole()
        return dict.values(self)

    def items(self) -> Any:
        self._whole()
        return dict.items(self)


class AskedProject:
    """The context as the resolver reads it: each field read counts as read whole (the tables
    above ask by name); a function's label reads the module's name."""

    __slots__ = ("_project", "_questions")

    def __init__(self, project: ProjectContext, questions: ProjectQuestions) -> None:
        self._project = project
        self._questions = questions

    def __getattr__(self, name: str) -> Any:
        self._questions.read_whole(name)
        return getattr(self._project, name)

    def label(self, key: str) -> str:
        self._questions.read_whole("module")
        return self._project.label(key)
