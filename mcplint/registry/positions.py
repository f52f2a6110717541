"""Where each key and value of a TOML document sits: the line numbers tomllib does not give.

The scanner runs only on text tomllib has already accepted, so it can assume
valid TOML and stay small: it follows table headers (``[a.b]``, ``[[a.b]]``
with their element index), dotted keys, inline tables and arrays (elements get
their index as a path segment), and skips strings and comments without
interpreting them beyond what a path needs (quoted key names).

A *path* is the tuple of keys (and array indices) that reaches a value in the
parsed document: ``("domains", "auth", "errors", "AUTH_EXPIRED", "code")``,
``("reserved", 1, "range", 0)``.
"""

from __future__ import annotations

import bisect
import re
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TomlPath = tuple[str | int, ...]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ATOM_END = frozenset(" \t\r\n,]}#")


@dataclass(frozen=True)
class Span:
    """A stretch of the document: 1-based line and column, end column exclusive (code points)."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Located:
    """One path's spans: ``entry`` is the header line or the whole ``key = value``."""

    entry: Span
    key: Span
    value: Span | None = None


class PositionIndex:
    """Spans by path. Tables get their header; a table only implied (by ``[a.b]``
    or ``a.b = 1``) gets the first place that implies it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
        self._explicit: dict[TomlPath, Located] = {}
        self._implicit: dict[TomlPath, Located] = {}
        _Scanner(self).scan()

    def get(self, path: TomlPath) -> Located | None:
        return self._explicit.get(path) or self._implicit.get(path)

    def span(self, path: TomlPath, part: str = "entry") -> Span:
        """The ``entry``, ``key`` or ``value`` span of ``path``, else of its closest located ancestor."""
        for length in range(len(path), 0, -1):
            located = self.get(path[:length])
            if located is None:
                continue
            if length == len(path):
                return getattr(located, part) or located.entry
            return located.entry
        return Span(1, 1, 1, 1, "")

    def paths(self) -> list[TomlPath]:
        return list({**self._implicit, **self._explicit})

    # -- used by the scanner ---------------------------------------------------
    def make_span(self, start: int, end: int) -> Span:
        line, column = self._position(start)
        end_line, end_column = self._position(end)
        return Span(line, column, end_line, end_column, self.text[start:end])

    def record(self, path: TomlPath, located: Located, *, implicit: bool = False) -> None:
        if implicit:
            self._implicit.setdefault(path, located)
        else:
            self._explicit[path] = located

    def _position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1


class _Scanner:
    def __init__(self, index: PositionIndex) -> None:
        self.index = index
        self.text = index.text
        self.pos = 0
        # Array-of-tables paths (resolved) -> how many elements so far.
        self.array_tables: dict[TomlPath, int] = {}

    def scan(self) -> None:
        table: TomlPath = ()
        while True:
            self._skip_blank(newlines=True)
            if self.pos >= len(self.text):
                return
            if self.text.startswith("[", self.pos):
                table = self._header()
            else:
                self._key_value(table)

    # -- statements --------------------------------------------------------------
    def _header(self) -> TomlPath:
        start = self.pos
        is_array = self.text.startswith("[[", self.pos)
        self.pos += 2 if is_array else 1
        names = [name for name, _, _ in self._key()]
        self._skip_blank()
        self.pos += 2 if is_array else 1
        span = self.index.make_span(start, self.pos)
        located = Located(entry=span, key=span)
        path = self._resolve(names, is_array)
        for length in range(1, len(path)):
            self.index.record(path[:length], located, implicit=True)
        self.index.record(path, located)
        return path

    def _resolve(self, names: list[str], is_array: bool) -> TomlPath:
        """The header's path, stepping into the last element of each array of tables on the way."""
        path: TomlPath = ()
        for position, name in enumerate(names):
            path += (name,)
            last = position == len(names) - 1
            if last and is_array:
                count = self.array_tables.get(path, 0)
                self.array_tables[path] = count + 1
                path += (count,)
            elif path in self.array_tables:
                path += (self.array_tables[path] - 1,)
        return path

    def _key_value(self, base: TomlPath) -> None:
        start = self.pos
        segments = self._key()
        key_span = self.index.make_span(start, segments[-1][2])
        path = base + tuple(name for name, _, _ in segments)
        self._skip_blank()
        self.pos += 1  # "="
        self._skip_blank()
        value_start = self.pos
        self._value(path)
        entry = self.index.make_span(start, self.pos)
        located = Located(entry=entry, key=key_span, value=self.index.make_span(value_start, self.pos))
        for length in range(len(base) + 1, len(path)):
            self.index.record(path[:length], located, implicit=True)
        self.index.record(path, located)

    def _key(self) -> list[tuple[str, int, int]]:
        """A (dotted) key: (name, start, end) per segment."""
        segments = []
        while True:
            self._skip_blank()
            start = self.pos
            if self.text[self.pos] in "\"'":
                end = self._string_end(self.pos)
                raw = self.text[start:end]
                name = raw[1:-1] if raw.startswith("'") else tomllib.loads(f"k = {raw}")["k"]
            else:
                match = _BARE_KEY.match(self.text, self.pos)
                end = match.end() if match else self.pos + 1
                name = self.text[start:end]
            self.pos = end
            segments.append((name, start, end))
            self._skip_blank()
            if not self.text.startswith(".", self.pos):
                return segments
            self.pos += 1

    # -- values ----------------------------------------------------------------
    def _value(self, path: TomlPath) -> None:
        char = self.text[self.pos]
        if char in "\"'":
            self.pos = self._string_end(self.pos)
        elif char == "[":
            self._array(path)
        elif char == "{":
            self._inline_table(path)
        else:
            self._atom()

    def _array(self, path: TomlPath) -> None:
        self.pos += 1
        position = 0
        while True:
            self._skip_blank(newlines=True)
            if self.text[self.pos] == "]":
                self.pos += 1
                return
            start = self.pos
            self._value((*path, position))
            span = self.index.make_span(start, self.pos)
            self.index.record((*path, position), Located(entry=span, key=span, value=span))
            position += 1
            self._skip_blank(newlines=True)
            if self.text[self.pos] == ",":
                self.pos += 1

    def _inline_table(self, path: TomlPath) -> None:
        self.pos += 1
        while True:
            # Newlines only occur here under TOML 1.1; skipping them costs nothing.
            self._skip_blank(newlines=True)
            if self.text[self.pos] == "}":
                self.pos += 1
                return
            self._key_value(path)
            self._skip_blank(newlines=True)
            if self.text[self.pos] == ",":
                self.pos += 1

    def _atom(self) -> None:
        """A number, boolean or date-time: up to the next delimiter."""
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _ATOM_END:
            self.pos += 1
        # `1979-05-27 07:32:00`: a space may separate date and time.
        if (
            _DATE.fullmatch(self.text, start, self.pos)
            and self.text.startswith(" ", self.pos)
            and self.text[self.pos + 1 : self.pos + 2].isdigit()
        ):
            self.pos += 1
            while self.pos < len(self.text) and self.text[self.pos] not in _ATOM_END:
                self.pos += 1

    def _string_end(self, start: int) -> int:
        quote = self.text[start]
        escapes = quote == '"'
        if self.text.startswith(quote * 3, start):
            end = self._closing(start + 3, quote * 3, escapes)
            # A multi-line string may end with one or two quotes of its own: `""""a"""""`.
            extra = 0
            while extra < 2 and self.text.startswith(quote, end):
                end += 1
                extra += 1
            return end
        return self._closing(start + 1, quote, escapes)

    def _closing(self, pos: int, delimiter: str, escapes: bool) -> int:
        while not self.text.startswith(delimiter, pos):
            pos += 2 if escapes and self.text[pos] == "\\" else 1
        return pos + len(delimiter)

    def _skip_blank(self, *, newlines: bool = False) -> None:
        """Spaces and tabs, and with ``newlines`` also line breaks and comments."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t" or (newlines and char in "\r\n"):
                self.pos += 1
            elif char == "#":
                if not newlines:
                    return
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                return
