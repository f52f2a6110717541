"""Example MCP server: a small notes / knowledge-base service (used in mcplint's README)."""
