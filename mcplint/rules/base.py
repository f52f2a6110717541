"""What every rule is: a code, a name, a doc, visitor methods and ``report``.

A rule is a plain object with ``visit_<Node>`` / ``leave_<Node>`` methods that
the engine's single walk calls (no traversal of its own). It reports
*candidates*; the engine keeps those inside handler scope (or anywhere, for
rules with ``handler_scope = False``), positions them, applies suppressions and
turns them into findings. ``finish`` runs after the walk, when every fact of the
module is known.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

import libcst as cst

from mcplint.analysis.catching import (
    Clause,
    Guards,
    TryGuard,
    catches,
    clause_of,
    translating_clauses,
    translator_called,
)
from mcplint.analysis.handlers import HandlerFactsCollector
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.locals import LocalAssignments
from mcplint.analysis.loggers import ModuleLoggers
from mcplint.analysis.project import NO_PROJECT, ProjectContext
from mcplint.analysis.scopes import ScopeTracker
from mcplint.doc_sections import parse_sections
from mcplint.finding import Applicability
from mcplint.registry.load import load_registry
from mcplint.registry.model import Registry, RegistryError
from mcplint.rules.advice import Advice

if TYPE_CHECKING:
    from mcplint.settings import FileSettings


@dataclass(frozen=True)
class FixSpec:
    """A rule's fix: replace ``target`` with ``replacement``; the engine turns it into
    text edits once positions are known. Where the handlers that reach the site rule
    this form out (``handler_kinds``, ``in_handler``, ``low_level``: a tool-only form
    reached from a resource), the engine offers ``fallback`` instead."""

    target: cst.CSTNode
    replacement: cst.CSTNode
    message: str
    applicability: Applicability
    imports: tuple[tuple[str, str], ...] = ()
    handler_kinds: frozenset[str] | None = None
    # A line (`logger.exception("...")`) to put before ``statement``, at its indentation.
    log_line: str | None = None
    statement: cst.CSTNode | None = None
    # Only where the site is in the handler itself (not in a function it calls), and only on
    # low-level (True) or high-level (False) servers: a returned result instead of a raise.
    in_handler: bool = False
    low_level: bool | None = None
    # The form raises to the handler: not where a raise is a protocol error (mcp 2.x low level).
    raises: bool = False
    # What to offer where this form does not apply (a resource's form, a plainer fix).
    fallback: FixSpec | None = None
    # Why the chain offers no raise (a `try` of the function would catch it): the reason a site
    # left without a fix is given.
    no_raise_reason: str | None = None


@dataclass(frozen=True)
class Candidate:
    code: str
    node: cst.CSTNode
    message: str
    function: str | None
    handler_kinds: frozenset[str] | None  # None: any handler kind
    through_return: bool  # counts only where the value flows into a handler's return
    fix: FixSpec | None = None
    # The hand-written error message, for `mcplint migrate` to turn into a registry entry.
    error_message: cst.BaseExpression | None = None
    # A raised class: the finding counts only for handlers it reaches uncaught by their calls.
    escapes: str | None = None
    # The remedy, worded per handler kind; the engine appends the one that fits the reaching handlers.
    advice: Advice | None = None
    # The class the fix stops raising (`McpError` becoming the registry's tool error): no fix
    # where a caller on the way from a handler catches one and not the other.
    fix_replaces_class: str | None = None
    # Counts only where the function is itself a handler (a helper's `-> X | None` declares
    # None to its callers, who decide; a tool's None goes to the client as it is), or where a
    # caller decided that None is no data (`read(path) or {}`, HandlerScope.coalesced).
    only_as_handler: bool = False
    # Why the rule offers no fix at all here (`mcplint migrate` lists the site with it).
    unfixed_reason: str | None = None
    # Nodes a registry fix of the site edits (`registry_fix.fix_anchors`), placed with the
    # finding with or without a registry: a migration's later runs find them placed.
    anchors: tuple[cst.CSTNode, ...] = ()
    # Counts only for handlers that answer the value as it is: not those that check each
    # answer for an error first (``Handler.checks_answers``), which then is an error result.
    success_only: bool = False
    # A raise under an `isinstance` test its function's parameter annotation already passes:
    # it never fires where that function is a high-level handler (its arguments are validated
    # before it runs), only where another function calls it with something else.
    checks_validated_argument: bool = False
    # What the site's fix needs, built only for a finding the engine keeps (``resolved``): the
    # fields it gives (``fix``, ``error_message``, ``anchors``, ``unfixed_reason``) replace
    # these. The `ast` twins' sites are LibCST nodes built for the purpose (``libcst_of``), and
    # most candidates of some rules no handler reaches.
    later: Callable[[], dict[str, Any]] | None = None

    def resolved(self) -> Candidate:
        """The candidate with what ``later`` builds."""
        if self.later is None:
            return self
        return dataclasses.replace(self, later=None, **self.later())


# Nodes that open a scope of their own, compared by class (isinstance on LibCST's ABCs is slow
# and the rules ask for the enclosing clause and `try`s of nearly every node they report on).
_SCOPE_TYPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})


class RuleContext:
    """The shared per-file state rules read during and after the walk."""

    def __init__(
        self,
        ancestors: list[cst.CSTNode],
        registry_path: str | None = None,
        package: str | None = None,
        default_symbol: str | None = None,
        assigned_codes: frozenset[int] = frozenset(),
    ) -> None:
        self.default_symbol = default_symbol  # `default-symbol`: what a guessed failure is
        # Registry codes a running migration assigned (see FileSettings.assigned_codes).
        self.assigned_codes = assigned_codes
        self.scopes = ScopeTracker()
        self.imports = ImportTable(package)
        # The module's context managers that stop what their `with` body raises, by name.
        self.translators: dict[str, TryGuard] = {}
        self.facts = HandlerFactsCollector(self.scopes, self.enclosing_guards, self.translators)
        self.loggers = ModuleLoggers(self.imports, self.scopes)
        self.locals = LocalAssignments(self.scopes)
        self.ancestors = ancestors
        self.candidates: list[Candidate] = []
        self.registry_path = registry_path
        # Whether the run reads the findings' ``error_template`` (`mcplint migrate` does; a check
        # does not): False lets a rule skip building a site that could only give one.
        self.templates = True
        # The rest of the project as the run's join sees it (imported helpers' summaries).
        self.project = NO_PROJECT
        # Facts about this module's functions that other modules' analyses need (the join
        # hands them to the modules that import them): "error_helpers", "text_helpers".
        self.exports: dict[str, dict[str, Any]] = {}
        self.runs_stdio = False  # the module starts a server over stdio (MCP006 tells the join)
        # The functions a handler reaches (through calls or returns), once the handler scope is
        # resolved; None: not known, judge every function.
        self.reached: frozenset[str] | None = None
        # The functions of other modules a call in a function may run (the handler scope's
        # resolution: imports, objects' classes); none until the scope is resolved.
        self.external_calls: Callable[[str, str | None], list[str]] = lambda callee, function: []
        self._raise_places: dict[int, tuple[cst.ExceptHandler | None, cst.BaseExpression | None]] = {}
        self._statement_tries: dict[int, tuple[tuple[cst.ExceptHandler, ...], ...]] = {}
        self._own_raises: dict[int, set[str]] = {}  # id(except clause) -> classes its `try` raises itself
        self._return_clauses: dict[int, cst.ExceptHandler] = {}  # id(return) -> the clause around it

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        handlers = translating_clauses(node, self.imports.qualify)
        if handlers:
            self.translators[node.name.value] = tuple(self._clause_through_constants(handler) for handler in handlers)

    def _clause_through_constants(self, handler: cst.ExceptHandler) -> Clause:
        """``clause_of``, with a module constant naming the classes read as its tuple
        (`ANTICIPATED_ERRORS = (ValueError, KeyError)`; `except ANTICIPATED_ERRORS as e:`)."""
        names, passes_on = clause_of(handler)
        if len(names) == 1 and type(handler.type) is cst.Name:
            values = self.facts.aliases.get((None, handler.type.value), ())
            if len(values) == 1 and type(values[0]) is cst.Tuple:
                elements = [dotted_name(element.value) for element in values[0].elements]
                if all(elements):
                    names = tuple(name.rpartition(".")[2] for name in elements if name)
        return names, passes_on

    def visit_Raise(self, node: cst.Raise) -> None:
        # Rules judge raises after the walk (MCP006 only knows its leaks then): keep where each is.
        self._raise_places[id(node)] = (self.enclosing_clause(), self.return_annotation())
        self._remember_tries(node)
        self._remember_own_raise(node)

    def visit_Return(self, node: cst.Return) -> None:
        self._remember_tries(node)
        clause = self.enclosing_clause()
        if clause is not None:
            self._return_clauses[id(node)] = clause

    def visit_Assign(self, node: cst.Assign) -> None:
        self._remember_tries(node)

    def _remember_tries(self, node: cst.CSTNode) -> None:
        # The handlers only: reading them as guards costs, and few statements are fix sites.
        handlers = self.enclosing_try_handlers(node)
        if handlers:
            self._statement_tries[id(node)] = handlers

    def _remember_own_raise(self, node: cst.Raise) -> None:
        raised = _raised_class(node.exc)
        if raised is None:
            return
        for handlers in self._statement_tries.get(id(node), ()):  # innermost first
            clause = next((handler for handler in handlers if catches(clause_of(handler)[0], raised)), None)
            if clause is not None:  # the first clause that catches it decides
                self._own_raises.setdefault(id(clause), set()).add(raised)
                return

    def own_raises(self, clause: cst.ExceptHandler) -> frozenset[str]:
        """The classes (last names) that the clause's `try` raises in its own body and the clause
        catches: `raise ValueError("... must be http or https")` inside `try: ... except ValueError`."""
        return frozenset(self._own_raises.get(id(clause), ()))

    def statement_guards(self, node: cst.CSTNode) -> Guards:
        """The `try`s of its function whose body holds a raise, return or assignment, innermost
        first: what would catch an exception raised in its place."""
        return tuple(tuple(map(clause_of, handlers)) for handlers in self._statement_tries.get(id(node), ()))

    def return_clause(self, node: cst.CSTNode) -> cst.ExceptHandler | None:
        """The `except` clause (of its own function) a `return` is written in, if any."""
        return self._return_clauses.get(id(node))

    def raise_place(self, node: cst.Raise) -> tuple[cst.ExceptHandler | None, cst.BaseExpression | None]:
        """(the `except` clause around the raise, its function's return annotation)."""
        return self._raise_places.get(id(node), (None, None))

    def local_function(self, name: str, caller: str | None) -> str | None:
        """The module's function that ``name`` called in ``caller`` runs: `check(...)`,
        `self.check(...)`, `cls.check(...)`; None for anything else."""
        functions = self.facts.functions
        if name in functions:
            return name
        owner, _, method = name.rpartition(".")
        info = functions.get(caller or "")
        if owner in ("self", "cls") and info is not None and info.class_key is not None:
            key = f"{info.class_key}.{method}"
            return key if key in functions else None
        return None

    def return_annotation(self) -> cst.BaseExpression | None:
        """The return annotation of the function being visited (None: none, or at module level)."""
        for ancestor in reversed(self.ancestors):
            if isinstance(ancestor, cst.FunctionDef):
                return ancestor.returns.annotation if ancestor.returns is not None else None
        return None

    def _guarding_blocks(self, node: cst.CSTNode) -> Iterator[cst.Try | cst.With]:
        """The `try`s and `with`s whose body holds the node being visited, innermost first, in
        the same function."""
        ancestors = self.ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            ancestor = ancestors[index]
            if type(ancestor) in _SCOPE_TYPES:
                return
            if type(ancestor) is cst.Try or type(ancestor) is cst.With:
                child = ancestors[index + 1] if index + 1 < len(ancestors) else node
                if child is ancestor.body:
                    yield ancestor

    def enclosing_try_handlers(self, node: cst.CSTNode) -> tuple[tuple[cst.ExceptHandler, ...], ...]:
        """The handlers of each `try` whose body holds the node being visited, innermost first,
        in the same function."""
        return tuple(tuple(block.handlers) for block in self._guarding_blocks(node) if type(block) is cst.Try)

    def enclosing_guards(self, node: cst.CSTNode) -> Guards:
        """The `try`s whose body holds the node being visited, innermost first, as guards; a
        `with` of a context manager that stops what its body raises counts as its `try`."""
        found: list[TryGuard] = []
        for block in self._guarding_blocks(node):
            if isinstance(block, cst.Try):
                found.append(tuple(map(clause_of, block.handlers)))
            elif self.translators:
                for item in reversed(block.items):  # the last one entered is the first to exit
                    name = translator_called(item.item, self.translators)
                    if name is not None:
                        found.append(self.translators[name])
        return tuple(found)

    def enclosing_clause(self) -> cst.ExceptHandler | None:
        """The `except` clause around the node being visited, in the same function."""
        for ancestor in reversed(self.ancestors):
            if type(ancestor) in _SCOPE_TYPES:
                return None
            if type(ancestor) is cst.ExceptHandler:
                return ancestor
        return None

    @property
    def registry(self) -> Registry | None:
        """The configured error registry, or None (none configured, or it cannot be read)."""
        return configured_registry(self.registry_path)


def _raised_class(raised: cst.BaseExpression | None) -> str | None:
    """`ValueError` of `raise ValueError(...)` or `raise errors.ConfigError`; None for a name
    that is not a class's (`raise error`)."""
    if isinstance(raised, cst.Call):
        raised = raised.func
    name = dotted_name(raised) if raised is not None else None
    last = name.rpartition(".")[2] if name else ""
    return last if last[:1].isupper() else None


def configured_registry(path: str | None) -> Registry | None:
    """The registry at ``path``, loaded once per process and again when the file changes."""
    if path is None:
        return None
    try:
        status = os.stat(path)
    except OSError:
        return None
    return _load_registry(path, status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=8)
def _load_registry(path: str, mtime_ns: int, size: int) -> Registry | None:
    try:
        return load_registry(path)
    except RegistryError:
        return None  # `mcplint check` reports it on the registry file


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    #: Findings count only inside handler scope.
    handler_scope: ClassVar[bool] = True
    #: The engine itself reports this rule's findings (parse errors, suppressions).
    engine_reported: ClassVar[bool] = False
    #: What its fixes are (`mcplint rules` shows it): "safe", "unsafe", "safe/unsafe" (depends on
    #: the site, see the doc's "Fix safety"), or "" for a rule without fixes.
    fix_safety: ClassVar[str] = ""
    #: Options under ``[tool.mcplint.rules.<CODE>]`` with their defaults.
    options: ClassVar[Mapping[str, Any]] = {}
    #: Whether its walk (``__init__``, ``visit_*``) reads the error registry. Rules that only
    #: build their fixes from it do so in ``finish``: the walk of a module then serves every
    #: registry (a migration's runs differ in nothing else), and only ``finish`` runs again.
    walk_reads_registry: ClassVar[bool] = False

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
        fix: FixSpec | None = None,
        error_message: cst.BaseExpression | None = None,
        escapes: str | None = None,
        advice: Advice | None = None,
        fix_replaces_class: str | None = None,
        only_as_handler: bool = False,
        unfixed_reason: str | None = None,
        anchors: tuple[cst.CSTNode, ...] = (),
        success_only: bool = False,
        checks_validated_argument: bool = False,
        later: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        """``advice`` is the remedy per handler kind, appended to ``message`` after "; "."""
        if function is None:
            function = self.context.scopes.current_function
        self.context.candidates.append(
            Candidate(
                self.code, node, message, function, handler_kinds, through_return, fix, error_message, escapes,
                advice, fix_replaces_class, only_as_handler, unfixed_reason, anchors, success_only,
                checks_validated_argument, later,
            )  # fmt: skip
        )

    def project_inputs(self, project: ProjectContext) -> object:
        """What of the project context ``finish`` reads (it reads none by default): a later
        round whose context gives the same inputs replays the last ``finish``."""
        return None

    def export(self) -> None:
        """What ``finish`` exports for other modules (``context.exports``) and nothing else: a
        round of the run that does not judge (``lint.lint_text``'s ``judge``) asks only this
        of the rules that export. ``finish`` sets the same exports."""

    def finish(self) -> None:
        """Called after the walk; rules that need whole-module facts report here.

        It may run again on the same walk when the run's join gives the module another
        project context: it must start from what the walk left, not from its last run."""

    @classmethod
    def wanted_by(cls, project: ProjectContext) -> bool:
        """Whether the run's join says the module needs the rule whatever its pre-screen says
        (it uses something of another module the rule judges)."""
        return False

    @classmethod
    def prescreen(cls, text: str, settings: FileSettings) -> bool:
        """Whether the rule runs on a file, judged from its text before any parse.

        Only rules outside handler scope are asked (the others share the engine's
        framework-import screen); a file that no selected rule needs is not parsed.
        A rule runs only where its pre-screen says True, whatever else is selected,
        so its findings never depend on the other rules.
        """
        return True

    @classmethod
    def summary(cls) -> str:
        """The first sentence of the "What it does" section."""
        paragraph = " ".join(parse_sections(cls.__doc__ or "").get("What it does", "").split("\n\n")[0].split())
        return paragraph.split(": ")[0].split(". ")[0].rstrip(".") + "."
