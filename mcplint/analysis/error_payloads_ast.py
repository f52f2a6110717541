"""What an ad-hoc error payload looks like when a handler returns it, read from CPython's
`ast` (the port's twin of ``error_payloads.py``, which says what the payloads are).

`ast` gives a string literal's value, but the original reads tokens: ``"a" "b"`` is no
string value there (a ``ConcatenatedString``), a concatenation's text starts with its
first token's, and an f-string's leading text is its source as written (``\\n``
unescaped). The functions that may read a literal take the module's text
(``SourceText``) to tell them apart.
"""

from __future__ import annotations

import ast
from ast import literal_eval
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from mcplint.analysis.error_payloads import (
    _ERROR_MODEL_NAME,
    ERROR_KEYS,
    ERROR_TEXT,
    FAILURE_FLAG_KEYS,
    JSON_SERIALISERS,
    MCP_PACKAGES,
    MODEL_DUMPERS,
    PASS_THROUGH,
    _is_mcp_type,
    _names_errors,
    passed_through,
    through_kind,
)
from mcplint.analysis.imports_ast import AstImportTable, dotted_name, name_text
from mcplint.analysis.source_text import SourceText, opening_quote, token_end
from mcplint.analysis.walk_ast import own_nodes

__all__ = [
    "ERROR_KEYS",
    "FAILURE_FLAG_KEYS",
    "JSON_SERIALISERS",
    "MCP_PACKAGES",
    "MODEL_DUMPERS",
    "PASS_THROUGH",
    "ErrorPayload",
    "HelperKind",
    "LocalValues",
    "SourceText",
    "answer_checked",
    "builds_error",
    "call_argument",
    "caught_texts",
    "error_item_set",
    "error_payloads",
    "error_tested",
    "is_error_dict",
    "is_error_text",
    "is_failure_answer",
    "leading_text",
    "passed_through",
    "string_value",
    "text_put_in_content",
    "through_kind",
]


@dataclass(frozen=True)
class ErrorPayload:
    node: ast.AST
    kind: str  # "dict" or "text"


LocalValues = Callable[[str], Sequence[ast.expr]]
#: The payload kind a call to a known error helper returns (`tool_error(e)`), PASS_THROUGH for
#: a function that returns its first argument serialised (`dump_json(payload)`), or None.
HelperKind = Callable[[ast.Call], "str | None"]


def _is_false(node: ast.AST | None) -> bool:
    return type(node) is ast.Constant and node.value is False


def _first_argument(call: ast.Call) -> ast.expr | None:
    """The value of a call's first argument as written, however passed (`*a`, `k=v`, `**kw`)."""
    args, keywords = call.args, call.keywords
    if not args:
        return keywords[0].value if keywords else None
    first = args[0]
    if type(first) is not ast.Starred:
        return first
    # `f(key=1, *rest)`: `ast` lists a keyword apart even when it comes first.
    if keywords and (keywords[0].lineno, keywords[0].col_offset) < (first.lineno, first.col_offset):
        return keywords[0].value
    return first.value


def _sole_argument(call: ast.Call) -> ast.expr | None:
    """The value of a call's only argument, however passed (None: not one argument)."""
    args, keywords = call.args, call.keywords
    if len(args) + len(keywords) != 1:
        return None
    if args:
        return args[0].value if type(args[0]) is ast.Starred else args[0]
    return keywords[0].value


def call_argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """The argument a call passes to a parameter, by keyword or by position."""
    for argument in call.keywords:
        if argument.arg == keyword:
            return argument.value
    positional = [argument for argument in call.args if type(argument) is not ast.Starred]
    return positional[position] if 0 <= position < len(positional) else None


