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

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self._remember(node.target.value, node.value)

    def values(self, function: str | None, name: str) -> Sequence[cst.BaseExpression]:
        return self._values.get((function, name), ())

    def _remember(self, name: str, value: cst.BaseExpression) -> None:
        self._values.setdefault((self._scopes.current_function, name), []).append(value)
