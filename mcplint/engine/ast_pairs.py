"""Which CPython `ast` node each node of a built tree was made from.

The port of the analyses from LibCST's trees to CPython's (issue 11, docs/architecture.md)
goes one module at a time, and each ported function is compared with the one it replaces
on the same source: the LibCST nodes its original answers with are mapped to the `ast`
nodes they were built from (``PairedTree``: the differential tests and ``benchmarks/twins.py``).
A run's fixes are built from LibCST nodes too: ``UnitPairs`` builds those of the sites they
ask about.
"""

from __future__ import annotations

import ast
import bisect
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst

from mcplint.analysis.ast_cst import Span, _Builder, _formatted_parts
from mcplint.analysis.source_text import SourceText, mark_concatenated_strings


@dataclass
class PairedTree:
    text: str
    module: cst.Module  # the tree the LibCST analyses read
    tree: ast.Module  # CPython's, the one the ported analyses read
    spans: dict[int, Span]  # by id of a LibCST node, as ``ast_cst.build`` gives them
    pairs: dict[int, ast.AST]  # by id of a LibCST node: the `ast` node it was made from
    path: Path | None = None  # the file, where the checks read what lies beside it (a registry)

    def ast_of(self, node: cst.CSTNode) -> ast.AST | None:
        return self.pairs.get(id(node))

    def libcst_of(self, node: ast.AST) -> cst.CSTNode | None:
        """The LibCST node made from ``node`` (what a ported rule's fix is built from); for an
        f-string's ``{...}`` part (``ast.FormattedValue``), its ``FormattedStringExpression``."""
        return self._libcst_by_ast.get(id(node))

    @functools.cached_property
    def _libcst_by_ast(self) -> dict[int, cst.CSTNode]:
        return _libcst_by_ast(self.paired_nodes, self.pairs)

    @functools.cached_property
    def paired_nodes(self) -> list[tuple[cst.CSTNode, ast.AST]]:
        """Every (LibCST node, `ast` node it was made from), in the LibCST walk's order."""
        return _paired_nodes([self.module], self.pairs)


class UnitPairs:
    """``PairedTree.libcst_of`` without building the whole tree: the builder makes the LibCST
    nodes of one unit at a time, the smallest holding the `ast` node asked about: a function
    defined at the module's level or in a class there (or in a class in one), else the
    module-level statement (or the simple statements sharing its line). A run's fixes ask
    about a few sites of a module (``lint_ast.Bridge``).

    A unit built once is not built again: a class built after one of its methods holds the
    method's nodes as built then. The builder's answers do not depend on what it built before
    (what it remembers of the text saves work only; ``port_checks.engine.unit_pairs``)."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.pairs: dict[int, ast.AST] = {}
        self._builder = _pairing_builder(self.pairs, remember_compound=True)(text)
        self.spans = self._builder.spans
        self._found: dict[int, cst.CSTNode] = {}
        self._groups = self._builder.statement_groups(tree.body)
        self._starts = [_first_line(group[0]) for group in self._groups]
        self._built: set[int] = set()  # units built, by id of their first statement
        self._everything = False

    def libcst_of(self, node: ast.AST) -> cst.CSTNode | None:
        found = self._found.get(id(node))
        if found is None and not self._everything:
            line = getattr(node, "lineno", None)
            unit = self._unit_at(line) if line is not None else None
            if unit is not None:
                self._build(unit)
                found = self._found.get(id(node))
            if found is None:  # a node without a line, or placed outside its statement's lines
                for group in self._groups:
                    self._build(group)
                self._everything = True
                found = self._found.get(id(node))
        return found

    def _unit_at(self, line: int) -> list[ast.stmt] | None:
        index = bisect.bisect_right(self._starts, line) - 1
        if index < 0 or line > self._groups[index][-1].end_lineno:  # type: ignore[operator]
            return None
        group = self._groups[index]
        while type(group[0]) is ast.ClassDef:
            inner = next(
                (statement for statement in group[0].body
                 if type(statement) in _UNITS and _first_line(statement) <= line <= statement.end_lineno),  # type: ignore[operator]
                None,
            )  # fmt: skip
            if inner is None:
                break
            group = [inner]
        return group

    def _build(self, group: list[ast.stmt]) -> None:
        if id(group[0]) in self._built:
            return
        self._built.add(id(group[0]))
        built = self._builder.statement_group(group)
        self._found.update(_libcst_by_ast(_paired_nodes([built], self.pairs), self.pairs))


_UNITS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _first_line(statement: ast.stmt) -> int:
    """The line a statement's node starts on: its first decorator's, if it has one."""
    decorators: list[ast.expr] = getattr(statement, "decorator_list", [])
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def _paired_nodes(roots: list[cst.CSTNode], pairs: dict[int, ast.AST]) -> list[tuple[cst.CSTNode, ast.AST]]:
    """Every (LibCST node, `ast` node it was made from) under ``roots``, in the LibCST walk's order."""
    from mcplint.analysis.walk import children

    found: list[tuple[cst.CSTNode, ast.AST]] = []
    pending: list[cst.CSTNode] = list(reversed(roots))
    while pending:
        node = pending.pop()
        made_from = pairs.get(id(node))
        if made_from is not None:
            found.append((node, made_from))
        pending.extend(reversed(children(node)))
    return found


