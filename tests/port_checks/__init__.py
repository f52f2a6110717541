"""Differential checks of the `ast` port (issue 11; docs/architecture.md).

Each module here lists ``CHECKS``: functions that take a ``PairedTree`` (a source's
LibCST-shaped tree built from `ast`, CPython's tree, and which `ast` node each LibCST
node was made from) and return the differences between a LibCST analysis and its
`ast` twin on that source, one line each (none: they agree). ``tests/test_port.py``
runs every check on the fixtures; ``benchmarks/twins.py`` on any directory (the
corpus, the held-out sets).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path

from mcplint.engine.ast_pairs import PairedTree

Check = Callable[[PairedTree], list[str]]


def all_checks() -> dict[str, Check]:
    """Every check of this package, by ``module.function`` name."""
    found: dict[str, Check] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for check in getattr(module, "CHECKS", ()):
            found[f"{module_info.name}.{check.__name__}"] = check
    return found


def where(paired: PairedTree, node: object) -> str:
    """``line:column`` of an `ast` node (or of the LibCST node's span) in the source."""
    lineno = getattr(node, "lineno", None)
    if lineno is not None:
        return f"{lineno}:{getattr(node, 'col_offset', 0)}"
    span = paired.spans.get(id(node))
    if span is None:
        return "?"
    line = paired.text.count("\n", 0, span[0]) + 1
    return f"{line}:{span[0] - (paired.text.rfind(chr(10), 0, span[0]) + 1)}"


FIXTURE_ROOTS = ("fixtures", "ast_cst_sources", "port_sources", "../examples")


def fixture_sources() -> list[Path]:
    tests = Path(__file__).resolve().parent.parent
    return sorted(path.resolve() for root in FIXTURE_ROOTS for path in (tests / root).rglob("*.py"))
