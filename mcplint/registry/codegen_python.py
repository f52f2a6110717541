"""Python literals and names for generated code: the only way registry text enters it.

Every string from the registry (messages, symbols, domain names, the namespace)
reaches the generated module through ``string_literal``, which escapes
everything that could end the literal or the line: quotes, backslashes,
newlines and every other non-printable character. The output is what black
would write for the same value, so a formatted project keeps the file as is.
"""

from __future__ import annotations

import re
import unicodedata

_ASCII_NAME_RUN = re.compile(r"[^A-Za-z0-9_]+")
_SHORT_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def string_literal(value: str) -> str:
    """``value`` as a Python string literal, quoted and escaped the way black writes it."""
    # Black prefers double quotes unless they need more escaping than single quotes.
    quote = "'" if value.count('"') > value.count("'") else '"'
    return quote + "".join(_escape_char(char, quote) for char in value) + quote


def _escape_char(char: str, quote: str) -> str:
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if char == quote:
        return "\\" + char
    if char.isprintable():  # ASCII space included; other separators (U+2028, NBSP) are escaped
        return char
    point = ord(char)  # black writes hex digits in lowercase
    if point < 0x100:
        return f"\\x{point:02x}"
    if point < 0x10000:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def display_width(text: str) -> int:
    """The width black measures lines in: East Asian wide and fullwidth characters
    count 2, everything else 1 (black's own table, up to Unicode versions)."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in text)


def python_literal(value: object) -> str:
    """A literal for the scalar types the registry holds: str, bool, int and None."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return string_literal(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def snake_name(text: str) -> str:
    """``text`` reduced to an ASCII identifier part: ``memory-bank`` → ``memory_bank``."""
    return _ASCII_NAME_RUN.sub("_", text).strip("_").lower()


def camel_name(text: str) -> str:
    """``memory-bank`` → ``MemoryBank``: the stem of a domain's ``Literal`` type name."""
    return "".join(part[:1].upper() + part[1:] for part in snake_name(text).split("_") if part)
