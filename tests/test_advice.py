"""Advice that fits the handler: a resource or prompt finding never recommends ToolError or isError."""

from __future__ import annotations

import textwrap

from test_cli import json_findings, run_cli

from mcplint.rules.advice import RAISE_INSTEAD

SERVER = textwrap.dedent(
    """\
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("demo")


    def _load(key):
        if not key:
            raise ValueError("empty key")
        return key


    @mcp.tool()
    def get_note(key: str) -> str:
        raise ValueError("no note")


    @mcp.resource("notes://{key}")
    def read_note(key: str) -> str:
        if key == "x":
            return {"error": "Note not found"}
        try:
            return open(key).read()
        except OSError:
            return ""


    @mcp.prompt()
    def summarise(key: str) -> str:
        raise KeyError("no prompt")


    @mcp.tool()
    def both_tool(key: str) -> str:
        return _load(key)


    @mcp.resource("both://{key}")
    def both_resource(key: str) -> str:
        return _load(key)
    """
)


def _messages(tmp_path) -> dict[int, tuple[str, str]]:
    (tmp_path / "server.py").write_text(SERVER)
    findings = json_findings(run_cli("check", "--format", "json", "server.py", cwd=tmp_path))
    return {finding["location"]["row"]: (finding["code"], finding["message"]) for finding in findings}


def test_each_handler_kind_gets_its_own_advice(tmp_path):
    messages = _messages(tmp_path)
    tool, resource_dict, resource_empty, prompt, shared = (messages[line] for line in (14, 20, 24, 29, 8))
    assert tool == ("MCP002", "Raw `ValueError` raised in handler scope; " + RAISE_INSTEAD.tool)
    assert "ToolError" in tool[1]
    for code, message in (resource_dict, resource_empty, prompt, shared):
        assert "ToolError" not in message and "isError" not in message, (code, message)
    assert resource_dict[0] == "MCP001" and "`.for_resource()`" in resource_dict[1]
    assert resource_empty[0] == "MCP005" and "`.for_resource()`" in resource_empty[1]
    assert prompt[0] == "MCP002" and "`.for_prompt()`" in prompt[1]
    # Reached from a tool and a resource: words that fit both.
    assert shared[1].startswith("Raw `ValueError` raised in handler scope; raise a registry error instead (in `_load`")


def test_kinds_choose_the_words():
    assert RAISE_INSTEAD.for_kinds(["tool", "tool"]) == RAISE_INSTEAD.tool
    assert RAISE_INSTEAD.for_kinds(["resource"]) == RAISE_INSTEAD.resource
    assert RAISE_INSTEAD.for_kinds(["tool", "prompt"]) == RAISE_INSTEAD.other
    assert RAISE_INSTEAD.for_kinds(["list"]) == RAISE_INSTEAD.other
    assert RAISE_INSTEAD.for_kinds([]) == RAISE_INSTEAD.other
