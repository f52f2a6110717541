"""A low-level server whose only migrated site needs no registry entry: the caught exception's
text in an isError result becomes its type's name (seen on analytics-mcp)."""

import json

import mcp.types as mcp_types
from mcp.server.lowlevel import Server

server = Server("acme-tools")


def run_tool(name: str) -> str:
    return name.upper()


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> mcp_types.CallToolResult:
    try:
        text = run_tool(name)
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)])
    except Exception as e:
        error_msg = f"Failed to execute tool '{name}': {str(e)}"
        error_text = json.dumps({"error": error_msg})
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=error_text)],
            is_error=True,
        )
