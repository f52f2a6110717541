"""The bundled example server: mcplint reports exactly the sites EXPECTED.md lists
for the rules that exist (the list also names the sites of rules to come)."""

from __future__ import annotations

import re
from pathlib import Path

from mcplint.config import FileSettings
from mcplint.engine.lint import lint_text
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


def test_findings_match_the_listed_sites_of_existing_rules():
    settings = FileSettings(codes=frozenset(RULES_BY_CODE), registry=str(REGISTRY))
    found = set()
    for path in sorted(EXAMPLE.glob("*.py")):
        result = lint_text(path.read_text(encoding="utf-8"), path.name, settings, skip_generated=True)
        found |= {(path.name, finding.line, finding.code) for finding in result.findings}
    expected = {site for site in listed_sites() if site[2] in RULES_BY_CODE}
    assert sorted(found) == sorted(expected)
    assert len(expected) == 27


def test_the_example_registry_is_clean_and_its_helpers_current():
    from mcplint.registry import check_registry
    from mcplint.registry.codegen import stale_helpers
    from mcplint.registry.load import load_registry

    assert check_registry(str(REGISTRY)) == []
    assert stale_helpers(load_registry(str(REGISTRY))) == []
