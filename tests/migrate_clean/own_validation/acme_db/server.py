"""A tool that passes the project's own validation message on (seen on mcp-clickhouse), and one
that passes an OS error's text on (a leak the migration rewrites)."""

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError

from acme_db.config import client_config

mcp = FastMCP("acme-db")


def resolve_client_config(secure: bool) -> dict[str, str]:
    try:
        config = client_config()
        if config["interface"] != ("https" if secure else "http"):
            raise ValueError("The client interface must match the secure setting")
    except ValueError as exc:
        raise ToolError(str(exc)) from exc
    return config


@mcp.tool()
def connect(secure: bool) -> str:
    return resolve_client_config(secure)["interface"]


@mcp.tool()
def read_schema(path: str) -> str:
    try:
        with open(path) as schema:
            return schema.read()
    except OSError as exc:
        raise ToolError(f"Could not read the schema: {exc}") from exc


@mcp.tool()
def set_page_size(size: str) -> dict:
    try:
        value = int(size)
        if not 1 <= value <= 100:
            raise ValueError("The page size must be between 1 and 100")
    except ValueError as exc:
        return {"error": str(exc)}
    return {"page_size": value}
