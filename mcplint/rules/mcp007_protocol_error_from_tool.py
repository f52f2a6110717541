from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import libcst as cst

from mcplint.analysis.error_payloads import string_value
from mcplint.analysis.exception_flow import bound_name
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.scopes import enclosing_function_keys
from mcplint.finding import UNSAFE
from mcplint.protocol_codes import CODE_BY_CONSTANT
from mcplint.registry.match import MESSAGE_BY_STANDARD_CODE, UNEXPECTED_FAILURE, failure_text, site_message
from mcplint.rules.base import FixSpec, Rule, RuleContext
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, mentions, raised_message, registry_error_fix

# The SDK error class by qualified name: the stack its name belongs to.
SDK_ERRORS: dict[str, str] = {
    "mcp.McpError": "mcp1",
    "mcp.shared.exceptions.McpError": "mcp1",
    "mcp.MCPError": "mcp2",
    "mcp.shared.exceptions.MCPError": "mcp2",
    "fastmcp.exceptions.McpError": "fastmcp",
    "fastmcp.exceptions.MCPError": "fastmcp",
}
# What each stack does with it in a tool (research/mcp_sdk.md §2), and what to do instead.
CONSEQUENCES = {
    "mcp1": "mcp 1.x sends only its message, as an isError result, and drops the code and data",
    "mcp2": "mcp 2.x sends it as a JSON-RPC error, which the model never sees",
    "fastmcp": (
        "fastmcp sends it as an isError result \"Error calling tool '<name>': <message>\" without the code "
        "and data (with `mask_error_details=True`, without the message too)"
    ),
}
REMEDIES = {
    "mcp1": "return an isError `CallToolResult` (or raise `ToolError`) instead",
    "mcp2": "return an isError `CallToolResult` instead (MCPServer tools may raise its `ToolError`)",
    "fastmcp": "raise fastmcp's `ToolError` (or return `ToolResult(..., is_error=True)`) instead",
}
# An unknown tool name is a protocol error by the spec (-32602 "Unknown tool").
UNKNOWN_TOOL = re.compile(r"unknown[ _-]tool|no such tool|tool\b.{0,40}\bnot (?:found|exist)", re.IGNORECASE)
_CATCH_ALL = frozenset({"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"})


@dataclass(frozen=True)
class _Raise:
    node: cst.Raise
    name: str  # the dotted name of the raised class or of the local holding the error
    function: str | None
    via_local: bool  # a bare name: the class, or a local holding the error (`raise error`)
    # The handlers of each `try` of the same function whose body holds the raise, innermost first.
    handlers: tuple[tuple[cst.ExceptHandler, ...], ...]


