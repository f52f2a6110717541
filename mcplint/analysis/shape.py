"""The shape of a piece of code, which a finding's fingerprint hashes (``mcplint.fingerprint``).

Kept apart from the fingerprints so that a run replayed from the cache, which computes
fingerprints but no shapes, does not import LibCST.
"""

from __future__ import annotations

import libcst as cst

from mcplint.analysis.imports import dotted_name
from mcplint.analysis.walk import children

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
        callee = dotted_name(node.func)
        parts.append(callee or "")
        if callee is None:
            _shape(node.func, parts)
        for arg in node.args:
            parts.append(arg.keyword.value + "=" if arg.keyword else "")
            _shape(arg.value, parts)
        return
    for child in children(node):
        _shape(child, parts)
