"""Every fixture file: the findings are exactly the ``# expect:`` markers."""

from __future__ import annotations

import pytest
from fixture_expectations import FIXTURES, expected_findings, fixture_files, silent_cases

from mcplint.engine.lint import lint_text
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

FIXTURE_FILES = [path for directory in sorted(p.name for p in FIXTURES.iterdir()) for path in fixture_files(directory)]
MINIMUM_CASES = 15


def _codes_under_test(path, text):
    """A rule directory tests its rule; other directories test the codes they mark."""
    if path.parent.name in RULES_BY_CODE:
        return {path.parent.name}
    return {code for _, code in expected_findings(text) | silent_cases(text)}


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_findings_match_expectations(path):
    text = path.read_text(encoding="utf-8")
    codes = _codes_under_test(path, text)
    # Every rule runs, as in a real run; only the codes under test are compared.
    # A fixture directory's mcp-errors.toml is its registry, as beside a config.
    registry = path.parent / "mcp-errors.toml"
    settings = FileSettings(codes=frozenset(RULES_BY_CODE), registry=str(registry) if registry.is_file() else None)
    result = lint_text(text, path.name, settings)
    found = {(finding.line, finding.code) for finding in result.findings if finding.code in codes}
    expected = {(line, code) for line, code in expected_findings(text) if code in codes}
    assert sorted(found - expected) == [], "unexpected findings"
    assert sorted(expected - found) == [], "missing findings"


@pytest.mark.parametrize("code", ["MCP001", "MCP002", "MCP010"])
def test_rule_fixtures_cover_enough_cases(code):
    texts = [path.read_text(encoding="utf-8") for path in fixture_files(code)]
    invalid = sum(len({c for c in expected_findings(text) if c[1] == code}) for text in texts)
    valid = sum(len({c for c in silent_cases(text) if c[1] == code}) for text in texts)
    assert invalid >= MINIMUM_CASES, f"{code}: only {invalid} invalid cases"
    assert valid >= MINIMUM_CASES, f"{code}: only {valid} valid cases"


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_walked_module_judged_again_gives_the_same_findings(path):
    """The cross-module rounds re-run the rules' finish() on the walk of the first round:
    it must start from what the walk left, so the second judgement equals the first."""
    from mcplint.engine.lint import forget_walked_modules

    text = path.read_text(encoding="utf-8")
    registry = path.parent / "mcp-errors.toml"
    settings = FileSettings(codes=frozenset(RULES_BY_CODE), registry=str(registry) if registry.is_file() else None)
    forget_walked_modules()
    try:
        first = lint_text(text, str(path), settings).findings
        again = lint_text(text, str(path), settings).findings
    finally:
        forget_walked_modules()
    assert again == first
