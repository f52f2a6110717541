"""What the model receives from the example server, as the README shows it.

The example server (`examples/notes_server`, mcp 1.x) runs in the mcp 1.x SDK's venv
and the SDK's own client calls `pin_note` for a missing note (one registered error)
and `pin_notes` for three notes of which one is missing (a partial failure). The
README's blocks marked `<!-- example-wire: NAME -->` must be exactly what the client
received (the text content and the structured content), so they cannot drift.
Then the store goes down mid-batch: the rest of the batch is skipped, and the model
reads when to retry.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from real_servers import CLIENT_SCRIPT
from sdk_venvs import STACKS_BY_NAME, venv_python

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SERVER = "notes_server.pins:mcp"


def readme_block(name: str) -> str:
    """The fenced block right after `<!-- example-wire: NAME -->` in the README."""
    match = re.search(rf"<!-- example-wire: {re.escape(name)} -->\n```\w*\n(.*?)```", README, re.S)
    assert match, f"the README has no block marked example-wire: {name}"
    return match.group(1)


def call(root: Path, tool: str, arguments: dict[str, Any], database: Path) -> dict[str, Any]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("MCP_ERROR", "PYTHON"))}
    environment.update(PYTHONPATH=str(root), NOTES_DB=str(database))
    completed = subprocess.run(
        [str(venv_python(STACKS_BY_NAME["mcp1"])), str(CLIENT_SCRIPT), SERVER, tool, json.dumps(arguments)],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)["record"]


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> tuple[Path, Path]:
    """A copy of the example server and a database with notes 1 and 2."""
    root = tmp_path_factory.mktemp("example")
    shutil.copytree(ROOT / "examples" / "notes_server", root / "notes_server")
    database = root / "notes.db"
    sys.path.insert(0, str(root / "notes_server"))
    try:
        from storage import NoteStore  # the example's storage layer imports no MCP SDK
    finally:
        sys.path.pop(0)
    store = NoteStore(database)
    store.add("Groceries")
    store.add("Reading list")
    store.conn.close()
    return root, database


def test_one_error_as_the_readme_shows_it(example):
    root, database = example
    record = call(root, "pin_note", {"note_id": 99}, database)
    assert record["isError"] is True
    text, json_text = record["content"]
    assert text + "\n" == readme_block("pin_note text")
    assert record["structuredContent"] == json.loads(readme_block("pin_note structure"))
    assert json.loads(json_text) == record["structuredContent"]


def test_one_partial_failure_as_the_readme_shows_it(example):
    root, database = example
    record = call(root, "pin_notes", {"note_ids": [1, 99, 2]}, database)
    assert record["isError"] is False  # two of the three notes were pinned
    text, json_text = record["content"]
    assert text + "\n" == readme_block("pin_notes text")
    assert record["structuredContent"] == json.loads(readme_block("pin_notes structure"))
    assert json.loads(json_text) == record["structuredContent"]


def test_when_the_store_is_down_the_rest_is_skipped_and_the_model_reads_when_to_retry(example, tmp_path):
    root, _ = example
    record = call(root, "pin_notes", {"note_ids": [1, 2]}, tmp_path)  # a directory: SQLite cannot open it
    assert record["isError"] is True  # nothing was pinned
    assert record["content"][0] == (
        "2 items: 0 applied, 1 failed, 1 skipped.\n"
        "[0] failed: STORE_UNAVAILABLE (1003): The notes store is unavailable.\n"
        "  Recovery: retry-later, after 2000 ms.\n"
        "[1] skipped: Not attempted: the notes store is unavailable."
    )
    failed, skipped = record["structuredContent"]["items"]
    assert (failed["symbol"], failed["retryable"], failed["recovery"], failed["retryAfterMs"]) == (
        "STORE_UNAVAILABLE",
        True,
        "retry-later",
        2000,
    )
    assert skipped == {"index": 1, "status": "skipped", "message": "Not attempted: the notes store is unavailable."}
