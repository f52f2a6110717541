"""The project model on the shapes real servers are written in (one fixture project per
shape under fixtures/projects/model/, markers written from the shape, not the code)."""

from __future__ import annotations

import shutil

import pytest
from fixture_expectations import FIXTURES, silent_cases
from fixture_expectations import project_expectations as expected
from test_cli import json_findings, run_cli

MODEL = FIXTURES / "projects" / "model"
SHAPES = sorted(path.name for path in MODEL.iterdir() if path.is_dir())
# Shapes the project model does not follow yet: each must fail until it does (strict).
NOT_YET: dict[str, str] = {}



@pytest.mark.parametrize(
    "shape",
    [pytest.param(s, marks=pytest.mark.xfail(reason=NOT_YET[s], strict=True)) if s in NOT_YET else s for s in SHAPES],
)
def test_shape_findings_match_the_markers(shape, tmp_path):
    root = tmp_path / shape
    shutil.copytree(MODEL / shape, root)
    result = run_cli("check", "--format", "json", "--no-cache", "--select", "MCP001,MCP002,MCP005,MCP006,MCP007,MCP008", ".", cwd=root)
    found = {(f["filename"], f["location"]["row"], f["code"]) for f in json_findings(result)}
    assert found == expected(root)
    assert any(silent_cases(path.read_text()) for path in root.rglob("*.py"))


def test_handlers_lists_servers_classes_and_handlers_across_modules(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(MODEL / "subclass_two_levels", root)
    result = run_cli("handlers", "--reach", ".", cwd=root)
    assert result.exit_code == 0
    lines = [line.strip() for line in result.stdout.splitlines()]
    assert "server class  Base (high-level, mcp1)" in lines
    assert "server class  App (high-level, mcp1)" in lines
    assert "server        app (high-level, mcp1)" in lines
    assert "tool          find_contact" in lines
    assert lines[-1] == "2 handler(s) in 4 file(s)."


def test_no_handler_found_is_said_not_passed_over(tmp_path):
    """A project importing an MCP framework where mcplint finds no handler gets a warning,
    and the summary does not claim that all checks passed."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "server.py").write_text(
        "from mcp.server.fastmcp import FastMCP\n\nfrom app.registry import register\n\n"
        'mcp = FastMCP("x")\nregister(mcp, "lookup")\n'
    )
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert result.exit_code == 0
    assert "All checks passed!" not in result.stdout
    assert "no MCP handler was found" in result.stdout
    assert "no MCP handler found, yet 1 module(s) import an MCP server framework (app/server.py)" in result.stderr
    handlers = run_cli("handlers", ".", cwd=tmp_path)
    assert "server        mcp (high-level, mcp1)" in handlers.stdout
    assert "app/server.py" in handlers.stderr


def test_a_project_with_handlers_passes_without_a_warning(tmp_path):
    (tmp_path / "server.py").write_text(
        'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n\n\n@mcp.tool()\ndef ping() -> str:\n    return "pong"\n'
    )
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert result.stdout == "All checks passed!\n"
    assert "warning" not in result.stderr


def test_handlers_reach_names_the_methods_a_tool_reaches_in_another_module(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(MODEL / "local_instance", root)
    lines = [line.strip() for line in run_cli("handlers", "--reach", ".", cwd=root).stdout.splitlines()]
    assert "reached       Report.build  <- reports.server.monthly_report" in lines
    assert "reached       Report._check  <- reports.server.monthly_report" in lines


REGISTRY_MODULE = (
    "TOOLS = {}\n\n\ndef register_tool(name):\n    def decorate(function):\n"
    "        TOOLS[name] = function\n        return function\n\n    return decorate\n"
)
DECORATED_TOOL = (
    "from {package}.registry import register_tool\n\n\n@register_tool(\"lookup\")\n"
    "def lookup(key: str) -> dict:\n    raise ValueError(key)\n"
)


def _registry_project(root, package, server=None):
    (root / package).mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "{package}"\n')
    (root / package / "__init__.py").write_text("")
    (root / package / "registry.py").write_text(REGISTRY_MODULE)
    (root / package / "tools.py").write_text(DECORATED_TOOL.format(package=package))
    if server is not None:
        (root / package / "server.py").write_text(server.format(package=package))


LOW_LEVEL_DISPATCH = (
    "import mcp.types as types\nfrom mcp.server import Server\n\nfrom {package}.registry import TOOLS\n"
    "from {package} import tools  # noqa: F401  (registers them)\n\nserver = Server(\"{package}\")\n\n\n"
    "@server.call_tool()\nasync def call_tool(name: str, arguments: dict) -> list[types.TextContent]:\n"
    "    return [types.TextContent(type=\"text\", text=str(TOOLS[name](**arguments)))]\n"
)
FASTMCP_LOOP = (
    "from mcp.server.fastmcp import FastMCP\n\nfrom {package}.registry import TOOLS\n"
    "from {package} import tools  # noqa: F401\n\nmcp = FastMCP(\"{package}\")\n"
    "for name, function in TOOLS.items():\n    mcp.tool(name=name)(function)\n"
)


def test_a_registry_decorator_counts_where_a_low_level_call_tool_dispatches_by_name(tmp_path):
    _registry_project(tmp_path / "svc", "svc", LOW_LEVEL_DISPATCH)
    found = {(f["filename"], f["code"]) for f in json_findings(run_cli("check", "--format", "json", "--no-cache", "--select", "MCP002", ".", cwd=tmp_path / "svc"))}
    assert found == {("svc/tools.py", "MCP002")}


def test_one_projects_registration_loop_does_not_make_anothers_decorators_tools(tmp_path):
    """Two projects checked in one run: the loop in `a` registers `a`'s registry only."""
    _registry_project(tmp_path / "a", "a", FASTMCP_LOOP)
    _registry_project(tmp_path / "b", "b")  # a library with the same decorator and no server
    found = {(f["filename"], f["code"]) for f in json_findings(run_cli("check", "--format", "json", "--no-cache", "--select", "MCP002", ".", cwd=tmp_path))}
    assert found == {("a/a/tools.py", "MCP002")}
