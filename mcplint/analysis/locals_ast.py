"""The values assigned to each local name, per function, read from CPython's `ast`
(the port's twin of ``locals.py``)."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from mcplint.analysis.scopes import Frames


class AstLocalAssignments:
    def __init__(self, scopes: Frames) -> None:
        self._scopes = scopes
        self._values: dict[tuple[str | None, str], list[ast.expr]] = {}

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if type(target) is ast.Name:
                self._remember(target.id, node.value)
            elif type(target) is ast.Tuple:
                # `ok, message = check(path)`: each name holds one element of the value.
                for index, element in enumerate(target.elts):
                    # `first, *rest = ...`: LibCST's starred element holds its name as its value too
                    name = element.value if type(element) is ast.Starred else element
                    if type(name) is ast.Name:
                        self._remember(name.id, element_of(node.value, index))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if type(node.target) is ast.Name and node.value is not None:
            self._remember(node.target.id, node.value)

    def values(self, function: str | None, name: str) -> Sequence[ast.expr]:
        return self._values.get((function, name), ())

    def _remember(self, name: str, value: ast.expr) -> None:
        self._values.setdefault((self._scopes.current_function, name), []).append(value)


def element_of(value: ast.expr, index: int) -> ast.Subscript:
    """`value[index]`, as a value a local holds (a node of no source: it is never reported)."""
    return ast.Subscript(value, ast.Constant(index), ast.Load())


def element_index(value: ast.expr) -> tuple[ast.expr, int] | None:
    """(value, index) of `value[index]` with a literal integer index."""
    if type(value) is not ast.Subscript:
        return None
    index = value.slice
    if type(index) is ast.Constant and type(index.value) is int:
        return value.value, index.value
    return None
