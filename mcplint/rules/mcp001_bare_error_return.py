from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import libcst as cst

from mcplint.analysis.error_payloads import (
    ERROR_KEYS,
    FAILURE_FLAG_KEYS,
    JSON_SERIALISERS,
    PASS_THROUGH,
    ErrorPayload,
    caught_texts,
    error_item_set,
    error_payloads,
    error_tested,
    is_error_dict,
    string_value,
    text_put_in_content,
    through_kind,
)
from mcplint.analysis.exception_flow import bound_name
from mcplint.analysis.handlers import module_aliases
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.locals import element_index
from mcplint.analysis.project import ProjectContext
from mcplint.analysis.walk import children
from mcplint.finding import UNSAFE
from mcplint.registry.match import site_message
from mcplint.rules.advice import RESULT_INSTEAD
from mcplint.rules.base import Rule, RuleContext
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, mentions, own_message_reason, registry_error_fix

TOOLS_ONLY = frozenset({"tool"})


def _error_message(payload: cst.CSTNode) -> cst.BaseExpression | None:
    """The message of an error dict: its `error` (or `message`) string."""
    if not isinstance(payload, cst.Dict):
        return None
    for key in (*sorted(ERROR_KEYS), "message"):
        for element in payload.elements:
            if (
                isinstance(element, cst.DictElement)
                and string_value(element.key) == key  # None for anything but a string literal
                and isinstance(element.value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString, cst.Call, cst.Name))
            ):
                return element.value
    return None


# What an error dict says besides its message and failure flags.
_NOT_DETAILS = ERROR_KEYS | FAILURE_FLAG_KEYS | {"message", "status", "detail", "isError", "is_error"}


def _details(payload: cst.CSTNode, caught: str | None) -> cst.Dict | None:
    """`{"error": "...", "note_id": note_id}` keeps `{"note_id": note_id}` as the helper's
    `details`; a value read from the caught exception is left out (it is for the logs)."""
    if not isinstance(payload, cst.Dict):
        return None
    kept = [
        element.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        for element in payload.elements
        if isinstance(element, cst.DictElement)
        and isinstance(element.key, cst.SimpleString)
        and string_value(element.key) not in _NOT_DETAILS
        and not mentions(element.value, caught)
    ]
    return cst.Dict(kept) if kept else None


def _text_handed_on(
    value: cst.BaseExpression, caught: str, imports: ImportTable, local_values: Callable[[str], Sequence[cst.BaseExpression]]
) -> tuple[cst.Call, cst.BaseExpression] | None:
    """`_finish(str(exc))`: a call of a plain name whose first argument is the caught
    exception's text (the call, the text)."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name) or not value.args:
        return None
    first = value.args[0]
    if first.keyword is not None or first.star:
        return None
    texts = list(caught_texts(first.value, caught, imports, local_values))
    return (value, texts[0]) if texts else None


def _hands_back(value: cst.BaseExpression, parameter: str) -> bool:
    """The returned value is the parameter's text: itself, a string starting with it, or
    either branch of a conditional doing so."""
    if isinstance(value, cst.IfExp):
        return _hands_back(value.body, parameter) and _hands_back(value.orelse, parameter)
    if isinstance(value, cst.Name):
        return value.value == parameter
    if isinstance(value, cst.FormattedString) and value.parts:
        first = value.parts[0]
        return isinstance(first, cst.FormattedStringExpression) and _hands_back(first.expression, parameter)
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        return _hands_back(value.left, parameter)
    return False


def _text_of(payload: cst.CSTNode) -> cst.BaseExpression | None:
    """The text of an error-text payload: the string itself, or `TextContent(text=...)`'s."""
    if isinstance(payload, cst.Call):
        texts = [arg.value for arg in payload.args if arg.keyword is not None and arg.keyword.value == "text"]
        return texts[0] if texts else None
    return payload if isinstance(payload, cst.BaseExpression) else None


