"""``handlers_ast`` against ``handlers``: the facts collector's tables after the walk, and the
helpers that read nodes on every node.

The original runs as in a lint (``engine/lint.py::_walk``): its collector is a
``RuleContext``'s, walked with the context's scope tracker, imports, loggers and locals; the
guards around each call are read there, during that walk (``RuleContext.enclosing_guards``),
and the twin's ``guards_of`` answers them for the call's `ast` node; its translators are the
context's after the walk (what it asks, it asks of those answers).

Nodes compare through ``paired.pairs``: a LibCST node stored in a table is equal to the `ast`
node it was built from. A ``Decorator`` stored in ``FunctionInfo.decorators`` maps through its
expression (the twin stores the expression), an ``Arg`` of ``class_bases`` through its value
(the twin stores the value). Sets compare as sets, dicts as their items in order, the rest as
they are.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import libcst as cst

from mcplint.analysis import handlers, handlers_ast, imports_ast
from mcplint.analysis.catching import Guards
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.imports_ast import AstImportTable
from mcplint.analysis.scopes_ast import AstScopeTracker
from mcplint.analysis.source_text import SourceText
from mcplint.analysis.walk import Walker
from mcplint.analysis.walk_ast import AstWalker
from mcplint.engine.ast_pairs import PairedTree
from mcplint.rules.base import RuleContext


class _Node:
    """A stored node, equal to another for the same `ast` node."""

    def __init__(self, node: ast.AST | None, kind: str = "") -> None:
        self.node = node
        self.kind = kind or type(node).__name__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Node) and self.node is not None and self.node is other.node

    def __hash__(self) -> int:
        return id(self.node)

    def __repr__(self) -> str:
        if self.node is None:
            return f"<unpaired {self.kind}>"
        return f"{self.kind}@{getattr(self.node, 'lineno', '?')}:{getattr(self.node, 'col_offset', '?')}"


def _plain(value: Any, node_of: Callable[[Any], _Node | None]) -> Any:
    """``value`` with its nodes as ``_Node``s, its dicts as item lists, its sets frozen."""
    if type(value) in _SCALARS:
        return value
    node = node_of(value)
    if node is not None:
        return node
    if isinstance(value, handlers.FunctionInfo):
        return {
            field.name: _plain(getattr(value, field.name), node_of)
            for field in dataclasses.fields(value)
            if field.name != "_guards"
        }
    if isinstance(value, handlers._Registration):
        return (_plain(value.call, node_of), value.context_key, value.context_class)
    if isinstance(value, dict):
        return [(_plain(key, node_of), _plain(item, node_of)) for key, item in value.items()]
    if isinstance(value, (set, frozenset)):
        return frozenset(_plain(item, node_of) for item in value)
    if isinstance(value, tuple):
        return tuple(_plain(item, node_of) for item in value)
    if isinstance(value, list):
        return [_plain(item, node_of) for item in value]
    return value


_SCALARS = frozenset({str, int, bool, type(None)})


def _libcst_nodes(paired: PairedTree) -> Callable[[Any], _Node | None]:
    def node_of(value: Any) -> _Node | None:
        kind = type(value)
        if kind is cst.Decorator:
            value = value.decorator  # the twin keeps the expression
        elif kind is cst.Arg:
            value = value.value  # a class base: the twin keeps its value
        elif not _is_libcst_node(kind):
            return None
        made_from = paired.pairs.get(id(value))
        return _Node(made_from) if made_from is not None else _Node(None, type(value).__name__)

    return node_of


@functools.cache
def _is_libcst_node(kind: type) -> bool:
    return issubclass(kind, cst.CSTNode)  # LibCST's node classes are ABCs: `isinstance` is slow


def _ast_nodes(value: Any) -> _Node | None:
    return _Node(value) if isinstance(value, ast.AST) else None


@dataclasses.dataclass
class Walked:
    """Both sides' facts and import tables after their walks."""

    facts: handlers.HandlerFactsCollector
    imports: ImportTable
    twin: handlers_ast.AstHandlerFactsCollector
    twin_imports: AstImportTable
    problems: list[str]  # what went wrong asking for guards


