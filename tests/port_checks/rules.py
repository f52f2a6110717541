"""Each ported rule (``rules/<module>_ast.py``: a subclass of the rule it ports whose visits
and judgements read `ast` nodes) against the rule itself: the same candidates, in the same
order, after the walk and ``finish``.

Both run with every shared table, as ``engine/lint.py`` wires them, and the handler scope
of the LibCST side (node-free: function keys); a fixture directory's ``mcp-errors.toml`` is
the registry (``fixtures/registry/fixes.toml`` for the fix snapshots' ``fixes`` directories). A candidate's node maps through the pairs; what feeds the fixes and the
migration (the fix, the error message, the anchors) is LibCST's on both sides (a twin builds
it from ``context.libcst_of``) and compared as it is: the same node of the module's tree, or
a node the rule made equal in value (``_equal``).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

import libcst as cst

import mcplint.rules
from mcplint.analysis.handlers import resolve_local_scope, scope_in_project
from mcplint.analysis.project import NO_PROJECT
from mcplint.analysis.walk import Walker
from mcplint.analysis.walk_ast import AstWalker
from mcplint.engine.ast_pairs import PairedTree
from mcplint.rules.base import Candidate, Rule, RuleContext
from mcplint.rules.base_ast import AstRuleContext


def _twins() -> list[type[Rule]]:
    found = []
    for module_info in pkgutil.iter_modules(mcplint.rules.__path__):
        if module_info.name.endswith("_ast"):
            module = importlib.import_module(f"mcplint.rules.{module_info.name}")
            found.extend(
                value for value in vars(module).values()
                if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__
            )  # fmt: skip
    return found


def _registry(paired: PairedTree) -> str | None:
    if paired.path is None:
        return None
    candidate = paired.path.parent / "mcp-errors.toml"
    if not candidate.exists() and paired.path.parent.name == "fixes":  # the fix snapshots' (test_fix_snapshots.py)
        candidate = paired.path.parent.parent.parent / "registry" / "fixes.toml"
    return str(candidate) if candidate.exists() else None


def candidates_of(paired: PairedTree, twin: type[Rule]) -> tuple[list[Candidate], list[Candidate]]:
    original = twin.__mro__[1]
    registry = _registry(paired)
    context = RuleContext([], registry_path=registry, package="pkg")
    rule = original(context, {})
    walker = Walker([context.scopes, context.imports, context.facts, context.loggers, context.locals, context, rule])
    context.ancestors = walker.ancestors
    walker.walk(paired.module)
    scope = scope_in_project(resolve_local_scope(context.facts, context.imports), NO_PROJECT)
    context.reached = frozenset(scope.reached_by) | frozenset(scope.returns_to)
    context.external_calls = scope.external_calls
    rule.finish()

    twin_context = AstRuleContext([], paired.text, registry_path=registry, package="pkg")
    twin_context.libcst_of = paired.libcst_of
    twin_rule = twin(twin_context, {})
    ast_walker = AstWalker(
        [twin_context.scopes, twin_context.imports, twin_context.facts, twin_context.loggers, twin_context.locals, twin_context, twin_rule]
    )
    twin_context.ancestors = ast_walker.ancestors  # type: ignore[assignment]
    ast_walker.walk(paired.tree)
    twin_context.reached = context.reached
    twin_context.external_calls = scope.external_calls
    twin_rule.finish()
    return context.candidates, twin_context.candidates


def _check_for(twin: type[Rule]) -> Callable[[PairedTree], list[str]]:
    def check(paired: PairedTree) -> list[str]:
        expected, found = candidates_of(paired, twin)
        problems = []
        for index, (original, ported) in enumerate(zip(expected, found, strict=False)):
            mapped = dataclasses.replace(ported, node=paired.libcst_of(ported.node) or ported.node)
            if not _equal(mapped, original, paired):
                fields = [
                    f.name for f in dataclasses.fields(Candidate)
                    if not _equal(getattr(mapped, f.name), getattr(original, f.name), paired)
                ]  # fmt: skip
                problems.append(f"candidate {index} at {_at(ported.node)}: {', '.join(fields)} differ ({original.message!r})")
        if len(expected) != len(found):
            problems.append(f"{len(expected)} candidates, the twin {len(found)}")
        return problems

    check.__name__ = f"rule_{twin.code}"
    return check


def _equal(ported: Any, original: Any, paired: PairedTree) -> bool:
    """Equal, a node of the module's tree being the same node; a node a rule made (a fix's
    replacement, an error message the registry match rewrote) equal in value, as LibCST's
    nodes compare only by identity."""
    if ported is original:
        return True
    if isinstance(original, cst.CSTNode):
        in_tree = _tree_ids(paired)
        return (
            isinstance(ported, cst.CSTNode)
            and id(original) not in in_tree
            and id(ported) not in in_tree
            and original.deep_equals(ported)
        )
    if dataclasses.is_dataclass(original) and type(ported) is type(original):
        return all(
            _equal(getattr(ported, f.name), getattr(original, f.name), paired) for f in dataclasses.fields(original)
        )
    if isinstance(original, tuple) and isinstance(ported, tuple):
        return len(ported) == len(original) and all(_equal(p, o, paired) for p, o in zip(ported, original, strict=True))
    return bool(ported == original)


_TREE_IDS: list[tuple[PairedTree, frozenset[int]]] = []  # the last tree's


def _tree_ids(paired: PairedTree) -> frozenset[int]:
    if not _TREE_IDS or _TREE_IDS[0][0] is not paired:
        found, pending = [], [paired.module]
        while pending:
            node = pending.pop()
            found.append(id(node))
            pending.extend(node.children)
        _TREE_IDS[:] = [(paired, frozenset(found))]
    return _TREE_IDS[0][1]


def _at(node: Any) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}" if isinstance(node, ast.AST) else "?"


CHECKS = [_check_for(twin) for twin in _twins()]
