"""MCP008 (tests/port_checks/rules.py): The variable's name beside an f-string: a plain token of a `JoinedStr`."""

import os

from fastmcp import FastMCP

os.environ[f"{os.sep}"[:0] + f"{''}" "FASTMCP_MASK_ERROR_DETAILS"] = "1"

mcp = FastMCP("env")
