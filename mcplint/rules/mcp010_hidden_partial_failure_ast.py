"""MCP010 read from CPython's `ast` (the port's twin of ``mcp010_hidden_partial_failure``).

Every judgement reads `ast` nodes; the fix is ``batch_fix``'s, given the LibCST statement,
function, loops and clauses ``context.libcst_of`` gives for them. Where the trees differ:

- LibCST's tree has a ``Name`` for an attribute's name, a keyword argument's, a lambda's
  parameter's (and, in a function's body, an imported name's, a `global`'s, an `except ...
  as`'s, a pattern's), and for ``None``/``True``/``False``: the names the original collects
  (``_names_in``, the names a function's body uses) are read from those fields too
  (``_names``), each keyed by the node that holds it.
- A block is a flat list of statements: where the original reads a block's lines, a block
  whose statements follow its colon on its line (LibCST's ``SimpleStatementSuite``, told by
  the module's text) answers as it does there.
- A call's arguments are ``args`` and ``keywords``: where the original reads ``args[i]``,
  the twin reads the i-th argument as written (``_written_values``).
- The text searched for words that name failures is the returned value's source without its
  comments (the original prints the value's LibCST node, which keeps no comment).
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, cast

import libcst as cst

from mcplint.analysis.empty_values import MUTATORS
from mcplint.analysis.empty_values_ast import caught_names, is_empty_value, is_none_literal
from mcplint.analysis.error_payloads_ast import (
    FAILURE_FLAG_KEYS,
    builds_error,
    is_error_dict,
    is_error_text,
    string_value,
)
from mcplint.analysis.imports_ast import dotted_name, name_text
from mcplint.analysis.source_text import SourceText, is_one_token
from mcplint.analysis.walk_ast import argument_values, body_nodes, children, own_nodes
from mcplint.rules.base import RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.batch_fix import batch_fix
from mcplint.rules.mcp010_hidden_partial_failure import (
    _CLEANUP_CALLS,
    _CONFIGURATION,
    _CONTROL_FLOW,
    _CONVERSIONS,
    _IO_NAME,
    _LOG_CALLS,
    _LOG_RECEIVERS,
    _MALFORMED_RECORD,
    _PARSER_NAME,
    _PURE_BUILTINS,
    ASKED_FOR,
    FAILURE_WORDS,
    HiddenPartialFailure,
    dropped_item_message,
    filtered_items_message,
    merged_items_message,
)

Function = ast.FunctionDef | ast.AsyncFunctionDef
Loop = ast.For | ast.AsyncFor
_FORS = (ast.For, ast.AsyncFor)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# LibCST's `cst.For` is also an `async for`; its `FunctionDef` also an `async def`.
_LOOP_BOUNDARIES = frozenset({ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})
# Statements LibCST puts in a line (`SimpleStatementLine`); the others are compound.
_SMALL = frozenset(
    {
        ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise, ast.Pass, ast.Break,
        ast.Continue, ast.Delete, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.Assert,
    }
)  # fmt: skip


class AstHiddenPartialFailure(HiddenPartialFailure):
    context: AstRuleContext

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._functions: dict[str, Function] = {}  # type: ignore[assignment]
        self._module_statements: dict[str, ast.stmt] = {}  # type: ignore[assignment]
        self._loops: list[tuple[Loop, str]] = []  # type: ignore[assignment]
        self._comprehensions: list[tuple[ast.expr, str]] = []  # type: ignore[assignment]
        self._returns: dict[str, list[ast.Return]] = {}  # type: ignore[assignment]
        self._empty_on_failure: dict[str, ast.ExceptHandler] = {}  # type: ignore[assignment]
        self._open_clauses: list[ast.ExceptHandler] = []  # type: ignore[assignment]

    def visit_FunctionDef(self, node: Function) -> None:  # type: ignore[override]
        qualname = self.context.scopes.qualname_for(node.name)
        self._functions[qualname] = node
        ancestors = self.context.ancestors  # the module first
        holder = ancestors[1] if len(ancestors) > 1 else node
        if isinstance(holder, ast.stmt):
            self._module_statements[qualname] = holder
        self._clauses_open.append(0)

    visit_AsyncFunctionDef = visit_FunctionDef

    def leave_FunctionDef(self, node: Function) -> None:  # type: ignore[override]
        self._clauses_open.pop()

    leave_AsyncFunctionDef = leave_FunctionDef

    # An `except*` clause is LibCST's `ExceptStarHandler`, which the original does not visit.
    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:  # type: ignore[override]
        if not _in_try_star(self.context):
            self._clauses_open[-1] += 1
            self._open_clauses.append(node)

    def leave_ExceptHandler(self, node: ast.ExceptHandler) -> None:  # type: ignore[override]
        if not _in_try_star(self.context):  # the walk has left the clause: its `try` is the last
            self._clauses_open[-1] -= 1
            self._open_clauses.pop()

    def visit_Return(self, node: ast.Return) -> None:  # type: ignore[override]
        function = self.context.scopes.current_function
        if function is None:
            return
        self._returns.setdefault(function, []).append(node)
        if self._clauses_open[-1] and (node.value is None or is_none_literal(node.value)):
            self._none_on_failure.add(function)
        elif self._clauses_open[-1] and type(node.value) is ast.List and not node.value.elts:
            self._empty_on_failure.setdefault(function.rsplit(".", 1)[-1], self._open_clauses[-1])

    def visit_For(self, node: Loop) -> None:  # type: ignore[override]
        function = self.context.scopes.current_function
        if function is not None:
            self._loops.append((node, function))

    visit_AsyncFor = visit_For

    def visit_ListComp(self, node: ast.ListComp) -> None:  # type: ignore[override]
        self._comprehension(node)  # type: ignore[arg-type]

    def visit_SetComp(self, node: ast.SetComp) -> None:  # type: ignore[override]
        self._comprehension(node)  # type: ignore[arg-type]

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:  # type: ignore[override]
        self._comprehension(node)  # type: ignore[arg-type]

    def visit_Call(self, node: ast.Call) -> None:  # type: ignore[override]
        if dotted_name(node.func) == "filter":
            values = argument_values(node)
            if values and is_none_literal(values[0]):
                self._comprehension(node)  # type: ignore[arg-type]

    def finish(self) -> None:
        source = self.context.source
        flagged: dict[str, list[tuple[Loop, list[ast.ExceptHandler]]]] = {}
        local_functions = {qualname.rsplit(".", 1)[-1] for qualname in self._functions}
        imported = frozenset(self.context.imports.imported())
        discarded: dict[str, frozenset[str]] = {}

        def discarded_in(function: str) -> frozenset[str]:
            # Asked only of a loop with a `try` that may drop its item: most loops have none.
            found = discarded.get(function)
            if found is None:
                definition = self._functions.get(function)
                found = _discarded_records(definition, source) if definition is not None else frozenset()
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
                continue
            if _walks_fields(loop.iter) and not _asks_per_key(loop, local_functions, imported):
                continue
            flagged.setdefault(function, []).append((loop, clauses))
        for function, loops in flagged.items():
            definition = self._functions[function]
            statement = self._module_statements.get(function)
            symbol = str(self.settings["item-symbol"])
            fix = self._batch_fix(statement, definition, loops, symbol) if statement is not None else None
            for _, clauses in loops:
                for clause in clauses:
                    record = _record_of(clause, discarded_in(function), source)
                    emptied = sorted(_clause_empties(clause))
                    continues = bool(emptied) and not record and _continues(clause)
                    message = dropped_item_message(record, emptied, continues, definition.name)
                    self.report(
                        clause, message, function=function, handler_kinds=ASKED_FOR, through_return=True, fix=fix  # type: ignore[arg-type]
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
                self.report(node, message, function=function, handler_kinds=ASKED_FOR, through_return=True)  # type: ignore[arg-type]

    def _batch_fix(
        self, statement: ast.stmt, definition: Function, loops: Sequence[tuple[Loop, Sequence[ast.ExceptHandler]]], symbol: str
    ) -> Any:
        """``batch_fix`` on the LibCST nodes made from these (the fix rewrites LibCST's tree)."""
        registry = self.context.registry
        if registry is None or not registry.helpers_module or len(loops) != 1:
            return None  # batch_fix's own first answer: no LibCST tree needed for it
        libcst_of = self.context.libcst_of
        return batch_fix(
            self.context,
            cast(cst.BaseStatement, libcst_of(statement)),
            cast(cst.FunctionDef, libcst_of(definition)),
            [(cast(cst.For, libcst_of(loop)), [cast(cst.ExceptHandler, libcst_of(c)) for c in clauses]) for loop, clauses in loops],
            symbol,
        )

    def _merged_empties(self) -> None:
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
            self.report(clause, merged_items_message(helper), function=function, handler_kinds=ASKED_FOR)  # type: ignore[arg-type]

    def _returns_a_value(self, function: str) -> bool:
        return any(node.value is not None and not is_none_literal(node.value) for node in self._returns.get(function, ()))

    def _says_failures(self, function: str) -> bool:
        if function not in self._returns_failures:
            source = self.context.source
            self._returns_failures[function] = any(
                node.value is not None
                and not _whole_call_failure(node.value, source)
                and _names_failures(node.value, source)
                for node in self._returns.get(function, ())
            )
        return self._returns_failures[function]


def _in_try_star(context: AstRuleContext) -> bool:
    ancestors: list[ast.AST] = context.ancestors  # type: ignore[assignment]
    return type(ancestors[-1]) is ast.TryStar


def _names_failures(value: ast.expr, source: SourceText) -> bool:
    """Whether the value's code, its comments aside, has a word that names failures."""
    text = source.text[source.start(value) : source.end(value)]
    if FAILURE_WORDS.search(text) is None:
        return False
    if "#" not in text:
        return True
    # A comment inside the value (or a `#` in a string): each token but the comments.
    tokens = tokenize.generate_tokens(io.StringIO(f"({text})").readline)
    return any(token.type != tokenize.COMMENT and FAILURE_WORDS.search(token.string) for token in tokens)


# -- LibCST's view of `ast`'s nodes ---------------------------------------------------------
def _names(root: ast.AST) -> Iterator[tuple[int, str]]:
    """The names LibCST's tree has in ``root`` and its own nodes (an attribute's, a keyword
    argument's, a lambda's parameter's, `None`'s among them), each keyed by its holder."""
    for node in own_nodes(root):
        name = _name_held(node)
        if name is not None:
            yield id(node), name


def _name_held(node: ast.AST) -> str | None:
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined, no-any-return]
    if kind is ast.Attribute:
        return node.attr  # type: ignore[attr-defined, no-any-return]
    if kind is ast.keyword or kind is ast.arg:
        return node.arg  # type: ignore[attr-defined, no-any-return]
    if kind is ast.Constant:
        return name_text(node)
    return None