class BareErrorReturn(Rule):
    """
    ## What it does
    Finds handlers that return an ad-hoc error payload as a successful result:
    a dict with an `error` / `error_code` / `errorCode` / `errors` key (or
    `"status": "error"`, `"success": False`, `"ok": False`), such a dict inside a
    list or `json.dumps(...)`, error text returned from a tool (text opening the
    way only a failure does: `"Error: ..."`, `f"Failed to ..."`, `"Cannot ..."`,
    `"Unable to ..."`, `"Could not ..."`, `"Unexpected ..."`, `f"Invalid page size: {size}"`,
    `"Download failed ..."`; and,
    in an `except E as e:` clause, any text built from `e`, such as
    `f"Database trouble: {e}"`), and `TextContent(text="Error ...")` or
    `TextContent(..., error=True)` (not a field: the result is still a success)
    in a tool result. `"No results found"` is an empty result, not an error.
    It follows a payload assigned to a local and returned later, an error dict
    extended with `**` (`{**error_payload(e), "timed_out": False}`), and a
    result the tool found an error in and forwards (`if "error" in r: return r`).

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
    (`"error": None`, `"errors": []`, `"errors": 0`) is a success. An item an
    `except` clause sets on a local (`result["error"] = str(e)`,
    `result["success"] = False`) counts where the function returns that local
    (once per clause, without a fix); elsewhere only dict *literals* are
    followed.
    A result model that says it failed counts as its dict, also through its
    own serialiser (`Response(success=False).model_dump()`), and so does one
    of a class named for an error (`ErrorResponse(...)`, `ToolErrorResult(...)`),
    also dumped from a local; a payload in a
    tuple a helper returns counts where the tool returns that element
    (`ok, message = check(path)` then `return message`). A function every
    return of which is an error payload (an error helper, of this module or
    another) is reported where it builds the payload and where a handler
    returns its answer (`return format_error_response(str(e))`). A function
    that hands back one of its parameters (serialised, in a `TextContent`, or
    wrapped in an envelope: `return {"data": data, "metadata": ...}`) passes
    on the payload a caller gives it there (`add_metadata(client,
    error_data)`).

    A handler that checks each answer for an error before giving it is not
    answering the error as a success: every `return` hands back a local that
    an `if` raises on when it holds an error (`if "error" in result: raise
    ToolError(...)`, `if message := _tool_error_message(result): raise ...`:
    a call of a function named for errors), a `CallToolResult` whose `isError`
    is computed (`isError="error" in payload`), or the answer of a function
    that does one of these. The payloads such a handler returns are not
    reported for it (a helper some other handler returns unchecked still is).
    A handler with one unchecked answer checks none: its other answers'
    payloads count too.

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
    Unsafe, and only with a registry. The payload's message (the dict's
    `error`/`message` value, the text after an `Error:` prefix, `TextContent`'s
    `text`) picks the registry entry: the constant text equal up to case,
    spacing and a final full stop, f-string `{expressions}` filling the entry's
    `{placeholders}`; the caught exception's text is dropped first
    (`f"could not save: {e}"` says "could not save"), and a message that is only
    the exception (`str(e)`) says what failed: "Create note failed" in
    `create_note`. What else an error dict says (`{"error": ..., "note_id":
    note_id}`) becomes the helper's `details={"note_id": note_id}`, except what
    is read from the caught exception. In the tool itself the returned value becomes
    `return <helper>("SYMBOL", ...).tool_result()`, where its return annotation
    lets a `CallToolResult` through (none, `dict`, `Any`, `CallToolResult`; mcp
    1.x turns a result returned from a `-> str` tool into an output validation
    error) and always in a low-level handler. Elsewhere (a function the tool
    calls, whose value the tool may rework, or a `-> str` tool) the `return`
    becomes `raise <helper>(...)` (`from e` in an `except ... as e`), except
    in a function an mcp 2.x low-level handler calls, where a raise would be a
    JSON-RPC -32603: no fix there. In an `except` clause that logs nothing,
    `logger.exception(...)` is added first (a module without a logger gets
    one), so the exception's text goes to the logs. Unsafe because code that used the
    returned dict may need a change too. Only where tools alone reach it. A
    payload assigned to a local and returned later gets no fix (the local may
    hold a success too), unless the assignment is the last statement of an
    `except` clause and `return <local>` directly follows the `try`: then the
    assignment itself becomes the raise (or the returned result). No unique
    match, no fix (`mcplint migrate` creates the entries). Nor in a clause that
    catches only classes its own `try` raises itself, where the payload carries
    the exception's text (`except ValueError as e: return {"error": str(e)}`
    around `raise ValueError("The page size must be ...")`): that is the
    project's own validation message, which a registry entry would lose.

    ## Options
    None.
    """

    code = "MCP001"
    name = "bare-error-return"
    fix_safety = "unsafe"
    # Reads the module's aliases (its tree's expressions: the `ast` twin has its own reader).
    _module_aliases = staticmethod(module_aliases)

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._reported: set[int] = set()
        # `result = {...}` as the last statement of an except clause: id(value) -> (assign, clause, try).
        self._clause_results: dict[int, tuple[cst.Assign, cst.ExceptHandler, cst.Try]] = {}
        self._returns: list[tuple[str, cst.BaseExpression]] = []  # (function, returned value)
        self._walk_reported: set[int] | None = None
        # The walk's returned payloads: (payload, function, site, its message, why no fix).
        self._return_sites: list[tuple[ErrorPayload, str | None, ErrorSite | None, cst.BaseExpression | None, str | None]] = []
        # Calls of a module function given the caught exception's text, returned from an `except`
        # clause: error text when the function hands its first argument's text back.
        self._handed_on: list[tuple[cst.Call, str | None, ErrorSite | None, cst.BaseExpression | None, str | None]] = []
        # `result["error"] = str(e)` in an `except` clause: (function, the local, the assignment).
        self._items_set: list[tuple[str, str, cst.Assign]] = []
        self._clauses_setting: set[tuple[int, str]] = set()
        # The module's error helpers where no other module's are imported: the walk's alone
        # decide them then, the same every round (``_error_helpers``).
        self._own_helpers: dict[str, str] | None = None

    def finish(self) -> None:
        """A call of another module's error helper returned as a success (`return
        tool_error(e)`) is a bare error return where it is returned; the module's own error
        helpers (every return an error payload) are exported for the modules importing them."""
        # finish() runs again when the project context changes: start from what the walk reported.
        if self._walk_reported is None:
            passing = self._text_passing_functions()
            for handed, function, site, error_message, kept in self._handed_on:
                if isinstance(handed.func, cst.Name) and handed.func.value in passing:
                    self._return_sites.append((ErrorPayload(handed, "text"), function, site, error_message, kept))
            self._walk_reported = set(self._reported)
        self._reported = set(self._walk_reported)
        self._report_returns()
        self._report_items_set()
        helpers = self._exported_helpers()

        for function, value in self._returns:

            def helper_kind(call: cst.Call, function: str = function) -> str | None:
                return _helper_kind(call, helpers, self.context, function)

            local_values = self._values_in(function)
            for payload in error_payloads(value, self.context.imports, local_values, helper_kind=helper_kind):
                if id(payload.node) in self._reported:
                    continue
                call = payload.node if isinstance(payload.node, cst.Call) else None
                from_helper = call is not None and helper_kind(call) is not None
                self._reported.add(id(payload.node))
                if from_helper:
                    how = "from an error helper"
                elif _contains(value, payload.node):
                    how = "serialised by a helper and"
                else:  # a helper's return reaching the handler (`ok, message = check(path)`)
                    how = "handed back by a helper and"
                self.report(
                    payload.node,
                    f"Error {'dict' if payload.kind == 'dict' else 'text'} {how} returned as a successful result",
                    advice=RESULT_INSTEAD,
                    function=function,
                    handler_kinds=TOOLS_ONLY if payload.kind == "text" else None,
                    through_return=True,
                    success_only=True,
                )

    def project_inputs(self, project: ProjectContext) -> object:
        return project.imported_error_helpers, project.parameter_classes

    def export(self) -> None:
        self._exported_helpers()

    def _exported_helpers(self) -> dict[str, str]:
        """The module's error helpers, exported for the modules importing them."""
        helpers = self._error_helpers()
        exported = {key: kind for key, kind in helpers.items() if "<locals>" not in key}
        exported.update(self._module_aliases(self.context.facts.aliases, exported))
        self.context.exports["error_helpers"] = exported
        return helpers

    def _error_helpers(self) -> dict[str, str]:
        """Functions of the module every return of which is an error payload (their kind), and
        those that return their first argument serialised (PASS_THROUGH: `dump_json(payload)`)."""
        # Other modules' helpers, and the calls' targets that tell which are called, come with
        # the round's context; without them, what the walk saw decides.
        if self.context.project.imported_error_helpers:
            return self._find_error_helpers()
        if self._own_helpers is None:
            self._own_helpers = self._find_error_helpers()
        return dict(self._own_helpers)

    def _find_error_helpers(self) -> dict[str, str]:
        by_function = self._returns_by_function()
        helpers: dict[str, str] = {}
        changed = True
        while changed:  # helpers may call helpers defined anywhere in the module
            changed = False
            for function, values in by_function.items():
                if function in helpers:
                    continue
                through = self._passes_through(function, values, helpers)
                if through is not None:
                    helpers[function] = through
                    changed = True
                    continue
                local_values = self._values_in(function)
                kind_of = functools.partial(_helper_kind, helpers=helpers, context=self.context, function=function)
                kinds: list[str] = []
                for value in _held_values(values, local_values):
                    found = list(error_payloads(value, self.context.imports, local_values, helper_kind=kind_of))
                    if not found:
                        break
                    kinds.extend(payload.kind for payload in found)
                else:
                    helpers[function] = "dict" if "dict" in kinds else "text"
                    changed = True
        return helpers

    def _passes_through(self, function: str, values: list[cst.BaseExpression], helpers: dict[str, str]) -> str | None:
        """The kind of a helper handing back a parameter (`through_kind`): every return is the
        parameter, serialised (`json.dumps(p, ...)`), put in a `TextContent` as the whole
        result, a value of a dict built around it (`{"data": p, "metadata": ...}`), or through
        another such function; or one return hands the first parameter back untouched (a
        normaliser: `if "success" in response: return response`), so what it is given may be
        what the caller returns."""
        info = self.context.facts.functions.get(function)
        parameters = [name for name in (info.parameters if info else {}) if name not in ("self", "cls")]
        if not parameters:
            return None
        if any(isinstance(value, cst.Name) and value.value == parameters[0] for value in values):
            return PASS_THROUGH
        for position, parameter in enumerate(parameters):
            if all(self._carries(value, parameter, helpers) for value in values):
                return through_kind(position, parameter)
        return None

    def _carries(self, value: cst.BaseExpression, parameter: str, helpers: dict[str, str]) -> bool:
        """The returned value is the parameter, serialised, in a `TextContent`, or in a dict."""
        if isinstance(value, cst.Dict) and not is_error_dict(value) and any(
            isinstance(element, cst.DictElement) and isinstance(element.value, cst.Name) and element.value.value == parameter
            for element in value.elements
        ):
            return True  # `{"data": data, "metadata": {...}}`: an envelope around it
        # `[TextContent(type="text", text=str(t))]`: a response helper; an error text it is
        # given is the tool's whole answer.
        value = text_put_in_content(value, self.context.imports) or value
        while isinstance(value, cst.Call):
            if isinstance(value.func, cst.Attribute) and value.func.attr.value == "decode":
                value = value.func.value  # `orjson.dumps(p).decode("utf-8")`: bytes to text
                continue
            if not value.args:
                break
            name = dotted_name(value.func) or ""
            qualified = self.context.imports.qualify(name) or name
            if qualified not in JSON_SERIALISERS and helpers.get(name) != PASS_THROUGH:
                return False
            value = value.args[0].value
        return isinstance(value, cst.Name) and value.value == parameter

    def _values_in(self, function: str) -> Callable[[str], Sequence[cst.BaseExpression]]:
        """A local's values; for `ok, message = check(path)`, the elements the module's
        function returns there (`return False, "Error: ..."`)."""

        def values(name: str) -> Sequence[cst.BaseExpression]:
            found: list[cst.BaseExpression] = []
            for value in self.context.locals.values(function, name):
                element = element_index(value)
                if element is None:
                    found.append(value)
                    continue
                held, index = element
                if isinstance(held, cst.Await):  # `client, error = await connect(url)`
                    held = held.expression
                if isinstance(held, cst.Tuple):
                    found.extend(_tuple_elements([held], index))
                elif isinstance(held, cst.Call):
                    called = dotted_name(held.func)
                    callee = self.context.local_function(called, function) if called is not None else None
                    returned = [v for f, v in self._returns if f == callee] if callee is not None else []
                    found.extend(_tuple_elements(returned, index))
            return found

        return values

    def visit_Assign(self, node: cst.Assign) -> None:
        self._note_item_set(node)
        ancestors = self.context.ancestors
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name) or len(ancestors) < 4:
            return
        line, block, clause, try_node = ancestors[-1], ancestors[-2], ancestors[-3], ancestors[-4]
        if (
            isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and isinstance(block, cst.IndentedBlock)
            and block.body[-1] is line
            and isinstance(clause, cst.ExceptHandler)
            and isinstance(try_node, cst.Try)
            and try_node.finalbody is None
        ):
            self._clause_results[id(node.value)] = (node, clause, try_node)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None:
            return
        function = self.context.scopes.current_function
        if function is not None:
            self._returns.append((function, node.value))
        payloads = list(error_payloads(node.value, self.context.imports, self._local_values))
        clause = self.context.enclosing_clause()
        caught = bound_name(clause) if clause is not None else None
        if not payloads and caught is not None:
            payloads = [
                ErrorPayload(text, "text")
                for text in caught_texts(node.value, caught, self.context.imports, self._local_values)
            ]
        if not payloads and caught is not None:
            handed = _text_handed_on(node.value, caught, self.context.imports, self._local_values)
            if handed is not None:  # `return _finish(str(exc))`: judged once the module's returns are known
                call, text = handed
                site, error_message = self._site(node, call, text)
                kept = own_message_reason(self.context, clause)
                if kept is not None:
                    site, error_message = None, None
                self._handed_on.append((call, function, site, error_message, kept))
        if not payloads:
            forwarded = _forwarded_error(node.value, self._error_guarded_names(), self.context.imports)
            payloads = [ErrorPayload(forwarded, "dict")] if forwarded is not None else []
        for payload in payloads:
            if id(payload.node) in self._reported:
                continue
            self._reported.add(id(payload.node))
            message = _error_message(payload.node) if payload.kind == "dict" else _text_of(payload.node)
            site, error_message = self._site(node, payload.node, message)
            # `except ValueError as e: return {"error": str(e)}` around the project's own
            # `raise ValueError("...")`: a registry message would lose the text it wrote.
            kept = own_message_reason(self.context, clause) if mentions(node.value, caught) else None
            if kept is not None:
                site, error_message = None, None
            # Reported in finish, which builds the fix from the registry (`walk_reads_registry`).
            self._return_sites.append((payload, function, site, error_message, kept))

    def _returns_by_function(self) -> dict[str, list[cst.BaseExpression]]:
        """The values each function of the module returns, in source order."""
        by_function: dict[str, list[cst.BaseExpression]] = {}
        for function, value in self._returns:
            by_function.setdefault(function, []).append(value)
        return by_function

    def _text_passing_functions(self) -> set[str]:
        """Module functions every return of which hands back their first parameter's text
        (`return text`, `return f"{text}\n\n{note}"`): what they are given is what they return."""
        functions = self.context.facts.functions
        passing = set()
        for key, values in self._returns_by_function().items():
            info = functions.get(key)
            if info is None or "." in key or not info.parameters:
                continue
            first = next(iter(info.parameters))
            if all(_hands_back(value, first) for value in values):
                passing.add(key)
        return passing

    def _note_item_set(self, node: cst.Assign) -> None:
        """`result["error"] = str(e)` in an `except` clause: reported in finish if the function
        returns `result`."""
        function = self.context.scopes.current_function
        if function is None or len(node.targets) != 1:
            return
        clause = self.context.enclosing_clause()
        local = error_item_set(node.targets[0].target, node.value) if clause is not None else None
        # One finding per clause and local (`result["success"] = False; result["error"] = ...`).
        if local is not None and (id(clause), local) not in self._clauses_setting:
            self._clauses_setting.add((id(clause), local))
            self._items_set.append((function, local, node))

    def _report_items_set(self) -> None:
        """A clause that marks a local dict as an error (`result["error"] = str(e)`) where the
        function returns that local: the dict the caller gets says it failed."""
        returned = {(function, value.value) for function, value in self._returns if isinstance(value, cst.Name)}
        for function, local, node in self._items_set:
            if (function, local) in returned and id(node) not in self._reported:
                self._reported.add(id(node))
                self.report(
                    node,
                    "Error dict returned as a successful result (an `except` clause sets its error item)",
                    function=function,
                    advice=RESULT_INSTEAD,
                    through_return=True,
                    success_only=True,
                    unfixed_reason="the error is an item of a dict the function builds and returns",
                )

    def _report_returns(self) -> None:
        for payload, function, site, error_message, kept in self._return_sites:
            # The success becomes an isError result: right for the client, but code that used
            # the returned dict, or an output schema (`-> str` on mcp 1.x), may not expect it.
            fix = registry_error_fix(self.context, site, UNSAFE) if site is not None else None
            if payload.kind == "dict":
                self.report(
                    payload.node,
                    "Error dict returned as a successful result",
                    function=function,
                    advice=RESULT_INSTEAD,
                    through_return=True,
                    fix=fix,
                    error_message=error_message,
                    unfixed_reason=kept,
                    anchors=fix_anchors(site.statement if site is not None else None),
                    success_only=True,
                )
            else:
                self.report(
                    payload.node,
                    "Error text returned as a successful tool result; return an isError "
                    "result (or raise a registry error) instead",
                    function=function,
                    handler_kinds=TOOLS_ONLY,
                    through_return=True,
                    fix=fix,
                    error_message=error_message,
                    unfixed_reason=kept,
                    anchors=fix_anchors(site.statement if site is not None else None),
                    success_only=True,
                )

    def _error_guarded_names(self) -> set[str]:
        """Locals an enclosing `if` of the function has found to hold an error
        (`if "error" in result:`, `if result.get("error"):`)."""
        names: set[str] = set()
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            ancestor = ancestors[index]
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                break
            inside = ancestors[index + 1] if index + 1 < len(ancestors) else None
            if isinstance(ancestor, cst.If) and inside is ancestor.body:  # not its `else`
                names.update(error_tested(ancestor.test))
        return names

    def _site(
        self, statement: cst.Return, payload: cst.CSTNode, message: cst.BaseExpression | None
    ) -> tuple[ErrorSite | None, cst.BaseExpression | None]:
        """The site a fix rewrites (the `return`), and its registry message. A payload assigned
        to a local and returned later has a message but no site (the local may hold a success
        too), unless the assignment ends an except clause the `return` follows."""
        function = self.context.scopes.current_function
        site_statement: cst.Return | cst.Raise | cst.Assign = statement
        clause = self.context.enclosing_clause()
        if statement.value is None or not _contains(statement.value, payload):
            assigned = self._result_of_clause(statement, payload)
            if assigned is None:
                caught = bound_name(clause) if clause is not None else None
                return None, site_message(message, function, caught) if message is not None else None
            site_statement, clause = assigned
        caught = bound_name(clause) if clause is not None else None
        registry_message = site_message(message, function, caught) if message is not None else None
        site = ErrorSite(
            site_statement,
            registry_message,
            function,
            clause,
            hides_cause=clause is not None,
            annotation=self.context.return_annotation(),
            details=_details(payload, caught),
        )
        return site, registry_message

    def _result_of_clause(
        self, statement: cst.Return, payload: cst.CSTNode
    ) -> tuple[cst.Assign, cst.ExceptHandler] | None:
        """`except E as e: ...; result = {"error": ...}` then, right after the `try`,
        `return result`: the assignment is where the failure is told, and a raise (or, in the
        handler, a returned result) in its place ends the same path the same way."""
        found = self._clause_results.get(id(payload))
        if found is None or not isinstance(statement.value, cst.Name):
            return None
        assign, clause, try_node = found
        target = assign.targets[0].target
        if not isinstance(target, cst.Name) or target.value != statement.value.value:
            return None
        ancestors = self.context.ancestors
        line, block = ancestors[-1], ancestors[-2] if len(ancestors) > 1 else None
        body = getattr(block, "body", ())
        if not isinstance(line, cst.SimpleStatementLine) or line not in body:
            return None
        index = [id(item) for item in body].index(id(line))
        return (assign, clause) if index > 0 and body[index - 1] is try_node else None

    def _local_values(self, name: str) -> Sequence[cst.BaseExpression]:
        return self.context.locals.values(self.context.scopes.current_function, name)


