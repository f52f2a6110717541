"""mcplint: static analysis and codemods for the error handling of Python MCP servers."""

__version__ = "0.1.0"
