"""The fix machinery: --fix, --diff, verification, atomic writes that keep the file's form."""

from __future__ import annotations

import ast
import os
import stat
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from fixture_expectations import FIXTURES
from test_cli import json_findings, run_cli

from mcplint.engine.fixer import add_imports, fix_text, without_imports_made_unused
from mcplint.finding import SAFE, Edit, Fix
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

ALL = FileSettings(codes=frozenset(RULES_BY_CODE))

STALE = textwrap.dedent(
    """\
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("notes")
    NOTES = {}


    @mcp.tool()
    def get_note(note_id: str) -> str:
        return NOTES[note_id]  # mcplint: ignore[MCP001]


    @mcp.tool()
    def delete_note(note_id: str) -> dict:
        return {"error": "read-only"}  # noqa: E501, MCP001, MCP002
    """
)
FIXED = STALE.replace("  # mcplint: ignore[MCP001]", "").replace("# noqa: E501, MCP001, MCP002", "# noqa: E501, MCP001")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "server.py").write_text(STALE)
    return tmp_path


def test_fix_rewrites_the_file_and_reports_what_remains(project):
    result = run_cli("check", "--fix", "server.py", cwd=project)
    assert (project / "server.py").read_text() == FIXED
    assert result.exit_code == 0
    assert result.stdout == "Found 2 errors (2 fixed, 0 remaining).\n"


def test_second_fix_changes_nothing(project):
    run_cli("check", "--fix", "server.py", cwd=project)
    again = run_cli("check", "--fix", "server.py", cwd=project)
    assert (project / "server.py").read_text() == FIXED
    assert again.stdout == "All checks passed!\n"


def test_without_fix_the_fixable_findings_are_marked(project):
    result = run_cli("check", "--format", "concise", "server.py", cwd=project)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert all(" MCP009 [*] " in line for line in lines[:2])
    assert lines[-1] == "[*] 2 fixable with the `--fix` option."
    assert (project / "server.py").read_text() == STALE


def test_diff_writes_nothing_and_exits_1(project):
    result = run_cli("check", "--diff", "server.py", cwd=project)
    assert result.exit_code == 1
    assert (project / "server.py").read_text() == STALE
    assert result.stdout.startswith("--- server.py\n+++ server.py\n")
    assert "-    return NOTES[note_id]  # mcplint: ignore[MCP001]\n+    return NOTES[note_id]\n" in result.stdout
    assert "Would fix 2 errors." in result.stderr
    (project / "server.py").write_text(FIXED)
    clean = run_cli("check", "--diff", "server.py", cwd=project)
    assert clean.exit_code == 0 and clean.stdout == ""


def test_show_fixes_and_exit_non_zero_on_fix(project):
    result = run_cli("check", "--fix", "--show-fixes", "--exit-non-zero-on-fix", "server.py", cwd=project)
    assert result.exit_code == 1
    assert "Fixed 2 errors:\n- server.py:\n    2 × MCP009 (unused-suppression)\n" in result.stderr


def test_json_carries_the_fix(project):
    findings = json_findings(run_cli("check", "--format", "json", "server.py", cwd=project))
    fix = findings[0]["fix"]
    assert fix == {
        "applicability": "safe",
        "message": "Remove the unused suppression",
        "edits": [{"content": "", "location": {"row": 9, "column": 26}, "end_location": {"row": 9, "column": 53}}],
    }


