"""MCP008 (tests/port_checks/rules.py): `putenv` with a starred argument first."""

import os

from fastmcp import FastMCP

os.putenv(*["x"], "FASTMCP_MASK_ERROR_DETAILS", "0")

mcp = FastMCP("env")
