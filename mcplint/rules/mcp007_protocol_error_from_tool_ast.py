"""MCP007 read from CPython's `ast` (the port's twin of ``mcp007_protocol_error_from_tool``).

Every judgement reads `ast` nodes; the fix, the error message and the anchors are built from
the site's LibCST nodes (``context.libcst_of``), as the original builds them. LibCST reads an
"Unknown tool" message token by token, an f-string's text as written: where `ast` has one
constant for `"a" "b"` or an f-string's value, the twin reads the tokens in the module's text.
"""

from __future__ import annotations

import ast
from ast import literal_eval

import libcst as cst

from mcplint.analysis.exception_flow_ast import bound_name
from mcplint.analysis.imports import ImportTable
from mcplint.analysis.imports_ast import dotted_name, name_text
from mcplint.analysis.source_text import SourceText, opening_quote, token_end
from mcplint.analysis.walk_ast import argument_value, body_nodes, written_arguments
from mcplint.finding import UNSAFE
from mcplint.protocol_codes import CODE_BY_CONSTANT
from mcplint.registry.match import MESSAGE_BY_STANDARD_CODE, site_message
from mcplint.rules.base import FixSpec
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.fix_context_ast import fix_context
from mcplint.rules.mcp002_raw_exception_raise_ast import mentions
from mcplint.rules.mcp007_protocol_error_from_tool import (
    _CATCH_ALL,
    CONSEQUENCES,
    REMEDIES,
    SDK_ERRORS,
    UNKNOWN_TOOL,
    ProtocolErrorFromTool,
    _Raise,
    _says_only_what_failed,
)
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, registry_error_fix


