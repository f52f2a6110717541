"""MCP001 read from CPython's `ast` (the port's twin of ``mcp001_bare_error_return``).

Every judgement (which returns carry an error payload, which functions are error helpers
or hand a parameter back, where a fix may rewrite) reads `ast`'s nodes. What the fix and
the migration consume stays LibCST's: a site is noted with its `ast` nodes during the walk
and turned into the original's ``ErrorSite`` (its registry message, its details) in
``finish``, from the LibCST nodes the context's ``libcst_of`` gives.

`ast` has no node for a block or a line of statements: where the original asks whether a
statement is alone on its line and the last of an indented block, or whether a line
directly follows a `try`, the module's text tells (as the builder of LibCST's tree
groups statements: ``analysis/ast_cst.py``).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import libcst as cst

from mcplint.analysis.catching_ast import clause_of
from mcplint.analysis.error_payloads import JSON_SERIALISERS, PASS_THROUGH, through_kind
from mcplint.analysis.error_payloads_ast import (
    ERROR_KEYS,
    ErrorPayload,
    _first_argument,
    caught_texts,
    error_item_set,
    error_payloads,
    error_tested,
    is_error_dict,
    string_value,
    text_put_in_content,
)
from mcplint.analysis.exception_flow_ast import bound_name
from mcplint.analysis.handlers_ast import module_aliases
from mcplint.analysis.imports_ast import AstImportTable, dotted_name, name_text
from mcplint.analysis.locals_ast import element_index
from mcplint.analysis.source_text import SourceText
from mcplint.analysis.walk_ast import children, own_nodes
from mcplint.finding import UNSAFE
from mcplint.registry.match import site_message
from mcplint.rules.advice import RESULT_INSTEAD
from mcplint.rules.base import RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.fix_context_ast import fix_context
from mcplint.rules.mcp001_bare_error_return import TOOLS_ONLY, BareErrorReturn, _details
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, kept_message_reason, registry_error_fix

# Nodes that open a scope of their own.
_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
# The statements LibCST puts in a line (``SimpleStatementLine``), `;` joining them.
_SMALL = frozenset(
    {
        ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Raise, ast.Assert, ast.Delete, ast.Pass,
        ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom,
    }
)  # fmt: skip
_MESSAGE_KEYS = (*sorted(ERROR_KEYS), "message")


@dataclass(frozen=True)
class _Site:
    """Where a fix may rewrite a returned payload, in `ast` nodes: the statement (None: no
    site, only a registry message), its `except` clause, and what the original's
    ``ErrorSite`` and registry message are made from."""

    statement: ast.Return | ast.Assign | None
    clause: ast.ExceptHandler | None
    caught: str | None  # the name the clause binds, the message's exception
    function: str | None
    message: ast.expr | None
    annotation: ast.expr | None
    payload: ast.AST


# (payload, function, where a fix may rewrite it (None: neither a site nor a message), why no fix)
_ReturnSite = tuple[ErrorPayload, "str | None", "_Site | None", "str | None"]


class AstBareErrorReturn(BareErrorReturn):
    context: AstRuleContext
    _module_aliases = staticmethod(module_aliases)  # type: ignore[assignment]  # `ast` expressions here

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        # `result = {...}` as the last statement of an except clause: id(value) -> (assign, clause, try).
        self._clause_assigns: dict[int, tuple[ast.Assign, ast.ExceptHandler, ast.Try]] = {}
        self._returned: list[tuple[str, ast.expr]] = []  # (function, returned value)
        self._sites: list[_ReturnSite] = []
        self._handed: list[tuple[ast.Call, str | None, _Site | None, str | None]] = []
        self._assigned_items: list[tuple[str, str, ast.Assign]] = []

    # The context's tables and walk are the twins', typed as the original's in ``RuleContext``.
    @property
    def _imports(self) -> AstImportTable:
        return cast(AstImportTable, self.context.imports)

    @property
    def _ancestors(self) -> list[ast.AST]:
        return cast("list[ast.AST]", self.context.ancestors)

    def finish(self) -> None:
        # finish() runs again when the project context changes: start from what the walk reported.
        if self._walk_reported is None:
            passing = self._text_passing_functions()
            for handed, function, site, kept in self._handed:
                if type(handed.func) is ast.Name and handed.func.id in passing:
                    self._sites.append((ErrorPayload(handed, "text"), function, site, kept))
            self._walk_reported = set(self._reported)
        self._reported = set(self._walk_reported)
        self._report_returns()
        self._report_items_set()
        helpers = self._exported_helpers()

        for function, value in self._returned:

            def helper_kind(call: ast.Call, function: str = function) -> str | None:
                return _helper_kind(call, helpers, self.context, function)

            local_values = self._values_in(function)
            for payload in error_payloads(value, self.context.source, self._imports, local_values, helper_kind=helper_kind):
                if id(payload.node) in self._reported:
                    continue
                call = payload.node if type(payload.node) is ast.Call else None
                from_helper = call is not None and helper_kind(call) is not None
                self._reported.add(id(payload.node))
                if from_helper:
                    how = "from an error helper"
                elif _contains(value, payload.node):
                    how = "serialised by a helper and"
                else:  # a helper's return reaching the handler (`ok, message = check(path)`)
                    how = "handed back by a helper and"
                self.report(
                    payload.node,  # type: ignore[arg-type]
                    f"Error {'dict' if payload.kind == 'dict' else 'text'} {how} returned as a successful result",
                    advice=RESULT_INSTEAD,
                    function=function,
                    handler_kinds=TOOLS_ONLY if payload.kind == "text" else None,
                    through_return=True,
                    success_only=True,
                )

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
                    found = list(error_payloads(value, self.context.source, self._imports, local_values, helper_kind=kind_of))
                    if not found:
                        break
                    kinds.extend(payload.kind for payload in found)
                else:
                    helpers[function] = "dict" if "dict" in kinds else "text"
                    changed = True
        return helpers

    def _passes_through(self, function: str, values: list[ast.expr], helpers: dict[str, str]) -> str | None:  # type: ignore[override]
        info = self.context.facts.functions.get(function)
        parameters = [name for name in (info.parameters if info else {}) if name not in ("self", "cls")]
        if not parameters:
            return None
        if any(type(value) is ast.Name and value.id == parameters[0] for value in values):
            return PASS_THROUGH
        for position, parameter in enumerate(parameters):
            if all(self._carries(value, parameter, helpers) for value in values):
                return through_kind(position, parameter)
        return None

    def _carries(self, value: ast.expr, parameter: str, helpers: dict[str, str]) -> bool:  # type: ignore[override]
        if (
            type(value) is ast.Dict
            and not is_error_dict(value, self.context.source)
            and any(
                key is not None and type(item) is ast.Name and item.id == parameter
                for key, item in zip(value.keys, value.values, strict=True)
            )
        ):
            return True  # `{"data": data, "metadata": {...}}`: an envelope around it
        # `[TextContent(type="text", text=str(t))]`: a response helper; an error text it is
        # given is the tool's whole answer.
        value = text_put_in_content(value, self._imports) or value
        while type(value) is ast.Call:
            func = value.func
            if type(func) is ast.Attribute and func.attr == "decode":
                value = func.value  # `orjson.dumps(p).decode("utf-8")`: bytes to text
                continue
            if not value.args and not value.keywords:
                break
            name = dotted_name(func) or ""
            qualified = self._imports.qualify(name) or name
            if qualified not in JSON_SERIALISERS and helpers.get(name) != PASS_THROUGH:
                return False
            value = cast(ast.expr, _first_argument(value))  # the first written, however passed
        return type(value) is ast.Name and value.id == parameter

    def _values_in(self, function: str) -> Callable[[str], Sequence[ast.expr]]:  # type: ignore[override]
        def values(name: str) -> Sequence[ast.expr]:
            found: list[ast.expr] = []
            for value in self.context.locals.values(function, name):
                element = element_index(value)  # type: ignore[arg-type]
                if element is None:
                    found.append(value)  # type: ignore[arg-type]
                    continue
                held, index = element
                if type(held) is ast.Await:  # `client, error = await connect(url)`
                    held = held.value
                if type(held) is ast.Tuple:
                    found.extend(_tuple_elements([held], index))
                elif type(held) is ast.Call:
                    called = dotted_name(held.func)
                    callee = self.context.local_function(called, function) if called is not None else None
                    returned = [v for f, v in self._returned if f == callee] if callee is not None else []
                    found.extend(_tuple_elements(returned, index))
            return found

        return values

    def visit_Assign(self, node: ast.Assign) -> None:  # type: ignore[override]
        self._note_item_set(node)
        ancestors = self._ancestors
        if len(node.targets) != 1 or type(node.targets[0]) is not ast.Name or len(ancestors) < 2:
            return
        try_node, clause = ancestors[-2:]
        # Alone on the last line of an indented `except` block (LibCST: the line, the block).
        if (
            type(clause) is ast.ExceptHandler
            and type(try_node) is ast.Try
            and not try_node.finalbody
            and clause.body[-1] is node
            and not _after_colon(self.context.source, clause.body)
            and _line_start(self.context.source, clause.body, len(clause.body) - 1) == len(clause.body) - 1
        ):
            self._clause_assigns[id(node.value)] = (node, clause, try_node)

    def visit_Return(self, node: ast.Return) -> None:  # type: ignore[override]
        if node.value is None:
            return
        value = node.value
        source, imports = self.context.source, self._imports
        function = self.context.scopes.current_function
        if function is not None:
            self._returned.append((function, value))
        payloads = list(error_payloads(value, source, imports, self._local_values))
        clause = self.context.enclosing_clause()
        caught = bound_name(clause) if clause is not None else None
        if not payloads and caught is not None:
            payloads = [
                ErrorPayload(text, "text") for text in caught_texts(value, source, caught, imports, self._local_values)
            ]
        if not payloads and caught is not None:
            handed = _text_handed_on(value, caught, source, imports, self._local_values)
            if handed is not None:  # `return _finish(str(exc))`: judged once the module's returns are known
                call, text = handed
                kept = _own_message_reason(self.context, clause)
                site = self._site(node, call, text) if kept is None else None
                self._handed.append((call, function, site, kept))
        if not payloads:
            forwarded = _forwarded_error(value, self._error_guarded_names(node), imports)
            payloads = [ErrorPayload(forwarded, "dict")] if forwarded is not None else []
        for payload in payloads:
            if id(payload.node) in self._reported:
                continue
            self._reported.add(id(payload.node))
            message = _error_message(payload.node, source) if payload.kind == "dict" else _text_of(payload.node)
            # `except ValueError as e: return {"error": str(e)}` around the project's own
            # `raise ValueError("...")`: a registry message would lose the text it wrote.
            kept = _own_message_reason(self.context, clause) if _mentions(value, caught) else None
            site = self._site(node, payload.node, message) if kept is None else None
            # Reported in finish, which builds the fix from the registry (`walk_reads_registry`).
            self._sites.append((payload, function, site, kept))

    def _returns_by_function(self) -> dict[str, list[ast.expr]]:  # type: ignore[override]
        by_function: dict[str, list[ast.expr]] = {}
        for function, value in self._returned:
            by_function.setdefault(function, []).append(value)
        return by_function

    def _text_passing_functions(self) -> set[str]:
        functions = self.context.facts.functions
        passing = set()
        source = self.context.source
        for key, values in self._returns_by_function().items():
            info = functions.get(key)
            if info is None or "." in key or not info.parameters:
                continue
            first = next(iter(info.parameters))
            if all(_hands_back(value, first, source) for value in values):
                passing.add(key)
        return passing

    def _note_item_set(self, node: ast.Assign) -> None:  # type: ignore[override]
        function = self.context.scopes.current_function
        if function is None or len(node.targets) != 1:
            return
        clause = self.context.enclosing_clause()
        local = error_item_set(node.targets[0], node.value, self.context.source) if clause is not None else None
        # One finding per clause and local (`result["success"] = False; result["error"] = ...`).
        if local is not None and (id(clause), local) not in self._clauses_setting:
            self._clauses_setting.add((id(clause), local))
            self._assigned_items.append((function, local, node))

    def _report_items_set(self) -> None:
        # `None`, `True`, `False` are names to LibCST: `None["error"] = ...` and `return None` match there.
        returned = {(function, name_text(value)) for function, value in self._returned}
        for function, local, node in self._assigned_items:
            if (function, local) in returned and id(node) not in self._reported:
                self._reported.add(id(node))
                self.report(
                    node,  # type: ignore[arg-type]
                    "Error dict returned as a successful result (an `except` clause sets its error item)",
                    function=function,
                    advice=RESULT_INSTEAD,
                    through_return=True,
                    success_only=True,
                    unfixed_reason="the error is an item of a dict the function builds and returns",
                )

    def _report_returns(self) -> None:
        # A site's LibCST nodes serve a registry's fix and the finding's template alone: a check
        # without a registry to fix from builds none (most of its fixes' nodes otherwise).
        registry = self.context.registry
        wanted = self.context.templates or (registry is not None and bool(registry.helpers_module))
        for payload, function, noted, kept in self._sites:
            site, error_message = self._error_site(noted) if noted is not None and wanted else (None, None)
            # The success becomes an isError result: right for the client, but code that used
            # the returned dict, or an output schema (`-> str` on mcp 1.x), may not expect it.
            fix = None
            if site is not None:
                assert noted is not None and noted.statement is not None
                fix = registry_error_fix(fix_context(self.context, noted.statement, noted.clause), site, UNSAFE)
            anchors = fix_anchors(site.statement if site is not None else None)
            if payload.kind == "dict":
                self.report(
                    payload.node,  # type: ignore[arg-type]
                    "Error dict returned as a successful result",
                    function=function,
                    advice=RESULT_INSTEAD,
                    through_return=True,
                    fix=fix,
                    error_message=error_message,
                    unfixed_reason=kept,
                    anchors=anchors,
                    success_only=True,
                )
            else:
                self.report(
                    payload.node,  # type: ignore[arg-type]
                    "Error text returned as a successful tool result; return an isError "
                    "result (or raise a registry error) instead",
                    function=function,
                    handler_kinds=TOOLS_ONLY,
                    through_return=True,
                    fix=fix,
                    error_message=error_message,
                    unfixed_reason=kept,
                    anchors=anchors,
                    success_only=True,
                )

    def _error_site(self, noted: _Site) -> tuple[ErrorSite | None, cst.BaseExpression | None]:
        """The original's site and registry message, of LibCST's nodes."""
        libcst_of = self.context.libcst_of
        message = cast("cst.BaseExpression | None", libcst_of(noted.message)) if noted.message is not None else None
        registry_message = site_message(message, noted.function, noted.caught) if message is not None else None
        statement = libcst_of(noted.statement) if noted.statement is not None else None
        if not isinstance(statement, (cst.Return, cst.Assign)):
            return None, registry_message
        site = ErrorSite(
            statement,
            registry_message,
            noted.function,
            cast("cst.ExceptHandler | None", libcst_of(noted.clause)) if noted.clause is not None else None,
            hides_cause=noted.clause is not None,
            annotation=cast("cst.BaseExpression | None", libcst_of(noted.annotation)) if noted.annotation is not None else None,
            details=_details(cast(cst.CSTNode, libcst_of(noted.payload)), noted.caught),
        )
        return site, registry_message

    def _error_guarded_names(self, statement: ast.Return) -> set[str]:  # type: ignore[override]
        names: set[str] = set()
        ancestors = self._ancestors
        for index in range(len(ancestors) - 1, -1, -1):
            ancestor = ancestors[index]
            if type(ancestor) in _SCOPES:
                break
            if type(ancestor) is ast.If:
                inside = ancestors[index + 1] if index + 1 < len(ancestors) else statement
                if any(child is inside for child in ancestor.body):  # not its `else`
                    names.update(error_tested(ancestor.test, self.context.source))
        return names

    def _site(self, statement: ast.Return, payload: ast.AST, message: ast.expr | None) -> _Site:  # type: ignore[override]
        function = self.context.scopes.current_function
        site_statement: ast.Return | ast.Assign = statement
        clause = self.context.enclosing_clause()
        if statement.value is None or not _contains(statement.value, payload):
            assigned = self._result_of_clause(statement, payload)
            if assigned is None:
                caught = bound_name(clause) if clause is not None else None
                return _Site(None, None, caught, function, message, None, payload)
            site_statement, clause = assigned
        caught = bound_name(clause) if clause is not None else None
        return _Site(site_statement, clause, caught, function, message, self.context.return_annotation(), payload)

    def _result_of_clause(self, statement: ast.Return, payload: ast.AST) -> tuple[ast.Assign, ast.ExceptHandler] | None:  # type: ignore[override]
        found = self._clause_assigns.get(id(payload))
        if found is None or type(statement.value) is not ast.Name:
            return None
        assign, clause, try_node = found
        target = assign.targets[0]
        if type(target) is not ast.Name or target.id != statement.value.id:
            return None
        ancestors = self._ancestors
        parent = ancestors[-1] if ancestors else None
        block = _block_of(parent, statement)
        # On a line of its own block (LibCST: not after a colon), the line right after the `try`.
        if block is None or (type(parent) is not ast.Module and _after_colon(self.context.source, block)):
            return None
        index = _line_start(self.context.source, block, next(i for i, item in enumerate(block) if item is statement))
        return (assign, clause) if index > 0 and block[index - 1] is try_node else None

    def _local_values(self, name: str) -> Sequence[ast.expr]:  # type: ignore[override]
        return self.context.locals.values(self.context.scopes.current_function, name)  # type: ignore[return-value]


def _own_message_reason(context: AstRuleContext, clause: ast.ExceptHandler | None) -> str | None:
    """``registry_fix.own_message_reason`` of an `ast` clause."""
    if clause is None:
        return None
    return kept_message_reason(clause_of(clause)[0], context.own_raises(clause))  # type: ignore[arg-type]


def _mentions(message: ast.expr, name: str | None) -> bool:
    """``registry_fix.mentions``: the message uses the caught exception (`f"... {e}"`)."""
    return name is not None and any(type(node) is ast.Name and node.id == name for node in own_nodes(message))


def _error_message(payload: ast.AST, source: SourceText) -> ast.expr | None:
    """The message of an error dict: its `error` (or `message`) string."""
    if type(payload) is not ast.Dict:
        return None
    for key in _MESSAGE_KEYS:
        for item_key, value in zip(payload.keys, payload.values, strict=True):
            if item_key is not None and string_value(item_key, source) == key and _is_message_value(value):
                return value
    return None


def _is_message_value(value: ast.expr) -> bool:
    """LibCST's string (plain, formatted, concatenated), call or name (`None`, `True`,
    `False` among them)."""
    kind = type(value)
    if kind is ast.Constant:
        constant = value.value  # type: ignore[attr-defined]
        return type(constant) in (str, bytes) or constant is None or constant is True or constant is False
    return kind is ast.JoinedStr or kind is ast.Call or kind is ast.Name


def _text_handed_on(
    value: ast.expr, caught: str, source: SourceText, imports: AstImportTable, local_values: Callable[[str], Sequence[ast.expr]]
) -> tuple[ast.Call, ast.expr] | None:
    """`_finish(str(exc))`: a call of a plain name whose first argument is the caught
    exception's text (the call, the text)."""
    if type(value) is not ast.Call or name_text(value.func) is None:
        return None
    # The first argument written, if positional: a keyword can only come before a starred one.
    if not value.args or type(value.args[0]) is ast.Starred:
        return None
    texts = list(caught_texts(value.args[0], source, caught, imports, local_values))
    return (value, texts[0]) if texts else None


