"""One project with a finding of every rule and a registry finding, through every CI format."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from test_cli import BAD_TOOL, run_cli
from test_report_formats import assert_valid_sarif

from mcplint.rules import RULES_BY_CODE

REGISTRIES = Path(__file__).resolve().parent / "fixtures" / "registry"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL + "\n\ndef helper():  # mcplint: ignore[MCP002]\n    return 1\n")
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    # MCP003 (a code in the reserved band) and MCP004 (a symbol seed 001's registry lacks).
    (tmp_path / "codes.py").write_text('SERVER_ERROR_CODE = -32000\nFAILURE = validation_error("NO_SUCH_SYMBOL")\n')
    # MCP007 (the SDK error raised from a tool) and MCP008 (fastmcp without mask_error_details).
    (tmp_path / "protocol.py").write_text(
        'from fastmcp import FastMCP\nfrom fastmcp.exceptions import McpError\n\nmcp = FastMCP("p")\n\n\n'
        "@mcp.tool\ndef fail() -> str:\n    raise McpError(None)\n"
    )
    # MCP005 (an empty success from an except clause) and MCP006 (the exception's text returned).
    (tmp_path / "fallbacks.py").write_text(
        'from fastmcp import FastMCP\n\nmcp = FastMCP("f", mask_error_details=True)\n\n\n'
        "@mcp.tool\ndef search(q: str) -> list:\n    try:\n        return find(q)\n"
        "    except OSError:\n        return []\n\n\n"
        "@mcp.tool\ndef read(q: str) -> str:\n    try:\n        return load(q)\n"
        "    except OSError as e:\n        return f\"failed: {e}\"\n"
    )
    # MCP010 (a batch loop that drops a failed item).
    (tmp_path / "batch.py").write_text(
        'from fastmcp import FastMCP\n\nmcp = FastMCP("b", mask_error_details=True)\n\n\n'
        "@mcp.tool\ndef read_all(ids: list) -> dict:\n    notes = []\n    for i in ids:\n        try:\n"
        "            notes.append(load(i))\n        except OSError:\n            continue\n"
        '    return {"notes": notes}\n'
    )
    shutil.copy(REGISTRIES / "seed_001.toml", tmp_path / "mcp-errors.toml")
    (tmp_path / "mcplint.toml").write_text("")
    return tmp_path


def test_sarif_with_every_rule_and_a_registry_finding_validates(project):
    result = run_cli("check", "--format", "sarif", ".", cwd=project)
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert_valid_sarif(log)
    rule_ids = {result["ruleId"] for result in log["runs"][0]["results"]}
    assert set(RULES_BY_CODE) <= rule_ids
    assert any(code.startswith("REG") for code in rule_ids)


def test_github_and_junit_carry_every_finding(project):
    as_json = json.loads(run_cli("check", "--format", "json", ".", cwd=project).stdout)
    github = run_cli("check", "--format", "github", ".", cwd=project).stdout.splitlines()
    assert len(github) == len(as_json)
    assert all(line.startswith("::error title=mcplint (") for line in github)
    junit = ElementTree.fromstring(run_cli("check", "--format", "junit", ".", cwd=project).stdout)
    assert len(junit.findall(".//failure")) == len(as_json)
