"""Call one tool of a real MCP server with the SDK's own client (runs inside the server's venv).

    python real_server_client.py MODULE:ATTRIBUTE TOOL ARGUMENTS_JSON

MODULE:ATTRIBUTE names the server object, an mcp 1.x ``FastMCP`` or low-level
``Server``. The server runs in this process and the client talks to it over the
SDK's in-memory streams: no mocks, only the installed SDK and the package's own
code. Prints one JSON object: what the client got (a tool result or a JSON-RPC
error, as plain data) and the file the server's module was imported from.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from typing import Any


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def call(server: Any, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    from mcp.shared.exceptions import McpError
    from mcp.shared.memory import create_connected_server_and_client_session

    async with create_connected_server_and_client_session(server) as session:
        try:
            result = dump(await session.call_tool(tool, arguments))
        except McpError as error:
            data = dump(error.error)
            return {"kind": "error", "code": data["code"], "message": data["message"], "data": data.get("data")}
    return {
        "kind": "result",
        "isError": result.get("isError", False),
        "content": [block.get("text") for block in result.get("content", [])],
        "structuredContent": result.get("structuredContent"),
    }


def main(server_object: str, tool: str, arguments: str) -> dict[str, Any]:
    module_name, attribute = server_object.split(":")
    module = importlib.import_module(module_name)
    record = asyncio.run(call(getattr(module, attribute), tool, json.loads(arguments)))
    return {"module_file": module.__file__, "record": record}


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:]), indent=2, sort_keys=True))
