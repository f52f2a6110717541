"""``exception_flow_ast`` against ``exception_flow``.

Both flows are built as MCP006 builds its one: every function of the module added in the
walk's order under the scope tracker's key (``Class.method``, ``f.<locals>.g``) with the
class of its first definition, over the module's import table (``ImportTable`` /
``AstImportTable``, package ``pkg.sub``); each `ast` function is the one its LibCST
function was built from (``paired.pairs``). They run in two contexts: the default one, and
a project's (sanitisers, a registry's helpers, stdio, the module's classes and relative
imports as the project's, and made-up text helpers, raisers and call targets of other
modules), each asked the same questions in the same order: the summaries of the module-level
functions (as the rule asks them) and their text helpers, every leak, every summary, then
(default context) a changed context's ``drop_stale`` and the leaks after it, or (project's)
``forget`` and the summaries asked for in the reverse order. The questions each analysis
asked of its context, the callees it read and the cycles it met are compared too (they
decide ``drop_stale``).

Nodes in the answers (origins, sinks) are compared as the `ast` nodes the LibCST ones were
made from; an f-string's ``{...}`` part (``FormattedStringExpression``, not paired) as the
``ast.FormattedValue`` in the same place of the string (the n-th of the string's parts that
are not text); and where the builder parsed such a part's expression alone (3.11's positions
of f-string expressions can miss it), its nodes as those of the tree's expression. Leaks are
compared in order, but for those of a function whose origin lies in a callee: the original
lists them last in the order a set of origins iterates in (by node id, so it changes from run
to run of the original itself), and they are compared sorted.

The except-clause helpers (``caught_names``, ``catches_everything``, ``reraises``,
``bound_name``, ``is_project_exception``) are compared on every clause, and the stdio
detector fed every assignment (with whether it is at module level) and every call.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

from mcplint.analysis import exception_flow, exception_flow_ast, imports, imports_ast, scopes, walk, walk_ast
from mcplint.engine.ast_pairs import PairedTree

PACKAGE = "pkg.sub"
OWN_PACKAGE = "pkg"


class _Module:
    """What the rule's walk gathers: the functions, classes, imports, assignments and calls."""

    def __init__(self, paired: PairedTree) -> None:
        self.scopes = scopes.ScopeTracker()
        self.table = imports.ImportTable(PACKAGE)
        self.functions: list[tuple[str, cst.FunctionDef]] = []
        self.class_keys: dict[str, str | None] = {}  # the first definition's class
        self.classes: set[str] = set()
        self.from_package: list[tuple[str, str]] = []  # (package or ".", bound name)
        self.assigns: list[tuple[cst.Assign, bool]] = []
        self.calls: list[cst.Call] = []
        walk.Walker([self.scopes, self.table, self]).walk(paired.module)
        self.twin_table = imports_ast.AstImportTable(PACKAGE)
        walk_ast.AstWalker([self.twin_table]).walk(paired.tree)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        key = self.scopes.qualname_for(node.name.value)
        class_key = next((frame.qualname for frame in reversed(self.scopes.frames) if frame.kind == "class"), None)
        self.class_keys.setdefault(key, class_key)
        self.functions.append((key, node))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.add(self.scopes.qualname_for(node.name.value))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        module = imports.dotted_name(node.module) if node.module else ""
        package = "." if node.relative else (module or "").partition(".")[0]
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name) and package:
                self.from_package.append((package, bound.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        self.assigns.append((node, not self.scopes.frames))

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


class _Nodes:
    """LibCST node -> the `ast` node it stands for, as a comparable key."""

    def __init__(self, paired: PairedTree) -> None:
        self.pairs = paired.pairs
        self.formatted: dict[int, ast.AST] = {}
        self.problems: list[str] = []
        foreign: dict[int, ast.AST] = {}
        for node, made_from in paired.paired_nodes:
            if type(made_from) is not ast.JoinedStr:
                continue
            parts = list(_expression_parts(node))
            values = [value for value in made_from.values if type(value) is ast.FormattedValue]
            if len(parts) != len(values):
                self.problems.append(f"{_at(made_from)}: {len(parts)} f-string parts, {len(values)} formatted values")
                continue
            for part, value in zip(parts, values, strict=True):
                self.formatted[id(part)] = value
                built_from = self.pairs.get(id(part.expression))
                if built_from is not None and built_from is not value.value:  # parsed alone
                    for alone, in_tree in zip(ast.walk(built_from), ast.walk(value.value), strict=False):
                        foreign[id(alone)] = in_tree
        self.foreign = foreign

    def of(self, node: cst.CSTNode) -> ast.AST | None:
        found = self.pairs.get(id(node)) or self.formatted.get(id(node))
        return self.foreign.get(id(found), found) if found is not None else None

    def key(self, node: cst.CSTNode) -> tuple[Any, ...]:
        found = self.of(node)
        if found is None:
            return ("unpaired LibCST", type(node).__name__, id(node))
        return _key(found)


def _expression_parts(node: cst.CSTNode) -> Iterator[cst.FormattedStringExpression]:
    """An f-string's (or a concatenation's) ``{...}`` parts, in order, format specs aside."""
    if isinstance(node, cst.ConcatenatedString):
        yield from _expression_parts(node.left)
        yield from _expression_parts(node.right)
    elif isinstance(node, cst.FormattedString):
        yield from (part for part in node.parts if isinstance(part, cst.FormattedStringExpression))


def _key(node: ast.AST) -> tuple[Any, ...]:
    return (type(node).__name__, getattr(node, "lineno", None), getattr(node, "col_offset", None), id(node))


def _at(node: ast.AST) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}"


# -- answers as comparable values ------------------------------------------------------------
def _origin(origin: Any, key: Callable[[Any], tuple[Any, ...]]) -> tuple[Any, ...]:
    return (key(origin.node), origin.kind, origin.raw, origin.parameter)


def _sink(sink: Any, key: Callable[[Any], tuple[Any, ...]]) -> tuple[Any, ...]:
    return (key(sink.node), sink.description, sink.through_return)


def _leaks(leaks: list[Any], key: Callable[[Any], tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [(leak.function, _origin(leak.origin, key), _sink(leak.sink, key)) for leak in leaks]


def _summary(summary: Any, key: Callable[[Any], tuple[Any, ...]]) -> tuple[Any, ...]:
    return (
        sorted(summary.returned),
        {parameter: _sink(sink, key) for parameter, sink in summary.sinks.items()},
        {_origin(origin, key) for origin in summary.returned_origins},
        sorted(summary.raised_own),
        sorted(summary.raised_text),
    )


def _state(flow: Any) -> tuple[Any, ...]:
    """What the analyses asked of their context, read and met (``drop_stale``'s input)."""
    return (
        {key: list(questions) for key, questions in flow._asked.items()},
        {key: set(callees) for key, callees in flow._callees.items()},
        set(flow._met_cycle),
    )


# -- the checks ----------------------------------------------------------------------------------
def except_clauses(paired: PairedTree) -> list[str]:
    """``caught_names``, ``catches_everything``, ``reraises``, ``bound_name`` and
    ``is_project_exception`` on every clause (``except`` and ``except*``)."""
    module = _Module(paired)
    project = {bound for package, bound in module.from_package if package in (".", OWN_PACKAGE)}
    flow = exception_flow.ExceptionFlow(module.table, project_classes=module.classes, project_imports=project)
    twin = exception_flow_ast.ExceptionFlow(
        module.twin_table, text=paired.text, project_classes=module.classes, project_imports=project
    )
    problems = []
    for node, made_from in paired.paired_nodes:
        if not isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)):
            continue
        assert isinstance(made_from, ast.ExceptHandler)
        answers = [
            (
                "caught_names",
                exception_flow.caught_names(node, module.table),
                exception_flow_ast.caught_names(made_from, module.twin_table),
            ),
            (
                "catches_everything",
                exception_flow.catches_everything(node, module.table),  # type: ignore[arg-type]
                exception_flow_ast.catches_everything(made_from, module.twin_table),
            ),
            ("reraises", exception_flow.reraises(node), exception_flow_ast.reraises(made_from)),  # type: ignore[arg-type]
            ("bound_name", exception_flow.bound_name(node), exception_flow_ast.bound_name(made_from)),
            ("is_project_exception", flow.is_project_exception(node), twin.is_project_exception(made_from)),
        ]
        for name, expected, found in answers:
            if expected != found:
                problems.append(f"{_at(made_from)}: {name} {expected!r} != {found!r}")
    return problems


def stdio_detector(paired: PairedTree) -> list[str]:
    """``StdioDetector`` fed the module's assignments and calls: ``found`` and ``is_stdio``
    without imported servers and with every imported name as one."""
    module = _Module(paired)
    detector = exception_flow.StdioDetector(module.table)
    twin = exception_flow_ast.StdioDetector(module.twin_table, text=paired.text)
    for node, at_module_level in module.assigns:
        detector.visit_Assign(node, at_module_level)
        twin.visit_Assign(paired.pairs[id(node)], at_module_level)  # type: ignore[arg-type]
    for call in module.calls:
        detector.visit_Call(call)
        twin.visit_Call(paired.pairs[id(call)])  # type: ignore[arg-type]
    imported = set(module.table.imported().values())
    answers = [
        ("found", detector.found, twin.found),
        ("is_stdio()", detector.is_stdio(), twin.is_stdio()),
        ("is_stdio(imported)", detector.is_stdio(imported), twin.is_stdio(imported)),
    ]
    return [f"{name} {expected!r} != {found!r}" for name, expected, found in answers if expected != found]


def default_context(paired: PairedTree) -> list[str]:
    """The flows in the default context; then told the transport is stdio and handed a text
    helper (``drop_stale``, and the leaks after it)."""
    module = _Module(paired)
    nodes = _Nodes(paired)
    flow = exception_flow.ExceptionFlow(module.table)
    twin = exception_flow_ast.ExceptionFlow(module.twin_table, text=paired.text)
    _add_functions(module, paired, flow, twin)
    problems = list(nodes.problems)
    problems += _compare_runs(module, nodes, flow, twin)

    def change(either: Any) -> None:
        either.stdio = True
        either.imported_text_helpers = {"json.loads": (("s",), (), ("s",))}

    change(flow)
    change(twin)
    dropped, twin_dropped = flow.drop_stale(), twin.drop_stale()
    if dropped != twin_dropped:
        problems.append(f"drop_stale: {dropped} != {twin_dropped}")
    problems += _compare_leaks("leaks after drop_stale", nodes, flow.leaks(), twin.leaks(), twin)
    return problems


def project_context(paired: PairedTree) -> list[str]:
    """The flows in a project's context (every answer of the other modules made up, the same
    for both); then forgotten and asked for the summaries in the reverse order."""
    module = _Module(paired)
    nodes = _Nodes(paired)
    project = {bound for package, bound in module.from_package if package in (".", OWN_PACKAGE)}
    options: dict[str, Any] = {
        "sanitizers": ("redact", "errors.public_message"),
        "helpers_module": "errors",
        "helper_names": ("notes_error",),
        "stdio": True,
        "project_classes": module.classes,
        "project_imports": project,
    }
    flow = exception_flow.ExceptionFlow(module.table, **options)
    twin = exception_flow_ast.ExceptionFlow(module.twin_table, text=paired.text, **options)
    qualified = sorted(set(module.table.imported().values()))
    called = sorted({name for call in module.calls if (name := imports.dotted_name(call.func)) is not None})
    helpers: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
        name: (("self", "text", "other"), ("key",), ("key", "text")) for name in qualified
    }
    helpers.update({f"ext.{name}": (("a", "b"), (), ("b",)) for name in called if len(name) % 2})
    raisers = {name: (frozenset({"ValueError", "NotFound"}), frozenset({"OSError"})) for name in qualified[::2]}
    for either in (flow, twin):
        either.imported_text_helpers = helpers
        either.imported_raisers = raisers
        either.external_calls = lambda callee, function: [f"ext.{callee}"] if len(callee) % 3 else []
    _add_functions(module, paired, flow, twin)
    problems = list(nodes.problems)
    problems += _compare_runs(module, nodes, flow, twin)
    flow.forget()
    twin.forget()
    for key in reversed(list(flow.functions)):
        expected, found = _summary(flow.summary(key), nodes.key), _summary(twin.summary(key), _key)
        if expected != found:
            problems.append(f"summary of {key} asked in reverse: {expected} != {found}")
    only = [key for key in flow.functions if "<locals>" in key or "." in key]
    problems += _compare_leaks("leaks(only)", nodes, flow.leaks(only), twin.leaks(only), twin)
    return problems


