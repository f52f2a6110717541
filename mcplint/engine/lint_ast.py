"""The analysis on CPython's tree: the `ast` port's pipeline (issue 11; docs/architecture.md).

A module is parsed by `ast` once; the walk feeds the twins of the shared tables and of
each rule (``rules/<module>_ast.py``); findings are placed from the `ast` nodes
(``ast_cst.NodeSpans``). What the fixes build from stays LibCST: the LibCST-shaped nodes of
the statements a fix is about are built from the same `ast` tree, when a rule asks for one
(``Bridge``). The pipeline runs where every selected rule has its twin (``twins_of``) and
``MCPLINT_AST`` is not ``0`` (``lint.AST_PORT``); the LibCST pipeline analyses the texts it
leaves (``lint._walk_ast``), and the two are compared on the same sources
(``tests/port_checks``, ``benchmarks/twins.py``, the corpus's check JSON).
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
from collections.abc import Mapping, Sequence
from typing import Any

import libcst as cst

import mcplint.rules
from mcplint.analysis.ast_cst import NodeSpans, Span, exact_span
from mcplint.analysis.handlers import LocalScope
from mcplint.analysis.source_text import SourceText, mark_concatenated_strings
from mcplint.analysis.walk_ast import AstWalker
from mcplint.engine.ast_pairs import UnitPairs
from mcplint.engine.syntax import checked_tree
from mcplint.rules.base import Rule
from mcplint.rules.base_ast import AstRuleContext


@functools.cache
def _twins() -> dict[type[Rule], type[Rule]]:
    """Each ported rule's twin, by the rule it ports (its base class)."""
    found: dict[type[Rule], type[Rule]] = {}
    for module_info in pkgutil.iter_modules(mcplint.rules.__path__):
        if module_info.name.endswith("_ast") and module_info.name != "base_ast":
            module = importlib.import_module(f"mcplint.rules.{module_info.name}")
            for value in vars(module).values():
                if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__:
                    found[value.__mro__[1]] = value
    return found


def twins_of(rules: Sequence[type[Rule]]) -> list[type[Rule]] | None:
    """The twins of ``rules``, in order; None where one has none (the LibCST pipeline then)."""
    twins = _twins()
    if any(rule not in twins for rule in rules):
        return None
    return [twins[rule] for rule in rules]


def analysis_tree(text: str) -> tuple[ast.Module, SourceText]:
    """CPython's tree of the text, its literals written as several tokens marked
    (``SyntaxError``, ``ValueError`` as ``ast.parse`` raises them): the one an earlier round's
    syntax check parsed, where it kept it."""
    tree = checked_tree(text) or ast.parse(text)
    source = SourceText.of(text)
    mark_concatenated_strings(tree, source)
    return tree, source


class Bridge:
    """The LibCST node made from an `ast` node of the module, for the fixes: built from the
    same `ast` tree on the first question, one function (or module-level statement) at a
    time (``ast_pairs.UnitPairs``)."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self._text = text
        self._tree = tree
        self._pairs: UnitPairs | None = None

    def libcst_of(self, node: ast.AST) -> cst.CSTNode | None:
        if self._pairs is None:
            self._pairs = UnitPairs(self._text, self._tree)
        return self._pairs.libcst_of(node)

    def written(self, node: cst.CSTNode) -> str | None:
        """The source's text of a node made here, where its span is LibCST's (``exact_span``)."""
        span = self.spans.get(id(node))
        return self._text[span[0] : span[1]] if span is not None and exact_span(node) else None

    @property
    def spans(self) -> dict[int, Span]:
        """Where the nodes built so far sit (a fix's, once it is built)."""
        return {} if self._pairs is None else self._pairs.spans


def walk(
    tree: ast.Module,
    text: str,
    twins: Sequence[type[Rule]],
    options: Mapping[str, Mapping[str, Any]],
    *,
    registry_path: str | None,
    package: str | None,
    default_symbol: str | None,
    assigned_codes: frozenset[int],
) -> tuple[AstRuleContext, list[Rule], Bridge]:
    """The one walk over CPython's tree: every table and rule twin sees each node once."""
    context = AstRuleContext(
        [], text, registry_path=registry_path, package=package, default_symbol=default_symbol,
        assigned_codes=assigned_codes,
    )  # fmt: skip
    bridge = Bridge(text, tree)
    context.libcst_of = bridge.libcst_of
    context.written = bridge.written
    instances = [twin(context, options.get(twin.code, {})) for twin in twins]
    walker = AstWalker([context.scopes, context.imports, context.facts, context.loggers, context.locals, context, *instances])
    context.ancestors = walker.ancestors  # type: ignore[assignment]
    walker.walk(tree)
    return context, instances, bridge


def defined_names(tree: ast.Module, spans: NodeSpans) -> list[str]:
    """``lint._defined_names`` on CPython's tree: the names a module's top-level statements
    define and its top-level classes' methods. As there, an `if`, `try` or `with` body is read
    only where it is a block of its own (statements after the colon on its line are not)."""
    names = set()
    pending: list[ast.stmt] = list(tree.body)
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    while pending:
        statement = pending.pop()
        kind = type(statement)
        if kind in definitions:
            names.add(statement.name)  # type: ignore[attr-defined]
            if kind is ast.ClassDef and not spans.after_colon(statement.body):  # type: ignore[attr-defined]
                names.update(
                    f"{statement.name}.{member.name}"  # type: ignore[attr-defined]
                    for member in statement.body  # type: ignore[attr-defined]
                    if type(member) in (ast.FunctionDef, ast.AsyncFunctionDef)
                )
        elif kind in (ast.If, ast.Try, ast.With, ast.AsyncWith):
            body = statement.body  # type: ignore[attr-defined]
            if not spans.after_colon(body):
                pending.extend(body)
        elif kind is ast.Assign:
            names.update(target.id for target in statement.targets if type(target) is ast.Name)  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign and type(statement.target) is ast.Name:  # type: ignore[attr-defined]
            names.add(statement.target.id)  # type: ignore[attr-defined]
    return sorted(names)


def resolve_local_scope(*args: Any, **kwargs: Any) -> LocalScope:
    """The handler scope resolved from the `ast` handler facts (``handlers_ast``)."""
    from mcplint.analysis import handlers_ast

    local: LocalScope = handlers_ast.resolve_local_scope_ast(*args, **kwargs)
    return local
