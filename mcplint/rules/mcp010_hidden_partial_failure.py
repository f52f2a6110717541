from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, cast

import libcst as cst

from mcplint.analysis.empty_values import MUTATORS, added_to, caught_names, is_empty_value, is_none_literal, own_nodes
from mcplint.analysis.error_payloads import FAILURE_FLAG_KEYS, builds_error, is_error_dict, is_error_text, string_value
from mcplint.analysis.imports import dotted_name
from mcplint.analysis.walk import children
from mcplint.rules.base import Rule, RuleContext
from mcplint.rules.batch_fix import batch_fix

# Handlers whose answer is data the request asked for: a tools/list (or completion) response
# has no per-item failure to report, and the model asked for no batch.
ASKED_FOR = frozenset({"tool", "resource", "prompt"})
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
    that collects results around a `try` whose `except` only `continue`s,
    logs (where the `try` collected), empties the fetched local (`rows =
    []`), or records the failure where no successful answer reads it,
    while the answer names no failure (`failed`, `errors`, `status`). Also
    items mapped through a function whose `except` returns `None`, the
    `None`s filtered out, or `[]`, the lists merged (`rows.extend(batch)`).
    The result must reach a handler.

    Silent when the answer carries the recorded failure, or the clause
    raises, returns or breaks; when the `try` or the loop returns or breaks
    (a retry, a scan); for cleanup sweeps, environment variables, literal
    lists of keys read (not fetched), values converted in place (`info[key] = ...`) or by
    `int()` alone, `StopIteration`, list handlers; for upstream records
    that do not parse (no parameter walked, nothing awaited; only parse
    errors caught, or only parsers and the record's methods called).

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
    from notes_server.errors import BatchResult, notes_error

    logger = logging.getLogger(__name__)
    mcp = FastMCP("notes")


    def load_note(note_id: int) -> dict:
        return {"id": note_id}


    @mcp.tool()
    def read_notes(note_ids: list[int]) -> dict:
        notes = []
        batch = BatchResult()
        for index, note_id in enumerate(note_ids):
            try:
                notes.append(load_note(note_id))
            except OSError:
                logger.warning("note %s unreadable", note_id)
                batch.failed(index, notes_error("NOTE_UNREADABLE", note_id=note_id))
            else:
                batch.applied(index)
        return batch.tool_result({"notes": notes})
    ```

    `BatchResult` comes from the helpers generated from the error registry
    (`mcplint registry generate`): the model reads `2 items: 1 applied, 1
    failed, 0 skipped.` and `[1] failed: NOTE_UNREADABLE (1003): ...`, and the
    structured content has every item's status. Without a registry, return
    the failures yourself: `{"notes": notes, "failed": [{"index": 1,
    "status": "failed", "error_code": "NOTE_UNREADABLE"}]}`.

    ## Fix safety
    Unsafe: the tool's answer changes shape. Where a high-level tool itself
    runs the loop and ends with `return <a dict or list it builds>`, and its
    return annotation lets a tool result through (none, `dict`, `Any`,
    `CallToolResult`), the fix records every item in the generated helpers'
    `BatchResult`: each dropping `except` records its item as failed with the
    registry's `item-symbol` (the caught exception says nothing the registry
    can map, so every such failure gets the one generic symbol; a clause that
    knows better raises or records its own), the `try`'s `else` records it as
    applied, and `return value` becomes `return batch.tool_result(value)`:
    the tool's value under `result`, a status per item beside it, `isError`
    when no item succeeded. The item is its position (`for note in notes`
    becomes `for index, note in enumerate(notes)`), or the index of an
    `enumerate` or the key of an `.items()` loop it already has. No fix without
    a registry entry for `item-symbol`, for an `async for`, for a tool with two
    such loops (their indexes would share one result), for a loop in a
    function the tool calls, and for the comprehension form.

    ## Options
    - `item-symbol` (string, default `"BATCH_ITEM_FAILED"`): the registry
      symbol a dropped item is recorded as failed with, e.g. an entry
      `message = "The item could not be processed."`,
      `category = "ABORTED"`.
    """

    code = "MCP010"
    name = "hidden-partial-failure"
    options = {"item-symbol": "BATCH_ITEM_FAILED"}
    fix_safety = "unsafe"

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._functions: dict[str, cst.FunctionDef] = {}
        self._module_statements: dict[str, cst.BaseStatement] = {}  # the module-level statement holding each
        self._loops: list[tuple[cst.For, str]] = []
        self._comprehensions: list[tuple[cst.CSTNode, str]] = []
        # Read during the one walk, not by walking each function again in finish():
        self._returns: dict[str, list[cst.Return]] = {}  # function -> its own returns
        self._none_on_failure: set[str] = set()  # functions with an `except` that returns None
        # Functions with an `except` that returns `[]`: that clause, per function (last part of its name).
        self._empty_on_failure: dict[str, cst.ExceptHandler] = {}
        self._clauses_open: list[int] = [0]  # `except` clauses open in each enclosing function
        self._open_clauses: list[cst.ExceptHandler] = []  # every `except` clause open, innermost last
        self._returns_failures: dict[str, bool] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        qualname = self.context.scopes.qualname_for(node.name.value)
        self._functions[qualname] = node
        ancestors = self.context.ancestors  # the module first
        holder = ancestors[1] if len(ancestors) > 1 else node
        if isinstance(holder, cst.BaseStatement):
            self._module_statements[qualname] = holder
        self._clauses_open.append(0)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._clauses_open.pop()

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._clauses_open[-1] += 1
        self._open_clauses.append(node)

    def leave_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._clauses_open[-1] -= 1
        self._open_clauses.pop()

    def visit_Return(self, node: cst.Return) -> None:
        function = self.context.scopes.current_function
        if function is None:
            return
        self._returns.setdefault(function, []).append(node)
        if self._clauses_open[-1] and (node.value is None or is_none_literal(node.value)):
            self._none_on_failure.add(function)
        elif self._clauses_open[-1] and isinstance(node.value, cst.List) and not node.value.elements:
            self._empty_on_failure.setdefault(function.rsplit(".", 1)[-1], self._open_clauses[-1])

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
        if dotted_name(node.func) == "filter" and node.args and is_none_literal(node.args[0].value):
            self._comprehension(node)

    def _comprehension(self, node: cst.CSTNode) -> None:
        function = self.context.scopes.current_function
        if function is not None:
            self._comprehensions.append((node, function))

    def finish(self) -> None:
        flagged: dict[str, list[tuple[cst.For, list[cst.ExceptHandler]]]] = {}
        local_functions = {qualname.rsplit(".", 1)[-1] for qualname in self._functions}
        imported = frozenset(self.context.imports.imported())
        discarded: dict[str, frozenset[str]] = {}

        def discarded_in(function: str) -> frozenset[str]:
            # Asked only of a loop with a `try` that may drop its item: most loops have none.
            found = discarded.get(function)
            if found is None:
                definition = self._functions.get(function)
                found = _discarded_records(definition) if definition is not None else frozenset()
                discarded[function] = found
            return found

        for loop, function in self._loops:
            definition = self._functions.get(function)
            clauses = [
                clause
                for clause in _swallowing_clauses(loop, partial(discarded_in, function))
                if definition is None
                or not _filters_malformed_records(loop, clause, definition, local_functions, imported)
            ]
            if not clauses or definition is None or self._says_failures(function) or not self._returns_a_value(function):
                continue
            if _iterates_configuration(loop.iter, _assignments(definition)):
                continue  # entries of an environment variable: configuration, not requested items
            if _walks_fields(loop.iter) and not _asks_per_key(loop, local_functions, imported):
                continue  # `for k in ("startLine", "endLine"):` the fields of one item, not items
            flagged.setdefault(function, []).append((loop, clauses))
        for function, loops in flagged.items():
            definition = self._functions[function]
            # One rewrite of the function for all its findings: the first applied fixes them all.
            statement = self._module_statements.get(function)
            symbol = str(self.settings["item-symbol"])
            fix = batch_fix(self.context, statement, definition, loops, symbol) if statement is not None else None
            for _, clauses in loops:
                for clause in clauses:
                    record = _record_of(clause, discarded_in(function))
                    emptied = sorted(_clause_empties(clause))
                    continues = bool(emptied) and not record and _continues(clause)
                    message = dropped_item_message(record, emptied, continues, definition.name.value)
                    self.report(
                        clause, message, function=function, handler_kinds=ASKED_FOR, through_return=True, fix=fix
                    )
        self._merged_empties()
        none_on_failure = {qualname.rsplit(".", 1)[-1] for qualname in self._none_on_failure}
        if not none_on_failure:
            return
        for node, function in self._comprehensions:
            definition = self._functions.get(function)
            if definition is None or self._says_failures(function):
                continue
            helper = _filtered_helper(node, none_on_failure, _assignments(definition))
            if helper is not None:
                message = filtered_items_message(helper)
                self.report(node, message, function=function, handler_kinds=ASKED_FOR, through_return=True)


    def _merged_empties(self) -> None:
        """A helper returning `[]` when it fails, whose per-item results a loop merges
        (`for batch in pool.map(fetch_chunk, chunks): rows.extend(batch)`): a failed chunk
        adds nothing, and the merged answer looks complete. Reported at the helper's clause."""
        helpers = set(self._empty_on_failure)
        if not helpers:
            return
        reported: set[int] = set()
        for loop, function in self._loops:
            if self._says_failures(function) or not self._returns_a_value(function):
                continue
            helper = _merging_helper(loop, helpers)
            clause = self._empty_on_failure.get(helper or "")
            if clause is None or id(clause) in reported:
                continue
            reported.add(id(clause))
            # Reached by a call is enough: what is merged is the function's work (records written,
            # counted), whose result the handler reports as complete.
            self.report(clause, merged_items_message(helper), function=function, handler_kinds=ASKED_FOR)

    def _returns_a_value(self, function: str) -> bool:
        return any(node.value is not None and not is_none_literal(node.value) for node in self._returns.get(function, ()))

    def _says_failures(self, function: str) -> bool:
        """A returned value names failures (`"failed": failed`, `errors`, a `status`)."""
        if function not in self._returns_failures:
            module = cst.Module(body=[])
            self._returns_failures[function] = any(
                node.value is not None
                and not _whole_call_failure(node.value)
                and FAILURE_WORDS.search(module.code_for_node(node.value))
                for node in self._returns.get(function, ())
            )
        return self._returns_failures[function]


# -- the findings' messages (shared with the `ast` twin) -------------------------------
def dropped_item_message(record: str | None, emptied: list[str], continues: bool, function_name: str) -> str:
    """A loop's ``except`` dropping the item: recording it in ``record`` (a local no successful
    answer reads), emptying the first of ``emptied`` (when it does not also ``continue``), or
    skipping it."""
    if record:
        how = f"records it in `{record}`, which no successful answer reads,"
    elif emptied and not continues:
        how = f"leaves `{emptied[0]}` empty for it"
    else:
        how = "skips it"
    return (
        f"a failed item is dropped: this `except` {how} while the loop collects the others, "
        f"and `{function_name}` returns a result that does not say which items failed; "
        "collect the failures (index or key, status, error code) and return them with the results"
    )


def filtered_items_message(helper: str) -> str:
    return (
        f"failed items are filtered out: `{helper}` returns None when it fails, and the Nones are "
        "dropped here, so the result does not say which items failed; keep a status per item "
        "(index or key, status, error code) instead of filtering"
    )


def merged_items_message(helper: str | None) -> str:
    return (
        f"a failed item is dropped: `{helper}` returns `[]` when it fails, and this loop merges "
        "its results, so the answer does not say which items failed; let the failure reach the "
        "loop and record it per item (index or key, status, error code)"
    )


def _whole_call_failure(value: cst.BaseExpression) -> bool:
    """A return that fails the whole call (`return create_error_response("No data for ...")`,
    `return "Error: ..."`, an error dict, when nothing succeeded): it says nothing of the items the
    successful answer leaves out."""
    if isinstance(value, cst.Await):
        value = value.expression
    if isinstance(value, cst.Call):
        callee = (dotted_name(value.func) or "").rsplit(".", 1)[-1]
        if callee == "dumps" and value.args:
            return _whole_call_failure(value.args[0].value)
        return builds_error(value)
    if isinstance(value, cst.Dict):  # `{"success": False, "message": "Failed to fetch ..."}`
        return _says_it_failed(value)
    return is_error_text(value)


def _says_it_failed(dictionary: cst.Dict) -> bool:
    """A failure flag (`"success": False`, `"status": "error"`): the whole call failed. An
    `errors` key beside the results is the partial answer itself."""
    flags = [
        element
        for element in dictionary.elements
        if isinstance(element, cst.DictElement)
        and string_value(element.key) in (*FAILURE_FLAG_KEYS, "status")  # None for anything but a string literal
    ]
    return any(is_error_dict(cst.Dict([flag])) for flag in flags)


# -- the loop form -------------------------------------------------------------------
_CONFIGURATION = frozenset({"getenv", "environ"})


def _iterates_configuration(
    source: cst.BaseExpression, assignments: dict[str, cst.BaseExpression], depth: int = 3
) -> bool:
    """The loop goes over what an environment variable says (`os.getenv("ROOTS").split(...)`,
    through the function's locals): configuration the server reads, not items a request sent."""
    for node in [source, *own_nodes(source)]:
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = (dotted_name(node) or "").rsplit(".", 1)[-1]
            if name in _CONFIGURATION:
                return True
            if isinstance(node, cst.Name) and depth > 0 and node.value in assignments:
                if _iterates_configuration(assignments[node.value], assignments, depth - 1):
                    return True
    return False


def _walks_fields(source: cst.BaseExpression) -> bool:
    """A literal tuple or list of strings: the keys of one record the loop goes through."""
    return (
        isinstance(source, (cst.Tuple, cst.List, cst.Set))
        and bool(source.elements)
        and all(isinstance(element.value, cst.SimpleString) for element in source.elements)
    )


def _asks_per_key(loop: cst.For, local_functions: set[str], imported: frozenset[str]) -> bool:
    """A `try` in the loop asks something outside for each key (`self._make_request(...)`, an
    `await`, a call named for input or output on `self` or an imported module): a batch of
    requests (one per channel type), not the fields of one record (`int(edit.get(k, 1))`)."""
    for node in _loop_nodes(loop.body):
        if not isinstance(node, cst.Try):
            continue
        for inner in _loop_nodes(node.body):
            if isinstance(inner, cst.Await):
                return True
            if not isinstance(inner, cst.Call):
                continue
            func = inner.func
            if isinstance(func, cst.Name):
                if func.value in local_functions:
                    return True
            elif isinstance(func, cst.Attribute):
                root = _root_name(func.value)
                if func.attr.value in local_functions or (
                    _IO_NAME.match(func.attr.value) and (root in ("self", "cls") or root in imported)
                ):
                    return True
    return False


def _swallowing_clauses(loop: cst.For, discarded_of: Callable[[], frozenset[str]] = frozenset) -> list[cst.ExceptHandler]:
    """The `except` clauses of `try`s in the loop body (not in nested loops or functions)
    that drop the item, where the loop collects the others. A failure recorded in one of
    the locals ``discarded_of`` gives is dropped all the same."""
    nodes = _loop_nodes(loop.body)
    trys = [node for node in nodes if isinstance(node, cst.Try)]
    if not trys or not _collects(_with_inner_loops(nodes)) or _returns_from(nodes):
        return []  # a `return` in the loop: a scan for the first candidate that works
    discarded = discarded_of()
    found = []
    for node in trys:
        inner = _loop_nodes(node.body)
        if _ends_the_loop(inner) or _cleans_up(inner):
            continue
        for clause in node.handlers:
            # Skipping on (`continue`) drops the item; `pass` or logging drops it only when the
            # `try` held the collecting itself, else the item is still collected after the `try`
            # (a field that failed to parse: not a dropped item).
            if _swallows(clause, discarded) and (_collects(_with_inner_loops(inner)) or _continues(clause)):
                found.append(clause)
                continue
            # `rows = fetch(chunk)` / `except: rows = []`, then `for rec in rows: found[...] = rec`:
            # the chunk's records are dropped as surely as by `continue`.
            emptied = _clause_empties(clause)
            if emptied and emptied <= _assigned_names(inner) and _swallows(clause, discarded, emptied):
                if _fed_from(nodes, node, emptied):
                    found.append(clause)
    return found


def _clause_empties(clause: cst.ExceptHandler) -> set[str]:
    """The locals the clause sets to an empty collection (`rows = []`)."""
    return {
        target.target.value
        for node in own_nodes(clause.body)
        if isinstance(node, cst.Assign) and isinstance(node.value, (cst.List, cst.Dict, cst.Tuple)) and is_empty_value(node.value)
        for target in node.targets
        if isinstance(target.target, cst.Name)
    }


def _assigned_names(nodes: list[cst.CSTNode]) -> set[str]:
    return {
        target.target.value
        for node in nodes
        if isinstance(node, cst.Assign)
        for target in node.targets
        if isinstance(target.target, cst.Name)
    }


def _fed_from(nodes: list[cst.CSTNode], try_node: cst.Try, names: set[str]) -> bool:
    """After the `try`, the loop collects from one of the locals: an inner loop over it that
    collects, or an adder given it (`all_rows.extend(rows)`)."""
    inside = {id(node) for node in _loop_nodes(try_node)}
    for node in nodes:
        if id(node) in inside or node is try_node:
            continue
        if isinstance(node, cst.For) and _names_in(node.iter) & names and _collects(_with_inner_loops(_loop_nodes(node.body))):
            return True
        if added_to(node) is not None and any(_names_in(arg.value) & names for arg in cast(cst.Call, node).args):
            return True
    return False


def _loop_nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    """Nodes under ``root`` in the same loop: not inside a nested loop, function or class."""
    nodes: list[cst.CSTNode] = []
    pending = children(root)  # not `CSTNode.children`, which is slow
    while pending:
        node = pending.pop()
        nodes.append(node)
        if type(node) in _LOOP_BOUNDARIES:
            continue
        pending.extend(children(node))
    return nodes


_LOOP_BOUNDARIES = frozenset({cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda})


def _with_inner_loops(nodes: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """``nodes`` and the bodies of the loops among them: a fetched chunk whose records an
    inner loop collects (`for rec in records: found.append(...)`) is collected all the same."""
    found = list(nodes)
    for node in nodes:
        if isinstance(node, (cst.For, cst.While)):
            found.extend(_with_inner_loops(_loop_nodes(node.body)))
    return found


def _collects(nodes: list[cst.CSTNode]) -> bool:
    """The loop gathers results: a mutating call, an item assignment or an augmented assignment."""
    for node in nodes:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in MUTATORS:
            return True
        if isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Subscript) for t in node.targets):
            return True
        if isinstance(node, cst.AugAssign):
            return True
    return False


def _returns_from(nodes: list[cst.CSTNode]) -> bool:
    return any(isinstance(node, cst.Return) for node in nodes)


def _ends_the_loop(nodes: list[cst.CSTNode]) -> bool:
    """A `return` or `break` in the `try` body: a retry, or a scan for the first that works."""
    return any(isinstance(node, (cst.Return, cst.Break)) for node in nodes)


def _cleans_up(nodes: list[cst.CSTNode]) -> bool:
    return any(
        isinstance(node, cst.Call) and (dotted_name(node.func) or "").split(".")[-1] in _CLEANUP_CALLS
        for node in nodes
    )


def _swallows(clause: cst.ExceptHandler, discarded: frozenset[str] = frozenset(), emptied: set[str] | None = None) -> bool:
    if clause.type is not None:
        names = caught_names(clause.type)
        if names & _CONTROL_FLOW:
            return False
    statements = [
        statement
        for line in clause.body.body
        for statement in (line.body if isinstance(line, cst.SimpleStatementLine) else [line])
    ]
    return all(
        _drops(statement) or _records_in(statement, discarded) or (emptied is not None and _empties(statement, emptied))
        for statement in statements
    )


def _empties(statement: cst.CSTNode, names: set[str]) -> bool:
    return (
        isinstance(statement, cst.Assign)
        and all(isinstance(t.target, cst.Name) and t.target.value in names for t in statement.targets)
        and is_empty_value(statement.value)
    )


def _record_of(clause: cst.ExceptHandler, names: frozenset[str]) -> str | None:
    """The local among ``names`` the clause records the failure in."""
    for line in clause.body.body:
        for statement in line.body if isinstance(line, cst.SimpleStatementLine) else []:
            name = _recorded_in(statement)
            if name is not None and name.value in names:
                return name.value
    return None


def _recorded_in(statement: cst.CSTNode) -> cst.Name | None:
    """The local a statement adds to (`errors.append((date, exc))`)."""
    return added_to(statement.value) if isinstance(statement, cst.Expr) else None


def _records_in(statement: cst.CSTNode, names: frozenset[str]) -> bool:
    name = _recorded_in(statement)
    return name is not None and name.value in names


def _discarded_records(function: cst.FunctionDef) -> frozenset[str]:
    """Locals the function records failures in that no successful answer reads: every use is
    the empty start (`errors = []`), an addition, a logging call, or an answer that fails the
    whole call (`if errors: return create_error_response(..., errors)`, reached only when
    nothing succeeded) with its test; or a loop over it that only logs. The loop that records
    a failed item there drops it from a partial answer as surely as `continue` alone."""
    harmless: set[int] = set()
    recorded: set[str] = set()
    names: list[cst.Name] = []
    # Every node of the function passes here: its class is compared, not isinstance-checked
    # (LibCST's classes are ABCs, whose isinstance is ten times slower; these have no subclasses).
    for node in own_nodes(function.body):
        if type(node) is cst.Name:
            names.append(node)
        elif type(node) is cst.Assign:
            harmless.update(id(name) for name in _emptied_names([t.target for t in node.targets], node.value))
        elif type(node) is cst.AnnAssign and node.value is not None:
            harmless.update(id(name) for name in _emptied_names([node.target], node.value))
        elif type(node) is cst.Expr and type(node.value) is cst.Call:
            receiver = _recorded_in(node)
            if receiver is not None:
                recorded.add(receiver.value)
                harmless.add(id(receiver))
            elif _is_logging(node.value):
                harmless.update(_name_ids(node.value))
        elif type(node) is cst.Return and node.value is not None and _whole_call_failure(node.value):
            harmless.update(_name_ids(node.value))
        elif type(node) is cst.If and _only_fails_or_logs(node.body):
            harmless.update(_name_ids(node.test))
        elif type(node) is cst.For and _only_fails_or_logs(node.body):
            harmless.update(_name_ids(node.iter))
    used = {name.value for name in names if id(name) not in harmless}
    return frozenset(recorded - used)


def _emptied_names(targets: list[cst.BaseAssignTargetExpression], value: cst.BaseExpression) -> list[cst.Name]:
    """The names an assignment starts empty: `errors = []`, `notes, errors = [], []`."""
    found = []
    for target in targets:
        if isinstance(target, cst.Name) and is_empty_value(value):
            found.append(target)
        elif isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements):
            found.extend(
                element.value
                for element, item in zip(target.elements, value.elements, strict=True)
                if isinstance(element.value, cst.Name) and is_empty_value(item.value)
            )
    return found


def _name_ids(root: cst.CSTNode) -> set[int]:
    return {id(node) for node in [root, *own_nodes(root)] if isinstance(node, cst.Name)}


def _only_fails_or_logs(body: cst.BaseSuite) -> bool:
    """A block that only logs, raises, or answers with a failure of the whole call."""
    for line in body.body:
        if isinstance(line, cst.SimpleStatementLine):
            for statement in line.body:
                if isinstance(statement, cst.Raise):
                    continue
                if isinstance(statement, cst.Return) and statement.value is not None and _whole_call_failure(statement.value):
                    continue
                if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call) and _is_logging(statement.value):
                    continue
                if isinstance(statement, cst.Assign) and isinstance(statement.value, cst.Call) and _is_logging_setup(statement.value):
                    continue
                return False
        elif isinstance(line, cst.For):
            if not _only_fails_or_logs(line.body):
                return False
        else:
            return False
    return True


def _is_logging_setup(call: cst.Call) -> bool:
    return (dotted_name(call.func) or "").endswith("getLogger")


# What parsing an upstream record's fields raises (`datetime.fromisoformat`, `int()`, a missing
# key): caught around a `try` that awaits nothing, the loop filters malformed records.
_MALFORMED_RECORD = frozenset({"ValueError", "TypeError", "AttributeError", "KeyError", "IndexError"})


def _filters_malformed_records(
    loop: cst.For,
    clause: cst.ExceptHandler,
    function: cst.FunctionDef,
    local_functions: set[str],
    imported: frozenset[str] = frozenset(),
) -> bool:
    """The loop goes over records it was handed by an upstream (not the request's own items,
    a parameter), and the `try` only parses their fields: it awaits nothing, calls no function
    of the module, and the clause catches only what parsing raises, or, catching anything,
    the `try` calls nothing but parsers (see ``_only_parses``). Such a record is filtered out
    as malformed; no requested item failed."""
    try_node = next(node for node in _loop_nodes(loop.body) if isinstance(node, cst.Try) and clause in node.handlers)
    if _converts_in_place(loop, try_node) and not _continues(clause):
        return True  # `info[key] = convert(value)` over `info.items()`: on failure the raw value stays
    params = function.params
    parameters = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
    converts = _only_converts(try_node)
    if converts and not _collects(list(_loop_nodes(try_node.body))):
        return True  # `dest = int(parts[1])`: a field of the item at hand did not convert
    if _walked_names(loop) & parameters:
        return False
    if converts:
        return True  # `nums.append(int(part))`: whatever the clause names, only a conversion failed
    if clause.type is None:
        return False
    if not caught_names(clause.type) <= _MALFORMED_RECORD:
        return _only_parses(try_node, local_functions, imported)
    for node in _loop_nodes(try_node.body):
        if isinstance(node, cst.Await):
            return False
        if isinstance(node, cst.Call):
            callee = dotted_name(node.func) or ""
            if callee.rsplit(".", 1)[-1] in local_functions:
                return False
    return True


# Functions and methods named for reading a value at hand (`_parse_item`, `extract_doi`,
# `from_dict`, `datetime.strptime`), and what a call named for input or output starts with.
_PARSER_NAME = re.compile(r"_?(parse|extract|convert|normali[sz]e|format|clean|from_|to_|strptime|fromisoformat|fromtimestamp|loads|literal_eval|decode|unquote)")
_IO_NAME = re.compile(r"_?(get|fetch|download|upload|load|read|write|query|request|post|put|patch|delete|send|call|execute|run|open|search|list|retrieve|resolve|connect)")
_PURE_BUILTINS = frozenset(
    {
        "len", "str", "int", "float", "bool", "list", "dict", "set", "tuple", "next", "sorted", "min", "max", "any",
        "all", "enumerate", "zip", "map", "filter", "isinstance", "getattr", "hasattr", "round", "abs", "sum",
        "range", "reversed", "repr",
    }
)


def _only_parses(try_node: cst.Try, local_functions: set[str], imported: frozenset[str]) -> bool:
    """The `try` reads the fields of a record at hand and builds its value: it awaits nothing,
    and calls only parsers (by name), builtins, classes (`Paper(...)`), and methods of the
    values at hand that do not say input or output (`entry.get("doi")`, `article.find(...)`,
    `text.strip()`); not the module's own functions but parsers, nor an imported module's
    or `self`'s other methods (`requests.get(...)`, `self.client.fetch(...)`)."""
    for node in _loop_nodes(try_node.body):
        if isinstance(node, cst.Await):
            return False
        if not isinstance(node, cst.Call) or added_to(node) is not None:
            continue
        func = node.func
        if isinstance(func, cst.Name):
            name = func.value
            if _PARSER_NAME.match(name) or name in _PURE_BUILTINS or (name[:1].isupper() and name not in local_functions):
                continue
            return False
        if not isinstance(func, cst.Attribute):
            return False
        method = func.attr.value
        if _PARSER_NAME.match(method):
            continue
        root = _root_name(func.value)
        if root is None or root in ("self", "cls") or root in imported:
            return False
        if method == "get" and node.args and isinstance(node.args[0].value, cst.SimpleString):
            continue  # a field of a mapping
        if _IO_NAME.match(method) or method in ("result", "wait"):
            return False  # input or output, or the outcome of work done elsewhere (`future.result()`)
    return True


def _root_name(expression: cst.BaseExpression) -> str | None:
    """The name an attribute chain or call chain starts from (`entry` of `entry.links[0].get`)."""
    while True:
        if isinstance(expression, cst.Name):
            return expression.value
        if isinstance(expression, cst.Attribute):
            expression = expression.value
        elif isinstance(expression, cst.Subscript):
            expression = expression.value
        elif isinstance(expression, cst.Call):
            expression = expression.func
        elif isinstance(expression, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)):
            return ""  # `", ".join(...)`: a method of a literal
        else:
            return None


# Builtins that convert a value at hand: what they raise says the value was malformed.
_CONVERSIONS = frozenset({"int", "float", "complex", "bool", "str", "bytes", "ord", "chr"})


def _only_converts(try_node: cst.Try) -> bool:
    """The `try` converts values at hand and stores them: it awaits nothing and calls nothing
    but conversion builtins and a container's adders (`nums.append(int(part))`)."""
    calls = 0
    for node in _loop_nodes(try_node.body):
        if isinstance(node, cst.Await):
            return False
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name) and func.value in _CONVERSIONS:
                calls += 1
            elif added_to(node) is None:
                return False
    return calls > 0


def _converts_in_place(loop: cst.For, try_node: cst.Try) -> bool:
    """Every item the `try` stores goes back into the container the loop walks."""
    walked = _walked_names(loop)
    stores = [node for node in _loop_nodes(try_node.body) if isinstance(node, cst.Assign)]
    targets = [target.target for store in stores for target in store.targets]
    in_place = bool(targets) and all(
        isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value in walked
        for target in targets
    )
    return in_place and not _collects([n for n in _loop_nodes(try_node.body) if not isinstance(n, cst.Assign)])


def _walked_names(loop: cst.For) -> set[str]:
    """The names the loop's iterable is made of (`info` in `info.items()`)."""
    return _names_in(loop.iter)


def _names_in(expression: cst.BaseExpression) -> set[str]:
    return {node.value for node in [expression, *own_nodes(expression)] if isinstance(node, cst.Name)}


def _continues(clause: cst.ExceptHandler) -> bool:
    return any(isinstance(node, cst.Continue) for node in _loop_nodes(clause.body))


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
# -- the comprehension form ----------------------------------------------------------
def _assignments(function: cst.FunctionDef) -> dict[str, cst.BaseExpression]:
    values: dict[str, cst.BaseExpression] = {}
    for node in own_nodes(function.body):
        if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
            values[node.targets[0].target.value] = node.value
    return values


def _merging_helper(loop: cst.For, helpers: set[str]) -> str | None:
    """The helper whose per-item lists the loop adds up: `for batch in map(fetch, chunks):
    rows.extend(batch)`, or `rows.extend(fetch(chunk))` in the body."""
    target = loop.target.value if isinstance(loop.target, cst.Name) else None
    for node in _loop_nodes(loop.body):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("extend", "update")):
            continue
        for arg in node.args:
            if isinstance(arg.value, cst.Name) and arg.value.value == target:
                helper = _calls_helper(loop.iter, helpers)
                if helper is not None:
                    return helper
            elif isinstance(arg.value, cst.Call):
                helper = _calls_helper(arg.value, helpers)
                if helper is not None:
                    return helper
    return None


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
            if isinstance(target.operator, cst.IsNot) and is_none_literal(target.comparator):
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
