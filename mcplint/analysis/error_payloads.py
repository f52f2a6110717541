"""What an ad-hoc error payload looks like when a handler returns it.

Shared by the rules that find error payloads returned as successes (MCP001) and,
later, the fixes that rewrite them: a dict with error keys, error text, or
``TextContent`` carrying error text, possibly wrapped in a list, a tuple, a
conditional or ``json.dumps``.
"""

from __future__ import annotations

import functools
import re
from ast import literal_eval
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.imports import ImportTable, dotted_name

ERROR_KEYS = frozenset({"error", "error_code", "errorCode", "errors"})
FAILURE_FLAG_KEYS = frozenset({"success", "ok"})
JSON_SERIALISERS = frozenset({"json.dumps", "orjson.dumps", "ujson.dumps", "simplejson.dumps"})
# Leading punctuation or an emoji ("❌ Error: ...", "[ERROR] ...") does not hide the word.
# Besides "Error"/"Failed", the openings that only a failure has ("Cannot add responders ...",
# "Unable to connect", "Invalid page size: 0"); "No results found" is an empty result, not one.
ERROR_TEXT = re.compile(
    # A cross mark says it without words ("❌ Command abc not found").
    r"^\s*[\u274c\u26d4\U0001f6ab]|"
    r"^[\W_]*(?:(error|failed|failure|cannot|can't|unable to|could not|couldn't|invalid|"
    r"security violation|permission denied|access denied|unexpected"
    # `Download failed after ...`, `Sci-Hub download failed.`: what failed, then that it did
    # (words only: `3 tests failed` is a count a test runner answers with)
    r"|(?:[a-z][\w-]*\s+){1,3}failed(?!\s+(?:tests?|items?|checks?)\b)"
    # `Discord client not initialized.`, `Database is not connected`: what the call needed is missing
    r"|(?:[a-z][\w-]*\s+){1,3}(?:is\s+)?not\s+(?:initiali[sz]ed|connected|authenticated))\b"
    # Chinese: "错误：路径不存在" (error: ...), "克隆失败: ..." (clone failed), "无法连接" (unable to).
    r"|错误|錯誤|异常|異常|无法|無法|\w{0,10}?(?:失败|失敗))",
    re.IGNORECASE,
)
MCP_PACKAGES = ("mcp", "mcp_types", "fastmcp")
# A model's own serialisers: what they return says what the model says.
MODEL_DUMPERS = frozenset({"model_dump", "model_dump_json", "dict", "json", "to_dict", "asdict"})


@dataclass(frozen=True)
class ErrorPayload:
    node: cst.CSTNode
    kind: str  # "dict" or "text"


LocalValues = Callable[[str], Sequence[cst.BaseExpression]]
#: The payload kind a call to a known error helper returns (`tool_error(e)`), PASS_THROUGH for
#: a function that returns its first argument serialised (`dump_json(payload)`), or None.
HelperKind = Callable[[cst.Call], "str | None"]
PASS_THROUGH = "through"


def through_kind(position: int, name: str) -> str:
    """The kind of a helper handing back its argument at ``position`` (parameter ``name``):
    PASS_THROUGH for the first, `through:1:data` for another (`add_metadata(client, data)`)."""
    return PASS_THROUGH if position == 0 else f"{PASS_THROUGH}:{position}:{name}"


def passed_through(kind: str | None) -> tuple[int, str] | None:
    """(position, parameter name) of the argument a pass-through helper hands back."""
    if kind == PASS_THROUGH:
        return 0, ""
    if kind is not None and kind.startswith(f"{PASS_THROUGH}:"):
        _, position, name = kind.split(":", 2)
        return int(position), name
    return None


