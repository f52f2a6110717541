"""Shapes the exception flow reads differently in the two trees, for the differential check of
its `ast` twin (tests/port_checks/exception_flow.py): literals written as several, a keyword
before a starred argument, a tuple in parentheses in an annotation's subscript, f-strings with
format specs or concatenated, async loops, `match`, `:=`, `del`, the clause's name after its
`try`. Not run: it is only parsed."""
# ruff: noqa  (the shapes are the point)

import json
import sys
import traceback
from typing import Dict, Optional, Tuple

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import TextContent

from pkg import errors
from pkg.errors import NotesError
from pkg.other import OwnError

mcp = FastMCP("x")
server = FastMCP("y")
OTHERS = (KeyError,)


def run() -> None: ...


def get() -> object: ...


def notes_error(symbol, *rest, **extra):
    return {"symbol": symbol}


def helper(text, *rest, key=None, **extra):
    return f"{text}: {key}"


def sink_helper(a, b):
    raise ValueError(a)


class Thing:
    def method(self, text):
        return text

    @classmethod
    def build(cls, e: Exception):
        return {"m": f"{e!r:>{10}}"}

    async def tool(self, ctx: Context, x: Optional[int] = None):
        try:
            async for item in x:
                await ctx.error(await helper(item, str(item)))
        except (ValueError, *OTHERS) as e:
            await ctx.error(str(e))
            return getattr(e, "m" "sg") + getattr(e, "status") + getattr(e, "msg", e) + getattr(e, name="x")
        except OSError as e:
            return notes_error("NOT" "_FOUND", e) + notes_error("NOT_FOUND", str(e)) + notes_error(symbol="A", x=str(e))
        except NotesError as e:
            return notes_error(symbol="NOT_FOUND", *[str(e)]), helper(key=str(e), *[x])
        except (OwnError, errors.Bad) as e:
            return repr(e)
        return helper(key=str(x), *[x])


def annotated(
    e: Dict[(str, Exception)],
    f: Dict[str, Exception],
    g: Tuple[(ValueError), KeyError],
    h: "Exception",
    i: Optional[BaseException] = None,
    *,
    j: Tuple[int, ...],
):
    return {"a": f"{e}", "b": f"x" "{f}" f"{g}" "y" f"{h:{i}}", "c": i.args, "d": [*j]}


def flows(items, ctx, x, y):
    result = {}
    try:
        run()
    except Exception as exc:
        message = "failed: %s" % exc
        result["error"] = message
        parts = []
        parts.append(traceback.format_exc())
        del message
        for x, *y in items:
            z = [w for w in y if w for q in x]
            if n := str(exc):
                print(n, file=sys.stderr)
                print(n)
            elif x:
                print(n, file=sys.stdout)
            else:
                if y:
                    z += exc.args
            while z:
                z = {k: v for k, v in parts}
        with open(x) as (fh, other), ctx as c:
            c.info(str(exc))
        match exc:
            case ValueError():
                out = exc.__cause__
            case _:
                out = lambda: exc
        json.dumps(result)
        TextContent(type="text", text=str(exc))
        mcp.run("st" "dio")
        return ", ".join(parts) + (exc.__traceback__ if z else "").format(exc) + exc.message[0 : str(exc)] + out
    finally:
        sink_helper(result, b=result)
        sink_helper(*result, **result)


def name_after_its_clause():
    try:
        run()
    except OSError as error:
        pass
    return error


def recursive(a):
    return recursive(a) or other_recursive(a)


def other_recursive(a):
    try:
        return recursive(a)
    except ValueError as err:
        raise RuntimeError(f"bad {err}") from err


def outer(x):
    def inner(e):
        return str(e)

    try:
        pass
    except Exception as e:
        return inner(e), (get())(e), Thing.build(e), x[0](e)


server.run(transport="stdio")
mcp.run("sse")
