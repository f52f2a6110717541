"""The engine's own readers of the tree (``engine/lint_ast.py``) against ``engine/lint.py``'s."""

from __future__ import annotations

import ast

import libcst as cst

from mcplint.analysis.ast_cst import NodeSpans, Span
from mcplint.analysis.walk import children
from mcplint.engine import lint, lint_ast
from mcplint.engine.ast_pairs import PairedTree, UnitPairs
from port_checks import where


def defined_names(paired: PairedTree) -> list[str]:
    """The names the module defines at its top level (what `from m import name` finds)."""
    expected = lint._defined_names(paired.module)
    found = lint_ast.defined_names(paired.tree, NodeSpans(paired.text, paired.tree))
    return [] if expected == found else [f"defined names {expected} != {found}"]



def unit_pairs(paired: PairedTree) -> list[str]:
    """``UnitPairs`` (a run's fixes' nodes, built one function at a time) gives for each `ast`
    node the node the whole tree's build makes of it: same code, same spans down to its
    leaves, and the same node on every question. Asked deepest first (methods before their
    classes, a unit built around what it already holds) and in the tree's order (classes
    first)."""
    nodes = [node for node in ast.walk(paired.tree) if hasattr(node, "lineno")]
    lineless = [node for node in ast.walk(paired.tree) if not hasattr(node, "lineno")]  # built last: all then
    problems: list[str] = []
    for order in ([*reversed(nodes), *lineless], [*nodes, *lineless]):
        units = UnitPairs(paired.text, paired.tree)
        answers = [(node, units.libcst_of(node)) for node in order]
        # A later unit holds the nodes an earlier one made (the fixes' nodes are placed by id).
        changed = [node for node, found in answers if units.libcst_of(node) is not found]
        problems.extend(f"{where(paired, node)} {type(node).__name__}: built again" for node in changed[:5])
        for node, found in answers:
            expected = paired.libcst_of(node)
            if expected is None or found is None:
                if expected is not found:
                    problems.append(f"{where(paired, node)} {type(node).__name__}: {expected!r:.40} != {found!r:.40}")
                continue
            problem = _same_built(expected, paired.spans, found, units.spans)
            if problem:
                problems.append(f"{where(paired, node)} {type(node).__name__}: {problem}")
    return problems[:20]


def _same_built(expected: cst.CSTNode, expected_spans: dict[int, Span], found: cst.CSTNode, spans: dict[int, Span]) -> str:
    if not expected.deep_equals(found):
        return "a different node"
    pending = [(expected, found)]
    while pending:
        one, other = pending.pop()
        # A node the build did not record can meet a stale entry (of a node it made and dropped,
        # whose id Python gave again): only recorded spans are compared.
        if id(one) in expected_spans and expected_spans[id(one)] != spans.get(id(other)):
            return f"{type(one).__name__} at {expected_spans.get(id(one))} != {spans.get(id(other))}"
        pending.extend(zip(children(one), children(other), strict=True))
    return ""


CHECKS = [defined_names, unit_pairs]
