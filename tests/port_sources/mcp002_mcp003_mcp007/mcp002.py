"""Shapes for MCP002's twin (tests/port_checks/rules.py): where `ast` and LibCST's trees differ
in what the rule reads, with a registry beside it (its fixes)."""

# The shapes are the point.
# ruff: noqa
# fmt: off

import logging
import sqlite3
from typing import Annotated, List, Optional, Union

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

mcp = FastMCP("shapes")
NOTES: dict[int, str] = {}


@mcp.tool()
def one_line(note_id: int, labels: list[str] | None = None, kind: Optional[str] = None) -> str:
    if not isinstance(note_id, int): raise ValueError("Note is locked")
    if labels is not None and not isinstance(labels, list): raise TypeError("labels")
    if not isinstance(kind, str):
        raise ValueError("kind")
    if kind is not None and not isinstance(kind, (str, bytes)):
        raise ValueError("kind again")
    return "ok"


@mcp.tool()
def unions(a: Union[int, str], b: Union[(int, str)], c: Union[int, str,], d: Annotated[int, "x"], e: List[int]) -> str:
    if not isinstance(a, (int, str)):
        raise ValueError("a")
    if not isinstance(b, (int, str)):
        raise ValueError("b")
    if not isinstance(c, (int, str)):
        raise ValueError("c")
    if not isinstance(d, int):
        raise ValueError("d")
    if not isinstance(e, list):
        raise ValueError("e")
    if not isinstance(*e):
        raise ValueError("star")
    if not isinstance(None, int):
        raise ValueError("none")
    return "ok"


@mcp.tool()
def branches(flag: bool, count: int) -> str:
    if count > 1:
        pass
    elif not isinstance(flag, bool):
        raise ValueError("elif")
    else:
        if not isinstance(count, int):
            raise ValueError("else if")
    if not isinstance(flag, int):
        pass
    else:
        raise ValueError("in the else")
    if not isinstance(flag, bool) and (not isinstance(count, int) and count > 0):
        raise ValueError("nested and")
    return "ok"


@mcp.tool()
def arguments(note_id: int, *args, **kwargs) -> str:
    if note_id < 0:
        raise ValueError(*args)
    if note_id < 1:
        raise ValueError(**kwargs)
    if note_id < 2:
        raise ValueError(None)
    if note_id < 3:
        raise ValueError(f"Note {note_id} does not exist.", note_id)
    return "ok"


@mcp.tool()
def locals_in_clauses(note_id: int) -> str:
    message = f"Note {note_id} does not exist."
    try:
        return NOTES[note_id]
    except KeyError as e:
        message = f"Database error: {e}"
        raise RuntimeError(message)
    except IndexError as e:
        text = "Note is locked"
        raise RuntimeError(text)
    except OSError:
        raise RuntimeError(message)


@mcp.tool()
def mentions(note_id: int) -> str:
    try:
        return NOTES[note_id]
    except KeyError as e:
        raise RuntimeError(f"Database error: {note_id.e}")
    except IndexError as e:
        raise RuntimeError(f"Database error: {dict(e=1)}")
    except OSError as e:
        raise RuntimeError(f"Database error: {(lambda e: e)(1)}")
    except ValueError as e:
        raise RuntimeError(f"Database error: {e!r}") from e
    except TypeError as e:
        raise Exception(f"Upstream failed: {e}")
    except LookupError as e:
        raise RuntimeError(f"Note {NOTES.e} does not exist.")
    except ArithmeticError as e:
        raise RuntimeError(f"Note {dict(e=1)} does not exist.")
    except AttributeError as e:
        raise RuntimeError(f"Note {note_id} does not exist.")
    except StopIteration:
        kw = "Note is locked"
        raise RuntimeError(**kw)


def _removed_error(exc: Exception) -> RuntimeError:
    return RuntimeError(str(exc))


def _annotated_error(exc: Exception) -> ValueError:
    ...


def _made(exc):
    if exc:
        return ValueError("x")
    return builtins.KeyError("y")


@mcp.tool()
def factories(note_id: int) -> str:
    try:
        return NOTES[note_id]
    except KeyError as e:
        raise _removed_error(e)
    except IndexError as e:
        raise _annotated_error(e)
    except OSError as e:
        raise _made(e)


@mcp.tool()
def guarded(note_id: int) -> str:
    try:
        if note_id < 0:
            raise ValueError("Note is locked")
    except ValueError:
        return "no"
    return "ok"


@mcp.tool()
def logged(note_id: int) -> str:
    try:
        return NOTES[note_id]
    except sqlite3.Error as e:
        logging.exception("failed")
        raise RuntimeError(f"Database error: {e}")


@mcp.tool()
def caught_here(note_id: int) -> str:
    try:
        try:
            return NOTES[note_id]
        except KeyError as e:
            raise ValueError(f"Note {note_id} does not exist.")
    except Exception:
        return "no"


@mcp.tool()
def caught_as_registry_error(note_id: int) -> str:
    try:
        if note_id < 0:
            raise ValueError(f"Note {note_id} does not exist.")
    except ToolError:
        return "no"
    return "ok"


@mcp.tool()
def annotated_result(note_id: int) -> dict:
    if note_id < 0:
        raise ValueError(f"Note {note_id} does not exist.")
    raise ExceptionGroup("Note is locked", [])


class Handler:
    def check(self, value: int) -> None:
        if not isinstance(value, int):
            raise ValueError("Check failed")
        raise NotImplementedError
