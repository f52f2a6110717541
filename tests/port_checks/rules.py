"""Each ported rule (``rules/<module>_ast.py``: a subclass of the rule it ports whose visits
and judgements read `ast` nodes) against the rule itself: the same candidates, in the same
order, after the walk and ``finish``.

Both run with every shared table, as ``engine/lint.py`` wires them, and the handler scope
of the LibCST side (node-free: function keys); a fixture directory's ``mcp-errors.toml`` is
the registry. A candidate's node maps through the pairs; what feeds the fixes and the
migration (the fix, the error message, the anchors) is LibCST's on both sides (a twin builds
it from ``context.libcst_of``) and compared as it is.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

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
            if mapped != original:
                fields = [f.name for f in dataclasses.fields(Candidate) if getattr(mapped, f.name) != getattr(original, f.name)]
                problems.append(f"candidate {index} at {_at(ported.node)}: {', '.join(fields)} differ ({original.message!r})")
        if len(expected) != len(found):
            problems.append(f"{len(expected)} candidates, the twin {len(found)}")
        return problems

    check.__name__ = f"rule_{twin.code}"
    return check


def _at(node: Any) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}" if isinstance(node, ast.AST) else "?"


CHECKS = [_check_for(twin) for twin in _twins()]
