"""Text from the checked files made safe to print on a terminal or in a CI log.

Paths, messages (which quote the source) and source lines come from files that
anyone may have written. Printed raw, their control characters act: an OSC
sequence (``ESC ] 0;title BEL``) retitles the window or writes a hyperlink, CSI
moves the cursor or recolours, a newline in a file name forges a report line,
and bidi overrides (U+202E) reorder what the reader sees ("Trojan Source").
``printable`` shows each such character as its escape (``\\x1b``, ``\\u202e``),
so nothing acts and nothing is hidden. Every text format (full, concise,
grouped, github) and the CLI's warnings pass what they print from the files
through it; the structured formats (JSON, SARIF, JUnit) escape by their syntax.
"""

from __future__ import annotations

import re

# C0 controls but the tab, DEL and C1 controls, the bidi embeddings, overrides, isolates
# and marks, and the Unicode line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every character that acts on a terminal shown as its escape."""
    return _UNSAFE.sub(_escape, text)