def _statement_names(node: ast.AST) -> list[str]:
    """The names of a statement or clause that are text in `ast` (LibCST's ``Name``s of an
    import, a `global`, an `except ... as`, a pattern)."""
    kind = type(node)
    if kind is ast.alias:
        alias = cast(ast.alias, node)
        return [*alias.name.split("."), *([alias.asname] if alias.asname else [])]
    if kind is ast.ImportFrom:
        module = cast(ast.ImportFrom, node).module
        return module.split(".") if module else []
    if kind is ast.Global or kind is ast.Nonlocal:
        return list(cast(ast.Global, node).names)
    if kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar:
        name = node.name  # type: ignore[attr-defined]
        return [name] if name else []
    if kind is ast.MatchMapping:
        rest = cast(ast.MatchMapping, node).rest
        return [rest] if rest else []
    if kind is ast.MatchClass:
        return list(cast(ast.MatchClass, node).kwd_attrs)
    return []


def _after_colon(source: SourceText, statements: Sequence[ast.stmt]) -> bool:
    """Whether a block's statements follow its colon on its line (LibCST's
    ``SimpleStatementSuite``, whose statements are no lines)."""
    text = source.text
    index = source.offset(statements[0].lineno, statements[0].col_offset) - 1
    while index >= 0 and text[index] in " \t\f":
        index -= 1
    return index >= 0 and text[index] == ":"


