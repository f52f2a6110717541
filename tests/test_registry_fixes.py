"""Fixes into the registry helpers: MCP002 raises and MCP001 returns whose message is a registry message."""

from __future__ import annotations

import ast
import shutil
import textwrap
from pathlib import Path

import pytest
from test_cli import json_findings, run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

BEFORE = textwrap.dedent(
    """\
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("notes")
    NOTES: dict[int, str] = {}


    @mcp.tool()
    def get_note(note_id: int) -> str:
        if note_id not in NOTES:
            raise ValueError(f"Note {note_id} does not exist.")
        return NOTES[note_id]


    @mcp.tool()
    def save(note_id: int, text: str) -> str:
        try:
            NOTES[note_id] = text
        except OSError as error:
            raise RuntimeError("the notes store is unavailable") from error
        if not text:
            raise ValueError("text is empty")
        return "saved"


    @mcp.resource("notes://{note_id}")
    def read(note_id: int) -> str:
        if note_id not in NOTES:
            raise KeyError(f"Note {note_id} does not exist.")
        return NOTES[note_id]
    """
)
AFTER = (
    BEFORE.replace(
        "from mcp.server.fastmcp import FastMCP\n",
        "from mcp.server.fastmcp import FastMCP\nfrom notes_server.errors import notes_error\n",
    )
    # Still an instance of the class raised before: every `except ValueError` still catches it.
    .replace(
        'raise ValueError(f"Note {note_id} does not exist.")',
        'raise notes_error("NOTE_NOT_FOUND", note_id=note_id).caught_as(ValueError)',
    )
    .replace(
        'raise RuntimeError("the notes store is unavailable")',
        'raise notes_error("STORE_UNAVAILABLE").caught_as(RuntimeError)',
    )
    # Only a resource reaches it: the SDK's protocol error, with the registry's code and data.
    .replace(
        'raise KeyError(f"Note {note_id} does not exist.")',
        # laid out to the line length, as black would
        'raise notes_error("NOTE_NOT_FOUND", note_id=note_id).for_resource().caught_as(\n'
        "            KeyError\n"
        "        )",
    )
)


@pytest.fixture
def project(tmp_path):
    shutil.copy(EXAMPLES / "mcp-errors.toml", tmp_path / "mcp-errors.toml")
    (tmp_path / "mcplint.toml").write_text("")
    package = tmp_path / "notes_server"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "app.py").write_text(BEFORE)
    assert run_cli("registry", "generate", "--framework", "mcp1", cwd=tmp_path).exit_code == 0
    return tmp_path


def test_matching_raises_become_registry_helpers(project):
    result = run_cli("check", "--select", "MCP002", "--fix", "--format", "json", ".", cwd=project)
    assert (project / "notes_server" / "app.py").read_text() == AFTER
    remaining = json_findings(result)
    # No registry message matches "text is empty".
    assert [(f["location"]["row"], f["fix"]) for f in remaining] == [(22, None)]


def test_the_fix_is_offered_safe_and_is_idempotent(project):
    findings = json_findings(run_cli("check", "--select", "MCP002", "--format", "json", ".", cwd=project))
    fixes = {f["location"]["row"]: f["fix"] for f in findings}
    assert fixes[10]["applicability"] == "safe"
    assert fixes[10]["edits"][0]["content"] == 'notes_error("NOTE_NOT_FOUND", note_id=note_id).caught_as(ValueError)'
    run_cli("check", "--select", "MCP002", "--fix", ".", cwd=project)
    again = run_cli("check", "--select", "MCP002", "--fix", ".", cwd=project)
    assert (project / "notes_server" / "app.py").read_text() == AFTER
    assert "0 fixed" not in again.stdout and "fixed" not in again.stdout


def test_a_raise_in_a_function_the_tool_calls_keeps_its_class_and_is_a_safe_fix(project):
    """Its caller may catch the builtin class (`except ValueError`): the registry error raised in
    its place is still a `ValueError`, so the caller still catches it."""
    (project / "notes_server" / "lookup.py").write_text(
        textwrap.dedent(
            """\
            from mcp.server.fastmcp import FastMCP

            mcp = FastMCP("lookup")


            def _checked(note_id: int) -> int:
                if note_id < 0:
                    raise ValueError(f"Note {note_id} does not exist.")
                return note_id


            @mcp.tool()
            def lookup(note_id: int) -> int:
                return _checked(note_id)
            """
        )
    )
    findings = json_findings(run_cli("check", "--select", "MCP002", "--format", "json", "notes_server/lookup.py", cwd=project))
    assert [(f["location"]["row"], f["fix"]["applicability"]) for f in findings] == [(8, "safe")]
    assert findings[0]["fix"]["edits"][0]["content"].endswith(".caught_as(ValueError)")


def test_the_fixed_code_imports_a_helper_the_generated_module_defines(project):
    run_cli("check", "--select", "MCP002", "--fix", ".", cwd=project)
    generated = ast.parse((project / "notes_server" / "errors.py").read_text())
    defined = {node.name for node in generated.body if isinstance(node, ast.FunctionDef)}
    fixed = ast.parse((project / "notes_server" / "app.py").read_text())
    imported = {
        (node.module, alias.name) for node in fixed.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    assert ("notes_server.errors", "notes_error") in imported
    assert "notes_error" in defined


def test_no_registry_means_no_fix(tmp_path):
    (tmp_path / "app.py").write_text(BEFORE)
    findings = json_findings(run_cli("check", "--select", "MCP002", "--format", "json", ".", cwd=tmp_path))
    assert findings and all(f["fix"] is None for f in findings)


def test_mcp001_returns_of_registry_messages_become_unsafe_tool_results(project):
    (project / "notes_server" / "tools.py").write_text(
        textwrap.dedent(
            """\
            from mcp.server.fastmcp import FastMCP

            mcp = FastMCP("more")


            @mcp.tool()
            def find(note_id: int) -> dict:
                if note_id < 0:
                    return {"error": f"Note {note_id} does not exist."}
                if note_id == 0:
                    return f"Error: the notes store is unavailable"
                return {"id": note_id}
            """
        )
    )
    safe_only = run_cli("check", "--select", "MCP001", "--fix", ".", cwd=project)
    assert "fixed" not in safe_only.stdout  # the MCP001 fix is unsafe
    run_cli("check", "--select", "MCP001", "--fix", "--unsafe-fixes", ".", cwd=project)
    fixed = (project / "notes_server" / "tools.py").read_text()
    assert 'return notes_error("NOTE_NOT_FOUND", note_id=note_id).tool_result()' in fixed
    assert 'return notes_error("STORE_UNAVAILABLE").tool_result()' in fixed
    assert "from notes_server.errors import notes_error\n" in fixed
    left = json_findings(run_cli("check", "--select", "MCP001", "--format", "json", ".", cwd=project))
    assert [f["filename"] for f in left] == []
