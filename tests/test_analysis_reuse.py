"""What the analysis keeps from one round of a run to the next (and from one file to the
next) must never stand in for what a fresh analysis would find."""

from __future__ import annotations

import gc
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from test_registry_match import registry_file

from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.exception_flow import ExceptionFlow
from mcplint.analysis.imports import ImportTable
from mcplint.analysis.project import ProjectContext
from mcplint.analysis.walk import Walker, children
from mcplint.engine.lint import forget_walked_modules, lint_text
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

SETTINGS = FileSettings(codes=frozenset(RULES_BY_CODE))
SERVER = textwrap.dedent("""
    from mcp.server.fastmcp import FastMCP
    from app.helpers import describe

    mcp = FastMCP("x")

    @mcp.tool()
    def lookup(x: str) -> str:
        try:
            return run(x)
        except Exception as e:
            return describe(e)

    def helper(x):
        try:
            return run(x)
        except Exception as e:
            raise RuntimeError(f"failed: {e}")
    """)
PLAIN = ProjectContext(module="app.server")
# `describe` (another module's) returns the text of its parameter: `describe(e)` leaks.
WITH_HELPER = ProjectContext(
    module="app.server", imported_text_helpers=(("app.helpers.describe", ("error",), (), ("error",)),)
)
# Helpers the module does not call: what its analyses asked is answered the same.
OTHER_HELPER = ProjectContext(module="app.server", imported_text_helpers=(("app.helpers.other", ("text",), (), ("text",)),))
OTHER_HELPERS = ProjectContext(
    module="app.server",
    imported_text_helpers=(("app.helpers.other", ("text",), (), ("text",)), ("app.misc.shout", ("s",), (), ())),
)
# A tool of another module calls `helper`: its raise reaches the client.
REACHED = ProjectContext(module="app.server", entry_points=(("helper", "app.other.tool", "tool", ()),))


@pytest.fixture(autouse=True)
def _fresh_run():
    forget_walked_modules()
    yield
    forget_walked_modules()


def _found(project: ProjectContext, source: str = SERVER) -> list[tuple[int, str]]:
    """The module analysed in ``project``, as a later round of the same run does: the walk
    (and what the rules kept of their last judgement) is reused, only the context changes."""
    return [(finding.line, finding.code) for finding in lint_text(source, "app/server.py", SETTINGS, project=project).findings]


def _fresh(project: ProjectContext, source: str = SERVER) -> list[tuple[int, str]]:
    forget_walked_modules()
    return _found(project, source)


def _flow_of(module: cst.Module) -> ExceptionFlow:
    """An exception flow over the module's top-level functions (a fresh one each call)."""
    imports = ImportTable()
    Walker([imports]).walk(module)
    flow = ExceptionFlow(imports)
    for function in module.body:
        assert isinstance(function, cst.FunctionDef)
        flow.add_function(function.name.value, function, None)
    return flow


def test_each_round_finds_what_a_fresh_analysis_in_its_context_finds():
    assert _fresh(WITH_HELPER) == [(12, "MCP006")]
    assert _fresh(REACHED) == [(18, "MCP002"), (18, "MCP006")]
    assert _fresh(PLAIN) == []
    forget_walked_modules()
    # MCP006 keeps its flow analyses when only the entry points change; the imported text
    # helpers change what `lookup`'s analysis finds, so it must judge again.
    rounds = [PLAIN, WITH_HELPER, PLAIN, REACHED, PLAIN, REACHED, WITH_HELPER, OTHER_HELPER, OTHER_HELPERS, WITH_HELPER]
    assert [_found(project) for project in rounds] == [_fresh(project) for project in rounds]


def test_a_call_cycle_is_judged_again_and_what_met_none_stays():
    """In a cycle the callee in progress counts as clean, so which function was asked for first
    decides: a later round drops what met the cycle and what read it, and keeps the rest."""
    module = cst.parse_module(textwrap.dedent("""
        def ping(x):
            return pong(x)

        def pong(x):
            return ping(x)

        def reader(x):
            return ping(x)

        def alone(x):
            return str(x)
        """))
    flow = _flow_of(module)
    flow.summary("alone")
    flow.summary("reader")  # reader -> ping -> pong -> ping, in progress
    assert flow.drop_stale() == 3
    assert set(flow._leaks) == {"alone"}
    assert flow.drop_stale() == 0  # nothing analysed since: nothing met a cycle


def test_own_nodes_skips_nested_scopes_and_keeps_its_order():
    function = cst.parse_module(textwrap.dedent("""
        def outer(x):
            y = [x for x in range(n)]
            def inner():
                return 1
            class Inner:
                z = 2
            return lambda: y
        """)).body[0]
    assert isinstance(function, cst.FunctionDef)
    kinds = [type(node).__name__ for node in own_nodes(function.body)]
    assert kinds[0] == "IndentedBlock"
    assert "Return" in kinds and "ListComp" in kinds
    assert not {"FunctionDef", "ClassDef", "Lambda", "Integer"} & set(kinds)  # `1`, `2`: nested
    # the same nodes in the same order
    assert list(own_nodes(function.body)) == list(_reference_own_nodes(function.body))


def _reference_own_nodes(root: cst.CSTNode):
    """The traversal as written before it was made fast: the walk's children, isinstance."""
    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(
            child for child in children(node) if not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda))
        )


