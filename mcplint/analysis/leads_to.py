"""Whether a value is a name or is made from it: the one search that both the LibCST
analysis and the CPython-`ast` facts make (a registration decorator keeps its parameter,
or something made from it), each over its own tree."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

Value = TypeVar("Value")


def leads_to(
    values: Iterable[Value | str],
    target: str,
    name_of: Callable[[Value | str], str | None],
    parts_of: Callable[[Value], Iterable[Value]],
    stands_for: Callable[[str], Iterable[Value | str]],
) -> bool:
    """Whether one of ``values`` is the name ``target`` or leads to it: through the parts of
    a value (a container's elements, a call's arguments) and what another name stands for
    (the values assigned to it, the callees of a nested function of that name)."""
    pending = list(values)
    seen: set[str] = set()
    while pending:
        value = pending.pop()
        name = name_of(value)
        if name is None:
            pending.extend(parts_of(value))  # type: ignore[arg-type]  # a name_of None is a Value
        elif name == target:
            return True
        elif name not in seen:
            seen.add(name)
            pending.extend(stands_for(name))
    return False
