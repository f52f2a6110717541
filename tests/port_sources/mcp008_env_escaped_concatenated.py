"""MCP008 (tests/port_checks/rules.py): The variable's name written with an escape, beside ""."""

import os

from fastmcp import FastMCP

os.environ["FASTMCP_MASK_ERROR_\x44ETAILS" "" ''] = "yes"

mcp = FastMCP("env")
