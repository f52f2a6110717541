"""The shape of a piece of code read from CPython's `ast` (the port's twin of ``shape.py``,
which says what a shape keeps and why): the same string for an `ast` node as the original
gives for the LibCST node ``analysis/ast_cst.py`` builds from it.

The original lists LibCST's class names in its walk's order (``walk.children``) and each
literal token as written, so this twin spells out, per `ast` class, the LibCST nodes the
builder makes from it:

- the wrappers `ast` has no node for (``Arg``, ``Element``, ``DictElement``,
  ``SubscriptElement``/``Index``, ``ComparisonTarget``, ``Param``/``Parameters``,
  ``Annotation``, ``Decorator``, ``AsName``, ``Else``, ``Finally``, ``IndentedBlock``,
  ``SimpleStatementLine``, ...), and the punctuation nodes the walk does not skip: brackets
  and braces (``LeftSquareBracket``...), a slice's ``Colon``, an import's ``Dot``, a
  same-line suite's ``SimpleWhitespace``, an or-pattern's ``BitOr``;
- operators, which the walk skips (its ``operator`` field), never;
- a flat ``BoolOp`` as LibCST's binary operations nested to the left, a ``Compare`` as its
  left operand and one ``ComparisonTarget`` per comparator;
- ``None``, ``True`` and ``False`` as LibCST's names (kept by name), other names as `_`;
- literal tokens read from the module's text (``SourceText``) by the node's position: a
  string written as several tokens is LibCST's right-nested ``ConcatenatedString``, an
  f-string's text parts are read as written, its fields scanned as the builder scans them
  (the `ast` fields, ``FormattedValue``, taken in their order), but for a backslash before a
  brace, read as Python and LibCST read it (``fstring_parts``: the builder's fields are not
  Python's there);
- where the builder reads the text (an ``elif``, a suite on its header's line, statements
  joined by ';', a tuple's or a sequence pattern's parentheses), the same text.

A parameter's default sits beside it in `ast` (``ast.arguments``), inside it in LibCST
(``Param.default``): shaping an ``ast.arg`` alone, pass its default. A construct the builder
leaves to LibCST has LibCST's shape where tests/test_shape_ast.py shows it (`except*`, an
f-string's `=` field or field across lines), its `ast` classes otherwise (``other``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from mcplint.analysis.imports_ast import dotted_name
from mcplint.analysis.source_text import SourceText, is_one_token, opening_quote, token_end

_SMALL = (
    ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Raise, ast.Assert, ast.Delete, ast.Pass,
    ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom,
)  # fmt: skip


def node_shape(node: ast.AST, source: SourceText, *, default: ast.expr | None = None) -> str:
    """``shape.node_shape`` of the LibCST node built from ``node`` (``source``: the module's
    text; ``default``: an ``ast.arg``'s default value, which LibCST's parameter holds)."""
    shaper = _Shaper(source)
    if type(node) is ast.arg:
        shaper.param(node, default)
    else:
        shaper.shape(node)
    return " ".join(shaper.parts)


class _Shaper:
    def __init__(self, source: SourceText) -> None:
        self.source = source
        self.text = source.text
        self.parts: list[str] = []

    def shape(self, node: ast.AST) -> None:
        _SHAPERS.get(type(node), _Shaper.other)(self, node)

    def other(self, node: ast.AST) -> None:
        """A node of a construct the builder does not make (``ast_cst.Unsupported``: LibCST
        parses such a module), or of none: its `ast` class and its children, a shape still."""
        self.add(type(node).__name__)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _OPERATORS):
                self.shape(child)

    def add(self, *names: str) -> None:
        self.parts.extend(names)

    def optional(self, node: ast.AST | None) -> None:
        if node is not None:
            self.shape(node)

    # -- text ------------------------------------------------------------------------------

    def start(self, node: ast.AST) -> int:
        return self.source.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        return self.source.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def skip(self, index: int) -> int:
        """The first index at or after ``index`` that is not blank, a line's continuation or a
        comment (as the builder's ``_after``)."""
        text = self.text
        length = len(text)
        while index < length:
            char = text[index]
            if char in " \t\f\r\n\\":
                index += 1
            elif char == "#":
                newline = text.find("\n", index)
                index = length if newline == -1 else newline
            else:
                return index
        return length

    def first_owns_paren(self, start: int, first: ast.AST) -> bool:
        """Whether the bracket at ``start``, which opens a tuple's or a sequence pattern's span,
        is the first element's own (`(a), b`, `[a], b`), not the whole's (`(a, b)`, `[a, b]`):
        the builder's test, the first element's start with its own parentheses (``parens``)
        against ``start``; a tuple or generator expression element by its span alone, as the
        builder's ``_start_with_parens`` takes it (`a[((1, 2)), 3]` is one parenthesised tuple
        there, not LibCST's two subscript elements)."""
        first_start = self.start(first)
        if type(first) is ast.Tuple or type(first) is ast.GeneratorExp:
            return first_start == start
        text = self.text
        opened = 0
        index = self.skip(start)
        while index < first_start:  # only '(' and what `skip` passes lie there
            opened += 1
            index = self.skip(index + 1)
        index = self.skip(self.end(first))
        closed = 0
        while closed < opened and index < len(text) and text[index] == ")":
            closed += 1
            index = self.skip(index + 1)
        return closed == opened

    # -- statements ------------------------------------------------------------------------

    def block(self, statements: Sequence[ast.stmt]) -> None:
        """A block's statements as LibCST groups them: simple statements a ';' joins in one
        ``SimpleStatementLine``."""
        text = self.text
        index = 0
        while index < len(statements):
            statement = statements[index]
            index += 1
            if not isinstance(statement, _SMALL):
                self.shape(statement)
                continue
            self.add("SimpleStatementLine")
            self.shape(statement)
            while index < len(statements) and isinstance(statements[index], _SMALL):
                after = self.end(statement)
                while after < len(text) and text[after] in " \t\f":
                    after += 1
                if text[min(after, len(text) - 1)] != ";":
                    break
                statement = statements[index]
                index += 1
                self.shape(statement)

    def suite(self, statements: Sequence[ast.stmt]) -> None:
        """An indented block, or the simple statements on the header's line after its colon."""
        text = self.text
        before = self.start(statements[0]) - 1
        while before >= 0 and text[before] in " \t\f":
            before -= 1
        if before >= 0 and text[before] == ":":
            self.add("SimpleStatementSuite")
            for statement in statements:
                self.shape(statement)
            self.add("SimpleWhitespace")  # its ``leading_whitespace``, a node the walk visits
            return
        self.add("IndentedBlock")
        self.block(statements)

    def orelse(self, statements: Sequence[ast.stmt]) -> None:
        if statements:
            self.add("Else")
            self.suite(statements)

    def module(self, node: ast.Module) -> None:
        self.add("Module")
        self.block(node.body)

    def expression_statement(self, node: ast.Expr) -> None:
        self.add("Expr")
        self.shape(node.value)

    def assign(self, node: ast.Assign) -> None:
        self.add("Assign")
        for target in node.targets:
            self.add("AssignTarget")
            self.shape(target)
        self.shape(node.value)

    def annotated_assign(self, node: ast.AnnAssign) -> None:
        self.add("AnnAssign")
        self.shape(node.target)
        self.annotation(node.annotation)
        self.optional(node.value)

    def augmented_assign(self, node: ast.AugAssign) -> None:
        self.add("AugAssign")
        self.shape(node.target)
        self.shape(node.value)

    def return_(self, node: ast.Return) -> None:
        self.add("Return")
        self.optional(node.value)

    def raise_(self, node: ast.Raise) -> None:
        self.add("Raise")
        self.optional(node.exc)
        if node.cause is not None:
            self.add("From")
            self.shape(node.cause)

    def assert_(self, node: ast.Assert) -> None:
        self.add("Assert")
        self.shape(node.test)
        self.optional(node.msg)

    def delete(self, node: ast.Delete) -> None:
        self.add("Del")
        if len(node.targets) == 1:
            self.shape(node.targets[0])
            return
        self.add("Tuple")
        for target in node.targets:
            self.add("Element")
            self.shape(target)

    def keyword_statement(self, node: ast.Pass | ast.Break | ast.Continue) -> None:
        self.add(type(node).__name__)  # LibCST's class of the same name

    def global_(self, node: ast.Global | ast.Nonlocal) -> None:
        self.add("Global" if type(node) is ast.Global else "Nonlocal")
        for _ in node.names:
            self.add("NameItem", "_")

    def import_(self, node: ast.Import) -> None:
        self.add("Import")
        for alias in node.names:
            self.alias(alias)

    def import_from(self, node: ast.ImportFrom) -> None:
        self.add("ImportFrom")
        if node.module:
            self.dotted(node.module)
        if len(node.names) == 1 and node.names[0].name == "*":
            self.add("ImportStar")
        else:
            for alias in node.names:
                self.alias(alias)
        self.add(*["Dot"] * node.level)

    def alias(self, node: ast.alias) -> None:
        self.add("ImportAlias")
        self.dotted(node.name)
        if node.asname is not None:
            self.add("AsName", "_")

    def dotted(self, name: str) -> None:
        """A module's dotted name: LibCST's attributes of attributes of a name."""
        parts = name.split(".")
        self.add(*["Attribute"] * (len(parts) - 1), "_", *parts[1:])

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.add("FunctionDef")
        for decorator in node.decorator_list:
            self.add("Decorator")
            self.shape(decorator)
        self.add("_")
        self.parameters(node.args)
        if node.returns is not None:
            self.annotation(node.returns)
        self.suite(node.body)

    def class_(self, node: ast.ClassDef) -> None:
        self.add("ClassDef")
        for decorator in node.decorator_list:
            self.add("Decorator")
            self.shape(decorator)
        self.add("_")
        for base in node.bases:
            self.add("Arg")
            self.shape(base.value if type(base) is ast.Starred else base)
        for keyword in node.keywords:
            self.keyword(keyword)
        self.suite(node.body)

    def if_(self, node: ast.If) -> None:
        self.add("If")
        self.shape(node.test)
        self.suite(node.body)
        orelse = node.orelse
        if len(orelse) == 1 and type(orelse[0]) is ast.If and self.text.startswith("elif", self.start(orelse[0])):
            self.if_(orelse[0])
        else:
            self.orelse(orelse)

    def for_(self, node: ast.For | ast.AsyncFor) -> None:
        self.add("For")
        self.shape(node.target)
        self.shape(node.iter)
        self.suite(node.body)
        self.orelse(node.orelse)

    def while_(self, node: ast.While) -> None:
        self.add("While")
        self.shape(node.test)
        self.suite(node.body)
        self.orelse(node.orelse)

    def with_(self, node: ast.With | ast.AsyncWith) -> None:
        self.add("With")
        for item in node.items:
            self.add("WithItem")
            self.shape(item.context_expr)
            if item.optional_vars is not None:
                self.add("AsName")
                self.shape(item.optional_vars)
        self.suite(node.body)

    def try_(self, node: ast.Try | ast.TryStar) -> None:
        star = type(node) is not ast.Try  # `except*`, which the builder leaves to LibCST: its nodes
        self.add("TryStar" if star else "Try")
        self.suite(node.body)
        for handler in node.handlers:
            self.handler(handler, star)
        self.orelse(node.orelse)
        if node.finalbody:
            self.add("Finally")
            self.suite(node.finalbody)

    def handler(self, node: ast.ExceptHandler, star: bool = False) -> None:
        self.add("ExceptStarHandler" if star else "ExceptHandler")
        self.suite(node.body)
        if node.type is not None:
            self.shape(node.type)
            if node.name is not None:
                self.add("AsName", "_")

    # -- parameters ------------------------------------------------------------------------

    def parameters(self, node: ast.arguments) -> None:
        """LibCST's ``Parameters``: the positional ones after any `/`, the `*` one (or a bare
        `*`), the keyword-only ones, the `**` one, then those before the `/` and the `/`."""
        self.add("Parameters")
        positional = [*node.posonlyargs, *node.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.defaults)) + list(node.defaults)
        posonly = len(node.posonlyargs)
        for argument, default in zip(positional[posonly:], defaults[posonly:], strict=True):
            self.param(argument, default)
        if node.vararg is not None:
            self.param(node.vararg, None)
        elif node.kwonlyargs:
            self.add("ParamStar")
        for argument, default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
            self.param(argument, default)
        if node.kwarg is not None:
            self.param(node.kwarg, None)
        for argument, default in zip(positional[:posonly], defaults[:posonly], strict=True):
            self.param(argument, default)
        if posonly:
            self.add("ParamSlash")

    def param(self, node: ast.arg, default: ast.expr | None) -> None:
        self.add("Param", "_")
        if node.annotation is not None:
            self.annotation(node.annotation)
        self.optional(default)

    def annotation(self, node: ast.expr) -> None:
        self.add("Annotation")
        self.shape(node)

    # -- match statements ------------------------------------------------------------------

    def match(self, node: ast.Match) -> None:
        self.add("Match")
        self.shape(node.subject)
        for case in node.cases:
            self.add("MatchCase")
            self.shape(case.pattern)
            self.suite(case.body)
            self.optional(case.guard)

    def match_value(self, node: ast.MatchValue) -> None:
        self.add("MatchValue")
        self.shape(node.value)

    def match_singleton(self, node: ast.MatchSingleton) -> None:
        self.add("MatchSingleton", repr(node.value))

    def match_as(self, node: ast.MatchAs) -> None:
        self.add("MatchAs")
        self.optional(node.pattern)
        if node.name is not None:
            self.add("_")

    def match_or(self, node: ast.MatchOr) -> None:
        self.add("MatchOr")
        for index, pattern in enumerate(node.patterns):
            self.add("MatchOrElement")
            self.shape(pattern)
            if index < len(node.patterns) - 1:
                self.add("BitOr")  # the separator: a field the walk visits

    def match_sequence(self, node: ast.MatchSequence) -> None:
        start = self.start(node)
        opener = self.text[start]
        if opener in "([" and node.patterns and self.first_owns_paren(start, node.patterns[0]):  # `case [a], b:`
            opener = ""
        self.add("MatchTuple" if opener == "(" else "MatchList")
        for pattern in node.patterns:
            if type(pattern) is ast.MatchStar:
                self.add("MatchStar")
                if pattern.name is not None:
                    self.add("_")
            else:
                self.add("MatchSequenceElement")
                self.shape(pattern)
        if opener == "[":
            self.add("LeftSquareBracket", "RightSquareBracket")

    def match_mapping(self, node: ast.MatchMapping) -> None:
        self.add("MatchMapping")
        for key, pattern in zip(node.keys, node.patterns, strict=True):
            self.add("MatchMappingElement")
            self.shape(key)
            self.shape(pattern)
        self.add("LeftCurlyBrace", "RightCurlyBrace")
        if node.rest is not None:
            self.add("_")
            if self._comma_after_rest(node):
                self.add("Comma")  # the ``trailing_comma`` field, which the walk visits

    def _comma_after_rest(self, node: ast.MatchMapping) -> bool:
        text = self.text
        index = self.skip(self.end(node.patterns[-1]) if node.patterns else self.start(node) + 1)
        while text[index] in ",)":  # the last element's comma, its pattern's parentheses
            index = self.skip(index + 1)
        index = self.skip(index + len("**"))
        index = self.skip(index + len(node.rest))  # type: ignore[arg-type]
        return text[index] == ","

    def match_class(self, node: ast.MatchClass) -> None:
        self.add("MatchClass")
        self.shape(node.cls)
        for pattern in node.patterns:
            self.add("MatchSequenceElement")
            self.shape(pattern)
        for pattern in node.kwd_patterns:
            self.add("MatchKeywordElement", "_")
            self.shape(pattern)

    # -- expressions -----------------------------------------------------------------------

    def name(self, node: ast.Name) -> None:
        self.add("_")

    def attribute(self, node: ast.Attribute) -> None:
        self.add("Attribute")
        self.shape(node.value)
        self.add(node.attr)

    def call(self, node: ast.Call) -> None:
        callee = dotted_name(node.func)
        self.add("Call", callee or "")
        if callee is None:
            self.shape(node.func)
        arguments: list[tuple[tuple[int, int], str, ast.expr]] = []
        for argument in node.args:
            value = argument.value if type(argument) is ast.Starred else argument
            arguments.append(((argument.lineno, argument.col_offset), "", value))
        for keyword in node.keywords:
            label = "" if keyword.arg is None else keyword.arg + "="
            arguments.append(((keyword.lineno, keyword.col_offset), label, keyword.value))
        arguments.sort(key=lambda argument: argument[0])  # LibCST's arguments, in written order
        for _, label, value in arguments:
            self.add(label)
            self.shape(value)

    def keyword(self, node: ast.keyword) -> None:
        self.add("Arg")
        self.shape(node.value)
        if node.arg is not None:
            self.add("_")

    def constant(self, node: ast.Constant) -> None:
        value = node.value
        kind = type(value)
        if kind is str or kind is bytes:
            if is_one_token(node):
                self.add(self.text[self.start(node) : self.end(node)])
            else:
                self.strings(node, ())
        elif value is None or kind is bool:
            self.add(repr(value))  # LibCST's name
        elif value is Ellipsis:
            self.add("Ellipsis")
        else:  # a number: LibCST's Integer, Float or Imaginary, as written
            self.add(self.text[self.start(node) : self.end(node)])

    def joined_string(self, node: ast.JoinedStr) -> None:
        self.strings(node, node.values)

    def strings(self, node: ast.expr, values: Sequence[ast.expr]) -> None:
        """The string tokens of ``node``'s span: one token, or LibCST's right-nested
        ``ConcatenatedString``; ``values``: the f-string's parts, whose fields are the fields
        the tokens' scan finds, in order."""
        text = self.text
        end = self.end(node)
        tokens: list[tuple[int, int]] = []
        index = self.skip(self.start(node))
        while index < end and (text.find("'", index, end) != -1 or text.find('"', index, end) != -1):
            tokens.append((index, token_end(text, index)))
            index = self.skip(tokens[-1][1])
        fields = _fields(values)
        for number, (token_start, token_stop) in enumerate(tokens, 1):
            if number < len(tokens):
                self.add("ConcatenatedString")  # this token its left, the others its right
            quote_at, quote = opening_quote(text, token_start)
            prefix = text[token_start:quote_at].lower()
            if "f" not in prefix:
                self.add(text[token_start:token_stop])
                continue
            self.add("FormattedString")
            body, stop = quote_at + len(quote), token_stop - len(quote)
            self.fstring_parts(body, stop, fields, raw="r" in prefix, in_spec=False)

    def fstring_parts(
        self, index: int, stop: int, fields: Iterator[ast.FormattedValue], *, raw: bool, in_spec: bool
    ) -> int:
        """An f-string's body (or a field's format spec, up to its closing brace) scanned as the
        builder scans it (``_fstring_parts``): its text parts as written, its fields. But for a
        backslash, read as Python reads it, where the builder's scan takes it and the next
        character for an escape: a `{` after it opens a field (`\\{x}`, `\\{{`), a named
        character's braces are the escape's (`\\N{BULLET}`); there the builder's fields are
        not Python's, nor its tree LibCST's."""
        text = self.text
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
                    self.add(text[literal_start:index])
                index = self.fstring_field(index, stop, next(fields, None), raw)
                literal_start = index
                continue
            if char == "\\":
                following = text[index + 1]
                if following == "N" and not raw and text.startswith("{", index + 2):
                    closing = text.find("}", index, stop)
                    index = stop if closing == -1 else closing + 1
                    continue
                if following in "{}":
                    index += 1
                    continue
                index += 1  # and the character it escapes
            index += 1
        if index > literal_start:
            self.add(text[literal_start:index])
        return index

    def fstring_field(self, open_brace: int, stop: int, field: ast.FormattedValue | None, raw: bool) -> int:
        """A field (LibCST's ``FormattedStringExpression``): its expression, the parts of its
        format spec; where it ends (the builder's ``_fstring_expression``). ``field`` is None,
        and a quote unclosed, only where the builder did not make the tree (a Python 3.12
        f-string's field holding its own quote): the scan then still ends."""
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
                index = text.find(char, index + 1, stop)
                if index == -1:
                    index = stop
                    break
            elif depth == 0 and (char == "!" and text[index + 1] != "=" or char == ":"):
                break
            index += 1
        self.add("FormattedStringExpression")
        spec: Sequence[ast.expr] = ()
        if field is not None:
            self.shape(field.value)
            if type(field.format_spec) is ast.JoinedStr:
                spec = field.format_spec.values
        if text[index] == "!":
            index += 2
        if text[index] == ":":
            index = self.fstring_parts(index + 1, stop, _fields(spec), raw=raw, in_spec=True)
        return index + 1

    def dict_(self, node: ast.Dict) -> None:
        self.add("Dict")
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                self.add("StarredDictElement")
            else:
                self.add("DictElement")
                self.shape(key)
            self.shape(value)
        self.add("LeftCurlyBrace", "RightCurlyBrace")

    def elements(self, items: Sequence[ast.expr]) -> None:
        for item in items:
            if type(item) is ast.Starred:
                self.add("StarredElement")
                self.shape(item.value)
            else:
                self.add("Element")
                self.shape(item)

    def list_(self, node: ast.List) -> None:
        self.add("List")
        self.elements(node.elts)
        self.add("LeftSquareBracket", "RightSquareBracket")

    def tuple_(self, node: ast.Tuple) -> None:
        self.add("Tuple")
        self.elements(node.elts)

    def set_(self, node: ast.Set) -> None:
        self.add("Set")
        self.elements(node.elts)
        self.add("LeftCurlyBrace", "RightCurlyBrace")

    def subscript(self, node: ast.Subscript) -> None:
        self.add("Subscript")
        self.shape(node.value)
        index = node.slice
        if type(index) is ast.Tuple and index.elts and not self.has_own_parens(index):
            for item in index.elts:
                self.add("SubscriptElement")
                self.slice(item)
        else:
            self.add("SubscriptElement")
            self.slice(index)
        self.add("LeftSquareBracket", "RightSquareBracket")

    def has_own_parens(self, node: ast.Tuple) -> bool:
        start = self.start(node)
        return self.text[start] == "(" and not self.first_owns_paren(start, node.elts[0])

    def slice(self, node: ast.expr) -> None:
        if type(node) is ast.Slice:
            self.add("Slice")
            self.optional(node.lower)
            self.optional(node.upper)
            self.optional(node.step)
            self.add("Colon")
            if node.step is not None:
                self.add("Colon")
            return
        self.add("Index")
        self.shape(node.value if type(node) is ast.Starred else node)

    def binary(self, node: ast.BinOp) -> None:
        self.add("BinaryOperation")
        self.shape(node.left)
        self.shape(node.right)

    def boolean(self, node: ast.BoolOp) -> None:
        self.add(*["BooleanOperation"] * (len(node.values) - 1))
        for value in node.values:
            self.shape(value)

    def unary(self, node: ast.UnaryOp) -> None:
        self.add("UnaryOperation")
        self.shape(node.operand)

    def compare(self, node: ast.Compare) -> None:
        self.add("Comparison")
        self.shape(node.left)
        for comparator in node.comparators:
            self.add("ComparisonTarget")
            self.shape(comparator)

    def if_expression(self, node: ast.IfExp) -> None:
        self.add("IfExp")
        self.shape(node.test)
        self.shape(node.body)
        self.shape(node.orelse)

    def await_(self, node: ast.Await) -> None:
        self.add("Await")
        self.shape(node.value)

    def yield_(self, node: ast.Yield) -> None:
        self.add("Yield")
        self.optional(node.value)

    def yield_from(self, node: ast.YieldFrom) -> None:
        self.add("Yield", "From")
        self.shape(node.value)

    def lambda_(self, node: ast.Lambda) -> None:
        self.add("Lambda")
        self.parameters(node.args)
        self.shape(node.body)

    def named(self, node: ast.NamedExpr) -> None:
        self.add("NamedExpr")
        self.shape(node.target)
        self.shape(node.value)

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> None:
        kind = type(node)
        self.add(kind.__name__)
        self.shape(node.elt)
        self.generators(node.generators)
        if kind is ast.ListComp:
            self.add("LeftSquareBracket", "RightSquareBracket")
        elif kind is ast.SetComp:
            self.add("LeftCurlyBrace", "RightCurlyBrace")

    def dict_comprehension(self, node: ast.DictComp) -> None:
        self.add("DictComp")
        self.shape(node.key)
        self.shape(node.value)
        self.generators(node.generators)
        self.add("LeftCurlyBrace", "RightCurlyBrace")

    def generators(self, generators: Sequence[ast.comprehension]) -> None:
        """LibCST's ``CompFor`` nodes, each holding the next as its ``inner_for_in``."""
        for generator in generators:
            self.add("CompFor")
            self.shape(generator.target)
            self.shape(generator.iter)
            for test in generator.ifs:
                self.add("CompIf")
                self.shape(test)


