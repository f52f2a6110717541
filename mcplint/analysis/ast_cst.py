"""LibCST-shaped trees built from CPython's ``ast``, for analysis.

LibCST's parser builds a Python object for every token and every run of
whitespace, and that is most of what it costs: over the pinned corpus it needs
about ten times what ``ast.parse`` does. The analyses and rules read LibCST's
node classes and their meaningful fields only (the walk skips whitespace and
punctuation, ``analysis/walk.py``). This module builds those nodes, with the same
classes and the same structure, from the ``ast`` tree, sharing one instance of
each whitespace and punctuation default, and records where each node sits in the
source (its range with its own parentheses, as ``positions.node_ranges`` gives it).

It is a tree to read, not to print: its whitespace is not the source's. The
source text of a node is ``text[start:end]`` of its span. A construct it does not
build (``except*``, an f-string expression spanning lines, ...) raises
``Unsupported``: the caller parses that file with LibCST.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import keyword
import re
import sys
import tokenize
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import libcst as cst

from mcplint.analysis.source_text import shared_line_starts
from mcplint.analysis.walk_ast import nodes_of, statement_blocks

Span = tuple[int, int]  # code-point offsets in the source: start, end (exclusive)


class Unsupported(Exception):
    """A construct this builder does not make; parse the file with LibCST."""


_new = object.__new__
# Per class: (setter, default) for every field, defaults built once and shared (nodes are
# immutable; a shared whitespace node is never a finding's node).
_FIELDS: dict[type, list[tuple[str, Callable[[object, object], None], object]]] = {}
_REQUIRED = object()


def _fields(cls: type) -> list[tuple[str, Callable[[object, object], None], object]]:
    found = _FIELDS.get(cls)
    if found is None:
        found = []
        for field in dataclasses.fields(cls):
            if field.default is not dataclasses.MISSING:
                default: object = field.default
                if isinstance(default, cst.CSTNode):  # LibCST's own nodes share it: this tree's must not
                    default = default.deep_clone()
            elif field.default_factory is not dataclasses.MISSING:
                default = field.default_factory()
            else:
                default = _REQUIRED
            found.append((field.name, cls.__dict__[field.name].__set__, default))
            _share(default)
        _FIELDS[cls] = found
    return found


# The ids of the whitespace and punctuation nodes every tree of this module shares: a fix that
# would print one prints a guess, not the source (``render``).
_SHARED: set[int] = set()
_KEPT_ALIVE: list[object] = []  # so that no other object ever takes one of those ids


def _share(default: object) -> object:
    values = default if isinstance(default, (list, tuple)) else (default,)
    for value in values:
        if isinstance(value, cst.CSTNode):
            _SHARED.add(id(value))
            _KEPT_ALIVE.append(value)
    return default


class _Constructors(dict[type, Callable[..., Any]]):
    """``make[cls](**fields)``: a node of ``cls`` without its constructor's validation (the
    source was valid Python). Per class, a function is generated as dataclasses generate
    ``__init__``: its fields as keyword parameters (defaults shared), one setter call each, so
    that making a node costs no loop over its fields (a million nodes a corpus run)."""

    def __missing__(self, cls: type) -> Callable[..., Any]:
        namespace: dict[str, Any] = {"_new": _new, "_cls": cls}
        parameters, lines = [], []
        for index, (name, setter, default) in enumerate(_fields(cls)):
            namespace[f"_set{index}"] = setter
            if default is _REQUIRED:
                parameters.append(name)
            else:
                namespace[f"_default{index}"] = default
                parameters.append(f"{name}=_default{index}")
            lines.append(f"    _set{index}(node, {name})\n")
        signature = f"*, {', '.join(parameters)}" if parameters else ""
        exec(f"def make({signature}):\n    node = _new(_cls)\n{''.join(lines)}    return node\n", namespace)
        constructor: Callable[..., Any] = namespace["make"]
        self[cls] = constructor
        return constructor


make = _Constructors()


# A '#' and the rest of its line: the lines where a backward scan looks for a comment.
_HASH_TO_LINE_END = re.compile(r"#[^\n]*")
# From Python 3.12 on (PEP 701) an f-string's field is code: it may hold quotes like its own
# and comments, and a single-quoted f-string may span lines inside one.
_FSTRING_FIELDS_ARE_CODE = sys.version_info >= (3, 12)
# Where reading a line for its comment stops: a '#', a quote, and there a brace (a '}' that
# closes no '{' of the line may close a field opened on a line above, the line starting inside it).
_LINE_STOPS = re.compile(r"[#'\"{}]" if _FSTRING_FIELDS_ARE_CODE else r"[#'\"]")
# Where reading an f-string's body for its fields stops (``_fields_hold_no_quote``).
_FIELD_STOPS = re.compile(r"[{}#'\"]")

_NO_PARENS: tuple[()] = ()
_LPAR = _share(cst.LeftParen())
_RPAR = _share(cst.RightParen())
_COMMA = _share(cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
_DOT = _share(cst.Dot())
_EQUAL = _share(cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
_ASYNC = _share(cst.Asynchronous())
_COLON = _share(cst.Colon())
_LBRACKET = _share(cst.LeftSquareBracket())
_RBRACKET = _share(cst.RightSquareBracket())
_NO_SPACE = _share(cst.SimpleWhitespace(""))
_KEYWORDS = frozenset(keyword.kwlist) - {"True", "False", "None"}

_BINARY: dict[type, cst.CSTNode] = {
    ast.Add: cst.Add(), ast.Sub: cst.Subtract(), ast.Mult: cst.Multiply(), ast.MatMult: cst.MatrixMultiply(),
    ast.Div: cst.Divide(), ast.FloorDiv: cst.FloorDivide(), ast.Mod: cst.Modulo(), ast.Pow: cst.Power(),
    ast.LShift: cst.LeftShift(), ast.RShift: cst.RightShift(), ast.BitOr: cst.BitOr(), ast.BitXor: cst.BitXor(),
    ast.BitAnd: cst.BitAnd(),
}  # fmt: skip
_AUGMENTED: dict[type, cst.CSTNode] = {
    ast.Add: cst.AddAssign(), ast.Sub: cst.SubtractAssign(), ast.Mult: cst.MultiplyAssign(),
    ast.MatMult: cst.MatrixMultiplyAssign(), ast.Div: cst.DivideAssign(), ast.FloorDiv: cst.FloorDivideAssign(),
    ast.Mod: cst.ModuloAssign(), ast.Pow: cst.PowerAssign(), ast.LShift: cst.LeftShiftAssign(),
    ast.RShift: cst.RightShiftAssign(), ast.BitOr: cst.BitOrAssign(), ast.BitXor: cst.BitXorAssign(),
    ast.BitAnd: cst.BitAndAssign(),
}  # fmt: skip
_UNARY: dict[type, cst.CSTNode] = {
    ast.Not: cst.Not(), ast.USub: cst.Minus(), ast.UAdd: cst.Plus(), ast.Invert: cst.BitInvert(),
}  # fmt: skip
_COMPARE: dict[type, cst.CSTNode] = {
    ast.Eq: cst.Equal(), ast.NotEq: cst.NotEqual(), ast.Lt: cst.LessThan(), ast.LtE: cst.LessThanEqual(),
    ast.Gt: cst.GreaterThan(), ast.GtE: cst.GreaterThanEqual(), ast.Is: cst.Is(), ast.IsNot: cst.IsNot(),
    ast.In: cst.In(), ast.NotIn: cst.NotIn(),
}  # fmt: skip
_BOOLEAN: dict[type, cst.CSTNode] = {ast.And: cst.And(), ast.Or: cst.Or()}
for _table in (_BINARY, _AUGMENTED, _UNARY, _COMPARE, _BOOLEAN):
    for _operator in _table.values():
        _share(_operator)
_BAR = _BINARY[ast.BitOr]  # an or-pattern's separator
_SMALL = (
    ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Raise, ast.Assert, ast.Delete, ast.Pass,
    ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom,
)  # fmt: skip


def first_line(statement: ast.stmt) -> int:
    """The line a statement's node starts on: its first decorator's, if it has one."""
    decorators: list[ast.expr] = getattr(statement, "decorator_list", None) or []
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def build(text: str) -> tuple[cst.Module, dict[int, Span]]:
    """The module's tree and each node's span, by ``id``; ``SyntaxError`` where Python
    refuses the text, ``Unsupported`` where this builder does not make the tree."""
    tree = ast.parse(text)
    builder = _Builder(text)
    body = builder.block_body(tree.body)
    module = make[cst.Module](body=body)
    return module, builder.spans


class _Builder:
    def __init__(self, text: str, base: int = 0, spans: dict[int, Span] | None = None) -> None:
        self.text = text
        self.base = base  # where ``text`` starts in the file (an f-string's expression)
        self.spans: dict[int, Span] = {} if spans is None else spans
        if "\r" in text:  # ast counts a lone CR as a line break too
            raise Unsupported("carriage returns")
        self.line_starts = shared_line_starts(text)
        # Per line of a text that is not all ASCII: its UTF-8 bytes, or b"" where the line is
        # ASCII (most lines of such a text: a byte column is a code-point column there).
        self._wide_lines: dict[int, bytes] = {}
        self.ascii = text.isascii()
        # The expressions of this text's f-strings, by where `ast` places them: an f-string's
        # expression is built from its `ast` node when that node sits where the scan found it.
        self._formatted: dict[int, ast.expr] = {}
        # Where each `match` and `case` keyword of the text ends: soft keywords, which
        # ``keyword.kwlist`` does not list, so a '(' after one would pass for a call's.
        self._soft_keyword_ends: set[int] = set()
        # The line breaks that end a line holding a '#' (in a comment or in a string), where
        # ``_before`` looks for a comment; what it found, by line break (``_code_end``).
        self._hash_line_ends = {found.end() for found in _HASH_TO_LINE_END.finditer(text)}
        self._code_ends: dict[int, int] = {}
        self._tokenized_comment_starts: dict[int, int] | None = None
        # Where each expression statement built so far starts: a line one starts (a docstring's)
        # starts in code (``_starts_in_code``).
        self._expression_statement_starts: set[int] = set()

    # -- positions -------------------------------------------------------------------------

    def offset(self, line: int, column: int) -> int:
        """``ast``'s (line, UTF-8 byte column) as a code-point offset in ``text``."""
        start = self.line_starts[line - 1]
        if self.ascii:
            return start + column
        encoded = self._wide_lines.get(line)
        if encoded is None:
            end = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
            chars = self.text[start:end]
            encoded = self._wide_lines[line] = b"" if chars.isascii() else chars.encode("utf-8")
        if not encoded:
            return start + column
        return start + len(encoded[:column].decode("utf-8", "replace"))

    def span_of(self, node: ast.AST) -> Span:
        if self.ascii:  # the commonest: columns are offsets in the line (a million nodes a corpus run)
            starts = self.line_starts
            return (
                starts[node.lineno - 1] + node.col_offset,  # type: ignore[attr-defined]
                starts[node.end_lineno - 1] + node.end_col_offset,  # type: ignore[attr-defined]
            )
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def _before(self, index: int) -> int:
        """The index of the last character before ``index`` that is not blank or a comment's
        (-1: none)."""
        text = self.text
        index -= 1
        while index >= 0:
            char = text[index]
            if char in " \t\f\n":
                if char == "\n":
                    # A comment may end the line above (`(  # why`): the scan goes on before it.
                    # A set's look-up first, as most lines hold no '#' (most expressions are scanned).
                    if index in self._hash_line_ends:
                        code_end = self._code_end(index)
                        if code_end != index:
                            index = code_end
                            continue
                    # A backslash that ends a line continues it (read after the comment: one that
                    # ends a comment continues nothing).
                    if index > 0 and text[index - 1] == "\\":
                        index -= 2
                        continue
                index -= 1
                continue
            return index
        return -1

    def _code_end(self, line_end: int) -> int:
        """Where the scan back goes on at the line break ``line_end``: the last character of its
        line's code before the comment (the line break above, or -1, where blanks alone precede
        the comment), or ``line_end`` itself where the line's '#'s are all in strings. A scan
        from code reached that line break over blanks: it is in no string."""
        found = self._code_ends.get(line_end)
        if found is None:
            text = self.text
            line_start = text.rfind("\n", 0, line_end) + 1
            comment = self._read_comment_start(line_start, line_end) if self._starts_in_code(line_start, line_end) else None
            if comment is None:
                comment = self._tokenized_comment_start(line_end)
            found = line_end if comment < 0 else line_start + len(text[line_start:comment].rstrip(" \t\f")) - 1
            self._code_ends[line_end] = found
        return found

    def _starts_in_code(self, start: int, end: int) -> bool:
        """Whether the line [start, end) starts outside any string. A string that spans lines and
        ends on it (none goes on past its end, which is in no string) ends with a triple quote or
        after a line that ends with a backslash; from Python 3.12 on it may also be an f-string
        whose field spans lines, which ``_read_comment_start`` tells by the '}' closing that field.
        A line with a triple quote does start in code where a statement starts after its indent
        (no string ends there before it): a docstring's line, read after its statement is built
        (only expression statements are recorded: others rarely start with a string)."""
        text = self.text
        if start >= 2 and text[start - 2] == "\\":
            return False
        if text.find('"""', start, end) == -1 and text.find("'''", start, end) == -1:
            return True
        first = start
        while text[first] in " \t\f":
            first += 1
        return first in self._expression_statement_starts

    def _read_comment_start(self, start: int, end: int) -> int | None:
        """Where the comment of the line [start, end), which starts in code, starts (-1: none),
        read from string to string; None where Python's tokenizer must tell: from Python 3.12
        on, at a '}' that closes no '{' of the line (``_LINE_STOPS``) or an f-string whose fields
        may hold quotes (``_fields_hold_no_quote``)."""
        text = self.text
        at = start
        braces = 0  # the '{'s of the line not closed yet
        while True:
            stop = _LINE_STOPS.search(text, at, end)
            if stop is None:
                return -1
            at = stop.start()
            char = text[at]
            if char == "#":
                return at
            if char == "{":
                braces += 1
            elif char == "}":
                if not braces:
                    return None
                braces -= 1
            else:
                quote = char * 3 if text.startswith(char * 3, at) else char
                body = at + len(quote)
                close = _closing_quote(text, quote, body)
                if close >= end:  # not reached: a string ends on the line it starts on, here
                    return None
                if (
                    _FSTRING_FIELDS_ARE_CODE
                    and _has_fstring_prefix(text, start, at)
                    and not _fields_hold_no_quote(text, body, close)
                ):
                    return None
                at = close + len(quote) - 1
            at += 1

    def _tokenized_comment_start(self, line_end: int) -> int:
        """Where Python's tokenizer finds the comment of the line that ends at ``line_end`` (-1:
        none): for the lines a reading of their own cannot tell (it reads the whole text once)."""
        if self._tokenized_comment_starts is None:
            text, line_starts = self.text, self.line_starts
            starts: dict[int, int] = {}
            try:
                for token in tokenize.generate_tokens(io.StringIO(text).readline):
                    if token.type == tokenize.COMMENT:
                        # A comment runs to its line's end: its row tells where it starts (columns
                        # are less sure: 3.12.1 counts a string's end spanning lines in UTF-8 bytes).
                        row = token.start[0]
                        end = line_starts[row] - 1 if row < len(line_starts) else len(text)
                        starts[end] = end - len(token.string)
            except (tokenize.TokenError, SyntaxError) as error:  # an f-string's expression alone
                raise Unsupported("a text the tokenizer refuses") from error
            self._tokenized_comment_starts = starts
        return self._tokenized_comment_starts.get(line_end, -1)

    def _after(self, index: int) -> int:
        """The index of the first character at or after ``index`` that is not blank or a comment."""
        text = self.text
        length = len(text)
        while index < length:
            char = text[index]
            if char in " \t\f\n\\":
                index += 1
            elif char == "#":
                newline = text.find("\n", index)
                index = length if newline == -1 else newline
            else:
                return index
        return length

    def _is_call_paren(self, index: int) -> bool:
        """A '(' that opens a call's, a class's, a class pattern's or a def's list, not a
        parenthesised expression or pattern (one that begins a line begins a statement)."""
        text = self.text
        previous = index - 1
        while previous >= 0 and text[previous] in " \t\f":
            previous -= 1
        if previous < 0 or text[previous] == "\n":
            return False
        char = self.text[previous]
        if char in ")]\"'":
            return True
        if char.isalnum() or char == "_":
            if previous + 1 in self._soft_keyword_ends:  # `match (a):`, `case (1 | 2):`
                return False
            start = previous
            while start > 0 and (self.text[start - 1].isalnum() or self.text[start - 1] == "_"):
                start -= 1
            return self.text[start : previous + 1] not in _KEYWORDS
        return False

    def parens(self, start: int, end: int) -> tuple[int, int, int]:
        """How many parentheses enclose [start, end) as its own, and the span with them."""
        count = 0
        text = self.text
        while True:
            before = self._before(start)
            if before < 0 or text[before] != "(" or self._is_call_paren(before):
                break
            after = self._after(end)
            if after >= len(text) or text[after] != ")":
                break
            count += 1
            start, end = before, after + 1
        return count, start, end

    def record(self, node: Any, start: int, end: int) -> Any:
        self.spans[id(node)] = (start + self.base, end + self.base)
        return node

    # -- statements ------------------------------------------------------------------------

    def block_body(self, statements: Sequence[ast.stmt]) -> list[cst.CSTNode]:
        """Statements as LibCST groups them: a compound statement alone, simple statements
        sharing a line (``a = 1; b = 2``) in one ``SimpleStatementLine``."""
        return [self.statement_group(group) for group in self.statement_groups(statements)]

    def statement_groups(self, statements: Sequence[ast.stmt]) -> list[list[ast.stmt]]:
        """The statements of a block by the node LibCST makes of them: a compound statement
        alone, the simple ones sharing a line (``a = 1; b = 2``) together."""
        groups: list[list[ast.stmt]] = []
        index = 0
        while index < len(statements):
            statement = statements[index]
            if not isinstance(statement, _SMALL):
                groups.append([statement])
                index += 1
                continue
            line: list[ast.stmt] = [statement]
            while index + 1 < len(statements) and isinstance(statements[index + 1], _SMALL):
                end = self.span_of(line[-1])[1]
                if self.text[self._after_inline(end)] != ";":
                    break
                index += 1
                line.append(statements[index])
            index += 1
            groups.append(line)
        return groups

    def statement_group(self, group: Sequence[ast.stmt]) -> cst.CSTNode:
        """The node of one of ``statement_groups``: a compound statement or a ``SimpleStatementLine``."""
        if not isinstance(group[0], _SMALL):
            built: cst.CSTNode = self.compound(group[0])
            return built
        small = [self.small(part) for part in group]
        start = self.spans[id(small[0])][0] - self.base
        end = self.spans[id(small[-1])][1] - self.base
        line: cst.CSTNode = self.record(make[cst.SimpleStatementLine](body=small), start, end)
        return line

    def _after_inline(self, index: int) -> int:
        """The first character after ``index`` on its line that is not a blank (a ';' joins)."""
        text = self.text
        while index < len(text) and text[index] in " \t\f":
            index += 1
        return min(index, len(text) - 1) if text else 0

    def after_colon(self, statements: Sequence[ast.stmt]) -> bool:
        """Whether a block's statements follow its colon on the colon's line (LibCST's
        ``SimpleStatementSuite``, not an ``IndentedBlock``)."""
        first = self.span_of(statements[0])[0]
        before = self._before(first)
        return before >= 0 and self.text[before] == ":" and "\n" not in self.text[before:first]

    def suite(self, statements: Sequence[ast.stmt]) -> Any:
        """An indented block, or the statements after the colon on its line."""
        if self.after_colon(statements):
            if not all(isinstance(statement, _SMALL) for statement in statements):
                raise Unsupported("compound statement after a colon")
            small = [self.small(statement) for statement in statements]
            return make[cst.SimpleStatementSuite](body=small)
        return make[cst.IndentedBlock](body=self.block_body(statements))

    def small(self, node: ast.stmt) -> Any:
        start, end = self.span_of(node)
        semicolon = self._after_inline(end)
        if semicolon < len(self.text) and self.text[semicolon] == ";":  # LibCST's node holds it
            end = semicolon + 1
        kind = type(node)
        built: cst.CSTNode
        if kind is ast.Expr:
            self._expression_statement_starts.add(start)
            built = make[cst.Expr](value=self.expr(node.value))  # type: ignore[attr-defined]
        elif kind is ast.Return:
            value = node.value  # type: ignore[attr-defined]
            built = make[cst.Return](value=None if value is None else self.expr(value))
        elif kind is ast.Assign:
            targets = [make[cst.AssignTarget](target=self.expr(target)) for target in node.targets]  # type: ignore[attr-defined]
            built = make[cst.Assign](targets=targets, value=self.expr(node.value))  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign:
            assert isinstance(node, ast.AnnAssign)
            built = make[cst.AnnAssign](
                target=self.expr(node.target),
                annotation=self.annotation(node.annotation),
                value=None if node.value is None else self.expr(node.value),
                equal=_EQUAL if node.value is not None else cst.MaybeSentinel.DEFAULT,
            )
        elif kind is ast.AugAssign:
            assert isinstance(node, ast.AugAssign)
            operator = _AUGMENTED[type(node.op)]
            built = make[cst.AugAssign](target=self.expr(node.target), operator=operator, value=self.expr(node.value))
        elif kind is ast.Raise:
            assert isinstance(node, ast.Raise)
            cause = None if node.cause is None else make[cst.From](item=self.expr(node.cause))
            built = make[cst.Raise](exc=None if node.exc is None else self.expr(node.exc), cause=cause)
        elif kind is ast.Assert:
            assert isinstance(node, ast.Assert)
            message = None if node.msg is None else self.expr(node.msg)
            comma = _COMMA if message is not None else cst.MaybeSentinel.DEFAULT
            built = make[cst.Assert](test=self.expr(node.test), msg=message, comma=comma)
        elif kind is ast.Delete:
            assert isinstance(node, ast.Delete)
            targets = [self.expr(target) for target in node.targets]
            if len(targets) == 1:
                target = targets[0]
            else:
                target = make[cst.Tuple](elements=self._elements(targets, end), lpar=(), rpar=())
            built = make[cst.Del](target=target)
        elif kind is ast.Pass:
            built = make[cst.Pass]()
        elif kind is ast.Break:
            built = make[cst.Break]()
        elif kind is ast.Continue:
            built = make[cst.Continue]()
        elif kind is ast.Global or kind is ast.Nonlocal:
            items: list[Any] = []
            at = start + (6 if kind is ast.Global else 8)
            for name in node.names:  # type: ignore[attr-defined]
                at = self.text.index(name, at)
                items.append(make[cst.NameItem](name=self.record(self._name_at(name), at, at + len(name))))
                at += len(name)
            built = make[cst.Global if kind is ast.Global else cst.Nonlocal](names=_comma_all(items))
        elif kind is ast.Import:
            assert isinstance(node, ast.Import)
            built = make[cst.Import](names=_comma_all([self._alias(alias) for alias in node.names]))
        elif kind is ast.ImportFrom:
            assert isinstance(node, ast.ImportFrom)
            module = None
            if node.module:
                module_at = self._after(self._after(start + len("from")) + node.level)
                while self.text[module_at] == ".":
                    module_at = self._after(module_at + 1)
                module = self._dotted(node.module, module_at)
            names: Any
            if len(node.names) == 1 and node.names[0].name == "*":
                names = make[cst.ImportStar]()
            else:
                names = _comma_all([self._alias(alias) for alias in node.names])
                if self._trailing_comma_after(names[-1]):  # `from m import (a, b,)`
                    _set(names[-1], "comma", _COMMA)
            lpar = cst.LeftParen() if self.text[end - 1] == ")" else None
            built = make[cst.ImportFrom](
                module=module,
                names=names,
                relative=[_DOT] * node.level,
                lpar=lpar,
                rpar=cst.RightParen() if lpar else None,
            )
        else:
            raise Unsupported(kind.__name__)
        return self.record(built, start, end)

    def _alias(self, alias: ast.alias) -> Any:
        asname = None
        start, end = self.span_of(alias)
        if alias.asname is not None:
            name = self.record(self._name_at(alias.asname), end - len(alias.asname), end)
            asname = make[cst.AsName](name=name)
        return self.record(make[cst.ImportAlias](name=self._dotted(alias.name, start), asname=asname), start, end)

    def _dotted(self, name: str, start: int) -> Any:
        """``a.b.c`` written at ``start`` (without blanks around its dots)."""
        parts = name.split(".")
        built: Any = self.record(self._name_at(parts[0]), start, start + len(parts[0]))
        end = start + len(parts[0])
        for part in parts[1:]:
            end += 1 + len(part)
            attr = self.record(self._name_at(part), end - len(part), end)
            built = self.record(make[cst.Attribute](value=built, attr=attr, lpar=(), rpar=()), start, end)
        return built

    def annotation(self, node: ast.expr) -> Any:
        return make[cst.Annotation](annotation=self.expr(node))

    def compound(self, node: ast.stmt) -> Any:
        start, end = self.span_of(node)
        kind = type(node)
        built: cst.CSTNode
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            decorators = [self.decorator(decorator) for decorator in node.decorator_list]
            keyword_end = start + 3 if kind is ast.FunctionDef else self._after(start + 5) + 3
            name_at = self._after(keyword_end)
            built = make[cst.FunctionDef](
                name=self.record(self._name_at(node.name), name_at, name_at + len(node.name)),
                params=self.parameters(node.args),
                body=self.suite(node.body),
                decorators=decorators,
                returns=None if node.returns is None else self.annotation(node.returns),
                asynchronous=_ASYNC if kind is ast.AsyncFunctionDef else None,
            )
            if node.decorator_list:
                start = min(start, self.spans[id(decorators[0])][0] - self.base)
        elif kind is ast.ClassDef:
            assert isinstance(node, ast.ClassDef)
            decorators = [self.decorator(decorator) for decorator in node.decorator_list]
            bases = [make[cst.Arg](value=self.expr(base), comma=_COMMA) if type(base) is not ast.Starred
                     else make[cst.Arg](value=self.expr(base.value), star="*", comma=_COMMA)
                     for base in node.bases]  # fmt: skip
            keywords = [self._keyword(keyword_) for keyword_ in node.keywords]
            if bases or keywords:
                _without_comma([*bases, *keywords][-1])
            name_at = self._after(start + 5)
            has_parens = bool(bases or keywords) or self.text[self._after(name_at + len(node.name))] == "("
            built = make[cst.ClassDef](
                name=self.record(self._name_at(node.name), name_at, name_at + len(node.name)),
                body=self.suite(node.body),
                bases=bases,
                keywords=keywords,
                decorators=decorators,
                lpar=cst.LeftParen() if has_parens else cst.MaybeSentinel.DEFAULT,
                rpar=cst.RightParen() if has_parens else cst.MaybeSentinel.DEFAULT,
            )
            if node.decorator_list:
                start = min(start, self.spans[id(decorators[0])][0] - self.base)
        elif kind is ast.If:
            built = self._if(node)  # type: ignore[arg-type]
        elif kind is ast.For or kind is ast.AsyncFor:
            assert isinstance(node, (ast.For, ast.AsyncFor))
            built = make[cst.For](
                target=self.expr(node.target),
                iter=self.expr(node.iter),
                body=self.suite(node.body),
                orelse=self._else(node.orelse),
                asynchronous=_ASYNC if kind is ast.AsyncFor else None,
            )
        elif kind is ast.While:
            assert isinstance(node, ast.While)
            built = make[cst.While](test=self.expr(node.test), body=self.suite(node.body), orelse=self._else(node.orelse))
        elif kind is ast.With or kind is ast.AsyncWith:
            assert isinstance(node, (ast.With, ast.AsyncWith))
            items = []
            for item in node.items:
                asname = None
                if item.optional_vars is not None:
                    asname = make[cst.AsName](name=self.expr(item.optional_vars))
                items.append(make[cst.WithItem](item=self.expr(item.context_expr), asname=asname, comma=_COMMA))
            last = items[-1].asname.name if items[-1].asname is not None else items[-1].item
            if not self._trailing_comma_after(last):
                _without_comma(items[-1])
            keyword_end = start + 4 if kind is ast.With else self._after(start + 5) + 4
            paren = self._after(keyword_end)
            first = items[0].item
            # `with (a as b, c as d):` the statement's parentheses, not its first item's
            parenthesised = self.text[paren] == "(" and self.spans[id(first)][0] - self.base > paren
            built = make[cst.With](
                items=items,
                body=self.suite(node.body),
                asynchronous=_ASYNC if kind is ast.AsyncWith else None,
                lpar=_LPAR if parenthesised else cst.MaybeSentinel.DEFAULT,
                rpar=_RPAR if parenthesised else cst.MaybeSentinel.DEFAULT,
            )
        elif kind is ast.Try:
            assert isinstance(node, ast.Try)
            built = make[cst.Try](
                body=self.suite(node.body),
                handlers=[self._handler(handler) for handler in node.handlers],
                orelse=self._else(node.orelse),
                finalbody=make[cst.Finally](body=self.suite(node.finalbody)) if node.finalbody else None,
            )
        elif kind is ast.Match:
            assert isinstance(node, ast.Match)
            built = self._match(node, start)
        else:
            raise Unsupported(kind.__name__)
        return self.record(built, start, end)

    def _name_at(self, name: str) -> Any:
        return make[cst.Name](value=name)

    def decorator(self, node: ast.expr) -> Any:
        value = self.expr(node)
        start, end = self.spans[id(value)]
        at = self._before(start - self.base)
        return self.record(make[cst.Decorator](decorator=value), at, end - self.base)

    def _if(self, node: ast.If) -> Any:
        start, end = self.span_of(node)
        orelse: Any = None
        if node.orelse:
            first = node.orelse[0]
            if len(node.orelse) == 1 and type(first) is ast.If and self._is_elif(first):
                orelse = self._if(first)
            else:
                orelse = make[cst.Else](body=self.suite(node.orelse))
        built = make[cst.If](test=self.expr(node.test), body=self.suite(node.body), orelse=orelse)
        return self.record(built, start, end)

    def _is_elif(self, node: ast.If) -> bool:
        start = self.offset(node.lineno, node.col_offset)
        return self.text.startswith("elif", start)

    def _else(self, statements: Sequence[ast.stmt]) -> Any:
        return make[cst.Else](body=self.suite(statements)) if statements else None

    def _handler(self, node: ast.ExceptHandler) -> Any:
        start, end = self.span_of(node)
        name = None
        kind = None if node.type is None else self.expr(node.type)
        if node.name is not None and kind is not None:
            name_at = self._after(self._after(self.spans[id(kind)][1] - self.base) + 2)
            name = make[cst.AsName](name=self.record(self._name_at(node.name), name_at, name_at + len(node.name)))
        end = self._footer_end(self._line_comment_end(end), self.span_of(node.body[0])[0])
        start = self._leading_comments(start)
        built = make[cst.ExceptHandler](body=self.suite(node.body), type=kind, name=name)
        return self.record(built, start, end)

    def _leading_comments(self, start: int) -> int:
        """Where a clause starts with the comment lines above it at its own indentation
        (LibCST's ``leading_lines``; deeper ones end the block before it)."""
        text = self.text
        line_start = text.rfind("\n", 0, start) + 1
        indentation = start - line_start
        found = start
        while line_start > 0:
            previous = text.rfind("\n", 0, line_start - 1) + 1
            line = text[previous : line_start - 1]
            stripped = line.lstrip(" \t")
            if stripped and not stripped.startswith("#"):
                break
            if stripped:
                if len(line) - len(stripped) != indentation:
                    break
                found = previous + indentation
            line_start = previous
        return found

    def _footer_end(self, end: int, first: int) -> int:
        """``end``, or the end of the comment lines after it indented as deep as the block
        whose first statement is at ``first`` (LibCST's block ``footer``)."""
        text = self.text
        indentation = first - (text.rfind("\n", 0, first) + 1)
        if text.rfind("\n", 0, first) < text.rfind("\n", 0, self._before(first) + 1):
            return end  # `except E: pass`: no block
        line_start = text.find("\n", end) + 1
        found = end
        while 0 < line_start < len(text):
            line_end = text.find("\n", line_start)
            line_end = len(text) if line_end == -1 else line_end
            line = text[line_start:line_end]
            stripped = line.lstrip(" \t")
            if stripped and not stripped.startswith("#"):
                break
            if stripped:
                if len(line) - len(stripped) < indentation:
                    break
                found = line_end
            line_start = line_end + 1
        return found

    def _line_comment_end(self, end: int) -> int:
        """``end``, or the end of the comment that follows it on its line (LibCST counts a
        compound statement's last comment in)."""
        index = end
        text = self.text
        while index < len(text) and text[index] in " \t\f":
            index += 1
        if index < len(text) and text[index] == "#":
            newline = text.find("\n", index)
            return len(text) if newline == -1 else newline
        return end

    def parameters(self, node: ast.arguments) -> Any:
        positional = [*node.posonlyargs, *node.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.defaults)) + list(node.defaults)
        params = [self._param(argument, default) for argument, default in zip(positional, defaults, strict=True)]
        posonly, params = params[: len(node.posonlyargs)], params[len(node.posonlyargs) :]
        star_arg: Any = cst.MaybeSentinel.DEFAULT
        if node.vararg is not None:
            star_arg = self._param(node.vararg, None, star="*")
        elif node.kwonlyargs:
            star_arg = make[cst.ParamStar](comma=_COMMA)
        kwonly = [self._param(argument, default) for argument, default in zip(node.kwonlyargs, node.kw_defaults, strict=True)]
        star_kwarg = self._param(node.kwarg, None, star="**") if node.kwarg is not None else None
        ordered: list[Any] = [*posonly]
        if posonly:
            ordered.append(None)  # the `/`, whose comma is its own
        ordered.extend(params)
        if star_arg is not cst.MaybeSentinel.DEFAULT:
            ordered.append(star_arg if isinstance(star_arg, cst.Param) else None)
        ordered.extend(kwonly)
        if star_kwarg is not None:
            ordered.append(star_kwarg)
        for param in ordered:
            if param is not None:
                _set(param, "comma", _COMMA)
        if ordered and ordered[-1] is not None and not self._trailing_comma_after(ordered[-1]):
            _without_comma(ordered[-1])
        return make[cst.Parameters](
            params=params,
            star_arg=star_arg,
            kwonly_params=kwonly,
            star_kwarg=star_kwarg,
            posonly_params=posonly,
            posonly_ind=make[cst.ParamSlash](comma=_COMMA) if posonly else cst.MaybeSentinel.DEFAULT,
        )

    def _trailing_comma_after(self, node: Any) -> bool:
        end = self.spans[id(node)][1] - self.base
        after = self._after(end)
        return after < len(self.text) and self.text[after] == ","

    def _param(self, node: ast.arg, default: ast.expr | None, star: str = "") -> Any:
        annotation = None if node.annotation is None else self.annotation(node.annotation)
        name_at = self.offset(node.lineno, node.col_offset)
        built = make[cst.Param](
            name=self.record(self._name_at(node.arg), name_at, name_at + len(node.arg)),
            annotation=annotation,
            default=None if default is None else self.expr(default),
            equal=_EQUAL if default is not None else cst.MaybeSentinel.DEFAULT,
            star=star,
        )
        end = self.spans[id(built.default)][1] - self.base if built.default is not None else self.offset(
            node.end_lineno, node.end_col_offset  # type: ignore[arg-type]
        )
        return self.record(built, name_at, end)

    # -- match statements ------------------------------------------------------------------

    def _match(self, node: ast.Match, start: int) -> Any:
        self._soft_keyword_ends.add(start + len("match"))
        subject = self.expr(node.subject)
        cases = []
        after = self._end_of(subject)
        for case in node.cases:
            cases.append(self._case(case, after))
            after = self._end_of(cases[-1])
        return make[cst.Match](subject=subject, cases=cases)

    def _end_of(self, node: Any) -> int:
        """Where a node built from this text ends in it."""
        return self.spans[id(node)][1] - self.base

    def _case(self, node: ast.match_case, after: int) -> Any:
        """A case clause, whose keyword is the first word after ``after`` (the subject's end or
        the previous clause's: `ast` gives a clause no position), up to its body's end."""
        start = self._case_keyword(after)
        self._soft_keyword_ends.add(start + len("case"))
        built = make[cst.MatchCase](
            pattern=self.pattern(node.pattern),
            guard=None if node.guard is None else self.expr(node.guard),
            body=self.suite(node.body),
        )
        return self.record(built, start, self.span_of(node.body[-1])[1])

    def _case_keyword(self, after: int) -> int:
        """Where the next case clause's keyword is."""
        text = self.text
        at = self._after(after)
        while text.startswith((":", ";"), at):  # the subject's colon, a body's last semicolon
            at = self._after(at + 1)
        if not text.startswith("case", at):
            raise Unsupported("a case clause where it was looked for")  # not reached: a guard
        return at

    def pattern(self, node: ast.pattern) -> Any:
        """The pattern's node (LibCST's ``MatchPattern``), with its own parentheses."""
        start, end = self.span_of(node)
        count, outer_start, outer_end = self.parens(start, end)
        # A value's or a singleton's parentheses are its expression's (LibCST's ``lpar`` there
        # is the expression's), which spans what the pattern does.
        if isinstance(node, ast.MatchValue):
            return self.record(make[cst.MatchValue](value=self.expr(node.value)), outer_start, outer_end)
        if isinstance(node, ast.MatchSingleton):
            name = make[cst.Name](value=repr(node.value))
            name = self.record(_with_parens(name, count) if count else name, outer_start, outer_end)
            return self.record(make[cst.MatchSingleton](value=name), outer_start, outer_end)
        own = 0  # a tuple pattern's parentheses, inside its span as a tuple's are
        built: Any
        if isinstance(node, ast.MatchAs):
            built = self._match_as(node, end)
        elif isinstance(node, ast.MatchOr):
            built = self._match_or(node)
        elif isinstance(node, ast.MatchSequence):
            built, own = self._match_sequence(node, start)
        elif isinstance(node, ast.MatchMapping):
            built = self._match_mapping(node, start)
        elif isinstance(node, ast.MatchClass):
            built = self._match_class(node)
        else:  # a MatchStar is a sequence's element (``_sequence_element``)
            raise Unsupported(type(node).__name__)
        if count + own:
            built = _with_parens(built, count + own)
        return self.record(built, outer_start, outer_end)

    def _match_as(self, node: ast.MatchAs, end: int) -> Any:
        """`_`, a capture (`x`) or `pattern as x`: the name, if any, ends the pattern."""
        name = self._name_ending_at(node.name, end)
        pattern = None if node.pattern is None else self.pattern(node.pattern)
        return make[cst.MatchAs](pattern=pattern, name=name)

    def _name_ending_at(self, name: str | None, end: int) -> Any:
        """The Name a capture or star pattern ends with (`case x`, `*rest`), None for `_`/`*_`."""
        return None if name is None else self.record(self._name_at(name), end - len(name), end)

    def _match_or(self, node: ast.MatchOr) -> Any:
        patterns = [
            make[cst.MatchOrElement](pattern=self.pattern(pattern), separator=_BAR) for pattern in node.patterns
        ]
        _set(patterns[-1], "separator", cst.MaybeSentinel.DEFAULT)
        return make[cst.MatchOr](patterns=patterns)

    def _match_sequence(self, node: ast.MatchSequence, start: int) -> tuple[Any, int]:
        """`[a, *b]` (LibCST's ``MatchList``), `(a, *b)` (a ``MatchTuple``, and how many of
        its parentheses are its own: one), or `case a, *b:` (a ``MatchList`` without brackets)."""
        opener = self._sequence_opener(node, start)
        elements = [self._sequence_element(pattern) for pattern in node.patterns]
        if opener == "(":
            return make[cst.MatchTuple](patterns=elements), 1
        if opener == "[":
            return make[cst.MatchList](patterns=elements, lbracket=_LBRACKET, rbracket=_RBRACKET), 0
        return make[cst.MatchList](patterns=elements), 0

    def _sequence_opener(self, node: ast.MatchSequence, start: int) -> str:
        """The bracket or parenthesis that opens the sequence, "" where it has none (the '(' of
        `case (a), b:` is its first element's)."""
        opener = self.text[start]
        if opener not in "([":
            return ""
        if node.patterns and self.parens(*self.span_of(node.patterns[0]))[1] == start:
            return ""
        return opener

    def _sequence_element(self, node: ast.pattern) -> Any:
        if isinstance(node, ast.MatchStar):
            start, end = self.span_of(node)
            name = self._name_ending_at(node.name, end)
            star = self.record(make[cst.MatchStar](name=name), start, end)
            return _set(star, "comma", self._comma_after(star))
        value = self.pattern(node)
        return make[cst.MatchSequenceElement](value=value, comma=self._comma_after(value))

    def _comma_after(self, node: Any) -> Any:
        """A comma where the source writes one after ``node``, else none."""
        return _COMMA if self._trailing_comma_after(node) else cst.MaybeSentinel.DEFAULT

    def _match_mapping(self, node: ast.MatchMapping, start: int) -> Any:
        elements = []
        after = start + 1  # the brace
        for key, pattern in zip(node.keys, node.patterns, strict=True):
            built_key = self.expr(key)
            value = self.pattern(pattern)
            elements.append(make[cst.MatchMappingElement](key=built_key, pattern=value, comma=self._comma_after(value)))
            after = self._end_of(value)
        rest = trailing_comma = None
        if node.rest is not None:
            rest = self._name_after(after, node.rest, prefix="**")
            trailing_comma = _COMMA if self._trailing_comma_after(rest) else None
        return make[cst.MatchMapping](elements=elements, rest=rest, trailing_comma=trailing_comma)

    def _match_class(self, node: ast.MatchClass) -> Any:
        cls = self.expr(node.cls)
        after = self._after(self._end_of(cls)) + 1  # the '('
        patterns = []
        for pattern in node.patterns:
            value = self.pattern(pattern)
            patterns.append(make[cst.MatchSequenceElement](value=value, comma=self._comma_after(value)))
            after = self._end_of(value)
        keywords = []
        for name, pattern in zip(node.kwd_attrs, node.kwd_patterns, strict=True):
            key = self._name_after(after, name)
            value = self.pattern(pattern)
            keywords.append(make[cst.MatchKeywordElement](key=key, pattern=value, comma=self._comma_after(value)))
            after = self._end_of(value)
        return make[cst.MatchClass](cls=cls, patterns=patterns, kwds=keywords)

    def _name_after(self, index: int, name: str, prefix: str = "") -> Any:
        """``name``, written first after ``index`` (after a comma and ``prefix`` there): a
        keyword pattern's keyword, a mapping pattern's `**rest`, which `ast` does not place."""
        text = self.text
        at = self._after(index)
        if text.startswith(",", at):
            at = self._after(at + 1)
        if prefix and text.startswith(prefix, at):
            at = self._after(at + len(prefix))
        if not text.startswith(name, at):
            raise Unsupported("a name where it was looked for")  # not reached: a guard
        return self.record(self._name_at(name), at, at + len(name))

    # -- expressions -----------------------------------------------------------------------

    def expr(self, node: ast.expr, shared: int = -1) -> Any:
        """The expression's node, with its own parentheses (``shared``: the index of a '('
        that is the enclosing syntax's, a generator expression's sole call argument)."""
        start, end = self.span_of(node)
        kind = type(node)
        if kind is ast.Name:  # a third of the nodes: the commonest case (no parentheses) at once
            before = self._before(start)
            if before < 0 or self.text[before] != "(":
                return self.record(make[cst.Name](value=node.id), start, end)  # type: ignore[attr-defined]
        inner_parens = 0
        if kind is ast.Tuple:
            inner_parens = self._tuple_parens(node, start, end)  # type: ignore[arg-type]
        elif kind is ast.GeneratorExp:
            if start == shared:  # `f(x for x in y)`: the call's parentheses
                start, end = self._after(start + 1), self._before(end - 1) + 1
            else:
                inner_parens = 1
        count, outer_start, outer_end = self.parens(start, end)
        built = self._expression(node, kind, start, end, inner_parens)
        total = count + inner_parens
        if total:
            built = _with_parens(built, total)
        return self.record(built, outer_start, outer_end)

    def _tuple_parens(self, node: ast.Tuple, start: int, end: int) -> int:
        if self.text[start] != "(":
            return 0
        if not node.elts:
            return 1
        first = self._start_with_parens(node.elts[0])
        return 1 if first > start else 0

    def _start_with_parens(self, node: ast.expr) -> int:
        """Where an element starts, with its own parentheses (before it is built)."""
        start, end = self.span_of(node)
        if type(node) is ast.Tuple or type(node) is ast.GeneratorExp:
            return start
        return self.parens(start, end)[1]

    def _expression(self, node: ast.expr, kind: type, start: int, end: int, inner: int) -> Any:
        if kind is ast.Name:
            return make[cst.Name](value=node.id)  # type: ignore[attr-defined]
        if kind is ast.Attribute:
            assert isinstance(node, ast.Attribute)
            attr = self.record(self._name_at(node.attr), end - len(node.attr), end)
            return make[cst.Attribute](value=self.expr(node.value), attr=attr, lpar=(), rpar=())
        if kind is ast.Call:
            return self._call(node, start)  # type: ignore[arg-type]
        if kind is ast.Constant:
            return self._constant(node, start, end)  # type: ignore[arg-type]
        if kind is ast.JoinedStr:
            self._collect_formatted(node)  # type: ignore[arg-type]
            return self._strings(start, end)
        if kind is ast.Dict:
            assert isinstance(node, ast.Dict)
            elements: list[Any] = []
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None:
                    elements.append(make[cst.StarredDictElement](value=self.expr(value), comma=_COMMA))
                else:
                    elements.append(make[cst.DictElement](key=self.expr(key), value=self.expr(value), comma=_COMMA))
            return make[cst.Dict](elements=self._last_comma(elements, end - 1), lpar=(), rpar=())
        if kind is ast.List or kind is ast.Tuple or kind is ast.Set:
            items = node.elts  # type: ignore[attr-defined]
            close = end - 1 if kind is not ast.Tuple or inner else end
            elements = self._elements([self._element_value(item) for item in items], close)
            cls = {ast.List: cst.List, ast.Tuple: cst.Tuple, ast.Set: cst.Set}[kind]
            return make[cls](elements=elements, lpar=(), rpar=())
        if kind is ast.Subscript:
            return self._subscript(node)  # type: ignore[arg-type]
        if kind is ast.BinOp:
            assert isinstance(node, ast.BinOp)
            operator = _BINARY[type(node.op)]
            return make[cst.BinaryOperation](left=self.expr(node.left), operator=operator, right=self.expr(node.right), lpar=(), rpar=())
        if kind is ast.BoolOp:
            assert isinstance(node, ast.BoolOp)
            operator = _BOOLEAN[type(node.op)]
            values = [self.expr(value) for value in node.values]
            built = values[0]
            for index, value in enumerate(values[1:], 1):
                built = make[cst.BooleanOperation](left=built, operator=operator, right=value, lpar=(), rpar=())
                if index < len(values) - 1:
                    self.record(built, self.spans[id(values[0])][0] - self.base, self.spans[id(value)][1] - self.base)
            return built
        if kind is ast.UnaryOp:
            assert isinstance(node, ast.UnaryOp)
            return make[cst.UnaryOperation](operator=_UNARY[type(node.op)], expression=self.expr(node.operand), lpar=(), rpar=())
        if kind is ast.Compare:
            assert isinstance(node, ast.Compare)
            targets = [
                make[cst.ComparisonTarget](operator=_COMPARE[type(op)], comparator=self.expr(comparator))
                for op, comparator in zip(node.ops, node.comparators, strict=True)
            ]
            return make[cst.Comparison](left=self.expr(node.left), comparisons=targets, lpar=(), rpar=())
        if kind is ast.IfExp:
            assert isinstance(node, ast.IfExp)
            return make[cst.IfExp](body=self.expr(node.body), test=self.expr(node.test), orelse=self.expr(node.orelse), lpar=(), rpar=())
        if kind is ast.Await:
            return make[cst.Await](expression=self.expr(node.value), lpar=(), rpar=())  # type: ignore[attr-defined]
        if kind is ast.Yield:
            value = node.value  # type: ignore[attr-defined]
            return make[cst.Yield](value=None if value is None else self.expr(value), lpar=(), rpar=())
        if kind is ast.YieldFrom:
            return make[cst.Yield](value=make[cst.From](item=self.expr(node.value)), lpar=(), rpar=())  # type: ignore[attr-defined]
        if kind is ast.Lambda:
            assert isinstance(node, ast.Lambda)
            return make[cst.Lambda](params=self.parameters(node.args), body=self.expr(node.body), lpar=(), rpar=())
        if kind is ast.NamedExpr:
            assert isinstance(node, ast.NamedExpr)
            return make[cst.NamedExpr](target=self.expr(node.target), value=self.expr(node.value), lpar=(), rpar=())
        if kind is ast.ListComp or kind is ast.SetComp or kind is ast.GeneratorExp:
            cls = {ast.ListComp: cst.ListComp, ast.SetComp: cst.SetComp, ast.GeneratorExp: cst.GeneratorExp}[kind]
            return make[cls](elt=self.expr(node.elt), for_in=self._comprehension(node.generators), lpar=(), rpar=())  # type: ignore[attr-defined]
        if kind is ast.DictComp:
            assert isinstance(node, ast.DictComp)
            return make[cst.DictComp](key=self.expr(node.key), value=self.expr(node.value), for_in=self._comprehension(node.generators), lpar=(), rpar=())
        if kind is ast.Starred:
            raise Unsupported("starred expression outside a display")
        raise Unsupported(kind.__name__)

    def _element_value(self, node: ast.expr) -> Any:
        if type(node) is ast.Starred:
            value = self.expr(node.value)
            start, end = self.span_of(node)
            return self.record(make[cst.StarredElement](value=value, comma=_COMMA, lpar=(), rpar=()), start, end)
        return make[cst.Element](value=self.expr(node), comma=_COMMA)

    def _elements(self, built: list[Any], close: int) -> list[Any]:
        """Elements with a comma after each but the last (which has one when the source does)."""
        wrapped = [item if isinstance(item, (cst.Element, cst.StarredElement)) else make[cst.Element](value=item, comma=_COMMA) for item in built]
        return self._last_comma(wrapped, close)

    def _last_comma(self, elements: list[Any], close: int) -> list[Any]:
        if not elements:
            return elements
        last = elements[-1]
        last_end = self.spans[id(last.value)][1] - self.base
        after = self._after(last_end)
        if after < len(self.text) and self.text[after] == "," and after < max(close, last_end + 1):
            return elements
        elements[-1] = _without_comma(last)
        return elements

    def _comprehension(self, generators: Sequence[ast.comprehension]) -> Any:
        inner: Any = None
        for generator in reversed(generators):
            ifs = [make[cst.CompIf](test=self.expr(test)) for test in generator.ifs]
            inner = make[cst.CompFor](
                target=self.expr(generator.target),
                iter=self.expr(generator.iter),
                ifs=ifs,
                inner_for_in=inner,
                asynchronous=_ASYNC if generator.is_async else None,
            )
        return inner

    def _call(self, node: ast.Call, start: int) -> Any:
        func = self.expr(node.func)
        open_paren = self._after(self.spans[id(func)][1] - self.base)
        arguments: list[tuple[int, Any]] = []
        for argument in node.args:
            if type(argument) is ast.Starred:
                value = self.expr(argument.value)
                arg = make[cst.Arg](value=value, star="*", comma=_COMMA)
                arguments.append((self.offset(argument.lineno, argument.col_offset), arg))
            else:
                value = self.expr(argument, shared=open_paren)
                arguments.append((self.spans[id(value)][0] - self.base, make[cst.Arg](value=value, comma=_COMMA)))
        for keyword_ in node.keywords:
            arguments.append((self.offset(keyword_.lineno, keyword_.col_offset), self._keyword(keyword_)))
        arguments.sort(key=lambda pair: pair[0])
        args = [arg for _, arg in arguments]
        if args and not self._trailing_comma_after(args[-1].value):
            _without_comma(args[-1])
        return make[cst.Call](func=func, args=args, lpar=(), rpar=())

    def _keyword(self, node: ast.keyword) -> Any:
        value = self.expr(node.value)
        if node.arg is None:
            return make[cst.Arg](value=value, star="**", comma=_COMMA)
        name_at = self.offset(node.lineno, node.col_offset)
        name = self.record(self._name_at(node.arg), name_at, name_at + len(node.arg))
        return make[cst.Arg](value=value, keyword=name, equal=_EQUAL, comma=_COMMA)

    def _subscript(self, node: ast.Subscript) -> Any:
        value = self.expr(node.value)
        index = node.slice
        elements: list[Any]
        if type(index) is ast.Tuple and not self._tuple_parens(index, *self.span_of(index)) and index.elts:
            elements = [make[cst.SubscriptElement](slice=self._slice(item), comma=_COMMA) for item in index.elts]
            close = self.span_of(node)[1] - 1
            last = elements[-1]
            inner = last.slice.value if isinstance(last.slice, cst.Index) else None
            last_end = (self.spans[id(inner)][1] - self.base) if inner is not None else self.span_of(index.elts[-1])[1]
            after = self._after(last_end)
            if not (self.text[after] == "," and after < close):
                elements[-1] = make[cst.SubscriptElement](slice=last.slice)
        else:
            elements = [make[cst.SubscriptElement](slice=self._slice(index))]
        return make[cst.Subscript](value=value, slice=elements, lpar=(), rpar=())

    def _slice(self, node: ast.expr) -> Any:
        if type(node) is ast.Slice:
            assert isinstance(node, ast.Slice)
            return make[cst.Slice](
                lower=None if node.lower is None else self.expr(node.lower),
                upper=None if node.upper is None else self.expr(node.upper),
                step=None if node.step is None else self.expr(node.step),
                second_colon=_COLON if node.step is not None else cst.MaybeSentinel.DEFAULT,
            )
        if isinstance(node, ast.Starred):  # `a[*b]`: `ast` holds it in a tuple, LibCST in a starred index
            return make[cst.Index](value=self.expr(node.value), star="*", whitespace_after_star=_NO_SPACE)
        return make[cst.Index](value=self.expr(node))

    # -- literals --------------------------------------------------------------------------

    def _constant(self, node: ast.Constant, start: int, end: int) -> Any:
        value = node.value
        if isinstance(value, (str, bytes)):
            return self._strings(start, end)
        if value is None or value is True or value is False:
            return make[cst.Name](value=repr(value))
        if value is Ellipsis:
            return make[cst.Ellipsis](lpar=(), rpar=())
        source = self.text[start:end]
        if isinstance(value, complex):
            return make[cst.Imaginary](value=source, lpar=(), rpar=())
        if isinstance(value, float):
            return make[cst.Float](value=source, lpar=(), rpar=())
        return make[cst.Integer](value=source, lpar=(), rpar=())

    def _strings(self, start: int, end: int) -> Any:
        """One string token, or LibCST's right-nested ``ConcatenatedString`` of several."""
        tokens = self._string_tokens(start, end)
        parts = [self._string(token_start, token_end) for token_start, token_end in tokens]
        built = parts[-1]
        for index in range(len(parts) - 2, -1, -1):
            built = make[cst.ConcatenatedString](left=parts[index], right=built, lpar=(), rpar=())
            if index:
                self.record(built, tokens[index][0], end)
        return built

    def _string_tokens(self, start: int, end: int) -> list[Span]:
        text = self.text
        tokens = []
        index = start
        while index < end:
            index = self._after(index)
            if index >= end:
                break
            if text[index] in "()":  # a parenthesised part of the concatenation
                raise Unsupported("parentheses inside a concatenated string")
            token_start = index
            while text[index] not in "'\"":
                index += 1
            quote = text[index : index + 3] if text[index : index + 3] in ('"""', "'''") else text[index]
            index = _closing_quote(text, quote, index + len(quote)) + len(quote)
            tokens.append((token_start, index))
        return tokens

    def _string(self, start: int, end: int) -> Any:
        source = self.text[start:end]
        quote_at = min(position for position in (source.find("'"), source.find('"')) if position != -1)
        prefix = source[:quote_at]
        if "f" not in prefix.lower():
            return self.record(make[cst.SimpleString](value=source, lpar=(), rpar=()), start, end)
        quote = source[quote_at : quote_at + 3] if source[quote_at : quote_at + 3] in ('"""', "'''") else source[quote_at]
        body_start = start + quote_at + len(quote)
        parts, _ = self._fstring_parts(body_start, end - len(quote), in_spec=False)
        built = make[cst.FormattedString](parts=parts, start=prefix + quote, end=quote, lpar=(), rpar=())
        return self.record(built, start, end)

    def _fstring_parts(self, index: int, stop: int, *, in_spec: bool) -> tuple[list[Any], int]:
        """The parts of an f-string's body from ``index`` up to ``stop`` (or, in a format
        spec, up to its closing brace), and where they ended."""
        text = self.text
        parts: list[Any] = []
        literal_start = index
        while index < stop:
            char = text[index]
            if char == "{" and text.startswith("{{", index) and not in_spec:
                index += 2
                continue
            if char == "}" and in_spec:
                break
            if char == "}" and text.startswith("}}", index):
                index += 2
                continue
            if char == "{":
                if index > literal_start:
                    parts.append(make[cst.FormattedStringText](value=text[literal_start:index]))
                expression, index = self._fstring_expression(index, stop)
                parts.append(expression)
                literal_start = index
                continue
            index += 2 if char == "\\" else 1
        if index > literal_start:
            parts.append(make[cst.FormattedStringText](value=text[literal_start:index]))
        return parts, index

    def _fstring_expression(self, open_brace: int, stop: int) -> tuple[Any, int]:
        text = self.text
        index = open_brace + 1
        depth = 0
        while index < stop:
            char = text[index]
            if char in "([{":
                depth += 1
            elif char in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif char in "'\"":
                close = text.find(char, index + 1)
                if close == -1:
                    raise Unsupported("string in an f-string expression")
                index = close
            elif depth == 0 and char == "!" and text[index + 1] != "=":
                break
            elif depth == 0 and char == ":":
                break
            elif depth == 0 and char == "=" and text[index + 1] not in "=" and text[index - 1] not in "=!<>:":
                raise Unsupported("self-documenting f-string expression")
            index += 1
        raw = text[open_brace + 1 : index]
        stripped = raw.strip()
        # A `#` can only be in a string of the expression here (`f"{'#' * level}"`): a comment
        # needs a line break, and Pythons before 3.12 refuse one anyway.
        if not stripped or "\n" in raw or "\\" in raw:
            raise Unsupported("f-string expression across lines")
        offset = open_brace + 1 + (len(raw) - len(raw.lstrip()))
        expression = self._sub_expression(stripped, offset)
        conversion = None
        if text[index] == "!":
            conversion = text[index + 1]
            index += 2
        format_spec = None
        if text[index] == ":":
            format_spec, index = self._fstring_parts(index + 1, stop, in_spec=True)
        if text[index] != "}":
            raise Unsupported("f-string expression")
        built = make[cst.FormattedStringExpression](
            expression=expression,
            conversion=conversion,
            format_spec=format_spec,
            whitespace_before_expression=cst.SimpleWhitespace(raw[: len(raw) - len(raw.lstrip())]),
            whitespace_after_expression=cst.SimpleWhitespace(raw[len(raw.rstrip()) :]),
        )
        return self.record(built, open_brace, index + 1), index + 1

    def _collect_formatted(self, node: ast.JoinedStr) -> None:
        for value in node.values:
            if type(value) is ast.FormattedValue:
                expression = value.value
                self._formatted[self.offset(expression.lineno, expression.col_offset)] = expression
                if value.format_spec is not None:
                    self._collect_formatted(value.format_spec)  # type: ignore[arg-type]

    def _sub_expression(self, source: str, offset: int) -> Any:
        """An f-string's expression written at ``offset``: from the `ast` node there, or (where
        Python's positions of f-string expressions miss it, as 3.11's can) parsed alone."""
        known = self._formatted.get(offset)
        if known is not None and self.span_of(known) == (offset, offset + len(source)):
            return self.expr(known)
        try:
            tree = ast.parse(source, mode="eval")
        except SyntaxError as error:
            raise Unsupported("f-string expression") from error
        builder = type(self)(source, self.base + offset, self.spans)  # a subclass's too (engine/ast_pairs.py)
        return builder.expr(tree.body)


