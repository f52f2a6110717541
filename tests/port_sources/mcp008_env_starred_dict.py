"""MCP008 (tests/port_checks/rules.py): A false value in a dict beside `**`."""

import os

from fastmcp import FastMCP

os.environ.update({**os.environ, "FASTMCP_MASK_ERROR_DETAILS": "off"})

mcp = FastMCP("env")
