"""`mcplint registry export` and `mcplint registry diff` from the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
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


def test_codes_and_ranges_beyond_int32_fail_check_and_generate(tmp_path):
    """Issue 14: `code = 2**63` and `range = [-1e23, 1e23]` passed both commands."""
    (tmp_path / "mcp-errors.toml").write_text(
        'schema_version = 1\nnamespace = "demo"\nhelpers-module = "errs"\n\n'
        "[domains.a]\nrange = [-1e23, 1e23]\n\n"
        '[domains.a.errors.BIG]\ncode = 9223372036854775808\nmessage = "Big"\nretryable = false\n'
    )
    check = run_cli("registry", "check", "--format", "concise", cwd=tmp_path)
    assert check.exit_code == 1
    assert check.stdout.splitlines()[:2] == [
        "mcp-errors.toml:6:1: REG007 `range` must be [lo, hi], two integers; got [-1e+23, 1e+23]",
        "mcp-errors.toml:9:8: REG003 `code` 9223372036854775808 is outside JSON-RPC's int32 range "
        "(-2147483648 to 2147483647)",
    ]
    generate = run_cli("registry", "generate", cwd=tmp_path)
    assert generate.exit_code == 2
    assert generate.stderr == "mcplint: error: mcp-errors.toml:8: cannot generate helpers: error `BIG` has no valid `code`\n"
    assert not (tmp_path / "errs.py").exists()


SHADOWING = 'schema_version = 1\nnamespace = "demo"\nhelpers-module = "{module}"\n\n[domains.notes]\nrange = [1000, 1099]\n\n[domains.notes.errors.NOTE_LOCKED]\ncode = 1000\nmessage = "The note is locked."\nretryable = false\n'
RAISING_TOOL = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n\n\n@mcp.tool()\ndef t() -> str:\n    raise ValueError("The note is locked.")\n'


@pytest.mark.parametrize("module", ["os", "json.errors", "mcp", "fastmcp.errors", "mcplint"])
def test_a_helpers_module_that_shadows_a_module_is_refused_everywhere(tmp_path, module):
    (tmp_path / "mcp-errors.toml").write_text(SHADOWING.format(module=module))
    (tmp_path / "server.py").write_text(RAISING_TOOL)
    check = run_cli("registry", "check", "--format", "concise", cwd=tmp_path)
    assert check.exit_code == 1
    assert check.stdout.splitlines()[0].startswith(f"mcp-errors.toml:3:18: REG017 `helpers-module` '{module}' would shadow ")
    generate = run_cli("registry", "generate", cwd=tmp_path)
    assert generate.exit_code == 2
    assert generate.stderr.startswith(f"mcplint: error: mcp-errors.toml:3: cannot place the helpers: `helpers-module` '{module}' would shadow")
    migrate = run_cli("migrate", "--write", ".", cwd=tmp_path)
    assert migrate.exit_code == 2
    assert migrate.stderr.splitlines() == [
        f"mcplint: error: cannot extend the registry: {tmp_path / 'mcp-errors.toml'}:3: `helpers-module` '{module}' would "
        f"shadow {migrate.stderr.split(' would shadow ')[1].strip()}"
    ]
    fix = run_cli("check", "--fix", "--unsafe-fixes", "--no-cache", ".", cwd=tmp_path)
    assert fix.exit_code == 1
    assert (tmp_path / "server.py").read_text() == RAISING_TOOL  # no `from os import notes_error`
    assert sorted(path.name for path in tmp_path.iterdir()) == ["mcp-errors.toml", "server.py"]


def test_a_shadowing_helpers_module_names_what_it_hides(tmp_path):
    (tmp_path / "mcp-errors.toml").write_text(SHADOWING.format(module="os"))
    result = run_cli("registry", "check", "--format", "concise", cwd=tmp_path)
    assert result.stdout.splitlines()[0] == (
        "mcp-errors.toml:3:18: REG017 `helpers-module` 'os' would shadow the standard library's `os`: "
        "every import of it would get the helpers"
    )


def test_a_path_traversal_helpers_module_gets_its_own_message(tmp_path):
    (tmp_path / "mcp-errors.toml").write_text(SHADOWING.format(module="../../etc/errors"))
    generate = run_cli("registry", "generate", cwd=tmp_path)
    assert generate.exit_code == 2
    assert generate.stderr == (
        "mcplint: error: mcp-errors.toml:3: cannot place the helpers: `helpers-module` must be a dotted "
        "Python module name, not '../../etc/errors'\n"
    )
    assert run_cli("migrate", ".", cwd=tmp_path).exit_code == 2
