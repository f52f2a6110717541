"""Laying out the statements a fix wrote to fit the project's line length, as black would.

A fix rewrites a statement on one line (`raise pkg_error("SYMBOL", key=value).caught_as(ValueError)
from error` can run to 150 characters). ``relayout`` re-lays out each statement the fixes wrote
(every line of it absent from the file before) that has a line longer than the limit, and
nothing else: it splits at the outermost bracket pair that makes the first line fit, the
contents on the next lines indented 4 more, one argument a line with a trailing comma when
they do not fit on one, and recurses into a line still too long. Strings are never split; a
statement that cannot be made to fit keeps what black would make of it, possibly a line too long.

The splitting is black's, ported in ``mcplint.engine.layout``; this module turns the statement
into its tokens with what black reads from its syntax tree (a call's parentheses or a tuple's, a
unary minus, a comprehension's `for` and `if`, `*args`, the optional parentheses around a
`return` value, an assigned value, a conditional expression), read from the neighbouring tokens.
The spacing inside a line is kept as the fix wrote it (black normalises it; a fix writes it
black's way). Left as they are: a statement with a comment, a backslash continuation or a
multi-line string, several statements on one line, one after a compound statement's colon, a
statement the fixes only partly wrote, and one whose laid out form parses to another tree.
``tests/test_wrap.py`` runs black on the same statements and compares.
"""

from __future__ import annotations

import ast
import difflib
import io
import keyword
import re
import tokenize
from collections.abc import Callable, Iterator, Sequence

from mcplint.engine.layout import (
    ASSIGNMENTS,
    CLOSING,
    DEFAULT_LINE_LENGTH,
    OPENING,
    Leaf,
    Line,
    Mode,
    is_closing,
    is_opening,
    text_width,
    transform_line,
)

_OPERAND_KEYWORDS = frozenset({"None", "True", "False"})
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
_FSTRING_TOKENS = {
    getattr(tokenize, name): getattr(tokenize, name.replace("START", "END"))
    for name in ("FSTRING_START", "TSTRING_START")
    if hasattr(tokenize, name)
}


# -- from source to black's line and back -------------------------------------------------------
def layout_statement(source: str, line_length: int = DEFAULT_LINE_LENGTH, *, trailing_comma_in_call: bool = True) -> str | None:
    """``source`` (one statement, its first line's indentation included, no line break at the
    end) laid out to fit ``line_length``; None when it is a shape left alone (see the module)."""
    indent = source[: len(source) - len(source.lstrip(" \t"))]
    leaves = _leaves(source.lstrip(" \t"))
    if leaves is None:
        return None
    line = Line(indent, is_import=bool(leaves) and leaves[0].value == "from")
    for leaf in leaves:
        line.append(leaf)
    if line.tracker.bracket_match or line.tracker.depth:
        return None
    mode = Mode(line_length, trailing_comma_in_call)
    return "\n".join(each.render() for each in transform_line(line, mode))


def _leaves(source: str) -> list[Leaf] | None:
    """The statement's tokens as leaves, with the optional parentheses black adds; None for a
    shape left alone."""
    raw = _tokens(source)
    if raw is None or not raw:
        return None
    leaves = [Leaf(_kind(value, token_type), value, prefix) for token_type, value, prefix in raw]
    leaves[0].prefix = ""
    for index, leaf in enumerate(leaves):
        if index and (is_opening(leaves[index - 1]) or is_closing(leaf)):
            leaf.prefix = ""
    _annotate(leaves)
    result = _with_optional_parens(leaves)
    if result is not None:
        result = _with_parenthesized_ternaries(result)
    for leaf in result or ():
        leaf.original_prefix = leaf.prefix
    return result


