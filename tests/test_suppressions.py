"""Suppression comments."""

from __future__ import annotations

import textwrap

import pytest

from mcplint.engine.lint import lint_text
from mcplint.settings import FileSettings

HEADER = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('s')\n\n@mcp.tool()\ndef tool(x):\n"
ALL = FileSettings(codes=frozenset({"MCP000", "MCP001", "MCP002"}))


def findings(body: str) -> list[tuple[int, str]]:
    text = HEADER + textwrap.indent(textwrap.dedent(body), "    ")
    return [(f.line, f.code) for f in lint_text(text, "t.py", ALL).findings]


@pytest.mark.parametrize(
    "body",
    [
        'raise ValueError("x")  # mcplint: ignore[MCP002]\n',
        'raise ValueError("x")  # mcplint: ignore[MCP001, MCP002]\n',
        'raise ValueError("x")  # mcplint: ignore\n',
        'raise ValueError("x")  # noqa: MCP002\n',
        'raise ValueError("x")  # noqa: E501, MCP002\n',
        '# mcplint: ignore[MCP002]\nraise ValueError("x")\n',
        'raise ValueError(  # mcplint: ignore[MCP002]\n    "x"\n)\n',
        'raise ValueError(\n    "x"\n)  # mcplint: ignore[MCP002]\n',
    ],
)
def test_suppressed(body):
    assert findings(body) == []


@pytest.mark.parametrize(
    "body",
    [
        'raise ValueError("x")  # mcplint: ignore[MCP001]\n',
        'raise ValueError("x")  # noqa\n',
        'raise ValueError("x")  # noqa: E501\n',
        '# mcplint: ignore[MCP002]\n\nx = 1\nraise ValueError("x")\n',
    ],
)
def test_not_suppressed(body):
    assert [code for _, code in findings(body)] == ["MCP002"]


def test_ignore_file():
    text = "# mcplint: ignore-file[MCP002]\n" + HEADER + '    raise ValueError("x")\n    return {"error": "x"}\n'
    assert [f.code for f in lint_text(text, "t.py", ALL).findings] == ["MCP001"]


def test_ignore_file_without_codes():
    text = HEADER + '    return {"error": "x"}\n# mcplint: ignore-file\n'
    assert lint_text(text, "t.py", ALL).findings == []
