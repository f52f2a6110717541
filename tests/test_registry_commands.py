"""`mcplint registry export` and `mcplint registry diff` from the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from test_cli import json_findings, run_cli

REGISTRIES = Path(__file__).resolve().parent / "fixtures" / "registry"


def test_export_markdown_and_json(tmp_path):
    shutil.copy(REGISTRIES / "valid.toml", tmp_path / "mcp-errors.toml")
    markdown = run_cli("registry", "export", cwd=tmp_path)
    assert markdown.exit_code == 0
    assert "AUTH_TOKEN_INVALID" in markdown.stdout
    as_json = run_cli("registry", "export", "--format", "json", "mcp-errors.toml", cwd=tmp_path)
    assert as_json.exit_code == 0
    assert json.loads(as_json.stdout)


def test_diff_reports_breaking_changes_and_exits_1(tmp_path):
    case = next(path for path in sorted((REGISTRIES / "diff").iterdir()) if path.name.startswith("brk002"))
    shutil.copy(case / "old.toml", tmp_path / "old.toml")
    shutil.copy(case / "new.toml", tmp_path / "mcp-errors.toml")
    result = run_cli("registry", "diff", "--format", "json", "old.toml", cwd=tmp_path)
    assert result.exit_code == 1
    assert {finding["code"] for finding in json_findings(result)} == {"BRK002"}
    assert run_cli("registry", "diff", "--exit-zero", "old.toml", cwd=tmp_path).exit_code == 0


def test_diff_without_a_registry_exits_2(tmp_path):
    (tmp_path / "old.toml").write_text("schema_version = 1\n")
    assert run_cli("registry", "diff", "old.toml", cwd=tmp_path).exit_code == 2


def test_brk_codes_are_documented():
    result = run_cli("rule", "BRK002")
    assert result.exit_code == 0
    assert result.stdout.startswith("# BRK002 code-renumbered")


def test_generate_then_check_then_stale(tmp_path):
    shutil.copy(REGISTRIES / "valid.toml", tmp_path / "mcp-errors.toml")
    (tmp_path / "server.py").write_text("from fastmcp import FastMCP\n")
    written = run_cli("registry", "generate", cwd=tmp_path)
    assert written.exit_code == 0
    module = tmp_path / "acme_weather" / "errors.py"
    assert "# framework: fastmcp" in module.read_text()
    assert run_cli("registry", "generate", "--check", cwd=tmp_path).exit_code == 0
    registry = tmp_path / "mcp-errors.toml"
    registry.write_text(registry.read_text().replace("The access token is not valid.", "Rejected."))
    assert run_cli("registry", "generate", "--check", cwd=tmp_path).exit_code == 1
    stale = json_findings(run_cli("registry", "check", "--format", "json", cwd=tmp_path))
    assert [finding["code"] for finding in stale] == ["REG016"]
    assert run_cli("check", "--format", "json", "--select", "REG016", ".", cwd=tmp_path).exit_code == 1