class ProtocolErrorFromTool(Rule):
    """
    ## What it does
    Finds tools that raise the SDK's protocol error, `McpError` (mcp 1.x) or
    `MCPError` (mcp 2.x).

    The classic shape is
    `raise McpError(ErrorData(code=INTERNAL_ERROR, message=str(e)))`. The
    class is resolved through the imports (`mcp`, `mcp.shared.exceptions`,
    `fastmcp.exceptions`, aliases); the module's subclasses of it and a local
    holding one (`error = McpError(...); raise error`) count. So does a raise
    in a same-module helper a tool calls; the finding names the tool. Only
    tools count: resources and prompts should send the SDK error. Silent are a
    raise that a `try` of the same function catches without re-raising, and an
    "Unknown tool" message, a protocol error by the spec (-32602). The message
    says what the file's stack does with the error: fastmcp when the module
    imports it, else mcp 2.x for `MCPError` and mcp 1.x for `McpError`.

    ## Why is this bad?
    The MCP spec (2025-11-25, `isError`) says errors that originate from a
    tool "SHOULD be reported inside the result object, with `isError` set to
    true, _not_ as an MCP protocol-level error response", because clients
    show tool execution errors to the model so that it can correct itself.
    The SDK error is the protocol-level one, and no stack delivers it as
    intended from a tool:

    - mcp 1.x FastMCP wraps every exception into
      `ToolError(f"Error executing tool {name}: {e}")`, then sends
      `isError` with that text: the code and `data` are lost. The low-level
      `Server` sends `isError` with the message only: lost too.
    - mcp 2.x MCPServer re-raises an `MCPError` from a tool, so it goes out as
      a JSON-RPC error `{code, message, data}`; the low-level `Server` does
      the same. The migration guide says so: "`MCPError` raised from an
      `@mcp.tool()` handler now surfaces as a JSON-RPC error". The client's
      `call_tool` raises instead of returning a result, and the model never
      sees the message.
    - fastmcp flattens it into `isError` "Error calling tool 't': message"
      with the code lost (fastmcp 4 keeps only -32021 as a protocol error),
      and masks the text entirely when `mask_error_details=True`.

    So the same line either drops the code it was written to send or hides
    the failure from the model, depending on the SDK version.

    ## Example
    ```python
    from mcp.server.fastmcp import FastMCP
    from mcp.shared.exceptions import McpError
    from mcp.types import INTERNAL_ERROR, ErrorData

    mcp = FastMCP("weather")

    @mcp.tool()
    def forecast(city: str) -> str:
        try:
            return fetch_forecast(city)
        except OSError as e:
            raise McpError(ErrorData(code=INTERNAL_ERROR, message=str(e)))
    ```

    ## Use instead
    ```python
    from mcp.server.fastmcp import FastMCP
    from mcp.types import CallToolResult, TextContent

    mcp = FastMCP("weather")

    @mcp.tool()
    def forecast(city: str):  # mcp 1.x rejects `-> str | CallToolResult`
        try:
            return fetch_forecast(city)
        except OSError:
            return CallToolResult(
                content=[TextContent(type="text", text=f"No forecast for {city} right now")],
                structuredContent={"error": {"code": 2001, "symbol": "UPSTREAM_UNAVAILABLE"}},
                isError=True,
            )
    ```
    With an error registry, return the generated helper's result
    (`return upstream_error("UPSTREAM_UNAVAILABLE", provider="met").tool_result()`).
    In resources and prompts, keep raising the SDK error (or the helper's
    `.for_resource()` / `.for_prompt()`).

    ## Fix safety
    Unsafe, and only with a registry that has an entry for the raised code (a
    literal, or mcp's `INTERNAL_ERROR`-style constants) or, failing that, for
    its message (the caught exception's text dropped; only the exception says
    what failed, "Archive note failed"; with `INVALID_PARAMS`, "Invalid
    parameters", an `INVALID_ARGUMENT` entry for `mcplint migrate`, and likewise
    `METHOD_NOT_FOUND` and `INVALID_REQUEST`): the SDK error becomes the registry's
    raise-style helper, `raise notes_error("NOTE_LOCKED")`, a tool error the
    model sees, `from e` in an `except ... as e`, with `logger.exception(...)`
    added when the exception's text was the message and nothing logs it yet. It
    stays a raise (turning it into a returned result would change control flow
    in every caller of a helper), and the message becomes the registry's. A
    function that a prompt or a resource reaches too is left: the tool's error
    would escape their `except McpError`; so is one a caller catches on the way
    from a tool (`try: fetch(name) except McpError: ...`), which would no longer
    catch it.

    ## Options
    None.
    """

    code = "MCP007"
    name = "protocol-error-from-tool"
    fix_safety = "unsafe"

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._pending: list[_Raise] = []
        self._imports_fastmcp = False

    # -- the walk ----------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if (dotted_name(alias.name) or "").split(".", 1)[0] == "fastmcp":
                self._imports_fastmcp = True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = dotted_name(node.module) if node.module is not None and not node.relative else None
        if module is not None and module.split(".", 1)[0] == "fastmcp":
            self._imports_fastmcp = True

    def visit_Raise(self, node: cst.Raise) -> None:
        exc = node.exc
        if exc is None:
            return
        via_local = isinstance(exc, cst.Name)
        raised = exc.func if isinstance(exc, cst.Call) else exc
        name = dotted_name(raised)
        if name is None or (isinstance(exc, cst.Call) and _says_unknown_tool(exc)):
            return
        # Which classes are the SDK error's subclasses is only known once the module is read.
        function = self.context.scopes.current_function
        self._pending.append(_Raise(node, name, function, via_local, self.context.enclosing_try_handlers(node)))

    # -- after the walk ------------------------------------------------------------------
    def finish(self) -> None:
        for pending in self._pending:
            found = self._raised_error(pending)
            if found is None:
                continue
            class_name, stack = found
            if self._caught_locally(pending, class_name):
                continue
            if self._imports_fastmcp:
                stack = "fastmcp"
            fix, message = self._registry_fix(pending.node, pending.function)
            self.report(
                pending.node,
                f"`{class_name}` raised in a tool: {CONSEQUENCES[stack]}; {REMEDIES[stack]}",
                function=pending.function,
                handler_kinds=frozenset({"tool"}),
                fix=fix,
                error_message=message,
                fix_replaces_class=class_name.rpartition(".")[2],
                anchors=fix_anchors(pending.node),
            )

    def _registry_fix(self, node: cst.Raise, function: str | None) -> tuple[FixSpec | None, cst.BaseExpression | None]:
        """`raise McpError(ErrorData(code=1002, ...))` → `raise <helper>("SYMBOL")`: the registry's
        entry with that code, else the one its message matches. Unsafe: the message becomes the
        registry's, and the raise stops being a protocol error. Also the site's registry message.
        A code a running migration assigned is not the project's: the raise's 1001 means what its
        message says, not whatever new entry happened to be numbered 1001."""
        if not isinstance(node.exc, cst.Call):
            return None, None
        clause, annotation = self.context.raise_place(node)
        caught = bound_name(clause) if clause is not None else None
        written = raised_message(node.exc)
        message = site_message(written, function, caught) if written is not None else None
        if message is None and caught is not None:
            message = site_message(None, function, caught)
        code = _error_code(node.exc, self.context.imports)
        if code in MESSAGE_BY_STANDARD_CODE and message is not None and _says_only_what_failed(message, function):
            # `McpError(INVALID_PARAMS, str(e))`: the code said what kind of failure it was.
            message = cst.SimpleString(repr(MESSAGE_BY_STANDARD_CODE[code]))
        site = ErrorSite(
            node, message, function, clause,
            hides_cause=written is not None and mentions(written, caught),
            annotation=annotation,
        )  # fmt: skip
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
        if by_code is not None:
            return registry_error_fix(self.context, site, UNSAFE, symbol=by_code), message
        return registry_error_fix(self.context, site, UNSAFE), message

    def _raised_error(self, pending: _Raise) -> tuple[str, str] | None:
        """(the class's name as written, its stack) when the raise sends the SDK error."""
        found = self._sdk_class(pending.name, pending.function)
        if found is not None or not pending.via_local:
            return found
        for value in self.context.facts.aliases.get((pending.function, pending.name), ()):
            if isinstance(value, cst.Call) and not _says_unknown_tool(value):
                name = dotted_name(value.func)
                found = self._sdk_class(name, pending.function) if name is not None else None
                if found is not None:
                    return found
        return None

    def _sdk_class(self, name: str, function: str | None, depth: int = 0) -> tuple[str, str] | None:
        local = self._local_class(name, function)
        if local is not None:  # the module's own class (it shadows an import of that name)
            if depth > 10:
                return None
            for base in self.context.facts.class_bases[local]:
                base_name = dotted_name(base.value)
                found = self._sdk_class(base_name, None, depth + 1) if base_name is not None else None
                if found is not None:
                    return name, found[1]
            return None
        stack = SDK_ERRORS.get(self.context.imports.qualify(name) or "")
        return (name, stack) if stack is not None else None

    def _local_class(self, name: str, function: str | None) -> str | None:
        classes = self.context.facts.class_bases
        for scope in enclosing_function_keys(function):
            if f"{scope}.<locals>.{name}" in classes:
                return f"{scope}.<locals>.{name}"
        return name if name in classes else None

    def _caught_locally(self, pending: _Raise, class_name: str) -> bool:
        """A `try` of the same function around the raise whose first matching handler keeps it
        (a handler that re-raises hands it to the next `try` out)."""
        for handlers in pending.handlers:
            handler = next((h for h in handlers if self._catches(h, class_name, pending.function)), None)
            if handler is not None and not _reraises(handler):
                return True
        return False

    def _catches(self, handler: cst.ExceptHandler, class_name: str, function: str | None) -> bool:
        if handler.type is None:
            return True
        types = (
            [element.value for element in handler.type.elements]
            if isinstance(handler.type, cst.Tuple)
            else [handler.type]
        )
        raised = self._lineage(class_name, function)
        for expression in types:
            caught = dotted_name(expression)
            if caught is None:
                continue
            if caught in _CATCH_ALL or caught in raised:
                return True
            if self._local_class(caught, function) is None and self.context.imports.qualify(caught) in SDK_ERRORS:
                return True  # the SDK class itself catches every subclass of it
        return False

    def _lineage(self, class_name: str, function: str | None) -> set[str]:
        """The class and its bases among the module's own classes, by name as written."""
        lineage = {class_name}
        pending = [(class_name, function)]
        while pending:
            name, scope = pending.pop()
            local = self._local_class(name, scope)
            for base in self.context.facts.class_bases.get(local or "", ()):
                base_name = dotted_name(base.value)
                if base_name is not None and base_name not in lineage:
                    lineage.add(base_name)
                    pending.append((base_name, None))
        return lineage


