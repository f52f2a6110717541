"""Pinning notes: tools written against the registry's generated helpers."""

from __future__ import annotations

import sqlite3
from enum import IntEnum
from typing import Any

from mcp.types import CallToolResult

from .errors import BatchResult, notes_error
from .server import mcp, store


class PinErrorCode(IntEnum):
    """Codes the old pinning API answered with (kept for the web client)."""

    NOTE_NOT_FOUND = 1004
    NOTE_LOCKED = 1002
    PIN_LIMIT = 1002


MAX_PINNED = 10


@mcp.tool()
def pin_note(note_id: int) -> Any:  # mcp 1.x refuses `CallToolResult | str`; `Any` passes both
    """Pin a note so it stays on top of every listing."""
    if store.find(note_id) is None:
        return notes_error("NOTE_NOT_FOUND", note_id=note_id).tool_result()
    if len(store.search("pinned:true", limit=MAX_PINNED + 1)) > MAX_PINNED:
        raise notes_error("PIN_LIMIT_REACHED", note_id=note_id)
    store.update(note_id, pinned=True)
    return f"Pinned note {note_id}"


@mcp.tool()
def unpin_note(note_id: int) -> Any:
    """Unpin a note."""
    if store.find(note_id) is None:
        return notes_error("NOTE_NOT_FOUND", note_id=note_id).tool_result()
    store.update(note_id, pinned=False)
    return f"Unpinned note {note_id}"


@mcp.tool()
def pin_notes(note_ids: list[int]) -> CallToolResult:
    """Pin several notes; the result says, note by note, what happened."""
    batch = BatchResult()
    for index, note_id in enumerate(note_ids):
        try:
            found = store.find(note_id) is not None
            if found:
                store.update(note_id, pinned=True)
        except sqlite3.Error:
            # The store is down: this note failed, the others were not attempted.
            batch.failed(index, notes_error("STORE_UNAVAILABLE"))
            for later in range(index + 1, len(note_ids)):
                batch.skipped(later, "Not attempted: the notes store is unavailable.")
            break
        if found:
            batch.applied(index)
        else:
            batch.failed(index, notes_error("NOTE_NOT_FOUND", note_id=note_id))
    return batch.tool_result()
