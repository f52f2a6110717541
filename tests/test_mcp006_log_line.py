"""Where a clause leaks the exception twice, the logging line goes with the first leak in
the source, whatever order the analysis met them in (it iterates sets of nodes, whose order
changes from run to run)."""

from __future__ import annotations

import pytest

from mcplint.engine.lint import lint_text
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

SETTINGS = FileSettings(codes=frozenset(RULES_BY_CODE))

SOURCE = '''
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("usage")


class ServiceError(Exception):
    def __init__(self, message: str, user_message: str) -> None:
        super().__init__(message)
        self.user_message = user_message


@mcp.tool()
def usage() -> dict:
    try:
        return read_usage()
    except Exception as e:
        raise ServiceError(
            f"Failed to read usage: {e}",
            user_message=f"Could not read plan usage: {e}",
        ) from e
'''


@pytest.mark.parametrize("attempt", range(5))
def test_the_first_leak_of_a_clause_carries_the_log_line(attempt: int) -> None:
    findings = [f for f in lint_text(SOURCE, "usage.py", SETTINGS).findings if f.code == "MCP006"]
    assert [f.line for f in findings] == [19, 20]
    logs = [any("logger.exception" in edit.content for edit in f.fix.edits) for f in findings if f.fix]
    assert logs == [True, False]
