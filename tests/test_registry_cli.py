"""The registry on the command line: `mcplint registry check` and `mcplint check` with a registry."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_cli import BAD_TOOL, json_findings, run_cli

REGISTRIES = Path(__file__).resolve().parent / "fixtures" / "registry"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    shutil.copy(REGISTRIES / "seed_001.toml", tmp_path / "errors.toml")
    return tmp_path


def codes(result):
    return [finding["code"] for finding in json_findings(result)]


def test_registry_check_reports_with_lines_and_exits_1(project):
    result = run_cli("registry", "check", "--format", "json", "errors.toml", cwd=project)
    assert result.exit_code == 1
    findings = json_findings(result)
    assert {(f["location"]["row"], f["code"]) for f in findings if f["code"] == "REG009"} == {
        (66, "REG009"),
        (71, "REG009"),
        (85, "REG009"),
    }
    assert all(f["filename"] == "errors.toml" for f in findings)


def test_registry_check_clean_registry_exits_0(tmp_path):
    shutil.copy(REGISTRIES / "valid.toml", tmp_path / "mcp-errors.toml")
    result = run_cli("registry", "check", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout == "All checks passed!\n"


def test_registry_check_without_a_registry_exits_2(tmp_path):
    result = run_cli("registry", "check", cwd=tmp_path)
    assert result.exit_code == 2
    assert "no registry" in result.stderr


def test_malformed_registry_exits_2_with_file_and_line(tmp_path):
    (tmp_path / "mcp-errors.toml").write_text('schema_version = 1\nnamespace = "x"\n[domains.a\nrange = [1, 2]\n')
    result = run_cli("registry", "check", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.startswith("mcplint: error: mcp-errors.toml:3:")
    assert len(result.stderr.strip().splitlines()) == 1
    assert run_cli("check", ".", cwd=tmp_path).exit_code == 2


def test_check_includes_the_configured_registry(project):
    (project / "mcplint.toml").write_text('registry = "errors.toml"\n')
    result = run_cli("check", "--format", "json", ".", cwd=project)
    found = codes(result)
    assert found.count("REG009") == 3
    assert {"MCP001", "MCP002"} <= set(found)
    assert codes(run_cli("check", "--format", "json", "--ignore", "REG", ".", cwd=project)) == ["MCP002", "MCP001"]
    assert set(codes(run_cli("check", "--format", "json", "--select", "REG009", ".", cwd=project))) == {"REG009"}


def test_check_finds_mcp_errors_toml_beside_the_config(project):
    (project / "errors.toml").rename(project / "mcp-errors.toml")
    (project / "pyproject.toml").write_text('[tool.mcplint]\nignore = ["MCP"]\n')
    findings = json_findings(run_cli("check", "--format", "json", ".", cwd=project))
    assert findings and all(f["filename"] == "mcp-errors.toml" for f in findings)


def test_registry_findings_are_suppressible_per_file(project):
    (project / "mcplint.toml").write_text('registry = "errors.toml"\n[per-file-ignores]\n"*.toml" = ["REG002"]\n')
    assert "REG002" not in codes(run_cli("check", "--format", "json", ".", cwd=project))


def test_sarif_with_a_registry_finding_validates(project):
    import json

    from test_report_formats import assert_valid_sarif

    (project / "mcplint.toml").write_text('registry = "errors.toml"\n')
    log = json.loads(run_cli("check", "--format", "sarif", ".", cwd=project).stdout)
    assert_valid_sarif(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"errors.toml", "server.py"}