def _libcst_by_ast(paired_nodes: list[tuple[cst.CSTNode, ast.AST]], pairs: dict[int, ast.AST]) -> dict[int, cst.CSTNode]:
    found: dict[int, cst.CSTNode] = {id(made_from): node for node, made_from in paired_nodes}
    for node, made_from in paired_nodes:
        if type(made_from) is ast.JoinedStr:
            _pair_formatted(_formatted_parts(node), made_from, found, pairs)
    return found


def _pair_formatted(
    parts: list[cst.FormattedStringExpression],
    made_from: ast.JoinedStr,
    found: dict[int, cst.CSTNode],
    pairs: dict[int, ast.AST],
) -> None:
    """An f-string's ``{...}`` parts (the builder made them from its text, not from `ast`
    nodes) with its formatted values, the n-th with the n-th, those of a format spec too.
    Where the builder parsed a part's expression alone (3.11's position of an f-string's
    expression can miss it), the nodes of the tree's expression get those it made."""
    values = [value for value in made_from.values if type(value) is ast.FormattedValue]
    if len(parts) != len(values):
        return  # not reached: both list the string's replacement fields
    for part, value in zip(parts, values, strict=True):
        found[id(value)] = part
        alone = pairs.get(id(part.expression))
        if alone is not None and alone is not value.value:
            for foreign, in_tree in zip(ast.walk(alone), ast.walk(value.value), strict=False):
                made = found.get(id(foreign))
                if made is not None:
                    found.setdefault(id(in_tree), made)
        if part.format_spec and type(value.format_spec) is ast.JoinedStr:
            spec_parts = [p for p in part.format_spec if isinstance(p, cst.FormattedStringExpression)]
            _pair_formatted(spec_parts, value.format_spec, found, pairs)


def paired_tree(text: str, path: Path | None = None, tree: ast.Module | None = None) -> PairedTree:
    """``ast_cst.build``'s tree of ``text`` with the `ast` node of each statement, clause,
    expression, parameter and keyword argument it built (``Unsupported``, ``SyntaxError``
    as ``build`` raises them)."""
    if tree is None:  # else CPython's tree of ``text`` already (a run's, marked)
        tree = ast.parse(text)
        mark_concatenated_strings(tree, SourceText(text))  # as the analyses' parse does
    pairs: dict[int, ast.AST] = {}
    builder = _pairing_builder(pairs)(text)
    body = builder.block_body(tree.body)
    module = cst.Module(body=body)  # type: ignore[arg-type]  # statements, as ``build`` makes them
    return PairedTree(text, module, tree, builder.spans, pairs, path)


def _pairing_builder(pairs: dict[int, ast.AST], *, remember_compound: bool = False) -> type[_Builder]:
    def paired(method: Callable[..., Any]) -> Callable[..., Any]:
        def pairing(self: _Builder, node: ast.AST, *args: Any, **kwargs: Any) -> Any:
            built = method(self, node, *args, **kwargs)
            pairs[id(built)] = node
            return built

        return pairing

    def remembered(method: Callable[..., Any]) -> Callable[..., Any]:
        """A compound statement built once (``UnitPairs``: a method before its class)."""
        made: dict[int, Any] = {}

        def remembering(self: _Builder, node: ast.AST) -> Any:
            built = made.get(id(node))
            if built is None:
                built = made[id(node)] = method(self, node)
            return built

        return remembering

    class PairingBuilder(_Builder):
        expr = paired(_Builder.expr)
        small = paired(_Builder.small)
        compound = remembered(paired(_Builder.compound)) if remember_compound else paired(_Builder.compound)
        _if = paired(_Builder._if)
        _handler = paired(_Builder._handler)
        _param = paired(_Builder._param)
        _keyword = paired(_Builder._keyword)

    return PairingBuilder
