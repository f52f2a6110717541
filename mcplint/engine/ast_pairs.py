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

from mcplint.analysis.ast_cst import Span, _Builder
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
        """The LibCST node made from ``node`` (what a ported rule's fix is built from)."""
        return self._libcst_by_ast.get(id(node))

    @functools.cached_property
    def _libcst_by_ast(self) -> dict[int, cst.CSTNode]:
        return {id(made_from): node for node, made_from in self.paired_nodes}

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
