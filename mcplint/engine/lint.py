"""Lint one file: decode, parse once, walk once with every rule, keep what counts.

Files that cannot contain a handler (no MCP framework import, no configured
handler pattern) cannot produce a handler-scope finding, so they only get
CPython's ``ast`` syntax check (a tenth of a LibCST parse); everything else is
parsed by LibCST exactly once and walked exactly once.
"""

from __future__ import annotations

import ast
import functools
import gc
import hashlib
import itertools
import os
import pickle
import re
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import libcst as cst

from mcplint.analysis.ast_cst import NodeSpans, Span, Unsupported, exact_span, render
from mcplint.analysis.ast_cst import build as build_tree
from mcplint.analysis.handlers import (
    Handler,
    HandlerScope,
    LocalScope,
    PathState,
    ToolWrapper,
    resolve_local_scope,
    scope_in_project,
)
from mcplint.analysis.prescreen import ImportScreen
from mcplint.analysis.project import NO_PROJECT, ProjectContext
from mcplint.analysis.shape import node_shape
from mcplint.analysis.walk import Walker, forget_own_nodes
from mcplint.engine.cache import file_stamp
from mcplint.engine.cst_parse import parse_module
from mcplint.engine.limits import MAX_PARSED_BYTES, Refusal, depth_refusal, parsed_depth_refusal, size_refusal
from mcplint.engine.positions import LineIndex, node_ranges
from mcplint.engine.result import SKIPPED_NESTED, FileResult
from mcplint.engine.suppress import apply_suppressions
from mcplint.engine.syntax import forget_checked_trees, parse_failure, syntax_check_only
from mcplint.finding import Edit, Finding, Fix
from mcplint.fingerprint import shape_digest
from mcplint.registry.match import template_of
from mcplint.rules import ALL_RULES, RULES_BY_CODE, UNUSED_SUPPRESSION
from mcplint.rules.base import Candidate, FixSpec, Rule, RuleContext
from mcplint.rules.mcp000_syntax_error import syntax_findings
from mcplint.settings import FileSettings
from mcplint.source import UndecodableSource, decode_source, is_generated, source_lines

if TYPE_CHECKING:
    from mcplint.engine.lint_ast import Bridge

# The `ast` port's pipeline (engine/lint_ast.py), the one a run uses; MCPLINT_AST=0 keeps to the
# LibCST one (which still analyses the texts the `ast` one leaves to it: ``_walk_ast``), and a run
# then loads none of the port's modules.
AST_PORT = os.environ.get("MCPLINT_AST", "1") not in ("", "0")

# Long `elif` chains and operator chains nest deeply; CPython 3.11+ keeps
# Python-to-Python calls off the C stack, so a high limit is safe.
RECURSION_LIMIT = 20_000
_FRAMEWORK_IMPORT = ImportScreen(("mcp", "fastmcp"))


