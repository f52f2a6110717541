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

from mcplint.analysis.ast_cst import _SMALL, Span, _Builder, _formatted_parts, first_line
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
    nodes of one unit at a time, the innermost holding the `ast` node asked about: a statement
    (or the simple statements sharing its line), an `except` clause, or, for a node of a
    compound statement's own line (a `def`'s annotation, a `for`'s iterable), that statement.
    A unit is looked for in the indented blocks of the statements holding the node: a block
    after its colon, an `elif` or a `match` is built with its statement. A run's fixes ask
    about a few sites of a module (``lint_ast.Bridge``).

    A unit built once is not built again: a statement built after one of its statements or
    clauses holds their nodes as built then. The builder's answers do not depend on what it
    built before (what it remembers of the text saves work only; ``port_checks.engine.unit_pairs``)."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.pairs: dict[int, ast.AST] = {}
        self._builder = _pairing_builder(self.pairs, remember_units=True)(text)
        self.spans = self._builder.spans
        self._found: dict[int, cst.CSTNode] = {}
        self._body = tree.body
        # A block's statement groups and the line each starts on, by id of its first statement.
        self._groups: dict[int, tuple[list[list[ast.stmt]], list[int]]] = {}
        self._built: set[int] = set()  # units built, by id of their first node
        self._everything = False

    def libcst_of(self, node: ast.AST) -> cst.CSTNode | None:
        found = self._found.get(id(node))
        if found is None and not self._everything:
            line = getattr(node, "lineno", None)
            unit = self._unit_in(self._body, line) if line is not None and self._body else None
            if unit is not None:
                self._build(unit)
                found = self._found.get(id(node))
            if found is None:  # a node without a line, or placed outside its statement's lines
                for group in self._statement_groups(self._body)[0]:
                    self._build(group)
                self._everything = True
                found = self._found.get(id(node))
        return found

    def _unit_in(self, block: list[ast.stmt], line: int) -> list[ast.stmt] | ast.ExceptHandler | None:
        """The innermost unit of ``block`` (an indented block, or the module's) holding ``line``."""
        groups, starts = self._statement_groups(block)
        index = bisect.bisect_right(starts, line) - 1
        if index < 0 or line > groups[index][-1].end_lineno:  # type: ignore[operator]
            return None
        group = groups[index]
        statement = group[0]
        if isinstance(statement, _SMALL):
            return group
        for inner in _blocks(statement, self._builder._is_elif):
            if type(inner) is ast.ExceptHandler:
                if inner.lineno <= line <= inner.end_lineno:  # type: ignore[operator]
                    found = self._unit_in(inner.body, line) if not self._builder.after_colon(inner.body) else None
                    return found or inner
            elif first_line(inner[0]) <= line <= inner[-1].end_lineno and not self._builder.after_colon(inner):
                return self._unit_in(inner, line) or group
        return group

    def _statement_groups(self, block: list[ast.stmt]) -> tuple[list[list[ast.stmt]], list[int]]:
        if not block:  # an empty module's
            return [], []
        found = self._groups.get(id(block[0]))
        if found is None:
            groups = self._builder.statement_groups(block)
            found = self._groups[id(block[0])] = (groups, [first_line(group[0]) for group in groups])
        return found

    def _build(self, unit: list[ast.stmt] | ast.ExceptHandler) -> None:
        first = unit if type(unit) is ast.ExceptHandler else unit[0]  # type: ignore[index]
        if id(first) in self._built:
            return
        self._built.add(id(first))
        if type(unit) is ast.ExceptHandler:
            built = self._builder._handler(unit)
        else:
            built = self._builder.statement_group(unit)  # type: ignore[arg-type]
        self._found.update(_libcst_by_ast(_paired_nodes([built], self.pairs), self.pairs))


def _blocks(statement: ast.stmt, is_elif: Callable[[ast.If], bool]) -> list[Any]:
    """The indented blocks of a compound statement a unit may lie in (an `except` clause's as
    the clause itself), in the builder's terms: those it builds with ``suite`` alone (an `elif`'s
    body too: a fix in one branch of a long `if`/`elif` dispatch builds that branch's statement,
    not the whole chain)."""
    kind = type(statement)
    if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith):
        return [statement.body]  # type: ignore[attr-defined]
    if kind in (ast.For, ast.AsyncFor, ast.While):
        return [block for block in (statement.body, statement.orelse) if block]  # type: ignore[attr-defined]
    if kind is ast.Try:
        return [statement.body, *statement.handlers, *(b for b in (statement.orelse, statement.finalbody) if b)]  # type: ignore[attr-defined]
    if kind is ast.If:
        blocks = [statement.body]  # type: ignore[attr-defined]
        orelse = statement.orelse  # type: ignore[attr-defined]
        # An `elif` is built with its `if` (``_Builder._if``): it is no unit of its own, its body is.
        while len(orelse) == 1 and type(orelse[0]) is ast.If and is_elif(orelse[0]):
            blocks.append(orelse[0].body)
            orelse = orelse[0].orelse
        if orelse:
            blocks.append(orelse)
        return blocks
    return []


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


def _pairing_builder(pairs: dict[int, ast.AST], *, remember_units: bool = False) -> type[_Builder]:
    def paired(method: Callable[..., Any]) -> Callable[..., Any]:
        def pairing(self: _Builder, node: ast.AST, *args: Any, **kwargs: Any) -> Any:
            built = method(self, node, *args, **kwargs)
            pairs[id(built)] = node
            return built

        return pairing

    def remembered(method: Callable[..., Any], first: Callable[[Any], object]) -> Callable[..., Any]:
        """A unit built once (``UnitPairs``: a statement before the one holding it), by id of
        its first node."""
        made: dict[int, Any] = {}

        def remembering(self: _Builder, unit: Any) -> Any:
            built = made.get(id(first(unit)))
            if built is None:
                built = made[id(first(unit))] = method(self, unit)
            return built

        return remembering

    class PairingBuilder(_Builder):
        expr = paired(_Builder.expr)
        small = paired(_Builder.small)
        compound = paired(_Builder.compound)
        _if = paired(_Builder._if)
        _handler = paired(_Builder._handler)
        _param = paired(_Builder._param)
        _keyword = paired(_Builder._keyword)
        if remember_units:
            statement_group = remembered(_Builder.statement_group, lambda group: group[0])
            _handler = remembered(_handler, lambda handler: handler)

    return PairingBuilder
