from mcp.server.fastmcp import FastMCP


class AppMCP(FastMCP):
    """The project's server class: every server of the project is built from it."""

    def __init__(self, name: str) -> None:
        super().__init__(name, instructions=f"{name} tools of the billing system")
