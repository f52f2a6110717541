"""``rules.base_ast.AstRuleContext`` against ``rules.base.RuleContext``: what the rules ask
the context during and after the walk."""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst

from mcplint.analysis.walk import Walker
from mcplint.analysis.walk_ast import AstWalker
from mcplint.engine.ast_pairs import PairedTree
from mcplint.rules.base import RuleContext
from mcplint.rules.base_ast import AstRuleContext

_ASKED_AT = (cst.Raise, cst.Return, cst.Assign, cst.Call, cst.Name)


def context_answers(paired: PairedTree) -> list[str]:
    """At every raise, return, assignment, call and name: the enclosing `except` clause, the
    return annotation, the `try`s around it (their clauses, and as guards); after the walk:
    each raise's place, each return's clause, the guards each statement remembers, what each
    clause's `try` raises itself, the module's translating context managers."""
    libcst_answers: dict[int, Any] = {}
    context = RuleContext([], package="pkg")

    def libcst_visit(self: object, node: cst.CSTNode) -> None:
        libcst_answers[id(node)] = _answers(context, node, paired.ast_of)

    walker = Walker(
        [context.scopes, context.imports, context.facts, context.loggers, context.locals, context,
         type("Asker", (), {f"visit_{kind.__name__}": libcst_visit for kind in _ASKED_AT})()]
    )  # fmt: skip
    context.ancestors = walker.ancestors
    walker.walk(paired.module)

    ast_answers: dict[int, Any] = {}
    ast_walker_ancestors: list[ast.AST] = []
    twin = AstRuleContext(ast_walker_ancestors, paired.text, package="pkg")

    def ast_visit(self: object, node: ast.AST) -> None:
        ast_answers[id(node)] = _answers(twin, node, lambda made_from: made_from)

    ast_classes = (ast.Raise, ast.Return, ast.Assign, ast.Call, ast.Name, ast.Constant)  # None: a name to LibCST
    ast_walker = AstWalker(
        [twin.scopes, twin.imports, twin.facts, twin.loggers, twin.locals, twin,
         type("Asker", (), {f"visit_{kind.__name__}": ast_visit for kind in ast_classes})()]
    )  # fmt: skip
    twin.ancestors = ast_walker.ancestors  # type: ignore[assignment]
    ast_walker.walk(paired.tree)

    problems = []
    for node, made_from in paired.paired_nodes:
        if id(node) in libcst_answers and libcst_answers[id(node)] != ast_answers.get(id(made_from)):
            problems.append(f"{_at(made_from)} {type(made_from).__name__}: {libcst_answers[id(node)]} != {ast_answers.get(id(made_from))}")
        if isinstance(node, cst.Raise):
            expected = _mapped(context.raise_place(node), paired.ast_of)
            found = _mapped(twin.raise_place(made_from), lambda value: value)  # type: ignore[arg-type]
            if expected != found:
                problems.append(f"{_at(made_from)}: raise place {expected} != {found}")
        if isinstance(node, (cst.Raise, cst.Return, cst.Assign)):
            if context.statement_guards(node) != twin.statement_guards(made_from):
                problems.append(f"{_at(made_from)}: statement guards differ")
        if isinstance(node, cst.Return):
            if _mapped(context.return_clause(node), paired.ast_of) != _mapped(twin.return_clause(made_from), lambda value: value):
                problems.append(f"{_at(made_from)}: return clause differs")
        if isinstance(node, cst.ExceptHandler):
            if context.own_raises(node) != twin.own_raises(made_from):  # type: ignore[arg-type]
                problems.append(f"{_at(made_from)}: own raises {context.own_raises(node)} != {twin.own_raises(made_from)}")  # type: ignore[arg-type]
    if context.translators != twin.translators:
        problems.append(f"translators {context.translators} != {twin.translators}")
    return problems


def _answers(context: Any, node: Any, to_ast: Any) -> tuple[object, ...]:
    return (
        _mapped(context.enclosing_clause(), to_ast),
        _mapped(context.return_annotation(), to_ast),
        tuple(tuple(_mapped(handler, to_ast) for handler in handlers) for handlers in context.enclosing_try_handlers(node)),
        context.enclosing_guards(node),
    )


def _mapped(value: Any, to_ast: Any) -> object:
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(_mapped(item, to_ast) for item in value)
    found = to_ast(value)
    return id(found) if found is not None else f"unpaired {type(value).__name__}"


def _at(node: ast.AST) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}"


CHECKS = [context_answers]
