"""``exception_flow_ast`` on `except*`, which the builder does not make (so the differential
check, tests/port_checks/exception_flow.py, never meets it): against the original on LibCST's
own parse, node for node by where they start."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from mcplint.analysis import exception_flow, exception_flow_ast
from mcplint.analysis.imports import ImportTable
from mcplint.analysis.imports_ast import AstImportTable
from mcplint.analysis.walk import Walker
from mcplint.analysis.walk_ast import AstWalker

SOURCE = textwrap.dedent("""
    import httpx
    from mcp.server.fastmcp import Context

    def describe(e):
        return "failed: " + str(e)

    async def tool(ctx: Context, url):
        try:
            await httpx.get(url)
        except* httpx.HTTPError as group:
            await ctx.error(describe(group))
        except* (ValueError, KeyError) as group:
            raise RuntimeError(repr(group)) from group
        except* Exception:
            raise
        try:
            pass
        except* OSError as error:
            message = str(error)
        return message
    """)


def test_except_star_agrees_with_the_original() -> None:
    wrapper = MetadataWrapper(cst.parse_module(SOURCE))
    module = wrapper.module
    positions = wrapper.resolve(PositionProvider)
    table = ImportTable("pkg")
    Walker([table]).walk(module)
    tree = ast.parse(SOURCE)
    twin_table = AstImportTable("pkg")
    AstWalker([twin_table]).walk(tree)

    def start(node: cst.CSTNode) -> tuple[int, int]:
        position = positions[node].start
        return position.line, position.column

    flow = exception_flow.ExceptionFlow(table)
    twin = exception_flow_ast.ExceptionFlow(twin_table, text=SOURCE)
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            flow.add_function(statement.name.value, statement, None)
    for made in tree.body:
        if isinstance(made, (ast.FunctionDef, ast.AsyncFunctionDef)):
            twin.add_function(made.name, made, None)

    expected = [(leak.function, start(leak.origin.node), leak.origin.kind, leak.sink.description) for leak in flow.leaks()]
    found = [
        (leak.function, (leak.origin.node.lineno, leak.origin.node.col_offset), leak.origin.kind, leak.sink.description)  # type: ignore[attr-defined]
        for leak in twin.leaks()
    ]
    assert len(expected) == 3
    assert found == expected
    for key in flow.functions:
        summary, twin_summary = flow.summary(key), twin.summary(key)
        assert (summary.returned, summary.raised_own, summary.raised_text) == (
            twin_summary.returned,
            twin_summary.raised_own,
            twin_summary.raised_text,
        )

    clauses = [node for node in _all(module) if isinstance(node, cst.ExceptStarHandler)]
    twin_clauses = [node for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler)]
    assert [start(clause) for clause in clauses] == [(c.lineno, c.col_offset) for c in twin_clauses]
    for clause, twin_clause in zip(clauses, twin_clauses, strict=True):
        assert exception_flow.caught_names(clause, table) == exception_flow_ast.caught_names(twin_clause, twin_table)
        assert exception_flow.bound_name(clause) == exception_flow_ast.bound_name(twin_clause)
        assert exception_flow.reraises(clause) == exception_flow_ast.reraises(twin_clause)  # type: ignore[arg-type]
        assert flow.is_project_exception(clause) == twin.is_project_exception(twin_clause)


def _all(root: cst.CSTNode) -> list[cst.CSTNode]:
    found, pending = [], [root]
    while pending:
        node = pending.pop(0)
        found.append(node)
        pending.extend(node.children)
    return found


REGISTRY_HELPER_CALL = textwrap.dedent("""
    from mcp.server.fastmcp import Context
    from .errors import notes_error

    async def tool(ctx: Context, x):
        try:
            return run(x)
        except Exception as e:
            await ctx.error(notes_error(str(e)))

    def other(x):
        return str(x)
    """)


def test_a_changed_registry_drops_the_analyses_its_helpers_decide(monkeypatch) -> None:
    """Whether a call is a registry helper's (which never serialises the cause) is asked of the
    registry: a later round under the same registry keeps the analyses without asking again;
    under another, those that asked go, and what follows is a fresh analysis's."""
    tree = ast.parse(REGISTRY_HELPER_CALL)
    table = AstImportTable("pkg")
    AstWalker([table]).walk(tree)

    def flow_of(helper_names: frozenset[str]) -> exception_flow_ast.ExceptionFlow:
        flow = exception_flow_ast.ExceptionFlow(table, text=REGISTRY_HELPER_CALL, helper_names=helper_names)
        for made in tree.body:
            if isinstance(made, (ast.FunctionDef, ast.AsyncFunctionDef)):
                flow.add_function(made.name, made, None)
        return flow

    def found(flow: exception_flow_ast.ExceptionFlow) -> list[tuple[str, str]]:
        return [(leak.function, leak.sink.description) for leak in flow.leaks()]

    flow = flow_of(frozenset())
    before = found(flow)
    asked: list[str] = []
    original = exception_flow_ast._registry_helper
    for module in (exception_flow_ast, exception_flow):  # the analysis asks in one, the drop in the other
        monkeypatch.setattr(module, "_registry_helper", lambda tail, *rest: asked.append(tail) or original(tail, *rest))
    assert flow.drop_stale() == 0
    assert asked == []  # the same registry: told the same without asking
    assert found(flow) == before
    flow.helper_names = frozenset({"notes_error"})
    assert flow.drop_stale() == 1  # `tool` asked about `notes_error`; `other` asked nothing
    assert "notes_error" in asked
    assert found(flow) == found(flow_of(frozenset({"notes_error"})))
