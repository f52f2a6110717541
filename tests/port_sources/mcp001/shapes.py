"""Shapes MCP001's twin reads (tests/port_checks/rules.py), with a registry beside them so
that the fixes are built: a clause's last assignment returned right after its `try`
(alone on its line or not, after a colon or not, with a `finally`), `;`-joined lines, the
return annotations a fix reads, clauses that log or not, `try`s that would catch a raise,
the details a dict keeps, messages of every kind, texts handed on, own raises, forwarded
errors, items set, error helpers and pass-through helpers."""
# ruff: noqa: E701, E702, E731, F841, UP045

import json
import logging
from typing import Optional

import orjson
from mcp.server.fastmcp import FastMCP
from mcp.types import TextContent

log = logging.getLogger(__name__)
mcp = FastMCP("shapes")
NOTES: dict[int, str] = {}


@mcp.tool()
def clause_result(note_id: int) -> dict:
    try:
        body = NOTES[note_id]
    except KeyError as e:
        result = {"error": "Read note failed", "note_id": note_id, "why": str(e)}
    return result


@mcp.tool()
def clause_result_joined(note_id: int) -> dict:
    try:
        body = NOTES[note_id]
    except KeyError:
        log.info("missing"); result = {"error": "Read note failed"}
    return result


@mcp.tool()
def clause_result_after_colon(note_id: int) -> dict:
    try:
        body = NOTES[note_id]
    except KeyError: result = {"error": "Read note failed"}
    return result


@mcp.tool()
def clause_result_with_finally(note_id: int) -> dict:
    try:
        body = NOTES[note_id]
    except KeyError:
        result = {"error": "Read note failed"}
    finally:
        log.info("done")
    return result


@mcp.tool()
def clause_result_then_joined_return(note_id: int) -> dict:
    try:
        body = NOTES[note_id]
    except KeyError:
        result = {"error": "Read note failed"}
    log.info("after"); return result


@mcp.tool()
def clause_result_return_later(note_id: int) -> dict:
    try:
        body = NOTES[note_id]
    except KeyError:
        result = {"error": "Read note failed"}
    log.info("after")
    return result


@mcp.tool()
def clause_result_in_branch(note_id: int, fast: bool) -> dict:
    if fast:
        return {"note": NOTES.get(note_id)}
    else:
        try:
            body = NOTES[note_id]
        except (KeyError, IndexError) as exc:
            result = {"error": f"Read note failed: {exc}", "exc": exc}
        return result


@mcp.tool()
def clause_result_suite_return(note_id: int, fast: bool) -> dict:
    try:
        body = NOTES[note_id]
    except KeyError:
        result = {"error": "Read note failed"}
    if fast: return result
    return {"note": body}


@mcp.tool()
def clause_result_in_match(note_id: int, mode: str) -> dict:
    match mode:
        case "read":
            try:
                body = NOTES[note_id]
            except KeyError:
                result = {"error": "Read note failed"}
            return result
        case _:
            return {"mode": mode}


@mcp.tool()
def as_text(note_id: int) -> str:
    if note_id < 0:
        return {"error": "Database error"}
    return NOTES[note_id]


@mcp.tool()
def optional_dict(note_id: int) -> Optional[dict]:
    if note_id < 0:
        return {"error": "Database error"}
    return None


@mcp.tool()
def union_annotation(note_id: int) -> dict | str:
    if note_id < 0:
        return {"error": "Database error"}
    return NOTES[note_id]


@mcp.tool()
def string_annotation(note_id: int) -> "dict":
    if note_id < 0:
        return {"error": "Database error"}
    return {}


@mcp.tool()
async def async_tool(note_id: int):
    try:
        return {"note": NOTES[note_id]}
    except KeyError as e:
        log.exception("failed")
        return {"error": f"Database error: {e}"}


@mcp.tool()
def caught_around(note_id: int) -> dict:
    try:
        if note_id < 0:
            return {"error": "Database error", "hint": "List the notes first."}
        return {"note": NOTES[note_id]}
    except Exception:
        return {"note": None}


@mcp.tool()
def passed_on_around(note_id: int) -> dict:
    try:
        if note_id < 0:
            return {"error": "Database error"}
        return {"note": NOTES[note_id]}
    except Exception:
        raise


@mcp.tool()
def messages(kind: int) -> dict:
    if kind == 1:
        return {"error": "Database " "error"}
    if kind == 2:
        return {"message": "Unexpected error", "status": "error"}
    if kind == 3:
        return {"error": None, "message": "Read note failed", "success": False}
    if kind == 4:
        return {"error": b"Database error"}
    if kind == 5:
        return {"errors": ["Database error"], "message": "Database error"}
    if kind == 6:
        return {"error": True, "message": "Database error"}
    if kind == 7:
        return {"error": "Unsupported format: " + str(kind), "fmt": kind}
    if kind == 8:
        return {"error": f"Unsupported format: {kind}", "fmt": kind, b"raw": 1, "a" "b": 2, **NOTES}
    if kind == 9:
        return {"success": False, "err" "or": "Database error", "message": "Read note failed"}
    return {"ok": True}


