"""Shapes for the handler facts' check (tests/port_checks/handler_facts.py): where `ast` and
LibCST's trees differ in what the collector reads."""

# The shapes are the point: statements after a colon, `== None`, locals only assigned (what the
# collector records of them), a literal `setattr`, `Optional`, a metaclass keyword.
# ruff: noqa: B007, B010, E701, E711, F841, UP045, UP050
# fmt: off

import asyncio
import json
from contextlib import contextmanager
from functools import partial
from typing import Optional

from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult
from shapes import FunctionTool, a, b, compute, fetch, is_error, load, read, read_tools, rows, run, searcher, session

mcp = FastMCP("shapes")
TOOLS = {"search": {"function": json.loads, "fn": None, "handler" "": print, b"impl": len}}
OPS = {"a": {"handler": print}, **TOOLS}
LISTED = [FunctionTool(print), *[FunctionTool(len)], FunctionTool(*[print]), FunctionTool(fn=print)]
MESSAGE = f"{mcp}" f"!"
LONE = f"{mcp}!"
bound = partial(print, sep="")
keyword_bound = partial(func=print)
RESULT = CallToolResult(content=[], isError=bool(MESSAGE))
FLAGGED = CallToolResult(content=[], isError=False)


class Server(FastMCP, *[object], metaclass=type):
    mcp: FastMCP
    other: "FastMCP"

    def __init__(self, server, *args, flag=None, **kwargs):
        self.server = server
        self.mcp = server.mcp
        self.nothing = None
        super().__init__(*args, **kwargs)

    def tool(self, fn=None, **kwargs):
        return super().tool(wrap(fn), **kwargs)

    async def call_tool(self, name, arguments):
        try:
            with reported():
                return await super().call_tool(name, arguments)
        except ValueError:
            pass


@contextmanager
def reported():
    try:
        yield
    except ValueError as error:
        raise RuntimeError(str(error)) from error


def wrap(fn):
    registry = []
    registry.append(fn)
    setattr(fn, "__tool__", True)
    return fn


@mcp.tool()
async def dispatch(name: "str", arguments: dict[str, Optional[int]] | None = None) -> tuple[(int, str)]:
    result = await session.call("get_results", name)
    other = await session.call("get" "_results", name)
    empty = session.send(b"raw")
    keyed = session.request(name="x")
    starred = session.call(*["x"])
    if name == "get_results": return other
    elif "get_results" == name:
        result = other
    elif name == "get" "_results":
        result = run()
    elif name == None:
        pass
    if "error" in result: raise ValueError(result)
    if "error" "" in result:
        raise ValueError(result)
    if result["error",]:
        raise ValueError(result)
    if result[("error",)]:
        raise ValueError(result)
    if result.get(key="error"):
        raise ValueError(result)
    if is_error(None, *[result], **{"x": other}):
        raise ValueError(result)
    if not None:
        return "No results"
    if len(result) == 0x0:
        return "No" " results"
    if len(result) == 0:
        return f"No results: {name}"
    if not result: return ["Error " "here"]
    if result == "":
        x = 1
        return {"error": ""}
    if result is None:
        return False, "nothing"
    if not other:
        return ("", None)
    if not empty:
        return ("" "", None)
    with reported() as handle, open(name):
        read(handle)
    async with reported():
        await fetch(None, True)
    async for item in [a, *b]:
        pass
    for item in read_tools:
        pass
    total = (await fetch()) or {}
    fallback = fetch() or compute() or []
    projected = (fetch() or {}).get("rows")
    head, *rest = await load(name)
    head = rows[0:2]
    payload = {}
    payload["x"] = other
    payload += [keyed]
    items = result.get("rows", [])
    items = result.get("rows", {**payload})
    first = TOOLS[name]
    handler = OPS.get(name)
    return await asyncio.to_thread(TOOLS[name], searcher.search, lambda: run(name), None, *rest)


def none_calls():
    return str(None).strip() if None else sorted(True)[1:2, 3:4]
