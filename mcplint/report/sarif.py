"""``--format sarif``: SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.

What GitHub needs shapes the output: every rule is described (not only those
that fired) so alerts link to a rule with its documentation; paths are
relative to the project root through ``%SRCROOT%`` so the same finding has the
same location on every machine; columns are counted in code points, as LibCST
counts them; and each result carries mcplint's own line-independent
fingerprint under a namespaced key, leaving ``primaryLocationLineHash`` to
GitHub's upload action (a hand-made one breaks its alert tracking).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mcplint import __version__
from mcplint.catalogue import CodeDoc, catalogue, known_codes
from mcplint.finding import Finding, Fix
from mcplint.fingerprint import fingerprints
from mcplint.rule_docs import render_doc

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/mcplint/mcplint"
RULE_DOC_URI = INFORMATION_URI + "/blob/main/rules/{code}.md"
FINGERPRINT_KEY = "mcplintFingerprint/v1"
SRCROOT = "%SRCROOT%"
LEVEL = "error"
# GitHub rejects a rule whose short or full description is longer than this.
_MAX_DESCRIPTION = 1024
# The "generated from" note in rules/*.md is for people editing the repository.
_EDITOR_NOTE = re.compile(r"^<!--.*?-->\n\n?", re.MULTILINE)


def render_sarif(findings: Sequence[Finding], *, root: Path) -> str:
    # Fingerprints number repeated findings by position, so the order must be
    # fixed (by position only: ordering whole findings would compare ``handler``s).
    findings = sorted(findings, key=lambda finding: (finding.path, finding.line, finding.column, finding.code))
    rules = [rule_descriptor(document) for document in catalogue()]
    rules += _undocumented_descriptors(findings)
    rule_index = {rule["id"]: index for index, rule in enumerate(rules)}
    results = [
        sarif_result(finding, rule_index[finding.code], fingerprint, root)
        for finding, fingerprint in zip(findings, fingerprints(findings, root), strict=True)
    ]
    run = {
        "tool": {
            "driver": {
                "name": "mcplint",
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(root)}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def rule_descriptor(document: CodeDoc) -> dict[str, Any]:
    doc = _EDITOR_NOTE.sub("", render_doc(document), count=1)
    return {
        "id": document.code,
        "name": document.name,
        "shortDescription": {"text": _clip(document.summary)},
        "fullDescription": {"text": _clip(document.sections.get("What it does") or document.summary)},
        "help": {"text": doc, "markdown": doc},
        "helpUri": RULE_DOC_URI.format(code=document.code),
        "defaultConfiguration": {"level": LEVEL},
    }


def _undocumented_descriptors(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """Minimal descriptors for codes that no rule class documents.

    A finding can carry a code the catalogue does not know (a newer tool's
    baseline, a plugin); GitHub wants every result's rule described, and a
    descriptor keeps ``ruleIndex`` meaningful for all results.
    """
    known = known_codes()
    names: dict[str, str] = {}
    for finding in findings:
        if finding.code not in names and finding.code not in known:
            names[finding.code] = finding.name
    descriptors = []
    for code in sorted(names):
        title = f"{code} {names[code]}".strip()
        descriptors.append(
            {
                "id": code,
                "name": names[code] or code,
                "shortDescription": {"text": _clip(title)},
                "fullDescription": {"text": _clip(title)},
                "help": {"text": f"{title}: no documentation in mcplint {__version__}."},
                "defaultConfiguration": {"level": LEVEL},
            }
        )
    return descriptors


def sarif_result(finding: Finding, rule_index: int, fingerprint: str, root: Path) -> dict[str, Any]:
    result = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": LEVEL,
        "message": {"text": finding.message or finding.code},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": artifact_location(finding.path, root),
                    "region": region(finding.line, finding.column, finding.end_line, finding.end_column),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
    if finding.fix is not None:
        result["fixes"] = [sarif_fix(finding.fix, artifact_location(finding.path, root))]
    return result


def sarif_fix(fix: Fix, location: dict[str, str]) -> dict[str, Any]:
    """SARIF's fix object (ruff's shape): replacements of deleted regions by inserted text."""
    replacements = [
        {
            "deletedRegion": region(edit.line, edit.column, edit.end_line, edit.end_column),
            "insertedContent": {"text": edit.content},
        }
        for edit in fix.edits
    ]
    return {
        "description": {"text": f"{fix.message} ({fix.applicability})"},
        "artifactChanges": [{"artifactLocation": location, "replacements": replacements}],
    }


def artifact_location(path: str, root: Path) -> dict[str, str]:
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(os.path.abspath(root))
    except ValueError:
        # Outside the project (``mcplint check ../other``): nothing to be
        # relative to, so an absolute file URI that at least resolves locally.
        return {"uri": absolute.as_uri()}
    # Percent-encode what a URI path cannot hold (spaces, ``%``, ``#``, ``?``,
    # non-ASCII as UTF-8); surrogateescape keeps undecodable file names' bytes.
    return {"uri": quote(relative.as_posix(), safe="/", errors="surrogateescape"), "uriBaseId": SRCROOT}


def region(start_line: int, start_column: int, end_line: int, end_column: int) -> dict[str, int]:
    """1-based lines and columns, end column exclusive (the finding's own convention).

    SARIF consumers reject column 0 and an end before the start, which a
    degenerate position (an empty file's syntax error) could otherwise produce.
    """
    start = (max(1, start_line), max(1, start_column))
    end = max((end_line, end_column), start)
    return {"startLine": start[0], "startColumn": start[1], "endLine": end[0], "endColumn": end[1]}


def _directory_uri(root: Path) -> str:
    # SARIF requires a base URI to end with "/", or relative URIs resolve
    # against its parent directory.
    uri = Path(os.path.abspath(root)).as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_DESCRIPTION else text[: _MAX_DESCRIPTION - 1] + "…"
