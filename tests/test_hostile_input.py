"""Hostile input: no single file takes the run down, none is silently skipped.

The crash cases run the CLI in a child process: before the bounds, LibCST's
parser killed the process (exit 139), which must fail the test, not pytest.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplint.engine import limits
from mcplint.source import source_lines

TOOL = textwrap.dedent(
    """\
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("demo")


    @mcp.tool()
    def get_note(note_id: str) -> str:
        raise ValueError("note id is empty")
    """
)

DEEP = {
    "parentheses": "x = " + "(" * 2_000 + "1" + ")" * 2_000 + "\n",
    "lists": "x = " + "[" * 3_000 + "1" + "]" * 3_000 + "\n",
    "sum": "x = " + "+".join(["1"] * 10_000) + "\n",
    "attributes": "x = a" + ".b" * 10_000 + "\n",
    "or": "x = " + " or ".join(["a"] * 10_000) + "\n",
    "lambdas": "x = " + "lambda: " * 5_000 + "1\n",
}


def check(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcplint", "check", "--no-cache", "--format", "concise", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_deep_nesting_is_a_finding_and_the_run_goes_on(tmp_path, jobs):
    for name, body in DEEP.items():
        # In a handler module (LibCST's path) and in a plain one (CPython's path).
        (tmp_path / f"server_{name}.py").write_text(TOOL + body)
        (tmp_path / f"plain_{name}.py").write_text(body)
    (tmp_path / "tool.py").write_text(TOOL)
    (tmp_path / "padding.py").write_text("# a pool is worth starting\n" * 12_000)
    result = check(tmp_path, "--jobs", jobs, ".")
    assert result.returncode == 1, result.stderr
    assert "tool.py:8:5: MCP002" in result.stdout  # the other files' findings survive
    for name in DEEP:
        assert f"server_{name}.py:9:" in result.stdout and "MCP000" in result.stdout
    for name in ("parentheses", "lists", "sum", "attributes", "lambdas"):  # CPython refuses these
        assert f"plain_{name}.py:1:" in result.stdout
    assert "plain_or.py" not in result.stdout  # CPython accepts it: one flat BoolOp


@pytest.mark.parametrize("depth", [250, 1_000])
def test_what_cpython_refuses_is_mcp000(tmp_path, depth):
    """CPython refuses more than 200 nested brackets; LibCST would accept them."""
    (tmp_path / "server.py").write_text(TOOL + "x = " + "(" * depth + "1" + ")" * depth + "\n")
    (tmp_path / "plain.py").write_text("x = " + "(" * depth + "1" + ")" * depth + "\n")
    result = check(tmp_path, "--jobs", "1", ".")
    assert result.returncode == 1
    assert "plain.py:1:205: MCP000 SyntaxError: too many nested parentheses" in result.stdout
    assert "server.py:9:205: MCP000 SyntaxError: too many nested parentheses (more than 200)" in result.stdout


def test_a_file_over_the_size_limit_is_mcp000_naming_the_limit(tmp_path, monkeypatch):
    from mcplint.config import FileSettings
    from mcplint.engine.lint import lint_path
    from mcplint.rules import ALL_RULES

    monkeypatch.setattr(limits, "MAX_PARSED_BYTES", 1_000)
    monkeypatch.setattr("mcplint.engine.lint.MAX_PARSED_BYTES", 1_000)
    path = tmp_path / "big.py"
    path.write_text(TOOL + "# padding\n" * 200)
    settings = FileSettings(codes=frozenset(rule.code for rule in ALL_RULES))
    (finding,) = lint_path(str(path), "big.py", settings, False).findings
    assert finding.code == "MCP000"
    assert finding.message == f"file too large to analyse: {len(TOOL) + 2_000:,} bytes (limit 1,000 bytes)"


def test_the_depth_bound_leaves_ordinary_code_alone():
    wide = "x = [" + ", ".join("a.b.c + d" for _ in range(5_000)) + "]\n"
    long_lines = "".join(f"y{n} = a.b.c.d(e + f * g)\n" for n in range(5_000))
    text = wide + long_lines + '"""' + "(" * 5_000 + '"""\n' + "# " + "." * 5_000 + "\n"
    assert limits.depth_refusal(text) is None
    assert limits.depth_refusal("x = " + "+".join(["1"] * 1_000) + "\n") is None
    assert limits.depth_refusal("x = " + "+".join(["1"] * 1_002) + "\n") is not None


def test_the_depth_bound_counts_keywords_not_names_holding_them():
    """The scan takes names whole: `orange`, `x_or`, `if_` chain nothing, `or` between names does."""
    assert limits.depth_refusal("x = " + " or ".join(["a"] * 1_002) + "\n") is not None
    for name in ("orange", "x_or", "if_", "android", "lambdas", "awaited", "r", "f"):
        assert limits.depth_refusal("x = [" + f" {name}, " * 1_002 + "]\n") is None
        assert limits.depth_refusal("x = " + "+".join([name] * 1_002) + "\n") is not None


# -- the framework-import pre-screen never misses an import ------------------------------------
def _all_codes():
    from mcplint.config import FileSettings
    from mcplint.rules import ALL_RULES

    return FileSettings(codes=frozenset(rule.code for rule in ALL_RULES))


IMPORT = "from mcp.server.fastmcp import FastMCP\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(TOOL.replace(IMPORT, "\f" + IMPORT), id="form-feed"),
        pytest.param(TOOL.replace(IMPORT, "from \\\nmcp.server.fastmcp import FastMCP\n"), id="continuation"),
        pytest.param(
            TOOL.replace(IMPORT, "import os, \\\n    mcp.server.fastmcp as fm\n").replace("FastMCP(", "fm.FastMCP("),
            id="import-continuation",
        ),
        pytest.param(TOOL.replace(IMPORT, "try: " + IMPORT + "except ImportError: raise\n"), id="try-one-line"),
        pytest.param(TOOL.replace(IMPORT, "import os; " + IMPORT), id="after-semicolon"),
        pytest.param(("# a server\n" + TOOL).replace("\n", "\r"), id="cr-only"),
        pytest.param(("# a server\n" + TOOL).replace("\n", "\r\n"), id="crlf"),
    ],
)
def test_prescreen_never_misses_a_valid_import(text):
    from mcplint.engine.lint import lint_text

    compile(text, "server.py", "exec")  # Python runs it: the import is real
    codes = [finding.code for finding in lint_text(text, "server.py", _all_codes()).findings]
    assert codes == ["MCP002"]


def test_prescreen_patterns_accept_every_statement_start():
    from mcplint.analysis.prescreen import ImportScreen

    screen = ImportScreen(("mcp",))
    starts = ("x = 1\rfrom mcp import y", "if x:\fimport mcp", "x=1;\\\n  from\\\n mcp import y", "from\tmcp import y")
    for text in starts:
        assert screen.search(text), text
    for text in ("import os\n", "from mcpx import y\n", "from .mcp import y\n", "x = 'no import here'\n"):
        assert not screen.search(text), text


_PIECES = ["from", "import", "mcp", "mcpx", " ", "\t", "\f", "\\\n", "\\\r\n", "\\\r", "\\", "\n", "\r", "\r\n", ";", ":", "x", ".", ",", "#"]


@settings(max_examples=3_000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=24))
def test_the_prescreen_finds_what_its_pattern_finds_first(pieces):
    """The screen looks from each keyword back to where a statement may begin, instead of
    letting the pattern try every character: the same first match, always."""
    from mcplint.analysis.prescreen import ImportScreen

    screen = ImportScreen(("mcp",))
    text = "".join(pieces)
    found, expected = screen.search(text), screen._pattern.search(text)
    assert (found and found.span()) == (expected and expected.span())


# -- a lone CR is a line break, as for Python ---------------------------------------------------
@pytest.mark.parametrize(
    "head, lines",
    [
        pytest.param("# one\r# two\r", 2, id="cr"),
        pytest.param("# one\r# two\n# three\r\n", 3, id="mixed"),
        pytest.param("# one \f two \x1c three \u2028 four\n", 1, id="not-breaks"),
    ],
)
def test_findings_point_at_the_line_python_numbers(head, lines):
    from mcplint.engine.lint import lint_text

    text = head + TOOL.replace("\n", "\r") if head.endswith("\r") else head + TOOL
    assert compile(text, "server.py", "exec")
    (finding,) = lint_text(text, "server.py", _all_codes()).findings
    assert (finding.code, finding.line, finding.column) == ("MCP002", lines + 8, 5)


def test_suppressions_and_their_fix_in_a_cr_only_file():
    from mcplint.engine.fixer import fix_text
    from mcplint.engine.lint import lint_text

    text = ("# server\n" + TOOL.replace('empty")', 'empty")  # noqa: MCP002') + "x = 1  # noqa: MCP002\n").replace(
        "\n", "\r"
    )
    findings = lint_text(text, "server.py", _all_codes()).findings
    assert [(f.code, f.line) for f in findings] == [("MCP009", 10)]
    fixed = fix_text(text, "server.py", _all_codes(), unsafe=False).text
    assert fixed == text.replace("x = 1  # noqa: MCP002", "x = 1")


def test_an_undecodable_byte_after_a_lone_cr_is_on_the_line_after_it():
    from mcplint.engine.lint import lint_bytes

    # Past the two lines the encoding declaration may be on (those fail as a declaration).
    (finding,) = lint_bytes(b"# one\n# two\n# three\rx = '\xff'\n", "server.py", _all_codes()).findings
    assert (finding.code, finding.line, finding.column) == ("MCP000", 4, 6)


# -- nothing from the checked files acts on the terminal ---------------------------------------
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202etxt.exe\x9b31m"


@pytest.mark.parametrize("format_name", ["full", "concise", "grouped", "github"])
def test_control_sequences_and_bidi_overrides_are_shown_not_sent(tmp_path, monkeypatch, format_name):
    from click.testing import CliRunner

    from mcplint.cli import main

    (tmp_path / "serv\ner.py").write_text(TOOL.replace('"note id is empty"', repr(HOSTILE)))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", format_name, "."])
    assert result.exit_code == 1, result.output
    output = result.output
    for character in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert character not in output
    if format_name == "full":  # the source line
        assert "\\x1b]0;pwned\\x07\\x1b[2J\\u202etxt.exe\\x9b31m" in output  # shown, not sent
    assert ("serv%0Aer.py" if format_name == "github" else "serv\\x0aer.py") in output  # GitHub's own escape
    # The file name's newline does not start a report line of its own.
    assert not any(line.startswith("er.py") for line in output.splitlines())


@pytest.mark.parametrize("format_name", ["full", "concise", "grouped", "github"])
def test_messages_quoting_the_source_are_shown_not_sent(tmp_path, format_name):
    from mcplint.finding import Finding
    from mcplint.report import render

    finding = Finding(
        path=f"a{HOSTILE}.py", line=1, column=1, code="MCP009", end_line=1, end_column=2, name="n",
        message=f"Stale suppression codes in `# mcplint: ignore[{HOSTILE}]`",
    )  # fmt: skip
    output = render(format_name, [finding], color=True, root=tmp_path)
    for character in ("\x07", "\x9b", "\u202e"):
        assert character not in output
    assert "\x1b]" not in output and "\x1b[2J" not in output  # only mcplint's own colours remain
    assert output.count("\\x1b]0;pwned\\x07\\x1b[2J\\u202etxt.exe\\x9b31m") == (3 if format_name == "github" else 2)


def test_the_caret_spans_the_escapes_of_what_it_marks(tmp_path):
    from mcplint.finding import Finding
    from mcplint.report.text import _source_excerpt

    path = tmp_path / "escape.py"
    path.write_text("x = '\x1b[2J' + y\n")
    finding = Finding(path=str(path), line=1, column=5, code="MCP000", end_line=1, end_column=12, name="n", message="m")
    source, caret = _source_excerpt(finding, color=False).splitlines()[:2]
    assert source == "1 | x = '\\x1b[2J' + y"
    assert caret == "  |     ^^^^^^^^^^"


def test_the_handlers_command_shows_a_hostile_file_name_as_escapes(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from mcplint.cli import main

    (tmp_path / "a\x1b]0;x\x07\nb.py").write_text(TOOL)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["handlers", "."])
    assert result.exit_code == 0, result.output
    assert "a\\x1b]0;x\\x07\\x0ab.py" in result.output and "\x1b" not in result.output


def test_an_import_added_to_a_cr_only_file_keeps_its_last_line_break():
    from mcplint.engine.fixer import add_imports

    assert add_imports("x = 1\ry = 2\r", [("os", "path")]) == "from os import path\r\rx = 1\ry = 2\r"


@given(st.text(alphabet="ab\r\n\x0c\x0b\u2028", max_size=30))
def test_source_lines_break_where_python_numbers_lines(text):
    """Only \\r\\n, \\r and \\n end a line (not form feeds or Unicode separators), with or
    without a \\r in the text."""
    assert source_lines(text) == re.split(r"\r\n|\r|\n", text)


# Where CPython parses a text, the depth scan reads only the statements long enough to exceed a
# bound (``limits.parsed_depth_refusal``): each shape below, refused or not, is judged as the
# scan of the whole text judges it.
_CHAIN = " + ".join(["x"] * 1_200)
_SCANNED = {
    "assignment": f"y = {_CHAIN}\n",
    "return": "def f():\n    return (" + " or ".join(["a"] * 1_100) + ")\n",
    "decorator": "@decorator(" + ".".join(["a"] * 1_100) + ")\ndef f():\n    pass\n",
    "condition": "if " + " and ".join(["a"] * 1_100) + ":\n    pass\nelse:\n    pass\n",
    "except clause": "try:\n    pass\nexcept (" + " | ".join(["E"] * 1_100) + ") as e:\n    pass\n",
    "case guard": "match v:\n    case {'k': 1} if " + " and ".join(["a"] * 1_100) + ":\n        pass\n",
    "after a semicolon": "x = 1; y = " + ".".join(["a"] * 1_100) + "\n",
    "class bases": "class A(" + ".".join(["b"] * 1_100) + "):\n    pass\n",
    "body on the header's line": "if x: y(" + " + ".join(["a"] * 1_100) + ")\n",
    "long but flat literal": "x = {\n" + "".join(f"    'k{i}': v{i},\n" for i in range(3_000)) + "}\n",
    "long but shallow line": "x = 1\n" * 2_000 + "y = " + "-" * 990 + "1\n",
    "chain just under the bound": "x = [\n    " + " + ".join(["a"] * 999) + "\n]\n",
}


@pytest.mark.parametrize("shape", sorted(_SCANNED))
def test_the_scan_of_long_statements_refuses_what_the_whole_scan_refuses(shape):
    text = _SCANNED[shape]
    assert limits.parsed_depth_refusal(text, ast.parse(text)) == limits.depth_refusal(text)


def test_the_scan_of_long_statements_agrees_on_every_fixture():
    for path in sorted(Path(__file__).parent.joinpath("fixtures").rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue
        assert limits.parsed_depth_refusal(text, tree) == limits.depth_refusal(text), path