def call_argument(call: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    """The argument a call passes to a parameter, by keyword or by position."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[position] if 0 <= position < len(positional) else None


def _argument_at(call: cst.Call, position: int, name: str) -> cst.BaseExpression | None:
    """The argument a pass-through helper hands back; its first argument, however passed,
    for a plain PASS_THROUGH."""
    if position == 0 and not name:
        return call.args[0].value if call.args else None
    return call_argument(call, position, name)


def error_payloads(
    expression: cst.BaseExpression,
    imports: ImportTable,
    local_values: LocalValues,
    resolving: frozenset[str] = frozenset(),
    helper_kind: HelperKind | None = None,
) -> Iterator[ErrorPayload]:
    """The error payloads a returned expression carries to the client.

    ``resolving`` holds the locals being looked through, so that
    ``x = [x, ...]`` does not loop.
    """
    if type(expression) is cst.Dict:
        if is_error_dict(expression) or any(
            # `{**error_payload(e, hint=...), "timed_out": False}`: an error dict, extended
            isinstance(element, cst.StarredDictElement)
            and any(
                payload.kind == "dict"
                for payload in error_payloads(element.value, imports, local_values, resolving, helper_kind)
            )
            for element in expression.elements
        ):
            yield ErrorPayload(expression, "dict")
    elif type(expression) is cst.List:  # a content list; `(False, "Error")` is a status pair
        for element in expression.elements:
            yield from error_payloads(element.value, imports, local_values, resolving, helper_kind)
    elif type(expression) is cst.ListComp:  # `[r if ok(r) else f"ERROR: {r}" for r in results]`
        yield from error_payloads(expression.elt, imports, local_values, resolving, helper_kind)
    elif type(expression) is cst.IfExp:
        yield from error_payloads(expression.body, imports, local_values, resolving, helper_kind)
        yield from error_payloads(expression.orelse, imports, local_values, resolving, helper_kind)
    elif type(expression) is cst.BooleanOperation and isinstance(expression.operator, cst.Or):
        # `return article or {"exists": False, "error": "..."}`: the fallback is the answer.
        yield from error_payloads(expression.left, imports, local_values, resolving, helper_kind)
        yield from error_payloads(expression.right, imports, local_values, resolving, helper_kind)
    elif type(expression) is cst.Name:
        name = expression.value
        if name not in resolving:
            for value in local_values(name):
                yield from error_payloads(value, imports, local_values, resolving | {name}, helper_kind)
    elif type(expression) is cst.Call:
        yield from _call_payloads(expression, imports, local_values, resolving, helper_kind)
    elif type(expression) is cst.Await:  # `return await create_error_response(ctx, ...)`
        yield from error_payloads(expression.expression, imports, local_values, resolving, helper_kind)
    elif is_error_text(expression):
        yield ErrorPayload(expression, "text")


def _call_payloads(
    call: cst.Call,
    imports: ImportTable,
    local_values: LocalValues,
    resolving: frozenset[str],
    helper_kind: HelperKind | None,
) -> Iterator[ErrorPayload]:
    qualified = imports.qualified_name(call.func) or ""
    if qualified in JSON_SERIALISERS and call.args:
        yield from error_payloads(call.args[0].value, imports, local_values, resolving, helper_kind)
        return
    kind = helper_kind(call) if helper_kind is not None else None
    carried = passed_through(kind)
    if carried is not None:  # `return dump_json({...})`: the project's own serialiser, or envelope
        argument = _argument_at(call, *carried)
        if argument is not None:
            yield from error_payloads(argument, imports, local_values, resolving, helper_kind)
        return
    if kind is not None:  # `return tool_error(e)`: a function that builds the payload
        yield ErrorPayload(call, kind)
        return
    if _is_mcp_type(qualified, "TextContent"):
        text = _keyword(call, "text")
        if text is None:
            return
        flag = _keyword(call, "error")  # `TextContent(..., error=True)`: not a field; the result is a success
        if _is_error_text_value(text, local_values) or (isinstance(flag, cst.Name) and flag.value == "True"):
            yield ErrorPayload(call, "text")
        else:  # TextContent(text=json.dumps({"error": ...}))
            yield from error_payloads(text, imports, local_values, resolving, helper_kind)
        return
    if _is_mcp_type(qualified, "CallToolResult") or _is_mcp_type(qualified, "ToolResult"):
        flag = _keyword(call, "isError") or _keyword(call, "is_error")
        if flag is not None and not (isinstance(flag, cst.Name) and flag.value == "False"):
            return  # the correct form: an isError result
        content = _keyword(call, "content")
        if content is not None:
            yield from error_payloads(content, imports, local_values, resolving, helper_kind)
        return
    if is_error_text(call):
        yield ErrorPayload(call, "text")
    elif _is_failure_model(call, qualified):
        yield ErrorPayload(call, "dict")
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value in MODEL_DUMPERS:
        # `MCPResponse(success=False, ...).model_dump()`, or a local holding one
        # (`response = ErrorResponse(...)`; `return response.model_dump()`)
        holder = call.func.value
        models = local_values(holder.value) if isinstance(holder, cst.Name) else [holder]
        for inner in models:
            if isinstance(inner, cst.Call) and _is_failure_model(inner, imports.qualified_name(inner.func) or ""):
                yield ErrorPayload(inner, "dict")
                break


# A result class named for an error: `ErrorResponse(error_type=..., message=...)`.
_ERROR_MODEL_NAME = re.compile(r"\w*Error(?:Response|Result)")


def _is_failure_model(call: cst.Call, qualified: str) -> bool:
    """`Envelope(success=False, ...)`, `Response(status="error", ...)`, `ErrorResponse(...)`:
    a result object (or `dict(...)`) that says it failed, of a class that is not the SDK's."""
    if qualified.split(".", 1)[0] in MCP_PACKAGES:
        return False
    if _ERROR_MODEL_NAME.fullmatch((dotted_name(call.func) or "").rpartition(".")[2]):
        return True
    for arg in call.args:
        if arg.keyword is None:
            continue
        key, value = arg.keyword.value, arg.value
        if key in FAILURE_FLAG_KEYS and isinstance(value, cst.Name) and value.value == "False":
            return True
        if key == "status" and (string_value(value) or "").lower() == "error":
            return True
    return False


def _is_error_text_value(expression: cst.BaseExpression, local_values: LocalValues) -> bool:
    if isinstance(expression, cst.Name):
        return any(is_error_text(value) for value in local_values(expression.value))
    return is_error_text(expression)


def text_put_in_content(value: cst.BaseExpression, imports: ImportTable) -> cst.BaseExpression | None:
    """X of `[TextContent(type="text", text=X)]`, `TextContent(text=str(X))`: the text a
    response helper hands on as the whole result (None: not that shape)."""
    if isinstance(value, (cst.List, cst.Tuple)) and len(value.elements) == 1:
        value = value.elements[0].value
    if not isinstance(value, cst.Call):
        return None
    if not _is_mcp_type(imports.qualify(dotted_name(value.func) or "") or "", "TextContent"):
        return None
    text = _keyword(value, "text")
    if isinstance(text, cst.Call) and dotted_name(text.func) == "str" and len(text.args) == 1:
        text = text.args[0].value
    return text


def _is_mcp_type(qualified: str, name: str) -> bool:
    return qualified.endswith(f".{name}") and qualified.split(".", 1)[0] in MCP_PACKAGES


def _keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def is_error_dict(node: cst.Dict) -> bool:
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            continue
        if _marks_an_error(string_value(element.key), element.value):
            return True
    return False


def _marks_an_error(key: str | None, value: cst.BaseExpression) -> bool:
    """An item that says the dict is an error: an error key with a value, `"status": "error"`,
    `"success": False` / `"ok": False`."""
    if key in ERROR_KEYS and not _is_empty(value):
        return True
    if key == "status" and (string_value(value) or "").lower() == "error":
        return True
    return key in FAILURE_FLAG_KEYS and isinstance(value, cst.Name) and value.value == "False"


def is_failure_answer(value: cst.BaseExpression) -> bool:
    """What a branch returns says the call failed: error text, an error dict, or what an
    error-named function builds (`return services_error("NO_ROWS").tool_result()`)."""
    return is_error_text(value) or builds_error(value) or (isinstance(value, cst.Dict) and is_error_dict(value))


def builds_error(expression: cst.BaseExpression) -> bool:
    """A call of a function named for an error (`create_error_response(...)`), also through the
    methods of what it returns (`services_error("NOT_FOUND").tool_result()`): an answer that
    fails the call, whatever it looks like."""
    call = expression.expression if isinstance(expression, cst.Await) else expression
    while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call):
        call = call.func.value
    if not isinstance(call, cst.Call):
        return False
    return "error" in (dotted_name(call.func) or "").rpartition(".")[2].lower()