_FSTRING_NODES = frozenset({ast.JoinedStr, ast.FormattedValue})

# A `match` statement starts a logical line (no compound statement follows a `;` or a colon
# on its line): most texts saying "match" (`re.match`, words in strings) have none.
_MATCH_LINE = re.compile(r"^[ \t\f]*match\b", re.MULTILINE)


def _statements(block: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of ``block`` and of the blocks under it (a `match` is one), no expression."""
    pending = list(block)
    while pending:
        statement = pending.pop()
        yield statement
        for inner in statement_blocks(statement):
            pending.extend(inner)


class NodeSpans:
    """Where ``build`` places the node it makes from an `ast` node (its ``spans``), found for
    that node alone: the `ast` analyses place their findings with it (an expression with its
    own parentheses, a simple statement with its ';', a definition from its first decorator,
    an `except` clause with the comments LibCST gives it)."""

    def __init__(self, text: str, tree: ast.Module | None = None) -> None:
        """``tree``: the text's, where it may hold ``match`` statements (a '(' after their soft
        keywords is no call's), and needed to place an f-string's ``{...}`` part."""
        self._builder = builder = _Builder(text)
        self._text = text
        self._tree = tree
        # Each f-string's ``{...}`` parts placed so far, by id of their ``ast.FormattedValue``;
        # the module's f-strings (not format specs), listed on first use; those built.
        self._formatted: dict[int, Span] = {}
        self._fstrings: list[ast.JoinedStr] | None = None
        self._fstrings_built: set[int] = set()
        self._fstring_builder: _Builder | None = None
        if tree is not None and _MATCH_LINE.search(text):
            for node in _statements(tree.body):
                if type(node) is ast.Match:
                    start = builder.span_of(node)[0]
                    builder._soft_keyword_ends.add(start + len("match"))
                    after = self.span(node.subject)[1]
                    for case in node.cases:
                        keyword = builder._case_keyword(after)
                        builder._soft_keyword_ends.add(keyword + len("case"))
                        after = builder.span_of(case.body[-1])[1]

    def after_colon(self, statements: Sequence[ast.stmt]) -> bool:
        """Whether a block's statements follow its colon on the colon's line (LibCST's
        ``SimpleStatementSuite``, not an ``IndentedBlock``), as ``_Builder.suite`` tells them."""
        return self._builder.after_colon(statements)

    def span(self, node: ast.AST, shared: int = -1) -> Span:
        """``shared``: as ``_Builder.expr``'s, the '(' of a call whose sole argument is the
        generator expression ``node`` (its parentheses are the call's)."""
        builder = self._builder
        kind = type(node)
        if kind is ast.FormattedValue:
            return self._formatted_span(node)  # type: ignore[arg-type]
        if isinstance(node, ast.expr):
            start, end = builder.span_of(node)
            if kind is ast.GeneratorExp and start == shared:
                start, end = builder._after(start + 1), builder._before(end - 1) + 1
            _, start, end = builder.parens(start, end)
            return start, end
        if kind is ast.ExceptHandler:
            assert isinstance(node, ast.ExceptHandler)
            start, end = builder.span_of(node)
            end = builder._footer_end(builder._line_comment_end(end), builder.span_of(node.body[0])[0])
            return builder._leading_comments(start), end
        if kind is ast.arg:
            assert isinstance(node, ast.arg)
            name_at = builder.offset(node.lineno, node.col_offset)
            return name_at, builder.offset(node.end_lineno, node.end_col_offset)  # type: ignore[arg-type]
        start, end = builder.span_of(node)
        if isinstance(node, _SMALL):
            semicolon = builder._after_inline(end)
            if semicolon < len(builder.text) and builder.text[semicolon] == ";":
                end = semicolon + 1
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) and node.decorator_list:  # type: ignore[attr-defined]
            start = min(start, builder._before(self.span(node.decorator_list[0])[0]))  # type: ignore[attr-defined]
        return start, end

    def _formatted_span(self, node: ast.FormattedValue) -> Span:
        """Where the builder puts an f-string's ``{...}`` part (``FormattedStringExpression``),
        whose ``ast.FormattedValue`` Python 3.11 places as the whole string: the f-strings on
        its lines built again (the others then, if need be), their parts read in order."""
        found = self._formatted
        span = found.get(id(node))
        if span is not None:
            return span
        if self._fstrings is None:
            assert self._tree is not None, "an f-string's part is placed with the module's tree"
            specs = set()
            strings: list[ast.JoinedStr] = []
            for inner in nodes_of(self._tree, _FSTRING_NODES):
                kind = type(inner)
                if kind is ast.FormattedValue:
                    specs.add(id(inner.format_spec))  # type: ignore[attr-defined]
                elif kind is ast.JoinedStr:
                    strings.append(inner)  # type: ignore[arg-type]
            self._fstrings = [string for string in strings if id(string) not in specs]
        line = node.lineno
        around = [string for string in self._fstrings if string.lineno <= line <= string.end_lineno]  # type: ignore[operator]
        for string in (*around, *self._fstrings):
            if id(node) in found:
                break
            if id(string) in self._fstrings_built:
                continue
            self._fstrings_built.add(id(string))
            if self._fstring_builder is None:
                self._fstring_builder = _Builder(self._text)
            builder = self._fstring_builder
            try:
                built = builder.expr(string)
            except Unsupported:  # the builder makes no tree of the text: nothing to place
                continue
            _place_formatted(_formatted_parts(built), string, builder.spans, found)
        return found[id(node)]


def _formatted_parts(node: Any) -> list[cst.FormattedStringExpression]:
    """An f-string's (or a concatenation's) ``{...}`` parts, in order, format specs aside."""
    if isinstance(node, cst.ConcatenatedString):
        return [*_formatted_parts(node.left), *_formatted_parts(node.right)]
    if isinstance(node, cst.FormattedString):
        return [part for part in node.parts if isinstance(part, cst.FormattedStringExpression)]
    return []


def _place_formatted(
    parts: list[cst.FormattedStringExpression], made_from: ast.JoinedStr, spans: dict[int, Span], found: dict[int, Span]
) -> None:
    """The n-th part's span for the n-th formatted value (a format spec's too)."""
    values = [value for value in made_from.values if type(value) is ast.FormattedValue]
    if len(parts) != len(values):
        return  # not reached: both list the string's replacement fields
    for part, value in zip(parts, values, strict=True):
        found[id(value)] = spans[id(part)]
        if part.format_spec and type(value.format_spec) is ast.JoinedStr:
            spec = [p for p in part.format_spec if isinstance(p, cst.FormattedStringExpression)]
            _place_formatted(spec, value.format_spec, spans, found)


def _closing_quote(text: str, quote: str, body: int) -> int:
    """Where the string whose body starts at ``body`` ends: the first ``quote`` after an even
    run of backslashes (found by ``str.find``, not a step per character: docstrings are long)."""
    index = body
    while True:
        found = text.find(quote, index)
        if found == -1:
            raise Unsupported("an unterminated string")  # `ast` accepted the text: not reached
        backslash = found - 1
        while backslash >= body and text[backslash] == "\\":
            backslash -= 1
        if (found - 1 - backslash) % 2 == 0:
            return found
        index = found + 1


def _has_fstring_prefix(text: str, start: int, quote: int) -> bool:
    """Whether the letters right before a quote, from ``start`` on (its prefix, of two letters at
    most, or a keyword's end, `if"a"`, taken for one), make it an f-string (or a 3.14 t-string)."""
    for index in range(quote - 1, max(start, quote - 2) - 1, -1):
        letter = text[index]
        if letter in "fFtT":
            return True
        if not letter.isalpha():
            return False
    return False


def _fields_hold_no_quote(text: str, start: int, end: int) -> bool:
    """Whether the body [start, end) of a one-line f-string, its end found as a plain string's
    (the first quote like its own after an even run of backslashes), ends outside its fields,
    none of which holds a quote or a '#': Python 3.12's tokenizer, which reads a field as code
    (a string in the f-string's own quotes may sit there), then ends the f-string there too."""
    depth = 0  # the braces open in a field (a format spec's field is one more)
    at = start
    while True:
        stop = _FIELD_STOPS.search(text, at, end)
        if stop is None:
            return depth == 0
        at = stop.start()
        char = text[at]
        if char in "{}" and not depth and text.startswith(char, at + 1):  # `{{`, `}}`: the text's
            at += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if not depth:
                return False
            depth -= 1
        elif depth:  # a quote or a '#' in a field
            return False
        at += 1


def _set(node: Any, name: str, value: object) -> Any:
    """The node with one field changed in place (the field's setter: LibCST's nodes are frozen,
    and the ones this builder made are its own, unshared)."""
    node.__class__.__dict__[name].__set__(node, value)
    return node


def _with_parens(node: Any, count: int) -> Any:
    _set(node, "lpar", (_LPAR,) * count)
    return _set(node, "rpar", (_RPAR,) * count)


def _without_comma(node: Any) -> Any:
    return _set(node, "comma", cst.MaybeSentinel.DEFAULT)


def _comma_all(nodes: list[Any]) -> list[Any]:
    for node in nodes:
        _set(node, "comma", _COMMA)
    if nodes:
        _without_comma(nodes[-1])
    return nodes


_EXACT = (
    cst.BaseExpression, cst.BaseSmallStatement, cst.ExceptHandler, cst.FormattedStringExpression, cst.MatchPattern,
)  # fmt: skip


def exact_span(node: cst.CSTNode) -> bool:
    """Whether a node's recorded span is where LibCST places it (others' spans are this
    builder's own: a decorated def's, a parameter's without its comma, ...)."""
    return isinstance(node, _EXACT) and not isinstance(node, cst.StarredElement)


_STATEMENT_LEVEL = (cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.BaseSuite, cst.Module)
_KEEPS_ITS_TEXT = (cst.BaseExpression, cst.FormattedStringExpression)
_CODEGEN = cst.CSTNode._codegen


def render(node: cst.CSTNode, text: str, spans: dict[int, Span]) -> str | None:
    """The code of a fix's replacement: what it keeps of the source as the source has it
    (an expression of this tree prints its own text), new nodes as LibCST prints them.
    None where the replacement holds statements: their lines, comments and indentation are
    the source's own tree's to print."""
    def kept(current: cst.CSTNode) -> bool:
        """A node of this tree that prints as the source has it."""
        return id(current) in spans and isinstance(current, _KEEPS_ITS_TEXT) and exact_span(current)

    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, _STATEMENT_LEVEL):
            return None
        if not kept(current):
            pending.extend(current.children)

    guessed = []

    def codegen(self: cst.CSTNode, state: Any, **options: Any) -> None:
        if kept(self):
            start, end = spans[id(self)]
            state.add_token(text[start:end])
            return
        if id(self) in _SHARED:  # this tree's stand-in for the source's whitespace: not its text
            guessed.append(self)
        _CODEGEN(self, state, **options)

    cst.CSTNode._codegen = codegen  # type: ignore[method-assign]
    try:
        code = cst.Module(body=[]).code_for_node(node)
    finally:
        cst.CSTNode._codegen = _CODEGEN  # type: ignore[method-assign]
    return None if guessed else code
