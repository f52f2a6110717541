"""What a real MCP client receives from the generated helpers (runs inside an SDK venv).

    python probe.py STACK HELPERS_DIR

STACK is mcp1, mcp2, fastmcp3 or fastmcp4; HELPERS_DIR holds ``probe_errors.py``,
generated from ``tests/fixtures/registry/codegen/probe.toml`` for that stack's
framework. The probe builds tiny servers in this process, connects the SDK's
own client to each over in-memory streams, and prints one JSON object: for
every case, what the client got (a result or a JSON-RPC error), as plain data.
No mocks: only the installed SDK runs. Every handler first catches an exception
whose text is SECRET, so a leak of exception text shows up in the output.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from importlib.metadata import version
from typing import Any

SECRET = "db at /srv/secret.db failed"
RESOURCE_URI = "probe://widget"
VERBOSE_URI = "probe://verbose"
LOCKED_URI = "probe://locked"
LOW_LEVEL_TOOLS = (
    "tool_returns_error",
    "tool_raises_error",
    "tool_returns_envelope_error",
    "tool_raises_envelope_error",
    "tool_raises_error_caught_as_builtin",
    "tool_catches_builtin",
    "tool_batch_all_applied",
    "tool_batch_some_failed",
    "tool_batch_all_failed",
)
BATCH_TOOLS = LOW_LEVEL_TOOLS[-3:]


def fail_with_secret() -> None:
    raise ValueError(SECRET)


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def tool_result_record(result: Any) -> dict[str, Any]:
    data = dump(result)
    return {
        "kind": "result",
        "isError": data.get("isError", False),
        "content": [block.get("text") for block in data.get("content", [])],
        "structuredContent": data.get("structuredContent"),
    }


def error_record(error_data: Any) -> dict[str, Any]:
    data = dump(error_data)
    return {"kind": "error", "code": data["code"], "message": data["message"], "data": data.get("data")}


def other_record(value: Any) -> dict[str, Any]:
    """Anything else the client produced: a success, or an exception of another type."""
    if isinstance(value, BaseException):
        return {"kind": "exception", "type": type(value).__name__, "text": str(value)}
    return {"kind": "success", "value": dump(value)}


# -- the handlers, the same on every framework ---------------------------------------
def handlers(errors: Any) -> dict[str, Any]:
    """Plain functions; each stack registers them its own way."""

    def tool_returns_error():  # annotated per framework when registered
        try:
            fail_with_secret()
        except ValueError:
            error = errors.widget_error("WIDGETS_NOT_FOUND", details="looked in the main store", widgetId="w-1")
            return error.tool_result()

    def tool_raises_error() -> str:
        try:
            fail_with_secret()
        except ValueError as exc:
            raise errors.widget_error("WIDGETS_BACKEND_DOWN") from exc
        return "unreachable"

    def tool_raises_error_caught_as_builtin() -> str:
        # What `migrate` writes in place of `raise ValueError(...)`: the wire form is unchanged.
        try:
            fail_with_secret()
        except ValueError as exc:
            raise errors.widget_error("WIDGETS_BACKEND_DOWN").caught_as(ValueError) from exc
        return "unreachable"

    def lookup_widget() -> str:
        raise errors.widget_error("WIDGETS_NOT_FOUND", widgetId="w-4").caught_as(ValueError)

    def tool_catches_builtin() -> str:
        # A caller's `except ValueError` written for the old raise still catches the new one.
        try:
            return lookup_widget()
        except ValueError as error:
            return f"skipped: {error}"

    def resource_raises_error() -> str:
        try:
            fail_with_secret()
        except ValueError as exc:
            raise errors.widget_error("WIDGETS_NOT_FOUND", widgetId="w-2").for_resource() from exc
        return "unreachable"

    def resource_raises_verbose_error() -> str:
        os.environ["MCP_ERRORS_VERBOSE"] = "2"
        try:
            raise errors.widget_error("WIDGETS_BACKEND_DOWN").for_resource()
        finally:
            del os.environ["MCP_ERRORS_VERBOSE"]

    # The envelope: a registry recovery, hints and user message, a per-call hint and delay.
    def tool_returns_envelope_error():  # annotated per framework when registered
        try:
            fail_with_secret()
        except ValueError:
            error = errors.widget_error("WIDGETS_LOCKED", widgetId="w-7", hint="A copy keeps the history.")
            return error.tool_result()

    def tool_raises_envelope_error() -> str:
        try:
            fail_with_secret()
        except ValueError as exc:
            raise errors.widget_error("WIDGETS_BUSY", retry_after_ms=250) from exc
        return "unreachable"

    def resource_raises_envelope_error() -> str:
        try:
            fail_with_secret()
        except ValueError as exc:
            raise errors.widget_error("WIDGETS_LOCKED", widgetId="w-9").for_resource() from exc
        return "unreachable"

    def prompt_raises_error() -> str:
        try:
            fail_with_secret()
        except ValueError as exc:
            raise errors.widget_error("WIDGETS_NOT_FOUND", widgetId="w-3").for_prompt() from exc
        return "unreachable"

    # A batch tool's partial-failure result (`BatchResult`): all applied, some failed, all failed.
    def tool_batch_all_applied():  # annotated per framework when registered
        batch = errors.BatchResult()
        for index, widget in enumerate(["w-1", "w-2"]):
            batch.applied(index, {"id": widget})
        return batch.tool_result()

    def tool_batch_some_failed():  # annotated per framework when registered
        batch = errors.BatchResult()
        batch.applied(0)
        try:
            fail_with_secret()
        except ValueError:
            batch.failed(1, errors.widget_error("WIDGETS_NOT_FOUND", widgetId="w-2"))
        batch.skipped(2, "Not attempted after item 1 failed.")
        return batch.tool_result({"saved": ["w-1"]})

    def tool_batch_all_failed():  # annotated per framework when registered
        batch = errors.BatchResult()
        for key in ("a", "b"):
            try:
                fail_with_secret()
            except ValueError:
                if key == "a":
                    batch.failed(key, errors.widget_error("WIDGETS_BUSY"))
                else:
                    batch.failed(key, errors.widget_error("WIDGETS_LOCKED", widgetId="w-7"))
        return batch.tool_result()

    return {
        "tool_batch_all_applied": tool_batch_all_applied,
        "tool_batch_some_failed": tool_batch_some_failed,
        "tool_batch_all_failed": tool_batch_all_failed,
        "tool_returns_error": tool_returns_error,
        "tool_raises_error": tool_raises_error,
        "tool_raises_error_caught_as_builtin": tool_raises_error_caught_as_builtin,
        "tool_catches_builtin": tool_catches_builtin,
        "resource_raises_error": resource_raises_error,
        "resource_raises_verbose_error": resource_raises_verbose_error,
        "prompt_raises_error": prompt_raises_error,
        "tool_returns_envelope_error": tool_returns_envelope_error,
        "tool_raises_envelope_error": tool_raises_envelope_error,
        "resource_raises_envelope_error": resource_raises_envelope_error,
    }


def tool_returning(function: Any, annotation: Any, name: str) -> Any:
    """``function`` under another name with another return annotation (what the
    framework reads to decide on an output schema)."""

    def tool():
        return function()

    tool.__name__ = name
    tool.__annotations__ = {"return": annotation}
    return tool


async def run_cases(
    call_tool,
    read_resource,
    get_prompt,
    sdk_error: type[BaseException],
    protocol_version: str | None,
    high_level: bool = True,
) -> dict[str, Any]:
    """The client side: every case, each turned into a record (a case the server
    does not have, such as the output-schema tools on a low-level server, is skipped)."""
    cases = {
        "tool_returns_error": lambda: call_tool("tool_returns_error"),
        "tool_returns_error_from_dict_tool": lambda: call_tool("tool_returns_error_from_dict_tool"),
        "tool_returns_error_from_str_tool": lambda: call_tool("tool_returns_error_from_str_tool"),
        "tool_raises_error": lambda: call_tool("tool_raises_error"),
        "tool_raises_error_caught_as_builtin": lambda: call_tool("tool_raises_error_caught_as_builtin"),
        "tool_catches_builtin": lambda: call_tool("tool_catches_builtin"),
        "resource_raises_error": lambda: read_resource(RESOURCE_URI),
        "resource_raises_verbose_error": lambda: read_resource(VERBOSE_URI),
        "prompt_raises_error": lambda: get_prompt("prompt_raises_error"),
        "tool_returns_envelope_error": lambda: call_tool("tool_returns_envelope_error"),
        "tool_raises_envelope_error": lambda: call_tool("tool_raises_envelope_error"),
        "resource_raises_envelope_error": lambda: read_resource(LOCKED_URI),
        **{name: (lambda name=name: call_tool(name)) for name in BATCH_TOOLS},
    }
    records: dict[str, Any] = {}
    for name, call in cases.items():
        if not high_level and "_from_" in name:  # output schemas come from high-level annotations
            continue
        try:
            value = await call()
        except sdk_error as error:
            records[name] = error_record(error.error)
            continue
        except Exception as error:  # noqa: BLE001 - recorded, not hidden
            records[name] = other_record(error)
            continue
        records[name] = tool_result_record(value) if name.startswith("tool_") else other_record(value)
    return {"protocolVersion": protocol_version, "cases": records}


# -- mcp 1.x --------------------------------------------------------------------------
async def probe_mcp1(errors: Any) -> dict[str, Any]:
    from mcp.server.fastmcp import FastMCP
    from mcp.shared.exceptions import McpError
    from mcp.shared.memory import create_connected_server_and_client_session
    from mcp.types import LATEST_PROTOCOL_VERSION, CallToolResult

    server = FastMCP("probe")
    register_high_level(server, handlers(errors), CallToolResult)
    async with create_connected_server_and_client_session(server._mcp_server) as session:
        return await run_cases(
            lambda name: session.call_tool(name, {}),
            lambda uri: session.read_resource(uri),
            lambda name: session.get_prompt(name, {}),
            McpError,
            LATEST_PROTOCOL_VERSION,  # what ClientSession asks for; the server accepts it
        )


async def probe_mcp1_lowlevel(errors: Any) -> dict[str, Any]:
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import McpError
    from mcp.shared.memory import create_connected_server_and_client_session
    from mcp.types import LATEST_PROTOCOL_VERSION

    server = Server("probe-lowlevel")
    functions = handlers(errors)
    tool_names = LOW_LEVEL_TOOLS

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name=name, inputSchema={"type": "object"}) for name in tool_names]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        result = functions[name]()
        return [types.TextContent(type="text", text=result)] if isinstance(result, str) else result

    @server.read_resource()
    async def read_resource(uri: Any) -> str:
        return functions[_resource_handler(str(uri))]()

    @server.get_prompt()
    async def get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        return functions[name]()

    async with create_connected_server_and_client_session(server) as session:
        return await run_cases(
            lambda name: session.call_tool(name, {}),
            lambda uri: session.read_resource(uri),
            lambda name: session.get_prompt(name, {}),
            McpError,
            LATEST_PROTOCOL_VERSION,
            high_level=False,
        )


# -- mcp 2.x --------------------------------------------------------------------------
async def probe_mcp2(errors: Any) -> dict[str, Any]:
    from mcp import Client, MCPError
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult

    server = MCPServer("probe")
    register_high_level(server, handlers(errors), CallToolResult)
    async with Client(server) as client:
        return await run_cases(
            lambda name: client.call_tool(name, {}),
            lambda uri: client.read_resource(uri),
            lambda name: client.get_prompt(name, {}),
            MCPError,
            client.protocol_version,
        )


async def probe_mcp2_lowlevel(errors: Any) -> dict[str, Any]:
    from mcp import Client, MCPError, types
    from mcp.server import Server

    functions = handlers(errors)
    tool_names = LOW_LEVEL_TOOLS

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=name, input_schema={"type": "object"}) for name in tool_names]
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        result = functions[params.name]()
        if isinstance(result, str):  # a low-level handler builds its own result
            return types.CallToolResult(content=[types.TextContent(type="text", text=result)])
        return result

    async def read_resource(ctx: Any, params: Any) -> Any:
        return functions[_resource_handler(str(params.uri))]()

    async def get_prompt(ctx: Any, params: Any) -> Any:
        return functions[params.name]()

    server = Server(
        "probe-lowlevel",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_read_resource=read_resource,
        on_get_prompt=get_prompt,
    )
    async with Client(server) as client:
        return await run_cases(
            lambda name: client.call_tool(name, {}),
            lambda uri: client.read_resource(uri),
            lambda name: client.get_prompt(name, {}),
            MCPError,
            client.protocol_version,
            high_level=False,
        )


RESOURCE_HANDLERS = {VERBOSE_URI: "resource_raises_verbose_error", LOCKED_URI: "resource_raises_envelope_error"}


def _resource_handler(uri: str) -> str:
    return RESOURCE_HANDLERS.get(uri, "resource_raises_error")


# -- fastmcp --------------------------------------------------------------------------
async def probe_fastmcp(errors: Any) -> dict[str, Any]:
    from fastmcp import Client, FastMCP
    from fastmcp.exceptions import McpError
    from fastmcp.tools import ToolResult

    # mask_error_details=True is the recommended setting (MCP008); the helpers'
    # own errors must survive it.
    server = FastMCP("probe", mask_error_details=True)
    register_high_level(server, handlers(errors), ToolResult)
    async with Client(server) as client:
        return await run_cases(
            lambda name: client.call_tool_mcp(name, {}),
            lambda uri: client.read_resource_mcp(uri),
            lambda name: client.get_prompt_mcp(name, {}),
            McpError,
            _fastmcp_protocol_version(client),
        )


def _fastmcp_protocol_version(client: Any) -> str | None:
    version = getattr(client, "protocol_version", None)  # fastmcp 4
    if version is None and client.initialize_result is not None:  # fastmcp 3
        version = client.initialize_result.protocolVersion
    return version


def register_high_level(server: Any, functions: dict[str, Any], result_type: Any) -> None:
    """FastMCP 1.x, MCPServer and fastmcp share these decorator shapes."""
    server.tool()(tool_returning(functions["tool_returns_error"], result_type, "tool_returns_error"))
    # The same result returned from tools whose annotations give them an output schema.
    for annotation, name in ((dict[str, Any], "from_dict_tool"), (str, "from_str_tool")):
        server.tool()(tool_returning(functions["tool_returns_error"], annotation, f"tool_returns_error_{name}"))
    server.tool()(functions["tool_raises_error"])
    server.tool()(tool_returning(functions["tool_returns_envelope_error"], result_type, "tool_returns_envelope_error"))
    server.tool()(functions["tool_raises_envelope_error"])
    for name in BATCH_TOOLS:
        server.tool()(tool_returning(functions[name], result_type, name))
    server.tool()(functions["tool_raises_error_caught_as_builtin"])
    server.tool()(functions["tool_catches_builtin"])
    server.resource(RESOURCE_URI)(functions["resource_raises_error"])
    server.resource(VERBOSE_URI)(functions["resource_raises_verbose_error"])
    server.resource(LOCKED_URI)(functions["resource_raises_envelope_error"])
    server.prompt()(functions["prompt_raises_error"])


# -- main -------------------------------------------------------------------------------
PROBES = {
    "mcp1": {"high-level": probe_mcp1, "low-level": probe_mcp1_lowlevel},
    "mcp2": {"high-level": probe_mcp2, "low-level": probe_mcp2_lowlevel},
    # The `lowlevel` helpers (one module for mcp 1.x and 2.x) behind each major's low-level Server.
    "mcp1-lowlevel": {"low-level": probe_mcp1_lowlevel},
    "mcp2-lowlevel": {"low-level": probe_mcp2_lowlevel},
    "fastmcp3": {"high-level": probe_fastmcp},
    "fastmcp4": {"high-level": probe_fastmcp},
}


async def main(stack: str, helpers_dir: str) -> dict[str, Any]:
    sys.path.insert(0, helpers_dir)
    os.environ["MCP_ERROR_METRICS"] = "1"
    import probe_errors

    report: dict[str, Any] = {"versions": {name: _version(name) for name in ("mcp", "fastmcp")}, "servers": {}}
    for server_kind, probe in PROBES[stack].items():
        report["servers"][server_kind] = await probe(probe_errors)
    report["error_stats"] = probe_errors.error_stats()
    return report


def _version(distribution: str) -> str | None:
    try:
        return version(distribution)
    except Exception:  # noqa: BLE001 - not installed
        return None


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2])), indent=2, sort_keys=True))