def test_the_trees_a_run_keeps_are_frozen_until_it_ends():
    gc.unfreeze()
    lint_text(SERVER, "app/server.py", SETTINGS, project=PLAIN)
    assert gc.get_freeze_count() > 0  # the collector leaves the walked trees alone
    forget_walked_modules()
    # ... and not past the run: a long-lived process (the language server) would keep
    # whatever reference cycle was frozen with them.
    assert gc.get_freeze_count() == 0


def test_a_run_pauses_the_cyclic_collector_and_restores_it(tmp_path, monkeypatch):
    """The trees and facts a run builds would each be traversed by the young collections: a run
    pauses automatic collection, for its workers too, and a process that outlasts the run (the
    language server) gets it back."""
    from mcplint.engine import runner

    (tmp_path / "server.py").write_text(SERVER)
    seen = []

    def lint_task(task):
        seen.append(gc.isenabled())
        return linted(task)

    linted = runner._lint_task
    monkeypatch.setattr(runner, "_lint_task", lint_task)
    assert gc.isenabled()
    task = runner.FileTask(str(tmp_path / "server.py"), "server.py", SETTINGS, True)
    runner.run([task], 1, small_rounds_in_process=True)
    assert seen and not any(seen)
    assert gc.isenabled()


def test_the_handler_scope_reads_no_helper_summaries():
    """A later round that brings only other modules' helper summaries keeps the module's
    handler scope (engine/lint.py `_resolve`), which is resolved with them left out: were the
    scope to read them, that reuse would hand it stale ones."""
    import mcplint.analysis.handlers as handlers

    source = Path(handlers.__file__).read_text(encoding="utf-8")
    for name in (
        "imported_text_helpers", "imported_error_helpers", "imported_unmasked_classes", "imported_raisers",
        "imported_by_analysed", "stdio_transport",
    ):
        assert name not in source, f"analysis/handlers.py reads {name}: include it in lint._resolve's scope_inputs"


def test_carried_values_follow_the_expression_in_order():
    """`_carried_values` lists an expression's parts through the walk's children (not
    `CSTNode.children`, which rebuilds the node): the same callees and names, in the same order."""
    from mcplint.analysis import handlers

    expression = cst.parse_expression(
        '[TextContent(text=f"{a} {b(c)}"), {"k": d, **e(f)}, {g for g in h(i)}, (j, *k(l)), m or n(o), -p, q[r]]'
    )

    def reference(value):
        callees, names, pending = [], [], [value]
        while pending:
            node = pending.pop()
            if isinstance(node, cst.Call):
                callee = handlers._callee(node.func)
                if callee is not None:
                    callees.append(callee)
                for arg in node.args:
                    if isinstance(arg.value, cst.Name):
                        callees.append(arg.value.value)
                    pending.append(arg.value)
            elif isinstance(node, cst.Name):
                names.append(node.value)
            elif not isinstance(node, handlers._PROJECTIONS):
                pending.extend(node.children)
        return callees, names

    found = handlers._carried_values(expression)
    assert found == reference(expression)
    assert {"a", "c", "d", "g", "i", "l", "m", "o"} <= set(found[1])


def test_the_flow_remembers_what_it_asked_of_other_modules():
    module = cst.parse_module(textwrap.dedent("""
        def tool(x):
            try:
                return run(x)
            except Exception as e:
                return client.describe(e)

        def alone(x):
            return str(x)
        """))
    helper = (("error",), (), ("error",))

    def analysed(helpers, targets):
        flow = _flow_of(module)
        told(flow, helpers, targets)
        return flow, [leak.function for leak in flow.leaks()]

    def told(flow, helpers, targets):
        flow.imported_text_helpers = helpers
        flow.external_calls = lambda callee, function: list(targets)
        return flow

    def dropped(flow, helpers, targets):
        kept = set(flow._leaks)
        told(flow, helpers, targets).drop_stale()
        return sorted(kept - set(flow._leaks))

    # No helper imported: the call's targets are not looked up; a later round is told the same
    # unless a helper now sits among them.
    flow, leaks = analysed({}, ["app.client.describe"])
    assert leaks == []
    assert dropped(flow, {}, ["app.client.describe"]) == []
    assert dropped(flow, {"app.other": helper}, ["app.client.describe"]) == []
    assert dropped(flow, {"app.client.describe": helper}, ["app.client.describe"]) == ["tool"]
    # A helper imported: the targets were looked up; other targets are another answer. A
    # function that asked nothing of them (`alone`) keeps its analysis.
    flow, leaks = analysed({"app.client.describe": helper}, ["app.client.describe"])
    assert leaks == ["tool"]
    assert dropped(flow, {"app.client.describe": helper}, ["app.client.describe"]) == []
    assert dropped(flow, {"app.client.describe": helper}, ["app.client.other"]) == ["tool"]
    flow.leaks()
    assert dropped(flow, {"app.client.other": helper}, ["app.client.describe"]) == ["tool"]


