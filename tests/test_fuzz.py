"""Fuzzing: generated and mutated sources never crash mcplint, and its fixes hold up.

The properties are in ``fuzz_properties.py``. The fast tier runs a fixed seed
(``derandomize``): 200 mutated fixtures and 60 generated programs, about 5 s;
the slow tier 3,000 and 1,000; ``benchmarks/fuzz.py`` runs as many as you like.
"""

from __future__ import annotations

import pytest
from fuzz_properties import check_properties, hypothesmith_sources, mutated_fixtures
from hypothesis import HealthCheck, given, settings

FAST = settings(
    max_examples=60, derandomize=True, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)  # fmt: skip
SLOW = settings(FAST, max_examples=1_000)


@settings(FAST, max_examples=200)
@given(mutated_fixtures())
def test_mutated_fixtures(text):
    check_properties(text)


@FAST
@given(hypothesmith_sources())
def test_generated_programs_in_tools(text):
    check_properties(text)


@pytest.mark.slow
@settings(SLOW, max_examples=3_000)
@given(mutated_fixtures())
def test_mutated_fixtures_at_length(text):
    check_properties(text)


@pytest.mark.slow
@SLOW
@given(hypothesmith_sources())
def test_generated_programs_in_tools_at_length(text):
    check_properties(text)


# -- what the fuzzing found ----------------------------------------------------------------------
def test_a_nul_in_a_string_is_mcp000_not_a_crash():
    """A NUL inside a dict key: LibCST parsed it, then its ``evaluated_value`` raised
    SyntaxError out of MCP001's walk (files never got there: decoding refuses a NUL)."""
    from fuzz_properties import ALL_CODES

    from mcplint.engine.lint import lint_text

    text = (
        'from mcp.server.fastmcp import FastMCP\r\nmcp = FastMCP("b")\r\n'
        '@mcp.tool()\r\ndef f() -> dict:\r\n    return {"\x00errors": 0}\r\n'
    )
    (finding,) = lint_text(text, "fuzz.py", ALL_CODES).findings
    assert (finding.code, finding.line, finding.column) == ("MCP000", 5, 14)
    assert finding.message == "source contains a NUL byte"


def test_a_file_that_does_not_parse_has_no_stale_suppressions():
    """Mutated fixtures: every directive of a file with a syntax error was reported stale
    (nothing was analysed, so none was used), with a fix the fixer then had to drop."""
    from fuzz_properties import ALL_CODES

    from mcplint.engine.lint import lint_text

    text = "def f(:\n    pass\nx = 1  # noqa: MCP002\ny = 2  # mcplint: ignore[MCP001]\n"
    assert [finding.code for finding in lint_text(text, "fuzz.py", ALL_CODES).findings] == ["MCP000"]


def test_a_file_that_begins_with_a_backslash_continuation_gets_exact_positions_and_fixes():
    """LibCST drops a leading `\\` + newline from its code; positions counted in that code
    were a line and a character early, and MCP008's fix broke the file (mutated fixtures)."""
    from fuzz_properties import ALL_CODES

    from mcplint.engine.fixer import fix_text
    from mcplint.engine.lint import lint_text

    body = (
        'from fastmcp import FastMCP\n\nmcp = FastMCP("calc")\n\n\n'
        '@mcp.tool\ndef add(a: int) -> int:\n    raise ValueError("probe")\n'
    )
    for prefix in ("\\\n", "  \\\n"):
        text = prefix + body
        found = [(f.code, f.line, f.column) for f in lint_text(text, "fuzz.py", ALL_CODES).findings]
        assert found == [("MCP008", 4, 7), ("MCP002", 9, 5)]
        fixed = fix_text(text, "fuzz.py", ALL_CODES, unsafe=True)
        assert fixed.failure is None
        assert 'FastMCP("calc", mask_error_details=True)' in fixed.text


def test_a_form_feed_after_a_decorator_keeps_positions():
    """LibCST's code drops a form feed that begins the line after a decorator, so its code is
    not a slice of the source: finding positions raised ValueError; now they are mapped
    through the two texts' common blocks."""
    from fuzz_properties import ALL_CODES

    from mcplint.engine.lint import lint_text

    text = (
        'from mcp.server.fastmcp import FastMCP\nmcp = FastMCP("b")\n\n\n'
        '@mcp.tool()\n\x0cdef f() -> int:\n    raise ValueError("probe")\n\n\n'
        '@mcp.tool()\ndef g() -> int:\n    raise ValueError("probe")\n'
    )
    found = [(finding.code, finding.line, finding.column) for finding in lint_text(text, "fuzz.py", ALL_CODES).findings]
    assert ("MCP002", 7, 5) in found and ("MCP002", 12, 5) in found
