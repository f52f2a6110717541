"""MCP006's shapes with a registry beside them (its fixes, the migration's messages), for its
`ast` twin's check (tests/port_checks/rules.py): f-string parts, a message's arguments, nested
clauses, the logging a fix adds."""

# The shapes are the point: raises without `from`, names never defined or read.
# ruff: noqa: B904, F821, F841

import logging
import sqlite3
import traceback

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError

from .errors import ProjectError

logger = logging.getLogger(__name__)
mcp = FastMCP("notes")


@mcp.tool()
def count_notes(folder: str) -> int:
    try:
        with sqlite3.connect("/srv/notes.db") as conn:
            return conn.execute("SELECT count(*) FROM notes WHERE folder = ?", (folder,)).fetchone()[0]
    except sqlite3.Error as e:
        raise ToolError(f"Database error: {e}") from e


@mcp.tool()
def count_notes_spec(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        raise ToolError(f"Database error: {e!r:>{40}} and " "more " f"{e}")


@mcp.tool()
def count_notes_nested(folder: str) -> str:
    try:
        try:
            return open(folder).read()
        except OSError as e:
            raise ToolError("Database error: " + str(e)) from e
    except Exception:
        return "no"


@mcp.tool()
def outer_clause_wins(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as outer:
        try:
            return open(folder + ".bak").read()
        except OSError as inner:
            return f"backup failed: {inner}"


# The outer clause is the one read (the first in the walk's order), and it logs already.
@mcp.tool()
def outer_clause_logs(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError:
        logger.exception("reading failed")
        try:
            return open(folder + ".bak").read()
        except OSError as inner:
            return f"backup failed: {inner}"


@mcp.tool()
def logged_once(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        return str(e) + repr(e) + f"{e}"


@mcp.tool()
def already_logs(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        logger.exception("failed")
        return f"failed: {e}"


@mcp.tool()
def message_keyword(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        raise ToolError(code=1, message=f"Database error: {e}")


@mcp.tool()
def code_and_message(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        raise McpError(ErrorData(code=-1, message=str(e)))


@mcp.tool()
def starred_message(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        raise ToolError(*[str(e)], **{"x": 1})


@mcp.tool()
def double_starred_message(folder: str, extra: dict) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        raise ToolError(f"Database error: {e}", **extra)


@mcp.tool()
def project_class(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        raise ProjectError(f"Database error: {e}") from e


@mcp.tool()
def odd_stringifiers(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        return str(object=e) + str(*[e]) + format(e) + e.args[0]


@mcp.tool()
async def traceback_sent(folder: str, ctx: Context) -> str:
    try:
        return open(folder).read()
    except OSError:
        await ctx.error(traceback.format_exc())
        return "no"


@mcp.tool()
def own_text(value: str) -> str:
    try:
        if not value:
            raise ValueError("The value must not be empty")
        return value
    except ValueError as exc:
        return f"bad value: {exc}"


def format_error(e: Exception) -> str:
    return f"failed: {e}"


@mcp.tool()
def through_helper(folder: str) -> str:
    try:
        return open(folder).read()
    except OSError as e:
        return format_error(e)