def _add_functions(module: _Module, paired: PairedTree, flow: Any, twin: Any) -> None:
    for key, node in module.functions:
        flow.add_function(key, node, module.class_keys[key])
        twin.add_function(key, paired.pairs[id(node)], module.class_keys[key])


def _compare_runs(
    module: _Module, nodes: _Nodes, flow: exception_flow.ExceptionFlow, twin: exception_flow_ast.ExceptionFlow
) -> list[str]:
    """The rule's questions (module-level summaries and their text helpers, then the leaks),
    then every summary and what the analyses asked."""
    problems = []
    for key, sources in flow.functions.items():
        if "<locals>" in key:
            continue
        summary, twin_summary = flow.summary(key), twin.summary(key)
        expected = exception_flow.text_helper(summary, sources[-1].node)
        found = exception_flow_ast.text_helper(twin_summary, twin.functions[key][-1].node)
        if expected != found:
            problems.append(f"text_helper of {key}: {expected} != {found}")
    problems += _compare_leaks("leaks", nodes, flow.leaks(), twin.leaks(), twin)
    for key in flow.functions:
        expected_summary, found_summary = _summary(flow.summary(key), nodes.key), _summary(twin.summary(key), _key)
        if expected_summary != found_summary:
            problems.append(f"summary of {key}: {expected_summary} != {found_summary}")
    if _state(flow) != _state(twin):
        problems.append(f"questions asked, callees read or cycles met differ: {_state(flow)} != {_state(twin)}")
    return problems