def _tokens(source: str) -> list[tuple[int, str, str]] | None:
    """(type, text, whitespace before) of each token; None with a comment, a backslash, a
    multi-line string or more than one statement."""
    found: list[tuple[int, str, str]] = []
    lines = source.splitlines(keepends=True)
    previous_end: tuple[int, int] | None = None
    previous_text = ""
    fstring_depth = 0
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    for token in tokens:
        if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if token.type == tokenize.COMMENT or token.type == tokenize.ERRORTOKEN:
            return None
        if token.type == tokenize.OP and token.string == ";":
            return None
        if fstring_depth:  # the rest of an f-string: one leaf, as black has it
            if token.type in _FSTRING_TOKENS:
                fstring_depth += 1
            elif token.type in _FSTRING_TOKENS.values():
                fstring_depth -= 1
            kind, text, prefix = found[-1]
            text += _between(lines, previous_end, token.start) + token.string
            if "\n" in text:
                return None
            found[-1] = (kind, text, prefix)
            previous_end = token.end
            continue
        if token.type == tokenize.STRING and "\n" in token.string:
            return None
        if previous_end is None:
            prefix = ""
        elif previous_end[0] == token.start[0]:
            prefix = lines[token.start[0] - 1][previous_end[1] : token.start[1]]
        else:
            if lines[previous_end[0] - 1][previous_end[1] :].strip():
                return None  # a backslash continuation
            prefix = "" if previous_text in OPENING or previous_text == "." or token.string in (",", ".", *CLOSING) else " "
        if token.type in _FSTRING_TOKENS:
            fstring_depth = 1
            found.append((tokenize.STRING, token.string, prefix))
        else:
            found.append((token.type, token.string, prefix))
        previous_end, previous_text = token.end, token.string
    return found


def _between(lines: list[str], start: tuple[int, int] | None, end: tuple[int, int]) -> str:
    if start is None:
        return ""
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    return "".join([lines[start[0] - 1][start[1] :], *lines[start[0] : end[0] - 1], lines[end[0] - 1][: end[1]]])


def _kind(value: str, token_type: int) -> str:
    if value in OPENING or value in CLOSING or value in (",", ".", "="):
        return value
    if token_type == tokenize.NAME:
        return "NAME"
    if token_type == tokenize.NUMBER:
        return "NUMBER"
    if token_type == tokenize.STRING:
        return "STRING"
    return "OP"


def _ends_operand(leaf: Leaf | None) -> bool:
    """Whether ``leaf`` ends an operand: what follows is a binary operator or a trailer."""
    if leaf is None:
        return False
    if leaf.kind == "NAME":
        return leaf.value in _OPERAND_KEYWORDS or not keyword.iskeyword(leaf.value)
    return leaf.kind in ("NUMBER", "STRING") or is_closing(leaf)


def _annotate(leaves: list[Leaf]) -> None:
    """What black reads from the tree, read from the neighbouring tokens."""
    stack: list[Leaf] = []  # open brackets
    comprehension_at: set[int] = set()  # bracket levels where a comprehension's `for` was seen
    open_for: list[int] = []  # levels of `for`s whose `in` is pending
    importing = bool(leaves) and leaves[0].value in ("from", "import")
    for index, leaf in enumerate(leaves):
        previous = leaves[index - 1] if index else None
        following = leaves[index + 1] if index + 1 < len(leaves) else None
        leaf.in_import = importing
        level = len(stack)
        if is_opening(leaf):
            leaf.trailer = leaf.kind in ("(", "[") and _ends_operand(previous)
            stack.append(leaf)
            continue
        if is_closing(leaf):
            opening = stack.pop() if stack else None
            leaf.trailer = opening is not None and opening.trailer
            comprehension_at.discard(len(stack) + 1)
            continue
        if leaf.kind == "OP" and leaf.value in ("*", "**") and not _ends_operand(previous):
            leaf.vararg = True
            leaf.call_vararg = bool(stack) and stack[-1].kind == "(" and stack[-1].trailer
        elif leaf.kind == "OP" and leaf.value in ("-", "+", "~") and not _ends_operand(previous):
            leaf.unary = True
        elif leaf.kind == "NAME" and leaf.value in ("for", "async") and level > 0 and previous is not None:
            if leaf.value == "for":
                leaf.comprehension = True
                comprehension_at.add(level)
                open_for.append(level)
            elif following is not None and following.value == "for":
                leaf.comprehension = True
        elif leaf.kind == "NAME" and leaf.value == "in" and open_for and open_for[-1] == level:
            open_for.pop()
            leaf.comprehension = True
        elif leaf.kind == "NAME" and leaf.value == "if" and level in comprehension_at:
            leaf.comprehension = True
        elif leaf.kind == "NAME" and leaf.value == "not" and following is not None and following.value == "in":
            leaf.comprehension = True  # `not in`: a comparison (see `_split_before_priority`)


