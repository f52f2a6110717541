from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from mcplint.analysis.error_payloads import error_payloads
from mcplint.rules.base import Rule

TOOLS_ONLY = frozenset({"tool"})


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
    No fix yet: the rewrite into registry helpers arrives with the registry.

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
            if payload.kind == "dict":
                self.report(
                    payload.node,
                    "Error dict returned as a successful result; return an isError result "
                    "(or raise a registry error) instead",
                    through_return=True,
                )
            else:
                self.report(
                    payload.node,
                    "Error text returned as a successful tool result; return an isError "
                    "result (or raise a registry error) instead",
                    handler_kinds=TOOLS_ONLY,
                    through_return=True,
                )

    def _remember(self, name: str, value: cst.BaseExpression) -> None:
        key = (self.context.scopes.current_function, name)
        self._assigned.setdefault(key, []).append(value)

    def _local_values(self, name: str) -> Sequence[cst.BaseExpression]:
        return self._assigned.get((self.context.scopes.current_function, name), ())
