"""Stable identities for findings, for baselines and SARIF ``partialFingerprints``.

A fingerprint hashes the rule code, the path relative to the project root, the
enclosing function's qualified name, the *shape* of the flagged code (tokens with
identifiers blanked, whitespace and comments dropped: ``analysis/shape.py``) and an
occurrence index among findings that share all of those. No line numbers: inserting lines
above a finding, reformatting it or renaming a local it uses keeps its identity;
a second copy of it gets a new one.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from mcplint.finding import Finding


def shape_digest(shape: str) -> str:
    return hashlib.sha256(shape.encode("utf-8")).hexdigest()[:16]


def snippet_digest(text: str) -> str:
    """For findings without a Python node (MCP000, registry files): the text, layout ignored."""
    return shape_digest(" ".join(text.split()))


def relative_path(display: str, root: Path) -> str:
    absolute = os.path.abspath(display)
    try:
        return Path(absolute).relative_to(root.absolute()).as_posix()
    except ValueError:
        return Path(display).as_posix()


def fingerprints(findings: Sequence[Finding], root: Path) -> list[str]:
    """One fingerprint per finding (same order); findings must be sorted by position."""
    seen: dict[tuple[str, ...], int] = {}
    result = []
    for finding in findings:
        identity = (finding.code, relative_path(finding.path, root), finding.context, finding.snippet_digest)
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        payload = "\0".join((*identity, str(occurrence)))
        result.append(hashlib.sha256(payload.encode("utf-8")).hexdigest()[:32])
    return result