@mcp.tool()
def texts(kind: int) -> list:
    try:
        if kind == 1:
            return [TextContent(type="text", text="Error: Database error")]
        if kind == 2:
            return [TextContent(type="text", text=f"Failed to read note {kind}", error=True)]
        return [TextContent(type="text", text=str(kind))]
    except ValueError as e:
        return [TextContent(type="text", text=f"Read failed: {e}")]


@mcp.tool()
def text_result(kind: int) -> str:
    try:
        return NOTES[kind]
    except KeyError as e:
        return str(e)
    except ValueError as e:
        return f"{e!r}"
    except OSError as e:
        message = f"Could not read: {e}"
        return message


def _finish(text: str) -> str:
    return f"{text}\n\nTry again."


def _finish_debug(text: str) -> str:
    return f"{text}: {text!r:>10}"


def _finish_concatenated(text: str) -> str:
    return f"{text}" "!"


def _finish_either(text: str, loud: bool) -> str:
    return text.upper() if loud else text


def _finish_plain(text: str) -> str:
    return text + "."


@mcp.tool()
def handed_on(kind: int) -> str:
    try:
        return NOTES[kind]
    except KeyError as exc:
        return _finish(str(exc))
    except ValueError as exc:
        return _finish_debug(f"Read note failed: {exc}")
    except OSError as exc:
        return _finish_concatenated(str(exc))
    except TypeError as exc:
        return _finish_either(repr(exc), False)
    except LookupError as exc:
        return _finish_plain("Unexpected error: " + str(exc))
    except RuntimeError as exc:
        return _finish(*[str(exc)])
    except ArithmeticError as exc:
        return _finish(text=str(exc))


@mcp.tool()
def own_raise(title: str) -> dict:
    try:
        if not title:
            raise ValueError("The title must not be empty")
        return {"title": title}
    except ValueError as e:
        return {"error": str(e)}


@mcp.tool()
def own_raise_handed(title: str) -> str:
    try:
        if not title:
            raise ValueError("The title must not be empty")
        return title
    except ValueError as e:
        return _finish(str(e))


def lookup(note_id: int) -> dict:
    if note_id < 0:
        return {"error": "Read note failed"}
    return {"note": NOTES.get(note_id)}


@mcp.tool()
def forwards(note_id: int) -> str:
    result = lookup(note_id)
    if "error" in result:
        return json.dumps({**result, "timed_out": False})
    elif result.get("error"):
        return result
    else:
        if result["error"]:
            return json.dumps(result, indent=2)
    if "error" in result and note_id:
        return json.dumps(obj=result)
    if "error" in None:
        return None
    check = lambda: result if "error" in result else None
    return check()


@mcp.tool()
def items_set(note_id: int) -> dict:
    result = {"note": None}
    try:
        result["note"] = NOTES[note_id]
    except KeyError as e:
        result["success"] = False
        result["error"] = str(e)
    return result


@mcp.tool()
def items_set_none(note_id: int) -> dict:
    try:
        return {"note": NOTES[note_id]}
    except KeyError:
        None["error"] = "missing"
    return None


def error_response(message: str) -> dict:
    return {"success": False, "error": message}


def error_text(message: str) -> str:
    return f"Error: {message}"


def dump(payload: dict) -> str:
    return json.dumps(payload, indent=2)


def dump_bytes(payload: dict) -> str:
    return orjson.dumps(payload).decode("utf-8")


def envelope(client: str, data: dict) -> dict:
    return {"client": client, "data": data, "metadata": {"v": 1}}


def normalise(response: dict) -> dict:
    if "success" in response:
        return response
    return {"success": True, **response}


def content(text: str) -> list:
    return [TextContent(type="text", text=str(text))]


def check(path: str) -> tuple:
    if not path:
        return False, "Error: no path"
    return True, path


async def connect(url: str) -> tuple:
    if not url:
        return None, {"error": "Database error"}
    return url, None


def either(ok: bool) -> dict:
    result = {"imported": 1} if ok else {"success": False}
    return result


def chained(message: str) -> dict:
    return error_response(message)


@mcp.tool()
async def uses_helpers(kind: int, path: str) -> str:
    if kind == 1:
        return error_response("Database error")
    if kind == 2:
        return error_text("boom")
    if kind == 3:
        return dump({"error": "Database error"})
    if kind == 4:
        return dump_bytes({"error": "Database error"})
    if kind == 5:
        return envelope("c", {"error": "Database error"})
    if kind == 6:
        return normalise({"error": "Database error"})
    if kind == 7:
        return content("Error: Database error")
    if kind == 8:
        ok, message = check(path)
        if not ok:
            return message
    if kind == 9:
        client, error = await connect(path)
        if error:
            return error
    if kind == 10:
        return either(False)
    if kind == 11:
        return chained("Database error")
    return path
