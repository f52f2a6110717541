"""How deeply a TOML text nests its arrays and inline tables, before tomllib reads it.

tomllib parses nesting recursively: thousands of brackets end in RecursionError
at a depth that depends on the process's recursion limit (which linting
raises). The config and registry loaders refuse anything deeper than
``MAX_NESTING`` first, so the same file gets the same one-line error from every
command. No config or registry needs more than a few levels.
"""

from __future__ import annotations

MAX_NESTING = 100
_QUOTES = ('"""', "'''", '"', "'")


def too_deep(text: str, limit: int = MAX_NESTING) -> int | None:
    """The 1-based line where `[`/`{` nesting outside strings and comments first exceeds
    ``limit``, or None. Table headers (`[a.b]`, `[[a]]`) open and close on their line and
    never count deeper than two."""
    depth = 0
    line = 1
    index, length = 0, len(text)
    while index < length:
        character = text[index]
        if character == "\n":
            line += 1
        elif character == "#":
            end = text.find("\n", index)
            index = length if end < 0 else end
            continue
        elif character in "\"'":
            quote = next(quote for quote in _QUOTES if text.startswith(quote, index))
            end = _string_end(text, index + len(quote), quote)
            line += text.count("\n", index, end)
            index = end
            continue
        elif character in "[{":
            depth += 1
            if depth > limit:
                return line
        elif character in "]}":
            depth = max(depth - 1, 0)
        index += 1
    return None


def _string_end(text: str, start: int, quote: str) -> int:
    """The index after the string's closing quote (the text's end when it is unterminated:
    tomllib reports that)."""
    escapes = quote[0] == '"'
    index = start
    while index < len(text):
        if escapes and text[index] == "\\":
            index += 2
            continue
        if text.startswith(quote, index):
            return index + len(quote)
        if len(quote) == 1 and text[index] == "\n":
            return index  # a one-line string does not continue past its line
        index += 1
    return len(text)