def _adder(node: ast.AST) -> ast.expr | None:
    """``added_to``'s receiver as the original finds it (`None` in `None.append(x)` too)."""
    if type(node) is ast.Call:
        func = node.func
        if type(func) is ast.Attribute and func.attr in MUTATORS and name_text(func.value) is not None:
            return func.value
    return None


# -- the function's result ---------------------------------------------------------------
def _whole_call_failure(value: ast.expr, source: SourceText) -> bool:
    if type(value) is ast.Await:
        value = value.value
    if type(value) is ast.Call:
        callee = (dotted_name(value.func) or "").rsplit(".", 1)[-1]
        if callee == "dumps" and (value.args or value.keywords):
            return _whole_call_failure(argument_values(value)[0], source)
        return builds_error(value)
    if type(value) is ast.Dict:
        return _says_it_failed(value, source)
    return is_error_text(value, source)


def _says_it_failed(dictionary: ast.Dict, source: SourceText) -> bool:
    flags = [
        (key, value)
        for key, value in zip(dictionary.keys, dictionary.values, strict=True)
        if key is not None and string_value(key, source) in (*FAILURE_FLAG_KEYS, "status")
    ]
    return any(is_error_dict(ast.Dict(keys=[key], values=[value]), source) for key, value in flags)


# -- the loop form -------------------------------------------------------------------------
def _iterates_configuration(source: ast.expr, assignments: dict[str, ast.expr], depth: int = 3) -> bool:
    # The original reads each Name and Attribute: an attribute's dotted name ends with its own
    # name, a Name there too, so the names decide.
    for _, name in _names(source):
        if name in _CONFIGURATION:
            return True
        if depth > 0 and name in assignments and _iterates_configuration(assignments[name], assignments, depth - 1):
            return True
    return False


