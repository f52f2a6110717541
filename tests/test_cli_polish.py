"""Smaller CLI behaviours users of ruff expect."""

from __future__ import annotations

import io
import os
import sys

from click.testing import CliRunner
from test_cli import BAD_TOOL, json_findings, run_cli

from mcplint.check import CheckOptions, _progress_bar
from mcplint.cli import main
from mcplint.config import CliOverrides


def test_stdin_with_a_filename(tmp_path):
    (tmp_path / "mcplint.toml").write_text('[per-file-ignores]\n"legacy/*" = ["MCP002"]\n')
    runner = CliRunner()
    previous = os.getcwd()
    os.chdir(tmp_path)
    try:
        plain = runner.invoke(main, ["check", "--format", "json", "-", "--stdin-filename", "app/server.py"], input=BAD_TOOL)
        legacy = runner.invoke(main, ["check", "--format", "json", "-", "--stdin-filename", "legacy/server.py"], input=BAD_TOOL)
        anonymous = runner.invoke(main, ["check", "--format", "concise", "-"], input=BAD_TOOL)
    finally:
        os.chdir(previous)
    assert plain.exit_code == 1
    assert [(f["filename"], f["code"]) for f in json_findings(plain)] == [
        ("app/server.py", "MCP002"),
        ("app/server.py", "MCP001"),
    ]
    assert [f["code"] for f in json_findings(legacy)] == ["MCP001"]
    assert anonymous.stdout.startswith("-:9:9: MCP002")


def test_stdin_cannot_mix_with_paths(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    result = run_cli("check", "-", "a.py", cwd=tmp_path)
    assert result.exit_code == 2


def test_quiet_prints_findings_only(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--quiet", "--format", "concise", "server.py", cwd=tmp_path)
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 2
    assert "Found" not in result.stdout


def test_quiet_silences_warnings(tmp_path):
    (tmp_path / "notes.txt").write_text("")
    result = run_cli("check", "--quiet", ".", cwd=tmp_path)
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout == ""


def test_show_source_switches(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    without = run_cli("check", "--no-show-source", "server.py", cwd=tmp_path).stdout
    assert " | " not in without and without.endswith("Found 2 errors.\n")
    with_source = run_cli("check", "--format", "concise", "--show-source", "server.py", cwd=tmp_path).stdout
    assert '9 |         raise ValueError("note id is empty")' in with_source


def test_output_format_from_the_environment(tmp_path, monkeypatch):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    monkeypatch.setenv("MCPLINT_OUTPUT_FORMAT", "json")
    assert len(json_findings(run_cli("check", "server.py", cwd=tmp_path))) == 2
    assert run_cli("check", "--format", "concise", "server.py", cwd=tmp_path).stdout.startswith("server.py:9:9:")


def test_no_progress_bar_outside_a_terminal(tmp_path):
    for index in range(60):
        (tmp_path / f"m{index}.py").write_text("x = 1\n")
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.stderr == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_for_long_runs(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    options = CheckOptions(paths=(), overrides=CliOverrides())
    start = _progress_bar(options)
    assert start is not None
    assert start(10) is None  # a short run gets no bar
    advance = start(60)
    for _ in range(60):
        advance()
    assert _progress_bar(CheckOptions(paths=(), overrides=CliOverrides(), quiet=True)) is None
    monkeypatch.setenv("CI", "true")
    assert _progress_bar(options) is None
