"""The bundled example server: mcplint reports exactly the sites EXPECTED.md lists."""

from __future__ import annotations

import re
from pathlib import Path

from test_cli import json_findings, run_cli

from mcplint.rules import RULES_BY_CODE

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "notes_server"
REGISTRY = EXAMPLE.parent / "mcp-errors.toml"


def listed_sites() -> set[tuple[str, int, str]]:
    text = (EXAMPLE / "EXPECTED.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(.*?)```", text, re.DOTALL).group(1)
    sites = set()
    for line in block.splitlines():
        location, code = line.split()
        name, row = location.split(":")
        sites.add((name, int(row), code))
    return sites


def test_findings_match_the_listed_sites():
    """The whole run, as the README's command does it (cross-module scope included)."""
    result = run_cli("check", "--no-cache", "--format", "json", str(EXAMPLE))
    found = {(Path(f["filename"]).name, f["location"]["row"], f["code"]) for f in json_findings(result)}
    expected = {site for site in listed_sites() if site[2] in RULES_BY_CODE}
    assert sorted(found) == sorted(expected)
    assert len(expected) == 29


def test_the_example_registry_is_clean_and_its_helpers_current():
    from mcplint.registry import check_registry
    from mcplint.registry.codegen import stale_helpers
    from mcplint.registry.load import load_registry

    assert check_registry(str(REGISTRY)) == []
    assert stale_helpers(load_registry(str(REGISTRY))) == []
