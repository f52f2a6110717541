"""Which CPython `ast` node each node of a built tree was made from.

The port of the analyses from LibCST's trees to CPython's (issue 11, docs/architecture.md)
goes one module at a time, and each ported function is compared with the one it replaces
on the same source: the LibCST nodes its original answers with are mapped to the `ast`
nodes they were built from. Only the differential tests and ``benchmarks/twins.py`` build
these pairs; a run does not.
"""

from __future__ import annotations

import ast
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
        found: dict[int, cst.CSTNode] = {id(made_from): node for node, made_from in self.paired_nodes}
        for node, made_from in self.paired_nodes:
            if type(made_from) is ast.JoinedStr:
                self._pair_formatted(_formatted_parts(node), made_from, found)
        return found

    def _pair_formatted(
        self, parts: list[cst.FormattedStringExpression], made_from: ast.JoinedStr, found: dict[int, cst.CSTNode]
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
            alone = self.pairs.get(id(part.expression))
            if alone is not None and alone is not value.value:
                for foreign, in_tree in zip(ast.walk(alone), ast.walk(value.value), strict=False):
                    made = found.get(id(foreign))
                    if made is not None:
                        found.setdefault(id(in_tree), made)
            if part.format_spec and type(value.format_spec) is ast.JoinedStr:
                spec_parts = [p for p in part.format_spec if isinstance(p, cst.FormattedStringExpression)]
                self._pair_formatted(spec_parts, value.format_spec, found)

    @functools.cached_property
    def paired_nodes(self) -> list[tuple[cst.CSTNode, ast.AST]]:
        """Every (LibCST node, `ast` node it was made from), in the LibCST walk's order."""
        from mcplint.analysis.walk import children

        found: list[tuple[cst.CSTNode, ast.AST]] = []
        pending: list[cst.CSTNode] = [self.module]
        while pending:
            node = pending.pop()
            made_from = self.pairs.get(id(node))
            if made_from is not None:
                found.append((node, made_from))
            pending.extend(reversed(children(node)))
        return found


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


def _pairing_builder(pairs: dict[int, ast.AST]) -> type[_Builder]:
    def paired(method: Callable[..., Any]) -> Callable[..., Any]:
        def pairing(self: _Builder, node: ast.AST, *args: Any, **kwargs: Any) -> Any:
            built = method(self, node, *args, **kwargs)
            pairs[id(built)] = node
            return built

        return pairing

    class PairingBuilder(_Builder):
        expr = paired(_Builder.expr)
        small = paired(_Builder.small)
        compound = paired(_Builder.compound)
        _if = paired(_Builder._if)
        _handler = paired(_Builder._handler)
        _param = paired(_Builder._param)
        _keyword = paired(_Builder._keyword)

    return PairingBuilder
