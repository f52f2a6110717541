"""The README's migration walkthrough on the bundled example, proven on the wire.

A copy of `examples/notes_server` (without its registry, helpers and `pins.py`)
is migrated as the README says (`migrate --write`, then `check` finds only storage.py's library
sites), then both servers of the copy
run in-process in the mcp 1.x SDK's venv and the SDK's own client calls the
tools whose errors were rewritten. Before the migration those answers were fake
successes or bare text; after it they are `isError` results carrying the
registry's code, symbol and `retryable`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from real_servers import CLIENT_SCRIPT
from sdk_venvs import STACKS_BY_NAME, venv_python
from test_cli import run_cli

from mcplint.registry import load_registry

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def call(root: Path, server_object: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("MCP_ERROR", "PYTHON"))}
    environment.update(PYTHONPATH=str(root), NOTES_DB=str(root / "notes.db"))
    completed = subprocess.run(
        [str(venv_python(STACKS_BY_NAME["mcp1"])), str(CLIENT_SCRIPT), server_object, tool, json.dumps(arguments)],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)["record"]


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> tuple[Path, Path]:
    """(the example as shipped, the example migrated as the README says)."""
    original = tmp_path_factory.mktemp("original")
    shutil.copytree(EXAMPLES / "notes_server", original / "notes_server")
    migrated = tmp_path_factory.mktemp("migrated")
    shutil.copytree(EXAMPLES / "notes_server", migrated / "notes_server")
    for name in ("errors.py", "pins.py"):
        (migrated / "notes_server" / name).unlink()
    assert run_cli("migrate", "--write", ".", cwd=migrated).exit_code == 0
    check = run_cli("check", "--format", "json", ".", cwd=migrated)  # only storage.py's library sites are left
    assert check.exit_code == 1
    assert {finding["filename"] for finding in json.loads(check.stdout)} == {"notes_server/storage.py"}
    return original, migrated


def registered(root: Path, symbol: str) -> tuple[int, str, bool]:
    (entry,) = (e for e in load_registry(str(root / "mcp-errors.toml")).errors if e.symbol == symbol)
    return entry.code, entry.symbol, entry.retryable  # type: ignore[return-value]


def structured_error(record: dict[str, Any]) -> tuple[int, str, bool]:
    assert record["kind"] == "result" and record["isError"] is True, record
    error = record["structuredContent"]["error"]
    return error["code"], error["symbol"], error["retryable"]


def test_a_missing_note_was_a_fake_success_and_is_now_a_registered_error(servers):
    original, migrated = servers
    before = call(original, "notes_server.server:mcp", "get_note", {"note_id": 99})
    assert before["isError"] is False and before["structuredContent"] == {"error": "Note not found"}
    after = call(migrated, "notes_server.server:mcp", "get_note", {"note_id": 99})
    assert structured_error(after) == registered(migrated, "NOTE_NOT_FOUND")
    assert after["structuredContent"]["error"]["message"] == "Note not found"


def test_the_low_level_dispatcher_s_unknown_tool_was_bare_text_and_is_now_a_registered_error(servers):
    original, migrated = servers
    before = call(original, "notes_server.lowlevel:server", "nope", {})
    assert before["isError"] is True and before["structuredContent"] is None
    after = call(migrated, "notes_server.lowlevel:server", "nope", {})
    assert structured_error(after) == registered(migrated, "UNKNOWN_TOOL")
    assert after["structuredContent"]["error"]["message"] == "Unknown tool: nope"


def test_a_purge_argument_error_was_a_fake_success_and_is_now_a_registered_error(servers):
    original, migrated = servers
    before = call(original, "notes_server.lowlevel:server", "purge_archive", {"older_than_days": 0})
    assert before["isError"] is False
    after = call(migrated, "notes_server.lowlevel:server", "purge_archive", {"older_than_days": 0})
    # A function the dispatcher calls raises: mcp 1.x's low-level server sends its text form as text.
    assert after["isError"] is True
    [text] = after["content"]
    first_line, *rest = text.split("\n")
    assert re.fullmatch(r"[A-Z_]+ \(\d+\): older_than_days must be at least 1", first_line), text
    assert rest[-1].startswith("Recovery: ")
