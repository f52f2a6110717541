"""Laying out the statements a fix wrote to fit the project's line length, with black.

A fix rewrites a statement on one line (`raise pkg_error("SYMBOL", key=value).caught_as(ValueError)
from error` can run to 150 characters). ``relayout`` re-lays out each statement the fixes wrote
(every line of it absent from the file before) that has a line longer than the limit, and
nothing else. The layout is black's own (``black.format_str`` on the statement alone, its
indentation taken off the limit, quotes kept as written): black is the formatter most projects
already run, so a rewritten line looks like the project's other lines and a later `black` or
`ruff format` run changes nothing. Strings are never split; a statement that cannot be made to
fit keeps what black makes of it, possibly a line too long. Left as they are: a statement
after a compound statement's colon, several statements on one line, a statement the fixes
only partly wrote, and one whose laid out form parses to another tree. Black is imported only
when a written line is too long.
"""

from __future__ import annotations

import ast
import difflib
import re
import unicodedata
from collections.abc import Sequence

from mcplint.analysis.walk_ast import statement_blocks

DEFAULT_LINE_LENGTH = 88
_SIMPLE_STATEMENTS = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Assert,
    ast.Delete,
    ast.ImportFrom,
)


def layout_statement(source: str, line_length: int = DEFAULT_LINE_LENGTH, *, trailing_comma_in_call: bool = True) -> str | None:
    """``source`` (one statement, its first line's indentation included, no line break at the
    end) laid out by black to fit ``line_length``; None when black cannot format it alone.

    ``trailing_comma_in_call``: the file is Python 3.6+ code to black (a trailing comma may
    follow `*args`); black infers that from the whole file, which the statement alone may not show."""
    import black  # only when a written line is too long: black is slow to import
    from black.mode import TargetVersion

    indent = source[: len(source) - len(source.lstrip(" \t"))]
    width = max(line_length - len(indent.expandtabs(4)), 1)
    targets = {version for version in TargetVersion if version.value >= TargetVersion.PY36.value}
    mode = black.Mode(
        line_length=width,
        string_normalization=False,
        target_versions=targets if trailing_comma_in_call else set(),
    )
    try:
        formatted = black.format_str(_dedented(source) + "\n", mode=mode)
    except Exception:  # black's own errors (InvalidInput, its AST checks): leave the statement
        return None
    lines = formatted.rstrip("\n").split("\n")
    return "\n".join(indent + line if line else line for line in lines)


def text_width(text: str) -> int:
    """Columns a line takes: wide East Asian characters count two (as black counts them)."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in text)


_FSTRING = re.compile(r"(?<![\w.])[rRbB]?[fF][rR]?['\"]")


def python36_or_later(source: str) -> bool:
    """Whether black would take ``source`` for Python 3.6+ code, where a trailing comma may follow
    `*args` in a call: black infers it from the syntax used; an f-string is what tells here."""
    return bool(_FSTRING.search(source))


def relayout(before: str, after: str, line_length: int) -> str:
    """``after`` (``before`` with fixes applied) with every statement the fixes wrote that has
    a line longer than ``line_length`` laid out to fit, as black would; lines the fixes did not
    write are never touched."""
    lines = after.splitlines(keepends=True)
    long_lines = [index for index, text in enumerate(lines) if text_width(text.rstrip("\r\n").expandtabs(4)) > line_length]
    if not long_lines:
        return after
    old_lines = before.splitlines(keepends=True)
    known = set(old_lines)
    candidates = [index for index in long_lines if lines[index] not in known]  # cheap first cut
    if not candidates:
        return after
    written = _written_lines(old_lines, lines)
    candidates = [index for index in candidates if index in written]
    if not candidates:
        return after
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return after
    modern = python36_or_later(after)
    replacements: dict[int, tuple[int, str]] = {}
    for start, end in _statements_over(tree, lines, candidates):
        if not all(index in written for index in range(start, end + 1)):
            continue
        newline = lines[end][len(lines[end].rstrip("\r\n")) :]
        source = "".join(lines[start : end + 1]).rstrip("\r\n")
        laid_out = layout_statement(source, line_length, trailing_comma_in_call=modern)
        if laid_out is None or laid_out == source or not _same_code(source, laid_out):
            continue
        replacements[start] = (end, laid_out.replace("\n", newline or "\n") + newline)
    if not replacements:
        return after
    result: list[str] = []
    index = 0
    while index < len(lines):
        if index in replacements:
            end, text = replacements[index]
            result.append(text)
            index = end + 1
        else:
            result.append(lines[index])
            index += 1
    return "".join(result)


def _written_lines(before: list[str], after: list[str]) -> set[int]:
    """Indexes of the lines of ``after`` that ``before`` does not have in the same place."""
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, before[head : len(before) - tail], after[head : len(after) - tail], autojunk=False)
    written: set[int] = set()
    for tag, _start, _end, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            written.update(range(head + start, head + end))
    return written


def _statements_over(tree: ast.Module, lines: Sequence[str], indexes: Sequence[int]) -> list[tuple[int, int]]:
    """(first, last) line index of each simple statement, alone on its lines, holding one of
    the ``indexes``; only the blocks around those lines are walked."""
    wanted = set(indexes)
    found: list[tuple[int, int]] = []

    def visit(body: list[ast.stmt]) -> None:
        for position, statement in enumerate(body):
            start, end = statement.lineno - 1, (statement.end_lineno or statement.lineno) - 1
            if not wanted.intersection(range(start, end + 1)):
                continue
            if not isinstance(statement, _SIMPLE_STATEMENTS):
                for block in statement_blocks(statement):
                    visit(block)
                continue
            if lines[start].encode("utf-8", "surrogatepass")[: statement.col_offset].strip():
                continue  # after a compound statement's colon: `if x: return f(...)`
            alone = all(
                other is statement or other.lineno - 1 > end or (other.end_lineno or other.lineno) - 1 < start
                for other in body[max(position - 1, 0) : position + 2]
            )
            if alone:
                found.append((start, end))

    visit(tree.body)
    return sorted(set(found))


def _same_code(before: str, after: str) -> bool:
    """Whether the laid out statement parses to the same tree as the one it replaces."""
    try:
        return ast.dump(ast.parse(_dedented(before))) == ast.dump(ast.parse(_dedented(after)))
    except (SyntaxError, ValueError):
        return False


def _dedented(source: str) -> str:
    indent = source[: len(source) - len(source.lstrip(" \t"))]
    return "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in source.split("\n"))
