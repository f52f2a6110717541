"""`--format json` is written finding by finding (``render_json``): it must be exactly what
`json.dumps(..., indent=2, ensure_ascii=False)` writes of the same findings."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from mcplint.finding import Edit, Finding, Fix
from mcplint.report.json_format import finding_to_json, render_json

texts = st.text()
numbers = st.integers(min_value=0, max_value=10**6)
edits = st.builds(Edit, numbers, numbers, numbers, numbers, texts)
fixes = st.builds(Fix, st.sampled_from(["safe", "unsafe", "display-only"]), texts, st.lists(edits, max_size=3).map(tuple))
findings = st.builds(
    Finding,
    texts,
    numbers,
    numbers,
    st.sampled_from(["MCP001", "MCP006", "MCP000"]),
    numbers,
    numbers,
    texts,
    texts,
    handler=st.none() | texts,
    fix=st.none() | fixes,
)


def _dumped(found: list[Finding]) -> str:
    return json.dumps([finding_to_json(finding) for finding in found], indent=2, ensure_ascii=False) + "\n"


@given(st.lists(findings, max_size=4))
def test_the_json_report_is_what_json_dumps_writes(found: list[Finding]) -> None:
    assert render_json(found) == _dumped(found)


def test_no_findings_is_an_empty_array() -> None:
    assert render_json([]) == "[]\n" == _dumped([])
