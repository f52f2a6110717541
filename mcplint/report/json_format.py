"""``--format json``: one JSON array, ruff's field names (1-based rows and columns)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from mcplint.finding import Finding


def finding_to_json(finding: Finding) -> dict:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "filename": finding.path,
        "location": {"row": finding.line, "column": finding.column},
        "end_location": {"row": finding.end_line, "column": finding.end_column},
        "fix": None,
        "handler": finding.handler,
    }


def render_json(findings: Sequence[Finding]) -> str:
    return json.dumps([finding_to_json(finding) for finding in findings], indent=2, ensure_ascii=False) + "\n"