def _argument_at(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The argument a pass-through helper hands back; its first argument, however passed,
    for a plain PASS_THROUGH."""
    if position == 0 and not name:
        return _first_argument(call)
    return call_argument(call, position, name)


def error_payloads(
    expression: ast.expr,
    source: SourceText,
    imports: AstImportTable,
    local_values: LocalValues,
    resolving: frozenset[str] = frozenset(),
    helper_kind: HelperKind | None = None,
) -> Iterator[ErrorPayload]:
    """The error payloads a returned expression carries to the client.

    ``resolving`` holds the locals being looked through, so that
    ``x = [x, ...]`` does not loop.
    """
    if type(expression) is ast.Dict:
        if is_error_dict(expression, source) or any(
            # `{**error_payload(e, hint=...), "timed_out": False}`: an error dict, extended
            key is None
            and any(
                payload.kind == "dict"
                for payload in error_payloads(value, source, imports, local_values, resolving, helper_kind)
            )
            for key, value in zip(expression.keys, expression.values, strict=True)
        ):
            yield ErrorPayload(expression, "dict")
    elif type(expression) is ast.List:  # a content list; `(False, "Error")` is a status pair
        for element in expression.elts:
            value = element.value if type(element) is ast.Starred else element
            yield from error_payloads(value, source, imports, local_values, resolving, helper_kind)
    elif type(expression) is ast.ListComp:  # `[r if ok(r) else f"ERROR: {r}" for r in results]`
        yield from error_payloads(expression.elt, source, imports, local_values, resolving, helper_kind)
    elif type(expression) is ast.IfExp:
        yield from error_payloads(expression.body, source, imports, local_values, resolving, helper_kind)
        yield from error_payloads(expression.orelse, source, imports, local_values, resolving, helper_kind)
    elif type(expression) is ast.BoolOp and type(expression.op) is ast.Or:
        # `return article or {"exists": False, "error": "..."}`: the fallback is the answer
        # (`ast` lists `a or b or c` in one node, LibCST nests them: the same order).
        for value in expression.values:
            yield from error_payloads(value, source, imports, local_values, resolving, helper_kind)
    elif type(expression) is ast.Name:
        # `None`, `True`, `False` are names to LibCST, looked up in vain: no local has them.
        name = expression.id
        if name not in resolving:
            for value in local_values(name):
                yield from error_payloads(value, source, imports, local_values, resolving | {name}, helper_kind)
    elif type(expression) is ast.Call:
        yield from _call_payloads(expression, source, imports, local_values, resolving, helper_kind)
    elif type(expression) is ast.Await:  # `return await create_error_response(ctx, ...)`
        yield from error_payloads(expression.value, source, imports, local_values, resolving, helper_kind)
    elif is_error_text(expression, source):
        yield ErrorPayload(expression, "text")


def _call_payloads(
    call: ast.Call,
    source: SourceText,
    imports: AstImportTable,
    local_values: LocalValues,
    resolving: frozenset[str],
    helper_kind: HelperKind | None,
) -> Iterator[ErrorPayload]:
    qualified = imports.qualified_name(call.func) or ""
    if qualified in JSON_SERIALISERS and (call.args or call.keywords):
        first = _first_argument(call)
        assert first is not None
        yield from error_payloads(first, source, imports, local_values, resolving, helper_kind)
        return
    kind = helper_kind(call) if helper_kind is not None else None
    carried = passed_through(kind)
    if carried is not None:  # `return dump_json({...})`: the project's own serialiser, or envelope
        argument = _argument_at(call, *carried)
        if argument is not None:
            yield from error_payloads(argument, source, imports, local_values, resolving, helper_kind)
        return
    if kind is not None:  # `return tool_error(e)`: a function that builds the payload
        yield ErrorPayload(call, kind)
        return
    if _is_mcp_type(qualified, "TextContent"):
        text = _keyword(call, "text")
        if text is None:
            return
        flag = _keyword(call, "error")  # `TextContent(..., error=True)`: not a field; the result is a success
        if _is_error_text_value(text, source, local_values) or (type(flag) is ast.Constant and flag.value is True):
            yield ErrorPayload(call, "text")
        else:  # TextContent(text=json.dumps({"error": ...}))
            yield from error_payloads(text, source, imports, local_values, resolving, helper_kind)
        return
    if _is_mcp_type(qualified, "CallToolResult") or _is_mcp_type(qualified, "ToolResult"):
        flag = _keyword(call, "isError") or _keyword(call, "is_error")
        if flag is not None and not _is_false(flag):
            return  # the correct form: an isError result
        content = _keyword(call, "content")
        if content is not None:
            yield from error_payloads(content, source, imports, local_values, resolving, helper_kind)
        return
    if is_error_text(call, source):
        yield ErrorPayload(call, "text")
    elif _is_failure_model(call, qualified, source):
        yield ErrorPayload(call, "dict")
    elif type(call.func) is ast.Attribute and call.func.attr in MODEL_DUMPERS:
        # `MCPResponse(success=False, ...).model_dump()`, or a local holding one
        # (`response = ErrorResponse(...)`; `return response.model_dump()`)
        holder = call.func.value
        models = local_values(holder.id) if type(holder) is ast.Name else [holder]
        for inner in models:
            if type(inner) is ast.Call and _is_failure_model(inner, imports.qualified_name(inner.func) or "", source):
                yield ErrorPayload(inner, "dict")
                break


def _is_failure_model(call: ast.Call, qualified: str, source: SourceText) -> bool:
    """`Envelope(success=False, ...)`, `Response(status="error", ...)`, `ErrorResponse(...)`:
    a result object (or `dict(...)`) that says it failed, of a class that is not the SDK's."""
    if qualified.split(".", 1)[0] in MCP_PACKAGES:
        return False
    if _ERROR_MODEL_NAME.fullmatch((dotted_name(call.func) or "").rpartition(".")[2]):
        return True
    for argument in call.keywords:
        key, value = argument.arg, argument.value
        if key in FAILURE_FLAG_KEYS and _is_false(value):
            return True
        if key == "status" and (string_value(value, source) or "").lower() == "error":
            return True
    return False


def _is_error_text_value(expression: ast.expr, source: SourceText, local_values: LocalValues) -> bool:
    if type(expression) is ast.Name:
        return any(is_error_text(value, source) for value in local_values(expression.id))
    return is_error_text(expression, source)


def text_put_in_content(value: ast.expr, imports: AstImportTable) -> ast.expr | None:
    """X of `[TextContent(type="text", text=X)]`, `TextContent(text=str(X))`: the text a
    response helper hands on as the whole result (None: not that shape)."""
    if (type(value) is ast.List or type(value) is ast.Tuple) and len(value.elts) == 1:
        value = value.elts[0]
        if type(value) is ast.Starred:
            value = value.value
    if type(value) is not ast.Call:
        return None
    if not _is_mcp_type(imports.qualify(dotted_name(value.func) or "") or "", "TextContent"):
        return None
    text = _keyword(value, "text")
    if type(text) is ast.Call and dotted_name(text.func) == "str":
        sole = _sole_argument(text)
        if sole is not None:
            text = sole
    return text


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    for argument in call.keywords:
        if argument.arg == name:
            return argument.value
    return None


# The keys `_marks_an_error` reads: any other key's text need not be read from the source.
_MARKING_KEYS = ERROR_KEYS | FAILURE_FLAG_KEYS | {"status"}


def is_error_dict(node: ast.Dict, source: SourceText) -> bool:
    for key, value in zip(node.keys, node.values, strict=True):
        if (
            type(key) is ast.Constant
            and key.value in _MARKING_KEYS
            and _marks_an_error(string_value(key, source), value, source)
        ):
            return True
    return False


def _marks_an_error(key: str | None, value: ast.expr, source: SourceText) -> bool:
    """An item that says the dict is an error: an error key with a value, `"status": "error"`,
    `"success": False` / `"ok": False`."""
    if key in ERROR_KEYS and not _is_empty(value, source):
        return True
    if key == "status" and (string_value(value, source) or "").lower() == "error":
        return True
    return key in FAILURE_FLAG_KEYS and _is_false(value)


def is_failure_answer(value: ast.expr, source: SourceText) -> bool:
    """What a branch returns says the call failed: error text, an error dict, or what an
    error-named function builds (`return services_error("NO_ROWS").tool_result()`)."""
    return (
        is_error_text(value, source)
        or builds_error(value)
        or (type(value) is ast.Dict and is_error_dict(value, source))
    )


def builds_error(expression: ast.expr) -> bool:
    """A call of a function named for an error (`create_error_response(...)`), also through the
    methods of what it returns (`services_error("NOT_FOUND").tool_result()`): an answer that
    fails the call, whatever it looks like."""
    call = expression.value if type(expression) is ast.Await else expression
    while type(call) is ast.Call and type(call.func) is ast.Attribute and type(call.func.value) is ast.Call:
        call = call.func.value
    if type(call) is not ast.Call:
        return False
    return "error" in (dotted_name(call.func) or "").rpartition(".")[2].lower()


def is_error_text(expression: ast.expr, source: SourceText) -> bool:
    text = leading_text(expression, source)
    return text is not None and ERROR_TEXT.match(text) is not None


def leading_text(expression: ast.expr, source: SourceText) -> str | None:
    """The constant text a string-building expression starts with, if any."""
    if type(expression) is ast.Constant:
        value = expression.value
        if type(value) is not str:
            return None
        text, start = source.text, source.start(expression)
        first_end = token_end(text, start)
        if first_end == source.end(expression):
            return value
        return _plain_token_value(text, start)  # `"Error: " "..."`: the first token's
    if type(expression) is ast.JoinedStr:
        return _leading_fstring_text(source.text, source.start(expression))
    if type(expression) is ast.BinOp and (type(expression.op) is ast.Add or type(expression.op) is ast.Mod):
        return leading_text(expression.left, source)
    if type(expression) is ast.Call and type(expression.func) is ast.Attribute and expression.func.attr == "format":
        return leading_text(expression.func.value, source)
    return None


def _leading_fstring_text(text: str, start: int) -> str | None:
    """The leading text of the string tokens starting at ``start``, one an f-string: the first
    token's value if it is a plain string, an f-string's text before its first field as
    written (escapes unread), None if that is empty (as LibCST's first part is the field)."""
    quote_at, quote = opening_quote(text, start)
    if "f" not in text[start:quote_at].lower():
        return _plain_token_value(text, start)
    body = index = quote_at + len(quote)
    # Where the builder of LibCST's tree (ast_cst._fstring_parts) ends an f-string's first part:
    # at its first field, `{{` and `}}` being text, an escape two characters.
    length = len(text)
    while index < length and not text.startswith(quote, index):
        char = text[index]
        if char == "{" or char == "}":
            if text.startswith(char * 2, index):
                index += 2
                continue
            if char == "{":
                break
        index += 2 if char == "\\" else 1
    return text[body:index] or None


def _plain_token_value(text: str, start: int) -> str | None:
    """The value of the plain string token starting at ``start`` (None for bytes, or where no
    such token starts: a node that is no expression of LibCST's, as the text of an f-string)."""
    quote_at, _ = opening_quote(text, start)
    if quote_at - start > 2 or any(letter not in "rRbBuU" for letter in text[start:quote_at]):
        return None
    value = literal_eval(text[start : token_end(text, start)])
    return value if isinstance(value, str) else None


def string_value(node: ast.AST | None, source: SourceText) -> str | None:
    """The text of a string literal of one token (not of bytes, nor of `"a" "b"`)."""
    if type(node) is not ast.Constant or type(node.value) is not str:
        return None
    return node.value if source.one_token(node) else None


def _is_empty(node: ast.expr, source: SourceText) -> bool:
    """`None`, `False`, `0`, `""`, `[]`, `{}`, `()`: an error key that says "no error"."""
    if type(node) is ast.Constant:
        value = node.value
        if value is None or value is False:
            return True
        if type(value) is int:  # not `True`, a name to LibCST
            return value == 0
        return value == "" and string_value(node, source) == ""
    if type(node) is ast.List or type(node) is ast.Tuple or type(node) is ast.Set:
        return not node.elts
    if type(node) is ast.Dict:
        return not node.keys
    return False


def caught_texts(
    expression: ast.expr,
    source: SourceText,
    caught: str,
    imports: AstImportTable,
    local_values: LocalValues,
    depth: int = 0,
) -> Iterator[ast.expr]:
    """Text an `except E as e:` clause returns that is built from `e` (`f"Database error:
    {e}"`, `TextContent(text="Lookup failed: " + str(e))`): the failure told as a success,
    whatever words it starts with."""
    if depth > 3:
        return
    if type(expression) is ast.List:
        for element in expression.elts:
            value = element.value if type(element) is ast.Starred else element
            yield from caught_texts(value, source, caught, imports, local_values, depth + 1)
    elif type(expression) is ast.IfExp:
        yield from caught_texts(expression.body, source, caught, imports, local_values, depth + 1)
        yield from caught_texts(expression.orelse, source, caught, imports, local_values, depth + 1)
    elif type(expression) is ast.Name:  # `message = f"... {e}"; return message`
        for value in local_values(expression.id):
            yield from caught_texts(value, source, caught, imports, local_values, depth + 1)
    elif type(expression) is ast.Call and _is_mcp_type(imports.qualified_name(expression.func) or "", "TextContent"):
        text = _keyword(expression, "text")
        if text is not None and _built_from(text, caught):
            yield expression
    elif leading_text(expression, source) is not None and _built_from(expression, caught):
        yield expression
    elif _is_caught_text(expression, source, caught):  # `return str(e)`: the exception's message is the answer
        yield expression


def _is_caught_text(expression: ast.expr, source: SourceText, caught: str) -> bool:
    """The caught exception's text itself: `str(e)`, `repr(e)`, `f"{e}"`, `f"{e!r}"`."""
    if type(expression) is ast.Call:
        func = expression.func
        if type(func) is not ast.Name or func.id not in ("str", "repr"):
            return False
        argument = _sole_argument(expression)
        return type(argument) is ast.Name and argument.id == caught
    if type(expression) is ast.JoinedStr and len(expression.values) == 1:
        part = expression.values[0]
        if not (type(part) is ast.FormattedValue and type(part.value) is ast.Name and part.value.id == caught):
            return False
        # One f-string token (`f"{e}" ""` is two): its body is the field alone, the last
        # token's too; an empty token before or after it would open or end otherwise.
        text, start = source.text, source.start(expression)
        quote_at, quote = opening_quote(text, start)
        return text[quote_at + len(quote)] == "{" and text[source.end(expression) - len(quote) - 1] == "}"
    return False


def _built_from(text: ast.expr, name: str) -> bool:
    """A string-building expression that uses ``name`` (`f"{e}"`, `"..." + str(e)`, `"%s" % e`).
    (A concatenation of plain strings, LibCST's ``ConcatenatedString`` too, uses no name.) The
    name counts wherever LibCST has a `Name`: an attribute's (`x.e`), a keyword's (`f(e=1)`)."""
    kind = type(text)
    return (kind is ast.JoinedStr or kind is ast.BinOp or kind is ast.Call) and any(
        _names(node, name) for node in own_nodes(text)
    )


def _names(node: ast.AST, name: str) -> bool:
    """Whether LibCST's tree has a `Name` ``name`` at ``node``."""
    kind = type(node)
    if kind is ast.Name:
        return node.id == name  # type: ignore[attr-defined, no-any-return]
    if kind is ast.Attribute:
        return node.attr == name  # type: ignore[attr-defined, no-any-return]
    if kind is ast.keyword or kind is ast.arg:
        return node.arg == name  # type: ignore[attr-defined, no-any-return]
    return False


def _single_index(subscript: ast.Subscript, source: SourceText) -> ast.expr | None:
    """The one index of `x[i]` (also of `x[i,]`, one index to LibCST), or None: a slice, more
    than one index, or a tuple (`x[("error",)]`), which no caller takes for a key."""
    index = subscript.slice
    if type(index) is ast.Slice:
        return None
    if type(index) is not ast.Tuple:
        return index
    elements = index.elts
    if len(elements) != 1:
        return None
    only = elements[0]
    # Unparenthesised, `ast`'s tuple starts with its element (`x[*a]`) or ends with its comma.
    start = source.start(index)
    if start != source.start(only) and source.text[source.end(index) - 1] != ",":
        return None
    if type(only) is ast.Slice:
        return None
    return only.value if type(only) is ast.Starred else only


def error_tested(test: ast.expr, source: SourceText) -> set[str]:
    """The names a test finds an error in: `"error" in r`, `r.get("error")`, `r["error"]`
    (also as one side of an `and`)."""
    if type(test) is ast.BoolOp and type(test.op) is ast.And:
        names: set[str] = set()
        for value in test.values:  # LibCST's nested `and`s: the same names
            names |= error_tested(value, source)
        return names
    if type(test) is ast.Compare:
        if len(test.ops) == 1 and type(test.ops[0]) is ast.In and _is_error_key(test.left, source):
            name = name_text(test.comparators[0])
            if name is not None:
                return {name}
    key: ast.expr | None
    if type(test) is ast.Call and type(test.func) is ast.Attribute and test.func.attr == "get":
        holder, key = test.func.value, _first_argument(test)
    elif type(test) is ast.Subscript:
        holder, key = test.value, _single_index(test, source)
    else:
        return set()
    name = name_text(holder)
    if name is not None and _is_error_key(key, source):
        return {name}
    return set()


def _is_error_key(node: ast.expr | None, source: SourceText) -> bool:
    return type(node) is ast.Constant and node.value in ERROR_KEYS and source.one_token(node)


def answer_checked(test: ast.expr, source: SourceText) -> set[str]:
    """The names a handler's test finds an error in before it answers with them: the tests of
    ``error_tested``, and a call of a function named for errors given the name
    (`if error := _tool_error_message(result):`, `if is_error(result):`)."""
    if type(test) is ast.NamedExpr:
        test = test.value
    names = error_tested(test, source)
    if type(test) is ast.Call and _names_errors(dotted_name(test.func)):
        # Every argument but a keyword one: `is_error(*results)`, `is_error(**kw)` too.
        for argument in test.args:
            name = name_text(argument.value if type(argument) is ast.Starred else argument)
            if name is not None:
                names.add(name)
        for keyword in test.keywords:
            name = name_text(keyword.value) if keyword.arg is None else None
            if name is not None:
                names.add(name)
    return names


def error_item_set(target: ast.expr, value: ast.expr, source: SourceText) -> str | None:
    """The local a statement marks as an error by one of its items (`result["error"] = str(e)`,
    `result["success"] = False`, `result["status"] = "error"`), or None."""
    if type(target) is not ast.Subscript:
        return None
    name = name_text(target.value)
    index = _single_index(target, source) if name is not None else None
    if index is None:
        return None
    return name if _marks_an_error(string_value(index, source), value, source) else None
