"""The raw facts of handler detection read from CPython's `ast` (the port's twin of
``handlers.py``'s ``HandlerFactsCollector`` and of the helpers that read tree nodes there).

``AstHandlerFactsCollector`` fills the tables ``HandlerFactsCollector`` fills, with the same
keys and strings, holding `ast` nodes where the original holds LibCST's. Two of its tables hold
what LibCST wraps and `ast` has no node for:

- ``FunctionInfo.decorators``: each decorator's expression (LibCST's ``Decorator.decorator``,
  all the resolver reads of it);
- ``class_bases``: each positional base's expression, a starred one's value (LibCST's
  ``Arg.value``, all the resolver reads of it; keywords such as ``metaclass=`` are not bases
  there either).

Where the trees differ in shape, the answers follow LibCST's:

- ``True``, ``False`` and ``None`` are names there: ``_name_of`` and ``_dotted_name`` give
  them as names (``f(None)`` calls ``None`` as the original lists it).
- A string literal is one token there (``SimpleString``) or a concatenation of several, and
  a statement after a colon is a suite, not a block: `ast` tells neither, so the collector
  reads them in the module's text (``SourceText``), as ``ast_cst`` built the original's tree.
- A call's arguments are in written order there, keywords and starred ones among them
  (``_arguments``); a subscript's indexes are a list (``_subscript_elements``).

``empty_values``, ``error_payloads`` and ``catching`` have twins of their own in the making:
the few of their functions the collector calls are here, private, until those land.
"""

from __future__ import annotations

import ast
import re
import sys
from ast import literal_eval
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

from mcplint.analysis.catching import Guards, encode
from mcplint.analysis.empty_values import EMPTY_CONSTRUCTORS, EMPTY_TEXTS, JSON_SERIALISERS, RESULT_SUFFIXES
from mcplint.analysis.error_payloads import ERROR_KEYS, ERROR_TEXT, FAILURE_FLAG_KEYS, _names_errors
from mcplint.analysis.handlers import (
    _COLLECTORS,
    _MESSAGE_NAME,
    _RUNNERS,
    _SENDS,
    CONTAINER_ADDERS,
    HELD,
    HIGH_LEVEL_DECORATORS,
    REGISTRY_FUNCTION_KEYS,
    SERVER_DISPATCH_METHODS,
    FunctionInfo,
    _nearest_class,
    _Registration,
)
from mcplint.analysis.leads_to import leads_to
from mcplint.analysis.scopes import Frames
from mcplint.analysis.walk_ast import children, own_nodes

T = TypeVar("T")


# -- the module's text: what `ast` does not tell -------------------------------------------
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class SourceText:
    """The module's text, read where LibCST's tree tells what `ast`'s does not: whether a
    string literal is one token, a block's statements follow its colon, a tuple is
    parenthesised (by a node's `ast` position: its line and UTF-8 byte column)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ascii = text.isascii()
        self._starts: list[int] | None = None
        self._encoded: dict[int, bytes] = {}  # per line of a text not all ASCII: b"" if the line is

    def _line_starts(self) -> list[int]:
        starts = self._starts
        if starts is None:  # listed on first use; `ast` ends a line at "\r\n", "\r" and "\n"
            starts = self._starts = [0, *(match.end() for match in _LINE_BREAK.finditer(self.text))]
        return starts

    def offset(self, line: int, column: int) -> int:
        """``ast``'s (line, UTF-8 byte column) as an index in ``text``."""
        starts = self._line_starts()
        start = starts[line - 1]
        if self._ascii:
            return start + column
        encoded = self._encoded.get(line)
        if encoded is None:
            chars = self.text[start : starts[line] if line < len(starts) else len(self.text)]
            encoded = self._encoded[line] = b"" if chars.isascii() else chars.encode("utf-8")
        if not encoded:
            return start + column
        return start + len(encoded[:column].decode("utf-8", "replace"))

    def start(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.expr | ast.stmt) -> int:
        return self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    def one_token(self, node: ast.Constant | ast.JoinedStr) -> bool:
        """Whether a string literal is one token (LibCST's ``SimpleString`` or
        ``FormattedString``), not an implicit concatenation (``ConcatenatedString``)."""
        return _token_end(self.text, self.start(node)) == self.end(node)

    def leading_text(self, node: ast.Constant | ast.JoinedStr) -> str | None:
        """``leading_text`` of the literal's first token: a plain string's text, an f-string's
        source up to its first field (LibCST's ``FormattedStringText``, escapes as written)."""
        text = self.text
        start = self.start(node)
        quote_at, quote = _quote_at(text, start)
        if "f" not in text[start:quote_at].lower():
            value = literal_eval(text[start : _token_end(text, start)])
            return value if isinstance(value, str) else None
        body = quote_at + len(quote)
        close = _closing_quote(text, quote, body)
        index = body
        while True:
            brace = text.find("{", index, close)
            if brace == -1 or not text.startswith("{{", brace):
                break
            index = brace + 2
        raw = text[body : close if brace == -1 else brace]
        return raw or None

    def after_colon(self, statements: Sequence[ast.stmt]) -> bool:
        """Whether a block's statements follow its colon on its line (LibCST's
        ``SimpleStatementSuite``, not an ``IndentedBlock``)."""
        text = self.text
        index = self.start(statements[0]) - 1
        while index >= 0 and text[index] in " \t\f":
            index -= 1
        return index >= 0 and text[index] == ":"

    def is_zero_literal(self, node: ast.Constant) -> bool:
        """The literal written `0` (LibCST's ``Integer`` whose value is "0")."""
        return (
            type(node.value) is int
            and node.value == 0
            and node.lineno == node.end_lineno
            and node.end_col_offset == node.col_offset + 1
        )

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


def _quote_at(text: str, start: int) -> tuple[int, str]:
    """Where a string token starting at ``start`` opens its quote (after its prefix), and the quote."""
    index = start
    while text[index] not in "'\"":
        index += 1
    triple = text[index] * 3
    return index, triple if text.startswith(triple, index) else text[index]


def _closing_quote(text: str, quote: str, body: int) -> int:
    """Where the string whose body starts at ``body`` ends: the first ``quote`` after an even
    run of backslashes (as ``ast_cst`` reads a token, the tokenizer's rule before Python 3.12)."""
    index = body
    while True:
        found = text.find(quote, index)
        if found == -1:  # `ast` parsed the text: not reached
            return len(text)
        backslash = found - 1
        while backslash >= body and text[backslash] == "\\":
            backslash -= 1
        if (found - 1 - backslash) % 2 == 0:
            return found
        index = found + 1


def _token_end(text: str, start: int) -> int:
    """Where the string token starting at ``start`` ends."""
    quote_at, quote = _quote_at(text, start)
    return _closing_quote(text, quote, quote_at + len(quote)) + len(quote)


# -- LibCST's view of `ast`'s nodes ---------------------------------------------------------
def _name_of(node: ast.AST) -> str | None:
    """The name LibCST's ``Name`` node would hold: `True`, `False` and `None` are names there."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Constant:
        value = node.value
        if value is None or value is True or value is False:
            return repr(value)
    return None


def _dotted_name(node: ast.AST) -> str | None:
    """``imports.dotted_name`` as LibCST's tree answers it (`None.x` is a dotted name there)."""
    if type(node) is ast.Name:
        return node.id
    parts: list[str] = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    root = _name_of(node)
    if root is None:
        return None
    parts.append(root)
    return ".".join(reversed(parts))


def _is_string_token(node: ast.AST, source: SourceText) -> bool:
    """LibCST's ``SimpleString``: a text or bytes literal of one token."""
    return type(node) is ast.Constant and type(node.value) in (str, bytes) and source.one_token(node)


def _is_integer(node: ast.AST) -> bool:
    """LibCST's ``Integer`` (`True` and `False` are names there)."""
    return type(node) is ast.Constant and type(node.value) is int


def _unstarred(node: ast.expr | ast.keyword) -> ast.expr:
    """LibCST's ``Arg.value`` / ``StarredElement.value`` of `*x`, `**x`, `key=x`."""
    return node.value if type(node) is ast.Starred or type(node) is ast.keyword else node  # type: ignore[return-value]


def _arguments(call: ast.Call) -> Sequence[ast.expr | ast.keyword]:
    """A call's arguments as LibCST's ``Call.args`` lists them: in written order, keywords and
    starred ones among them (``walk_ast.children`` has them so, after the callee)."""
    if not call.keywords:
        return call.args
    if not call.args:
        return call.keywords
    return children(call)[1:]  # type: ignore[return-value]  # arguments, after the callee


def _argument_values(call: ast.Call) -> list[ast.expr]:
    """``[arg.value for arg in call.args]`` of LibCST's call."""
    if not call.keywords and not any(type(argument) is ast.Starred for argument in call.args):
        return call.args
    return [_unstarred(argument) for argument in _arguments(call)]


def _argument_count(call: ast.Call) -> int:
    return len(call.args) + len(call.keywords)


def _keyword_of(argument: ast.expr | ast.keyword) -> str | None:
    """LibCST's ``Arg.keyword`` (None for `*x` and `**x`)."""
    return argument.arg if type(argument) is ast.keyword else None


def _is_starred(argument: ast.expr | ast.keyword) -> bool:
    """LibCST's ``Arg.star`` set: `*x` or `**x`."""
    return type(argument) is ast.Starred or (type(argument) is ast.keyword and argument.arg is None)


def _subscript_elements(node: ast.Subscript, source: SourceText) -> list[ast.expr]:
    """LibCST's ``Subscript.slice``: one element per index of `x[a, b]` (an ``ast.Slice`` for
    a slice, a starred index's value), the index itself for `x[a]` and `x[(a, b)]`."""
    index = node.slice
    if type(index) is ast.Tuple and index.elts and not source.parenthesized(index):
        return [element.value if type(element) is ast.Starred else element for element in index.elts]
    return [index]


# -- until empty_values_ast / error_payloads_ast / catching_ast land -----------------------
def _is_empty_value(expression: ast.expr, source: SourceText) -> bool:
    """``empty_values.is_empty_value`` with no locals and nothing known (as the collector asks)."""
    if type(expression) is ast.Constant:
        value = expression.value
        if value is None or value is False:
            return True
        if value is True:
            return False
        if type(value) is int or type(value) is float:
            return bool(value == 0)
        return type(value) is str and value in EMPTY_TEXTS
    if type(expression) is ast.List or type(expression) is ast.Set:
        return not expression.elts
    if type(expression) is ast.Tuple:
        parts = [_unstarred(element) for element in expression.elts]
        return not parts or (
            all(_is_empty_value(part, source) for part in parts)
            and any(type(part) in (ast.List, ast.Dict, ast.Set) or _is_string_token(part, source) for part in parts)
        )
    if type(expression) is ast.Dict:
        if any(key is None for key in expression.keys):
            return False  # `**other`
        return all(_is_empty_value(value, source) for value in expression.values)
    if type(expression) is ast.Call:
        return _is_empty_call(expression, source)
    return False


