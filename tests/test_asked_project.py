"""A module's handler scope is kept from one round to the next when the new project context
answers every question its resolver asked as the old one did (analysis/asked_project.py), and
only then: each round still finds what a fresh analysis in its context finds."""

from __future__ import annotations

import textwrap

import pytest

from mcplint.analysis.asked_project import ProjectQuestions
from mcplint.analysis.project import ProjectContext
from mcplint.engine import lint
from mcplint.engine.lint import forget_walked_modules, lint_text
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

SETTINGS = FileSettings(codes=frozenset(RULES_BY_CODE))


def _servers(project: ProjectContext) -> dict[str, tuple[str, str]]:
    return {name: (level, framework) for name, level, framework in project.imported_servers}


def test_a_context_that_changes_only_what_was_not_asked_answers_the_same():
    before = ProjectContext(module="m", imported_servers=(("a.mcp", "high", "fastmcp"), ("b.mcp", "high", "mcp")))
    questions = ProjectQuestions(before)
    servers = questions.table(("imported_servers",), _servers)
    assert servers.get("a.mcp") == ("high", "fastmcp")
    assert "c.mcp" not in servers
    # `b.mcp` was never asked: its change (and a new `d.mcp`) tells the resolver nothing new.
    other = ProjectContext(module="m", imported_servers=(("a.mcp", "high", "fastmcp"), ("d.mcp", "low", "mcp")))
    assert questions.answered_the_same(other)
    # An answer that changes: the server asked for, or one that was missing.
    assert not questions.answered_the_same(ProjectContext(module="m", imported_servers=(("a.mcp", "low", "mcp"),)))
    assert not questions.answered_the_same(
        ProjectContext(module="m", imported_servers=(("a.mcp", "high", "fastmcp"), ("c.mcp", "high", "mcp")))
    )


def test_reading_a_table_or_a_field_whole_asks_about_every_entry():
    before = ProjectContext(module="m", imported_servers=(("a.mcp", "high", "fastmcp"),))
    other = ProjectContext(module="m", imported_servers=(("a.mcp", "high", "fastmcp"), ("b.mcp", "high", "mcp")))
    for read in (list, len, bool, lambda table: table.items(), lambda table: table.keys()):
        questions = ProjectQuestions(before)
        assert questions.answered_the_same(other)  # nothing asked yet
        read(questions.table(("imported_servers",), _servers))
        assert not questions.answered_the_same(other)
    questions = ProjectQuestions(before)
    questions.read_whole("registered_here")
    assert questions.answered_the_same(other)
    assert not questions.answered_the_same(ProjectContext(module="m", registered_here=(("f", "tool", "high"),)))


def test_moving_on_takes_the_new_entries_not_asked_and_keeps_the_resolvers_own():
    before = ProjectContext(module="m", imported_servers=(("a.mcp", "high", "fastmcp"), ("b.mcp", "high", "mcp")))
    questions = ProjectQuestions(before)
    servers = questions.table(("imported_servers",), _servers)
    servers.get("a.mcp")
    servers["local.mcp"] = ("low", "mcp")  # what the resolver adds itself
    after = ProjectContext(
        module="m",
        imported_servers=(("a.mcp", "high", "fastmcp"), ("c.mcp", "low", "mcp"), ("local.mcp", "high", "fastmcp")),
    )
    assert not questions.move_to(ProjectContext(module="m", imported_servers=(("a.mcp", "low", "mcp"),)))
    assert questions.project is before  # a move refused changes nothing
    assert questions.move_to(after)
    assert dict(servers) == {"a.mcp": ("high", "fastmcp"), "c.mcp": ("low", "mcp"), "local.mcp": ("low", "mcp")}
    assert questions.project is after


SOURCE = textwrap.dedent("""
    from mcp.server.fastmcp import FastMCP
    from app.registry import register

    mcp = FastMCP("x")

    @mcp.tool()
    def lookup(x: str) -> str:
        return run(x)

    @register
    def listed(x):
        raise RuntimeError("listed failed")

    def call_service(service, x):
        return service.fetch(x)
    """)
PLAIN = ProjectContext(module="app.server")
# `@register` is a registration decorator of a registry some server runs: `listed` is a tool.
REGISTERED = ProjectContext(module="app.server", registry_decorators=(("app.registry.register", "tool"),))
# Another module passes a `Service` to a function this module does not have: never asked.
PASSED_ELSEWHERE = ProjectContext(
    module="app.server", parameter_classes=(("missing_function", "0", "app.services.Service"),)
)
# ... and to `call_service`, whose call of `service.fetch` the resolver resolves.
PASSED_HERE = ProjectContext(module="app.server", parameter_classes=(("call_service", "0", "app.services.Service"),))


@pytest.fixture(autouse=True)
def _fresh_run():
    forget_walked_modules()
    yield
    forget_walked_modules()


def _found(project: ProjectContext) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in lint_text(SOURCE, "app/server.py", SETTINGS, project=project).findings]


def _fresh(project: ProjectContext) -> list[tuple[int, str]]:
    forget_walked_modules()
    return _found(project)


def test_a_round_keeps_the_local_scope_only_when_its_context_answers_the_same(monkeypatch):
    resolved: list[ProjectContext] = []
    resolve = lint._ast_local_scope

    def counted(*args, **kwargs):
        resolved.append(kwargs["project"])
        return resolve(*args, **kwargs)

    monkeypatch.setattr(lint, "_ast_local_scope", counted)
    assert _found(PLAIN) == []
    assert _found(PASSED_ELSEWHERE) == []
    assert resolved == [PLAIN]  # nothing the resolver asked changed: the scope is kept
    assert _found(REGISTERED) == [(13, "MCP002")]
    assert resolved == [PLAIN, REGISTERED]  # `@register` was asked about
    assert _found(PASSED_HERE) == []
    assert resolved[-1] == PASSED_HERE  # `call_service`'s parameter was asked about
    rounds = [PLAIN, PASSED_ELSEWHERE, REGISTERED, PASSED_ELSEWHERE, PASSED_HERE, PLAIN, REGISTERED, PASSED_HERE]
    monkeypatch.setattr(lint, "_ast_local_scope", resolve)
    forget_walked_modules()
    assert [_found(project) for project in rounds] == [_fresh(project) for project in rounds]