def _compare_leaks(what: str, nodes: _Nodes, expected: list[Any], found: list[Any], twin: Any) -> list[str]:
    expected_leaks = _in_stable_order(_leaks(expected, nodes.key), twin)
    found_leaks = _in_stable_order(_leaks(found, _key), twin)
    if expected_leaks == found_leaks:
        return []
    return [f"{what}: {expected_leaks} != {found_leaks}"]


def _in_stable_order(leaks: list[tuple[Any, ...]], twin: Any) -> list[tuple[Any, ...]]:
    """The leaks with those of each function whose origin lies outside it (in a callee: they
    all come last, unsorted) sorted: the original leaves them in the order a set of origins
    iterates in, which follows node ids and changes from run to run."""
    inside: dict[str, set[int]] = {}
    ordered: list[tuple[Any, ...]] = []
    outside: list[tuple[Any, ...]] = []
    for index, leak in enumerate(leaks):
        function = leak[0]
        if function not in inside:
            inside[function] = {id(node) for node in ast.walk(twin.functions[function][-1].node)}
        (outside if leak[1][0][-1] not in inside[function] else ordered).append(leak)
        if index + 1 == len(leaks) or leaks[index + 1][0] != function:
            ordered.extend(sorted(outside, key=repr))
            outside = []
    return ordered


CHECKS = [except_clauses, stdio_detector, default_context, project_context]