def _hands_back(value: ast.expr, parameter: str, source: SourceText) -> bool:
    """The returned value is the parameter's text: itself, a string starting with it, or
    either branch of a conditional doing so."""
    if type(value) is ast.IfExp:
        return _hands_back(value.body, parameter, source) and _hands_back(value.orelse, parameter, source)
    if type(value) is ast.Name:
        return value.id == parameter
    if type(value) is ast.JoinedStr:
        # LibCST's first part is a field where the f-string's text opens with one (`{x=}`'s
        # text comes first in `ast`), and only of an f-string of one token.
        field = next((part for part in value.values if type(part) is ast.FormattedValue), None)
        return field is not None and _opens_with_field(value, source) and _hands_back(field.value, parameter, source)
    if type(value) is ast.BinOp and type(value.op) is ast.Add:
        return _hands_back(value.left, parameter, source)
    return False


def _opens_with_field(fstring: ast.JoinedStr, source: SourceText) -> bool:
    text, start = source.text, source.start(fstring)
    if not source.one_token(fstring):
        return False
    index = start
    while text[index] not in "'\"":
        index += 1
    quote = text[index] * 3 if text.startswith(text[index] * 3, index) else text[index]
    body = index + len(quote)
    return text[body] == "{" and text[body + 1] != "{"