def _says_only_what_failed(message: cst.BaseExpression, function: str | None) -> bool:
    """The site message is the fallback (`Serve failed`, `Unexpected error`): the raise said
    nothing of its own besides the caught exception's text."""
    return isinstance(message, cst.SimpleString) and message.evaluated_value in (
        failure_text(function),
        UNEXPECTED_FAILURE,
    )


def _error_code(call: cst.Call, imports: ImportTable) -> int | None:
    """The code of `McpError(ErrorData(code=...))` (mcp 1.x) or `MCPError(code, ...)` (mcp 2.x)."""
    first = call.args[0].value if call.args else None
    if isinstance(first, cst.Call) and (dotted_name(first.func) or "").rpartition(".")[2] == "ErrorData":
        call = first
    for arg in call.args:
        if (arg.keyword is None and arg is call.args[0]) or (arg.keyword is not None and arg.keyword.value == "code"):
            return _integer(arg.value, imports)
    return None


def _integer(expression: cst.BaseExpression, imports: ImportTable) -> int | None:
    if isinstance(expression, cst.Integer):
        return int(expression.evaluated_value)
    if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Minus):
        value = _integer(expression.expression, imports)
        return -value if value is not None else None
    qualified = imports.qualified_name(expression) or ""
    if qualified.startswith(("mcp.", "mcp_types.")):
        return CODE_BY_CONSTANT.get(qualified.rpartition(".")[2])
    return None


def _says_unknown_tool(call: cst.Call) -> bool:
    """`McpError(ErrorData(code=INVALID_PARAMS, message=f"Unknown tool: {name}"))`."""
    pending: list[cst.CSTNode] = [arg.value for arg in call.args]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.SimpleString):
            value = string_value(node)
            if value is not None and UNKNOWN_TOOL.search(value):
                return True
        elif isinstance(node, cst.FormattedString):
            text = "".join(
                part.value if isinstance(part, cst.FormattedStringText) else "{}" for part in node.parts
            )
            if UNKNOWN_TOOL.search(text):
                return True
        elif isinstance(node, (cst.Call, cst.Arg, cst.ConcatenatedString, cst.BinaryOperation)):
            pending.extend(node.children)
    return False


def _reraises(handler: cst.ExceptHandler) -> bool:
    """The handler's body has a bare `raise` (or `raise <its name>`), outside nested functions."""
    bound = handler.name.name.value if handler.name is not None and isinstance(handler.name.name, cst.Name) else None
    pending: list[cst.CSTNode] = [handler.body]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Raise):
            if node.exc is None or (bound is not None and isinstance(node.exc, cst.Name) and node.exc.value == bound):
                return True
        elif not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            pending.extend(node.children)
    return False

