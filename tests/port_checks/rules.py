"""Each ported rule (``rules/<module>_ast.py``: a subclass of the rule it ports whose visits
and judgements read `ast` nodes) against the rule itself: the same candidates, in the same
order, after the walk and ``finish``.

Both run with every shared table, as ``engine/lint.py`` wires them, and the handler scope
of the LibCST side (node-free: function keys); a fixture directory's ``mcp-errors.toml`` is
the registry (``fixtures/registry/fixes.toml`` for the fix snapshots' ``fixes`` directories). A function's candidates are compared in the order of their nodes in the source
(``_in_source_order``). A candidate's node maps through the pairs; what feeds the fixes and
the migration (the fix, the error message, the anchors) is LibCST's on both sides (a twin
builds it from ``context.libcst_of``) and compared as it is: a node of the tree must be the
same node, one the rule made (a replacement, a registry message) an equal one, field by field
(LibCST nodes compare by identity).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any, TypeVar

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


def _judged(paired: PairedTree, twin: type[Rule], step: str) -> tuple[RuleContext, AstRuleContext]:
    """The rule's and the twin's contexts after the walk and ``step`` (``finish``, or ``export``:
    what a round that does not judge asks)."""
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
    getattr(rule, step)()

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
    getattr(twin_rule, step)()
    return context, twin_context


def _check_for(twin: type[Rule]) -> Callable[[PairedTree], list[str]]:
    def check(paired: PairedTree) -> list[str]:
        context, twin_context = _judged(paired, twin, "finish")
        # What a twin builds only for a kept finding (``Candidate.later``), built for each here.
        expected, found = context.candidates, [candidate.resolved() for candidate in twin_context.candidates]
        problems = []
        same = _Same(paired)
        ported = [(candidate, dataclasses.replace(candidate, node=paired.libcst_of(candidate.node) or candidate.node)) for candidate in found]
        expected = _in_source_order(expected, paired, lambda candidate: candidate)
        ported = _in_source_order(ported, paired, lambda pair: pair[1])
        for index, (original, (twin_candidate, mapped)) in enumerate(zip(expected, ported, strict=False)):
            fields = [f.name for f in dataclasses.fields(Candidate) if not same(getattr(mapped, f.name), getattr(original, f.name))]
            if fields:
                problems.append(f"candidate {index} at {_at(twin_candidate.node)}: {', '.join(fields)} differ ({original.message!r})")
        if len(expected) != len(found):
            problems.append(f"{len(expected)} candidates, the twin {len(found)}")
        # What other modules read (plain values): the same from both, and from export() alone.
        if context.exports != twin_context.exports:
            problems.append(f"exports differ: {context.exports} != {twin_context.exports}")
        exported, twin_exported = _judged(paired, twin, "export")
        if (exported.exports, twin_exported.exports) != (context.exports, twin_context.exports):
            problems.append(f"export() exports {exported.exports} / {twin_exported.exports}, finish() {context.exports}")
        if (exported.runs_stdio, twin_exported.runs_stdio) != (context.runs_stdio, twin_context.runs_stdio):
            problems.append("export() and finish() tell apart whether the module runs over stdio")
        return problems

    check.__name__ = f"rule_{twin.code}"
    return check


T = TypeVar("T")


def _in_source_order(items: list[T], paired: PairedTree, candidate_of: Callable[[T], Candidate]) -> list[T]:
    """Each run of one function's candidates in the order of their nodes in the source (a
    node, then those inside it). The order within a function is the rule's to choose: MCP006
    lists the leaks whose origin lies in a callee in the order a set of nodes iterates (by id,
    which changes from run to run of the original itself), the engine sorts the findings, and
    what a rule derives from the order (the one fix of a clause that logs) is in the fields."""
    def place(item: T) -> tuple[int, int]:
        span = paired.spans.get(id(candidate_of(item).node))
        return (span[0], -span[1]) if span is not None else (len(paired.text) + 1, 0)

    ordered: list[T] = []
    start = 0
    while start < len(items):
        function = candidate_of(items[start]).function
        end = start + 1
        while end < len(items) and candidate_of(items[end]).function == function:
            end += 1
        ordered.extend(sorted(items[start:end], key=place))
        start = end
    return ordered


class _Same:
    """Whether two values of a candidate are the same: a node of the tree only itself, a node
    made by the rule one of the same class with the same fields; dataclasses (a fix), lists
    and tuples item by item."""

    def __init__(self, paired: PairedTree) -> None:
        self._module = paired.module
        self._tree: set[int] | None = None

    def _in_tree(self, node: cst.CSTNode) -> bool:
        if self._tree is None:
            found: set[int] = set()
            pending: list[cst.CSTNode] = [self._module]
            while pending:
                current = pending.pop()
                found.add(id(current))
                pending.extend(current.children)
            self._tree = found
        return id(node) in self._tree

    def __call__(self, a: Any, b: Any) -> bool:
        if a is b:
            return True
        if type(a) is not type(b):
            return False
        if isinstance(a, cst.CSTNode):
            if self._in_tree(a) or self._in_tree(b):
                return False
            return all(self(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
        if dataclasses.is_dataclass(a) and not isinstance(a, type):
            return all(self(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
        if isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(map(self, a, b))
        return bool(a == b)


def _at(node: Any) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}" if isinstance(node, ast.AST) else "?"


CHECKS = [_check_for(twin) for twin in _twins()]
