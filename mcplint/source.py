"""Bytes to text, the way Python itself would decode a source file."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

GENERATED_MARKER = "@generated"
# The marker counts in the file's header only, so that a linter or a docstring
# that merely mentions it further down is still checked.
GENERATED_HEADER_LINES = 10


# Python's line breaks, and only those: a lone CR is one (str.splitlines also splits at form
# feeds, U+2028 and others, which Python does not).
LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BYTE_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines as Python numbers them, without their line breaks (line N is item N-1)."""
    if "\r" not in text:  # the commonest text: str.split, several times faster than the pattern
        return text.split("\n")
    return LINE_BREAK.split(text)


@dataclass(frozen=True)
class UndecodableSource(Exception):
    message: str
    line: int
    column: int


def decode_source(data: bytes) -> str:
    """Decode per PEP 263 (BOM, coding cookie, default UTF-8)."""
    return decode_with_encoding(data)[0]


def decode_with_encoding(data: bytes) -> tuple[str, str]:
    """The text and the encoding to write it back with (``utf-8-sig`` keeps a BOM)."""
    nul = data.find(b"\x00")
    if nul != -1:
        line, column = _byte_position(data, nul)
        raise UndecodableSource("source contains a NUL byte", line, column)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise UndecodableSource(f"invalid encoding declaration: {error.msg}", error.lineno or 1, 1) from None
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as error:
        line, column = _byte_position(data, error.start)
        byte = data[error.start : error.start + 1].hex()
        raise UndecodableSource(f"cannot decode byte 0x{byte} as {encoding}", line, column) from None


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    breaks = list(_BYTE_LINE_BREAK.finditer(data, 0, offset))
    line_start = breaks[-1].end() if breaks else 0
    prefix = data[line_start:offset].decode("utf-8", errors="replace")
    return len(breaks) + 1, len(prefix) + 1


def is_generated(text: str) -> bool:
    head = LINE_BREAK.split(text, GENERATED_HEADER_LINES)[:GENERATED_HEADER_LINES]
    return any(GENERATED_MARKER in line for line in head)
