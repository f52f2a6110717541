"""The walk's shared tables read from `ast` against their LibCST originals: the scope
tracker (``scopes_ast``), the locals (``locals_ast``) and the module's logger
(``loggers_ast``)."""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst

from mcplint.analysis import imports, imports_ast, locals, locals_ast, loggers, loggers_ast, scopes, scopes_ast
from mcplint.analysis.walk import Walker
from mcplint.analysis.walk_ast import AstWalker
from mcplint.engine.ast_pairs import PairedTree


def _recorder(node_classes: list[type], seen: dict[int, Any], state: Any) -> object:
    """A visitor of every class in ``node_classes`` noting ``state()`` at each node (by id)."""

    def visit(self: object, node: object) -> None:
        seen[id(node)] = state()

    namespace = {f"visit_{kind.__name__}": visit for kind in node_classes}
    return type("Recorder", (), namespace)()


_LIBCST_CLASSES = [kind for kind in vars(cst).values() if isinstance(kind, type) and issubclass(kind, cst.CSTNode)]
_AST_CLASSES = [kind for kind in vars(ast).values() if isinstance(kind, type) and issubclass(kind, ast.AST)]


def scope_at_each_node(paired: PairedTree) -> list[str]:
    """At every node, the enclosing function and the whole frame stack are the same."""
    tracker = scopes.ScopeTracker()
    libcst_seen: dict[int, Any] = {}
    Walker([tracker, _recorder(_LIBCST_CLASSES, libcst_seen, lambda: (tracker.current_function, tuple(tracker.frames)))]).walk(paired.module)
    twin = scopes_ast.AstScopeTracker()
    ast_seen: dict[int, Any] = {}
    AstWalker([twin, _recorder(_AST_CLASSES, ast_seen, lambda: (twin.current_function, tuple(twin.frames)))]).walk(paired.tree)
    problems = []
    for node, made_from in paired.paired_nodes:
        expected, found = libcst_seen.get(id(node)), ast_seen.get(id(made_from))
        if expected != found:
            problems.append(f"{_at(made_from)} {type(made_from).__name__}: scope {expected} != {found}")
    return problems


def local_values(paired: PairedTree) -> list[str]:
    """Each function's locals hold the same values, in the same order (an element of a tuple
    assignment as the element's index in the paired value)."""
    tracker = scopes.ScopeTracker()
    assignments = locals.LocalAssignments(tracker)
    Walker([tracker, assignments]).walk(paired.module)
    twin_tracker = scopes_ast.AstScopeTracker()
    twin = locals_ast.AstLocalAssignments(twin_tracker)
    AstWalker([twin_tracker, twin]).walk(paired.tree)
    expected = {key: [_libcst_value(paired, value) for value in values] for key, values in assignments._values.items()}
    found = {key: [_ast_value(value) for value in values] for key, values in twin._values.items()}
    problems = [f"locals {key}: {expected.get(key)} != {found.get(key)}" for key in {*expected, *found} if expected.get(key) != found.get(key)]
    for node, made_from in paired.paired_nodes:
        if isinstance(node, cst.Subscript):
            original = locals.element_index(node)
            twin_index = locals_ast.element_index(made_from)  # type: ignore[arg-type]
            if (original and (paired.pairs.get(id(original[0])), original[1])) != (twin_index and (twin_index[0], twin_index[1])):
                problems.append(f"{_at(made_from)}: element index {original} != {twin_index}")
    return problems


def _libcst_value(paired: PairedTree, value: cst.BaseExpression) -> tuple[int, int | None]:
    made_from = paired.pairs.get(id(value))
    if made_from is not None:
        return id(made_from), None
    indexed = locals.element_index(value)
    assert indexed is not None, "a local's value is a source node or an element of one"
    return id(paired.pairs[id(indexed[0])]), indexed[1]


def _ast_value(value: ast.expr) -> tuple[int, int | None]:
    if getattr(value, "lineno", None) is None:  # made by element_of
        indexed = locals_ast.element_index(value)
        assert indexed is not None
        return id(indexed[0]), indexed[1]
    return id(value), None


def module_logger(paired: PairedTree) -> list[str]:
    """The logger's name and, for every `except` clause, whether it already logs."""
    tracker, table = scopes.ScopeTracker(), imports.ImportTable("pkg")
    module_loggers = loggers.ModuleLoggers(table, tracker)
    Walker([tracker, table, module_loggers]).walk(paired.module)
    twin_tracker, twin_table = scopes_ast.AstScopeTracker(), imports_ast.AstImportTable("pkg")
    twin = loggers_ast.AstModuleLoggers(twin_table, twin_tracker)
    AstWalker([twin_tracker, twin_table, twin]).walk(paired.tree)
    problems = []
    if module_loggers.name != twin.name:
        problems.append(f"logger {module_loggers.name!r} != {twin.name!r}")
    for node, made_from in paired.paired_nodes:
        if isinstance(node, cst.ExceptHandler):
            expected, found = module_loggers.already_logs(node), twin.already_logs(made_from)  # type: ignore[arg-type]
            if expected != found:
                problems.append(f"{_at(made_from)}: already logs {expected} != {found}")
    return problems


def _at(node: ast.AST) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}"


CHECKS = [scope_at_each_node, local_values, module_logger]
