"""`mcplint migrate` fills each new entry's category, retryable and recovery, and takes hints
only from what the source itself says."""

from __future__ import annotations

import pytest
from test_cli import run_cli

from mcplint.migrate_envelope import category_for, recovery_for, retryable_for
from mcplint.registry import check_registry
from mcplint.registry.load import load_registry


@pytest.mark.parametrize(
    ("message", "dependency", "category", "recovery"),
    [
        ("Search notes failed", True, "UNAVAILABLE", "retry-later"),
        ("Invalid parameters", False, "INVALID_ARGUMENT", "check-input"),
        ("Note {note_id} not found", False, "NOT_FOUND", "check-input"),
        ("Unknown tool: {name}", False, "NOT_FOUND", "check-input"),
        ("Limit must be between 1 and {max}", False, "INVALID_ARGUMENT", "check-input"),
        ("Title is longer than {n} characters", False, "INVALID_ARGUMENT", "check-input"),
        ("Note {id} already exists", False, "ALREADY_EXISTS", "check-input"),
        ("Unsupported export format: {fmt}", False, "UNIMPLEMENTED", "try-alternative"),
        ("The upstream request timed out", False, "DEADLINE_EXCEEDED", "try-alternative"),
        ("Permission denied", False, "PERMISSION_DENIED", "report-to-user"),
        ("Could not save note", False, None, "report-to-user"),
    ],
)
def test_the_category_and_its_recovery(message, dependency, category, recovery):
    assert category_for(message, dependency) == category
    assert recovery_for(category) == recovery
    assert retryable_for(category) is (category == "UNAVAILABLE")


SERVER = '''\
import logging

from mcp.server.fastmcp import FastMCP

logger = logging.getLogger(__name__)
mcp = FastMCP("notes")
NOTES: dict[int, str] = {}


def _search(query: str) -> list[str]:
    raise OSError(query)


@mcp.tool()
def get_note(note_id: int) -> dict:
    if note_id not in NOTES:
        return {"error": "Note not found", "hint": "List the notes to find an existing id."}
    return {"text": NOTES[note_id]}


@mcp.tool()
def rename_note(note_id: int, title: str) -> dict:
    if not title:
        return {"error": "Title is required", "suggestion": 'Send status="draft" to keep it untitled.'}
    if len(title) > 80:
        return {"error": "Title too long", "hint": f"Keep it under {80} characters."}
    return {"ok": True}


@mcp.tool()
def search_notes(query: str) -> list[str]:
    try:
        return _search(query)
    except OSError:
        logger.exception("search failed")
        return []
'''


def test_migrate_writes_recovery_from_the_category_and_only_the_source_s_general_hints(tmp_path):
    (tmp_path / "server.py").write_text(SERVER)
    assert run_cli("migrate", "--write", ".", cwd=tmp_path).exit_code == 0
    registry = tmp_path / "mcp-errors.toml"
    entries = {entry.symbol: entry for entry in load_registry(str(registry)).errors}
    found = entries["NOTE_NOT_FOUND"]
    assert (found.category, found.retryable, found.recovery) == ("NOT_FOUND", False, "check-input")
    assert found.hints == ("List the notes to find an existing id.",)  # the payload said it
    required = entries["TITLE_IS_REQUIRED"]
    assert (required.recovery, required.hints) == ("check-input", None)  # a quoted value prescribes
    too_long = entries["TITLE_TOO_LONG"]
    assert too_long.hints is None  # an f-string hint carries a value
    search = entries["SEARCH_NOTES_FAILED"]  # MCP005: a dependency failed behind an empty list
    assert (search.category, search.retryable, search.recovery) == ("UNAVAILABLE", True, "retry-later")
    assert 'raise server_error("SEARCH_NOTES_FAILED")' in (tmp_path / "server.py").read_text()
    assert check_registry(str(registry)) == []
    rewritten = (tmp_path / "server.py").read_text()
    # The hint is the entry's now: said once, in `data.hints`, not again in `details`.
    assert 'return server_error("NOTE_NOT_FOUND").tool_result()' in rewritten
    assert "details={\"suggestion\": 'Send status=" in rewritten  # not the registry's: kept
