"""Notes MCP server: a small personal knowledge base exposed to LLM clients (stdio)."""

import functools
import json
import logging
import sqlite3
import sys
from collections.abc import Callable
from typing import Any

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.shared.exceptions import McpError
from mcp.types import INTERNAL_ERROR, ErrorData

from .config import settings
from .storage import Note, NoteNotFound, NoteStore

logger = logging.getLogger(__name__)

mcp = FastMCP("notes")
store = NoteStore(settings.db_path)


def handle_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """Log unexpected failures and report them to the client instead of crashing."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Exception as e:
            logger.exception("tool %s failed", func.__name__)
            return {"error": str(e)}

    return wrapper


def _summary(note: Note) -> dict[str, Any]:
    return {"id": note.id, "title": note.title, "tags": note.tags, "updated_at": note.updated_at}


def _check_limit(limit: int) -> int:
    if not 1 <= limit <= settings.max_search_results:
        raise ValueError(f"limit must be between 1 and {settings.max_search_results}")
    return limit


def _require_writable() -> None:
    if settings.read_only:
        raise RuntimeError("The notes store is mounted read-only")


@mcp.tool()
def create_note(title: str, body: str = "", tags: list[str] | None = None) -> dict[str, Any]:
    """Create a new note and return it."""
    title = title.strip()
    if not title:
        raise ToolError("Note title must not be empty")
    if len(title) > settings.max_title_length:
        raise ValueError(f"Title is longer than {settings.max_title_length} characters")
    _require_writable()
    try:
        note = store.add(title, body, tags or [])
    except sqlite3.Error as e:
        logger.error("could not insert note %r: %s", title, e)
        return {"success": False, "error": str(e)}
    return {"success": True, "note": note.to_dict(), "error": None}


@mcp.tool()
def get_note(note_id: int) -> dict[str, Any]:
    """Fetch a single note by id, including its body."""
    note = store.find(note_id)
    if note is None:
        return {"error": "Note not found"}
    return note.to_dict()


@mcp.tool(name="search")
def search_notes(query: str, limit: int = 20) -> list[dict[str, Any]]:
    """Search note titles and bodies. Archived notes are not included."""
    limit = _check_limit(limit)
    try:
        notes = store.search(query, limit=limit)
    except Exception as e:
        logger.warning("search for %r failed: %s", query, e)
        return []
    return [_summary(note) for note in notes]


@mcp.tool()
def update_note(note_id: int, body: str) -> str:
    """Replace the body of an existing note."""
    _require_writable()
    try:
        store.update(note_id, body=body)
    except NoteNotFound:
        raise
    except Exception as e:
        logger.exception("saving note %s failed", note_id)
        return f"Error: could not save note: {e}"
    return f"Note {note_id} saved"


@mcp.tool()
@handle_errors
def tag_note(note_id: int, tags: list[str]) -> dict[str, Any]:
    """Add tags to a note. Existing tags are kept."""
    note = store.get(note_id)
    merged = sorted(set(note.tags) | {tag.strip().lower() for tag in tags if tag.strip()})
    if len(merged) > settings.max_tags:
        raise Exception(f"A note can have at most {settings.max_tags} tags")
    note = store.update(note_id, tags=merged)
    return {"note_id": note.id, "tags": note.tags}


@mcp.tool()
def delete_note(note_id: int) -> str:
    """Permanently delete a note. Pinned notes must be unpinned first."""
    _require_writable()
    if store.get(note_id).pinned:
        raise RuntimeError(f"Note {note_id} is pinned; unpin it before deleting")
    if not store.delete(note_id):
        return "Failed to delete note"
    return f"Deleted note {note_id}"


def archive_note(note_id: int) -> dict[str, Any]:
    """Archive a note so that it no longer shows up in search results."""
    try:
        note = store.update(note_id, archived=True)
    except Exception as e:
        raise McpError(ErrorData(code=INTERNAL_ERROR, message=str(e)))
    return {"status": "archived", "note": _summary(note)}


mcp.tool(name="archive_note")(archive_note)


@mcp.resource("notes://{note_id}")
def read_note(note_id: str) -> str:
    """A single note rendered as Markdown."""
    note = store.find(int(note_id))
    if note is None:
        raise NoteNotFound(note_id)
    return note.to_markdown()


@mcp.prompt()
def summarize_note(note_id: int) -> str:
    """Ask the model for a short summary of one note."""
    note = store.get(note_id)
    return f"Summarize this note in at most three bullet points.\n\n# {note.title}\n\n{note.body}"


def debug_lookup(note_id: int) -> dict[str, Any]:
    """Return the stored fields of a note, for troubleshooting from the command line."""
    note = store.find(note_id)
    if note is None:
        return {"error": f"no note with id {note_id} in {settings.db_path}"}
    return note.to_dict()


def main() -> None:
    logging.basicConfig(level=settings.log_level)
    if len(sys.argv) == 3 and sys.argv[1] == "--debug-note":
        print(json.dumps(debug_lookup(int(sys.argv[2])), indent=2))
    else:
        mcp.run()


if __name__ == "__main__":
    main()
