"""MCP010's fix, run: the fixed tool answers a partial failure the model can see.

A batch tool that dropped failed items is fixed (`check --unsafe-fixes`, against the fix
snapshots' registry), its helpers are generated, and the mcp 1.x SDK's own client calls
it in-process: where it answered `{"notes": [...]}` with one note silently missing, it
now says which item failed, and it is an `isError` result when every item failed.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from real_servers import CLIENT_SCRIPT
from sdk_venvs import STACKS_BY_NAME, venv_python

from mcplint.config import FileSettings
from mcplint.engine.fixer import fix_text
from mcplint.registry.codegen import generate_helpers
from mcplint.registry.load import load_registry
from mcplint.rules import RULES_BY_CODE

pytestmark = pytest.mark.slow

REGISTRY = Path(__file__).resolve().parents[1] / "fixtures" / "registry" / "fixes.toml"
SOURCE = '''\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")


def load_note(note_id: int) -> dict:
    if note_id % 2 == 0:
        raise OSError(f"/srv/notes/{note_id} is unreadable")
    return {"id": note_id}


@mcp.tool()
def read_notes(note_ids: list[int]) -> dict:
    notes = []
    for note_id in note_ids:
        try:
            notes.append(load_note(note_id))
        except OSError:
            continue
    return {"notes": notes}
'''


@pytest.fixture(scope="module")
def fixed_server(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mcp010")
    settings = FileSettings(codes=frozenset(RULES_BY_CODE), registry=str(REGISTRY))
    outcome = fix_text(SOURCE, "server.py", settings, unsafe=True)
    assert outcome.failure is None and not [f for f in outcome.remaining if f.code == "MCP010"]
    (root / "server.py").write_text(outcome.text)
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "errors.py").write_text(generate_helpers(load_registry(str(REGISTRY)), "mcp1"))
    return root


def call(root: Path, note_ids: list[int]) -> dict[str, Any]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("MCP_ERROR", "PYTHON"))}
    environment["PYTHONPATH"] = str(root)
    completed = subprocess.run(
        [str(venv_python(STACKS_BY_NAME["mcp1"])), str(CLIENT_SCRIPT), "server:mcp", "read_notes",
         json.dumps({"note_ids": note_ids})],
        cwd=root, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)["record"]


FAILED_ITEM = {
    "status": "failed",
    "symbol": "BATCH_ITEM_FAILED",
    "code": 2011,
    "message": "The item could not be processed.",
    "retryable": False,
    "recovery": "try-alternative",
}


def test_a_partial_failure_names_the_failed_item(fixed_server):
    record = call(fixed_server, [1, 2, 3])
    assert record["isError"] is False
    assert record["content"][0] == (
        "3 items: 2 applied, 1 failed, 0 skipped.\n"
        "[1] failed: BATCH_ITEM_FAILED (2011): The item could not be processed.\n"
        "  Recovery: try-alternative."
    )
    assert record["structuredContent"] == {
        "total": 3,
        "applied": 2,
        "failed": 1,
        "skipped": 0,
        "items": [{"index": 0, "status": "applied"}, {"index": 1, **FAILED_ITEM}, {"index": 2, "status": "applied"}],
        "result": {"notes": [{"id": 1}, {"id": 3}]},
    }
    assert "/srv/notes" not in json.dumps(record)  # the exception's text stays off the wire


def test_nothing_succeeded_is_an_error(fixed_server):
    record = call(fixed_server, [2, 4])
    assert record["isError"] is True
    assert record["structuredContent"]["failed"] == 2
    assert record["structuredContent"]["result"] == {"notes": []}
