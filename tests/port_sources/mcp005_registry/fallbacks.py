"""MCP005's shapes with a registry beside them (its fixes, the migration's messages), for its
`ast` twin's check (tests/port_checks/rules.py): where the trees differ in what it reads."""

# The shapes are the point: old-style annotations, names the rule reads that are no names in
# `ast` (an attribute's, a keyword's), a clause binding what it never reads.
# ruff: noqa: F401, F821, F841, UP007, UP045

import logging
from typing import Optional, Union

from mcp.server.fastmcp import FastMCP

logger = logging.getLogger(__name__)
mcp = FastMCP("notes")


def _search(query: str) -> list[str]:
    raise OSError(query)


@mcp.tool()
def search_notes(query: str) -> list[str]:
    try:
        return _search(query)
    except OSError as e:
        logger.warning("search for %r failed: %s", query, e)
        return []


@mcp.tool()
def read_note(note_id: int) -> str:
    try:
        return _search(str(note_id))[0]
    except (OSError, ValueError):
        return ""


@mcp.resource("notes://recent")
def recent_notes() -> list[str]:
    try:
        return _search("recent")
    except OSError:
        return []


# A `try` of the function around it would catch a raise: only the returned result.
@mcp.tool()
def search_notes_again(query: str) -> dict:
    try:
        try:
            return {"rows": _search(query)}
        except OSError as e:
            return {}
    except Exception:
        raise


@mcp.tool()
async def search_notes_later(query: str) -> "list[str] | None":
    try:
        return _search(query)
    except OSError:
        return None


def helper_read(path: str) -> Optional[str]:
    try:
        return _search(path)[0]
    except OSError:
        return None


def helper_union(path: str) -> Union[str, None]:
    try:
        return _search(path)[0]
    except OSError:
        return None


def helper_union_parenthesised(path: str) -> Union[(str, None)]:
    try:
        return _search(path)[0]
    except OSError:
        return None


def helper_bar(path: str) -> str | None:
    try:
        return _search(path)[0]
    except OSError:
        return None


def helper_quoted(path: str) -> "str" "| None":
    try:
        return _search(path)[0]
    except OSError:
        return None


@mcp.tool()
def uses_helpers(path: str) -> str:
    return (
        helper_read(path) or helper_union(path) or helper_union_parenthesised(path) or helper_bar(path)
        or helper_quoted(path) or ""
    )


@mcp.tool()
def flagged(path: str, strict=False, *, loud: bool = True) -> list[str]:
    try:
        return _search(path)
    except OSError:
        if strict or not loud:
            raise
        return []


@mcp.tool()
def flagged_attribute(path: str, strict=False) -> list[str]:
    try:
        return _search(path)
    except OSError:
        if options.strict:
            raise
        return []


@mcp.tool()
def looks_up_module(path: str) -> list[str]:
    try:
        import os.path

        return _search(path)
    except AttributeError:
        return []


@mcp.tool()
def looks_up_from(path: str) -> list[str]:
    try:
        from collections.abc import Mapping

        return _search(str(Mapping))
    except AttributeError:
        return []


@mcp.tool()
def answered(path: str) -> dict:
    rows = []
    try:
        rows = _search(path)
    except OSError:
        logger.warning("no rows")
    if not self.rows:
        raise ValueError("nothing")
    return {"rows": rows}


@mcp.tool()
def answered_by_keyword(path: str) -> dict:
    rows = []
    try:
        rows = _search(path)
    except OSError:
        logger.warning("no rows")
    if check(rows=None):
        raise ValueError("nothing")
    return {"rows": rows}


@mcp.tool()
def answered_none(path: str) -> dict:
    text = ""
    try:
        text = _search(path)[0]
    except OSError:
        text = None
    if text is None:
        return "Error: nothing"
    return {"text": text}


@mcp.tool()
def generator_yields_from(path: str):
    try:
        yield from _search(path)
    except OSError:
        return []


@mcp.tool()
def falls_through(path: str) -> list:
    try:
        found = _search(path)
    except OSError:
        pass
    return []


@mcp.tool()
def long_value(path: str) -> dict:
    try:
        return _search(path)
    except OSError:
        return {"a_rather_long_key": [], "another_long_key": {}, "third": ""}
