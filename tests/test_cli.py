"""The command line, end to end, through click's runner (in-process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mcplint import __version__
from mcplint.catalogue import catalogue
from mcplint.cli import main
from mcplint.engine import runner as engine_runner

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "notes_server"

BAD_TOOL = textwrap.dedent(
    """\
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("demo")


    @mcp.tool()
    def get_note(note_id: str) -> dict:
        if not note_id:
            raise ValueError("note id is empty")
        return {"error": "Note not found"}
    """
)


def run_cli(*args: str, cwd: Path | None = None):
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(main, list(args), catch_exceptions=False)
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(previous)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "server.py").write_text(BAD_TOOL)
    return tmp_path


def json_findings(result) -> list[dict]:
    return json.loads(result.stdout)


def test_version():
    result = run_cli("--version")
    assert result.exit_code == 0
    assert result.output.strip() == f"mcplint {__version__}"


def test_python_dash_m_runs_the_cli():
    completed = subprocess.run([sys.executable, "-m", "mcplint", "--version"], capture_output=True, text=True)
    assert completed.returncode == 0
    assert completed.stdout.strip() == f"mcplint {__version__}"


def test_example_server_reports_its_mistakes_and_exits_1():
    result = run_cli("check", str(EXAMPLE), "--format", "json")
    assert result.exit_code == 1
    codes = {finding["code"] for finding in json_findings(result)}
    assert codes == {"MCP001", "MCP002", "MCP003", "MCP004", "MCP005", "MCP006", "MCP007"}


def test_json_objects_carry_the_documented_fields(project):
    result = run_cli("check", "--format", "json", "server.py", cwd=project)
    findings = json_findings(result)
    assert [f["code"] for f in findings] == ["MCP002", "MCP001"]
    first = findings[0]
    assert set(first) >= {"code", "name", "message", "filename", "location", "end_location", "fix", "handler"}
    assert first["filename"] == "server.py"
    assert first["location"] == {"row": 9, "column": 9}
    assert first["end_location"] == {"row": 9, "column": 45}
    assert first["fix"] is None
    assert first["handler"] == "get_note"
    assert first["name"] == "raw-exception-raise"


def test_full_format_shows_source_and_caret(project):
    result = run_cli("check", "server.py", cwd=project)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("server.py:9:9: MCP002 ")
    assert lines[1] == '9 |         raise ValueError("note id is empty")'
    assert lines[2] == "  |         " + "^" * 36
    assert lines[-1] == "Found 2 errors."
    assert "\x1b[" not in result.output  # no colour outside a terminal


def test_concise_format(project):
    result = run_cli("check", "--format", "concise", "server.py", cwd=project)
    assert result.output.splitlines()[:2] == [
        "server.py:9:9: MCP002 Raw `ValueError` raised in handler scope; raise a registry error "
        "(or the framework's ToolError) instead",
        "server.py:10:12: MCP001 Error dict returned as a successful result; return an isError result "
        "(or raise a registry error) instead",
    ]


def test_clean_code_exits_0(tmp_path):
    (tmp_path / "ok.py").write_text("def add(a, b):\n    return a + b\n")
    result = run_cli("check", str(tmp_path))
    assert result.exit_code == 0
    assert result.output == "All checks passed!\n"


def test_no_python_files_exits_0_with_a_note(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    result = run_cli("check", str(tmp_path))
    assert result.exit_code == 0
    assert "no Python files found" in result.stderr


def test_missing_path_exits_2(tmp_path):
    result = run_cli("check", str(tmp_path / "absent.py"))
    assert result.exit_code == 2
    assert "absent.py: no such file or directory" in result.stderr


def test_exit_zero(project):
    assert run_cli("check", "--exit-zero", "server.py", cwd=project).exit_code == 0


@pytest.mark.parametrize(
    ("options", "codes"),
    [
        (["--select", "MCP002"], ["MCP002"]),
        (["--select", "MCP00"], ["MCP002", "MCP001"]),
        (["--ignore", "MCP002"], ["MCP001"]),
        (["--select", "MCP000", "--extend-select", "MCP001"], ["MCP001"]),
        (["--select", "ALL", "--ignore", "MCP001,MCP002"], []),
    ],
)
def test_rule_selection(project, options, codes):
    result = run_cli("check", "--format", "json", *options, "server.py", cwd=project)
    assert [f["code"] for f in json_findings(result)] == codes


def test_unknown_selector_exits_2(project):
    result = run_cli("check", "--select", "MCP999", "server.py", cwd=project)
    assert result.exit_code == 2
    assert result.stderr.strip() == "mcplint: error: unknown rule selector 'MCP999'"


def test_statistics(project):
    result = run_cli("check", "--statistics", "server.py", cwd=project)
    assert result.output == "1\tMCP001\tbare-error-return\n1\tMCP002\traw-exception-raise\nFound 2 errors.\n"


def test_output_file(project):
    result = run_cli("check", "--format", "json", "--output", "report.json", "server.py", cwd=project)
    assert result.exit_code == 1
    assert result.output == ""
    assert len(json.loads((project / "report.json").read_text())) == 2


def test_pool_and_in_process_give_identical_output(tmp_path, monkeypatch):
    for index in range(12):
        (tmp_path / f"server_{index:02}.py").write_text(BAD_TOOL)
    (tmp_path / "broken.py").write_text("def f(:\n")
    in_process = run_cli("check", "--no-cache", "--jobs", "1", "--format", "json", str(tmp_path))
    monkeypatch.setattr(engine_runner, "MIN_BYTES_FOR_POOL", 0)
    pooled = run_cli("check", "--no-cache", "--jobs", "2", "--format", "json", str(tmp_path))
    assert pooled.output == in_process.output
    assert len(json_findings(pooled)) == 25


def test_syntax_error_is_a_finding_and_the_run_goes_on(project):
    (project / "broken.py").write_text("from mcp.server.fastmcp import FastMCP\ndef f(:\n    pass\n")
    result = run_cli("check", "--format", "json", ".", cwd=project)
    findings = json_findings(result)
    assert [(f["filename"], f["code"]) for f in findings] == [
        ("broken.py", "MCP000"),
        ("server.py", "MCP002"),
        ("server.py", "MCP001"),
    ]
    assert findings[0]["location"]["row"] == 2


@pytest.mark.parametrize(
    ("content", "message", "row"),
    [
        (b"x = 1\ny = '\x00'\n", "source contains a NUL byte", 2),
        (b"x = 1\n\ny = '\xff'\n", "cannot decode byte 0xff as utf-8", 3),
        (b"# -*- coding: klingon -*-\nx = 1\n", "invalid encoding declaration", 1),
    ],
)
def test_undecodable_files_are_findings(tmp_path, content, message, row):
    (tmp_path / "bad.py").write_bytes(content)
    findings = json_findings(run_cli("check", "--format", "json", "bad.py", cwd=tmp_path))
    assert len(findings) == 1
    assert findings[0]["code"] == "MCP000"
    assert message in findings[0]["message"]
    assert findings[0]["location"]["row"] == row


def test_latin1_source_with_a_coding_cookie_is_read(tmp_path):
    source = "# -*- coding: latin-1 -*-\n" + BAD_TOOL.replace("Note not found", "Note introuvable \xe9")
    (tmp_path / "server.py").write_bytes(source.encode("latin-1"))
    findings = json_findings(run_cli("check", "--format", "json", "server.py", cwd=tmp_path))
    assert [f["code"] for f in findings] == ["MCP002", "MCP001"]


def test_rule_explains_itself():
    result = run_cli("rule", "mcp001")
    assert result.exit_code == 0
    assert result.output.startswith("# MCP001 bare-error-return")
    assert "## Why is this bad?" in result.output


def test_unknown_rule_exits_2():
    result = run_cli("rule", "MCP999")
    assert result.exit_code == 2


def test_rules_lists_every_rule():
    header, *lines = run_cli("rules").output.splitlines()
    assert header.split() == ["code", "name", "fix", "summary"]
    codes = [line.split()[0] for line in lines]
    assert codes == [document.code for document in catalogue()]
    assert {"MCP000", "MCP001", "MCP002", "MCP009", "REG001", "REG015", "BRK001", "BRK100"} <= set(codes)
    assert [code[:3] for code in codes] == sorted((code[:3] for code in codes), key=["MCP", "REG", "BRK"].index)


def test_a_file_skipped_as_nested_too_deeply_is_not_called_passed(project, monkeypatch):
    """A file the analysis gives up on is a blind spot: the summary says so instead of "All
    checks passed!" (the exit code stays that of a clean run; the warning names the file)."""
    import mcplint.engine.lint as lint

    def too_deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(lint, "lint_text", too_deep)  # forked workers inherit it
    result = run_cli("check", "--no-cache", ".", cwd=project)
    assert "server.py: skipped, nested too deeply to analyse" in result.stderr
    assert "All checks passed!" not in result.stdout
    assert "No findings, but 1 file was not analysed (see the warnings above)." in result.stdout
    assert result.exit_code == 0


def test_the_summary_counts_the_files_not_analysed():
    from mcplint.report.text import Summary

    assert Summary().render([], color=False) == "All checks passed!\n"
    assert Summary(unanalysed=2).render([], color=False) == "No findings, but 2 files were not analysed (see the warnings above).\n"