def _fields(parts: Sequence[ast.expr]) -> Iterator[ast.FormattedValue]:
    """The fields among an f-string's parts (or a format spec's), in order."""
    return (part for part in parts if type(part) is ast.FormattedValue)


_OPERATORS = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)  # the walk skips them
# Per `ast` class, the method that shapes its nodes (each typed for its own classes).
_SHAPERS: dict[type, Callable[[_Shaper, Any], None]] = {
    ast.Module: _Shaper.module,
    ast.Expr: _Shaper.expression_statement,
    ast.Assign: _Shaper.assign,
    ast.AnnAssign: _Shaper.annotated_assign,
    ast.AugAssign: _Shaper.augmented_assign,
    ast.Return: _Shaper.return_,
    ast.Raise: _Shaper.raise_,
    ast.Assert: _Shaper.assert_,
    ast.Delete: _Shaper.delete,
    ast.Pass: _Shaper.keyword_statement,
    ast.Break: _Shaper.keyword_statement,
    ast.Continue: _Shaper.keyword_statement,
    ast.Global: _Shaper.global_,
    ast.Nonlocal: _Shaper.global_,
    ast.Import: _Shaper.import_,
    ast.ImportFrom: _Shaper.import_from,
    ast.FunctionDef: _Shaper.function,
    ast.AsyncFunctionDef: _Shaper.function,
    ast.ClassDef: _Shaper.class_,
    ast.If: _Shaper.if_,
    ast.For: _Shaper.for_,
    ast.AsyncFor: _Shaper.for_,
    ast.While: _Shaper.while_,
    ast.With: _Shaper.with_,
    ast.AsyncWith: _Shaper.with_,
    ast.Try: _Shaper.try_,
    ast.ExceptHandler: _Shaper.handler,
    ast.keyword: _Shaper.keyword,
    ast.arguments: _Shaper.parameters,
    ast.alias: _Shaper.alias,
    ast.Match: _Shaper.match,
    ast.MatchValue: _Shaper.match_value,
    ast.MatchSingleton: _Shaper.match_singleton,
    ast.MatchAs: _Shaper.match_as,
    ast.MatchOr: _Shaper.match_or,
    ast.MatchSequence: _Shaper.match_sequence,
    ast.MatchMapping: _Shaper.match_mapping,
    ast.MatchClass: _Shaper.match_class,
    ast.Name: _Shaper.name,
    ast.Attribute: _Shaper.attribute,
    ast.Call: _Shaper.call,
    ast.Constant: _Shaper.constant,
    ast.JoinedStr: _Shaper.joined_string,
    ast.Dict: _Shaper.dict_,
    ast.List: _Shaper.list_,
    ast.Tuple: _Shaper.tuple_,
    ast.Set: _Shaper.set_,
    ast.Subscript: _Shaper.subscript,
    ast.BinOp: _Shaper.binary,
    ast.BoolOp: _Shaper.boolean,
    ast.UnaryOp: _Shaper.unary,
    ast.Compare: _Shaper.compare,
    ast.IfExp: _Shaper.if_expression,
    ast.Await: _Shaper.await_,
    ast.Yield: _Shaper.yield_,
    ast.YieldFrom: _Shaper.yield_from,
    ast.Lambda: _Shaper.lambda_,
    ast.NamedExpr: _Shaper.named,
    ast.ListComp: _Shaper.comprehension,
    ast.SetComp: _Shaper.comprehension,
    ast.GeneratorExp: _Shaper.comprehension,
    ast.DictComp: _Shaper.dict_comprehension,
}
if sys.version_info >= (3, 11):
    _SHAPERS[ast.TryStar] = _Shaper.try_
