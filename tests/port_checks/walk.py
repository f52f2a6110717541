"""``walk_ast`` against ``walk``: the same nodes in the same order."""

from __future__ import annotations

import ast

import libcst as cst

from mcplint.analysis import walk, walk_ast
from mcplint.engine.ast_pairs import PairedTree


def walk_order(paired: PairedTree) -> list[str]:
    """The `ast` walk meets the nodes the LibCST walk meets (those made from an `ast` node)
    in the same order, and visits each of them with the same ancestors among them (but for a
    parameter: a default is inside LibCST's, beside `ast`'s)."""
    libcst_order: list[tuple[ast.AST, tuple[int, ...]]] = []

    def walk_libcst(node: cst.CSTNode, above: tuple[int, ...]) -> None:
        made_from = paired.pairs.get(id(node))
        if made_from is not None:
            libcst_order.append((made_from, above))
            if not isinstance(made_from, ast.arg):
                above = (*above, id(made_from))
        for child in walk.children(node):
            walk_libcst(child, above)

    walk_libcst(paired.module, ())
    wanted = {id(node) for node, _ in libcst_order}
    ast_order: list[tuple[ast.AST, tuple[int, ...]]] = []

    walker: walk_ast.AstWalker

    def visit(self: object, node: ast.AST) -> None:
        if id(node) in wanted:
            ancestors = tuple(
                id(above) for above in walker.ancestors if id(above) in wanted and not isinstance(above, ast.arg)
            )
            ast_order.append((node, ancestors))

    every_class = [kind for kind in vars(ast).values() if isinstance(kind, type) and issubclass(kind, ast.AST)]
    recorder = type("Recorder", (), {f"visit_{kind.__name__}": visit for kind in every_class})()
    walker = walk_ast.AstWalker([recorder])
    walker.walk(paired.tree)
    for index, ((expected, expected_above), (found, found_above)) in enumerate(zip(libcst_order, ast_order, strict=False)):
        if expected is not found:
            return [f"node {index}: LibCST's walk meets {type(expected).__name__} at {_at(expected)}, the ast walk {type(found).__name__} at {_at(found)}"]
        if expected_above != found_above:
            return [f"node {index} ({type(found).__name__} at {_at(found)}): other ancestors"]
    if len(libcst_order) != len(ast_order):
        return [f"LibCST's walk meets {len(libcst_order)} paired nodes, the ast walk {len(ast_order)}"]
    return []


def own_nodes(paired: PairedTree) -> list[str]:
    """Per function (and the module), ``walk_ast.own_nodes`` lists the nodes ``walk.own_nodes``
    lists (those made from an `ast` node), in the same order; a parameter itself aside (LibCST's
    holds its default, `ast`'s has it beside: a default comes before its parameter here, after it
    there, and each before the annotation)."""
    problems: list[str] = []
    roots: list[tuple[cst.CSTNode, ast.AST]] = [(paired.module, paired.tree)]
    for node in _all_nodes(paired.module):
        if isinstance(node, cst.FunctionDef):
            made_from = paired.pairs[id(node)]
            roots.append((node, made_from))
    for libcst_root, ast_root in roots:
        expected = [
            paired.pairs[id(node)] for node in walk.own_nodes(libcst_root)
            if id(node) in paired.pairs and not isinstance(node, cst.Param)
        ]  # fmt: skip
        expected_ids = {id(node) for node in expected}
        found = [node for node in walk_ast.own_nodes(ast_root) if id(node) in expected_ids]
        if [id(node) for node in expected] != [id(node) for node in found]:
            problems.append(f"own nodes of the scope at {_at(ast_root)} differ")
    return problems


def _all_nodes(root: cst.CSTNode) -> list[cst.CSTNode]:
    found, pending = [], [root]
    while pending:
        node = pending.pop()
        found.append(node)
        pending.extend(walk.children(node))
    return found


def _at(node: ast.AST) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}"


CHECKS = [walk_order, own_nodes]