def _with_optional_parens(leaves: list[Leaf]) -> list[Leaf] | None:
    """Black's ``normalize_invisible_parens`` for the statements a fix writes: the value of a
    `return`, `del` or assignment, the names an import takes, an assertion's parts."""
    first = leaves[0].value
    if first == "from":
        names = next((index + 1 for index, leaf in enumerate(leaves) if leaf.value == "import"), None)
        if names is None or names >= len(leaves):
            return None
        if leaves[names].kind == "(" and leaves[-1].kind == ")":  # black hides them, shows them to split
            leaves[names].value = leaves[-1].value = ""
            leaves[names].invisible = leaves[-1].invisible = True
            return leaves
        return _wrapped(leaves, [(names, len(leaves))])
    if first in ("return", "del"):
        return _wrapped(leaves, [(1, len(leaves))]) if len(leaves) > 1 else leaves
    if first == "assert":
        comma = _top_level(leaves, lambda leaf: leaf.kind == ",")[:1]
        starts = [1, *(index + 1 for index in comma)]
        return _wrapped(leaves, list(zip(starts, [*comma, len(leaves)], strict=True)))
    if keyword.iskeyword(first) and first not in _OPERAND_KEYWORDS and first != "await" and first != "lambda":
        return leaves  # raise, pass, global, ...: no optional parentheses
    equals = _top_level(leaves, lambda leaf: leaf.value in ASSIGNMENTS)
    annotation = _top_level(leaves[: equals[0] if equals else len(leaves)], lambda leaf: leaf.value == ":")
    if not equals:  # `name: Annotation`, or no assignment at all (a lambda's colon is not one)
        if annotation and not _top_level(leaves[: annotation[0]], lambda leaf: leaf.value == "lambda"):
            return _wrapped(leaves, [(annotation[0] + 1, len(leaves))])
        return leaves
    if annotation:
        equals = [*annotation, *equals]
    starts = [index + 1 for index in equals]
    ends = [*equals[1:], len(leaves)]
    spans = list(zip(starts, ends, strict=True))
    if _top_level(leaves[: equals[0]], lambda leaf: leaf.kind == ","):
        spans.insert(0, (0, equals[0]))  # a tuple target
    return _wrapped(leaves, spans)


# Where a conditional expression can begin (after) and end (before), at its own bracket depth.
_TERNARY_STARTS_AFTER = frozenset({",", "=", ":", ":=", "else", "return", "yield", "lambda", "from", "assert", "del", "*", "**"})
_TERNARY_ENDS_BEFORE = frozenset({",", "=", ":", "from"})


def _with_parenthesized_ternaries(leaves: list[Leaf]) -> list[Leaf]:
    """Black's ``visit_test``: a conditional expression that is not all a pair of parentheses
    holds gets optional parentheses of its own (split, it is shown in them: `(\n    a\n    if b\n    else c\n)`)."""
    spans: list[tuple[Leaf, Leaf]] = []
    for index, leaf in enumerate(leaves):
        if leaf.kind != "NAME" or leaf.value != "if" or leaf.comprehension:
            continue
        start = _ternary_start(leaves, index)
        end = _ternary_end(leaves, index)
        if start is None or end is None:
            continue
        if 0 < start and end + 1 < len(leaves) and leaves[start - 1].kind == "(" and leaves[end + 1].kind == ")":
            continue  # all that a pair of parentheses holds (black: right after the `(`)
        spans.append((leaves[start], leaves[end]))
    if not spans:
        return leaves
    result = list(leaves)
    for first, last in spans:
        start = next(index for index, leaf in enumerate(result) if leaf is first)
        end = next(index for index, leaf in enumerate(result) if leaf is last)
        opening = Leaf("(", "", first.prefix, invisible=True)
        first.prefix = ""
        result[start : end + 1] = [opening, *result[start : end + 1], Leaf(")", "", "", invisible=True)]
    return result


