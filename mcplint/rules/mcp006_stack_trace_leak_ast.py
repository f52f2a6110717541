"""MCP006 read from CPython's `ast`: the port's twin of ``mcp006_stack_trace_leak.py``.

The flow is ``exception_flow_ast``'s (it takes the module's text); the fixes and the
migration's messages stay LibCST's, built from the nodes ``context.libcst_of`` gives for the
site. A leak whose origin is an f-string's ``{...}`` part is found on its
``ast.FormattedValue`` (on Python 3.11 placed as the whole string): the finding is on that
node, which ``libcst_of`` gives as the part (LibCST's ``FormattedStringExpression``) and
``ast_cst.NodeSpans`` places where the builder put the part.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from mcplint.analysis.catching import CATCH_ALL
from mcplint.analysis.catching_ast import clause_of
from mcplint.analysis.exception_flow_ast import (
    STRINGIFIERS,
    ExceptionFlow,
    Leak,
    StdioDetector,
    owned_text_classes,
    text_helper,
)
from mcplint.analysis.handlers_ast import module_aliases
from mcplint.analysis.imports_ast import AstImportTable, dotted_name, name_text
from mcplint.analysis.project import TextHelperEntry
from mcplint.analysis.walk_ast import body_nodes, own_nodes
from mcplint.finding import UNSAFE
from mcplint.registry.codegen import helper_name
from mcplint.registry.match import site_message
from mcplint.rules.base import FixSpec, RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.fix_context_ast import fix_context
from mcplint.rules.mcp006_stack_trace_leak import StackTraceLeak, _message
from mcplint.rules.mcp006_stack_trace_leak import _sanitising_fix as _libcst_sanitising_fix
from mcplint.rules.registry_fix import ErrorSite, exception_log_line, fix_anchors, registry_error_fix

Function = ast.FunctionDef | ast.AsyncFunctionDef
# What LibCST calls a small statement (a line's statement that holds no block).
_SMALL = (
    ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Raise, ast.Assert, ast.Delete, ast.Pass,
    ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom,
)  # fmt: skip
# A raise site, in `ast` nodes: (the raise, its clause, the message written, the function's
# return annotation).
_AstSite = tuple[ast.Raise, ast.ExceptHandler, ast.expr, ast.expr | None]


class AstStackTraceLeak(StackTraceLeak):
    context: AstRuleContext
    _module_aliases = staticmethod(module_aliases)  # type: ignore[assignment]  # `ast` expressions here

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        assert isinstance(context, AstRuleContext)
        imports: AstImportTable = context.imports  # type: ignore[assignment]
        self._flow = ExceptionFlow(imports, text=context.text, sanitizers=self.settings["sanitizers"])  # type: ignore[assignment]
        self._stdio = StdioDetector(imports, text=context.text)  # type: ignore[assignment]

    def visit_FunctionDef(self, node: Function) -> None:  # type: ignore[override]
        key = self.context.scopes.qualname_for(node.name)
        info = self.context.facts.functions.get(key)
        self._flow.add_function(key, node, info.class_key if info is not None else None)  # type: ignore[arg-type]

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # type: ignore[override]
        if node.names[0].name == "*":
            return
        package = "." if node.level else (node.module or "").partition(".")[0]
        for alias in node.names:
            if package:
                self._imports_from_package.append((package, alias.asname or alias.name))

    def visit_Assign(self, node: ast.Assign) -> None:  # type: ignore[override]
        self._stdio.visit_Assign(node, at_module_level=not self.context.scopes.frames)  # type: ignore[arg-type]

    def visit_Call(self, node: ast.Call) -> None:  # type: ignore[override]
        self._stdio.visit_Call(node)  # type: ignore[arg-type]

    def finish(self) -> None:
        exported, raising, leaks = self._judge(self.context.project.imported_text_helpers)
        self._export(exported, raising)
        libcst_of = self.context.libcst_of
        logged: set[int] = set()  # the clauses a fix logs in already: one line each
        for leak in leaks:
            plain_fix = self._logging(self._sanitising_fix(leak.origin.node), leak, logged)
            found = self._raise_site(leak)
            site = self._libcst_site(leak, found) if found is not None else None
            if site is not None and found is not None:
                fix = registry_error_fix(fix_context(self.context, found[0], found[1]), site, UNSAFE, fallback=plain_fix)
            else:
                fix = plain_fix
            clause = found[1] if found is not None else self.context.return_clause(leak.sink.node)  # type: ignore[arg-type]
            kept = self._own_message_reason(clause)  # type: ignore[arg-type]
            self.report(
                leak.origin.node,  # type: ignore[arg-type]
                _message(leak),  # type: ignore[arg-type]
                function=leak.function,
                through_return=leak.sink.through_return,
                fix=None if kept else fix,
                error_message=site.message if site is not None and not kept else None,
                anchors=fix_anchors(libcst_of(found[0]) if found is not None else None),
                unfixed_reason=kept or (_left_reason(leak) if fix is None else None),
            )

    def _judge(  # type: ignore[override]
        self, helpers: tuple[TextHelperEntry, ...], leaks: bool = True
    ) -> tuple[dict[str, list[list[str]]], dict[str, list[list[str]]], list[Leak]]:
        imported = {name: (positional, keyword_only, returned) for name, positional, keyword_only, returned in helpers}
        registry = self.context.registry
        helpers_module = registry.helpers_module if registry is not None else None
        helper_names = frozenset(helper_name(domain) for domain in registry.domains) if registry is not None else frozenset()
        project = self.context.project
        runs_stdio = self._stdio.is_stdio({name for name, _, _ in project.imported_servers})
        self.context.runs_stdio = runs_stdio
        flow: ExceptionFlow = self._flow  # type: ignore[assignment]
        flow.stdio = runs_stdio or project.stdio_transport
        flow.helpers_module = helpers_module
        flow.helper_names = helper_names
        flow.external_calls = self.context.external_calls
        flow.imported_text_helpers = imported
        flow.imported_raisers = {name: (frozenset(own), frozenset(text)) for name, own, text in project.imported_raisers}
        if project.module != self._flow_module:
            flow.forget()
            self._flow_module = project.module
        else:
            flow.drop_stale()
        flow.project_classes = frozenset(self.context.facts.class_bases)
        own_package = (self.context.project.module or "").partition(".")[0]
        self._project_imports = {
            bound for package, bound in self._imports_from_package if package in (".", own_package)
        }
        flow.project_imports = frozenset(self._project_imports)
        reached = self.context.reached
        exported, raising = {}, {}
        for key, sources in flow.functions.items():
            if "<locals>" not in key and (reached is None or key in reached):
                summary = flow.summary(key)
                helper = text_helper(summary, sources[-1].node)
                if helper is not None:
                    exported[key] = [list(part) for part in helper]
                own = owned_text_classes(summary.raised_own)
                if own:
                    raising[key] = [sorted(own), sorted(summary.raised_text)]
        return exported, raising, flow.leaks(reached) if leaks else []

    def _raise_site(self, leak: Leak) -> _AstSite | None:  # type: ignore[override]
        """``mcp006._raise_site``, in `ast` nodes."""
        raise_node = leak.sink.node
        if type(raise_node) is not ast.Raise or type(raise_node.exc) is not ast.Call:
            return None
        clause, annotation = self.context.raise_place(raise_node)  # type: ignore[arg-type]
        written = _raised_message(raise_node.exc)
        if clause is None or written is None or self._raises_project_class(raise_node.exc):
            return None
        return raise_node, clause, written, annotation  # type: ignore[return-value]

    def _libcst_site(self, leak: Leak, found: _AstSite) -> ErrorSite:
        libcst_of = self.context.libcst_of
        raise_node, clause, written, annotation = found
        message = site_message(libcst_of(written), leak.function, clause.name)  # type: ignore[arg-type]
        return ErrorSite(
            libcst_of(raise_node),  # type: ignore[arg-type]
            message,
            leak.function,
            libcst_of(clause),  # type: ignore[arg-type]
            hides_cause=True,
            annotation=libcst_of(annotation) if annotation is not None else None,  # type: ignore[arg-type]
        )

    def _logging(self, fix: FixSpec | None, leak: Leak, logged: set[int]) -> FixSpec | None:  # type: ignore[override]
        if fix is None:
            return None
        found = self._clause_statement(leak)
        if found is None or id(found[0]) in logged:
            return fix
        clause, statement = found
        site = ErrorSite(self.context.libcst_of(statement), None, leak.function, self.context.libcst_of(clause), hides_cause=True)  # type: ignore[arg-type]
        line, imports = exception_log_line(fix_context(self.context, statement, clause), site)
        if line is None:
            return fix
        logged.add(id(clause))
        return replace(fix, log_line=line, statement=site.statement, imports=imports)

    def _clause_statement(self, leak: Leak) -> tuple[ast.ExceptHandler, ast.stmt] | None:  # type: ignore[override]
        sources = self._flow.functions.get(leak.function)
        if not sources:
            return None
        origin = leak.origin.node
        function: Function = sources[-1].node  # type: ignore[assignment]
        for clause in body_nodes(function.body):
            if type(clause) is not ast.ExceptHandler:
                continue
            for statement in body_nodes(clause.body):
                if isinstance(statement, _SMALL) and any(node is origin for node in own_nodes(statement)):
                    return clause, statement
        return None

    def _raises_project_class(self, call: ast.Call) -> bool:  # type: ignore[override]
        name = dotted_name(call.func)
        return name is not None and (
            name in self.context.facts.class_bases
            or name in self._project_imports
            or name.split(".")[0] in self._project_imports
        )

    def _own_message_reason(self, clause: ast.ExceptHandler | None) -> str | None:
        """``registry_fix.own_message_reason`` of the clause."""
        if clause is None:
            return None
        names = clause_of(clause)[0]
        own = self.context.own_raises(clause)  # type: ignore[arg-type]
        if not names or CATCH_ALL.intersection(names) or not own:
            return None
        return (
            f"the `except {', '.join(names)}` passes on to the client the text of the `{', '.join(sorted(own))}` "
            "its `try` raises itself (a message the project wrote): a registry entry would lose it"
        )

    def _sanitising_fix(self, origin: ast.AST) -> FixSpec | None:
        """``mcp006._sanitising_fix``: told on `ast`, made of the origin's LibCST node."""
        if type(origin) is ast.FormattedValue:
            fixable = _exception_name(origin.value)
        elif type(origin) is ast.Call or type(origin) is ast.Name:
            fixable = _exception_name(origin)
        else:
            return None
        if not fixable:
            return None
        return _libcst_sanitising_fix(self.context.libcst_of(origin))  # type: ignore[arg-type]


