"""The unsafe fixes of MCP004 (a close registry symbol) and MCP008 (mask error details)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from test_cli import json_findings, run_cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('mcp = FastMCP("notes")\n', 'mcp = FastMCP("notes", mask_error_details=True)\n'),
        (
            'mcp = FastMCP("notes", mask_error_details=False)\n',
            'mcp = FastMCP("notes", mask_error_details=True)\n',
        ),
        ('mcp = FastMCP(\n    "notes",\n)\n', 'mcp = FastMCP(\n    "notes", mask_error_details=True,\n)\n'),
        ("mcp = FastMCP()\n", "mcp = FastMCP(mask_error_details=True)\n"),
    ],
)
def test_mcp008_fix_sets_mask_error_details(tmp_path, before, after):
    header = "from fastmcp import FastMCP\n\n"
    (tmp_path / "server.py").write_text(header + before)
    safe = run_cli("check", "--select", "MCP008", "--fix", "server.py", cwd=tmp_path)
    assert safe.exit_code == 1 and (tmp_path / "server.py").read_text() == header + before
    run_cli("check", "--select", "MCP008", "--fix", "--unsafe-fixes", "server.py", cwd=tmp_path)
    assert (tmp_path / "server.py").read_text() == header + after
    assert run_cli("check", "--select", "MCP008", "server.py", cwd=tmp_path).exit_code == 0


def test_mcp004_fix_takes_the_single_close_symbol(tmp_path):
    shutil.copy(EXAMPLES / "mcp-errors.toml", tmp_path / "mcp-errors.toml")
    (tmp_path / "mcplint.toml").write_text("")
    source = textwrap.dedent(
        """\
        from notes_server.errors import notes_error


        def find(note_id):
            raise notes_error("NOTE_NOT_FOND", note_id=note_id)


        def other():
            raise notes_error("SOMETHING_ELSE_ENTIRELY")
        """
    )
    (tmp_path / "tools.py").write_text(source)
    run_cli("check", "--select", "MCP004", "--fix", "--unsafe-fixes", "tools.py", cwd=tmp_path)
    fixed = (tmp_path / "tools.py").read_text()
    assert fixed == source.replace('"NOTE_NOT_FOND"', '"NOTE_NOT_FOUND"')
    left = json_findings(run_cli("check", "--select", "MCP004", "--format", "json", "tools.py", cwd=tmp_path))
    assert [(f["location"]["row"], f["fix"]) for f in left] == [(9, None)]


def test_mcp005_fix_raises_the_default_symbol(tmp_path):
    shutil.copy(EXAMPLES / "mcp-errors.toml", tmp_path / "mcp-errors.toml")
    (tmp_path / "mcplint.toml").write_text('default-symbol = "STORE_UNAVAILABLE"\n')
    source = textwrap.dedent(
        """\
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("notes")


        @mcp.tool()
        def list_notes() -> list:
            try:
                return load()
            except OSError as error:
                return []


        @mcp.tool()
        def count() -> int:
            try:
                return len(load())
            except OSError:
                return 0
        """
    )
    (tmp_path / "server.py").write_text(source)
    findings = json_findings(run_cli("check", "--select", "MCP005", "--format", "json", "server.py", cwd=tmp_path))
    assert [(f["location"]["row"], f["fix"] and f["fix"]["applicability"]) for f in findings] == [
        (11, "unsafe"),
        (19, "unsafe"),
    ]
    run_cli("check", "--select", "MCP005", "--fix", "--unsafe-fixes", "server.py", cwd=tmp_path)
    fixed = (tmp_path / "server.py").read_text()
    assert '        raise notes_error("STORE_UNAVAILABLE") from error\n' in fixed
    # Without `as name` there is nothing to name as the cause; Python still chains it as the context.
    assert '        raise notes_error("STORE_UNAVAILABLE")\n' in fixed
    assert "from notes_server.errors import notes_error\n" in fixed


def test_unknown_config_keys_still_fail_with_default_symbol_known(tmp_path):
    (tmp_path / "mcplint.toml").write_text('default-symbl = "X"\n')
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.exit_code == 2 and "did you mean 'default-symbol'" in result.stderr


def test_mcp007_fix_raises_the_registry_entry_for_the_code(tmp_path):
    shutil.copy(EXAMPLES / "mcp-errors.toml", tmp_path / "mcp-errors.toml")
    (tmp_path / "mcplint.toml").write_text("")
    source = textwrap.dedent(
        """\
        from mcp.server.fastmcp import FastMCP
        from mcp.shared.exceptions import McpError
        from mcp.types import INTERNAL_ERROR, ErrorData

        mcp = FastMCP("notes")


        @mcp.tool()
        def pin(note_id: int) -> str:
            if note_id < 0:
                raise McpError(ErrorData(code=1002, message="locked"))
            raise McpError(ErrorData(code=INTERNAL_ERROR, message="boom"))
        """
    )
    (tmp_path / "server.py").write_text(source)
    run_cli("check", "--select", "MCP007", "--fix", "--unsafe-fixes", "server.py", cwd=tmp_path)
    fixed = (tmp_path / "server.py").read_text()
    assert '        raise notes_error("NOTE_LOCKED")\n' in fixed
    assert 'raise McpError(ErrorData(code=INTERNAL_ERROR, message="boom"))' in fixed  # -32603: not registered


def test_mcp006_fix_shows_the_type_not_the_text(tmp_path):
    source = textwrap.dedent(
        """\
        from mcp.server.fastmcp import FastMCP

        mcp = FastMCP("notes")


        @mcp.tool()
        def read(path: str) -> str:
            try:
                return open(path).read()
            except OSError as e:
                return f"could not read {path}: {e!r}"


        @mcp.tool()
        def write(path: str) -> dict:
            try:
                open(path, "w").write("x")
            except OSError as error:
                return {"error": str(error)}
            return {"ok": True}
        """
    )
    (tmp_path / "server.py").write_text(source)
    run_cli("check", "--select", "MCP006", "--fix", "--unsafe-fixes", "server.py", cwd=tmp_path)
    fixed = (tmp_path / "server.py").read_text()
    assert 'return f"could not read {path}: {type(e).__name__}"' in fixed
    assert 'return {"error": type(error).__name__}' in fixed
    # The module had no logger: it gets one, and the text the client no longer sees is logged.
    assert "import logging\n" in fixed and "logger = logging.getLogger(__name__)\n" in fixed
    assert '    except OSError as e:\n        logger.exception("read failed")\n' in fixed
    assert '    except OSError as error:\n        logger.exception("write failed")\n' in fixed
    assert run_cli("check", "--select", "MCP006", "server.py", cwd=tmp_path).exit_code == 0
