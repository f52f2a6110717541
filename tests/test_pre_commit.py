"""The hook works with the real pre-commit, from this checkout (slow: pre-commit
builds the hook's own environment with pip)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_cli import BAD_TOOL

CHECKOUT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _pre_commit() -> list[str]:
    executable = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")
    if executable is None:
        pytest.fail("pre-commit is not installed: `pip install '.[test]'` installs it")
    return [executable]


def _git(repository: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repository, check=True, capture_output=True)


def test_hook_fails_on_a_bad_server_and_passes_once_fixed(tmp_path):
    repository = tmp_path / "project"
    repository.mkdir()
    _git(repository, "init", "-q")
    _git(repository, "config", "user.email", "ci@example.com")
    _git(repository, "config", "user.name", "CI")
    (repository / "server.py").write_text(BAD_TOOL)
    _git(repository, "add", "server.py")
    environment = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    command = [*_pre_commit(), "try-repo", str(CHECKOUT), "mcplint", "--all-files"]

    failing = subprocess.run(command, cwd=repository, env=environment, capture_output=True, text=True)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "server.py:9:9: MCP002" in failing.stdout
    assert "server.py:10:12: MCP001" in failing.stdout

    fixed = textwrap.dedent(
        """\
        from mcp.server.fastmcp import FastMCP
        from mcp.server.fastmcp.exceptions import ToolError

        mcp = FastMCP("demo")


        @mcp.tool()
        def get_note(note_id: str) -> dict:
            if not note_id:
                raise ToolError("note id is empty")
            raise ToolError("Note not found")
        """
    )
    (repository / "server.py").write_text(fixed)
    _git(repository, "add", "server.py")
    passing = subprocess.run(command, cwd=repository, env=environment, capture_output=True, text=True)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout
