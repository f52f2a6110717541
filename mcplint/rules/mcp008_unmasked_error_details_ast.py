"""MCP008 read from CPython's `ast` (the port's twin of ``mcp008_unmasked_error_details``).

Every judgement reads `ast` nodes; the fix is the original's, built from the LibCST call
``context.libcst_of`` gives for the site. Where the trees differ:

- LibCST's tree has a ``Name`` for every identifier (an attribute's name, a definition's, a
  parameter's, an imported module's, a `global`'s, an `except ... as`'s, a pattern's), where
  `ast` has text: the option named anywhere but as a call's (or a class's) keyword is looked
  for in each of those fields.
- ``"a" "b"`` is one constant in `ast` (an f-string in it makes the whole a ``JoinedStr``);
  LibCST visits each plain token as a ``SimpleString`` of its own: the tokens of such a
  literal that may hold the option's or the variable's name are read from the module's text.
- A dict's element is no node in `ast`: a string is the dict's key when it is one of its
  ``keys`` itself.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import tokenize
from ast import literal_eval
from collections.abc import Iterator, Mapping
from typing import Any, cast

import libcst as cst

from mcplint.analysis.error_payloads_ast import string_value
from mcplint.analysis.imports_ast import dotted_name
from mcplint.analysis.source_text import SourceText, is_one_token, opening_quote, token_end
from mcplint.analysis.walk_ast import statement_blocks
from mcplint.rules.base import FixSpec, RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.mcp008_unmasked_error_details import (
    ENV_SETTERS,
    ENV_VAR,
    FACTORIES,
    FALSE_TEXT,
    FASTMCP_SERVERS,
    NOT_SET,
    OPTION,
    SETS_FALSE,
    UnmaskedErrorDetails,
    _masking_fix,
    _nearest_class,
)


class AstUnmaskedErrorDetails(UnmaskedErrorDetails):
    context: AstRuleContext

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._calls: list[tuple[ast.Call, str | None]] = []  # type: ignore[assignment]
        self._base_inits: dict[str, list[tuple[ast.Call, str | None]]] = {}  # type: ignore[assignment]
        self._module: ast.Module | None = None

    # -- the walk ----------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:  # type: ignore[override]
        for alias in node.names:
            self._imported(alias.name.split(".", 1)[0])
            self._names_option(alias)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # type: ignore[override]
        if node.module is not None and not node.level:
            self._imported(node.module.split(".", 1)[0])
        if node.module is not None and OPTION in node.module.split("."):
            self._mentioned()
        for alias in node.names:
            self._names_option(alias)

    def _names_option(self, alias: ast.alias) -> None:
        if OPTION in alias.name.split(".") or alias.asname == OPTION:
            self._mentioned()

    def visit_Module(self, node: ast.Module) -> None:
        self._module = node

    def visit_Call(self, node: ast.Call) -> None:  # type: ignore[override]
        function = self.context.scopes.current_function
        owner = _nearest_class(self.context.scopes.frames)
        if owner is not None and _base_init(node.func) is not None:
            self._base_inits.setdefault(owner, []).append((node, function))
        else:
            self._calls.append((node, function))

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if type(value) is not str or (OPTION not in value and ENV_VAR not in value):
            return  # a token whose value is either name puts it in the whole literal's value
        ancestors: list[ast.AST] = self.context.ancestors  # type: ignore[assignment]
        if ancestors and type(ancestors[-1]) is ast.JoinedStr:
            return  # an f-string's text (LibCST's FormattedStringText): read at the f-string
        if is_one_token(node):
            self._string(value, node, whole=True)
        else:
            for part in _plain_tokens(self.context.source, node):
                self._string(part, node, whole=False)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        ancestors: list[ast.AST] = self.context.ancestors  # type: ignore[assignment]
        if ancestors and type(ancestors[-1]) is ast.FormattedValue:
            return  # a format spec: text of the f-string around it
        # Only a concatenation holds plain tokens (LibCST's SimpleStrings beside the f-strings).
        texts = [part.value for part in node.values if type(part) is ast.Constant and type(part.value) is str]
        if any(OPTION in text or ENV_VAR in text for text in texts):
            for part in _plain_tokens(self.context.source, node):
                self._string(part, node, whole=False)

    def _string(self, value: object, node: ast.expr, whole: bool) -> None:
        if value == ENV_VAR and not self._sets_false_at(node, whole):
            self._handled = True
        elif value == OPTION:
            self._mentioned()

    def visit_Assign(self, node: ast.Assign) -> None:  # type: ignore[override]
        for attribute in node.targets:
            if isinstance(attribute, ast.Attribute) and attribute.attr.lstrip("_") == OPTION:
                self._mentioned()
                if _literal(node.value) not in (False, None):
                    self._handled = True

    # LibCST's names: a call's or a class's keyword (`ast.keyword`) is judged per call.
    def visit_Name(self, node: ast.Name) -> None:  # type: ignore[override]
        if node.id == OPTION:
            self._mentioned()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr == OPTION:
            self._mentioned()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        if node.name == OPTION:  # visited before its body: in the enclosing class
            self._mentioned()

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def visit_arg(self, node: ast.arg) -> None:
        if node.arg == OPTION:
            self._mentioned()

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        if OPTION in node.names:
            self._mentioned()

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name == OPTION:
            self._mentioned()

    def visit_MatchAs(self, node: ast.MatchAs | ast.MatchStar) -> None:
        if node.name == OPTION:
            self._mentioned()

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest == OPTION:
            self._mentioned()

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        if OPTION in node.kwd_attrs:
            self._mentioned()

    def _sets_false_at(self, key: ast.expr, whole: bool) -> bool:
        """The original's ``_sets_false`` for a string (``whole``) or one token of it."""
        ancestors: list[ast.AST] = self.context.ancestors  # type: ignore[assignment]
        child: ast.AST = key
        for ancestor in reversed(ancestors):
            kind = type(ancestor)
            if kind is ast.Dict:
                element = _element_holding(cast(ast.Dict, ancestor), child)
                if element is not None:  # a `key: value` element (not `**other`)
                    element_key, element_value = element
                    return whole and element_key is key and _false_text(element_value, self.context.source)
            elif kind is ast.Call:
                return _sets_false_value(cast(ast.Call, ancestor), self.context.source)
            elif kind is ast.Assign:
                return _false_text(cast(ast.Assign, ancestor).value, self.context.source)
            elif isinstance(ancestor, ast.stmt):
                return False
            child = ancestor
        return False

    # -- after the walk ------------------------------------------------------------------
    def finish(self) -> None:
        servers = self._exported_classes()
        if servers is None:
            return
        for call, function in self._calls:
            built = self._built(call.func, servers)
            if built is not None and self._judged_at(built, servers):
                self._check(call, dotted_name(call.func) or "FastMCP", function)
        for owner, base in servers.items():
            if owner not in self._mentioning_classes and self._judged_at(base, servers):
                for call, function in self._server_inits(owner, servers):
                    self._check(call, _label(call.func), function)

    def _check(self, call: ast.Call, label: str, function: str | None) -> None:  # type: ignore[override]
        problem = _problem(call)
        if problem is not None:
            built = cast(cst.Call, self.context.libcst_of(call))
            self.report(call, f"`{label}(...)` {problem}", function=function, fix=self._fix(call, built))  # type: ignore[arg-type]

    def _fix(self, call: ast.Call, built: cst.Call) -> FixSpec:
        """The original's fix, its replacement made from the call's own text: the fix keeps the
        call's commas and line breaks, which the tree built from `ast` does not hold (a
        replacement printing them would send the module to LibCST's parse). Its lines are
        read as LibCST reads them in the module: past the indentation of the statement's
        line (``_as_in_the_module``)."""
        written = self.context.written(built)
        try:
            parsed = cst.parse_expression(self._as_in_the_module(call, written)) if written is not None else None
        except cst.ParserSyntaxError:
            parsed = None
        if not isinstance(parsed, cst.Call):
            return _masking_fix(built)
        return dataclasses.replace(_masking_fix(parsed), target=built)

    def _as_in_the_module(self, call: ast.Call, written: str) -> str:
        """The call's text with the indentation of its statement's line taken off the lines
        after its first (not inside a string): LibCST's tree of the module holds only what a
        line has past that indentation, and prints that much of it."""
        text = self.context.text
        start = end = self.context.source.offset(_statement_line(self._module, call), 0) if self._module else 0
        while end < len(text) and text[end] in " \t\f":
            end += 1
        indentation = text[start:end]
        if not indentation or "\n" not in written:
            return written
        in_strings = _lines_inside_strings(written)
        # Lines as `ast` and `tokenize` count them (a text with a CR is not on this pipeline).
        return "\n".join(
            line[len(indentation) :] if number not in in_strings and line.startswith(indentation) else line
            for number, line in enumerate(written.split("\n"), start=1)
        )

    def _server_bases(self) -> dict[str, str]:
        classes: dict[str, list[ast.expr]] = self.context.facts.class_bases  # type: ignore[assignment]
        servers: dict[str, str] = {}
        changed = True
        while changed:
            changed = False
            for key, bases in classes.items():
                if key in servers:
                    continue
                for base in bases:
                    built = self._built(base, servers)
                    if built is not None:
                        servers[key] = built
                        changed = True
                        break
        return servers

    def _built(self, expression: ast.expr, servers: dict[str, str]) -> str | None:  # type: ignore[override]
        if type(expression) is ast.Subscript:
            expression = expression.value
        name = dotted_name(expression)
        if name is None:
            return None
        owner, _, method = name.rpartition(".")
        if method in FACTORIES and owner:
            name = owner
        if name in self.context.facts.class_bases:
            return name if name in servers else None
        qualified = self.context.imports.qualify(name)
        if qualified in FASTMCP_SERVERS:
            return qualified
        imported = {name for name, _ in self.context.project.imported_unmasked_classes}
        return qualified if qualified in imported else None

    def _server_inits(self, owner: str, servers: dict[str, str]) -> list[tuple[ast.Call, str | None]]:  # type: ignore[override]
        return [
            (call, function)
            for call, function in self._base_inits.get(owner, [])
            if type(call.func) is ast.Attribute
            and (_base_init(call.func) == "super" or self._built(call.func.value, servers) is not None)
        ]

    def _judged_at(self, server: str, servers: dict[str, str], depth: int = 0) -> bool:
        if server not in servers:
            return True
        if server in self._mentioning_classes or depth > 10:
            return False
        inits = self._server_inits(server, servers)
        if inits and not any(keyword.arg is None for call, _ in inits for keyword in call.keywords):
            return False
        return self._judged_at(servers[server], servers, depth + 1)