def _is_empty_call(call: ast.Call, source: SourceText) -> bool:
    name = _dotted_name(call.func) or ""
    arguments = _arguments(call)
    if any(_is_starred(argument) for argument in arguments):
        return False
    if name in EMPTY_CONSTRUCTORS:
        return not arguments
    if name == "len" and len(arguments) == 1:  # `len(results)` of an empty local
        value = _unstarred(arguments[0])
        return _is_empty_value(value, source) and _name_of(value) is not None
    if name in JSON_SERIALISERS and arguments:
        return _is_empty_value(_unstarred(arguments[0]), source)
    tail = name.rpartition(".")[2]
    if not tail[:1].isupper() or tail.endswith(("Error", "Exception")):
        return False
    if not arguments:
        return tail.endswith(RESULT_SUFFIXES)
    return all(
        _keyword_of(argument) is not None and _is_empty_value(_unstarred(argument), source) for argument in arguments
    )


def _emptiness_tested(test: ast.expr, source: SourceText) -> str | None:
    """``empty_values.emptiness_tested``."""
    if type(test) is ast.UnaryOp and type(test.op) is ast.Not:
        inner = test.operand
        if type(inner) is ast.Call and _dotted_name(inner.func) == "len" and _argument_count(inner) == 1:
            inner = _argument_values(inner)[0]
        return _name_of(inner)
    if type(test) is ast.Compare and len(test.ops) == 1:
        left, comparator = test.left, test.comparators[0]
        if type(left) is ast.Call and _dotted_name(left.func) == "len" and _argument_count(left) == 1:
            left = _argument_values(left)[0]
            empty = type(comparator) is ast.Constant and source.is_zero_literal(comparator)
        else:
            empty = _is_empty_value(comparator, source) and not _is_integer(comparator)
        name = _name_of(left)
        if name is not None and type(test.ops[0]) in (ast.Is, ast.Eq) and empty:
            return name
    return None


def _string_value(node: ast.AST | None, source: SourceText) -> str | None:
    """``error_payloads.string_value``: the text of a one-token string literal."""
    if node is not None and type(node) is ast.Constant and type(node.value) is str and source.one_token(node):
        return node.value
    return None


def _leading_text(expression: ast.expr, source: SourceText) -> str | None:
    """``error_payloads.leading_text``."""
    if type(expression) is ast.Constant:
        value = expression.value
        if type(value) is not str:
            return None
        return value if source.one_token(expression) else source.leading_text(expression)
    if type(expression) is ast.JoinedStr:
        return source.leading_text(expression)
    if type(expression) is ast.BinOp and type(expression.op) in (ast.Add, ast.Mod):
        return _leading_text(expression.left, source)
    if type(expression) is ast.Call and type(expression.func) is ast.Attribute and expression.func.attr == "format":
        return _leading_text(expression.func.value, source)
    return None


def _is_error_text(expression: ast.expr, source: SourceText) -> bool:
    text = _leading_text(expression, source)
    return text is not None and ERROR_TEXT.match(text) is not None


def _builds_error(expression: ast.expr) -> bool:
    call = expression.value if type(expression) is ast.Await else expression
    while type(call) is ast.Call and type(call.func) is ast.Attribute and type(call.func.value) is ast.Call:
        call = call.func.value
    if type(call) is not ast.Call:
        return False
    return "error" in (_dotted_name(call.func) or "").rpartition(".")[2].lower()


def _is_error_dict(node: ast.Dict, source: SourceText) -> bool:
    return any(
        key is not None and _marks_an_error(_string_value(key, source), value, source)
        for key, value in zip(node.keys, node.values, strict=True)
    )


def _marks_an_error(key: str | None, value: ast.expr, source: SourceText) -> bool:
    if key in ERROR_KEYS and not _is_empty(value, source):
        return True
    if key == "status" and (_string_value(value, source) or "").lower() == "error":
        return True
    return key in FAILURE_FLAG_KEYS and _name_of(value) == "False"


def _is_empty(node: ast.expr, source: SourceText) -> bool:
    """``error_payloads._is_empty``: an error key's value that says "no error"."""
    if type(node) is ast.Constant:
        value = node.value
        if value is None or value is False:
            return True
        if value is True:
            return False
        if type(value) is int:
            return bool(value == 0)
    elif type(node) is ast.List or type(node) is ast.Tuple or type(node) is ast.Set:
        return not node.elts
    elif type(node) is ast.Dict:
        return not node.keys
    return _string_value(node, source) == ""


def _is_failure_answer(value: ast.expr, source: SourceText) -> bool:
    return (
        _is_error_text(value, source)
        or _builds_error(value)
        or (type(value) is ast.Dict and _is_error_dict(value, source))
    )


def _error_tested(test: ast.expr, source: SourceText) -> set[str]:
    """``error_payloads.error_tested``."""
    if type(test) is ast.BoolOp and type(test.op) is ast.And:
        found: set[str] = set()
        for value in test.values:
            found |= _error_tested(value, source)
        return found
    if type(test) is ast.Compare and len(test.ops) == 1 and type(test.ops[0]) is ast.In:
        left, comparator = test.left, test.comparators[0]
        name = _name_of(comparator)
        if name is not None and _string_value(left, source) in ERROR_KEYS:
            return {name}
        return set()
    key: ast.expr | None
    if type(test) is ast.Call and type(test.func) is ast.Attribute and test.func.attr == "get":
        holder = test.func.value
        key = _unstarred(_arguments(test)[0]) if _argument_count(test) else None
    elif type(test) is ast.Subscript:
        elements = _subscript_elements(test, source)
        if len(elements) != 1 or type(elements[0]) is ast.Slice:
            return set()
        holder, key = test.value, elements[0]
    else:
        return set()
    name = _name_of(holder)
    if name is not None and _string_value(key, source) in ERROR_KEYS:
        return {name}
    return set()


