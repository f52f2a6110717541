"""The registry checks: the code table, one fixture per check, and the findings' fields."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixture_expectations import expected_findings, silent_cases

from mcplint.finding import Finding
from mcplint.fingerprint import snippet_digest
from mcplint.registry import CHECKS, CHECKS_BY_CODE, check_registry, parse_registry, registry_findings
from mcplint.registry.checks import CHECKS_BY_NAME

FIXTURES = Path(__file__).parent / "fixtures" / "registry"
CHECK_FIXTURES = sorted((FIXTURES / "checks").glob("REG*.toml"))
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")
PREAMBLE = 'schema_version = 1\nnamespace = "demo"\n'


def _toml_block(doc: str, section: str) -> str:
    match = re.search(rf"## {re.escape(section)}\n```toml\n(.*?)```", doc, re.DOTALL)
    assert match, f"no TOML example under '{section}'"
    return match.group(1)


def _codes(text: str) -> set[str]:
    return {finding.code for finding in registry_findings(parse_registry(text, "mcp-errors.toml"))}


# -- the table -----------------------------------------------------------------
def test_codes_are_sequential_and_names_kebab_case():
    assert [check.code for check in CHECKS] == [f"REG{number:03d}" for number in range(1, len(CHECKS) + 1)]
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", check.name) for check in CHECKS)
    assert len(CHECKS_BY_NAME) == len(CHECKS_BY_CODE) == len(CHECKS)


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.code)
def test_each_check_is_documented(check):
    titles = re.findall(r"^## (.+)$", check.doc, re.MULTILINE)
    assert titles == list(SECTIONS)
    assert check.summary and "\n" not in check.summary


TEXT_CHECKS = [check for check in CHECKS if not check.reads_generated_module]


@pytest.mark.parametrize("check", TEXT_CHECKS, ids=lambda check: check.code)
def test_each_doc_example_fires_and_its_fix_is_clean(check):
    assert check.code in _codes(PREAMBLE + _toml_block(check.doc, "Example"))
    assert _codes(PREAMBLE + _toml_block(check.doc, "Use instead")) == set()


# -- one fixture per check: findings are exactly the `# expect:` markers -------------
def test_every_check_has_a_fixture():
    # REG016 compares a generated module with the registry: tests/test_registry_codegen.py.
    assert [path.name[:6] for path in CHECK_FIXTURES] == [check.code for check in TEXT_CHECKS]


@pytest.mark.parametrize("fixture", CHECK_FIXTURES, ids=lambda path: path.stem)
def test_check_fixture_findings_match_expectations(fixture):
    text = fixture.read_text(encoding="utf-8")
    found = {(finding.line, finding.code) for finding in check_registry(str(fixture))}
    expected = expected_findings(text)
    assert sorted(found - expected) == [], "unexpected findings"
    assert sorted(expected - found) == [], "missing findings"
    code = fixture.name[:6]
    # Each fixture shows the check firing and a look-alike that stays silent.
    assert any(marked == code for _, marked in expected)
    assert any(marked == code for _, marked in silent_cases(text))


def test_the_design_example_has_no_findings():
    assert check_registry(str(FIXTURES / "valid.toml")) == []


# -- findings ------------------------------------------------------------------
def test_finding_fields_for_a_value():
    path = str(FIXTURES / "checks" / "REG009_code_outside_range.toml")
    finding = next(finding for finding in check_registry(path) if finding.code == "REG009")
    assert finding == Finding(
        path=path,
        line=8,
        column=1,
        code="REG009",
        end_line=8,
        end_column=12,
        name="code-outside-range",
        message="code 3001 of `RATE_LIMIT_EXCEEDED` is outside domain `system`'s range [4000, 4999]",
        handler=None,
        context="<registry>",
        snippet_digest=snippet_digest("code = 3001"),
    )


def test_finding_spans_the_key_for_an_unknown_key_and_the_header_for_a_missing_one():
    text = PREAMBLE + '[domains.d]\ntitel = "x"\n'
    findings = registry_findings(parse_registry(text, "r.toml"))
    assert [(f.code, f.line, f.column, f.end_line, f.end_column) for f in findings] == [
        ("REG002", 3, 1, 3, 12),  # `[domains.d]` lacks `range`
        ("REG001", 4, 1, 4, 6),  # `titel`
    ]
    assert findings[1].message == "unknown key `titel` in domain `d` (did you mean `title`?)"


def test_missing_top_level_keys_are_reported_on_line_one():
    findings = registry_findings(parse_registry("[domains]\n", "r.toml"))
    assert [(f.code, f.line, f.message) for f in findings] == [
        ("REG002", 1, "the registry is missing the required keys `schema_version`, `namespace`")
    ]


def test_findings_are_sorted_and_fingerprintable():
    findings = check_registry(str(FIXTURES / "seed_004.toml"))
    assert findings == sorted(findings)
    assert all(finding.snippet_digest and finding.context == "<registry>" for finding in findings)


@pytest.mark.parametrize(
    ("category", "hint"),
    [("Unavailable", "UNAVAILABLE"), ("NOT_FOUNDD", "NOT_FOUND"), ("permission-denied", "PERMISSION_DENIED")],
)
def test_unknown_category_suggests_the_closest_name(category, hint):
    text = PREAMBLE + (
        "[domains.d]\nrange = [1, 9]\n[domains.d.errors.E]\n"
        f'code = 1\nmessage = "m"\nretryable = false\ncategory = "{category}"\n'
    )
    (finding,) = registry_findings(parse_registry(text, "r.toml"))
    assert finding.message.endswith(f"(did you mean `{hint}`?)")


def test_messages_name_the_earlier_definition():
    path = str(FIXTURES / "checks" / "REG005_duplicate_code.toml")
    messages = [finding.message for finding in check_registry(path) if finding.code == "REG005"]
    assert messages == [
        "code 1001 is already used by `AUTH_TOKEN_INVALID` (line 8)",
        "code 1003 is already used by `AUTH_SESSION_LOCKED` (retired; its number is never reused) (line 18)",
        "code 1001 is already used by `AUTH_TOKEN_INVALID` (line 8)",
    ]


def test_a_spec_code_used_with_its_meaning_is_accepted():
    text = PREAMBLE + (
        "[domains.protocol]\nrange = [-32099, -32020]\n[domains.protocol.errors.HEADER_MISMATCH]\n"
        'code = -32020\nmessage = "Mcp-Method header does not match the body"\nretryable = false\n'
    )
    assert [f.code for f in registry_findings(parse_registry(text, "r.toml")) if f.code == "REG011"] == []


def test_protocol_code_messages_name_the_band():
    path = str(FIXTURES / "checks" / "REG011_protocol_reserved_code.toml")
    messages = {finding.line: finding.message for finding in check_registry(path) if finding.code == "REG011"}
    assert messages[34].startswith('code -32603 is JSON-RPC\'s "Internal error"; `QUOTA_EXCEEDED`')
    assert "legacy band -32000..-32019" in messages[39]
    # -32020 is one of the three codes MCP itself defines: named like MCP003 names it.
    assert messages[49].startswith('code -32020 is MCP\'s "Header mismatch"; `SPEC_EDGE` does not use it')
    assert "retired MCP spec code (resource not found)" in messages[54]
    assert "retired MCP spec code (URL elicitation required)" in messages[59]
    assert "inside JSON-RPC's reserved band" in messages[64]
    assert messages[87].startswith("code 0 is what the MCP SDKs send")
