"""``--format json``: one JSON array, ruff's field names (1-based rows and columns)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from mcplint.finding import Finding, Fix


def finding_to_json(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "filename": finding.path,
        "location": {"row": finding.line, "column": finding.column},
        "end_location": {"row": finding.end_line, "column": finding.end_column},
        "fix": fix_to_json(finding.fix) if finding.fix is not None else None,
        "handler": finding.handler,
    }


def fix_to_json(fix: Fix) -> dict[str, Any]:
    """ruff's shape: applicability, message, edits with 1-based row/column."""
    return {
        "applicability": fix.applicability,
        "message": fix.message,
        "edits": [
            {
                "content": edit.content,
                "location": {"row": edit.line, "column": edit.column},
                "end_location": {"row": edit.end_line, "column": edit.end_column},
            }
            for edit in fix.edits
        ],
    }


def render_json(findings: Sequence[Finding]) -> str:
    return json.dumps([finding_to_json(finding) for finding in findings], indent=2, ensure_ascii=False) + "\n"
