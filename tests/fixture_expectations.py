"""Inline expectations in fixture files, flake8-bugbear style.

``# expect: MCP001`` at the end of a line: a finding of that code starts on the
line. ``# ok: MCP001``: a look-alike that must stay silent (it documents the
case and is counted; silence is checked for every unmarked line anyway).
"""

from __future__ import annotations

import re
from pathlib import Path

EXPECT = re.compile(r"#\s*expect:\s*([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")
OK = re.compile(r"#\s*ok:\s*([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")

FIXTURES = Path(__file__).parent / "fixtures"


def _markers(pattern: re.Pattern[str], text: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(text.splitlines(), start=1):
        for match in pattern.finditer(line):
            found.update((number, code.strip()) for code in match.group(1).split(","))
    return found


def expected_findings(text: str) -> set[tuple[int, str]]:
    return _markers(EXPECT, text)


def silent_cases(text: str) -> set[tuple[int, str]]:
    return _markers(OK, text)


def fixture_files(directory: str) -> list[Path]:
    return sorted((FIXTURES / directory).glob("*.py"))


def project_expectations(root: Path) -> set[tuple[str, int, str]]:
    """(path relative to root, line, code) for every `# expect:` marker in a fixture project."""
    sites = set()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        sites |= {(relative, line, code) for line, code in expected_findings(path.read_text())}
    return sites