def _ternary_start(leaves: Sequence[Leaf], index: int) -> int | None:
    depth = 0
    for position in range(index - 1, -1, -1):
        leaf = leaves[position]
        if is_closing(leaf):
            depth += 1
        elif is_opening(leaf):
            if depth == 0:
                return position + 1
            depth -= 1
        elif depth == 0 and (leaf.value in _TERNARY_STARTS_AFTER or leaf.value in ASSIGNMENTS) and not (
            leaf.kind == "OP" and leaf.value in ("*", "**") and not leaf.vararg
        ):
            return position + 1
        elif depth == 0 and leaf.comprehension and leaf.value in ("for", "if", "async"):
            return None  # a comprehension's condition: parenthesized or not a ternary
    return 0


def _ternary_end(leaves: Sequence[Leaf], index: int) -> int | None:
    depth = 0
    seen_else = False
    for position in range(index + 1, len(leaves)):
        leaf = leaves[position]
        if is_opening(leaf):
            depth += 1
        elif is_closing(leaf):
            if depth == 0:
                return position - 1 if seen_else else None
            depth -= 1
        elif depth == 0 and leaf.value == "else":
            seen_else = True
        elif depth == 0 and seen_else and (
            leaf.value in _TERNARY_ENDS_BEFORE or leaf.value in ASSIGNMENTS or (leaf.comprehension and leaf.value != "in")
        ):
            return position - 1
    return len(leaves) - 1 if seen_else else None


def _top_level(leaves: Sequence[Leaf], test: Callable[[Leaf], bool]) -> list[int]:
    depth = 0
    found = []
    for index, leaf in enumerate(leaves):
        if is_opening(leaf):
            depth += 1
        elif is_closing(leaf):
            depth -= 1
        elif depth == 0 and test(leaf):
            found.append(index)
    return found


def _wrapped(leaves: list[Leaf], spans: list[tuple[int, int]]) -> list[Leaf] | None:
    """``leaves`` with invisible parentheses around each span (a parenthesised expression's own
    become invisible instead, unless they make a tuple or a generator)."""
    result = list(leaves)
    for start, end in sorted(spans, reverse=True):
        if start >= end:
            return None
        inner = leaves[start:end]
        if inner[0].kind == "(" and _matching(inner, 0) == len(inner) - 1:
            content = inner[1:-1]
            keeps = not content or _top_level(
                content, lambda leaf: leaf.kind == "," or leaf.value in ("for", "yield", ":=") or leaf.vararg
            )
            if not keeps:
                inner[0].value = inner[-1].value = ""
                inner[0].invisible = inner[-1].invisible = True
            continue
        opening = Leaf("(", "", inner[0].prefix, invisible=True)
        inner[0].prefix = ""
        closing = Leaf(")", "", "", invisible=True)
        result[start:end] = [opening, *inner, closing]
    return result


def _matching(leaves: Sequence[Leaf], start: int) -> int | None:
    depth = 0
    for index in range(start, len(leaves)):
        if is_opening(leaves[index]):
            depth += 1
        elif is_closing(leaves[index]):
            depth -= 1
            if depth == 0:
                return index
    return None


# -- the fixer's hook ----------------------------------------------------------------------------
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
                for block in _blocks(statement):
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


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists inside a compound statement (an `except`'s and a `case`'s too)."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if isinstance(block, list):
            yield block
    for clause in [*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]:
        yield clause.body


def _same_code(before: str, after: str) -> bool:
    """Whether the laid out statement parses to the same tree as the one it replaces."""
    try:
        return ast.dump(ast.parse(_dedented(before))) == ast.dump(ast.parse(_dedented(after)))
    except (SyntaxError, ValueError):
        return False


def _dedented(source: str) -> str:
    indent = source[: len(source) - len(source.lstrip(" \t"))]
    return "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in source.split("\n"))
