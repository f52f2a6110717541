"""The module's text where CPython's tree does not tell what LibCST's does: whether a string
literal is one token (`"a" "b"` is one ``ast.Constant``), what a literal's token says as written,
whether a block's statements follow its colon, whether a tuple has parentheses of its own.
For the `ast` twins of the port (issue 11; docs/architecture.md)."""

from __future__ import annotations

import ast
import bisect
import operator
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from itertools import accumulate, count

from mcplint.analysis.walk_ast import nodes_of


class SourceText:
    """The module's text, where a string literal's tokens are read from (by a node's `ast`
    position: its line and UTF-8 byte column)."""

    @classmethod
    def of(cls, text: str) -> SourceText:
        """The one for this text object: the tree's builder, the rules' context and the handler
        facts of a module read the same text, and each would list its lines again (as would the
        judging round, which reads a module's text again after other modules')."""
        with _RECENT_LOCK:  # the language server's threads analyse too
            found = _RECENT.get(id(text))
            if found is None or found.text is not text:
                found = _RECENT[id(text)] = cls(text)
                while len(_RECENT) > _MAX_RECENT:
                    _RECENT.popitem(last=False)
            else:
                _RECENT.move_to_end(id(text))
            return found

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii = text.isascii()
        self._starts: list[int] | None = None
        # Per line of a text not all ASCII: its UTF-8 bytes, or b"" where the line is ASCII.
        self._encoded: dict[int, bytes] = {}

    def line_starts(self) -> list[int]:
        """``line_starts`` of the text, listed on first use (most modules' literals are never
        read this way)."""
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    def offset(self, line: int, column: int) -> int:
        """``ast``'s (line, UTF-8 byte column) as an index in ``text``."""
        start = self.line_starts()[line - 1]
        if self._ascii:
            return start + column
        encoded = self._encoded.get(line)
        if encoded is None:
            starts = self.line_starts()
            chars = self.text[start : starts[line] if line < len(starts) else len(self.text)]
            encoded = self._encoded[line] = b"" if chars.isascii() else chars.encode("utf-8")
        if not encoded:
            return start + column
        return start + len(encoded[:column].decode("utf-8", "replace"))

    def start(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]

    def one_token(self, node: ast.expr) -> bool:
        """Whether a plain string literal is a single token (not `"a" "b"`), or an f-string one
        (LibCST's ``FormattedString``, not a ``ConcatenatedString``)."""
        return token_end(self.text, self.start(node)) == self.end(node)

    def after_colon(self, statements: Sequence[ast.stmt]) -> bool:
        """Whether a block's statements follow its colon on its line (LibCST's
        ``SimpleStatementSuite``, not an ``IndentedBlock``)."""
        text = self.text
        index = self.start(statements[0]) - 1
        while index >= 0 and text[index] in " \t\f":
            index -= 1
        return index >= 0 and text[index] == ":"

    def parenthesized(self, node: ast.Tuple) -> bool:
        """Whether a tuple has parentheses of its own (`x[(a, b)]`, not `x[a, b]` nor
        `x[(a), b]`): its first element's opening parentheses outnumber their closing ones."""
        text = self.text
        start = self.start(node)
        if text[start] != "(":
            return False
        if not node.elts:
            return True
        first = node.elts[0]
        first_start = self.start(first)
        if first_start == start:
            return False
        opened = _code(text, start, first_start).count("(")
        index = self.end(first)
        closed = 0
        while index < len(text):
            char = text[index]
            if char == ")":
                closed += 1
            elif char == "#":
                index = _line_end(text, index)
                continue
            elif char not in " \t\f\r\n\\":
                break
            index += 1
        return closed < opened


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Where each line of the text starts, as `ast` ends a line: at "\r\n", "\r" and "\n"."""
    if "\r" in text:
        return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]
    # The common case, without a step in Python per line: line k starts past k "\n"s.
    return [0, *map(operator.add, accumulate(map(len, text.split("\n")[:-1])), count(1))]


# ``SourceText.of``'s, by the text object's identity (the object itself tells a reused id).
_RECENT: OrderedDict[int, SourceText] = OrderedDict()
_MAX_RECENT = 8
_RECENT_LOCK = threading.Lock()


def shared_line_starts(text: str) -> list[int]:
    """``line_starts`` of the module's text, listed once (the tree's spans, the fixes' bridge and
    MCP005 each build nodes from it, and each listed its lines again); not to be changed."""
    return SourceText.of(text).line_starts()


def _line_end(text: str, index: int) -> int:
    found = _LINE_BREAK.search(text, index)
    return found.start() if found is not None else len(text)


def _code(text: str, start: int, end: int) -> str:
    """``text[start:end]`` without its comments (a stretch holding no string)."""
    found: list[str] = []
    index = start
    while index < end:
        comment = text.find("#", index, end)
        if comment == -1:
            found.append(text[index:end])
            break
        found.append(text[index:comment])
        index = _line_end(text, comment)
    return "".join(found)


def opening_quote(text: str, start: int) -> tuple[int, str]:
    """Where a string token starting at ``start`` opens its quote (after its prefix), and
    the quote."""
    index = start
    while text[index] not in "'\"":
        index += 1
    triple = text[index] * 3
    return index, triple if text.startswith(triple, index) else text[index]


def token_end(text: str, start: int) -> int:
    """Where the plain string token starting at ``start`` ends: after the first quote like its
    own that an even run of backslashes precedes (as the tokenizer, raw strings too)."""
    quote_at, quote = opening_quote(text, start)
    body = index = quote_at + len(quote)
    while True:
        found = text.find(quote, index)
        if found == -1:  # `ast` parsed the text: not reached
            return len(text)
        backslash = found - 1
        while backslash >= body and text[backslash] == "\\":
            backslash -= 1
        if (found - 1 - backslash) % 2 == 0:
            return found + len(quote)
        index = found + 1


def mark_concatenated_strings(tree: ast.AST, source: SourceText) -> None:
    """Mark each text or bytes literal written as several tokens (``concatenated``): LibCST's
    ``ConcatenatedString``, where `ast` has one constant (``is_one_token`` reads the mark).
    Only the statements on a line where the screen finds a string token followed by another (or
    an f-string it cannot read past) hold one: the constants of those are looked at (most texts
    have no such line, and the others a few)."""
    lines = _concatenation_lines(source)
    if not lines:
        return
    for node in nodes_of(tree, _CONSTANT, lines):
        if type(node.value) in (str, bytes) and not source.one_token(node):  # type: ignore[attr-defined,arg-type]
            node.concatenated = True  # type: ignore[attr-defined]


_CONSTANT: frozenset[type] = frozenset({ast.Constant})


def _concatenation_lines(source: SourceText) -> list[int]:
    """The lines, in order, where the screen stops (``_MAY_CONCATENATE``): where a string token
    it stops at (one followed by another, or an f-string holding other quotes) ends. It goes on
    past that token as the tokenizer reads it (Python 3.11: to its own quote), not from where
    its match ended, which may lie inside the token (a triple-quoted f-string read as an empty
    f-string and a quote)."""
    text = source.text
    starts = source.line_starts()
    found: list[int] = []
    position = 0
    while (match := _MAY_CONCATENATE.match(text, position)) is not None:
        position = token_end(text, match.start(1))
        found.append(bisect.bisect_right(starts, position - 1))
    return found


def is_one_token(node: ast.AST) -> bool:
    """A text or bytes literal of one token (LibCST's ``SimpleString``), once the module's
    literals are marked (``mark_concatenated_strings``)."""
    return type(node) is ast.Constant and type(node.value) in (str, bytes) and not getattr(node, "concatenated", False)


# A string token as CPython 3.11 reads it, its prefix left to what comes before; unrolled
# (`[^'\\]*(?:...)*`): a step per run of characters, not one per character (for verbose patterns).
STRING_TOKEN = r"""(?: '''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*''' | \"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
    | '[^\\'\r\n]*(?:\\.[^\\'\r\n]*)*' | "[^\\"\r\n]*(?:\\.[^\\"\r\n]*)*" )"""
# An f-string token holding no quote but its own: no string inside its expressions either.
_PLAIN_FSTRING = r"""[fF][rR]? (?: '''[^'"\\]*(?:\\.[^'"\\]*)*''' | \"\"\"[^'"\\]*(?:\\.[^'"\\]*)*\"\"\"
    | '[^'"\\\r\n]*(?:\\.[^'"\\\r\n]*)*' | "[^'"\\\r\n]*(?:\\.[^'"\\\r\n]*)*" )"""
# What may come between two string tokens of one literal, then the second's prefix and quote.
_NEXT_STRING = r"""(?: [ \t\f\r\n]+ | \\(?:\r\n|\r|\n) | \#[^\r\n]* )*+ [rRbBuUfF]{0,2}['"]"""
# Matches a text (from its start) that may hold a literal of several tokens: the code, comments
# and string tokens before the first string token followed by another are skipped possessively;
# an f-string with other quotes inside (a string in its expressions, `f"{d['k']}"`) stops the
# skipping too, and counts as a may. A text that does not match has no such literal (CPython
# parsed it: every quote outside a comment opens a string token).
_MAY_CONCATENATE = re.compile(
    rf"""(?: [^'"\#fF]+ | [fF](?![rR]?['"]) | \#[^\r\n]* | {_PLAIN_FSTRING} (?!{_NEXT_STRING}) | {STRING_TOKEN} (?!{_NEXT_STRING}) )*+
    () (?: {STRING_TOKEN} {_NEXT_STRING} | {_PLAIN_FSTRING} {_NEXT_STRING} | [fF] )""",
    re.VERBOSE | re.DOTALL,
)