def _element_holding(dictionary: ast.Dict, child: ast.AST) -> tuple[ast.expr, ast.expr] | None:
    """The `key: value` element ``child`` is the key or the value of (None in a `**other`)."""
    for key, value in zip(dictionary.keys, dictionary.values, strict=True):
        if key is child or value is child:
            return (key, value) if key is not None else None
    return None


def _plain_tokens(source: SourceText, node: ast.Constant | ast.JoinedStr) -> Iterator[object]:
    """The values of the plain string tokens a concatenated literal is written with (not its
    f-strings' parts, LibCST's ``FormattedString``)."""
    text = source.text
    index, end = source.start(node), source.end(node)
    while index < end:
        char = text[index]
        if char in " \t\f\r\n\\":
            index += 1
        elif char == "#":
            while index < end and text[index] not in "\r\n":
                index += 1
        else:
            quote_at, _ = opening_quote(text, index)
            token_stop = token_end(text, index)
            if "f" not in text[index:quote_at].lower():
                yield literal_eval(text[index:token_stop])
            index = token_stop


def _base_init(func: ast.expr) -> str | None:
    if not (type(func) is ast.Attribute and func.attr == "__init__"):
        return None
    value = func.value
    if type(value) is ast.Call and dotted_name(value.func) == "super":
        return "super"
    return dotted_name(value)