def is_error_text(expression: cst.BaseExpression) -> bool:
    text = leading_text(expression)
    return text is not None and ERROR_TEXT.match(text) is not None


def leading_text(expression: cst.BaseExpression) -> str | None:
    """The constant text a string-building expression starts with, if any."""
    if type(expression) is cst.SimpleString:
        return string_value(expression)
    if type(expression) is cst.FormattedString:
        first = expression.parts[0] if expression.parts else None
        return first.value if isinstance(first, cst.FormattedStringText) else None
    if type(expression) is cst.ConcatenatedString:
        return leading_text(expression.left)
    if type(expression) is cst.BinaryOperation and isinstance(expression.operator, (cst.Add, cst.Modulo)):
        return leading_text(expression.left)
    if (
        isinstance(expression, cst.Call)
        and isinstance(expression.func, cst.Attribute)
        and expression.func.attr.value == "format"
    ):
        return leading_text(expression.func.value)
    return None


def string_value(node: cst.BaseExpression | None) -> str | None:
    """The text of a string literal (not of bytes)."""
    return _evaluated(node.value) if isinstance(node, cst.SimpleString) else None


# Every dict of every analysed module has its keys read (`is_error_dict`): the same few
# literals (`"type"`, `"text"`, `"error"`) over and over, each a `literal_eval` parse.
@functools.lru_cache(maxsize=4096)
def _evaluated(literal: str) -> str | None:
    value = literal_eval(literal)
    return value if isinstance(value, str) else None


def _is_empty(node: cst.BaseExpression) -> bool:
    """`None`, `False`, `0`, `""`, `[]`, `{}`, `()`: an error key that says "no error"."""
    if isinstance(node, cst.Name):
        return node.value in ("None", "False")
    if isinstance(node, cst.Integer):
        return node.evaluated_value == 0
    if isinstance(node, (cst.List, cst.Tuple, cst.Dict, cst.Set)):
        return not node.elements
    return string_value(node) == ""


