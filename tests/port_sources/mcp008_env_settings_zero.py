"""MCP008 (tests/port_checks/rules.py): The setting assigned 0: not written `False`."""

import fastmcp
from fastmcp import FastMCP

fastmcp.settings.mask_error_details = 0

mcp = FastMCP("env")