def _label(func: ast.expr) -> str:
    return "super().__init__" if _base_init(func) == "super" else dotted_name(func) or "__init__"


def _problem(call: ast.Call) -> str | None:
    # Positional arguments are neither `**` nor keywords: the keywords decide, in written order.
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        if keyword.arg == OPTION:
            value = _literal(keyword.value)
            if value is False:
                return SETS_FALSE
            if value is not None:
                return None
            break
    return NOT_SET


_UNKNOWN = object()


def _literal(node: ast.expr) -> object:
    """True, False or None written out (names in LibCST's tree), else unknown."""
    if type(node) is ast.Constant:
        value = node.value
        if value is True or value is False or value is None:
            return value
    return _UNKNOWN


def _false_text(node: ast.expr, source: SourceText) -> bool:
    text = string_value(node, source)
    if text is not None:
        return text.strip().lower() in FALSE_TEXT
    return _literal(node) is False


def _sets_false_value(call: ast.Call, source: SourceText) -> bool:
    method = call.func.attr if type(call.func) is ast.Attribute else None
    positional = [arg for arg in call.args if type(arg) is not ast.Starred]
    return method in ENV_SETTERS and len(positional) >= 2 and _false_text(positional[1], source)


def _statement_line(module: ast.Module, node: ast.expr) -> int:
    """The line the innermost statement holding ``node`` starts on (its logical line's first)."""
    found = node.lineno
    block: list[ast.stmt] = module.body
    while block:
        holding = [
            statement for statement in block
            if (statement.lineno, statement.col_offset) <= (node.lineno, node.col_offset)
            and (node.end_lineno or 0, node.end_col_offset or 0) <= (statement.end_lineno or 0, statement.end_col_offset or 0)
        ]  # fmt: skip
        if not holding:
            break
        statement = holding[-1]
        found = statement.lineno
        block = [inner for inner_block in statement_blocks(statement) for inner in inner_block]
    return found


def _lines_inside_strings(text: str) -> set[int]:
    """The lines of ``text`` (from 1) that start inside a string written over several lines."""
    inside: set[int] = set()
    fstring_start = getattr(tokenize, "FSTRING_START", None)  # Python 3.12: an f-string is several tokens
    opened: list[int] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0] + 1, token.end[0] + 1))
            elif fstring_start is not None and token.type == fstring_start:
                opened.append(token.start[0])
            elif fstring_start is not None and token.type == tokenize.FSTRING_END and opened:  # type: ignore[attr-defined]
                inside.update(range(opened.pop() + 1, token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        pass
    return inside