def caught_texts(
    expression: cst.BaseExpression, caught: str, imports: ImportTable, local_values: LocalValues, depth: int = 0
) -> Iterator[cst.BaseExpression]:
    """Text an `except E as e:` clause returns that is built from `e` (`f"Database error:
    {e}"`, `TextContent(text="Lookup failed: " + str(e))`): the failure told as a success,
    whatever words it starts with."""
    if depth > 3:
        return
    if isinstance(expression, cst.List):
        for element in expression.elements:
            yield from caught_texts(element.value, caught, imports, local_values, depth + 1)
    elif isinstance(expression, cst.IfExp):
        yield from caught_texts(expression.body, caught, imports, local_values, depth + 1)
        yield from caught_texts(expression.orelse, caught, imports, local_values, depth + 1)
    elif isinstance(expression, cst.Name):  # `message = f"... {e}"; return message`
        for value in local_values(expression.value):
            yield from caught_texts(value, caught, imports, local_values, depth + 1)
    elif isinstance(expression, cst.Call) and _is_mcp_type(imports.qualified_name(expression.func) or "", "TextContent"):
        text = _keyword(expression, "text")
        if text is not None and _built_from(text, caught):
            yield expression
    elif leading_text(expression) is not None and _built_from(expression, caught):
        yield expression
    elif _is_caught_text(expression, caught):  # `return str(e)`: the exception's message is the answer
        yield expression


def _is_caught_text(expression: cst.BaseExpression, caught: str) -> bool:
    """The caught exception's text itself: `str(e)`, `repr(e)`, `f"{e}"`, `f"{e!r}"`."""
    if isinstance(expression, cst.Call):
        return (
            isinstance(expression.func, cst.Name)
            and expression.func.value in ("str", "repr")
            and len(expression.args) == 1
            and isinstance(expression.args[0].value, cst.Name)
            and expression.args[0].value.value == caught
        )
    if isinstance(expression, cst.FormattedString) and len(expression.parts) == 1:
        part = expression.parts[0]
        return (
            isinstance(part, cst.FormattedStringExpression)
            and isinstance(part.expression, cst.Name)
            and part.expression.value == caught
        )
    return False


def _built_from(text: cst.BaseExpression, name: str) -> bool:
    """A string-building expression that uses ``name`` (`f"{e}"`, `"..." + str(e)`, `"%s" % e`)."""
    return isinstance(text, (cst.FormattedString, cst.ConcatenatedString, cst.BinaryOperation, cst.Call)) and any(
        isinstance(node, cst.Name) and node.value == name for node in own_nodes(text)
    )


def error_tested(test: cst.BaseExpression) -> set[str]:
    """The names a test finds an error in: `"error" in r`, `r.get("error")`, `r["error"]`
    (also as one side of an `and`)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return error_tested(test.left) | error_tested(test.right)
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.In)
        and isinstance(test.left, cst.SimpleString)
        and test.left.evaluated_value in ERROR_KEYS
        and isinstance(test.comparisons[0].comparator, cst.Name)
    ):
        return {test.comparisons[0].comparator.value}
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Attribute) and test.func.attr.value == "get":
        holder, key = test.func.value, test.args[0].value if test.args else None
    elif isinstance(test, cst.Subscript) and len(test.slice) == 1 and isinstance(test.slice[0].slice, cst.Index):
        holder, key = test.value, test.slice[0].slice.value
    else:
        return set()
    if isinstance(holder, cst.Name) and isinstance(key, cst.SimpleString) and key.evaluated_value in ERROR_KEYS:
        return {holder.value}
    return set()


def answer_checked(test: cst.BaseExpression) -> set[str]:
    """The names a handler's test finds an error in before it answers with them: the tests of
    ``error_tested``, and a call of a function named for errors given the name
    (`if error := _tool_error_message(result):`, `if is_error(result):`)."""
    if isinstance(test, cst.NamedExpr):
        test = test.value
    names = error_tested(test)
    if isinstance(test, cst.Call) and _names_errors(dotted_name(test.func)):
        names.update(arg.value.value for arg in test.args if arg.keyword is None and isinstance(arg.value, cst.Name))
    return names


def _names_errors(callee: str | None) -> bool:
    last = (callee or "").rpartition(".")[2].lower()
    return "error" in last or "fail" in last


def error_item_set(target: cst.BaseExpression, value: cst.BaseExpression) -> str | None:
    """The local a statement marks as an error by one of its items (`result["error"] = str(e)`,
    `result["success"] = False`, `result["status"] = "error"`), or None."""
    if not (
        isinstance(target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and len(target.slice) == 1
        and isinstance(target.slice[0].slice, cst.Index)
    ):
        return None
    return target.value.value if _marks_an_error(string_value(target.slice[0].slice.value), value) else None