def _text_of(payload: ast.AST) -> ast.expr | None:
    """The text of an error-text payload: the string itself, or `TextContent(text=...)`'s."""
    if type(payload) is ast.Call:
        texts = [keyword.value for keyword in payload.keywords if keyword.arg == "text"]
        return texts[0] if texts else None
    return payload if isinstance(payload, ast.expr) else None


def _held_values(values: Sequence[ast.expr], local_values: Callable[[str], Sequence[ast.expr]]) -> list[ast.expr]:
    """``mcp001_bare_error_return._held_values`` (a `None` is looked up in vain there)."""
    held: list[ast.expr] = []
    pending, seen = list(values), set()
    while pending:
        value = pending.pop()
        if type(value) is ast.Await:
            value = value.value
        if type(value) is ast.IfExp:
            pending.extend((value.body, value.orelse))
            continue
        if type(value) is ast.Name and value.id not in seen:
            given = local_values(value.id)
            if given:
                seen.add(value.id)
                pending.extend(given)
                continue
        held.append(value)
    return held


def _helper_kind(call: ast.Call, helpers: dict[str, str], context: RuleContext, function: str | None = None) -> str | None:
    """``mcp001_bare_error_return._helper_kind`` of an `ast` call."""
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


def _forwarded_error(value: ast.expr, guarded: set[str], imports: AstImportTable) -> ast.expr | None:
    """The returned value that forwards an error the function found (`return result`,
    `return json.dumps({**result, "timed_out": False})` under `if "error" in result:`)."""
    if not guarded:
        return None
    while (
        type(value) is ast.Call
        and (imports.qualified_name(value.func) or "") in JSON_SERIALISERS
        and (value.args or value.keywords)
    ):
        value = cast(ast.expr, _first_argument(value))
    if name_text(value) in guarded:
        return value
    if type(value) is ast.Dict and any(
        key is None and name_text(item) in guarded for key, item in zip(value.keys, value.values, strict=True)
    ):
        return value
    return None