def lint_path(
    path: str,
    display: str,
    settings: FileSettings,
    skip_generated: bool,
    project: ProjectContext = NO_PROJECT,
    judge: bool = True,
    templates: bool = True,
    reread: bool = True,
) -> FileResult:
    """``reread`` False: the bytes this run read of the file before, if it did (``_READ``)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    read = None if reread else _READ.get(path)
    if read is None:
        try:
            with open(path, "rb") as handle:
                status = os.fstat(handle.fileno())
                # As much as the file holds (and one more byte, should it have grown since):
                # a read of the whole limit allocates and trims a 2 MiB buffer for every file,
                # 1.5 % of a corpus check's time, which callgrind does not count (the kernel's).
                wanted = min(status.st_size, MAX_PARSED_BYTES) + 1
                data = handle.read(wanted)
                if len(data) == wanted and wanted <= MAX_PARSED_BYTES:
                    data += handle.read(MAX_PARSED_BYTES + 1 - wanted)
        except OSError as error:
            return _syntax_result(display, settings, f"cannot read file: {error.strerror}", 1, 1)
        read = _READ[path] = _Read(status, data, hashlib.sha256(data).hexdigest())
    status, data, digest = read.status, read.data, read.digest
    refusal = size_refusal(max(status.st_size, len(data)))  # not decoded: the read stops at the limit
    if refusal is not None:
        result = _refused(display, settings, refusal)
    else:
        result = _lint_read(read, display, settings, skip_generated, project, judge, templates)
    if not result.internal_error:
        result.stat_key = file_stamp(status)
        result.content_hash = digest
    return result


class _Read:
    """A file as this run read it: its stamp, its bytes and their digest, and its text once
    decoded (or why it cannot be)."""

    __slots__ = ("status", "data", "digest", "text", "asked")

    def __init__(self, status: os.stat_result, data: bytes, digest: str) -> None:
        self.status = status
        self.data = data
        self.digest = digest
        self.text: str | UndecodableSource | None = None
        # What ``lint_text`` worked out of the text and the file's settings (the same every
        # round of a run): whether it is generated, each rule's pre-screen, the walk's key.
        self.asked: dict[object, Any] = {}


# What this run read of each file, by path: each round of a run that fixes nothing analyses again
# the files whose project context changed, and a file is what the run first read of it
# (``forget_walked_modules`` forgets them when it ends or the next starts). The text is decoded
# once too: the same string object every round, whose hash the per-text memos below compute once.
_READ: dict[str, _Read] = {}


def _lint_read(
    read: _Read,
    display: str,
    settings: FileSettings,
    skip_generated: bool,
    project: ProjectContext,
    judge: bool,
    templates: bool,
) -> FileResult:
    try:
        if read.text is None:
            try:
                read.text = decode_source(read.data)
            except UndecodableSource as error:
                read.text = error.with_traceback(None)  # kept for the run: not its frames
        if isinstance(read.text, UndecodableSource):
            return _syntax_result(display, settings, read.text.message, read.text.line, read.text.column)
        return lint_text(
            read.text, display, settings, skip_generated=skip_generated, project=project, judge=judge,
            templates=templates, asked=read.asked,
        )  # fmt: skip
    except RecursionError:
        return FileResult(warnings=[f"{display}: {SKIPPED_NESTED}"])
    except Exception as error:  # a bug in mcplint must not stop the run
        return FileResult(
            warnings=[f"{display}: internal error: {type(error).__name__}: {error}"], internal_error=True
        )


def lint_bytes(
    data: bytes,
    display: str,
    settings: FileSettings,
    *,
    skip_generated: bool = False,
    project: ProjectContext = NO_PROJECT,
    judge: bool = True,
    templates: bool = True,
) -> FileResult:
    try:
        text = decode_source(data)
    except UndecodableSource as error:
        return _syntax_result(display, settings, error.message, error.line, error.column)
    return lint_text(
        text, display, settings, skip_generated=skip_generated, project=project, judge=judge, templates=templates
    )


def lint_text(
    text: str,
    display: str,
    settings: FileSettings,
    *,
    skip_generated: bool = False,
    project: ProjectContext = NO_PROJECT,
    judge: bool = True,
    templates: bool = True,
    asked: dict[object, Any] | None = None,
) -> FileResult:
    """The file's findings and what the run's join reads of it. ``judge`` False: the join's
    part alone (``FileResult.judged`` False), for a round of a run that judges each file once,
    in the project context the rounds end with (``runner.run``'s ``judge_once``). ``templates``
    False: the findings' ``error_template`` may be left out where working it out is all a site
    would be built for (``RuleContext.templates``). ``asked``: what an earlier call on the
    same text with the same settings worked out, kept there for the next."""
    if asked is None:
        asked = {}
    if skip_generated and _asked(asked, "generated", is_generated, text):
        return FileResult()
    refusal = size_refusal(len(text))  # a code point is at least a byte: never under-counts
    if refusal is not None:
        return _refused(display, settings, refusal)
    nul = text.find("\x00")
    if nul != -1:  # Python refuses it, and LibCST's string values would raise (found by fuzzing)
        line, column = LineIndex(text).position(nul)
        return _syntax_result(display, settings, "source contains a NUL byte", line, column)
    rules = [rule for rule in ALL_RULES if rule.code in settings.codes and not rule.engine_reported]
    # A rule outside handler scope runs only on the files its text pre-screen accepts.
    rules = [
        rule
        for rule in rules
        if rule.handler_scope or rule.wanted_by(project) or _asked(asked, rule, rule.prescreen, text, settings)
    ]
    if _may_produce_findings(text, rules, settings, project):
        result = _rule_findings(text, display, settings, rules, project, judge, templates, asked)
    else:
        result = _syntax_checked(text, display, settings, rules, project, judge, templates, asked)
    if result.judged and (result.findings or UNUSED_SUPPRESSION in settings.codes):  # one search of a text without directives
        result.findings = apply_suppressions(text, result.findings, display, settings)
    result.findings.sort()
    return result


def _asked(asked: dict[object, Any], question: object, answer: Callable[..., Any], *arguments: Any) -> Any:
    """``answer(*arguments)``, worked out once per ``question`` in ``asked``."""
    if question in asked:
        return asked[question]
    found = asked[question] = answer(*arguments)
    return found


def _syntax_checked(
    text: str,
    display: str,
    settings: FileSettings,
    rules: Sequence[type[Rule]],
    project: ProjectContext,
    judge: bool,
    templates: bool,
    asked: dict[object, Any],
) -> FileResult:
    """CPython's syntax check and the names the join needs; or the whole analysis, where the
    module may apply a registration decorator imported from another module (one that only
    calls the decorated function, as a test does, gives no reason)."""
    decorators = [name for name, _ in project.registry_decorators] if rules else []
    findings, facts = syntax_check_only(text, display, settings, project, keep_tree=AST_PORT)
    if decorators and facts.may_apply(decorators):
        return _rule_findings(text, display, settings, rules, project, judge, templates, asked)
    return FileResult(
        findings=findings,
        imported_names=sorted(set(facts.exports.values())),
        exports=facts.exports,
        star_imports=facts.star_imports,
        defined_names=facts.defined_names,
        registry_decorators=facts.registry_decorators,
        registry_tables=facts.registry_tables,
    )


@dataclass
class _Walked:
    """A module parsed and walked once: what the cross-module rounds analyse again."""

    module: cst.Module | None
    # Where each node sits (by id), for a tree built from CPython's `ast` (analysis/ast_cst.py);
    # None for a LibCST parse, whose nodes are placed by a codegen pass.
    spans: dict[int, Span] | None
    context: RuleContext
    instances: list[Rule]
    walk_candidates: list[Candidate]
    ranges: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)  # by id(node), once placed
    # Per rule (its index): the project inputs of its last finish() or export(), what it reported
    # (None: an export's) and exported.
    finished: dict[int, tuple[object, list[Candidate] | None, dict[str, dict[str, Any]]]] = field(default_factory=dict)
    # The handler scope last resolved, and the part of the project context it was resolved in
    # (``_scope_fields``, ``_local_fields``).
    scope: tuple[tuple[object, ...], HandlerScope] | None = None
    # ... and its local part (before other modules' entry points), with its context.
    local_scope: tuple[tuple[object, ...], LocalScope] | None = None
    defined_names: list[str] | None = None  # the module's, once listed (``_defined_names``)
    # The scope's tables as the join reads them (``_scope_pairs``), with the scope and the module
    # name they were worked out for: a round that keeps the scope keeps them.
    scope_pairs: tuple[HandlerScope, str | None, _ScopePairs] | None = None
    # The `ast` port's pipeline (engine/lint_ast.py): CPython's tree the twins walked (``module``
    # is None then), where its nodes are placed, and the bridge to LibCST nodes for the fixes.
    tree: ast.Module | None = None
    node_spans: NodeSpans | None = None
    bridge: Bridge | None = None


# Per process, the modules walked so far in this run, by (file, text, settings): a module the
# run's join hands a new project context is not parsed and walked again, only resolved.
_WALKED: OrderedDict[tuple[str, int, int, bytes], _Walked] = OrderedDict()
MAX_WALKED = 4096


# Per process, the modules parsed, by their text. A parse depends on the text alone: while a
# process serves several runs over the same files (`mcplint migrate`'s, runner.shared_workers),
# the parses stay from one run to the next (up to MAX_PARSED), and each text is parsed once;
# otherwise only the last one does, which the fixer hands over: the text it parsed to verify a
# pass, which the pass's analysis lints next.
_PARSED: OrderedDict[str, tuple[cst.Module, dict[int, Span] | None]] = OrderedDict()
MAX_PARSED = MAX_WALKED
_KEEP_PARSED = [False]


def hand_over_parsed(text: str, module: cst.Module, spans: dict[int, Span] | None = None) -> None:
    """Keep a tree of ``text``: LibCST's (``spans`` None) or one built from `ast` with its spans."""
    _PARSED[text] = (module, spans)
    _PARSED.move_to_end(text)
    while len(_PARSED) > (MAX_PARSED if _KEEP_PARSED[0] else 1):
        _PARSED.popitem(last=False)


def _parse(text: str) -> cst.Module:
    """LibCST's own tree of the text."""
    kept = _PARSED.get(text)
    if kept is None or kept[1] is not None:
        module = parse_module(text)
        hand_over_parsed(text, module)
        return module
    _PARSED.move_to_end(text)
    return kept[0]


def _analysis_tree(text: str) -> tuple[cst.Module, dict[int, Span] | None]:
    """The tree the rules read: built from CPython's `ast` (a tenth of LibCST's parse) with
    each node's span, or LibCST's own where that builder does not make it (or a fix already
    parsed the text)."""
    kept = _PARSED.get(text)
    if kept is not None:
        _PARSED.move_to_end(text)
        return kept
    try:
        module, spans = build_tree(text)
    except (Unsupported, SyntaxError, ValueError):  # LibCST decides what the text is
        return _parse(text), None
    hand_over_parsed(text, module, spans)
    return module, spans


def keep_parsed_modules(keep: bool) -> None:
    """Keep the parses from one run to the next (True), or only while a run lasts."""
    _KEEP_PARSED[0] = keep
    if not keep:
        forget_walked_modules()


def forget_walked_modules() -> None:
    """A run ends (or starts): what it walked goes, unless the parses are kept (the runs of a
    migration over the same files): a walk is keyed by what it depends on (``_walk_key``),
    and what depends on the project context or the registry is judged again (``_resolve``)."""
    _READ.clear()  # a migration writes files between its runs
    forget_checked_trees()
    if _KEEP_PARSED[0]:
        return
    _WALKED.clear()
    _PARSED.clear()
    forget_own_nodes()
    if _FROZEN[0]:
        gc.unfreeze()  # what is garbage by now, the next collections find
        _FROZEN[0] = False


# Whether _freeze_walked froze objects since the last forget_walked_modules.
_FROZEN = [False]


def _freeze_walked() -> None:
    """Keep the cyclic garbage collector off the trees a run keeps.

    The walked modules stay alive to the end of the run (the later rounds resolve them
    again): millions of LibCST nodes, which each full collection traversed again, and the
    run's allocations set one off every few files: a third of the CPU of a corpus check.
    Frozen, the collector leaves them alone; the trees hold no reference cycles (their
    nodes are freed by reference counting all the same), and forget_walked_modules
    unfreezes at the run's end, so whatever cycle was frozen with them is collected then."""
    gc.freeze()
    _FROZEN[0] = True


def _rule_findings(
    text: str,
    display: str,
    settings: FileSettings,
    rules: Sequence[type[Rule]],
    project: ProjectContext,
    judge: bool = True,
    templates: bool = True,
    asked: dict[object, Any] | None = None,
) -> FileResult:
    codes = tuple(rule.code for rule in rules)
    key = _asked({} if asked is None else asked, codes, _walk_key, text, display, settings, rules)
    walked = _WALKED.get(key)
    if walked is None:
        tree = _ast_tree(text, rules) if AST_PORT else None
        # LibCST's parser would crash the process (engine/limits.py): refused whichever pipeline
        # analyses, CPython's tree telling which statements to scan where it parsed the text.
        refusal = depth_refusal(text) if tree is None else parsed_depth_refusal(text, tree)
        if refusal is not None:
            return _refused(display, settings, refusal)
        if tree is not None:
            walked = _walk_ast(text, tree, rules, settings, project)
        if walked is None:
            try:
                module, spans = _analysis_tree(text)
            except cst.ParserSyntaxError as error:
                return FileResult(findings=parse_failure(text, display, settings, error))
            walked = _walk(module, spans, rules, settings, project)
        walked = _remember_walk(key, walked)
    else:
        _WALKED.move_to_end(key)
    try:
        candidates, scope, context = _resolve(walked, settings, project, judge, templates)
        findings = _findings(walked, text, candidates, scope, display) if judge else []
    except (NeedsLibCST, Unsupported):
        # A finding this tree cannot place or a fix it cannot print (or, on the `ast` pipeline, a
        # fix whose LibCST node the builder does not make): the module is parsed by LibCST and
        # judged again (the same judgement, on the source's own tree).
        walked = _remember_walk(key, _walk(_parse(text), None, rules, settings, project))
        candidates, scope, context = _resolve(walked, settings, project, judge, templates)
        findings = _findings(walked, text, candidates, scope, display) if judge else []
    result = FileResult(findings=findings, analysed=True, judged=judge)
    result.module_servers = {name: (b.level, b.framework) for name, b in scope.module_servers.items()}
    result.imported_names = sorted(set(context.imports.imported().values()))
    pairs = _scope_pairs(walked, scope, project)
    result.outgoing_calls, result.outgoing_returns, result.message_returns, result.reached = pairs
    result.local_reach_calls = scope.local_reach_calls
    result.local_reach_returns = scope.local_reach_returns
    result.local_reach_guards = scope.local_reach_guards
    result.exports = context.imports.imported()
    result.star_imports = list(context.imports.star_modules)
    if walked.defined_names is None:
        if walked.tree is not None and walked.node_spans is not None:
            from mcplint.engine.lint_ast import defined_names

            walked.defined_names = defined_names(walked.tree, walked.node_spans)
        else:
            assert walked.module is not None
            walked.defined_names = _defined_names(walked.module)
    result.defined_names = list(walked.defined_names)
    result.server_classes = {key: (b.level, b.framework) for key, b in scope.server_classes.items()}
    result.tool_wrappers = {
        key: _listed(binding.tool_wrappers) for key, binding in scope.server_classes.items() if binding.tool_wrappers
    }
    result.wrapper_guards = scope.wrapper_guards
    result.decorator_methods = scope.decorator_methods
    result.decorator_method_wrappers = {key: _listed(wrappers) for key, wrappers in scope.decorator_method_wrappers.items()}
    result.server_factories = {key: (b.level, b.framework) for key, b in scope.server_factories.items()}
    result.handlers = sorted((key, handler.kind) for key, handler in scope.handlers.items())
    result.imports_server_framework = any(_is_server_framework(name) for name in context.imports.imported().values())
    result.outgoing_servers = scope.outgoing_servers
    result.outgoing_arguments = scope.outgoing_arguments
    result.outgoing_instances = scope.outgoing_instances
    result.dynamic_registrations = scope.dynamic_registrations
    result.dispatch_guards = scope.dispatch_guards
    result.left_out_heads = sorted(scope.left_out_heads)
    result.message_targets = scope.message_targets
    result.registry_decorators = scope.registry_decorators
    result.registry_tables = scope.registry_tables
    result.outgoing_registrations = scope.outgoing_registrations
    result.registrars = scope.registrars
    result.error_helpers = context.exports.get("error_helpers", {})
    result.unmasked_classes = context.exports.get("unmasked_classes", {})
    result.text_helpers = context.exports.get("text_helpers", {})
    result.raising_functions = context.exports.get("raising_functions", {})
    result.runs_stdio = context.runs_stdio
    return result


def _remember_walk(key: tuple[str, int, int, bytes], walked: _Walked) -> _Walked:
    _WALKED[key] = walked
    _WALKED.move_to_end(key)
    if len(_WALKED) > MAX_WALKED:
        _WALKED.popitem(last=False)
    _freeze_walked()
    return walked


class NeedsLibCST(Exception):
    """The findings need the source's own LibCST tree (``_rule_findings`` parses it)."""


def _walk_key(text: str, display: str, settings: FileSettings, rules: Sequence[type[Rule]]) -> tuple[str, int, int, bytes]:
    """What a walk depends on: the text and the settings, but for the registry's own settings
    when no rule's walk reads them (the rules build their fixes from the registry in ``finish``,
    which ``_resolve`` runs again for another registry): a migration's runs, which differ in
    the registry, walk each text once."""
    stamp = None
    if any(rule.walk_reads_registry for rule in rules):
        stamp = _registry_stamp(settings.registry)  # the file may change under the same path
    else:
        settings = replace(settings, registry=None, default_symbol=None, assigned_codes=frozenset())
    digest = hashlib.sha1(pickle.dumps((settings, [rule.code for rule in rules], stamp))).digest()
    return (display, len(text), hash(text), digest)


def _registry_stamp(path: str | None) -> tuple[int, int, int, int] | None:
    if path is None:
        return None
    try:
        return file_stamp(os.stat(path))
    except OSError:
        return None


def _listed(wrappers: Iterable[ToolWrapper]) -> list[list[Any]]:
    """Wrappers as the cache keeps them (lists: JSON has no tuples)."""
    return [[wrapper, list(guards)] for wrapper, guards in wrappers]


def _is_server_framework(qualified: str) -> bool:
    """`mcp.server...` or `fastmcp...` (not `mcp.types` or a client): what servers are built from."""
    return qualified.startswith(("mcp.server", "fastmcp")) and not qualified.startswith("fastmcp.client")


def _defined_names(module: cst.Module) -> list[str]:
    """The names a module's top-level statements define (what `from m import name` finds
    there), and its top-level classes' methods (`Class.method`)."""
    names = set()
    pending: list[cst.CSTNode] = list(module.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.add(statement.name.value)
            if isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
                # `Class.method`: which module defines a method a subclass elsewhere inherits
                names.update(
                    f"{statement.name.value}.{member.name.value}"
                    for member in statement.body.body
                    if isinstance(member, cst.FunctionDef)
                )
        elif isinstance(statement, (cst.If, cst.Try, cst.With)):
            pending.extend(statement.body.body)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else ([small.target] if isinstance(small, cst.AnnAssign) else [])
                )
                names.update(target.value for target in targets if isinstance(target, cst.Name))
    return sorted(names)


_HandlerPairs = dict[str, list[tuple[str, str, tuple[str, ...]]]]
# outgoing calls, outgoing returns, message returns (``_handler_pairs``), and per function the
# handlers reaching it (labelled)
_ScopePairs = tuple[_HandlerPairs, _HandlerPairs, _HandlerPairs, dict[str, list[str]]]


def _scope_pairs(walked: _Walked, scope: HandlerScope, project: ProjectContext) -> _ScopePairs:
    """The handler scope's tables as the join reads them: worked out once per scope (the rounds
    that bring a module only other modules' helpers keep its scope, and its judgement too)."""
    known = walked.scope_pairs
    if known is not None and known[0] is scope and known[1] == project.module:
        return known[2]
    pairs = (
        _handler_pairs(scope, scope.outgoing_calls, project, scope.outgoing_states),
        _handler_pairs(scope, scope.outgoing_returns, project),
        _handler_pairs(scope, scope.message_returns, project),
        {
            function: sorted({project.label(h.key) if h.key in scope.handlers else h.key for h in handlers})
            for function, handlers in scope.reached_by.items()
        },
    )
    walked.scope_pairs = (scope, project.module, pairs)
    return pairs


def _handler_pairs(
    scope: HandlerScope,
    table: dict[str, list[Handler]],
    project: ProjectContext,
    states: dict[tuple[str, str], set[PathState]] | None = None,
) -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:
    """(handler, kind, call path's guards) as other modules will name them: this module's
    handlers are module-qualified, those that reached here from other modules already are."""
    pairs: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
    # A handler's label and kind, and a path's guards in order, are worked out once and shared by
    # every entry naming them: the tables repeat them per target (and pickled, a shared string or
    # tuple is written once).
    named: dict[int, tuple[str, str]] = {}  # by id: the handlers are the table's, alive meanwhile
    ordered: dict[PathState, tuple[str, ...]] = {}
    for target, handlers in table.items():
        found: list[tuple[str, str, tuple[str, ...]]] = []
        pairs[target] = found
        for handler in handlers:
            name = named.get(id(handler))
            if name is None:
                label = project.label(handler.key) if handler.key in scope.handlers else handler.key
                name = named[id(handler)] = (label, handler.joined_kind)
            label, kind = name
            paths = states.get((target, handler.key)) if states else None
            if not paths:
                found.append((label, kind, ()))
                continue
            guards_of_paths = []
            for path in paths:
                guards = ordered.get(path)
                if guards is None:
                    guards = ordered[path] = tuple(sorted(path))
                guards_of_paths.append(guards)
            # Each path's guards in order, the paths in the order of those (a tuple sorts as its list).
            found.extend((label, kind, guards) for guards in sorted(guards_of_paths))
    return pairs


def _syntax_result(display: str, settings: FileSettings, message: str, line: int, column: int) -> FileResult:
    return FileResult(findings=syntax_findings(display, settings, message, line, column))


def _refused(display: str, settings: FileSettings, refusal: Refusal) -> FileResult:
    return _syntax_result(display, settings, refusal.message, refusal.line, refusal.column)


def _may_produce_findings(
    text: str, rules: Sequence[type[Rule]], settings: FileSettings, project: ProjectContext
) -> bool:
    if not rules:
        return False
    if project.entry_points or project.return_entry_points or project.imported_servers:
        return True
    if project.imported_server_classes or project.imported_server_factories:
        return True
    if project.server_parameters:
        return True
    if (project.imported_error_helpers or project.imported_text_helpers) and project.imported_by_analysed:
        # Another module's helpers change only what this module's own helpers are (its findings
        # need handler scope, a reason of its own): worth a parse when a module reads them.
        return True
    if project.registered_here or project.imported_registrars:
        return True
    if project.imported_unmasked_classes or project.imported_decorator_methods:
        return True
    if project.parameter_classes or project.collected_instances:
        return True
    if any(not rule.handler_scope for rule in rules):
        return True
    if settings.handler_decorators or settings.handler_functions:
        return True
    return _may_hold_handlers(text)


# Each round of a run asks again for every file whose project context changed: the same texts.
@functools.lru_cache(maxsize=4096)
def _may_hold_handlers(text: str) -> bool:
    return _FRAMEWORK_IMPORT.search(text) is not None or _dispatches_messages(text)


# `elif msg_type == "get_results":`: a dispatcher by message name (a worker process's loop),
# whose branches the run's join links to the handlers sending those messages.
_MESSAGE_BRANCH = re.compile(r"^[ \t]*elif[ \t]+[\w.]+[ \t]*==[ \t]*[\"'][A-Za-z_]", re.MULTILINE)
_MIN_MESSAGE_BRANCHES = 3


def _dispatches_messages(text: str) -> bool:
    if text.count("elif") < _MIN_MESSAGE_BRANCHES:  # each branch is an `elif` (most texts: no search)
        return False
    branches = _MESSAGE_BRANCH.finditer(text)
    return len(list(itertools.islice(branches, _MIN_MESSAGE_BRANCHES))) == _MIN_MESSAGE_BRANCHES


def _walk(
    module: cst.Module,
    spans: dict[int, Span] | None,
    rules: Sequence[type[Rule]],
    settings: FileSettings,
    project: ProjectContext,
) -> _Walked:
    """The one walk: every rule and shared analysis sees each node once. What it gathers does
    not depend on the project context (only ``finish`` and the handler scope do)."""
    ancestors: list[cst.CSTNode] = []
    context = RuleContext(
        ancestors,
        registry_path=settings.registry,
        package=project.package,
        default_symbol=settings.default_symbol,
        assigned_codes=settings.assigned_codes,
    )
    instances = [rule(context, settings.rule_options.get(rule.code, {})) for rule in rules]
    walker = Walker(
        [context.scopes, context.imports, context.facts, context.loggers, context.locals, context, *instances]
    )
    context.ancestors = walker.ancestors
    walker.walk(module)
    return _Walked(module, spans, context, instances, list(context.candidates))


def _ast_tree(text: str, rules: Sequence[type[Rule]]) -> ast.Module | None:
    """CPython's tree for the `ast` pipeline (engine/lint_ast.py); None where a rule has no twin
    yet or Python refuses the text (a newer Python's syntax: LibCST reads it)."""
    from mcplint.engine import lint_ast

    if lint_ast.twins_of(rules) is None or "\r" in text:  # the builder places no node of a text with carriage returns
        return None
    try:
        tree, _ = lint_ast.analysis_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # the last two: too deep for CPython's parser
        return None
    return tree


def _walk_ast(
    text: str, tree: ast.Module, rules: Sequence[type[Rule]], settings: FileSettings, project: ProjectContext
) -> _Walked | None:
    """The one walk of CPython's tree (engine/lint_ast.py); None where the builder would not make
    a fix's LibCST node (LibCST's pipeline then)."""
    from mcplint.engine import lint_ast

    twins = lint_ast.twins_of(rules)
    assert twins is not None  # ``_ast_tree`` made the tree
    try:
        context, instances, bridge = lint_ast.walk(
            tree, text, twins, settings.rule_options, registry_path=settings.registry, package=project.package,
            default_symbol=settings.default_symbol, assigned_codes=settings.assigned_codes,
        )  # fmt: skip
    except Unsupported:  # a fix's LibCST node the builder does not make: LibCST's pipeline then
        return None
    walked = _Walked(None, None, context, instances, list(context.candidates))
    walked.tree, walked.node_spans, walked.bridge = tree, NodeSpans(text, tree), bridge
    return walked


# What the handler scope does not read of a project context (other modules' helper summaries,
# the transport: the rules read them after it), and the fields it does; the local part reads
# no entry point either.
_OUTSIDE_THE_SCOPE: dict[str, Any] = {
    "imported_text_helpers": (),
    "imported_raisers": (),
    "imported_error_helpers": (),
    "imported_unmasked_classes": (),
    "imported_by_analysed": False,
    "stdio_transport": False,
}
_SCOPE_FIELDS = [item.name for item in fields(ProjectContext) if item.name not in _OUTSIDE_THE_SCOPE]
_scope_fields = attrgetter(*_SCOPE_FIELDS)
_local_fields = attrgetter(*(name for name in _SCOPE_FIELDS if name not in ("entry_points", "return_entry_points")))


def _resolve(
    walked: _Walked, settings: FileSettings, project: ProjectContext, judge: bool = True, templates: bool = True
) -> tuple[list[Candidate], HandlerScope, RuleContext]:
    """The rules' whole-module judgements and the handler scope, in this project context
    (``judge`` False: the handler scope and the rules' exports alone)."""
    context = walked.context
    context.project = project
    context.registry_path = settings.registry
    context.default_symbol = settings.default_symbol
    context.assigned_codes = settings.assigned_codes
    context.templates = templates
    # What the rules build their fixes from (the walk read none of it: `_walk_key`).
    fix_inputs = (context.registry, settings.default_symbol, settings.assigned_codes, templates)
    context.exports = {}
    context.candidates = list(walked.walk_candidates)
    # The project context's summaries of other modules' helpers and whether the project
    # runs over stdio do not enter the handler scope: a later round that brings only those
    # (the commonest kind) keeps the last scope.
    # (Compared as the tuples of the fields that count: a context has 25, `replace` sets them all.)
    scope_key = _scope_fields(project)
    if walked.scope is not None and walked.scope[0] == scope_key:
        scope = walked.scope[1]
    else:
        scope_inputs = replace(project, **_OUTSIDE_THE_SCOPE)
        # The module's own handlers and their reach do not depend on other modules' entry
        # points: a round that brings only new ones (the next commonest) adds them to those.
        local_key = _local_fields(project)
        local_inputs = replace(scope_inputs, entry_points=(), return_entry_points=())
        if walked.local_scope is not None and walked.local_scope[0] != local_key and walked.local_scope[1].kept_for(local_inputs):
            walked.local_scope = (local_key, walked.local_scope[1])  # it asked nothing the new context answers otherwise
        if walked.local_scope is None or walked.local_scope[0] != local_key:
            resolve = resolve_local_scope if walked.tree is None else _ast_local_scope
            local = resolve(
                context.facts,
                context.imports,
                handler_decorators=settings.handler_decorators,
                handler_functions=settings.handler_functions,
                project=local_inputs,
            )
            walked.local_scope = (local_key, local)
        scope = scope_in_project(walked.local_scope[1], scope_inputs)
        walked.scope = (scope_key, scope)
    # Rules whose judgement is costly judge only the functions a handler reaches.
    context.reached = frozenset(scope.reached_by) | frozenset(scope.returns_to)
    context.external_calls = scope.external_calls
    for index, instance in enumerate(walked.instances):
        if not judge and type(instance).export is Rule.export:
            continue  # exports nothing: nothing to do before the file is judged
        inputs = (instance.project_inputs(project), fix_inputs)
        # The last finish() or export(), in the inputs it read: replayed where those are the same
        # (candidates None: an export's, which judges nothing).
        replay = walked.finished.get(index)
        if replay is not None and replay[0] == inputs and (replay[1] is not None or not judge):
            context.candidates.extend(replay[1] or ())
            context.exports.update(replay[2])
            continue
        before, exported = len(context.candidates), set(context.exports)
        if judge:
            instance.finish()
        else:
            instance.export()
        walked.finished[index] = (
            inputs,
            context.candidates[before:] if judge else None,
            {key: value for key, value in context.exports.items() if key not in exported},
        )
    return context.candidates, scope, context


def _findings(
    walked: _Walked, text: str, candidates: Iterable[Candidate], scope: HandlerScope, display: str
) -> list[Finding]:
    kept: list[tuple[Candidate, list[Handler], list[Handler]]] = []
    placed: set[tuple[str, int]] = set()  # one finding per code and node, whichever function's
    for candidate in candidates:
        if (candidate.code, id(candidate.node)) in placed:
            continue
        rule = RULES_BY_CODE[candidate.code]
        if candidate.only_as_handler and candidate.function not in scope.handlers and candidate.function not in scope.coalesced:
            continue
        affected = scope.handlers_reaching(candidate.function, through_return=candidate.through_return)
        if candidate.checks_validated_argument:  # not where the function is a validated handler itself
            affected = [h for h in affected if h.low_level or h.key != candidate.function]
        if candidate.escapes is not None:  # a raise: only the handlers it reaches uncaught
            affected = [
                handler for handler in affected if scope.escapes(candidate.function, handler, candidate.escapes)
            ]
        reaching = affected
        if candidate.handler_kinds is not None:
            reaching = [handler for handler in affected if handler.kind in candidate.handler_kinds]
        if candidate.success_only:
            reaching = [handler for handler in reaching if not handler.checks_answers]
        if rule.handler_scope and not reaching:
            continue
        candidate = candidate.resolved()
        # The finding is about the handlers of its kinds; a fix changes what every handler
        # reaching the site gets (a prompt sharing a tool's helper too): its form must suit all.
        kept.append((candidate, reaching, affected))
        placed.add((candidate.code, id(candidate.node)))
    if not kept:
        return []
    fix_targets = [node for candidate, _, _ in kept for node in (*_fix_nodes(candidate.fix), *candidate.anchors)]
    ranges = walked.ranges
    if walked.node_spans is not None:  # the `ast` pipeline: a finding on an `ast` node, a fix on LibCST's
        _place_ast(walked, text, [candidate.node for candidate, _, _ in kept], fix_targets)
    else:
        missing = [node for node in (*(candidate.node for candidate, _, _ in kept), *fix_targets) if id(node) not in ranges]
        if missing and walked.spans is not None:
            ranges.update(_spanned_ranges(walked.spans, missing, text))
        elif missing:  # one codegen pass places them; the next rounds on this module reuse it
            assert walked.module is not None
            ranges.update(node_ranges(walked.module, missing, text))
    lines = source_lines(text)
    findings = []
    for candidate, reaching, affected in kept:
        line, column, end_line, end_column = ranges[id(candidate.node)]
        catching_caller = _caller_catching_a_raise(candidate, scope, affected or reaching)
        fix = _fix(walked, text, lines, candidate.fix, candidate.function, affected or reaching, ranges, catching_caller)
        unfixed = _unfixed_reason(candidate.fix, candidate.function, affected or reaching, catching_caller)
        unfixed = unfixed or (candidate.unfixed_reason if candidate.fix is None else None)
        catcher = _catcher_of_replaced_class(candidate, scope) if fix is not None else None
        if catcher is not None:
            fix, unfixed = None, catcher
        findings.append(
            Finding(
                path=display,
                line=line,
                column=column,
                code=candidate.code,
                end_line=end_line,
                end_column=end_column,
                name=RULES_BY_CODE[candidate.code].name,
                message=_message(candidate, reaching),
                handler=reaching[0].key if reaching else None,
                context=candidate.function or "<module>",
                snippet_digest=shape_digest(_shape_of(walked, candidate.node)),
                fix=fix,
                error_template=template_of(candidate.error_message) if candidate.error_message else None,
                unfixed_reason=unfixed,
            )
        )
    return findings


def _ast_local_scope(*args: Any, **kwargs: Any) -> LocalScope:
    from mcplint.engine import lint_ast

    return lint_ast.resolve_local_scope(*args, **kwargs)


def _place_ast(walked: _Walked, text: str, nodes: Sequence[Any], fix_targets: Sequence[cst.CSTNode]) -> None:
    """Where the `ast` pipeline's findings go: their `ast` nodes where the builder would have put
    the nodes made from them; their fixes' LibCST nodes (the bridge's) by the bridge's spans."""
    assert walked.node_spans is not None
    ranges = walked.ranges
    starts = walked.context.source.line_starts()  # type: ignore[attr-defined]  # the `ast` twins' context
    lines = LineIndex(text, starts)
    for node in nodes:
        if id(node) not in ranges:
            start, end = walked.node_spans.span(node)
            ranges[id(node)] = (*lines.position(start), *lines.position(end))
    missing = [node for node in fix_targets if id(node) not in ranges]
    if missing:
        assert walked.bridge is not None
        ranges.update(_spanned_ranges(walked.bridge.spans, missing, text, starts))


def _shape_of(walked: _Walked, node: Any) -> str:
    """The shape a finding's fingerprint hashes (the `ast` pipeline's: as of the LibCST node made
    from its node)."""
    if walked.tree is not None:
        from mcplint.analysis import shape_ast

        return shape_ast.node_shape(node, walked.context.source)  # type: ignore[attr-defined]
    return node_shape(node)


def _catcher_of_replaced_class(candidate: Candidate, scope: HandlerScope) -> str | None:
    """Why the fix must not replace the raised class: a caller on the way from a handler
    catches the class and would not catch the registry's tool error (or the other way)."""
    original = candidate.fix_replaces_class
    if original is None:
        return None
    for handler in scope.handlers_reaching(candidate.function, through_return=candidate.through_return):
        if scope.caught_differently(candidate.function, handler, original, "ToolError"):
            return f"a caller on the way from {handler.kind} `{handler.key}` treats `{original}` and a tool error differently"
    return None


def _caller_catching_a_raise(candidate: Candidate, scope: HandlerScope, reaching: Sequence[Handler]) -> Handler | None:
    """A handler on whose way down to the site a caller's `try` would stop a registry error
    raised there (its `except Exception` answering in its own words): a site that returns or
    assigns its error must not become a raise then, or the error never reaches the client."""
    if candidate.fix is None:
        return None
    for handler in reaching:
        if handler.key != candidate.function and scope.stopped_on_the_way(candidate.function, handler, "ToolError"):
            return handler
    return None


def _raises_instead_of_a_value(spec: FixSpec) -> bool:
    """The form raises where the site returned (or assigned) its error."""
    return isinstance(spec.replacement, cst.Raise) and not isinstance(spec.target, cst.Raise)


def _unfixed_reason(
    spec: FixSpec | None, function: str | None, reaching: Sequence[Handler], catching_caller: Handler | None = None
) -> str | None:
    """Why none of the rule's fix forms applies here (None: one does, or the rule had none)."""
    chain = []
    while spec is not None:
        if _form_applies(spec, function, reaching, catching_caller):
            return None
        chain.append(spec)
        spec = spec.fallback
    if not chain:
        return None
    kinds = sorted({handler.kind for handler in reaching})
    if len(kinds) > 1:
        return f"handlers of different kinds reach it ({', '.join(kinds)}): no one form suits all"
    if catching_caller is not None and any(_raises_instead_of_a_value(form) for form in chain):
        handler = catching_caller
        return f"a caller's `try` on the way from {handler.kind} `{handler.key}` would catch a raise there"
    reason = next((form.no_raise_reason for form in chain if form.no_raise_reason), None)
    if reason is not None:
        return reason
    protocol = next((handler for handler in reaching if handler.raise_is_protocol_error), None)
    if protocol is not None:
        return f"a raise here is a JSON-RPC error: mcp 2.x low-level handler `{protocol.key}` reaches it"
    return "no form of the fix suits the handlers that reach it"


def _fix_nodes(spec: FixSpec | None) -> Iterable[cst.CSTNode]:
    while spec is not None:
        yield spec.target
        if spec.statement is not None:
            yield spec.statement
        spec = spec.fallback


def _form_applies(
    spec: FixSpec, function: str | None, reaching: Sequence[Handler], catching_caller: Handler | None = None
) -> bool:
    if catching_caller is not None and _raises_instead_of_a_value(spec):
        return False
    if spec.handler_kinds is not None and any(handler.kind not in spec.handler_kinds for handler in reaching):
        return False
    if spec.in_handler and (not reaching or any(handler.key != function for handler in reaching)):
        return False
    if spec.raises and any(handler.raise_is_protocol_error for handler in reaching):
        return False
    return spec.low_level is None or all(handler.low_level == spec.low_level for handler in reaching)


def _spanned_ranges(
    spans: dict[int, Span], nodes: Iterable[cst.CSTNode], text: str, starts: list[int] | None = None
) -> dict[int, tuple[int, int, int, int]]:
    lines = LineIndex(text, starts)
    ranges = {}
    for node in nodes:
        span = spans.get(id(node))
        if span is None or not exact_span(node):
            raise NeedsLibCST
        ranges[id(node)] = (*lines.position(span[0]), *lines.position(span[1]))
    return ranges


def _fix(
    walked: _Walked,
    text: str,
    lines: Sequence[str],
    spec: FixSpec | None,
    function: str | None,
    reaching: Sequence[Handler],
    ranges: dict[int, tuple[int, int, int, int]],
    catching_caller: Handler | None = None,
) -> Fix | None:
    """The rule's node replacement as text edits: the first of its forms that every
    reaching handler allows."""
    while spec is not None and not _form_applies(spec, function, reaching, catching_caller):
        spec = spec.fallback
    if spec is None:
        return None
    spans = walked.bridge.spans if walked.bridge is not None else walked.spans
    if spans is None:
        assert walked.module is not None
        replacement = walked.module.code_for_node(spec.replacement)
    else:
        rendered = render(spec.replacement, text, spans)
        if rendered is None:
            raise NeedsLibCST
        replacement = rendered
    if isinstance(spec.replacement, cst.BaseStatement):
        # A whole statement's code carries the blank lines above it and its newline; its range
        # (whitespace excluded) does not. A compound one is a module-level statement, rendered
        # at its own indentation (none).
        replacement = replacement.strip()
    line, column, end_line, end_column = ranges[id(spec.target)]
    edits = [Edit(line, column, end_line, end_column, replacement)]
    if spec.log_line is not None and spec.statement is not None:
        line, column = ranges[id(spec.statement)][:2]
        indentation = lines[line - 1][: column - 1] if line <= len(lines) else ""
        if not indentation.strip():  # only a statement that begins its line gets a line before it
            edits.insert(0, Edit(line, column, line, column, f"{spec.log_line}\n{indentation}"))
    return Fix(spec.applicability, spec.message, tuple(edits), spec.imports)


def _message(candidate: Candidate, reaching: Sequence[Handler]) -> str:
    message = candidate.message
    if candidate.advice is not None:
        message += "; " + candidate.advice.for_kinds([handler.kind for handler in reaching])
    return message + _reach_note(candidate.function, reaching)


def _reach_note(function: str | None, reaching: Sequence[Handler]) -> str:
    if not reaching or reaching[0].key == function:
        return ""
    first = reaching[0]
    others = f" and {len(reaching) - 1} more" if len(reaching) > 1 else ""
    return f" (in `{function}`, reached from {first.kind} `{first.key}`{others})"