def walked(paired: PairedTree, package: str | None = None) -> Walked:
    """Both collectors after their walks (with ``package``'s import tables)."""
    context = RuleContext([], package=package)
    guards: dict[int, Guards] = {}

    class GuardRecorder:
        def visit_Call(self, node: cst.Call) -> None:
            guards[id(node)] = context.enclosing_guards(node)

    walker = Walker(
        [context.scopes, context.imports, context.facts, context.loggers, context.locals, context, GuardRecorder()]
    )
    context.ancestors = walker.ancestors
    walker.walk(paired.module)
    by_ast = {id(paired.pairs[key]): found for key, found in guards.items()}
    problems: list[str] = []

    def guards_of(node: ast.AST) -> Guards:
        found = by_ast.get(id(node))
        if found is None:
            problems.append(f"{_Node(node)}: guards asked of a node that is no call")
            return ()
        return found

    tracker = AstScopeTracker()
    imports = AstImportTable(package)
    twin = handlers_ast.AstHandlerFactsCollector(tracker, guards_of, context.translators, text=paired.text)
    AstWalker([tracker, imports, twin]).walk(paired.tree)
    return Walked(context.facts, context.imports, twin, imports, problems)


def facts_tables(paired: PairedTree) -> list[str]:
    """Every table of the collector (its public attributes) holds the same after the walk;
    each function's ``FunctionInfo`` field by field; and ``module_aliases`` over them."""
    both = walked(paired)
    original, twin, problems = both.facts, both.twin, both.problems
    libcst_node = _libcst_nodes(paired)
    for name in vars(original):
        if name.startswith("_"):
            continue
        expected, found = _plain(getattr(original, name), libcst_node), _plain(getattr(twin, name, None), _ast_nodes)
        if expected == found:
            continue
        if name == "functions":
            problems.extend(_function_differences(expected, found))
        else:
            problems.append(f"{name}: {_first_difference(expected, found)}")
    summaries = {key: key for key in original.functions}
    expected_aliases = handlers.module_aliases(original.aliases, summaries)
    found_aliases = handlers_ast.module_aliases(twin.aliases, summaries)
    if expected_aliases != found_aliases:
        problems.append(f"module_aliases: {expected_aliases} != {found_aliases}")
    return problems


def _function_differences(expected: list[tuple[str, Any]], found: list[tuple[str, Any]]) -> list[str]:
    if [key for key, _ in expected] != [key for key, _ in found]:
        return [f"functions: {[key for key, _ in expected]} != {[key for key, _ in found]}"]
    problems = []
    for (key, expected_info), (_, found_info) in zip(expected, found, strict=True):
        for field, value in expected_info.items():
            if value != found_info[field]:
                problems.append(f"functions[{key}].{field}: {_first_difference(value, found_info[field])}")
    return problems


def _first_difference(expected: Any, found: Any) -> str:
    if isinstance(expected, list) and isinstance(found, list):
        for index, (left, right) in enumerate(zip(expected, found, strict=False)):
            if left != right:
                return f"[{index}] {left!r} != {right!r}"
        return f"{len(expected)} items != {len(found)}: {expected[len(found) :]!r} / {found[len(expected) :]!r}"
    if isinstance(expected, frozenset) and isinstance(found, frozenset):
        return f"only original {sorted(map(repr, expected - found))}, only twin {sorted(map(repr, found - expected))}"
    return f"{expected!r} != {found!r}"


_COMPOUND = frozenset({cst.If, cst.For, cst.While, cst.With, cst.FunctionDef, cst.ClassDef, cst.Try})


