"""Errors and warnings are one line each: text from a file (a symbol, a path) cannot
break them or move the terminal's cursor.

A `\\r` in a registry key would return the cursor and overwrite the message; a
newline would split it; bidi overrides reorder what is shown. Such characters
are written as their Python escapes (`\\r`, `\\u202e`).
"""

from __future__ import annotations

import unicodedata

_BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def one_line(text: str) -> str:
    return "".join(_escaped(character) for character in text)


def _escaped(character: str) -> str:
    if character in _BIDI_CONTROLS or unicodedata.category(character) in ("Cc", "Zl", "Zp"):
        return character.encode("unicode_escape").decode("ascii")
    return character
