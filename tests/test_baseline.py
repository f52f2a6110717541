"""Baselines survive edits that do not change a finding, and shrink when findings go."""

from __future__ import annotations

import json
import textwrap

import pytest
from test_cli import json_findings, run_cli

SERVER = textwrap.dedent(
    """\
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("notes")


    @mcp.tool()
    def get_note(note_id: str) -> dict:
        note = lookup(note_id)
        if note is None:
            raise ValueError(f"missing note {note_id}")
        return note


    @mcp.tool()
    def delete_note(note_id: str) -> dict:
        return {"error": "read-only"}
    """
)


@pytest.fixture
def baselined(tmp_path):
    (tmp_path / "server.py").write_text(SERVER)
    result = run_cli("check", "--write-baseline", "baseline.json", ".", cwd=tmp_path)
    assert result.exit_code == 0
    assert "wrote 2 findings" in result.stderr
    return tmp_path


def check_with_baseline(project):
    return run_cli("check", "--format", "json", "--baseline", "baseline.json", ".", cwd=project)


def test_baseline_hides_recorded_findings(baselined):
    result = check_with_baseline(baselined)
    assert result.exit_code == 0
    assert json_findings(result) == []


def test_baseline_file_is_sorted_stable_json_without_lines(baselined):
    text = (baselined / "baseline.json").read_text()
    document = json.loads(text)
    assert document["mcplint-baseline"] == 1
    entries = document["findings"]
    assert [(e["path"], e["code"], e["context"]) for e in entries] == [
        ("server.py", "MCP001", "delete_note"),
        ("server.py", "MCP002", "get_note"),
    ]
    assert all("line" not in entry and "row" not in entry for entry in entries)
    run_cli("check", "--write-baseline", "baseline.json", ".", cwd=baselined)
    assert (baselined / "baseline.json").read_text() == text


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("mcp = FastMCP(\"notes\")\n", "mcp = FastMCP(\"notes\")\n\n\nVERSION = 2\nLIMIT = 10\n"),  # lines above
        ("note_id", "identifier"),  # rename a local (and parameter) everywhere
        (
            'raise ValueError(f"missing note {note_id}")',
            "raise ValueError(\n                f\"missing note {note_id}\"  # reformatted\n            )",
        ),
        ('{"error": "read-only"}', '{\n        "error": "read-only",\n    }'),
    ],
)
def test_findings_stay_baselined_across_edits(baselined, old, new):
    (baselined / "server.py").write_text(SERVER.replace(old, new))
    result = check_with_baseline(baselined)
    assert json_findings(result) == []
    assert "no longer match" not in result.stderr


def test_a_duplicated_finding_is_reported(baselined):
    duplicated = SERVER.replace(
        '        raise ValueError(f"missing note {note_id}")\n',
        '        raise ValueError(f"missing note {note_id}")\n    if not note_id:\n'
        '        raise ValueError(f"missing note {note_id}")\n',
    )
    assert duplicated != SERVER
    (baselined / "server.py").write_text(duplicated)
    findings = json_findings(check_with_baseline(baselined))
    assert [(f["code"], f["location"]["row"]) for f in findings] == [("MCP002", 12)]


def test_fixed_findings_make_entries_stale(baselined):
    (baselined / "server.py").write_text(SERVER.replace('return {"error": "read-only"}', "return {}"))
    result = check_with_baseline(baselined)
    assert result.exit_code == 0
    assert "1 baseline entries no longer match" in result.stderr


def test_a_new_finding_elsewhere_is_reported(baselined):
    (baselined / "server.py").write_text(SERVER + '\n\n@mcp.tool()\ndef boom():\n    raise RuntimeError("x")\n')
    findings = json_findings(check_with_baseline(baselined))
    assert [(f["code"], f["handler"]) for f in findings] == [("MCP002", "boom")]


@pytest.mark.parametrize("content", ["not json", '{"findings": []}', '{"mcplint-baseline": 1, "findings": [{}]}'])
def test_bad_baseline_exits_2(tmp_path, content):
    (tmp_path / "server.py").write_text(SERVER)
    (tmp_path / "baseline.json").write_text(content)
    result = check_with_baseline(tmp_path)
    assert result.exit_code == 2
    assert "baseline" in result.stderr


def test_missing_baseline_exits_2(tmp_path):
    (tmp_path / "server.py").write_text(SERVER)
    assert check_with_baseline(tmp_path).exit_code == 2
