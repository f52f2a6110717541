"""Admin MCP server for the notes store (bulk operations), on the low-level ``Server`` API."""

import asyncio
import json
import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from .config import settings
from .storage import NoteNotFound, NoteStore, load_all

logger = logging.getLogger(__name__)

server = Server("notes-admin")
store = NoteStore(settings.db_path)


def _schema(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or []}


TOOLS = [
    types.Tool(name="export_notes", description="Export all notes as JSON or Markdown.",
               inputSchema=_schema({"format": {"type": "string"}})),
    types.Tool(name="import_notes", description="Import notes from a JSON file on the server.",
               inputSchema=_schema({"path": {"type": "string"}}, ["path"])),
    types.Tool(name="purge_archive", description="Delete archived notes older than N days.",
               inputSchema=_schema({"older_than_days": {"type": "integer"}})),
    types.Tool(name="restore_note", description="Move an archived note back to the active notes.",
               inputSchema=_schema({"note_id": {"type": "integer"}}, ["note_id"])),
]


def handle_export(arguments: dict[str, Any]) -> str:
    fmt = arguments.get("format", "json")
    if fmt not in ("json", "markdown"):
        return json.dumps({"error": f"Unsupported export format: {fmt}"})
    notes = load_all(settings.db_path)
    if fmt == "markdown":
        return "\n---\n\n".join(note.to_markdown() for note in notes)
    return json.dumps([note.to_dict() for note in notes], indent=2)


def handle_import(arguments: dict[str, Any]) -> dict[str, Any]:
    path = arguments["path"]
    result: dict[str, Any]
    try:
        with open(path, encoding="utf-8") as fh:
            records = json.load(fh)
    except (OSError, json.JSONDecodeError) as e:
        logger.error("cannot read import file %s: %s", path, e)
        result = {"error": f"Could not read import file {path}"}
    else:
        for record in records:
            store.add(record["title"], record.get("body", ""), record.get("tags", []))
        result = {"imported": len(records), "errors": []}
    return result


def handle_purge(arguments: dict[str, Any]) -> list[types.TextContent] | dict[str, Any]:
    days = int(arguments.get("older_than_days", 30))
    if days < 1:
        return {"status": "error", "message": "older_than_days must be at least 1"}
    cutoff = (datetime.now(timezone.utc) - timedelta(days=days)).isoformat(timespec="seconds")
    try:
        removed = store.purge_archived(cutoff)
    except Exception as e:
        logger.exception("purge failed")
        return [types.TextContent(type="text", text=f"Error: {e}")]
    return [types.TextContent(type="text", text=f"Removed {removed} archived notes")]


def handle_restore(arguments: dict[str, Any]) -> types.CallToolResult | list[types.TextContent]:
    note_id = int(arguments["note_id"])
    try:
        note = store.update(note_id, archived=False)
    except NoteNotFound:
        return types.CallToolResult(isError=True, content=[types.TextContent(type="text", text="Note not found")])
    except Exception as e:
        return [types.TextContent(type="text", text=f"Error: restore failed: {e}")]
    return [types.TextContent(type="text", text=f"Restored note {note.id}: {note.title}")]


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return TOOLS


@server.call_tool()
async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
    if name == "export_notes":
        return [types.TextContent(type="text", text=handle_export(arguments))]
    elif name == "import_notes":
        return handle_import(arguments)
    elif name == "purge_archive":
        return handle_purge(arguments)
    elif name == "restore_note":
        return handle_restore(arguments)
    raise ValueError(f"Unknown tool: {name}")


async def main() -> None:
    logging.basicConfig(level=settings.log_level)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    asyncio.run(main())
