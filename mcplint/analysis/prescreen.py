"""Text pre-screens for imports: may this file import one of these modules?

A pre-screen decides which files are parsed at all, so it may say yes to a file
that imports nothing (the parse then finds nothing) but must never say no to one
that does: a missed import is a file silently skipped. Python allows an import
statement after a line break of any kind (``\\n``, ``\\r\\n``, a lone ``\\r``), a
``;`` or a compound statement's ``:`` (``try: from mcp import X``), with spaces,
tabs and form feeds around it and backslash continuations anywhere between its
words. The patterns allow all of those; they also accept the same words inside a
string or a comment, which only costs a parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Whitespace between the words of a statement: blanks, form feeds, backslash continuations.
_BLANK = r"(?:[ \t\f\v]|\\(?:\r\n|\r|\n))"
# Where a statement may begin: the start of the text, after a line break, `;` or `:`.
_STATEMENT_START = r"(?:\A|(?<=[\r\n;:]))"


class ImportScreen:
    """``search(text)``: ``from M…`` or ``import …M…`` as a statement Python would run,
    M one of the given top-level module names."""

    def __init__(self, modules: Iterable[str]) -> None:
        self._names = tuple(modules)
        names = "|".join(re.escape(module) for module in self._names)
        self._pattern = re.compile(
            rf"{_STATEMENT_START}{_BLANK}*"
            rf"(?:from{_BLANK}+(?:{names})\b"
            rf"|import{_BLANK}(?:[^#\r\n\\]|\\(?:\r\n|\r|\n)|\\)*?\b(?:{names})\b)"
        )

    def search(self, text: str) -> re.Match[str] | None:
        """The pattern's first match in ``text`` (``re.search``'s), found from the keywords:
        the regular-expression engine would try the pattern at every character."""
        if not any(name in text for name in self._names):  # most files never name them: cheap no
            return None
        for keyword in _KEYWORD.finditer(text):
            start = _statement_start(text, keyword.start())
            if start is not None:
                found = self._pattern.match(text, start)
                if found is not None:
                    return found
        return None


_KEYWORD = re.compile(r"from|import")
_BLANKS = frozenset(" \t\f\v")


def _statement_start(text: str, index: int) -> int | None:
    """The first position where the pattern may begin (``_STATEMENT_START``) from which blanks
    and continuations alone lead to ``index``; None where something else comes first."""
    earliest = None
    while True:
        if index == 0:
            return 0
        char = text[index - 1]
        if char in _BLANKS:
            index -= 1
            continue
        if char not in "\r\n;:":
            return earliest
        earliest = index  # a statement may begin here; one further back may too, past a continuation
        if char == "\n" and text[index - 2 : index] == "\\\n":
            index -= 2
        elif char == "\n" and text[index - 3 : index] == "\\\r\n":
            index -= 3
        elif char == "\r" and text[index - 2 : index] == "\\\r":
            index -= 2
        else:
            return earliest
