"""Which exceptions a `try` stops on their way up, read from CPython's `ast` (the port's
twin of ``catching.py``, which says how a clause is judged).

Only reading a clause, a `try` and a context manager from the tree is here; the guards
themselves (``catches``, ``stops``, their text form) do not depend on the tree and are the
original's.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from mcplint.analysis.catching import (  # tree-independent: shared with the LibCST original
    _CONTEXT_MANAGER_DECORATORS,
    _WRAPS_EVERYTHING,
    CATCH_ALL,
    Clause,
    Guards,
    TryGuard,
    catches,
    decode,
    encode,
    stops,
    stops_encoded,
)
from mcplint.analysis.empty_values_ast import dotted_name
from mcplint.analysis.walk_ast import own_statements

__all__ = [
    "CATCH_ALL", "Clause", "Guards", "TryGuard", "catches", "clause_of", "decode", "encode", "guard_of", "stops",
    "stops_encoded", "translating_clauses", "translator_called",
]  # fmt: skip


def clause_of(handler: ast.ExceptHandler) -> Clause:
    if handler.type is None:
        names: tuple[str, ...] = ()
    else:
        caught = handler.type
        types = caught.elts if type(caught) is ast.Tuple else [caught]
        # A starred class (`except (*errors,)`) is read by its value, as LibCST's element is.
        names = tuple(
            (dotted_name(t.value if type(t) is ast.Starred else t) or "?").rpartition(".")[2]
            for t in types
        )
        names = tuple(_WRAPS_EVERYTHING.get(name, name) for name in names)
    return names, _passes_on(handler)


def _passes_on(handler: ast.ExceptHandler) -> bool:
    bound = handler.name
    for node in own_statements(handler.body):
        if type(node) is ast.Raise and node.cause is None:
            exc = node.exc
            if exc is None or (bound is not None and type(exc) is ast.Name and exc.id == bound):
                return True
    return False


def translating_clauses(
    function: ast.FunctionDef | ast.AsyncFunctionDef, qualify: Callable[[str], str | None]
) -> tuple[ast.ExceptHandler, ...]:
    """A context manager that stops what its `with` body raises: the `except` clauses of the
    `try` around its `yield` (`@contextmanager def reported(): try: yield except ValueError as e:
    raise ToolError(str(e)) from e`); () for any other function."""
    names = (dotted_name(decorator) for decorator in function.decorator_list)
    if not any(qualify(name) in _CONTEXT_MANAGER_DECORATORS for name in names if name is not None):
        return ()
    for statement in function.body:
        if type(statement) is ast.Try and _yields_in_block(statement):
            return tuple(statement.handlers)
    return ()


def _yields_in_block(statement: ast.Try) -> bool:
    """A `yield` statement (or assignment of one) among the `try` body's own lines. The
    original reads the lines of an indented body only: a body written after `try:` on its
    line (`try: yield`) has none."""
    if statement.body[0].lineno == statement.lineno:
        return False
    for small in statement.body:
        if isinstance(small, (ast.Expr, ast.Assign, ast.AnnAssign)) and isinstance(small.value, (ast.Yield, ast.YieldFrom)):
            return True
    return False


def translator_called(expression: ast.expr, translators: Mapping[str, object]) -> str | None:
    """The name of the module's converting context manager a `with` item calls (`with
    reported_to_model():`), if it calls one of ``translators``."""
    if type(expression) is ast.Call and type(expression.func) is ast.Name and expression.func.id in translators:
        return expression.func.id
    return None


def guard_of(try_node: ast.Try) -> TryGuard:
    return tuple(clause_of(handler) for handler in try_node.handlers)
