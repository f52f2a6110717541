from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import libcst as cst

from mcplint.analysis.empty_values import MUTATORS, own_nodes
from mcplint.analysis.imports import dotted_name
from mcplint.rules.base import Rule, RuleContext

# What a result that reports failures names: `{"results": ..., "failed": [...]}`.
FAILURE_WORDS = re.compile(r"error|fail|skip|status|missing|invalid|rejected|problem", re.IGNORECASE)
_LOG_RECEIVERS = ("log", "logger", "logging", "_logger", "_log", "LOGGER", "ctx", "context", "warnings")
_LOG_CALLS = frozenset({"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
_CONTROL_FLOW = frozenset({"StopIteration", "StopAsyncIteration", "GeneratorExit"})
_Comprehension = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# A best-effort sweep (delete expired files, stop idle workers) is housekeeping: nobody asked
# for those items, so a failure to remove one hides nothing from the model.
_CLEANUP_CALLS = frozenset(
    {"remove", "unlink", "rmtree", "rmdir", "kill", "terminate", "close", "cancel", "delete", "shutdown"}
)


class HiddenPartialFailure(Rule):
    """
    ## What it does
    Finds batch loops in handler scope that drop a failed item: a `for` loop
    that collects results (`results.append(...)`, `out[key] = ...`) inside a
    `try` whose `except` only `continue`s, `pass`es or logs, while the
    function returns a value that names no failure (`failed`, `errors`,
    `status`). Also finds items mapped through a function of the module whose
    `except` returns `None`, the `None`s filtered out (`[r for r in results
    if r is not None]`, `filter(None, ...)`). The result must flow into a
    handler's return.

    Silent when the clause collects the failure (`errors.append(...)`, any
    statement besides logging), raises, returns or breaks; when the `try`
    returns or breaks, or the loop returns (a retry, a scan for the first
    candidate that works); when the `try` removes, closes or stops something
    (`os.remove`, `proc.kill`: a best-effort sweep); and for `StopIteration`.

    ## Why is this bad?
    It is the batch form of a fake empty result: the model asked for ten
    items, receives seven, and reads "these are all of them". It does not
    retry the three that failed, cannot tell the user which ones, and a
    follow-up call built on the answer acts on an incomplete picture. A
    partial failure must be visible per item (index or key, status, the
    error's code), and the call is an error when nothing succeeded.

    ## Example
    ```python
    import logging

    from mcp.server.fastmcp import FastMCP

    logger = logging.getLogger(__name__)
    mcp = FastMCP("notes")


    def load_note(note_id: int) -> dict:
        return {"id": note_id}


    @mcp.tool()
    def read_notes(note_ids: list[int]) -> dict:
        notes = []
        for note_id in note_ids:
            try:
                notes.append(load_note(note_id))
            except OSError:
                logger.warning("note %s unreadable", note_id)
                continue
        return {"notes": notes}
    ```

    ## Use instead
    ```python
    import logging

    from mcp.server.fastmcp import FastMCP

    logger = logging.getLogger(__name__)
    mcp = FastMCP("notes")


    def load_note(note_id: int) -> dict:
        return {"id": note_id}


    @mcp.tool()
    def read_notes(note_ids: list[int]) -> dict:
        notes = []
        failed = []
        for index, note_id in enumerate(note_ids):
            try:
                notes.append(load_note(note_id))
            except OSError:
                logger.warning("note %s unreadable", note_id)
                failed.append({"index": index, "status": "failed", "error_code": "NOTE_UNREADABLE"})
        return {"notes": notes, "failed": failed}
    ```

    ## Fix safety
    No fix yet: the per-item result helper it would return is not generated
    yet (issue 15, item 3).

    ## Options
    None.
    """

    code = "MCP010"
    name = "hidden-partial-failure"

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._functions: dict[str, cst.FunctionDef] = {}
        self._loops: list[tuple[cst.For, str]] = []
        self._comprehensions: list[tuple[cst.CSTNode, str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions[self.context.scopes.qualname_for(node.name.value)] = node

    def visit_For(self, node: cst.For) -> None:
        function = self.context.scopes.current_function
        if function is not None:
            self._loops.append((node, function))

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._comprehension(node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._comprehension(node)

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._comprehension(node)

    def visit_Call(self, node: cst.Call) -> None:
        if dotted_name(node.func) == "filter" and node.args and _is_none(node.args[0].value):
            self._comprehension(node)

    def _comprehension(self, node: cst.CSTNode) -> None:
        function = self.context.scopes.current_function
        if function is not None:
            self._comprehensions.append((node, function))

    def finish(self) -> None:
        for loop, function in self._loops:
            definition = self._functions.get(function)
            if definition is None or _returns_failures(definition) or not _returns_a_value(definition):
                continue
            for clause in _swallowing_clauses(loop):
                message = (
                    "a failed item is dropped: this `except` skips it while the loop collects the others, "
                    f"and `{definition.name.value}` returns a result that does not say which items failed; "
                    "collect the failures (index or key, status, error code) and return them with the results"
                )
                self.report(clause, message, function=function, through_return=True)
        none_on_failure = {
            qualname.rsplit(".", 1)[-1] for qualname, node in self._functions.items() if _none_on_failure(node)
        }
        if not none_on_failure:
            return
        for node, function in self._comprehensions:
            definition = self._functions.get(function)
            if definition is None or _returns_failures(definition):
                continue
            helper = _filtered_helper(node, none_on_failure, _assignments(definition))
            if helper is not None:
                message = (
                    f"failed items are filtered out: `{helper}` returns None when it fails, and the Nones are "
                    "dropped here, so the result does not say which items failed; keep a status per item "
                    "(index or key, status, error code) instead of filtering"
                )
                self.report(node, message, function=function, through_return=True)


# -- the loop form -------------------------------------------------------------------
def _swallowing_clauses(loop: cst.For) -> list[cst.ExceptHandler]:
    """The `except` clauses of `try`s in the loop body (not in nested loops or functions)
    that drop the item, where the loop collects the others."""
    if not _collects(loop.body) or _returns_from(loop.body):
        return []  # a `return` in the loop: a scan for the first candidate that works
    found = []
    for node in _loop_nodes(loop.body):
        if not isinstance(node, cst.Try) or _ends_the_loop(node.body) or _cleans_up(node.body):
            continue
        for clause in node.handlers:
            if _swallows(clause):
                found.append(clause)
    return found


def _loop_nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    """Nodes under ``root`` in the same loop: not inside a nested loop, function or class."""
    nodes: list[cst.CSTNode] = []
    pending = list(root.children)
    while pending:
        node = pending.pop()
        nodes.append(node)
        if isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        pending.extend(node.children)
    return nodes


def _collects(body: cst.CSTNode) -> bool:
    """The loop gathers results: a mutating call, an item assignment or an augmented assignment."""
    for node in _loop_nodes(body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in MUTATORS:
            return True
        if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Subscript) for t in node.targets):
            return True
        if isinstance(node, cst.AugAssign):
            return True
    return False


def _returns_from(body: cst.CSTNode) -> bool:
    return any(isinstance(node, cst.Return) for node in _loop_nodes(body))


def _ends_the_loop(body: cst.CSTNode) -> bool:
    """A `return` or `break` in the `try` body: a retry, or a scan for the first that works."""
    return any(isinstance(node, (cst.Return, cst.Break)) for node in _loop_nodes(body))


def _cleans_up(body: cst.CSTNode) -> bool:
    return any(
        isinstance(node, cst.Call) and (dotted_name(node.func) or "").split(".")[-1] in _CLEANUP_CALLS
        for node in _loop_nodes(body)
    )


def _swallows(clause: cst.ExceptHandler) -> bool:
    if clause.type is not None:
        names = {(dotted_name(e) or "").split(".")[-1] for e in _exception_types(clause.type)}
        if names & _CONTROL_FLOW:
            return False
    statements = [
        statement
        for line in clause.body.body
        for statement in (line.body if isinstance(line, cst.SimpleStatementLine) else [line])
    ]
    return all(_drops(statement) for statement in statements)


def _exception_types(expression: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(expression, cst.Tuple):
        return [element.value for element in expression.elements]
    return [expression]


def _drops(statement: cst.CSTNode) -> bool:
    """`pass`, `continue`, or a logging call: nothing the caller will ever see."""
    if isinstance(statement, (cst.Pass, cst.Continue)):
        return True
    if isinstance(statement, cst.Expr):
        value = statement.value
        if isinstance(value, cst.Await):
            value = value.expression
        return isinstance(value, cst.Call) and _is_logging(value)
    return False


def _is_logging(call: cst.Call) -> bool:
    name = dotted_name(call.func)
    if name is None:
        return False
    if name == "print":
        return True
    receiver, _, method = name.rpartition(".")
    return method in _LOG_CALLS and receiver.split(".")[-1] in _LOG_RECEIVERS


# -- the function's result ---------------------------------------------------------
def _returns(function: cst.FunctionDef) -> list[cst.Return]:
    return [node for node in own_nodes(function.body) if isinstance(node, cst.Return)]


def _returns_a_value(function: cst.FunctionDef) -> bool:
    return any(node.value is not None and not _is_none(node.value) for node in _returns(function))


def _returns_failures(function: cst.FunctionDef) -> bool:
    """A returned value names failures (`"failed": failed`, `errors`, a `status`)."""
    module = cst.Module(body=[])
    return any(
        node.value is not None and FAILURE_WORDS.search(module.code_for_node(node.value)) for node in _returns(function)
    )


def _is_none(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Name) and expression.value == "None"


# -- the comprehension form ----------------------------------------------------------
def _none_on_failure(function: cst.FunctionDef) -> bool:
    """A function with an `except` clause that returns None (or nothing)."""
    for node in own_nodes(function.body):
        if isinstance(node, cst.ExceptHandler):
            for inner in own_nodes(node.body):
                if isinstance(inner, cst.Return) and (inner.value is None or _is_none(inner.value)):
                    return True
    return False


def _assignments(function: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    values: dict[str, cst.BaseExpression] = {}
    for node in own_nodes(function.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            values[node.targets[0].target.value] = node.value
    return values


def _filtered_helper(node: cst.CSTNode, helpers: set[str], assignments: dict[str, cst.BaseExpression]) -> str | None:
    """The None-on-failure helper whose Nones this comprehension (or `filter(None, ...)`) drops."""
    if isinstance(node, cst.Call):  # filter(None, source)
        source: cst.BaseExpression | None = node.args[1].value if len(node.args) > 1 else None
    elif isinstance(node, _Comprehension) and _drops_nones(node):
        source = node.for_in.iter
    else:
        return None
    if isinstance(source, cst.Name) and source.value in assignments:
        source = assignments[source.value]
    return _calls_helper(source, helpers) if source is not None else None


def _drops_nones(node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> bool:
    """`if r is not None`, `if r`: the comprehension keeps only what did not fail."""
    for condition in node.for_in.ifs:
        test = condition.test
        if isinstance(test, cst.Name):
            return True
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            if isinstance(target.operator, cst.IsNot) and _is_none(target.comparator):
                return True
    return False


def _calls_helper(expression: cst.CSTNode, helpers: set[str]) -> str | None:
    """The helper a call in ``expression`` names (`fetch(i)`, `map(fetch, ids)`, `self.fetch(i)`)."""
    for node in [expression, *own_nodes(expression)]:
        if not isinstance(node, cst.Call):
            continue
        name = (dotted_name(node.func) or "").split(".")[-1]
        if name in helpers:
            return name
        if name == "map" and node.args:
            mapped = (dotted_name(node.args[0].value) or "").split(".")[-1]
            if mapped in helpers:
                return mapped
    return None
