"""MCP007 protocol-error-from-tool and MCP008 unmasked-error-details: coverage, messages, scope."""

from __future__ import annotations

import textwrap

import pytest
from fixture_expectations import expected_findings, fixture_files, silent_cases

from mcplint.engine.lint import lint_text
from mcplint.rules import RULES_BY_CODE
from mcplint.rules.mcp008_unmasked_error_details import UnmaskedErrorDetails
from mcplint.settings import FileSettings

MINIMUM_CASES = 15


def _findings(source: str, codes: frozenset[str] = frozenset(RULES_BY_CODE), code: str | None = None):
    result = lint_text(textwrap.dedent(source), "server.py", FileSettings(codes=codes))
    return [finding for finding in result.findings if code is None or finding.code == code]


@pytest.mark.parametrize("code", ["MCP007", "MCP008"])
def test_fixtures_cover_enough_cases(code):
    texts = [path.read_text(encoding="utf-8") for path in fixture_files(code)]
    invalid = sum(len({c for c in expected_findings(text) if c[1] == code}) for text in texts)
    valid = sum(len({c for c in silent_cases(text) if c[1] == code}) for text in texts)
    assert invalid >= MINIMUM_CASES, f"{code}: only {invalid} invalid cases"
    assert valid >= MINIMUM_CASES, f"{code}: only {valid} valid cases"


# -- MCP007 ------------------------------------------------------------------------------
MCP1_TOOL = """
    from mcp.server.fastmcp import FastMCP
    from mcp.shared.exceptions import McpError
    from mcp.types import INTERNAL_ERROR, ErrorData

    mcp = FastMCP("s")

    def _load(key):
        raise McpError(ErrorData(code=INTERNAL_ERROR, message=key))

    @mcp.tool()
    def fetch(key: str) -> str:
        return _load(key)
"""


def test_mcp007_message_for_mcp1_says_code_and_data_are_dropped_and_names_the_tool():
    (finding,) = _findings(MCP1_TOOL, code="MCP007")
    assert finding.line == 9
    assert "`McpError` raised in a tool: mcp 1.x" in finding.message
    assert "drops the code and data" in finding.message
    assert finding.message.endswith("(in `_load`, reached from tool `fetch`)")
    assert finding.handler == "fetch"


def test_mcp007_message_for_mcp2_says_protocol_error():
    (finding,) = _findings(
        """
        from mcp import MCPError
        from mcp.server.mcpserver import MCPServer

        app = MCPServer("s")

        @app.tool()
        def fetch(key: str) -> str:
            raise MCPError(1001, "missing", data={"key": key})
        """,
        code="MCP007",
    )
    assert "mcp 2.x sends it as a JSON-RPC error, which the model never sees" in finding.message


def test_mcp007_message_for_a_fastmcp_file_describes_fastmcp_even_for_mcps_class():
    (finding,) = _findings(
        """
        from fastmcp import FastMCP
        from mcp import McpError
        from mcp.types import ErrorData

        app = FastMCP("s")

        @app.tool
        def fetch(key: str) -> str:
            raise McpError(ErrorData(code=1001, message="missing"))
        """,
        code="MCP007",
    )
    assert "fastmcp sends it as an isError result" in finding.message
    assert "mask_error_details=True" in finding.message


def test_mcp007_helper_reached_from_a_resource_and_a_tool_names_the_tool():
    source = textwrap.dedent(MCP1_TOOL) + textwrap.dedent(
        """
        @mcp.resource("res://{key}")
        def read(key: str) -> str:
            return _load(key)
        """
    )
    (finding,) = _findings(source, code="MCP007")
    assert "reached from tool `fetch`" in finding.message


def test_mcp007_runs_alone():
    assert [f.code for f in _findings(MCP1_TOOL, codes=frozenset({"MCP007"}))] == ["MCP007"]


# -- MCP008 ------------------------------------------------------------------------------
def test_mcp008_runs_alone_and_reports_at_the_constructor():
    (finding,) = _findings(
        """
        from fastmcp import FastMCP

        mcp = FastMCP("s")
        """,
        codes=frozenset({"MCP008"}),
    )
    assert (finding.line, finding.column, finding.code) == (4, 7, "MCP008")
    assert "without `mask_error_details=True`" in finding.message


def test_mcp008_explicit_false_says_so():
    (finding,) = _findings('from fastmcp import FastMCP\nmcp = FastMCP("s", mask_error_details=False)\n', code="MCP008")
    assert "sets `mask_error_details=False`" in finding.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("from fastmcp import FastMCP\nmcp = FastMCP('s')\n", True),
        ("import fastmcp\nmcp = fastmcp.FastMCP('s')\n", True),
        ("def f():\n    from fastmcp import FastMCP\n    return FastMCP('s')\n", True),
        ("from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n", False),
        ("from fastmcp import Client\n", False),
        ("# uses FastMCP from fastmcp\nx = 1\n", False),
    ],
)
def test_mcp008_prescreen(text, expected):
    assert UnmaskedErrorDetails.prescreen(text, FileSettings(codes=frozenset({"MCP008"}))) is expected


def test_mcp008_is_silent_for_mcps_own_fastmcp_even_with_a_fastmcp_import():
    source = """
        from fastmcp import Client
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("s")
    """
    assert _findings(source, code="MCP008") == []


_INDENTED_SERVER = '''\
from fastmcp import FastMCP


def build(debug):
    if debug:
        server = FastMCP(
            name="notes",  # the comment stays
            instructions="""
    Text kept as written,
        whatever its indentation.
""",
        )
        return server
    return None
'''


@pytest.mark.parametrize("pipeline", ["ast", "libcst"])
def test_mcp008_fix_of_an_indented_call_is_the_same_on_both_pipelines_without_a_libcst_parse(
    monkeypatch: pytest.MonkeyPatch, pipeline: str
) -> None:
    from mcplint.engine import lint

    parses: list[str] = []
    parse = lint._parse
    monkeypatch.setattr(lint, "_parse", lambda text: parses.append(text) or parse(text))
    monkeypatch.setattr(lint, "AST_PORT", pipeline == "ast")
    settings = FileSettings(codes=frozenset({"MCP008"}))
    lint.forget_walked_modules()  # not the other pipeline's walk of the same text
    try:
        (finding,) = lint_text(_INDENTED_SERVER, "server.py", settings).findings
    finally:
        lint.forget_walked_modules()
    assert finding.fix is not None
    (edit,) = finding.fix.edits
    # LibCST's tree of the module holds each line past its statement's indentation: the
    # replacement is written as that tree prints it, the string's lines as they are.
    assert edit.content == (
        'FastMCP(\n    name="notes",  # the comment stays\n    instructions="""\n'
        '    Text kept as written,\n        whatever its indentation.\n""", mask_error_details=True,\n)'
    )
    if pipeline == "ast":  # the fix is made without LibCST's parse of the module
        assert parses == []