def _walks_fields(source: ast.expr) -> bool:
    return (
        type(source) in (ast.Tuple, ast.List, ast.Set)
        and bool(source.elts)  # type: ignore[attr-defined]
        and all(is_one_token(_unstarred(element)) for element in source.elts)  # type: ignore[attr-defined]
    )


def _unstarred(node: ast.expr) -> ast.expr:
    return node.value if type(node) is ast.Starred else node


def _asks_per_key(loop: Loop, local_functions: set[str], imported: frozenset[str]) -> bool:
    for node in _loop_nodes(loop.body):
        if type(node) is not ast.Try:
            continue
        for inner in _loop_nodes(node.body):
            if type(inner) is ast.Await:
                return True
            if type(inner) is not ast.Call:
                continue
            func = inner.func
            name = name_text(func)
            if name is not None:
                if name in local_functions:
                    return True
            elif type(func) is ast.Attribute:
                root = _root_name(func.value)
                if func.attr in local_functions or (
                    _IO_NAME.match(func.attr) and (root in ("self", "cls") or root in imported)
                ):
                    return True
    return False


def _swallowing_clauses(loop: Loop, discarded_of: Callable[[], frozenset[str]] = frozenset) -> list[ast.ExceptHandler]:
    nodes = _loop_nodes(loop.body)
    trys = [node for node in nodes if type(node) is ast.Try]
    if not trys or not _collects(_with_inner_loops(nodes)) or _returns_from(nodes):
        return []
    discarded = discarded_of()
    found = []
    for node in trys:
        assert isinstance(node, ast.Try)
        inner = _loop_nodes(node.body)
        if _ends_the_loop(inner) or _cleans_up(inner):
            continue
        for clause in node.handlers:
            if _swallows(clause, discarded) and (_collects(_with_inner_loops(inner)) or _continues(clause)):
                found.append(clause)
                continue
            emptied = _clause_empties(clause)
            if emptied and emptied <= _assigned_names(inner) and _swallows(clause, discarded, emptied):
                if _fed_from(nodes, node, emptied):
                    found.append(clause)
    return found


def _clause_empties(clause: ast.ExceptHandler) -> set[str]:
    return {
        target.id
        for node in body_nodes(clause.body)
        if type(node) is ast.Assign and type(node.value) in (ast.List, ast.Dict, ast.Tuple) and is_empty_value(node.value)
        for target in node.targets
        if type(target) is ast.Name
    }


def _assigned_names(nodes: list[ast.AST]) -> set[str]:
    return {
        target.id
        for node in nodes
        if type(node) is ast.Assign
        for target in node.targets
        if type(target) is ast.Name
    }


def _fed_from(nodes: list[ast.AST], try_node: ast.Try, names: set[str]) -> bool:
    inside = {id(node) for node in _loop_nodes(try_node)}
    for node in nodes:
        if id(node) in inside or node is try_node:
            continue
        if (
            isinstance(node, _FORS)
            and _names_in(node.iter) & names
            and _collects(_with_inner_loops(_loop_nodes(node.body)))
        ):
            return True
        if _adder(node) is not None and any(_names_in(value) & names for value in argument_values(cast(ast.Call, node))):
            return True
    return False


def _loop_nodes(root: ast.AST | list[ast.stmt]) -> list[ast.AST]:
    """Nodes under ``root`` (a node, or a block's statements) in the same loop: not inside a
    nested loop, function or class; in the original's order."""
    nodes: list[ast.AST] = []
    pending: list[ast.AST] = list(root) if type(root) is list else children(root)  # type: ignore[arg-type]
    while pending:
        node = pending.pop()
        nodes.append(node)
        if type(node) in _LOOP_BOUNDARIES:
            continue
        pending.extend(children(node))
    return nodes


