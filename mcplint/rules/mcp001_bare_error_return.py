from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from mcplint.analysis.error_payloads import ERROR_KEYS, error_payloads
from mcplint.finding import UNSAFE
from mcplint.registry.match import helper_call, match_message
from mcplint.rules.base import FixSpec, Rule

TOOLS_ONLY = frozenset({"tool"})
_ERROR_PREFIX = re.compile(r"^\W*(error|failed)\s*:\s*", re.IGNORECASE)


def _error_message(payload: cst.CSTNode) -> cst.BaseExpression | None:
    """The message of an error dict: its `error` (or `message`) string."""
    if not isinstance(payload, cst.Dict):
        return None
    for key in (*sorted(ERROR_KEYS), "message"):
        for element in payload.elements:
            if (
                isinstance(element, cst.DictElement)
                and isinstance(element.key, cst.SimpleString)
                and element.key.evaluated_value == key
                and isinstance(element.value, (cst.SimpleString, cst.FormattedString))
            ):
                return element.value
    return None


def _without_error_prefix(payload: cst.CSTNode) -> cst.BaseExpression | None:
    """`"Error: Note 3 does not exist."` is the message "Note 3 does not exist."."""
    if isinstance(payload, cst.SimpleString) and isinstance(payload.evaluated_value, str):
        text = _ERROR_PREFIX.sub("", payload.evaluated_value, count=1)
        return cst.SimpleString(repr(text))
    if isinstance(payload, cst.FormattedString) and payload.parts:
        first = payload.parts[0]
        if isinstance(first, cst.FormattedStringText):
            stripped = _ERROR_PREFIX.sub("", first.value, count=1)
            return payload.with_changes(parts=[first.with_changes(value=stripped), *payload.parts[1:]])
    return None


class BareErrorReturn(Rule):
    """
    ## What it does
    Finds handlers that return an ad-hoc error payload as a successful result:
    a dict with an `error` / `error_code` / `errorCode` / `errors` key (or
    `"status": "error"`, `"success": False`, `"ok": False`), such a dict inside a
    list or `json.dumps(...)`, error text (`"Error: ..."`, `f"Failed to ..."`)
    returned from a tool, and `TextContent(text="Error ...")` in a tool result.
    It follows a payload assigned to a local and returned later.

    ## Why is this bad?
    The client receives a *successful* result (`isError: false`). An LLM client
    treats the text as data, an automated client never notices the failure, and
    nothing carries a code, a symbol or a `retryable` flag. The MCP spec wants
    tool failures reported as results with `isError: true`.

    Only code in handler scope counts (handlers and the functions of the same
    module they call), and in a called function only a payload whose value
    flows into the handler's return (`return helper()`, `result = await
    helper(); return [TextContent(text=json.dumps(result))]`); a helper whose
    result the handler merely inspects is silent. An empty error key
    (`"error": None`, `"errors": []`, `"errors": 0`) is a success. Only dict
    *literals* are followed: `result["error"] = msg` on a local goes unseen.

    ## Example
    ```python
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("notes")

    @mcp.tool()
    def get_note(note_id: str) -> dict:
        note = NOTES.get(note_id)
        if note is None:
            return {"error": f"Note {note_id} not found"}
        return note
    ```

    ## Use instead
    ```python
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

    mcp = FastMCP("notes")

    @mcp.tool()
    def get_note(note_id: str) -> dict:
        note = NOTES.get(note_id)
        if note is None:
            raise ToolError(f"Note {note_id} not found")
        return note
    ```
    With an error registry, return the generated helper's tool result instead
    (`return notes_error("NOTE_NOT_FOUND", note_id=note_id).tool_result()`), which
    also carries code, symbol and `retryable` in `structuredContent`.

    ## Fix safety
    With a registry, a returned payload that is the whole returned value and whose
    message is one of the registry's messages (the dict's `error`/`message`
    string, or the text after an `Error:` prefix; f-string `{expressions}` fill
    the message's `{placeholders}`) is rewritten into
    `return <helper>("SYMBOL", ...).tool_result()`, imported from
    `helpers-module`. The fix is unsafe: the client now gets an isError result
    (what the rule asks for), but code that used the returned dict, or a tool
    whose return annotation gives it an output schema (`-> str` on mcp 1.x
    rejects a `CallToolResult`), may need a change too. Only where tools alone
    reach it; no unique match, no fix.

    ## Options
    None.
    """

    code = "MCP001"
    name = "bare-error-return"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # Values assigned to each local, per function, in source order.
        self._assigned: dict[tuple[str | None, str], list[cst.BaseExpression]] = {}
        self._reported: set[int] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._remember(target.target.value, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self._remember(node.target.value, node.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None:
            return
        for payload in error_payloads(node.value, self.context.imports, self._local_values):
            if id(payload.node) in self._reported:
                continue
            self._reported.add(id(payload.node))
            # Only a payload that is the whole returned value can become a tool result.
            message = _error_message(payload.node) if payload.kind == "dict" else _without_error_prefix(payload.node)
            fix = self._registry_fix(payload.node, message) if payload.node is node.value else None
            if payload.kind == "dict":
                self.report(
                    payload.node,
                    "Error dict returned as a successful result; return an isError result "
                    "(or raise a registry error) instead",
                    through_return=True,
                    fix=fix,
                    error_message=message,
                )
            else:
                self.report(
                    payload.node,
                    "Error text returned as a successful tool result; return an isError "
                    "result (or raise a registry error) instead",
                    handler_kinds=TOOLS_ONLY,
                    through_return=True,
                    fix=fix,
                    error_message=message,
                )

    def _registry_fix(self, payload: cst.CSTNode, message: cst.BaseExpression | None) -> FixSpec | None:
        """`return {"error": "<a registry message>"}` → `return <helper>("SYMBOL").tool_result()`."""
        registry = self.context.registry
        if registry is None or not registry.helpers_module or message is None:
            return None
        found = match_message(registry, message)
        if found is None:
            return None
        replacement = cst.Call(cst.Attribute(helper_call(found), cst.Name("tool_result")), [])
        return FixSpec(
            payload,
            replacement,
            f"Return the registry's `{found.entry.symbol}` as an isError result",
            # The success becomes an isError result: right for the client, but code
            # that used the returned dict, or an output schema (`-> str` on mcp 1.x),
            # may not expect it.
            UNSAFE,
            imports=((registry.helpers_module, found.helper),),
            handler_kinds=TOOLS_ONLY,
        )

    def _remember(self, name: str, value: cst.BaseExpression) -> None:
        key = (self.context.scopes.current_function, name)
        self._assigned.setdefault(key, []).append(value)

    def _local_values(self, name: str) -> Sequence[cst.BaseExpression]:
        return self._assigned.get((self.context.scopes.current_function, name), ())
