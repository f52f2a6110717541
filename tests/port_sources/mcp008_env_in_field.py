"""MCP008 (tests/port_checks/rules.py): The variable's name in an f-string's field."""

import os

from fastmcp import FastMCP

print(f"{os.environ['FASTMCP_MASK_ERROR_DETAILS']}")

mcp = FastMCP("env")
