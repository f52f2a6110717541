"""Shapes for MCP007's twin (tests/port_checks/rules.py): where `ast` and LibCST's trees differ
in what the rule reads, with a registry beside it (its fixes)."""

# The shapes are the point.
# ruff: noqa
# fmt: off

import logging

from mcp.server.fastmcp import FastMCP
from mcp.shared.exceptions import McpError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ErrorData
from mcp import MCPError
import mcp.types as types

mcp = FastMCP("shapes")
NOTES: dict[int, str] = {}


@mcp.tool()
def unknown_tools(name: str, args: list, kw: dict) -> str:
    if name == "a":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"Unknown tool: {name}"))
    if name == "b":
        raise McpError(ErrorData(code=INVALID_PARAMS, message="unknown " "tool"))
    if name == "c":
        raise McpError(ErrorData(code=INVALID_PARAMS, message="Unknown tool: " f"{name}"))
    if name == "d":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"Tool {name} " "not found"))
    if name == "e":
        raise McpError(ErrorData(code=INVALID_PARAMS, message="Unknown tool: %s" % name))
    if name == "f":
        raise McpError(ErrorData(code=INVALID_PARAMS, message="Unknown tool: {}".format(name)))
    if name == "g":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"Unknown\x20tool {name}"))
    if name == "h":
        raise McpError(ErrorData(code=INVALID_PARAMS, message="unknown\x20tool"))
    if name == "i":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=b"unknown tool"))
    if name == "j":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"{name!r:>{10}} tool {{not}} found"))
    if name == "k":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"tool {name:x} not found"))
    if name == "l":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"no such " "tool"))
    if name == "m":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=("no such tool"  # a comment
                                                               f" {name}")))
    if name == "q":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"tool {name!r}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx not found"))
    if name == "r":
        raise McpError(ErrorData(code=INVALID_PARAMS, message=f"tool {name:>{len(name)}}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx not found"))
    if name == "n":
        raise McpError(*args, message="Unknown tool")
    if name == "o":
        raise McpError(**kw)
    if name == "p":
        raise MCPError(-32602, f"No {'such'} tool {name}")
    return "ok"


@mcp.tool()
def codes(note_id: int, args: list, kw: dict) -> str:
    try:
        return NOTES[note_id]
    except KeyError as e:
        raise McpError(ErrorData(code=2001, message=f"Note {note_id} does not exist: {e}"))
    except IndexError as e:
        raise MCPError(-32602, str(e))
    except OSError as e:
        raise McpError(ErrorData(code=INVALID_PARAMS, message=str(e))) from e
    except ValueError as e:
        raise McpError(ErrorData(message=f"failed: {e}", code=-(2008)))
    except TypeError as e:
        raise MCPError(*args)
    except LookupError as e:
        raise MCPError(**kw)
    except AttributeError as e:
        raise MCPError(code=+2001, message="Note is locked")
    except RuntimeError as e:
        raise McpError(ErrorData(code=True, message="Database error"))
    except ArithmeticError as e:
        raise McpError(ErrorData(code=types.INVALID_PARAMS, message=f"{e}"))
    except Exception as e:
        raise McpError(ErrorData(INTERNAL_ERROR, "Unexpected error", code=1))


class NotFound(McpError):
    pass


class Deeper(NotFound):
    pass


@mcp.tool()
def locals_and_classes(note_id: int) -> str:
    if note_id < 0:
        error = McpError(ErrorData(code=2008, message="Note is locked"))
        raise error
    if note_id < 1:
        raise Deeper(ErrorData(code=2001, message="gone"))
    if note_id < 2:
        try:
            raise NotFound(ErrorData(code=2001, message="gone"))
        except (ValueError, NotFound):
            return "caught"
    if note_id < 3:
        try:
            raise Deeper(ErrorData(code=2001, message="gone"))
        except (ValueError, *NOTES):
            return "not caught"
        except McpError as e:
            raise e
    if note_id < 4:
        try:
            raise McpError(ErrorData(code=2001, message="gone"))
        except Exception as e:
            def inner():
                raise
            return "caught"
    if note_id < 5:
        try:
            raise McpError(ErrorData(code=2001, message="gone"))
        except McpError as e:
            logging.info("x")
            raise
    if note_id < 6:
        try:
            raise McpError(ErrorData(code=2001, message="gone"))
        except:
            return "bare"
    return "ok"


@mcp.tool()
def in_else(note_id: int) -> str:
    try:
        pass
    except McpError:
        return "no"
    else:
        raise McpError(ErrorData(code=2002, message="Database error"))
    finally:
        pass