class AstProtocolErrorFromTool(ProtocolErrorFromTool):
    context: AstRuleContext

    def visit_Import(self, node: ast.Import) -> None:  # type: ignore[override]
        for alias in node.names:
            if alias.name.split(".", 1)[0] == "fastmcp":
                self._imports_fastmcp = True

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # type: ignore[override]
        module = node.module if not node.level else None
        if module is not None and module.split(".", 1)[0] == "fastmcp":
            self._imports_fastmcp = True

    def visit_Raise(self, node: ast.Raise) -> None:  # type: ignore[override]
        exc = node.exc
        if exc is None:
            return
        via_local = name_text(exc) is not None  # `None` is a name to LibCST
        is_call = type(exc) is ast.Call
        name = dotted_name(exc.func if is_call else exc)  # type: ignore[attr-defined]
        if name is None or (is_call and _says_unknown_tool(exc, self.context.source)):  # type: ignore[arg-type]
            return
        function = self.context.scopes.current_function
        handlers = self.context.enclosing_try_handlers(node)
        self._pending.append(_Raise(node, name, function, via_local, handlers))  # type: ignore[arg-type]

    def finish(self) -> None:
        libcst_of = self.context.libcst_of
        for pending in self._pending:
            found = self._raised_error(pending)
            if found is None:
                continue
            class_name, stack = found
            if self._caught_locally(pending, class_name):
                continue
            if self._imports_fastmcp:
                stack = "fastmcp"
            fix, message = self._registry_fix(pending.node, pending.function)  # type: ignore[arg-type]
            self.report(
                pending.node,
                f"`{class_name}` raised in a tool: {CONSEQUENCES[stack]}; {REMEDIES[stack]}",
                function=pending.function,
                handler_kinds=frozenset({"tool"}),
                fix=fix,
                error_message=message,
                fix_replaces_class=class_name.rpartition(".")[2],
                anchors=fix_anchors(libcst_of(pending.node)),  # type: ignore[arg-type]
            )

    def _registry_fix(  # type: ignore[override]
        self, node: ast.Raise, function: str | None
    ) -> tuple[FixSpec | None, cst.BaseExpression | None]:
        call = node.exc
        if type(call) is not ast.Call:
            return None, None
        libcst_of = self.context.libcst_of
        clause, annotation = self.context.raise_place(node)  # type: ignore[arg-type]
        caught = bound_name(clause) if clause is not None else None  # type: ignore[arg-type]
        written = _raised_message(call)
        message = site_message(libcst_of(written), function, caught) if written is not None else None  # type: ignore[arg-type]
        if message is None and caught is not None:
            message = site_message(None, function, caught)
        code = _error_code(call, self.context.imports)
        if code in MESSAGE_BY_STANDARD_CODE and message is not None and _says_only_what_failed(message, function):
            message = cst.SimpleString(repr(MESSAGE_BY_STANDARD_CODE[code]))
        site = ErrorSite(
            libcst_of(node),  # type: ignore[arg-type]
            message,
            function,
            libcst_of(clause) if clause is not None else None,  # type: ignore[arg-type]
            hides_cause=written is not None and mentions(written, caught),
            annotation=libcst_of(annotation) if annotation is not None else None,  # type: ignore[arg-type]
        )
        registry = self.context.registry
        by_code = next(
            (
                entry.symbol
                for domain in (registry.domains if registry is not None else ())
                for entry in domain.errors
                if code is not None
                and entry.code == code
                and entry.status != "retired"
                and code not in self.context.assigned_codes
            ),
            None,
        )
        context = fix_context(self.context, node, clause)  # type: ignore[arg-type]
        if by_code is not None:
            return registry_error_fix(context, site, UNSAFE, symbol=by_code), message
        return registry_error_fix(context, site, UNSAFE), message

    def _raised_error(self, pending: _Raise) -> tuple[str, str] | None:
        found = self._sdk_class(pending.name, pending.function)
        if found is not None or not pending.via_local:
            return found
        for value in self.context.facts.aliases.get((pending.function, pending.name), ()):
            if type(value) is ast.Call and not _says_unknown_tool(value, self.context.source):  # type: ignore[comparison-overlap]
                name = dotted_name(value.func)
                found = self._sdk_class(name, pending.function) if name is not None else None
                if found is not None:
                    return found
        return None

    def _sdk_class(self, name: str, function: str | None, depth: int = 0) -> tuple[str, str] | None:
        local = self._local_class(name, function)
        if local is not None:
            if depth > 10:
                return None
            for base in self.context.facts.class_bases[local]:  # the bases' expressions
                base_name = dotted_name(base)  # type: ignore[arg-type]
                found = self._sdk_class(base_name, None, depth + 1) if base_name is not None else None
                if found is not None:
                    return name, found[1]
            return None
        stack = SDK_ERRORS.get(self.context.imports.qualify(name) or "")
        return (name, stack) if stack is not None else None

    def _caught_locally(self, pending: _Raise, class_name: str) -> bool:
        for handlers in pending.handlers:
            handler = next((h for h in handlers if self._catches(h, class_name, pending.function)), None)  # type: ignore[arg-type]
            if handler is not None and not _reraises(handler):  # type: ignore[arg-type]
                return True
        return False

    def _catches(self, handler: ast.ExceptHandler, class_name: str, function: str | None) -> bool:  # type: ignore[override]
        caught_type = handler.type
        if caught_type is None:
            return True
        types = [argument_value(e) for e in caught_type.elts] if type(caught_type) is ast.Tuple else [caught_type]
        raised = self._lineage(class_name, function)
        for expression in types:
            caught = dotted_name(expression)
            if caught is None:
                continue
            if caught in _CATCH_ALL or caught in raised:
                return True
            if self._local_class(caught, function) is None and self.context.imports.qualify(caught) in SDK_ERRORS:
                return True
        return False

    def _lineage(self, class_name: str, function: str | None) -> set[str]:
        lineage = {class_name}
        pending = [(class_name, function)]
        while pending:
            name, scope = pending.pop()
            local = self._local_class(name, scope)
            for base in self.context.facts.class_bases.get(local or "", ()):
                base_name = dotted_name(base)  # type: ignore[arg-type]
                if base_name is not None and base_name not in lineage:
                    lineage.add(base_name)
                    pending.append((base_name, None))
        return lineage


def _error_code(call: ast.Call, imports: ImportTable) -> int | None:
    arguments = written_arguments(call)
    first = argument_value(arguments[0]) if arguments else None
    if type(first) is ast.Call and (dotted_name(first.func) or "").rpartition(".")[2] == "ErrorData":
        arguments = written_arguments(first)
    for position, argument in enumerate(arguments):
        keyword = argument.arg if type(argument) is ast.keyword else None
        # `**kw` is an argument without a keyword to LibCST
        if (keyword is None and position == 0) or keyword == "code":
            return _integer(argument_value(argument), imports)
    return None


def _integer(expression: ast.expr, imports: ImportTable) -> int | None:
    if type(expression) is ast.Constant and type(expression.value) is int:  # not `True`: a name to LibCST
        return expression.value
    if type(expression) is ast.UnaryOp and type(expression.op) is ast.USub:
        value = _integer(expression.operand, imports)
        return -value if value is not None else None
    qualified = imports.qualified_name(expression) or ""  # type: ignore[arg-type]
    if qualified.startswith(("mcp.", "mcp_types.")):
        return CODE_BY_CONSTANT.get(qualified.rpartition(".")[2])
    return None


