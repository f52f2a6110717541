"""MCP008 (tests/port_checks/rules.py): A concatenation with a comment between its tokens."""

import os

from fastmcp import FastMCP

os.environ[("FASTMCP_MASK_ERROR_DETAILS"  # the variable
            "")] = "true"

mcp = FastMCP("env")
