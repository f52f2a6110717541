"""Shapes of the literals and calls error_payloads reads (tests/port_checks/error_payloads.py)."""
# ruff: noqa

import json

from mcp import types
from mcp.types import CallToolResult, TextContent


def concatenated(r, e):
    d = {"err" "or": "x", "status": "err" "or", "error": "" ""}
    d2 = {"error": "", "ok": 0, "success": 0 == 1}
    if "err" "or" in r:
        return "Error" "s are fine"
    if r["error",]:
        return {"success": False}
    if r[("error",)]:
        return "Failed"
    if r[("error"),]:
        return "Invalid " "input"
    if r["error" , ] and r["status"] and r["error", "x"] and r["error":]:
        return (
            "Could not "  # a comment between the tokens
            "connect"
        )
    if None.get("error") or True["error"]:
        pass
    if "error" in None and "errors" in r and b"error" in r:
        pass
    if is_error(*r, **e) or has_failed(None, True, k=r):
        pass
    if (found := get_error(r)) and r.get(key="error"):
        pass
    None["error"] = str(e)
    r["error",] = "x"
    r["status"] = "err" "or"
    r["status"] = "ERROR"
    r[("error",)] = "x"
    r["error"] = ""
    r["errors"] = "" ""
    return f"\nError {r}", d, d2


def fstrings(x, e):
    a = f"\u274c {x}"
    b = f"Err" f"or {x}"
    c = "Error: " f"{x}"
    d = f"{{Error}} {x}"
    g = f"Error\\n{x}"
    h = rf"Failed: {x}" "!"
    i = f"""Unable to
    do {x}"""
    j = f"Error: {x:>{e}}"
    k = b"Error: " b"x"
    try:
        pass
    except ValueError as e:
        return f"{e}" ""
    except KeyError as e:
        return f"{e!r}"
    except TypeError as e:
        return "" f"{e}"
    except LookupError as e:
        return [f"{e:>10}", str(*e), repr(object=e), "Lookup failed: " + str(e), "Failed %s" % e, "Failed {}".format(e)]
    except OSError as e:
        message = f"Database error: {e}"
        return message if x else TextContent(type="text", text="Lookup failed: " + str(e))
    except Exception as e:
        return [*f"{e}", f"{(lambda: e)()}", "é " f"{e}"]
    return a or b or c or d or g or h or i or j or k


def é(x):
    return "❌ Nothing" f" {x}", {"error": "é" "x"}, "Échec" "!"


def calls(data, e):
    return json.dumps(*data, indent=2)


def calls2(data):
    return json.dumps(indent=2, *data), json.dumps(obj={"error": "x"}), json.dumps(obj={"error": "x"}, *data)


def text(x):
    return [TextContent(type="text", text=str(*x))], TextContent(text=str(object=x)), [*TextContent(text=x)]


def model():
    r = ErrorResponse(message="x")
    s = Envelope(success=False)
    return r.model_dump(), Envelope(status="err" "or"), Envelope(status="Error"), s.dict(), None.json()


def results(msg):
    return CallToolResult(content=[TextContent(type="text", text="Error: x")], isError=False)


def results2(msg):
    return types.CallToolResult(content=[types.TextContent(type="text", text=msg)], is_error=True)


def empties():
    return (
        {"error": 0}, {"error": 0.0}, {"error": 0j}, {"error": False}, {"error": True}, {"error": b""},
        {"error": ()}, {"error": set()}, {"errors": []}, {"error": None}, {"error": 0x0}, {"error": -0},
        {"error": ...}, {"error": {}}, {"error": ""}, {"error": ''}, {"error": """"""}, {"error": "" ""},
    )


async def awaiting(x):
    return await create_error_response(x)


def helpers(x, data):
    ok, message = check(x)
    first, *rest = check(x)
    result = [result, {"error": x}]
    payload = {**tool_failure(x), "timed_out": False}
    return (
        wrap_result(x, data={"error": 1}),
        format_response(text="Error: x"),
        add_with(x, data, content={"ok": False}),
        dump_json({"success": False}),
        dump_json(),
        tool_failure(x),
        make_error(x).tool_result(),
        message,
        result,
        payload,
        [r if r else f"ERROR: {r}" for r in x],
        x or {"error": "x"},
        x and {"error": "x"},
        TextContent(type="text", text=message),
        TextContent(type="text", text=json.dumps({"error": x})),
        TextContent(type="text", text="fine", error=True),
        TextContent(type="text"),
    )
