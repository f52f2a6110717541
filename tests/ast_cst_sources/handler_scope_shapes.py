"""Shapes of the nodes the handler-scope resolver reads (tests/port_checks/handler_scope.py)."""
# ruff: noqa

import asyncio
from functools import partial, wraps
from typing import Annotated, Any, Optional

from mcp.server.fastmcp import FastMCP
from mcp.server.lowlevel import Server
from mcp.types import CallToolResult, TextContent

from .helpers import compact, fetch_rows, more_handlers, more_tools, register_tool, wrap_errors
from .registry import ToolRegistry, tools_table

mcp = FastMCP("shapes")
server = Server("shapes")
typed: "FastMCP" = FastMCP("typed")
generic = FastMCP[dict]("generic")
spelled: "Fast" "MCP" = make_server()
proxy = FastMCP.from_openapi(spec, client)


def make_server() -> "FastMCP":
    return FastMCP("made")


def make_optional() -> Optional[FastMCP]:
    return None


def make_union() -> FastMCP | None:
    built = FastMCP.from_fastapi(app)
    return built


def make_annotated() -> Annotated[(FastMCP, "meta")]:
    return FastMCP("annotated")


def make_local():
    local_server = make_server()
    return local_server


class Base:
    def run(self):
        return helper()


class Child(Base[int]):
    pass


class AppMCP(FastMCP):
    def tool(self, *args, **kwargs):
        def decorate(fn):
            return super().tool(*args, **kwargs)(wrap_errors(fn))

        return decorate


class Handlers:
    def __init__(self, server_arg, *rest, key=None):
        self.server = server_arg

    def register(self):
        @self.server.tool()
        def inner_tool(x):
            return Child().run()


class Holder:
    def __init__(self):
        self.mcp = FastMCP("held")
        Handlers(self)
        Handlers(*extra, self)
        Handlers(key=1, *extra)


def helper():
    return {"rows": []}


def logged(fn):
    @wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValueError as e:
            raise RuntimeError(str(e))

    return wrapper


@mcp.tool()
@logged
@(lambda f: f)
@wrap_errors(*decorator_args)
async def search(query: str, limit: "int" = 10):
    rows = fetch_rows(query) or []
    text = f"found {len(rows)}"
    joined = "a" "b"
    summed = text + joined
    result = await session.call("get_results", {"q": query})
    payload = compact(data=result.rows, key=lambda row: row.value)
    envelope = build(payload=payload, extra=None)
    items = result.get("items", [])
    names = [row.name for row in fetch_rows(None)]
    if not items:
        return "No matches found"
    return envelope


@mcp.tool()
async def relay(query):
    # The names LibCST's tree has besides `ast`'s: an attribute's, a keyword argument's.
    fetched = await client.request("fetch_things", query)
    answered = await rpc.send("answer_things", query)
    wrapped = pack(holder.fetched, answered=None)
    return wrapped


def low_only(uri):
    return uri


@mcp.tool
def bare(x):
    return checked(x)


@server.call_tool()
async def call_tool(name, arguments):
    handler = HANDLERS[name]
    entry = HANDLERS.get(name)
    await TABLE[name].run(arguments)
    await handler(arguments)
    return await entry(*arguments)


@server.list_tools()
async def list_tools():
    return []


def checked(x):
    answer = lookup(x)
    if "error" in answer:
        raise ValueError(answer["error"])
    if "error" in None:
        raise ValueError("none")
    if None:
        return None
    if x:
        return CallToolResult(content=[], isError=answer.get("error") is not None)
    if x > 1:
        return CallToolResult(content=[], isError=False)
    return answer


def lookup(x):
    return checked(x)


def add_one(fn):
    mcp.add_tool(fn)


def add_wrapped(registry, fn):
    registry.add_tool(wrap_errors(fn))


def add_starred(registry, fn):
    registry.add_tool(wrap_errors(*fn))


def add_keyworded(registry, fn):
    registry.add_tool(wrap_errors(key=fn))


def add_double(registry, fn):
    registry.add_tool(wrap_errors(**fn))


def tool_a():
    return helper()


def tool_b():
    return helper()


def tool_c():
    return asyncio.to_thread(helper)


extra_tools = [tool_c]
READ_TOOLS = [tool_a, *extra_tools, tool_b, *more_tools]
TABLE_TOOLS = {"a": tool_a, **more_handlers}
HANDLERS = {"a": tool_a, "b": {"handler": tool_b}, **others}
TABLE = {name: getattr(Base(), name) for name in ("run", b"x", "a" "b", *more)}
NAMED = {name: getattr(Base(), name=name) for name in NAMES}
NAMES = ("run", "stop")
serialize = None
aliased = tool_a

for fn in (*extra_tools, tool_a, lambda: 1):
    mcp.add_tool(fn)

for read_tool in READ_TOOLS:
    mcp.add_tool(read_tool)

for table_tool in TABLE_TOOLS:
    mcp.add_tool(table_tool)

for group in ({"a": tool_b, **more_handlers}, [tool_c, *more_tools]):
    for member in group:
        mcp.add_tool(member)

add_one(tool_b)
add_wrapped(mcp, tool_a)
add_starred(mcp, [tool_b])
add_keyworded(mcp, tool_c)
add_double(mcp, {"key": tool_c})
mcp.add_tool("by name")
mcp.add_tool("by " "name")
mcp.add_tool(b"bytes")
mcp.add_tool(lambda: 2)
mcp.add_tool(fn=tool_a)
mcp.add_tool(*extra_tools)
mcp.add_tool(**options)
mcp.add_tool(partial(*args, tool_b))
mcp.add_tool(partial(key=1, *args))
mcp.tool()(wrap_errors(tool_c))
mcp.tool()(wrap_errors(*args, tool_c))
server.call_tool()(tool_a)
server.read_resource()(low_only)
Server("low", on_call_tool=tool_a, on_list_tools=tool_b, **handlers)
low = Server("low2", on_other=tool_c)
add = server.add_request_handler
add("tools/call", Params, tool_a)
server.add_request_handler("tools/" "call", Params, tool_b)
server.add_request_handler(b"tools/call", Params, tool_c)
register_tool(tool_a, k=1)
register_tool(*extra_tools)
mcp.add_tool(aliased)
mcp.add_tool(serialize)
mcp.add_tool(None)
mcp.add_tool(tools_table.read)
Handlers(mcp).register()
Handlers(server_arg=typed)
tools = ToolRegistry(mcp)


@tools.writer("Format range")
def format_range(sheet):
    return sheet


def register(registry: "ToolRegistry", service: "Ser" "vice", other: Optional["Service"], third: x[("A", "B")]):
    registry.add_tool(service.run)
    other.run()
    third.run()


class Service:
    def run(self):
        return helper()


def keep(tool):
    TOOLS.append(tool)


keep(Service())
keep(*[Service()])
keep(**{"tool": Service()})
keep(key=Service())
keep(*make_local())
register(ToolRegistry(), Service(), other=Service(), *rest)
register(await make_local(), None, Service)


def uses_tables(name, table):
    return table[name]()


uses_tables("a", HANDLERS)
uses_tables("a", {"x": tool_a})
uses_tables("a", {n: getattr(Base(), n) for n in NAMES})
uses_tables("a", None)
