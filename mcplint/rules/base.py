"""What every rule is: a code, a name, a doc, visitor methods and ``report``.

A rule is a plain object with ``visit_<Node>`` / ``leave_<Node>`` methods that
the engine's single walk calls (no traversal of its own). It reports
*candidates*; the engine keeps those inside handler scope (or anywhere, for
rules with ``handler_scope = False``), positions them, applies suppressions and
turns them into findings. ``finish`` runs after the walk, when every fact of the
module is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import libcst as cst

from mcplint.analysis.handlers import HandlerFactsCollector
from mcplint.analysis.imports import ImportTable
from mcplint.analysis.scopes import ScopeTracker


@dataclass(frozen=True)
class Candidate:
    code: str
    node: cst.CSTNode
    message: str
    function: str | None
    handler_kinds: frozenset[str] | None  # None: any handler kind
    through_return: bool  # counts only where the value flows into a handler's return


class RuleContext:
    """The shared per-file state rules read during and after the walk."""

    def __init__(self, ancestors: list[cst.CSTNode]) -> None:
        self.scopes = ScopeTracker()
        self.imports = ImportTable()
        self.facts = HandlerFactsCollector(self.scopes)
        self.ancestors = ancestors
        self.candidates: list[Candidate] = []


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    #: Findings count only inside handler scope.
    handler_scope: ClassVar[bool] = True
    #: The engine itself reports this rule's findings (parse errors, suppressions).
    engine_reported: ClassVar[bool] = False
    #: Options under ``[tool.mcplint.rules.<CODE>]`` with their defaults.
    options: ClassVar[Mapping[str, Any]] = {}

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        self.context = context
        self.settings = {**self.options, **options}

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        *,
        function: str | None = None,
        handler_kinds: frozenset[str] | None = None,
        through_return: bool = False,
    ) -> None:
        if function is None:
            function = self.context.scopes.current_function
        self.context.candidates.append(
            Candidate(self.code, node, message, function, handler_kinds, through_return)
        )

    def finish(self) -> None:
        """Called after the walk; rules that need whole-module facts report here."""

    @classmethod
    def summary(cls) -> str:
        """The first sentence of the "What it does" section."""
        from mcplint.catalogue import parse_sections

        paragraph = " ".join(parse_sections(cls.__doc__ or "").get("What it does", "").split("\n\n")[0].split())
        return paragraph.split(": ")[0].split(". ")[0].rstrip(".") + "."
