"""``--format json``: one JSON array, ruff's field names (1-based rows and columns)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from json.encoder import encode_basestring  # C, where it is built
from typing import Any

from mcplint.finding import Edit, Finding, Fix


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
    """What ``json.dumps([finding_to_json(...), ...], indent=2, ensure_ascii=False)`` writes,
    each finding written from its fields: with an indent, `json` encodes in Python, a call per
    value, and a corpus check spent a fifth of a second there."""
    if not findings:
        return "[]\n"
    return "[\n" + ",\n".join(map(_finding_text, findings)) + "\n]\n"


def _finding_text(finding: Finding) -> str:
    fix = finding.fix
    return (
        "  {\n"
        f'    "code": {_value(finding.code)},\n'
        f'    "name": {_value(finding.name)},\n'
        f'    "message": {_value(finding.message)},\n'
        f'    "filename": {_value(finding.path)},\n'
        f'    "location": {_place(finding.line, finding.column, "    ")},\n'
        f'    "end_location": {_place(finding.end_line, finding.end_column, "    ")},\n'
        f'    "fix": {_fix_text(fix) if fix is not None else "null"},\n'
        f'    "handler": {_value(finding.handler)}\n'
        "  }"
    )


def _fix_text(fix: Fix) -> str:
    edits = (
        "[\n" + ",\n".join(map(_edit_text, fix.edits)) + "\n      ]" if fix.edits else "[]"
    )
    return (
        "{\n"
        f'      "applicability": {_value(fix.applicability)},\n'
        f'      "message": {_value(fix.message)},\n'
        f'      "edits": {edits}\n'
        "    }"
    )


def _edit_text(edit: Edit) -> str:
    return (
        "        {\n"
        f'          "content": {_value(edit.content)},\n'
        f'          "location": {_place(edit.line, edit.column, "          ")},\n'
        f'          "end_location": {_place(edit.end_line, edit.end_column, "          ")}\n'
        "        }"
    )


def _place(row: int, column: int, indent: str) -> str:
    return f'{{\n{indent}  "row": {_value(row)},\n{indent}  "column": {_value(column)}\n{indent}}}'


def _value(value: object) -> str:
    if type(value) is str:
        return encode_basestring(value)
    if type(value) is int:
        return int.__repr__(value)  # as `json` writes it
    return json.dumps(value)  # None, or what a field unexpectedly holds
