"""What reaches a terminal: whether output gets colour, and text from the checked files made safe.

Colour: ``--color``, then ``NO_COLOR``, then ``FORCE_COLOR``, then the stream. The order follows the conventions ruff users know: an explicit ``--color`` always
wins; ``NO_COLOR`` (https://no-color.org) set to anything non-empty turns colour off;
``FORCE_COLOR`` (https://force-color.org) non-empty turns it on where the stream is
not a terminal (a CI log that renders ANSI); otherwise only a terminal gets colour.
``NO_COLOR`` beats ``FORCE_COLOR``: a user who asks for no colour should not have to
hunt for what forced it.

Safe text: paths, messages (which quote the source) and source lines come from files that
anyone may have written. Printed raw, their control characters act: an OSC sequence
(``ESC ] 0;title BEL``) retitles the window or writes a hyperlink, CSI moves the cursor or
recolours, a newline in a file name forges a report line, and bidi overrides (U+202E)
reorder what the reader sees ("Trojan Source"). ``printable`` shows each such character
as its escape (``\\x1b``, ``\\u202e``), so nothing acts and nothing is hidden. Every text
format (full, concise, grouped, github) and the CLI's warnings pass what they print from
the files through it; the structured formats (JSON, SARIF, JUnit) escape by their syntax.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import IO

COLOR_CHOICES = ("auto", "always", "never")


def color_enabled(
    choice: str = "auto", stream: IO[str] | None = None, environ: Mapping[str, str] | None = None
) -> bool:
    """Whether to write ANSI colour to ``stream`` under ``--color choice``."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# C0 controls but the tab, DEL and C1 controls, the bidi embeddings, overrides, isolates
# and marks, and the Unicode line and paragraph separators.
_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every character that acts on a terminal shown as its escape."""
    return _UNSAFE.sub(_escape, text)