def test_a_flow_told_the_same_context_checks_no_remembered_answer_again(monkeypatch):
    """The judging round after a file's last export brings the context that export had: the
    flow then checks none of its remembered answers (the call targets' function is the same
    object, the rest equal); any difference checks them all."""
    module = cst.parse_module(textwrap.dedent("""
        def tool(x):
            try:
                return run(x)
            except Exception as e:
                return client.describe(e)
        """))
    flow = _flow_of(module)
    flow.external_calls = lambda callee, function: ["app.client.describe"]
    flow.imported_text_helpers = {}
    assert flow.leaks() == []
    checked: list[object] = []
    real = ExceptionFlow._answer_now
    monkeypatch.setattr(ExceptionFlow, "_answer_now", lambda self, *question: checked.append(question) or real(self, *question))
    assert flow.drop_stale() == 0
    first = len(checked)
    assert first > 0  # nothing remembered of the context yet: every answer checked
    flow.imported_text_helpers = {}  # another dict, the same helpers
    assert flow.drop_stale() == 0
    assert len(checked) == first
    flow.imported_text_helpers = {"app.client.describe": (("error",), (), ("error",))}
    assert flow.drop_stale() == 1
    assert len(checked) > first


def test_a_stale_analysis_takes_its_callers_along():
    """A caller read its callee's summary: when the callee's analysis goes, so does the caller's."""
    module = cst.parse_module(textwrap.dedent("""
        def tool(x):
            return describe(x)

        def describe(x):
            try:
                return run(x)
            except Exception as e:
                return client.describe(e)

        def other(x):
            return str(x)
        """))
    helpers = {"app.client.describe": (("error",), (), ("error",))}

    def flow_of():
        flow = _flow_of(module)
        flow.external_calls = lambda callee, function: ["app.client.describe"]
        return flow

    flow = flow_of()
    assert flow.leaks() == []
    flow.imported_text_helpers = helpers
    assert flow.drop_stale() == 2
    assert set(flow._leaks) == {"other"}
    fresh = flow_of()
    fresh.imported_text_helpers = helpers
    assert [(leak.function, leak.sink.description) for leak in flow.leaks()] == [
        (leak.function, leak.sink.description) for leak in fresh.leaks()
    ]
    assert {leak.function for leak in flow.leaks()} == {"tool", "describe"}


def test_a_call_without_text_does_not_ask_for_a_helper():
    """A call of another module's function with clean arguments returns nothing the flow
    follows, helper or not: a helper appearing in a later round keeps the analysis."""
    module = cst.parse_module(textwrap.dedent("""
        def tool(x):
            try:
                return client.describe(x)
            except Exception as e:
                return client.describe(e)

        def quiet(x):
            return client.describe("all", limit=3)
        """))
    flow = _flow_of(module)
    flow.external_calls = lambda callee, function: ["app.client.describe"]
    assert flow.leaks() == []
    flow.imported_text_helpers = {"app.client.describe": (("error",), ("limit",), ("error",))}
    assert flow.drop_stale() == 1  # `tool` passes `e` to it; `quiet` passes clean values only
    assert set(flow._leaks) == {"quiet"}
    assert {leak.function for leak in flow.leaks()} == {"tool"}


REGISTRY_SERVER = textwrap.dedent("""
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("x")

    @mcp.tool()
    def fetch(note_id: str) -> dict:
        if note_id == "x":
            return {"error": "Note not found"}
        try:
            return load(note_id)
        except Exception as e:
            return {"detail": tidy(str(e))}

    def tidy(text):
        return text
    """)


