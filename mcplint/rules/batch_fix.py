"""MCP010's fix: a tool whose batch loops drop failed items records every item instead.

The tool gets a ``BatchResult`` (the generated helpers' partial-failure result) before
its first such loop; each swallowing ``except`` records its item as failed with the
registry's item symbol (``batch.failed(index, app_error("BATCH_ITEM_FAILED"))``), the
``try``'s ``else`` records it as applied, and the tool's final ``return value`` becomes
``return batch.tool_result(value)``: the value the tool built, under ``result``, with a
status per item beside it and ``isError`` when no item succeeded.

The item is its position: ``for note in notes`` becomes ``for index, note in
enumerate(notes)``; a loop over ``enumerate(...)`` keeps its index, one over
``X.items()`` its key. Only where the rewrite is sure: a high-level tool itself (the
loop in the registered function), one such loop in it (two would share the
indexes), a final ``return`` of a dict or list the tool
builds, a return annotation that lets a tool result through, plain ``for`` loops
(``enumerate`` does not take an async iterable), and names that are free.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.imports import dotted_name
from mcplint.finding import UNSAFE
from mcplint.rules.base import FixSpec, RuleContext
from mcplint.rules.registry_fix import TOOLS, result_allowed, symbol_call

BATCH_CLASS = "BatchResult"
_BATCH_NAMES = ("batch", "batch_result", "item_statuses")
_INDEX_NAMES = ("index", "item_index", "position")
# Values a tool builds: `{...}`, `[...]`, and a local bound to one (`results = []`).
_BUILT = (cst.Dict, cst.List, cst.DictComp, cst.ListComp)


def batch_fix(
    context: RuleContext,
    statement: cst.BaseStatement,
    function: cst.FunctionDef,
    loops: Sequence[tuple[cst.For, Sequence[cst.ExceptHandler]]],
    symbol: str,
) -> FixSpec | None:
    """``statement``, the module-level statement holding ``function`` (the function itself, or
    its class, or the `register(mcp)` it is defined in), rewritten: one edit for all the
    function's findings, at the module's own indentation, or None when unsure."""
    registry = context.registry
    if registry is None or not registry.helpers_module or len(loops) != 1:
        return None  # two loops' items would share one result's indexes
    error = symbol_call(context, symbol)
    if error is None:
        return None  # the item symbol is not registered: nothing to record a failure as
    if not result_allowed(function.returns.annotation if function.returns is not None else None):
        return None
    final = _final_return(function)
    if final is None or any(loop.asynchronous is not None for loop, _ in loops):
        return None
    taken = {node.value for node in own_nodes(function) if isinstance(node, cst.Name)}
    batch = next((name for name in _BATCH_NAMES if name not in taken), None)
    index = next((name for name in _INDEX_NAMES if name not in taken), None)
    if batch is None or index is None:
        return None
    rewrite = _Rewrite(function, loops, final, batch, index, error)
    replacement = statement.visit(rewrite)
    if not rewrite.complete or not isinstance(replacement, cst.BaseStatement):
        return None
    if not isinstance(error.func, cst.Name):
        return None  # the helper is called by name (symbol_call builds `helper("SYMBOL")`)
    helper = error.func.value
    message = f"Record every item in a `{BATCH_CLASS}` and return its result (failures as `{symbol}`)"
    imports = ((registry.helpers_module, BATCH_CLASS), (registry.helpers_module, helper))
    return FixSpec(
        statement, replacement, message, UNSAFE, imports, TOOLS, in_handler=True, low_level=False
    )


def _final_return(function: cst.FunctionDef) -> cst.Return | None:
    """The function's last statement, `return <a dict or list it builds>`."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock) or not body.body:
        return None
    last = body.body[-1]
    if not isinstance(last, cst.SimpleStatementLine) or len(last.body) != 1 or not isinstance(last.body[0], cst.Return):
        return None
    value = last.body[0].value
    if isinstance(value, _BUILT):
        return last.body[0]
    if isinstance(value, cst.Name) and _bound_to_built(function, value.value):
        return last.body[0]
    return None


def _bound_to_built(function: cst.FunctionDef, name: str) -> bool:
    values = [
        node.value
        for node in own_nodes(function.body)
        if isinstance(node, cst.Assign)
        and any(isinstance(target.target, cst.Name) and target.target.value == name for target in node.targets)
    ]
    return bool(values) and all(_is_built(value) for value in values)


def _is_built(value: cst.BaseExpression) -> bool:
    if isinstance(value, (*_BUILT, cst.Set, cst.SetComp)):
        return True
    return isinstance(value, cst.Call) and dotted_name(value.func) in ("dict", "list", "set") and not value.args


