"""What `mcplint migrate` writes besides code and message: category, retryable, recovery, hints.

A new entry's **category** comes from what the site is and says, and its
**recovery** from the category (``registry.envelope.default_recovery``), written
into the entry so the model receives it in ``data`` too:

| the site | category | retryable | recovery |
|---|---|---|---|
| an empty fallback of a failed call (MCP005): a dependency failed | UNAVAILABLE | true | retry-later |
| a standard JSON-RPC code's message (`Invalid parameters`) | its category | false | its default |
| a message saying not found, does not exist, no such, unknown ... | NOT_FOUND | false | check-input |
| invalid, must be, is required, too long, too many, longer than, at most ... | INVALID_ARGUMENT | false | check-input |
| already exists | ALREADY_EXISTS | false | check-input |
| not supported, unsupported, not implemented | UNIMPLEMENTED | false | try-alternative |
| timed out, timeout | DEADLINE_EXCEEDED | false | try-alternative |
| permission denied, not allowed, forbidden, access denied | PERMISSION_DENIED | false | report-to-user |
| anything else | none | false | report-to-user |

**Hints** are never invented: only a payload that already gives guidance under a
`hint`, `hints`, `suggestion`, `suggestions`, `recovery_hint`, `recovery_hints` or
`help` key, as constant text that quotes no value (REG020) and names no
placeholder, gives the entry its hints. Otherwise the entry has none.
"""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache

from mcplint.finding import Finding
from mcplint.registry.envelope import default_recovery
from mcplint.registry.match import CATEGORY_BY_MESSAGE
from mcplint.registry.validate import quoted_value
from mcplint.rules.registry_fix import HINT_KEYS

DEPENDENCY_CODES = frozenset({"MCP005"})  # an empty fallback hides a failed call
_CATEGORY_WORDS = (
    ("NOT_FOUND", r"not found|does not exist|doesn't exist|no such|^unknown\b|\bunknown \w+:"),
    (
        "INVALID_ARGUMENT",
        r"\binvalid\b|must be|is required|are required|missing required|too long|too many|longer than|at most",
    ),
    ("ALREADY_EXISTS", r"already exists"),
    ("UNIMPLEMENTED", r"not supported|unsupported|not implemented"),
    ("DEADLINE_EXCEEDED", r"timed out|\btimeout\b"),
    ("PERMISSION_DENIED", r"permission denied|not allowed|forbidden|access denied"),
)
_RETRYABLE_CATEGORIES = frozenset({"UNAVAILABLE"})  # AIP-194: retry an outage, nothing else here
_MAX_HINT_LENGTH = 200
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def category_for(message: str, dependency: bool) -> str | None:
    """The google.rpc.Code name for a new entry (the table above), or None."""
    if message in CATEGORY_BY_MESSAGE:
        return CATEGORY_BY_MESSAGE[message]
    if dependency:
        return "UNAVAILABLE"
    text = message.casefold()
    return next((category for category, words in _CATEGORY_WORDS if re.search(words, text)), None)


def retryable_for(category: str | None) -> bool:
    return category in _RETRYABLE_CATEGORIES


def recovery_for(category: str | None) -> str:
    return default_recovery(category, retryable_for(category))


def source_hints(finding: Finding) -> tuple[str, ...]:
    """The general guidance the site's own payload gives (`{"error": ..., "hint": "..."}`),
    or nothing: a hint is taken from the source, never made up."""
    source = _site_source(finding.path, finding.line, finding.column, finding.end_line, finding.end_column)
    tree = _parsed(source) if source is not None else None
    if tree is None:
        return ()
    hints: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.lower() in HINT_KEYS:
                hints += [text for text in _constant_texts(value) if _general(text) and text not in hints]
    return tuple(hints)


def _lines(path: str) -> tuple[str, ...] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    # Keyed by where and what the file is: a relative path means another file in another cwd.
    return _read_lines(os.path.abspath(path), status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=64)
def _read_lines(path: str, mtime_ns: int, size: int) -> tuple[str, ...] | None:
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            # Python's line breaks only (`str.splitlines` also breaks at a form feed).
            return tuple(_LINE_BREAK.split(handle.read()))
    except (OSError, UnicodeDecodeError):
        return None


def _site_source(path: str, line: int, column: int, end_line: int, end_column: int) -> str | None:
    """The flagged code's text (1-based lines and columns, end exclusive)."""
    lines = _lines(path)
    if lines is None or not 1 <= line <= end_line <= len(lines):
        return None
    if line == end_line:
        return lines[line - 1][column - 1 : end_column - 1]
    middle = lines[line : end_line - 1]
    return "\n".join([lines[line - 1][column - 1 :], *middle, lines[end_line - 1][: end_column - 1]])


def _parsed(source: str) -> ast.AST | None:
    for text, mode in ((f"(\n{source}\n)", "eval"), (source.strip(), "exec")):
        try:
            return ast.parse(text, mode=mode)
        except (SyntaxError, ValueError):
            continue
    return None


def _constant_texts(value: ast.expr) -> list[str]:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return [value.value.strip()]
    if isinstance(value, (ast.List, ast.Tuple)):
        return [text for element in value.elts for text in _constant_texts(element)]
    return []  # an f-string or a variable: the hint would carry a value


def _general(text: str) -> bool:
    """Guidance a registry can keep for every occurrence: no value quoted or assigned, no
    placeholder, one line, short."""
    return (
        0 < len(text) <= _MAX_HINT_LENGTH
        and "\n" not in text
        and "{" not in text
        and "}" not in text
        and quoted_value(text) is None
    )