def test_a_kept_walk_is_judged_again_with_another_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A migration's runs keep each walk (the parses are kept) and differ in the registry: the
    fixes (MCP001's symbol) and the judgements that read it (MCP006: a call of a registry helper
    does not leak) follow the registry of each analysis, not the one the walk was made with."""
    from mcplint.engine import lint

    walks = []  # each new walk of a module is remembered for the rounds and runs after it
    remember = lint._remember_walk
    monkeypatch.setattr(lint, "_remember_walk", lambda *args: walks.append(1) or remember(*args))
    registries = {}
    for name, helper, symbol in (("a", "tidy", "NOTE_MISSING"), ("b", "other_error", "NOTE_GONE")):
        entries = {symbol: (1001, "Note not found", "")}
        path = registry_file(tmp_path, entries, f"{name}.toml", helper=helper, helpers_module="app.errors")
        registries[name] = FileSettings(codes=frozenset({"MCP001", "MCP006"}), registry=str(path))

    def analysed(name: str) -> tuple[list[str], list[str]]:
        findings = lint_text(REGISTRY_SERVER, "server.py", registries[name], project=PLAIN).findings
        fixes = [edit.content for f in findings if f.code == "MCP001" and f.fix for edit in f.fix.edits]
        return fixes, sorted({f.code for f in findings})

    try:
        lint.keep_parsed_modules(True)
        first = analysed("a")
        lint.forget_walked_modules()  # the next run of the migration
        second = analysed("b")
        lint.forget_walked_modules()
        third = analysed("a")
    finally:
        lint.keep_parsed_modules(False)
    assert len(walks) == 1
    assert first == third
    assert any('"NOTE_MISSING"' in fix for fix in first[0]) and first[1] == ["MCP001"]  # `tidy` is a helper
    assert any('"NOTE_GONE"' in fix for fix in second[0]) and second[1] == ["MCP001", "MCP006"]


def test_libcst_concrete_node_classes_have_no_subclasses():
    """The analyses compare a node's class (`type(node) is cst.Call`, `type(node) in {...}`)
    where isinstance on LibCST's ABCs is ten times slower: that is the same question only while
    no concrete node class has a subclass (a LibCST upgrade that adds one fails here)."""
    import inspect

    concrete = [
        kind for kind in vars(cst).values()
        if isinstance(kind, type) and issubclass(kind, cst.CSTNode) and not kind.__name__.startswith("Base")
        and not inspect.isabstract(kind) and kind is not cst.CSTNode
    ]
    assert len(concrete) > 150
    assert [kind.__name__ for kind in concrete if kind.__subclasses__()] == []


def test_the_walk_skips_only_fields_that_never_hold_a_node():
    """The walk does not read fields declared as text (`Name.value`, `Arg.star`): on LibCST's own
    trees of every fixture, such a field never holds a node (a field declared otherwise in a
    LibCST upgrade, or a wrong reading of a declaration, fails here)."""
    import dataclasses

    from mcplint.analysis.walk import _CHILD_FIELDS, _SKIPPED_FIELDS

    root = Path(__file__).resolve().parent
    sources = [path.read_text(encoding="utf-8") for path in sorted((root / "fixtures").rglob("*.py"))]
    sources.append("def f(a, /, *args, b=1, **kw):\n    return g(*args, **kw, x=f'{a!r:>{b}}')[1:2, ::3]\n")
    skipped: set[tuple[str, str]] = set()
    checked = 0
    for source in sources:
        try:
            module = cst.parse_module(source)
        except cst.ParserSyntaxError:
            continue
        pending: list[cst.CSTNode] = [module]
        while pending:
            node = pending.pop()
            walked = _CHILD_FIELDS[type(node)]
            for field in dataclasses.fields(node):
                value = getattr(node, field.name)
                values = value if isinstance(value, (list, tuple)) else [value]
                pending.extend(child for child in values if isinstance(child, cst.CSTNode))
                if field.name not in walked and type(node) not in (cst.FunctionDef, cst.ClassDef):
                    skipped.add((type(node).__name__, field.name))
                    if not field.name.startswith("whitespace"):
                        checked += 1
                        holds_node = any(isinstance(child, cst.CSTNode) for child in values)
                        assert not holds_node or field.name in _SKIPPED_FIELDS, (type(node).__name__, field.name)
    assert {("Name", "value"), ("Arg", "star"), ("SimpleString", "value"), ("Param", "star")} <= skipped
    assert checked > 1000


class _Recorder:
    """Every visit and leave of a few node classes, with the classes enclosing the node."""

    def __init__(self, ancestors: list[cst.CSTNode]) -> None:
        self.ancestors = ancestors
        self.seen: list[tuple[str, str, tuple[str, ...]]] = []

    def _note(self, event: str, node: cst.CSTNode) -> None:
        self.seen.append((event, type(node).__name__, tuple(type(a).__name__ for a in self.ancestors)))

    def visit_Name(self, node: cst.Name) -> None:
        self._note("visit", node)

    def leave_SimpleString(self, node: cst.SimpleString) -> None:
        self._note("leave", node)

    def visit_Call(self, node: cst.Call) -> None:
        self._note("visit", node)


def test_the_walk_passes_over_only_what_no_visitor_would_see():
    """A walker does not step into a node without handlers and without nodes inside (most names,
    strings and brackets): every handler still runs, in the same order, with the same ancestors
    as a walk into every node (a name whose visitor is skipped fails here)."""
    from mcplint.analysis.walk import Walker, children

    module = cst.parse_module(SERVER + "x = [f(a)[0], {'k': b'v'}, -1, g(*c, **d)]\n")
    recorder = _Recorder([])
    walker = Walker([recorder])
    recorder.ancestors = walker.ancestors
    walker.walk(module)

    reference = _Recorder([])

    def walk_every_node(node: cst.CSTNode) -> None:
        handler = getattr(reference, f"visit_{type(node).__name__}", None)
        if handler is not None:
            handler(node)
        reference.ancestors.append(node)
        for child in children(node):
            walk_every_node(child)
        reference.ancestors.pop()
        handler = getattr(reference, f"leave_{type(node).__name__}", None)
        if handler is not None:
            handler(node)

    walk_every_node(module)
    assert recorder.seen == reference.seen
    assert {event[1] for event in recorder.seen} == {"Name", "SimpleString", "Call"}


FALLBACKS = textwrap.dedent("""
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("x")

    @mcp.tool()
    def search(q: str) -> list:
        try:
            return run(q)
        except Exception:
            return []

    def fetch_rows(q):
        try:
            return run(q)
        except Exception:
            return []

    def fetch_more(q):
        try:
            return run(q)
        except Exception:
            return {}
    """)


def test_mcp005_judges_a_function_once_and_each_round_finds_what_a_fresh_analysis_finds():
    """MCP005 keeps each function's judgement from round to round: a round whose handlers reach
    more functions judges only those, and finds what a fresh analysis in its context finds."""

    def reaching(*functions: str) -> ProjectContext:
        entries = tuple((name, "app.other.tool", "tool", ()) for name in functions)
        return ProjectContext(module="app.server", entry_points=entries, return_entry_points=entries)

    def mcp005(found: list[tuple[int, str]]) -> list[tuple[int, str]]:
        return [finding for finding in found if finding[1] == "MCP005"]

    rounds = [reaching(), reaching("fetch_rows"), reaching("fetch_rows", "fetch_more"), reaching("fetch_more"), reaching()]
    kept = [mcp005(_found(project, FALLBACKS)) for project in rounds]
    fresh = [mcp005(_fresh(project, FALLBACKS)) for project in rounds]
    assert kept == fresh
    assert fresh[0] == [(11, "MCP005")]
    assert fresh[2] == [(11, "MCP005"), (17, "MCP005"), (23, "MCP005")]


REACHING = textwrap.dedent("""
    from mcp.server.fastmcp import FastMCP
    from app.client import Client, fetch

    mcp = FastMCP("x")

    @mcp.tool()
    def search(q: str) -> list:
        try:
            return lookup(q)
        except ValueError:
            return []

    def lookup(q):
        return fetch(q)

    def export(q):
        try:
            return Client().post(q)
        except KeyError:
            raise

    class Store:
        def save(self, q):
            return export(q)
    """)


def test_a_scope_resolved_for_new_entry_points_is_the_fresh_one():
    """A round that brings only other modules' entry points keeps the module's local scope
    (its own handlers, their reach, the resolver's answers) and adds them to a copy: each
    round's scope equals a fresh resolution's, and the local scope is left as it was."""
    import dataclasses

    from mcplint.analysis.handlers import resolve_local_scope, scope_in_project
    from mcplint.engine.lint import _walk

    walked = _walk(cst.parse_module(REACHING), None, [], SETTINGS, ProjectContext(module="app.server"))
    facts, imports = walked.context.facts, walked.context.imports

    def entries(*pairs: tuple[str, tuple[str, ...]]) -> ProjectContext:
        points = tuple((function, "app.tools.run", "tool", guards) for function, guards in pairs)
        return ProjectContext(module="app.server", entry_points=points, return_entry_points=points[:1])

    def fields(scope) -> dict:
        return {f.name: getattr(scope, f.name) for f in dataclasses.fields(scope) if f.name != "external_calls"}

    local = resolve_local_scope(facts, imports, project=entries())
    before = fields(local.scope)
    rounds = [
        entries(("export", ())),
        entries(("export", ()), ("Store.save", ("KeyError",))),
        entries(("Store.*", ())),
        entries(),
        entries(("lookup", ("ValueError",)), ("export", ())),
    ]
    for project in rounds:
        kept = scope_in_project(local, project)
        fresh = scope_in_project(resolve_local_scope(facts, imports, project=project), project)
        assert fields(kept) == fields(fresh)
        assert kept.external_calls("fetch", "lookup") == fresh.external_calls("fetch", "lookup")
    assert fields(local.scope) == before
    assert "export" in fields(scope_in_project(local, rounds[0]))["reached_by"]
    assert "export" not in before["reached_by"]


def _local_scope(source: str = REACHING):
    from mcplint.analysis.handlers import resolve_local_scope
    from mcplint.engine.lint import _walk

    walked = _walk(cst.parse_module(source), None, [], SETTINGS, ProjectContext(module="app.server"))
    return resolve_local_scope(
        walked.context.facts, walked.context.imports, project=ProjectContext(module="app.server")
    )


def test_what_a_call_may_run_elsewhere_is_worked_out_once_per_resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    """The outgoing tables, the local reach and MCP006's flows (once per call site and round)
    ask the same questions: each is answered once."""
    from mcplint.analysis import handlers
    from mcplint.analysis.handlers import scope_in_project

    worked_out: list[tuple[str, str | None]] = []
    find = handlers._find_call_externals

    def counting(resolver, callee, function, class_key):
        worked_out.append((callee, function))
        return find(resolver, callee, function, class_key)

    monkeypatch.setattr(handlers, "_find_call_externals", counting)
    scope = scope_in_project(_local_scope(), ProjectContext(module="app.server"))
    answers = [scope.external_calls("fetch", "lookup") for _ in range(3)]
    assert answers == [["app.client.fetch"]] * 3
    assert worked_out.count(("fetch", "lookup")) == 1


def test_an_answer_cut_short_by_the_recursion_guard_is_not_kept() -> None:
    """`a` looks up a table holding `b` and `d`; `b` one holding `a`. Asked from the top, `b`
    runs what `a` runs (`d`'s target); asked while `a` is being answered, the guard cuts `b`
    short (nothing): that answer must not stand for the question asked from the top later."""
    from mcplint.analysis.handlers import _call_externals

    resolver = _local_scope().resolver
    resolver.is_free_name = lambda callee: False  # type: ignore[method-assign]  # the tables below bind them
    tables = {"a": ["b", "d"], "b": ["a"]}
    resolver.table_lookup = lambda callee, function: tables.get(callee, [])  # type: ignore[method-assign]
    resolver.external_target = lambda callee: "x.d" if callee == "d" else None  # type: ignore[method-assign]
    resolver.external_methods = lambda callee, function, class_key: []  # type: ignore[method-assign]
    resolver.table_externals = lambda callee, function, class_key: []  # type: ignore[method-assign]
    assert _call_externals(resolver, "a", None, None) == ["x.d"]
    assert _call_externals(resolver, "b", None, None) == ["x.d"]


# Other modules' tools reach `alpha`, `beta` and `wrapped`; all three call `shared`, which calls
# another module's `fetch`. `wrapped`'s decorator calls it inside a `try`.
SHARED_WALKS = textwrap.dedent("""
    from app.client import fetch

    def guarded(fn):
        def inner(*args):
            try:
                return fn(*args)
            except ValueError as e:
                raise RuntimeError(str(e))
        return inner

    def alpha(q):
        return shared(q)

    def beta(q):
        return shared(q)

    def shared(q):
        return fetch(q)

    @guarded
    def wrapped(q):
        return shared(q)
    """)


def _reach_fields(scope) -> dict:
    """What the walks from other modules' entry points fill, the handlers' order included."""
    return {
        "reached_by": {function: list(handlers) for function, handlers in scope.reached_by.items()},
        "returns_to": {function: list(handlers) for function, handlers in scope.returns_to.items()},
        "paths": scope.paths,
        "outgoing_calls": {target: list(handlers) for target, handlers in scope.outgoing_calls.items()},
        "outgoing_returns": {target: list(handlers) for target, handlers in scope.outgoing_returns.items()},
        "outgoing_states": scope.outgoing_states,
    }


def _shared_and_own(monkeypatch: pytest.MonkeyPatch, entries, source: str = SHARED_WALKS):
    """The scope for ``entries`` (pattern, handler, guards), and the one each entry's own walk
    gives (no walk shared): the two must be the same."""
    from mcplint.analysis import handlers

    local = _local_scope(source)
    points = tuple((pattern, label, "tool", tuple(guards)) for pattern, label, guards in entries)
    project = ProjectContext(module="app.server", entry_points=points, return_entry_points=points)
    shared = handlers.scope_in_project(local, project)
    with monkeypatch.context() as patched:
        patched.setattr(handlers, "_shared_reach", lambda resolver, roots, initial: None)
        own = handlers.scope_in_project(_local_scope(source), project)  # a fresh one: none of its walks kept
    assert _reach_fields(shared) == _reach_fields(own)
    return shared


def test_a_shared_walk_keeps_each_handlers_own_initial_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two handlers reach `shared` through the same pattern, one inside a caller's `try`: the
    walk for one state is not the walk for the other."""
    scope = _shared_and_own(
        monkeypatch,
        [("alpha", "app.a.run", ["KeyError"]), ("alpha", "app.b.run", []), ("alpha", "app.c.run", ["KeyError"]), ("alpha", "app.b.run", ["OSError"])],
    )
    assert scope.paths[("shared", "app.a.run")] == {frozenset({"KeyError"})}
    assert scope.paths[("shared", "app.b.run")] == {frozenset(), frozenset({"OSError"})}
    assert scope.paths[("shared", "app.c.run")] == {frozenset({"KeyError"})}
    assert scope.outgoing_states[("app.client.fetch", "app.b.run")] == {frozenset(), frozenset({"OSError"})}


def test_handlers_reach_a_function_in_the_order_of_their_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The handlers reaching a function are listed in the order their entries come (a finding
    names the first), not walk by walk: the entries of one pattern and state are not together."""
    scope = _shared_and_own(
        monkeypatch,
        [
            ("alpha", "app.a.run", []),
            ("beta", "app.b.run", []),
            ("alpha", "app.c.run", ["KeyError"]),
            ("alpha", "app.d.run", []),
            ("wrapped", "app.e.run", []),
            ("beta", "app.a.run", []),
        ],
    )
    reaching = ["app.a.run", "app.b.run", "app.c.run", "app.d.run", "app.e.run"]
    assert [handler.key for handler in scope.reached_by["shared"]] == reaching
    assert [handler.key for handler in scope.returns_to["shared"]] == reaching
    assert [handler.key for handler in scope.outgoing_calls["app.client.fetch"]] == reaching
    # `wrapped`'s decorator calls it inside its `try`: every path from it passes there.
    assert len(scope.paths[("shared", "app.e.run")]) == 1
    assert scope.paths[("shared", "app.e.run")] != {frozenset()}


def test_a_handler_past_the_cap_walks_for_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    """One handler reaches `shared` through more entries than MAX_PATH_STATES allows states:
    past the cap, a new state is what it shares with those before, which depends on what the
    handler reached before; another handler reaching it through one of them is not merged."""
    from mcplint.analysis.handlers import MAX_PATH_STATES

    states = [["common", f"Error{index}"] for index in range(MAX_PATH_STATES + 2)]
    entries = [(pattern, "app.a.run", guards) for guards in states for pattern in ("alpha", "beta")]
    scope = _shared_and_own(monkeypatch, [*entries, ("beta", "app.b.run", states[-1])])
    assert scope.paths[("shared", "app.a.run")] == {
        *(frozenset(guards) for guards in states[:MAX_PATH_STATES]), frozenset({"common"})
    }
    assert scope.paths[("shared", "app.b.run")] == {frozenset(states[-1])}


def test_a_handler_that_is_its_own_root_runs_without_its_decorators(monkeypatch: pytest.MonkeyPatch) -> None:
    """A root that is the handler itself runs without its decorators (they are in the state it
    starts in): a walk shared with handlers for which it runs inside them is not its walk."""
    scope = _shared_and_own(monkeypatch, [("wrapped", "app.a.run", []), ("wrapped", "wrapped", []), ("wrapped", "app.z.run", [])])
    assert scope.paths[("shared", "wrapped")] == {frozenset()}
    assert scope.paths[("shared", "app.a.run")] == scope.paths[("shared", "app.z.run")] != {frozenset()}
    assert [handler.key for handler in scope.reached_by["shared"]] == ["app.a.run", "wrapped", "app.z.run"]


def test_a_command_that_runs_once_leaves_the_collector_off_and_gives_it_back(tmp_path, monkeypatch):
    """`mcplint check` analyses once and exits: the collector stays off after the run (its first
    pass would traverse every object the run kept), and a caller that outlives the command gets
    it back."""
    from click.testing import CliRunner

    from mcplint import check
    from mcplint.cli import main

    (tmp_path / "server.py").write_text(SERVER)
    after_the_run = []

    def run_check(options):
        code = checked(options)
        after_the_run.append(gc.isenabled())
        return code

    checked = check.run_check
    monkeypatch.setattr(check, "run_check", run_check)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--exit-zero", str(tmp_path / "server.py")])
    assert result.exit_code == 0, result.output
    assert after_the_run == [False]
    assert gc.isenabled()


def test_a_run_reads_each_file_once_however_many_rounds_analyse_it(tmp_path, monkeypatch):
    """The rounds analyse again the files whose project context changed: a check reads each file
    once and keeps its bytes for the run (a run that fixes nothing writes none)."""
    from mcplint.engine import lint, runner

    (tmp_path / "server.py").write_text(
        "from mcp.server.fastmcp import FastMCP\nfrom service import lookup\n\nmcp = FastMCP('s')\n\n\n"
        "@mcp.tool()\ndef find(key: str) -> str:\n    return lookup(key)\n"
    )
    (tmp_path / "service.py").write_text("def lookup(key):\n    raise ValueError(key)\n")
    opened = []

    def counting_open(path, *args, **kwargs):
        opened.append(path)
        return open(path, *args, **kwargs)

    monkeypatch.setattr(lint, "open", counting_open, raising=False)
    tasks = [runner.FileTask(str(tmp_path / name), name, SETTINGS, True) for name in ("server.py", "service.py")]
    result = runner.run(tasks, 1, small_rounds_in_process=True)
    assert any(finding.path == "service.py" and finding.code == "MCP002" for finding in result.findings)
    assert sorted(opened) == sorted(task.path for task in tasks)
    assert lint._READ == {}  # forgotten with the run


def test_a_run_decodes_each_text_and_asks_its_pre_screens_once(tmp_path, monkeypatch):
    """The rounds analyse again the files whose project context changed: the text is decoded
    once a run (the same string every round) and what depends on the text and settings alone
    (the pre-screens, the generated-code check, the walk's key) is worked out once; a file
    that cannot be decoded is reported all the same."""
    from mcplint.engine import lint, runner
    from mcplint.rules.mcp008_unmasked_error_details import UnmaskedErrorDetails

    (tmp_path / "server.py").write_text(
        "from mcp.server.fastmcp import FastMCP\nfrom service import lookup\n\nmcp = FastMCP('s')\n\n\n"
        "@mcp.tool()\ndef find(key: str) -> str:\n    return lookup(key)\n"
    )
    (tmp_path / "service.py").write_text("def lookup(key):\n    raise ValueError(key)\n")
    (tmp_path / "broken.py").write_bytes(b"x = '\xff'\n")
    decoded, screened, texts = [], [], {}
    real_decode, real_screen, real_lint_text = lint.decode_source, UnmaskedErrorDetails.prescreen, lint.lint_text

    def counting_decode(data):
        decoded.append(data)
        return real_decode(data)

    def counting_screen(text, settings):
        screened.append(text)
        return real_screen(text, settings)

    def recording_lint_text(text, display, *args, **kwargs):
        texts.setdefault(display, []).append(text)
        return real_lint_text(text, display, *args, **kwargs)

    monkeypatch.setattr(lint, "decode_source", counting_decode)
    monkeypatch.setattr(UnmaskedErrorDetails, "prescreen", staticmethod(counting_screen))
    monkeypatch.setattr(lint, "lint_text", recording_lint_text)
    names = ("server.py", "service.py", "broken.py")
    tasks = [runner.FileTask(str(tmp_path / name), name, SETTINGS, True) for name in names]
    result = runner.run(tasks, 1, small_rounds_in_process=True)
    assert any(finding.path == "service.py" and finding.code == "MCP002" for finding in result.findings)
    assert [finding.code for finding in result.findings if finding.path == "broken.py"] == ["MCP000"]
    assert len(texts["service.py"]) > 1  # analysed again once a handler reached it
    assert all(text is texts["service.py"][0] for text in texts["service.py"])
    assert sorted(decoded) == sorted((tmp_path / name).read_bytes() for name in names)
    assert sorted(screened) == sorted(texts[name][0] for name in ("server.py", "service.py"))


@pytest.mark.parametrize("bound", [None, 0])
def test_a_file_only_checked_in_the_first_round_is_parsed_once_when_analysed_later(tmp_path, monkeypatch, bound):
    """The first round only syntax-checks a module no handler can be in; once a handler of
    another module reaches it, a later round analyses it on the tree that check parsed. A test's
    tree is not kept (most tests are never analysed): it is parsed again if one is; so is every
    file past the bound on the texts whose trees are kept at once."""
    import ast

    from mcplint.engine import lint, runner, syntax

    if not lint.AST_PORT:
        pytest.skip("the LibCST pipeline parses with LibCST")
    if bound is not None:
        monkeypatch.setattr(syntax, "MAX_KEPT_CHARACTERS", bound)
    monkeypatch.setattr(syntax, "_CHECKED", type(syntax._CHECKED)())  # a process's checks outlast a run
    (tmp_path / "server.py").write_text(
        "from mcp.server.fastmcp import FastMCP\nfrom service import lookup\nfrom tests.helpers import probe\n\n"
        "mcp = FastMCP('s')\n\n\n@mcp.tool()\ndef find(key: str) -> str:\n    probe(key)\n    return lookup(key)\n"
    )
    (tmp_path / "service.py").write_text("def lookup(key):\n    raise ValueError(key)\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    (tmp_path / "tests" / "helpers.py").write_text("def probe(key):\n    raise KeyError(key)\n")
    parsed: list[str] = []
    real_parse = ast.parse

    def counting_parse(source, *args, **kwargs):
        parsed.append(source)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting_parse)
    names = ("server.py", "service.py", "tests/helpers.py", "tests/__init__.py")
    tasks = [runner.FileTask(str(tmp_path / name), name, SETTINGS, True) for name in names]
    result = runner.run(tasks, 1, small_rounds_in_process=True)
    found = {(finding.path, finding.code) for finding in result.findings}
    assert ("service.py", "MCP002") in found and ("tests/helpers.py", "MCP002") in found
    service, helpers = ((tmp_path / name).read_text() for name in ("service.py", "tests/helpers.py"))
    assert parsed.count(service) == (1 if bound is None else 2)  # the first round's syntax check; the analysis took its tree
    assert parsed.count(helpers) == 2  # a test's tree is not kept
    assert not syntax._TREES and syntax._KEPT == [0]  # the run let go of what it kept


def test_a_file_longer_than_its_stat_said_is_read_whole(tmp_path, monkeypatch):
    """The read asks for the bytes the file's stat gives and one more: a file that grew since
    (the stat said less) is read on, up to the size limit, as a read of the whole limit would."""
    import hashlib
    import os

    from mcplint.engine import lint
    from mcplint.engine.limits import MAX_PARSED_BYTES

    short = tmp_path / "short.py"
    short.write_text("def lookup(key):\n    return {'error': key}\n" * 50)
    long = tmp_path / "long.py"
    long.write_bytes(b"x = 1\n" * (MAX_PARSED_BYTES // 6 + 2))
    real_fstat = os.fstat

    def understated(descriptor):
        status = real_fstat(descriptor)
        return os.stat_result((*status[:6], 10, *status[7:]))  # st_size: 10 bytes

    monkeypatch.setattr(lint.os, "fstat", understated)
    try:
        read = lint.lint_path(str(short), "short.py", SETTINGS, True)
        refused = lint.lint_path(str(long), "long.py", SETTINGS, True)
    finally:
        forget_walked_modules()
    assert read.content_hash == hashlib.sha256(short.read_bytes()).hexdigest()
    assert [finding.message for finding in refused.findings] == [
        f"file too large to analyse: {MAX_PARSED_BYTES + 1:,} bytes (limit 2 MiB)"
    ]


@pytest.mark.parametrize("ast_port", [True, False], ids=["ast", "libcst"])
def test_a_module_s_own_error_helpers_are_worked_out_once_and_others_each_round(ast_port, monkeypatch):
    """MCP001's error helpers of a module (every return an error payload) depend on what the walk
    saw, and on the error helpers other modules export where the module imports one: worked out
    once for the rounds whose context imports none, each round otherwise; every round equals a
    fresh analysis, in either pipeline."""
    from mcplint.engine import lint

    monkeypatch.setattr(lint, "AST_PORT", ast_port)
    text = textwrap.dedent("""
        from mcp.server.fastmcp import FastMCP
        from errors import failure

        mcp = FastMCP("s")

        def own_error(message):
            return {"error": message}

        def wrapped(message):
            return failure(message)

        @mcp.tool()
        def find(key: str) -> dict:
            if not key:
                return own_error("no key")
            return wrapped(key)
        """)
    bare = ProjectContext(module="server")
    importing = ProjectContext(module="server", imported_error_helpers=(("errors.failure", "dict"),))

    def analysed(context, fresh):
        if fresh:
            forget_walked_modules()
        result = lint_text(text, "server.py", SETTINGS, project=context)
        return result.error_helpers, sorted((finding.line, finding.code) for finding in result.findings)

    try:
        rounds = [analysed(context, fresh=False) for context in (bare, importing, bare, importing)]
        fresh = [analysed(context, fresh=True) for context in (bare, importing, bare, importing)]
    finally:
        forget_walked_modules()
    assert rounds == fresh
    assert rounds[0][0] == {"own_error": "dict"}
    assert rounds[1][0] == {"own_error": "dict", "wrapped": "dict", "find": "dict"}
    assert rounds[0][1] != rounds[1][1]  # the imported helper's return is a finding only then