def _with_inner_loops(nodes: list[ast.AST]) -> list[ast.AST]:
    found = list(nodes)
    for node in nodes:
        if isinstance(node, _LOOPS):
            found.extend(_with_inner_loops(_loop_nodes(node.body)))
    return found


def _collects(nodes: list[ast.AST]) -> bool:
    for node in nodes:
        kind = type(node)
        if kind is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and func.attr in MUTATORS:
                return True
        elif kind is ast.Assign:
            if any(type(target) is ast.Subscript for target in node.targets):  # type: ignore[attr-defined]
                return True
        elif kind is ast.AugAssign:
            return True
    return False


def _returns_from(nodes: list[ast.AST]) -> bool:
    return any(type(node) is ast.Return for node in nodes)


def _ends_the_loop(nodes: list[ast.AST]) -> bool:
    return any(type(node) is ast.Return or type(node) is ast.Break for node in nodes)


def _cleans_up(nodes: list[ast.AST]) -> bool:
    return any(
        type(node) is ast.Call and (dotted_name(node.func) or "").split(".")[-1] in _CLEANUP_CALLS
        for node in nodes
    )


def _swallows(clause: ast.ExceptHandler, discarded: frozenset[str] = frozenset(), emptied: set[str] | None = None) -> bool:
    if clause.type is not None:
        names = caught_names(clause.type)
        if names & _CONTROL_FLOW:
            return False
    # LibCST's lines hold the statements as `ast` lists them, a suite's too.
    return all(
        _drops(statement) or _records_in(statement, discarded) or (emptied is not None and _empties(statement, emptied))
        for statement in clause.body
    )


def _empties(statement: ast.stmt, names: set[str]) -> bool:
    return (
        type(statement) is ast.Assign
        and all(type(t) is ast.Name and t.id in names for t in statement.targets)
        and is_empty_value(statement.value)
    )


def _record_of(clause: ast.ExceptHandler, names: frozenset[str], source: SourceText) -> str | None:
    if _after_colon(source, clause.body):
        return None  # the original reads the statements of lines, and a suite has none
    for statement in clause.body:
        name = _recorded_in(statement)
        if name is not None and name_text(name) in names:
            return name_text(name)
    return None


def _recorded_in(statement: ast.AST) -> ast.expr | None:
    return _adder(statement.value) if type(statement) is ast.Expr else None


def _records_in(statement: ast.stmt, names: frozenset[str]) -> bool:
    name = _recorded_in(statement)
    return name is not None and name_text(name) in names