def _suites(node: cst.CSTNode, made_from: ast.AST) -> list[tuple[cst.BaseSuite, list[ast.stmt]]]:
    """A compound statement's blocks with their `ast` statements (an `else:`'s, not an `elif`)."""
    if type(node) in _COMPOUND:
        found = [(node.body, made_from.body)]  # type: ignore[attr-defined]
        orelse = getattr(node, "orelse", None)
        if isinstance(orelse, cst.Else):
            found.append((orelse.body, made_from.orelse))  # type: ignore[attr-defined]
        return found
    if type(node) is cst.ExceptHandler:
        return [(node.body, made_from.body)]  # type: ignore[attr-defined]
    return []


def helpers_on_every_node(paired: PairedTree) -> list[str]:
    """The helpers that read nodes answer the same on every expression, call, dict, subscript
    and block (nodes compared through ``paired.pairs``). (The functions of empty_values,
    error_payloads and catching the collector calls are their twins', checked by their own
    checks.)"""
    source = SourceText(paired.text)
    node_of = _libcst_nodes(paired)
    problems: list[str] = []

    def compare(what: str, made_from: ast.AST, expected: Any, found: Any) -> None:
        if type(expected) not in _SCALARS or type(found) not in _SCALARS:
            expected, found = _plain(expected, node_of), _plain(found, _ast_nodes)
        if expected != found:
            problems.append(f"{_Node(made_from)}: {what}: {expected!r} != {found!r}")

    twin = handlers_ast
    for node, made_from in paired.paired_nodes:
        for suite, statements in _suites(node, made_from):
            compare("_answers", made_from, handlers._answers(suite), twin._answers(statements, source))
            compare("_raises", made_from, handlers._raises(suite), twin._raises(statements, source))
        if not isinstance(made_from, ast.expr):
            continue
        expression: Any = made_from
        compare("dotted name", made_from, dotted_name(node), imports_ast.dotted_name(expression))
        compare("_callee", made_from, handlers._callee(node), twin._callee(expression))
        compare("_carried_values", made_from, handlers._carried_values(node), twin._carried_values(expression))
        compare(
            "_is_empty_literal", made_from, handlers._is_empty_literal(node), twin._is_empty_literal(expression, source)
        )
        compare("_marks_errors", made_from, handlers._marks_errors(node), twin._marks_errors(expression))
        compare("_partial_of", made_from, handlers._partial_of(node), twin._partial_of(expression))
        compare(
            "_annotation_types",
            made_from,
            list(handlers._annotation_types(node)),
            list(twin._annotation_types(expression, source)),
        )
        compare(
            "_table_functions",
            made_from,
            list(handlers._table_functions(node)),
            list(twin._table_functions(expression, source)),
        )
        compare("_cst_name", made_from, handlers._cst_name(node), twin._cst_name(expression))
        compare("_cst_parts", made_from, handlers._cst_parts(node), twin._cst_parts(expression))
        compare("_message_tested", made_from, handlers._message_tested(node), twin._message_tested(expression, source))
        compare("_rows_of", made_from, handlers._rows_of(node), twin._rows_of(expression, source))
        kind = type(node)
        if kind is cst.Call:
            compare("_message_sent", made_from, handlers._message_sent(node), twin._message_sent(expression, source))
            compare(
                "_is_super_registration",
                made_from,
                handlers._is_super_registration(node),
                twin._is_super_registration(expression),
            )
            compare(
                "_is_super_call",
                made_from,
                handlers._is_super_call(node, handlers.SERVER_DISPATCH_METHODS),
                twin._is_super_call(expression, handlers.SERVER_DISPATCH_METHODS),
            )
            compare("_tool_wrapped", made_from, handlers._tool_wrapped(node), twin._tool_wrapped(expression))
        elif kind is cst.Dict:
            compare(
                "_table_values", made_from, list(handlers._table_values(node)), list(twin._table_values(expression))
            )
        elif kind is cst.Subscript:
            compare("_table_of", made_from, handlers._table_of(node), twin._table_of(expression))
    return problems


CHECKS = [facts_tables, helpers_on_every_node]