class _Rewrite(cst.CSTTransformer):
    """Applies the fix to one function; ``complete`` tells whether every part found its place."""

    def __init__(
        self,
        function: cst.FunctionDef,
        loops: Sequence[tuple[cst.For, Sequence[cst.ExceptHandler]]],
        final: cst.Return,
        batch: str,
        index: str,
        error: cst.Call,
    ) -> None:
        self.function = function
        self.final = final
        self.batch = batch
        self.index = index
        self.error = error
        self.loops = {id(loop): loop for loop, _ in loops}
        self.clauses = {id(clause) for _, clauses in loops for clause in clauses}
        # The `try` of each clause, and the key of its loop, found on the way down.
        self.keys: dict[int, cst.BaseExpression] = {}  # id(loop) -> the item's key
        self.try_keys: dict[int, cst.BaseExpression] = {}  # id(try) -> the item's key
        self.clause_keys: dict[int, cst.BaseExpression] = {}  # id(clause) -> the item's key
        self.first_statement = _first_statement_with(function, set(self.loops))
        self.fixed: set[int] = set()
        self.complete = False

    # -- going down: the key of each loop, for its trys and clauses ---------------------
    def visit_For(self, node: cst.For) -> bool:
        if id(node) in self.loops:
            key = _existing_key(node)
            self.keys[id(node)] = key if key is not None else cst.Name(self.index)
            for inner in own_nodes(node.body):
                if isinstance(inner, cst.Try):
                    for clause in inner.handlers:
                        if id(clause) in self.clauses:
                            self.try_keys[id(inner)] = self.keys[id(node)]
                            self.clause_keys[id(clause)] = self.keys[id(node)]
        return True

    # -- coming up -------------------------------------------------------------------------
    def leave_ExceptHandler(self, original: cst.ExceptHandler, updated: cst.ExceptHandler) -> cst.ExceptHandler:
        key = self.clause_keys.get(id(original))
        if key is None:
            return updated
        self.fixed.add(id(original))
        record = _statement(_call(self.batch, "failed", key, self.error))
        statements = [line for line in _lines(updated.body) if not _is_pass(line)]
        position = next((i for i, line in enumerate(statements) if _is_continue(line)), len(statements))
        statements.insert(position, record)
        return updated.with_changes(body=_block(updated.body, statements))

    def leave_Try(self, original: cst.Try, updated: cst.Try) -> cst.Try:
        key = self.try_keys.get(id(original))
        if key is None:
            return updated
        record = _statement(_call(self.batch, "applied", key))
        if updated.orelse is None:
            return updated.with_changes(orelse=cst.Else(body=cst.IndentedBlock(body=[record])))
        body = _block(updated.orelse.body, [*_lines(updated.orelse.body), record])
        return updated.with_changes(orelse=updated.orelse.with_changes(body=body))

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        if id(original) not in self.loops or _existing_key(original) is not None:
            return updated
        target = updated.target
        if isinstance(target, cst.Tuple):
            target = target.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if not target.lpar else target
        pair = cst.Tuple([cst.Element(cst.Name(self.index)), cst.Element(target)], lpar=[], rpar=[])
        enumerated = cst.Call(cst.Name("enumerate"), [cst.Arg(updated.iter)])
        return updated.with_changes(target=pair, iter=enumerated)

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if original is not self.final or updated.value is None:
            return updated
        result = cst.Call(cst.Attribute(cst.Name(self.batch), cst.Name("tool_result")), [cst.Arg(updated.value)])
        return updated.with_changes(value=result)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        if original is not self.function or self.first_statement is None:
            return updated
        body = updated.body
        assert isinstance(body, cst.IndentedBlock)
        position = self.first_statement
        create = cst.Call(cst.Name(BATCH_CLASS), [])
        init = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(self.batch))], create)])
        self.complete = self.fixed == self.clauses
        return updated.with_changes(body=body.with_changes(body=[*body.body[:position], init, *body.body[position:]]))


def _first_statement_with(function: cst.FunctionDef, loops: set[int]) -> int | None:
    """The position in the function's body of the first statement holding one of the loops."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock):
        return None
    for position, statement in enumerate(body.body):
        if id(statement) in loops or any(id(node) in loops for node in own_nodes(statement)):
            return position
    return None


def _existing_key(loop: cst.For) -> cst.BaseExpression | None:
    """`for i, x in enumerate(...)`: `i`; `for k, v in d.items()`: `k`; else None."""
    target, source = loop.target, loop.iter
    if not isinstance(target, cst.Tuple) or len(target.elements) != 2 or not isinstance(source, cst.Call):
        return None
    first = target.elements[0].value
    if not isinstance(first, cst.Name):
        return None
    name = dotted_name(source.func) or ""
    if name == "enumerate" or (name.endswith(".items") and not source.args):
        return cst.Name(first.value)
    return None


def _call(receiver: str, method: str, *arguments: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Attribute(cst.Name(receiver), cst.Name(method)), [cst.Arg(value) for value in arguments])


def _statement(call: cst.Call) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Expr(call)])


def _lines(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """A block's statements, one a line (`except X: continue` is one line with its header)."""
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine([statement]) for statement in block.body]
    assert isinstance(block, cst.IndentedBlock)
    return list(block.body)


def _block(block: cst.BaseSuite, statements: list[cst.BaseStatement]) -> cst.IndentedBlock:
    """``block`` (its header comment kept) holding ``statements``."""
    if isinstance(block, cst.IndentedBlock):
        return block.with_changes(body=statements)
    return cst.IndentedBlock(body=statements)


def _is_pass(line: cst.BaseStatement) -> bool:
    return isinstance(line, cst.SimpleStatementLine) and all(isinstance(part, cst.Pass) for part in line.body)


def _is_continue(line: cst.BaseStatement) -> bool:
    return isinstance(line, cst.SimpleStatementLine) and any(isinstance(part, cst.Continue) for part in line.body)
