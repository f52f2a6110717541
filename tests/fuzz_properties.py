"""What must hold for any source text: the properties the fuzz tests check.

Shared by ``tests/test_fuzz.py`` (a fixed seed, few examples in the fast tier,
more in the slow one) and ``benchmarks/fuzz.py`` (long runs). The sources are
hypothesmith programs wrapped in MCP tools and dispatchers, and random
mutations of the fixture files. For each text:

- linting it raises nothing and reports no internal error;
- every fix's edits stay inside its finding's lines;
- ``check --fix --unsafe-fixes`` output parses (and compiles when the input did), and
  no fix offered on code that parses is dropped for breaking it;
- a second fix run changes nothing;
- ``--diff`` shows exactly what ``--fix`` writes.
"""

from __future__ import annotations

import tempfile
import textwrap
import warnings
from pathlib import Path

import libcst as cst
from hypothesis import event
from hypothesis import strategies as st

from mcplint.engine.fixer import fix_path, fix_text, unified_diff
from mcplint.engine.lint import forget_walked_modules, lint_text
from mcplint.rules import ALL_RULES
from mcplint.settings import FileSettings

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_FILES = sorted(path for path in FIXTURES.rglob("*.py") if path.parts[-2] != "fixes")
ALL_CODES = FileSettings(codes=frozenset(rule.code for rule in ALL_RULES))

# -- sources -------------------------------------------------------------------------------------
_TOOL = '''\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("fuzz")


@mcp.tool()
def tool(x: str) -> dict:
    try:
{body}
    except Exception as error:
        return {{"error": str(error)}}
    return {{}}
'''
_DISPATCHER = '''\
from mcp.server import Server
from mcp.types import TextContent

server = Server("fuzz")


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[TextContent]:
    if name == "run":
{body}
    raise ValueError(f"Unknown tool: {{name}}")
'''
_MODULE = '''\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("fuzz")
{body}

@mcp.tool()
def tool(x: str) -> str:
    return helper(x)
'''


def _wrapped(program: str, template: str) -> str:
    indent = " " * 8 if template is not _MODULE else ""
    body = textwrap.indent(program, indent, lambda line: True) if program.strip() else indent + "pass"
    return template.format(body=body.rstrip("\n"))


def hypothesmith_sources() -> st.SearchStrategy[str]:
    """A generated program at module level, in a tool's body or in a low-level dispatcher."""
    import hypothesmith

    return st.builds(
        _wrapped, hypothesmith.from_grammar(), st.sampled_from([_TOOL, _DISPATCHER, _MODULE])
    )


_INSERTIONS = [
    "(", ")", "[", "]", ":", ",", "\n", "\r", "\r\n", "\t", " ", "\\", "\\\n", '"', "'", '"""', "#", "\f",
    "\x00", "\u202e", "\x1b]0;x\x07", "raise ", "raise ValueError('x')\n", "try:\n", "except Exception:\n",
    "return {'error': 'x'}\n", "return []\n", "    ", "pass\n", "async ", "await ", "lambda: ", "not ",
    "@mcp.tool()\n", "def f(x):\n", "from mcp.server.fastmcp import FastMCP\n", "# mcplint: ignore\n",
    "# noqa: MCP002\n", "(" * 250, ".a" * 1200, "é", "𝔘",
]


@st.composite
def mutated_fixtures(draw: st.DrawFn) -> str:
    """A fixture file with a few random edits: characters and statements inserted, ranges
    deleted or duplicated, lines swapped, line endings changed."""
    text = draw(st.sampled_from(FIXTURE_FILES)).read_text(encoding="utf-8", errors="replace")
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "swap", "newlines"]))
        at = draw(st.integers(0, len(text)))
        if kind == "insert":
            text = text[:at] + draw(st.sampled_from(_INSERTIONS)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif kind == "duplicate":
            end = at + draw(st.integers(1, 200))
            text = text[:end] + text[at:end] + text[end:]
        elif kind == "swap":
            lines = text.splitlines(keepends=True)
            if len(lines) > 1:
                i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
                text = "".join(lines)
        else:
            text = text.replace("\n", draw(st.sampled_from(["\r\n", "\r"])))
    return text


# -- properties ----------------------------------------------------------------------------------
def _parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError:
        return False
    return True


def _compiles(text: str) -> bool:
    with warnings.catch_warnings():  # generated code is full of `1()`: SyntaxWarning
        warnings.simplefilter("ignore")
        try:
            compile(text, "fuzz.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def check_properties(text: str) -> None:
    """Every property above, for one text."""
    try:
        _check_properties(text)
    finally:
        forget_walked_modules()  # the engine keeps walked modules for a run's rounds: not here


def _check_properties(text: str) -> None:
    result = lint_text(text, "fuzz.py", ALL_CODES)
    assert not any("internal error" in warning for warning in result.warnings), result.warnings
    for finding in result.findings:
        for edit in finding.fix.edits if finding.fix else ():
            # Inside the finding's lines; deleting a whole line ends at the next line's start.
            assert (edit.line, edit.column) >= (finding.line, 1), (finding, edit)
            assert (edit.end_line, edit.end_column) <= (finding.end_line + 1, 1), (finding, edit)
    event(f"findings: {'some' if result.findings else 'none'}")
    if not any(finding.fix for finding in result.findings):
        return
    fixed = fix_text(text, "fuzz.py", ALL_CODES, unsafe=True)
    event("fixed" if fixed.text != text else f"fix dropped: {fixed.failure}")
    if fixed.failure is not None and "does not parse" in fixed.failure:
        assert not _parses(text), "a fix offered on code that parses broke it (the fixer dropped it)"
    if fixed.text == text:
        return
    assert _parses(fixed.text), "the fixed code does not parse"
    if _compiles(text):
        assert _compiles(fixed.text), "the fixed code does not compile (it did before)"
    again = fix_text(fixed.text, "fuzz.py", ALL_CODES, unsafe=True)
    assert again.text == fixed.text, "a second fix run changed the code again"
    # --diff and --fix, through a file as the CLI does them.
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no file holds this text
        return
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.py"
        path.write_bytes(data)
        diff = fix_path(str(path), "fuzz.py", ALL_CODES, unsafe=True, write=False).diff
        fix_path(str(path), "fuzz.py", ALL_CODES, unsafe=True, write=True)
        written = path.read_bytes().decode("utf-8")
    assert diff == unified_diff(text, written, "fuzz.py"), "--diff differs from what --fix wrote"