def _discarded_records(function: Function, source: SourceText) -> frozenset[str]:
    harmless: set[int] = set()
    recorded: set[str] = set()
    names: list[tuple[int, str]] = []
    used: set[str] = set()  # names no answer can make harmless (an import's, a `global`'s, ...)
    for node in body_nodes(function.body):
        kind = type(node)
        held = _name_held(node)
        if held is not None:
            names.append((id(node), held))
        elif kind is ast.Assign:
            harmless.update(id(name) for name in _emptied_names(node.targets, node.value))  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
            harmless.update(id(name) for name in _emptied_names([node.target], node.value))  # type: ignore[attr-defined]
        elif kind is ast.Expr and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            receiver = _recorded_in(node)
            if receiver is not None:
                recorded.add(name_text(receiver) or "")
                harmless.add(id(receiver))
            elif _is_logging(node.value):  # type: ignore[attr-defined]
                harmless.update(_name_ids(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Return and node.value is not None and _whole_call_failure(node.value, source):  # type: ignore[attr-defined]
            harmless.update(_name_ids(node.value))  # type: ignore[attr-defined]
        elif kind is ast.If and _only_fails_or_logs(node.body, source):  # type: ignore[attr-defined]
            harmless.update(_name_ids(node.test))  # type: ignore[attr-defined]
        elif (kind is ast.For or kind is ast.AsyncFor) and _only_fails_or_logs(node.body, source):  # type: ignore[attr-defined]
            harmless.update(_name_ids(node.iter))  # type: ignore[attr-defined]
        if kind in _TEXT_NAMES:
            used.update(_statement_names(node))
    used.update(name for key, name in names if key not in harmless)
    return frozenset(recorded - used)


# What holds names as text (``_statement_names``): never in an expression, never harmless.
_TEXT_NAMES = frozenset(
    {ast.alias, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping, ast.MatchClass}
)


def _emptied_names(targets: list[ast.expr], value: ast.expr) -> list[ast.expr]:
    found: list[ast.expr] = []
    for target in targets:
        if type(target) is ast.Name and is_empty_value(value):
            found.append(target)
        elif type(target) is ast.Tuple and type(value) is ast.Tuple and len(target.elts) == len(value.elts):
            found.extend(
                _unstarred(element)
                for element, item in zip(target.elts, value.elts, strict=True)
                if type(_unstarred(element)) is ast.Name and is_empty_value(_unstarred(item))
            )
    return found


def _name_ids(root: ast.AST) -> set[int]:
    return {key for key, _ in _names(root)}


def _only_fails_or_logs(body: list[ast.stmt], source: SourceText) -> bool:
    if _after_colon(source, body):
        return False  # LibCST's suite: its statements are no lines, which the original reads
    for line in body:
        kind = type(line)
        if kind is ast.For or kind is ast.AsyncFor:
            if not _only_fails_or_logs(line.body, source):  # type: ignore[attr-defined]
                return False
            continue
        if kind not in _SMALL:
            return False
        if kind is ast.Raise:
            continue
        if kind is ast.Return and line.value is not None and _whole_call_failure(line.value, source):  # type: ignore[attr-defined]
            continue
        if kind is ast.Expr and type(line.value) is ast.Call and _is_logging(line.value):  # type: ignore[attr-defined]
            continue
        if kind is ast.Assign and type(line.value) is ast.Call and _is_logging_setup(line.value):  # type: ignore[attr-defined]
            continue
        return False
    return True


def _is_logging_setup(call: ast.Call) -> bool:
    return (dotted_name(call.func) or "").endswith("getLogger")


def _filters_malformed_records(
    loop: Loop,
    clause: ast.ExceptHandler,
    function: Function,
    local_functions: set[str],
    imported: frozenset[str] = frozenset(),
) -> bool:
    try_node = next(
        node for node in _loop_nodes(loop.body) if type(node) is ast.Try and clause in node.handlers
    )
    assert isinstance(try_node, ast.Try)
    if _converts_in_place(loop, try_node) and not _continues(clause):
        return True
    params = function.args
    parameters = {param.arg for param in (*params.posonlyargs, *params.args, *params.kwonlyargs)}
    converts = _only_converts(try_node)
    if converts and not _collects(_loop_nodes(try_node.body)):
        return True
    if _walked_names(loop) & parameters:
        return False
    if converts:
        return True
    if clause.type is None:
        return False
    if not caught_names(clause.type) <= _MALFORMED_RECORD:
        return _only_parses(try_node, local_functions, imported)
    for node in _loop_nodes(try_node.body):
        if type(node) is ast.Await:
            return False
        if type(node) is ast.Call:
            callee = dotted_name(node.func) or ""
            if callee.rsplit(".", 1)[-1] in local_functions:
                return False
    return True


def _only_parses(try_node: ast.Try, local_functions: set[str], imported: frozenset[str]) -> bool:
    for node in _loop_nodes(try_node.body):
        if type(node) is ast.Await:
            return False
        if type(node) is not ast.Call or _adder(node) is not None:
            continue
        assert isinstance(node, ast.Call)
        func = node.func
        name = name_text(func)
        if name is not None:
            if _PARSER_NAME.match(name) or name in _PURE_BUILTINS or (name[:1].isupper() and name not in local_functions):
                continue
            return False
        if type(func) is not ast.Attribute:
            return False
        method = func.attr
        if _PARSER_NAME.match(method):
            continue
        root = _root_name(func.value)
        if root is None or root in ("self", "cls") or root in imported:
            return False
        if method == "get":
            values = argument_values(node)
            if values and is_one_token(values[0]):
                continue
        if _IO_NAME.match(method) or method in ("result", "wait"):
            return False
    return True


def _root_name(expression: ast.expr) -> str | None:
    while True:
        kind = type(expression)
        if kind is ast.Name:
            return expression.id  # type: ignore[attr-defined, no-any-return]
        if kind is ast.Attribute or kind is ast.Subscript:
            expression = expression.value  # type: ignore[attr-defined]
        elif kind is ast.Call:
            expression = expression.func  # type: ignore[attr-defined]
        elif kind is ast.JoinedStr:
            return ""
        elif kind is ast.Constant:
            value = expression.value  # type: ignore[attr-defined]
            if type(value) is str or type(value) is bytes:
                return ""  # a literal's method (`", ".join(...)`)
            return name_text(expression)  # `None` and the like: names in LibCST's tree
        else:
            return None


def _only_converts(try_node: ast.Try) -> bool:
    calls = 0
    for node in _loop_nodes(try_node.body):
        if type(node) is ast.Await:
            return False
        if type(node) is ast.Call:
            func = node.func
            if type(func) is ast.Name and func.id in _CONVERSIONS:
                calls += 1
            elif _adder(node) is None:
                return False
    return calls > 0


def _converts_in_place(loop: Loop, try_node: ast.Try) -> bool:
    walked = _walked_names(loop)
    stores = [node for node in _loop_nodes(try_node.body) if type(node) is ast.Assign]
    targets = [target for store in stores for target in store.targets]
    in_place = bool(targets) and all(
        type(target) is ast.Subscript and name_text(target.value) in walked for target in targets
    )
    return in_place and not _collects([n for n in _loop_nodes(try_node.body) if type(n) is not ast.Assign])


def _walked_names(loop: Loop) -> set[str]:
    return _names_in(loop.iter)


def _names_in(expression: ast.expr) -> set[str]:
    return {name for _, name in _names(expression)}


def _continues(clause: ast.ExceptHandler) -> bool:
    return any(type(node) is ast.Continue for node in _loop_nodes(clause.body))


def _drops(statement: ast.stmt) -> bool:
    kind = type(statement)
    if kind is ast.Pass or kind is ast.Continue:
        return True
    if kind is ast.Expr:
        value = statement.value  # type: ignore[attr-defined]
        if type(value) is ast.Await:
            value = value.value
        return type(value) is ast.Call and _is_logging(value)
    return False


def _is_logging(call: ast.Call) -> bool:
    name = dotted_name(call.func)
    if name is None:
        return False
    if name == "print":
        return True
    receiver, _, method = name.rpartition(".")
    return method in _LOG_CALLS and receiver.split(".")[-1] in _LOG_RECEIVERS


# -- the comprehension form ----------------------------------------------------------------
def _assignments(function: Function) -> dict[str, ast.expr]:
    values: dict[str, ast.expr] = {}
    for node in body_nodes(function.body):
        if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:
            values[node.targets[0].id] = node.value
    return values


def _merging_helper(loop: Loop, helpers: set[str]) -> str | None:
    target = loop.target.id if type(loop.target) is ast.Name else None
    for node in _loop_nodes(loop.body):
        if not (type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in ("extend", "update")):
            continue
        for value in argument_values(node):
            if type(value) is ast.Name:
                if value.id == target:
                    helper = _calls_helper(loop.iter, helpers)
                    if helper is not None:
                        return helper
            elif type(value) is ast.Call:
                helper = _calls_helper(value, helpers)
                if helper is not None:
                    return helper
    return None


def _filtered_helper(node: ast.expr, helpers: set[str], assignments: dict[str, ast.expr]) -> str | None:
    source: ast.expr | None
    if type(node) is ast.Call:  # filter(None, source)
        values = argument_values(node)
        source = values[1] if len(values) > 1 else None
    elif isinstance(node, _COMPREHENSIONS) and _drops_nones(node):
        source = node.generators[0].iter
    else:
        return None
    if type(source) is ast.Name and source.id in assignments:
        source = assignments[source.id]
    return _calls_helper(source, helpers) if source is not None else None


def _drops_nones(node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> bool:
    for test in node.generators[0].ifs:
        if name_text(test) is not None:
            return True
        if (
            type(test) is ast.Compare
            and len(test.ops) == 1
            and type(test.ops[0]) is ast.IsNot
            and is_none_literal(test.comparators[0])
        ):
            return True
    return False


def _calls_helper(expression: ast.expr, helpers: set[str]) -> str | None:
    # The original lists the root, then its own nodes (the root first again): the same order.
    for node in own_nodes(expression):
        if type(node) is not ast.Call:
            continue
        name = (dotted_name(node.func) or "").split(".")[-1]
        if name in helpers:
            return name
        if name == "map":
            values = argument_values(node)
            if values:
                mapped = (dotted_name(values[0]) or "").split(".")[-1]
                if mapped in helpers:
                    return mapped
    return None
