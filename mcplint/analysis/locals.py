"""The values assigned to each local name, per function, in source order.

Rules read them to follow a value through a local: `result = {"error": ...};
return result` (MCP001), `message = f"..."; raise ValueError(message)` (MCP002).
During the walk a rule sees the assignments made so far; after it, all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from mcplint.analysis.scopes import ScopeTracker


class LocalAssignments:
    def __init__(self, scopes: ScopeTracker) -> None:
        self._scopes = scopes
        self._values: dict[tuple[str | None, str], list[cst.BaseExpression]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._remember(target.target.value, node.value)
            elif isinstance(target.target, cst.Tuple):
                # `ok, message = check(path)`: each name holds one element of the value.
                for index, element in enumerate(target.target.elements):
                    if isinstance(element.value, cst.Name):
                        self._remember(element.value.value, element_of(node.value, index))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self._remember(node.target.value, node.value)

    def values(self, function: str | None, name: str) -> Sequence[cst.BaseExpression]:
        return self._values.get((function, name), ())

    def _remember(self, name: str, value: cst.BaseExpression) -> None:
        self._values.setdefault((self._scopes.current_function, name), []).append(value)


def element_of(value: cst.BaseExpression, index: int) -> cst.Subscript:
    """`value[index]`, as a value a local holds (a node of no source: it is never reported)."""
    return cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(index))))])


def element_index(value: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
    """(value, index) of `value[index]` with a literal integer index."""
    if not isinstance(value, cst.Subscript) or len(value.slice) != 1:
        return None
    index = value.slice[0].slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
        return value.value, int(index.value.value)
    return None
