"""Tools whose exception text reaches the client through an imported helper (seen on
opensearch-mcp-server and astro-airflow-mcp): the site has no fix; the helper is where to change it."""

from mcp.server.fastmcp import FastMCP

from acme_search.formatting import tool_failure

mcp = FastMCP("acme-search")


def run_search(query: str) -> list[dict]:
    return [{"type": "text", "text": query.upper()}]


@mcp.tool()
def search(query: str) -> list[dict]:
    try:
        return run_search(query)
    except Exception as e:
        return tool_failure("search", e, "searching")