def _held_values(
    values: Sequence[cst.BaseExpression], local_values: Callable[[str], Sequence[cst.BaseExpression]]
) -> list[cst.BaseExpression]:
    """The values a function returns, a returned local standing for every value it is given
    (`result = {"error": ...}` in one branch, `result = {"imported": n}` in another) and a
    conditional for both of its values (`result if ok else {"success": False}`): a helper
    returns an error only when each of them is one."""
    held: list[cst.BaseExpression] = []
    pending, seen = list(values), set()
    while pending:
        value = pending.pop()
        if isinstance(value, cst.Await):
            value = value.expression
        if isinstance(value, cst.IfExp):
            pending.extend((value.body, value.orelse))
            continue
        if isinstance(value, cst.Name) and value.value not in seen:
            given = local_values(value.value)
            if given:
                seen.add(value.value)
                pending.extend(given)
                continue
        held.append(value)
    return held


def _helper_kind(
    call: cst.Call, helpers: dict[str, str], context: RuleContext, function: str | None = None
) -> str | None:
    """The payload kind a call of a module function or another module's error helper returns
    (imported, or a method of an object whose class is known: `errors.tool_error(...)`)."""
    name = dotted_name(call.func)
    if name is None:
        return None
    if name in helpers:
        return helpers[name]
    known = dict(context.project.imported_error_helpers)
    if not known:
        return None
    targets = [context.imports.qualify(name), *context.external_calls(name, function)]
    return next((known[target] for target in targets if target in known), None)



def _forwarded_error(value: cst.BaseExpression, guarded: set[str], imports: ImportTable) -> cst.BaseExpression | None:
    """The returned value that forwards an error the function found (`return result`,
    `return json.dumps({**result, "timed_out": False})` under `if "error" in result:`)."""
    if not guarded:
        return None
    while isinstance(value, cst.Call) and (imports.qualified_name(value.func) or "") in JSON_SERIALISERS and value.args:
        value = value.args[0].value
    if isinstance(value, cst.Name) and value.value in guarded:
        return value
    if isinstance(value, cst.Dict) and any(
        isinstance(element, cst.StarredDictElement)
        and isinstance(element.value, cst.Name)
        and element.value.value in guarded
        for element in value.elements
    ):
        return value
    return None


def _contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    pending = [root]
    while pending:
        current = pending.pop()
        if current is node:
            return True
        pending.extend(children(current))
    return False


def _tuple_elements(values: Sequence[cst.BaseExpression], index: int) -> list[cst.BaseExpression]:
    """Element ``index`` of each literal tuple among ``values``."""
    return [
        value.elements[index].value
        for value in values
        if isinstance(value, cst.Tuple) and index < len(value.elements) and not isinstance(value.elements[index], cst.StarredElement)
    ]
