"""Stable identities for findings, for baselines and SARIF ``partialFingerprints``.

A fingerprint hashes the rule code, the path relative to the project root, the
enclosing function's qualified name, the *shape* of the flagged code (tokens
with identifiers blanked, whitespace and comments dropped) and an occurrence
index among findings that share all of those. No line numbers: inserting lines
above a finding, reformatting it or renaming a local it uses keeps its identity;
a second copy of it gets a new one.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import libcst as cst

from mcplint.analysis.imports import dotted_name
from mcplint.analysis.walk import children
from mcplint.finding import Finding

_CONSTANT_NAMES = frozenset({"True", "False", "None"})


def node_shape(node: cst.CSTNode) -> str:
    """The code's shape: node types and literal values, with local names blanked.

    Built from the tree, not the text, so whitespace, comments, line breaks and
    the f-string tokenisation of the running Python make no difference. What a
    name *calls* and attribute names are kept (`ValueError(...)` is not
    `KeyError(...)`); other names become `_`, so renaming a local keeps the shape.
    """
    parts: list[str] = []
    _shape(node, parts)
    return " ".join(parts)


def _shape(node: cst.CSTNode, parts: list[str]) -> None:
    if isinstance(node, cst.Name):
        parts.append(node.value if node.value in _CONSTANT_NAMES else "_")
        return
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.FormattedStringText)):
        parts.append(node.value)
        return
    parts.append(type(node).__name__)
    if isinstance(node, cst.Attribute):
        _shape(node.value, parts)
        parts.append(node.attr.value)
        return
    if isinstance(node, cst.Call):
        parts.append(dotted_name(node.func) or "")
        if dotted_name(node.func) is None:
            _shape(node.func, parts)
        for arg in node.args:
            parts.append(arg.keyword.value + "=" if arg.keyword else "")
            _shape(arg.value, parts)
        return
    for child in children(node):
        _shape(child, parts)


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
