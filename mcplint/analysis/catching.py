"""Which exceptions a `try` stops on their way up, and which it passes on.

A raise reaches the client unless something between it and the handler stops
it: a `try` around the raise in its own function, or a `try` around a call on
the way from the handler down to it. A clause *stops* the classes it catches
unless it passes the exception on (a bare `raise`, or `raise e` of its own
name); a clause that raises a new error stops the old one (the new one is a
finding of its own). The first clause that catches the class decides, as in
Python. Classes are compared by their last name; builtin classes by their
hierarchy (`except LookupError` catches `KeyError`).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from functools import lru_cache

import libcst as cst

from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.imports import dotted_name

#: One clause: (the names it catches, () for a bare `except:`; whether it passes the exception on).
Clause = tuple[tuple[str, ...], bool]
#: One `try`: its clauses in order.
TryGuard = tuple[Clause, ...]
#: Where a call (or a raise) sits: the `try`s around it in its function, innermost first.
Guards = tuple[TryGuard, ...]

CATCH_ALL = frozenset({"BaseException", "Exception"})
# mcp 2.x raises whatever a tool raises (but its own `ToolError` and `MCPError`) as
# `UnexpectedToolError` from the original: around a tool's call, catching it catches everything.
_WRAPS_EVERYTHING = {"UnexpectedToolError": "Exception"}


def clause_of(handler: cst.ExceptHandler) -> Clause:
    if handler.type is None:
        names: tuple[str, ...] = ()
    else:
        types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
        names = tuple((dotted_name(t) or "?").rpartition(".")[2] for t in types)
        names = tuple(_WRAPS_EVERYTHING.get(name, name) for name in names)
    return names, _passes_on(handler)


def _passes_on(handler: cst.ExceptHandler) -> bool:
    bound = handler.name.name.value if handler.name is not None and isinstance(handler.name.name, cst.Name) else None
    for node in own_nodes(handler.body):
        if type(node) is cst.Raise and node.cause is None:  # every node: isinstance on LibCST's ABCs is slow
            if node.exc is None or (bound is not None and type(node.exc) is cst.Name and node.exc.value == bound):
                return True
    return False


_CONTEXT_MANAGER_DECORATORS = frozenset({"contextlib.contextmanager", "contextlib.asynccontextmanager"})


def translating_clauses(function: cst.FunctionDef, qualify: Callable[[str], str | None]) -> tuple[cst.ExceptHandler, ...]:
    """A context manager that stops what its `with` body raises: the `except` clauses of the
    `try` around its `yield` (`@contextmanager def reported(): try: yield except ValueError as e:
    raise ToolError(str(e)) from e`); () for any other function."""
    names = (dotted_name(decorator.decorator) for decorator in function.decorators)
    if not any(qualify(name) in _CONTEXT_MANAGER_DECORATORS for name in names if name is not None):
        return ()
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for statement in body:
        if type(statement) is cst.Try and any(_yields(line) for line in statement.body.body):
            return tuple(statement.handlers)
    return ()


def translator_called(expression: cst.BaseExpression, translators: Mapping[str, object]) -> str | None:
    """The name of the module's converting context manager a `with` item calls (`with
    reported_to_model():`), if it calls one of ``translators``."""
    if type(expression) is cst.Call and type(expression.func) is cst.Name and expression.func.value in translators:
        return expression.func.value
    return None


def _yields(statement: cst.BaseStatement | cst.BaseSmallStatement) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, (cst.Expr, cst.Assign, cst.AnnAssign)) and isinstance(small.value, cst.Yield):
            return True
    return False


def guard_of(try_node: cst.Try) -> TryGuard:
    return tuple(clause_of(handler) for handler in try_node.handlers)


def catches(names: tuple[str, ...], raised: str) -> bool:
    if not names:
        return True
    raised_class = getattr(builtins, raised, None)
    for name in names:
        if name == raised or (name in CATCH_ALL and not _is_base_only(raised)):
            return True
        caught_class = getattr(builtins, name, None)
        if isinstance(raised_class, type) and isinstance(caught_class, type) and issubclass(raised_class, caught_class):
            return True
    return False


def _is_base_only(raised: str) -> bool:
    """`KeyboardInterrupt`, `SystemExit`: not caught by `except Exception`."""
    raised_class = getattr(builtins, raised, None)
    return isinstance(raised_class, type) and not issubclass(raised_class, Exception)


def stops(guards: Guards, raised: str) -> bool:
    """Whether one of these `try`s (innermost first) stops ``raised``."""
    for guard in guards:
        for names, passes_on in guard:
            if catches(names, raised):
                if not passes_on:
                    return True
                break  # passed on: the next `try` out may stop it
    return False


# -- a compact text form, for what crosses modules (and the cache) -------------------------
# `ValueError,KeyError;+*/Exception`: clauses of a `try` split by `;` (`+`: passes the exception
# on, `*`: a bare `except:`), the `try`s around a call split by `/`, innermost first.
@lru_cache(maxsize=4096)  # the calls in one `try` share its guards
def encode(guards: Guards) -> str:
    return "/".join(
        ";".join(("+" if passes else "") + (",".join(names) or "*") for names, passes in _what_it_stops(guard))
        for guard in guards
    )


def _what_it_stops(guard: TryGuard) -> TryGuard:
    """A `try` that passes nothing on and ends in a catch-all stops every `Exception`, whatever
    its earlier clauses name: one clause says the same, so that the call paths of a hundred
    tools, each with its own `except ValueError: ... except Exception:`, stay one path state."""
    if any(passes for _, passes in guard):
        return guard
    for position, (names, _) in enumerate(guard):
        if not names or "BaseException" in names:
            return (((), False),)
        if "Exception" in names:
            earlier = sorted({name for caught, _ in guard[:position] for name in caught if _is_base_only(name)})
            return ((tuple(earlier) + ("Exception",), False),)
    return guard


@lru_cache(maxsize=4096)
def decode(text: str) -> Guards:
    if not text:
        return ()
    guards = []
    for guard in text.split("/"):
        clauses = []
        for clause in guard.split(";"):
            passes = clause.startswith("+")
            names = clause.removeprefix("+")
            clauses.append((() if names == "*" else tuple(names.split(",")), passes))
        guards.append(tuple(clauses))
    return tuple(guards)


def stops_encoded(text: str, raised: str) -> bool:
    return stops(decode(text), raised)