def _left_reason(leak: Leak) -> str | None:
    """``mcp006._left_reason``."""
    origin = leak.origin.node
    if leak.origin.kind == "traceback":
        return "traceback text: what the client should be told instead is for the author"
    if type(origin) is ast.Call:
        name = dotted_name(origin.func)
        if name is not None and name not in STRINGIFIERS:
            return f"the text comes from `{name}(...)`, which puts the exception's text in what it returns: change it there"
    return None


def _exception_name(expression: ast.expr) -> bool:
    """Whether ``mcp006._exception_name`` finds a name: `e` in `str(e)`, `repr(e)` or a bare `e`
    (a starred argument's or a keyword's value counts as the sole argument, as LibCST's `Arg`)."""
    if type(expression) is ast.Call and len(expression.args) + len(expression.keywords) == 1:
        if dotted_name(expression.func) in ("str", "repr"):
            only = expression.args[0] if expression.args else expression.keywords[0].value
            expression = only.value if type(only) is ast.Starred else only
    return name_text(expression) is not None


def _raised_message(call: ast.Call) -> ast.expr | None:
    """``registry_fix.raised_message``: the message of `X("...")`, `McpError(ErrorData(code=...,
    message=...))` or `MCPError(code, message)`. LibCST's positional arguments are those
    without a keyword: a starred one's value, and a `**` one's too (after every other)."""
    for candidate in (call, *(value for value in _argument_values(call) if type(value) is ast.Call)):
        assert isinstance(candidate, ast.Call)
        for keyword in candidate.keywords:
            if keyword.arg == "message":
                return keyword.value
        positional = [
            *(argument.value if type(argument) is ast.Starred else argument for argument in candidate.args),
            *(keyword.value for keyword in candidate.keywords if keyword.arg is None),
        ]
        if len(positional) >= 2:  # (code, message)
            return positional[1]
        if len(positional) == 1 and not _is_error_data(positional[0]):
            return positional[0]
    return None


def _argument_values(call: ast.Call) -> list[ast.expr]:
    """The values of a call's arguments in the order they are written (a starred one's value)."""
    arguments: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    if call.args and call.keywords and _position(call.keywords[0]) < _position(call.args[-1]):
        arguments.sort(key=_position)  # `f(key=1, *rest)`: a keyword before a starred argument
    return [
        argument.value if type(argument) is ast.Starred or type(argument) is ast.keyword else argument  # type: ignore[misc]
        for argument in arguments
    ]


def _position(node: ast.expr | ast.keyword) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _is_error_data(expression: ast.expr) -> bool:
    return type(expression) is ast.Call and any(keyword.arg is not None for keyword in expression.keywords)