def test_sarif_carries_the_fix_and_validates(project):
    import json

    from test_report_formats import assert_valid_sarif

    log = json.loads(run_cli("check", "--format", "sarif", "server.py", cwd=project).stdout)
    assert_valid_sarif(log)
    fixes = log["runs"][0]["results"][0]["fixes"]
    assert fixes[0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]["startLine"] == 9


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_fix_keeps_bom_line_endings_and_permissions(tmp_path, newline):
    path = tmp_path / "server.py"
    path.write_bytes(b"\xef\xbb\xbf" + STALE.replace("\n", newline).encode("utf-8"))
    os.chmod(path, 0o640)
    run_cli("check", "--fix", "server.py", cwd=tmp_path)
    data = path.read_bytes()
    assert data == b"\xef\xbb\xbf" + FIXED.replace("\n", newline).encode("utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_fix_keeps_a_latin1_encoding(tmp_path):
    source = "# -*- coding: latin-1 -*-\n" + STALE.replace('"notes"', '"notes \xe9t\xe9"')
    (tmp_path / "server.py").write_bytes(source.encode("latin-1"))
    run_cli("check", "--fix", "server.py", cwd=tmp_path)
    fixed = (tmp_path / "server.py").read_bytes().decode("latin-1")
    assert "# mcplint: ignore[MCP001]" not in fixed and "notes \xe9t\xe9" in fixed


def test_a_fix_that_breaks_the_code_is_dropped(project, monkeypatch):
    monkeypatch.setattr(
        "mcplint.rules.mcp009_unused_suppression._fix",
        lambda directive, line, kept: Fix(SAFE, "bad", (Edit(directive.line, 1, directive.line, 1, "def (:"),)),
    )
    result = run_cli("check", "--fix", "--format", "concise", "server.py", cwd=project)
    assert (project / "server.py").read_text() == STALE
    assert "does not parse; no fix applied" in result.stderr
    assert result.exit_code == 1


def test_a_fix_that_introduces_a_finding_is_dropped(project, monkeypatch):
    def introduce(directive, line, kept):
        indent = len(line) - len(line.lstrip())
        edit = Edit(directive.line, 1, directive.line, 1, " " * indent + 'raise ValueError("x")\n')
        return Fix(SAFE, "introduces MCP002", (edit,))

    monkeypatch.setattr("mcplint.rules.mcp009_unused_suppression._fix", introduce)
    outcome = fix_text(STALE, "server.py", ALL, unsafe=False)
    assert outcome.text == STALE
    assert outcome.failure == "a fix would introduce new findings; no fix applied"


def test_overlapping_fixes_wait_for_the_next_pass(monkeypatch):
    outcome = fix_text(STALE, "server.py", ALL, unsafe=False)
    assert outcome.text == FIXED
    assert [finding.code for finding in outcome.fixed] == ["MCP009", "MCP009"]


def test_add_imports_is_idempotent():
    source = "import os\n\nx = 1\n"
    once = add_imports(source, [("mcp.server.fastmcp.exceptions", "ToolError")])
    assert once == "import os\nfrom mcp.server.fastmcp.exceptions import ToolError\n\nx = 1\n"
    assert add_imports(once, [("mcp.server.fastmcp.exceptions", "ToolError")]) == once


def test_fix_then_warm_cache_still_fixes(project):
    run_cli("check", "server.py", cwd=project)  # fills the cache with the fixable findings
    run_cli("check", "--fix", "server.py", cwd=project)
    assert (project / "server.py").read_text() == FIXED


@pytest.mark.parametrize("path", sorted((FIXTURES / "MCP009").glob("*.py")), ids=lambda p: p.name)
def test_mcp009_fixture_fixes_match_their_snapshot(path: Path):
    expected = path.with_suffix(".fixed")
    outcome = fix_text(path.read_text(), path.name, ALL, unsafe=False)
    assert outcome.failure is None
    assert outcome.text == expected.read_text()
    assert not [finding for finding in outcome.remaining if finding.code == "MCP009"]
    assert fix_text(outcome.text, path.name, ALL, unsafe=False).text == outcome.text


# add_imports and the removal of imports made unused work on the module's head / the import
# lines alone (speed: issue 12); they must give exactly what LibCST's visitors give on the whole.
_HEADS = [
    "x = 1\n",
    '"""Doc."""\n\nimport os\n\n\n# comment\nclass A:\n    def f(self):\n        from mcp.types import ErrorData\n',
    "__strict__ = True\nfrom __future__ import annotations\nimport os  # why\n\nx = 1\n",
    "from mcp.types import ErrorData, INTERNAL_ERROR\nimport sys\nprint(1)\nimport json\n",
    "# header\n\nfrom mcp.types import (\n    ErrorData,  # kept\n    INTERNAL_ERROR,\n)\n",
    "import os; import sys\n@dec\ndef f():\n    pass\n",
    "",
    # The head found by the tokenizer: decorators, lines continued at column 0, `;`, CRLF.
    '"""Doc."""\nimport os\n\n# before\n@app.tool(\n    name="x",\n)\n@other\nasync def f():\n    return 1\n',
    "@dec\nclass A:\n    pass\nimport os\n\n\nx = (\n1)\n",
    "import os\nx = [\n1,\n]\nimport sys\n",
    "from mcp.types import ErrorData\nimport os; y = 2\nz = 3\n",
    '"""Doc\nimport fake\n"""\nfrom . import a\nfrom.b import c\nif True:\n    import d\n',
    "import os\r\n\r\n\r\nx = 1\r\n",
    "class A:\n    pass\n\n    # indented comment\n# comment\ndef f(): pass\n",
]
_IMPORTS = [(("mcp.types", "ErrorData"),), (("logging", ""), ("__future__", "annotations"), ("pkg.errors", "pkg_error"))]


@pytest.mark.parametrize("source", _HEADS)
@pytest.mark.parametrize("imports", _IMPORTS)
def test_add_imports_gives_what_libcst_s_visitor_gives_on_the_whole_module(source, imports):
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, ImportItem

    items = [ImportItem(module, obj_name=name or None) for module, name in imports]
    whole = AddImportsVisitor(CodemodContext(), items).transform_module(cst.parse_module(source)).code
    assert add_imports(source, list(imports)) == whole


def test_the_text_work_of_a_pass_is_remembered_beyond_a_count_of_files(monkeypatch):
    """A round of a large project's migration fixes more files than lru_cache(maxsize=64) held:
    each pass's text work is remembered by the size of its texts instead (engine/fixer.py)."""
    from mcplint.engine import fixer

    calls = []
    remembered = fixer._Remembered(lambda before, after: calls.append(after) or after.upper(), budget=10_000)
    texts = [f"x = {number}\n" for number in range(200)]
    assert [remembered("", text) for text in texts] == [text.upper() for text in texts]
    assert [remembered("", text) for text in texts] == [text.upper() for text in texts]
    assert len(calls) == 200  # the second round computed nothing again
    small = fixer._Remembered(lambda before, after: calls.append(after) or after, budget=100)
    for text in texts:
        small("", text)
    assert small("", texts[0]) == texts[0] and calls[-1] == texts[0]  # forgotten: over its budget


@pytest.mark.parametrize("source", _HEADS)
def test_imports_made_unused_are_removed_as_libcst_s_visitor_removes_them(source):
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import RemoveImportsVisitor

    mentioned = source + "\nErrorData\nINTERNAL_ERROR\nos\nsys\nannotations\n"
    context = CodemodContext()
    for statement in ast.parse(source).body:  # only top-level imports are candidates
        if isinstance(statement, ast.ImportFrom) and statement.module == "mcp.types":
            for alias in statement.names:
                RemoveImportsVisitor.remove_unused_import(context, "mcp.types", alias.name, None)
    whole = RemoveImportsVisitor(context).transform_module(cst.parse_module(source)).code
    assert without_imports_made_unused(mentioned, source) == whole


_LOGGER_HEADS = [
    *_HEADS,
    "import logging\n\nlogger = logging.getLogger(__name__)\n\ndef f():\n    pass\n",
    "import logging\n\ndef f():\n    pass\n\nlogger: logging.Logger = logging.getLogger('x')\n",
    "import logging\nlog = logger = None\nclass A:\n    pass\n",
    '"""Doc."""\n# lead\nimport os\nX = 1\n\n\n# about f\n@dec\nasync def f():\n    pass\nimport sys\n',
    "# only a comment\ndef f():\n    pass\n",
    "import os\r\nX = 1\r\n\r\nclass A:\r\n    pass\r\n",
    "import os\nif True:\n    logger = 1\ndef f():\n  return 1\n",
]


@pytest.mark.parametrize("source", _LOGGER_HEADS)
def test_the_module_logger_is_added_as_on_the_whole_module(source):
    from mcplint.engine.fixer import _with_module_logger_parsed, with_module_logger

    assert with_module_logger(source) == _with_module_logger_parsed(source)
