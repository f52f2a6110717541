"""MCP008 (tests/port_checks/rules.py): The setting assigned None."""

import fastmcp
from fastmcp import FastMCP

fastmcp.settings._mask_error_details = None

mcp = FastMCP("env")