def _raised_message(call: ast.Call) -> ast.expr | None:
    """``registry_fix.raised_message``: the message of `X("...")`, `McpError(ErrorData(code=...,
    message=...))` or `MCPError(code, message)`."""
    arguments = written_arguments(call)
    nested = [argument_value(a) for a in arguments]
    for candidate in (call, *(value for value in nested if type(value) is ast.Call)):
        candidate_arguments = arguments if candidate is call else written_arguments(candidate)
        for argument in candidate_arguments:
            if type(argument) is ast.keyword and argument.arg == "message":
                return argument.value
        # `*a` and `**kw` are arguments without a keyword to LibCST
        positional = [argument_value(a) for a in candidate_arguments if type(a) is not ast.keyword or a.arg is None]
        if len(positional) >= 2:  # (code, message)
            return positional[1]
        if len(positional) == 1 and not _is_error_data(positional[0]):
            return positional[0]
    return None


def _is_error_data(expression: ast.expr) -> bool:
    return type(expression) is ast.Call and any(keyword.arg is not None for keyword in expression.keywords)


def _says_unknown_tool(call: ast.Call, source: SourceText) -> bool:
    pending: list[ast.expr] = [argument_value(argument) for argument in written_arguments(call)]
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.Constant:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is str and "tool" in value.lower():
                if not getattr(node, "concatenated", False):
                    if UNKNOWN_TOOL.search(value):
                        return True
                elif any(UNKNOWN_TOOL.search(text) for text in _token_texts(node, source)):
                    return True
        elif kind is ast.JoinedStr:
            if any(UNKNOWN_TOOL.search(text) for text in _token_texts(node, source)):
                return True
        elif kind is ast.Call:
            pending.append(node.func)  # type: ignore[attr-defined]
            pending.extend(argument_value(argument) for argument in written_arguments(node))  # type: ignore[arg-type]
        elif kind is ast.BinOp:
            pending.append(node.left)  # type: ignore[attr-defined]
            pending.append(node.right)  # type: ignore[attr-defined]
    return False


# -- string tokens as LibCST reads them ---------------------------------------------------
def _token_texts(node: ast.expr, source: SourceText) -> list[str]:
    """The text of each string token of a literal as LibCST's ``_says_unknown_tool`` reads it:
    a plain string's value (none for bytes), an f-string's text as written with `{}` for each
    field (LibCST's ``FormattedStringText`` parts are the source's)."""
    text = source.text
    start, end = source.start(node), source.end(node)
    written = text[start:end].lower()
    if "tool" not in written and "\\" not in written:
        return []  # not in any token's text: an escape aside, the regular expression's words are written
    found = []
    index = start
    while index < end:
        quote_at, quote = opening_quote(text, index)
        close = token_end(text, index)
        if "f" in text[index:quote_at].lower():
            found.append(_fstring_text(text, quote_at + len(quote), close - len(quote)))
        else:
            value = literal_eval(text[index:close])
            if type(value) is str:
                found.append(value)
        index = _next_token(text, close, end)
    return found


def _next_token(text: str, index: int, end: int) -> int:
    """Past the blanks, line continuations and comments between two string tokens."""
    while index < end:
        char = text[index]
        if char == "#":
            line_end = text.find("\n", index)
            index = end if line_end == -1 else line_end
        elif char in " \t\f\r\n\\":
            index += 1
        else:
            break
    return index


def _fstring_text(text: str, index: int, stop: int) -> str:
    """An f-string body's text as LibCST's parts read (``ast_cst._fstring_parts``): the text
    between fields as written (`{{` kept), `{}` for each field."""
    pieces = []
    literal_start = index
    while index < stop:
        char = text[index]
        if (char == "{" or char == "}") and text.startswith(char * 2, index):
            index += 2
        elif char == "{":
            pieces.append(text[literal_start:index])
            pieces.append("{}")
            index = _field_end(text, index, stop)
            literal_start = index
        else:
            index += 2 if char == "\\" else 1
    pieces.append(text[literal_start:stop])
    return "".join(pieces)


def _field_end(text: str, open_brace: int, stop: int) -> int:
    """Past the `}` that closes the field opened at ``open_brace`` (``ast_cst._fstring_expression``)."""
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
                return stop
            index = close
        elif depth == 0 and (char == ":" or (char == "!" and text[index + 1] != "=")):
            break
        index += 1
    if index < stop and text[index] == "!":
        index += 2
    if index < stop and text[index] == ":":
        index += 1
        while index < stop and text[index] != "}":  # the format spec, its own fields inside
            if text[index] == "{":
                index = _field_end(text, index, stop)
            else:
                index += 2 if text[index] == "\\" else 1
    return index + 1


def _reraises(handler: ast.ExceptHandler) -> bool:
    bound = handler.name
    for node in body_nodes(handler.body):
        if type(node) is ast.Raise:
            exc = node.exc
            if exc is None or (bound is not None and type(exc) is ast.Name and exc.id == bound):
                return True
    return False
