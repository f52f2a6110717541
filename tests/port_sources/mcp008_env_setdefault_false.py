"""MCP008 (tests/port_checks/rules.py): A false default, its arguments starred after."""

import os

from fastmcp import FastMCP

os.environ.setdefault("FASTMCP_MASK_ERROR_DETAILS", "no", *[])

mcp = FastMCP("env")
