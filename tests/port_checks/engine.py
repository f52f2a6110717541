"""The engine's own readers of the tree (``engine/lint_ast.py``) against ``engine/lint.py``'s."""

from __future__ import annotations

from mcplint.analysis.ast_cst import NodeSpans
from mcplint.engine import lint, lint_ast
from mcplint.engine.ast_pairs import PairedTree


def defined_names(paired: PairedTree) -> list[str]:
    """The names the module defines at its top level (what `from m import name` finds)."""
    expected = lint._defined_names(paired.module)
    found = lint_ast.defined_names(paired.tree, NodeSpans(paired.text, paired.tree))
    return [] if expected == found else [f"defined names {expected} != {found}"]


CHECKS = [defined_names]
