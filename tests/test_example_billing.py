"""The cross-module example: mcplint reports exactly what its EXPECTED.md lists, and
`mcplint handlers` shows the project the way the page describes it."""

from __future__ import annotations

import re
from pathlib import Path

from test_cli import json_findings, run_cli

EXAMPLE = Path(__file__).parent.parent / "examples" / "billing_server"


def listed_sites() -> set[tuple[str, int, str]]:
    block = (EXAMPLE / "EXPECTED.md").read_text(encoding="utf-8").split("```")[1]
    return {
        (match.group(1), int(match.group(2)), match.group(3))
        for match in re.finditer(r"^(\S+):(\d+) (MCP\d{3})$", block, re.MULTILINE)
    }


def test_the_billing_example_gives_exactly_the_listed_findings():
    result = run_cli("check", "--format", "json", "--no-cache", ".", cwd=EXAMPLE)
    found = {(f["filename"], f["location"]["row"], f["code"]) for f in json_findings(result)}
    assert found == listed_sites()
    assert len(found) == 4


def test_the_billing_example_handlers_show_the_cross_module_shapes():
    lines = [line.strip() for line in run_cli("handlers", "--reach", ".", cwd=EXAMPLE).stdout.splitlines()]
    assert "server class  AppMCP (high-level, mcp1)" in lines
    assert "server        billing (high-level, mcp1)" in lines
    assert "reached       CsvExport.run  <- billing.server.export" in lines
    assert "reached       Ledger.total  <- billing.server.total" in lines
    assert not any(line.startswith("reached       PdfExport.run") for line in lines)
