"""``shape_ast`` against ``shape``: every paired node's shape.

Every (LibCST node, `ast` node it was made from) of the source (``paired_nodes``: statements,
``except`` clauses, expressions, parameters and keyword arguments) has the same shape in both,
given the module's text with its literals marked (``paired_tree`` marks them, as a run's parse
does). A parameter (LibCST's ``Param``) holds its default, an ``ast.arg`` does not: its default
is found beside it (``ast.arguments``) and passed to the twin.
"""

from __future__ import annotations

import ast

from mcplint.analysis import shape, shape_ast
from mcplint.analysis.source_text import SourceText
from mcplint.engine.ast_pairs import PairedTree
from port_checks import where


def node_shapes(paired: PairedTree) -> list[str]:
    """``node_shape`` of every paired node."""
    source = SourceText(paired.text)
    defaults = _parameter_defaults(paired.tree)
    problems = []
    for node, made_from in paired.paired_nodes:
        expected = shape.node_shape(node)
        found = shape_ast.node_shape(made_from, source, default=defaults.get(id(made_from)))
        if expected != found:
            problems.append(f"{where(paired, made_from)} ({type(made_from).__name__}): {expected!r} != {found!r}")
    return problems


def _parameter_defaults(tree: ast.Module) -> dict[int, ast.expr]:
    """Each parameter's default, by id of its ``ast.arg``."""
    found: dict[int, ast.expr] = {}
    for node in ast.walk(tree):
        if type(node) is ast.arguments:
            positional = [*node.posonlyargs, *node.args]
            defaulted = positional[len(positional) - len(node.defaults) :]  # the last ones
            for argument, default in zip(defaulted, node.defaults, strict=True):
                found[id(argument)] = default
            for argument, kw_default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
                if kw_default is not None:
                    found[id(argument)] = kw_default
    return found


CHECKS = [node_shapes]
