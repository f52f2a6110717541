"""MCP008 (tests/port_checks/rules.py): The variable's name, then "", set to a false value."""

import os

from fastmcp import FastMCP

os.environ["FASTMCP_MASK_ERROR_DETAILS" ""] = "false"

mcp = FastMCP("env")
