"""MCP008 (tests/port_checks/rules.py): The variable's name and "" as a dict's key: two tokens in LibCST's tree, whose first is no key there."""

import os

from fastmcp import FastMCP

os.environ.update({"FASTMCP_MASK_ERROR_DETAILS" "": "false"})

mcp = FastMCP("env")