def _answer_checked(test: ast.expr, source: SourceText) -> set[str]:
    """``error_payloads.answer_checked``."""
    if type(test) is ast.NamedExpr:
        test = test.value
    names = _error_tested(test, source)
    if type(test) is ast.Call and _names_errors(_dotted_name(test.func)):
        for argument in _arguments(test):
            if _keyword_of(argument) is None:  # positional, `*x` and `**x`
                name = _name_of(_unstarred(argument))
                if name is not None:
                    names.add(name)
    return names


def _translator_called(expression: ast.expr, translators: Mapping[str, object]) -> str | None:
    """``catching.translator_called``."""
    if type(expression) is ast.Call and type(expression.func) is ast.Name and expression.func.id in translators:
        return expression.func.id
    return None


def _block_own_nodes(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """``own_nodes`` of a LibCST block, in its order: the last statement's nodes first (the
    block's, itself no `ast` node, listed last child first)."""
    for statement in reversed(statements):
        if type(statement) not in _DEFINITIONS:
            yield from own_nodes(statement)


_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
# Statements that are no small statement of LibCST's (one on a line of its own).
_COMPOUND = frozenset(
    {
        ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, *((ast.TryStar,) if sys.version_info >= (3, 11) else ()),
        ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match,
    }
)  # fmt: skip


# -- the collector ----------------------------------------------------------------------------
class AstHandlerFactsCollector:
    """Collects, during the `ast` walk, the raw facts handler detection needs
    (``HandlerFactsCollector``'s tables). ``text`` is the module's (``SourceText``)."""

    def __init__(
        self,
        scopes: Frames,
        guards_of: Callable[[ast.AST], Guards] | None = None,
        translators: Mapping[str, object] | None = None,
        *,
        text: str,
    ) -> None:
        self._scopes = scopes
        self._guards_of = guards_of
        self.source = SourceText(text)
        self._open_trys = 0
        self._translators = translators if translators is not None else {}
        self._translating_withs: list[bool] = []
        self.super_registration_wrappers: dict[str, list[ast.expr]] = {}
        self.super_dispatch_guards: dict[str, list[str]] = {}
        self._projected: set[int] = set()
        self.functions: dict[str, FunctionInfo] = {}  # their nodes are `ast`'s, their types say LibCST's
        self.contents: dict[tuple[str | None, str], list[ast.expr]] = {}
        self.message_branches: list[tuple[str, str | None, str, list[str]]] = []
        # Per class: its positional bases' expressions (LibCST's `Arg.value`: a starred base's value).
        self.class_bases: dict[str, list[ast.expr]] = {}
        self.bindings: list[tuple[str | None, str, ast.expr, bool]] = []
        self.registrations: list[_Registration] = []  # their calls are `ast.Call`s
        self.module_calls: list[str] = []
        self.aliases: dict[tuple[str | None, str], list[ast.expr]] = {}
        self.attribute_parameters: list[tuple[str | None, str, str, str]] = []
        self.parameter_stores: set[str] = set()
        self.loop_sources: dict[tuple[str | None, str], list[str]] = {}
        self.parameter_containers: dict[str, str] = {}
        self.returned_tables: dict[str, list[str]] = {}
        self.returned_dicts: dict[str, list[ast.expr]] = {}
        self.collected: dict[tuple[str | None, str], list[ast.expr]] = {}
        self.registry_tables: dict[str, list[ast.expr]] = {}
        self.looked_up: set[tuple[str | None, str]] = set()
        self.table_lookups: dict[tuple[str | None, str], list[str]] = {}

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        key = self._scopes.qualname_for(node.name)
        class_key = _nearest_class(self._scopes)
        info = self.functions.get(key)
        # FunctionInfo's fields say LibCST's nodes: the twin's are `ast`'s (the decorators, their
        # expressions: LibCST's `Decorator.decorator`).
        if info is None:
            info = self.functions[key] = FunctionInfo(key, tuple(node.decorator_list), class_key)  # type: ignore[arg-type]
        else:  # a redefinition: keep both definitions' decorators
            info.decorators = (*info.decorators, *node.decorator_list)  # type: ignore[arg-type]
        if node.returns is not None:
            info.returns = node.returns  # type: ignore[assignment]
        arguments = node.args
        for param in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            info.parameters[param.arg] = param.annotation  # type: ignore[assignment]

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.class_bases[self._scopes.qualname_for(node.name)] = [
            base.value if type(base) is ast.Starred else base for base in node.bases
        ]

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._assigned(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        name = _dotted_name(node.target)
        if name is None:
            return
        if node.value is not None:
            self._assigned(node.target, node.value)
        frames = self._scopes.frames
        if frames and frames[-1].kind == "class":
            self.bindings.append((frames[-1].qualname, f"self.{name}", node.annotation, True))
        else:
            self.bindings.append((*self._binding_scope(name), node.annotation, True))

    def _binding_scope(self, target: str) -> tuple[str | None, str]:
        if target.startswith("self."):
            return _nearest_class(self._scopes), target
        return self._scopes.current_function, target

    def _assigned(self, target: ast.expr, value: ast.expr) -> None:
        function = self._scopes.current_function
        if type(target) is ast.Tuple and (type(value) is ast.Call or type(value) is ast.Await):
            # `ok, message = check(path)`: each name carries part of what the call returns.
            call = value.value if type(value) is ast.Await else value
            for element in target.elts:
                element_name = _name_of(_unstarred(element))  # `*rest`: LibCST's element holds the name
                if element_name is not None and type(call) is ast.Call:
                    self.aliases.setdefault((function, element_name), []).append(call)
            return
        if type(target) is ast.Subscript:
            self._stores_first_parameter([value], _dotted_name(_table_of(target)))
            held = _name_of(target.value)
            if held is not None:  # `payload["mata"] = await session.call(...)`
                self.contents.setdefault((function, held), []).append(value)
        elif type(target) is ast.Name and type(value) is ast.Dict:
            self.contents.setdefault((function, target.id), []).append(value)
        elif type(target) is ast.Attribute and _name_of(target.value) is not None:
            self._stores_first_parameter([target.value])  # `function.__tool__ = ...`
        name = _dotted_name(target)
        if name is None:
            return
        if type(value) is ast.Await:
            value = value.value
        if type(target) is ast.Name and (
            type(value) is ast.Subscript
            or (type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr == "get")
        ):
            self.looked_up.add((function, name))
            container = _dotted_name(_table_of(value) if type(value) is ast.Subscript else value.func.value)  # type: ignore[union-attr]
            if container is not None:
                self.table_lookups.setdefault((function, name), []).append(container)
        if type(value) is ast.Call:
            self.bindings.append((*self._binding_scope(name), value.func, False))
        value_name = _name_of(value)
        if name.startswith("self.") and value_name is not None and function in self.functions:
            if value_name in self.functions[function].parameters:
                self.attribute_parameters.append((_nearest_class(self._scopes), name, value_name, function))
        elif name.startswith("self.") and type(value) is ast.Attribute and function in self.functions:
            holder = _name_of(value.value)
            if holder is not None and holder in self.functions[function].parameters:
                # `self.mcp = server.mcp`: what the object the parameter holds keeps there
                held = f"{holder}{HELD}{value.attr}"
                self.attribute_parameters.append((_nearest_class(self._scopes), name, held, function))
        if type(target) is not ast.Name:
            return
        if (
            value_name is not None
            or type(value) in _ALIASED
            or (type(value) is ast.JoinedStr and self.source.one_token(value))  # LibCST's `FormattedString`
        ):
            self.aliases.setdefault((function, name), []).append(value)
        if type(value) in _TABLES and function is None:
            # `TOOLS = {"ListIndexTool": {"function": list_indices, ...}}`, `[FunctionTool(f), ...]`
            tools = list(_table_functions(value, self.source))
            if tools:
                self.registry_tables.setdefault(name, []).extend(tools)
        if type(value) is ast.Dict:
            # `HANDLERS = {"x": handle_x}`: `HANDLERS[name](...)` may call any value.
            self.aliases.setdefault((function, f"{name}[]"), []).extend(_table_values(value))
        elif type(value) is ast.DictComp:
            self.aliases.setdefault((function, f"{name}[]"), []).append(value)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        target, iterated = node.target, node.iter
        if type(target) is not ast.Name:
            return
        key = (self._scopes.current_function, target.id)
        if type(iterated) is ast.List or type(iterated) is ast.Tuple or type(iterated) is ast.Set:
            # `for fn in (a, b): X.add_tool(fn)`: the loop variable stands for each element.
            self.aliases.setdefault(key, []).extend(_unstarred(element) for element in iterated.elts)
        else:
            source = _dotted_name(iterated)
            if source is not None:  # `for tool in read_tools:`: an element of that list
                self.loop_sources.setdefault(key, []).append(source)

    visit_AsyncFor = visit_For

    def visit_Return(self, node: ast.Return) -> None:
        info = self.functions.get(self._scopes.current_function or "")
        if info is None or node.value is None:
            return
        item = node.value
        if type(item) is ast.Dict or type(item) is ast.DictComp:
            self.returned_dicts.setdefault(info.key, []).append(item)
        # `return TOOLS[name]`, `return TOOLS.get(name)`: an item of a registry
        table = None
        if type(item) is ast.Subscript:
            table = _dotted_name(_table_of(item))
        elif type(item) is ast.Call and type(item.func) is ast.Attribute and item.func.attr == "get":
            table = _dotted_name(item.func.value)
        if table is not None:
            self.returned_tables.setdefault(info.key, []).append(table)
        info.returned_values.append(item)  # type: ignore[arg-type]  # `ast`'s node (FunctionInfo says LibCST's)
        callees, names = _carried_values(item)
        info.returned_calls.extend(callees)
        info.returned_names.extend(names)
        if type(item) is ast.Call and (_dotted_name(item.func) or "").rpartition(".")[2][:1].isupper():
            # `return ToolDefinition(fn=fn, ...)`: a definition built around the decorated function.
            self._stores_first_parameter([value for value in _argument_values(item) if _name_of(value) is not None])

    def _stores_first_parameter(self, values: Iterable[ast.expr], container: str | None = None) -> None:
        function = self._scopes.current_function
        info = self.functions.get(function or "")
        if info is None:
            return
        first = next((name for name in info.parameters if name not in ("self", "cls")), None)
        if first is None:
            return
        if self._carries_parameter(values, first, info.key):
            self.parameter_stores.add(info.key)
            if container is not None:
                self.parameter_containers.setdefault(info.key, container)

    def _carries_parameter(self, values: Iterable[ast.expr | str], first: str, function: str) -> bool:
        def stands_for(name: str) -> list[ast.expr | str]:
            nested = self.functions.get(f"{function}.<locals>.{name}")
            callees = [callee for callee in nested.calls if "." not in callee] if nested is not None else []
            return [*self.aliases.get((function, name), ()), *callees]

        return leads_to(values, first, _cst_name, _cst_parts, stands_for)

    def visit_If(self, node: ast.If) -> None:
        source = self.source
        info = self.functions.get(self._scopes.current_function or "")
        if info is not None:
            tested = _answer_checked(node.test, source)
            info.error_tested.update(tested)
            if _raises(node.body, source):
                info.checked_answers.update(tested)
        name = _emptiness_tested(node.test, source)
        if info is not None and name is not None and _answers(node.body, source):
            info.answered_empties.append(name)
        message = _message_tested(node.test, source)
        if info is not None and message is not None:
            callees = [
                callee
                for inner in _block_own_nodes(node.body)
                if type(inner) is ast.Call
                for callee in [_callee(inner.func)]
                if callee is not None
            ]
            self.message_branches.append((info.key, info.class_key, message, callees))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if type(node.value) is ast.BoolOp:
            self._projected.add(id(node.value))

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if type(node.value) is ast.BoolOp:
            self._projected.add(id(node.value))

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        # LibCST nests `a or b or c` to the left, one operation per `or`: only the innermost,
        # `a or b`, has an operand for its left; it is the whole one (what an item is read
        # of) when it is the only one.
        info = self.functions.get(self._scopes.current_function or "")
        if info is None or type(node.op) is not ast.Or or not _is_empty_literal(node.values[1], self.source):
            return
        if len(node.values) == 2 and id(node) in self._projected:
            return  # only an item of it is read, and its absence may well be checked
        left = node.values[0]
        if type(left) is ast.Await:
            left = left.value
        if type(left) is ast.Call:
            callee = _callee(left.func)
            if callee is not None:
                info.coalesced_calls.append(callee)
        else:
            name = _name_of(left)
            if name is not None:
                info.coalesced_names.append(name)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if type(node.target) is ast.Name and type(node.op) is ast.Add:
            self.collected.setdefault((self._scopes.current_function, node.target.id), []).append(node.value)

    def visit_Try(self, node: ast.Try) -> None:
        self._open_trys += 1

    def leave_Try(self, node: ast.Try) -> None:
        self._open_trys -= 1

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        translating = bool(self._translators) and any(
            _translator_called(item.context_expr, self._translators) is not None for item in node.items
        )
        self._translating_withs.append(translating)
        self._open_trys += translating

    def leave_With(self, node: ast.With | ast.AsyncWith) -> None:
        self._open_trys -= self._translating_withs.pop()

    visit_AsyncWith = visit_With
    leave_AsyncWith = leave_With

    def visit_Call(self, node: ast.Call) -> None:
        function = self._scopes.current_function
        func = node.func
        values = _argument_values(node)
        if function is not None and _is_super_registration(node):
            self.super_registration_wrappers.setdefault(function, []).extend(
                value.func for value in values if type(value) is ast.Call
            )
        if function is not None and _is_super_call(node, SERVER_DISPATCH_METHODS):
            guards = self._guards_of(node) if self._open_trys and self._guards_of is not None else ()
            self.super_dispatch_guards.setdefault(function, []).append(encode(guards) if guards else "")
        if type(func) is ast.Attribute and func.attr in CONTAINER_ADDERS:
            self._stores_first_parameter(iter(values), _dotted_name(func.value))
            receiver = _name_of(func.value)
            if receiver is not None and func.attr in _COLLECTORS and values:
                self.collected.setdefault((function, receiver), []).append(values[0])
        elif type(func) is ast.Name and func.id == "setattr" and values:
            self._stores_first_parameter([values[0]])
        references = [_callee(func)] + [_callee(value) for value in values]
        message = _message_sent(node, self.source)
        if message is not None and references[0] is not None and function in self.functions:
            self.functions[function].message_calls.append((references[0], message))
        calls = self.functions[function].calls if function in self.functions else self.module_calls
        calls.extend(ref for ref in references if ref is not None)
        if self._open_trys and self._guards_of is not None and function in self.functions:
            guards = self._guards_of(node)
            if guards:
                for callee in dict.fromkeys(references):
                    if callee is not None:
                        self.functions[function].call_guards.setdefault(callee, []).append(encode(guards))
        # `_Registration.call` says LibCST's node: the twin's is `ast`'s.
        self.registrations.append(_Registration(node, function, _nearest_class(self._scopes)))  # type: ignore[arg-type]


_SEQUENCES = frozenset({ast.List, ast.Tuple, ast.Set})
# What a local assigned one of these may stand for (besides a name and a lone f-string).
_ALIASED = frozenset({ast.Name, ast.Attribute, ast.Call, *_SEQUENCES, ast.ListComp, ast.SetComp, ast.GeneratorExp})
_TABLES = frozenset({ast.Dict, ast.Call, *_SEQUENCES})


# -- the helpers that read nodes ------------------------------------------------------------
def _cst_name(value: ast.expr | str) -> str | None:
    """A name as LibCST's tree gives it (``handlers._cst_name``)."""
    return value if isinstance(value, str) else _name_of(value)


def _cst_parts(value: ast.expr) -> list[ast.expr]:
    """A container's elements (a dict's values), a call's arguments (``handlers._cst_parts``)."""
    if type(value) is ast.Dict:
        return [item for key, item in zip(value.keys, value.values, strict=True) if key is not None]
    if type(value) is ast.Tuple or type(value) is ast.List:
        return [element for element in value.elts if type(element) is not ast.Starred]
    if type(value) is ast.Call:
        return _argument_values(value)
    return []


def _is_super_registration(call: ast.Call) -> bool:
    """`super().tool(...)`, `super(AppMCP, self).tool(...)`."""
    return _is_super_call(call, HIGH_LEVEL_DECORATORS)


def _is_super_call(call: ast.Call, methods: Collection[str]) -> bool:
    func = call.func
    return (
        type(func) is ast.Attribute
        and func.attr in methods
        and type(func.value) is ast.Call
        and type(func.value.func) is ast.Name
        and func.value.func.id == "super"
    )


def _table_functions(table: ast.expr, source: SourceText) -> Iterator[ast.expr]:
    """``handlers._table_functions``."""
    if type(table) is ast.Call:
        wrapped = _tool_wrapped(table)
        if wrapped is not None:
            yield wrapped
        return
    if type(table) is ast.List or type(table) is ast.Tuple or type(table) is ast.Set:
        for item in table.elts:
            value = _unstarred(item)
            wrapped = _tool_wrapped(value) if type(value) is ast.Call else None
            if wrapped is not None:
                yield wrapped
        return
    if type(table) is not ast.Dict:
        return
    for key, value in zip(table.keys, table.values, strict=True):
        if key is not None and type(value) is ast.Dict:
            for entry_key, entry in zip(value.keys, value.values, strict=True):
                if (
                    entry_key is not None
                    and type(entry_key) is ast.Constant
                    and entry_key.value in REGISTRY_FUNCTION_KEYS  # evaluated: bytes are in no key set
                    and source.one_token(entry_key)
                    and (type(entry) is ast.Attribute or _name_of(entry) is not None)
                ):
                    yield entry


def _tool_wrapped(call: ast.Call) -> ast.expr | None:
    """The function `FunctionTool(f)` (a class named `...Tool`) wraps."""
    name = (_dotted_name(call.func) or "").rpartition(".")[2]
    # A starred first argument, or a keyword before it, is no function it wraps.
    if not (name.endswith("Tool") and name[:1].isupper() and call.args and type(call.args[0]) is not ast.Starred):
        return None
    first = call.args[0]
    return first if type(first) is ast.Attribute or _name_of(first) is not None else None


def _table_values(table: ast.Dict) -> Iterator[ast.expr]:
    """A dispatch table's values, nested tables included (`OPS[op]["handler"](...)`)."""
    for key, value in zip(table.keys, table.values, strict=True):
        if key is not None:
            if type(value) is ast.Dict:
                yield from _table_values(value)
            else:
                yield value


# Expressions that return something derived from a value, not the value itself.
_PROJECTION_TYPES = frozenset({ast.Subscript, ast.Attribute, ast.Compare, ast.UnaryOp, ast.Lambda})


def _answers(body: Sequence[ast.stmt], source: SourceText) -> bool:
    """``handlers._answers`` of a block: the statement LibCST's reads is the first after the
    colon, the last of a block of small statements, else the first."""
    if source.after_colon(body) or any(type(statement) in _COMPOUND for statement in body):
        first = body[0]
    else:
        first = body[-1]
    if type(first) is not ast.Return or first.value is None:
        return False
    value = first.value
    if type(value) is ast.Tuple:  # `return False, "No header found and creation failed"`
        parts = [_unstarred(element) for element in value.elts]
        if any(_name_of(part) == "False" or _is_error_text(part, source) for part in parts):
            return False
    return not (_is_empty_value(value, source) or _is_failure_answer(value, source))


def _raises(body: Sequence[ast.stmt], source: SourceText) -> bool:
    """The block raises as one of its own statements (LibCST's lines of a block, not the
    statements after a colon)."""
    return not source.after_colon(body) and any(type(statement) is ast.Raise for statement in body)


def _marks_errors(value: ast.expr) -> bool:
    """`CallToolResult(content=..., isError=is_error)`: a result whose error flag is computed."""
    if type(value) is not ast.Call or (_dotted_name(value.func) or "").rpartition(".")[2] != "CallToolResult":
        return False
    flag = next((keyword.value for keyword in value.keywords if keyword.arg == "isError"), None)
    return flag is not None and _name_of(flag) not in ("False", "None", "True")


def _partial_of(value: ast.expr) -> str | None:
    """`partial(generic_tool, name_enum=ToolName)`: the function it binds."""
    if type(value) is not ast.Call or not _argument_count(value):
        return None
    first = _name_of(_unstarred(_arguments(value)[0]))
    if first is None or (_dotted_name(value.func) or "").rpartition(".")[2] != "partial":
        return None
    return first


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _carried_values(value: ast.expr) -> tuple[list[str], list[str]]:
    """``handlers._carried_values``: the callees and locals whose value an expression carries on."""
    callees: list[str] = []
    names: list[str] = []
    pending: list[ast.AST] = [value]
    while pending:
        expression = pending.pop()
        if type(expression) is ast.Await:
            pending.append(expression.value)
        elif type(expression) is ast.Call:
            callee = _callee(expression.func)
            if callee is not None:
                callees.append(callee)
            for argument in _argument_values(expression):
                if type(argument) is ast.Subscript:  # a table's function handed to a runner
                    table_callee = _callee(argument)
                    if table_callee is not None:
                        callees.append(table_callee)
                elif type(argument) is ast.Lambda:
                    # `safe_operation(lambda: tool.execute(...))`: what it runs, it may hand back
                    pending.append(argument.body)
                else:
                    name = _name_of(argument)
                    if name is not None:  # `run_sync(_sync_list)`: a function handed to a runner
                        callees.append(name)
                    elif (
                        type(argument) is ast.Attribute and callee is not None and callee.rpartition(".")[2] in _RUNNERS
                    ):
                        # `asyncio.to_thread(searcher.search, query)`: a bound method it runs
                        method = _callee(argument)
                        if method is not None:
                            callees.append(method)
                    pending.append(argument)
        elif type(expression) is ast.Name:
            names.append(expression.id)
        elif type(expression) is ast.Constant:
            name = _name_of(expression)  # `None`, `True`, `False`: names to LibCST
            if name is not None:
                names.append(name)
        elif type(expression) is ast.IfExp:
            pending.extend((expression.body, expression.orelse))
        elif type(expression) is ast.Subscript and _all_slices(expression):
            pending.append(expression.value)  # `fields[:limit]` is a part of the list, not an item of it
        elif type(expression) not in _PROJECTION_TYPES:
            # In LibCST's walk order: the same names and callees come out in the same order.
            pending.extend(children(expression))
    return callees, names


def _all_slices(node: ast.Subscript) -> bool:
    """Every index of `x[a:b]`, `x[a:b, c:d]` is a slice (a tuple of slices has no parentheses)."""
    index = node.slice
    if type(index) is ast.Slice:
        return True
    return type(index) is ast.Tuple and bool(index.elts) and all(type(element) is ast.Slice for element in index.elts)


def _message_name(literal: ast.Constant, source: SourceText) -> str | None:
    """The literal's text when it can name a message."""
    text = _string_value(literal, source)
    return text if text is not None and _MESSAGE_NAME.fullmatch(text) else None


def _message_sent(call: ast.Call, source: SourceText) -> str | None:
    func = call.func
    if type(func) is not ast.Attribute or not _SENDS.fullmatch(func.attr) or not _argument_count(call):
        return None
    # The first argument written: a keyword or a starred one sends no name.
    if not call.args or type(call.args[0]) is ast.Starred:
        return None
    first = call.args[0]
    if type(first) is not ast.Constant or not _is_string_token(first, source):
        return None
    return _message_name(first, source)


def _message_tested(test: ast.expr, source: SourceText) -> str | None:
    """The message a dispatcher's branch answers: `msg_type == "get_results"`."""
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) is not ast.Eq:
        return None
    sides = (test.left, test.comparators[0])
    literal = next((side for side in sides if _is_string_token(side, source)), None)
    other = next((side for side in sides if not _is_string_token(side, source)), None)
    if type(literal) is not ast.Constant or other is None or _dotted_name(other) is None:
        return None
    return _message_name(literal, source)


def _is_empty_literal(expression: ast.expr, source: SourceText) -> bool:
    """`{}`, `[]`, `""`, `0`, `dict()`: an empty value written out (not `None`, which is no value)."""
    if _name_of(expression) is not None:
        return False
    return _is_empty_value(expression, source)


def _callee(expression: ast.expr) -> str | None:
    """A callee's dotted name; `TABLE[]` / `TABLE[].run` for a dispatch through a dict."""
    if type(expression) is ast.Await:
        expression = expression.value
    if type(expression) is ast.Attribute and type(expression.value) is ast.Subscript:
        table = _dotted_name(_table_of(expression.value))
        return f"{table}[].{expression.attr}" if table else None
    if type(expression) is ast.Subscript:
        table = _dotted_name(_table_of(expression))
        return f"{table}[]" if table else None
    if type(expression) is ast.Attribute:
        # `get_client().post()`: a method of what the getter returns; `get_state().client.post()`:
        # of an attribute of it.
        attributes, value = [expression.attr], expression.value
        while type(value) is ast.Attribute:
            attributes.append(value.attr)
            value = value.value
        if type(value) is ast.Call:
            getter = _dotted_name(value.func)
            return f"{getter}().{'.'.join(reversed(attributes))}" if getter else None
    return _dotted_name(expression)


def _table_of(subscript: ast.Subscript) -> ast.expr:
    """`OPS` in `OPS[op]["handler"]`."""
    value: ast.expr = subscript
    while type(value) is ast.Subscript:
        value = value.value
    return value


def _annotation_types(annotation: ast.expr, source: SourceText) -> Iterator[ast.expr]:
    """The types an annotation names: `X`, `"X"`, `X | None`, `Optional[X]`."""
    if type(annotation) is ast.BinOp:
        yield from _annotation_types(annotation.left, source)
        yield from _annotation_types(annotation.right, source)
    elif type(annotation) is ast.Subscript:
        for element in _subscript_elements(annotation, source):
            if type(element) is not ast.Slice:
                yield from _annotation_types(element, source)
    else:
        yield annotation


def _rows_of(value: ast.expr, source: SourceText) -> str | None:
    """`results.get("rows", [])` / `results.get("items", {})`: the local whose rows it reads."""
    if not (type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr == "get"):
        return None
    holder = _name_of(value.func.value)
    if _argument_count(value) != 2 or holder is None:
        return None
    key, default = _argument_values(value)
    empty = (type(default) is ast.List and not default.elts) or (type(default) is ast.Dict and not default.keys)
    return holder if empty and _is_string_token(key, source) else None


def module_aliases(aliases: dict[tuple[str | None, str], list[ast.expr]], summaries: dict[str, T]) -> dict[str, T]:
    """``handlers.module_aliases``: module-level names bound to summarised functions."""
    found: dict[str, T] = {}
    for (scope, name), values in aliases.items():
        if scope is not None or name in summaries or name.endswith("[]"):
            continue
        for value in values:
            target = _dotted_name(value) if type(value) is ast.Attribute or _name_of(value) is not None else None
            if target in summaries:
                found[name] = summaries[target]
                break
    return found
