"""``catching_ast`` against ``catching``.

The guards (``catches``, ``stops``, ``encode``...) are the original's own functions in the twin
(they read no tree): only what reads the tree is compared. A handler the original answers with
(``translating_clauses``) is mapped to the `ast` clause it was built from.
"""

from __future__ import annotations

import ast

import libcst as cst

from mcplint.analysis import catching, catching_ast, imports, imports_ast, walk, walk_ast
from mcplint.engine.ast_pairs import PairedTree
from port_checks import where


def clauses(paired: PairedTree) -> list[str]:
    """``clause_of`` of every except clause, ``guard_of`` of every `try`."""
    problems = []
    for node, made_from in paired.paired_nodes:
        if isinstance(node, cst.ExceptHandler):
            assert isinstance(made_from, ast.ExceptHandler)
            expected, found = catching.clause_of(node), catching_ast.clause_of(made_from)
            if expected != found:
                problems.append(f"{where(paired, made_from)}: clause_of {expected} != {found}")
        elif isinstance(node, cst.Try):
            assert isinstance(made_from, ast.Try)
            expected_guard, found_guard = catching.guard_of(node), catching_ast.guard_of(made_from)
            if expected_guard != found_guard:
                problems.append(f"{where(paired, made_from)}: guard_of {expected_guard} != {found_guard}")
    return problems


def context_managers(paired: PairedTree) -> list[str]:
    """``translating_clauses`` of every function, with the module's imports and with every
    decorator taken for ``contextlib.contextmanager`` (so that each decorated function's body is
    read); ``translator_called`` of every expression, every function of the module a translator."""
    problems = []
    table = imports.ImportTable("pkg")
    walk.Walker([table]).walk(paired.module)
    twin_table = imports_ast.AstImportTable("pkg")
    walk_ast.AstWalker([twin_table]).walk(paired.tree)
    functions = [(node, made_from) for node, made_from in paired.paired_nodes if isinstance(node, cst.FunctionDef)]
    translators = {node.name.value: None for node, _ in functions}

    def every_decorator(name: str) -> str:
        return "contextlib.contextmanager"

    for node, made_from in functions:
        assert isinstance(made_from, (ast.FunctionDef, ast.AsyncFunctionDef))
        for qualify, twin_qualify in ((table.qualify, twin_table.qualify), (every_decorator, every_decorator)):
            expected = [paired.pairs.get(id(handler)) for handler in catching.translating_clauses(node, qualify)]
            found = list(catching_ast.translating_clauses(made_from, twin_qualify))
            if [id(handler) for handler in expected] != [id(handler) for handler in found]:
                shown = [where(paired, handler) for handler in expected], [where(paired, handler) for handler in found]
                problems.append(f"{where(paired, made_from)}: translating clauses {shown[0]} != {shown[1]}")
    for node, made_from in paired.paired_nodes:
        if isinstance(node, cst.BaseExpression):
            expected_name = catching.translator_called(node, translators)
            found_name = catching_ast.translator_called(made_from, translators)  # type: ignore[arg-type]
            if expected_name != found_name:
                problems.append(f"{where(paired, made_from)}: translator {expected_name!r} != {found_name!r}")
    return problems


CHECKS = [clauses, context_managers]