def _contains(root: ast.AST, node: ast.AST) -> bool:
    pending = [root]
    while pending:
        current = pending.pop()
        if current is node:
            return True
        pending.extend(children(current))
    return False


def _tuple_elements(values: Sequence[ast.expr], index: int) -> list[ast.expr]:
    """Element ``index`` of each literal tuple among ``values``."""
    return [
        value.elts[index]
        for value in values
        if type(value) is ast.Tuple and index < len(value.elts) and type(value.elts[index]) is not ast.Starred
    ]


# -- lines and blocks, as LibCST's tree has them -------------------------------------------
def _block_of(parent: ast.AST | None, statement: ast.stmt) -> list[ast.stmt] | None:
    """The statement list of ``parent`` (its body, `else` or `finally`) holding the statement."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if type(block) is list and any(item is statement for item in block):
            return block
    return None


def _after_colon(source: SourceText, block: Sequence[ast.stmt]) -> bool:
    """Whether a block's statements follow its colon on its line (LibCST's
    ``SimpleStatementSuite``, not an ``IndentedBlock``)."""
    text = source.text
    index = source.start(block[0]) - 1
    while index >= 0 and text[index] in " \t\f":
        index -= 1
    return index >= 0 and text[index] == ":"


def _line_start(source: SourceText, block: Sequence[ast.stmt], index: int) -> int:
    """The index in ``block`` of the first statement of the line (LibCST's
    ``SimpleStatementLine``) that ``block[index]`` is on: `;` joins simple statements."""
    text = source.text
    while index > 0 and type(block[index]) in _SMALL and type(block[index - 1]) in _SMALL:
        after = source.end(block[index - 1])
        while after < len(text) and text[after] in " \t\f":
            after += 1
        if after >= len(text) or text[after] != ";":
            break
        index -= 1
    return index
