"""MCP008 (tests/port_checks/rules.py): The variable's name as a dict's value."""

import os

from fastmcp import FastMCP

names = {**os.environ, "key": "FASTMCP_MASK_ERROR_DETAILS"}

mcp = FastMCP("env")
