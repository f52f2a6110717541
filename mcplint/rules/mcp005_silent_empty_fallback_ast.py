"""MCP005 read from CPython's `ast`: the port's twin of ``mcp005_silent_empty_fallback.py``.

The judgement reads `ast` nodes (``empty_values_ast``, ``exception_flow_ast``,
``error_payloads_ast``); the fix and the migration's message stay LibCST's, built from the
nodes ``context.libcst_of`` gives for the site. A finding's text shows code as LibCST prints
the tree built from `ast` (``_shown``).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Mapping
from typing import Any

import libcst as cst

from mcplint.analysis.ast_cst import _Builder
from mcplint.analysis.empty_values_ast import (
    ClauseReturn,
    body_nodes,
    clause_returns,
    clauses_leaving_empty,
    empty_builders,
    is_none_literal,
    never_returns,
    own_nodes,
    returns_values,
)
from mcplint.analysis.error_payloads_ast import is_failure_answer
from mcplint.analysis.exception_flow_ast import catches_everything, caught_names, reraises
from mcplint.analysis.handlers_ast import _subscript_elements
from mcplint.analysis.imports_ast import AstImportTable, dotted_name, name_text
from mcplint.analysis.source_text import is_one_token
from mcplint.analysis.walk_ast import own_statements
from mcplint.finding import UNSAFE
from mcplint.registry.match import failure_text
from mcplint.rules.advice import FAILURE_INSTEAD
from mcplint.rules.base import FixSpec, RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.fix_context_ast import fix_context
from mcplint.rules.mcp005_silent_empty_fallback import _SHOWN_LENGTH, PROBE_NAME, SilentEmptyFallback
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, registry_error_fix

Function = ast.FunctionDef | ast.AsyncFunctionDef

# A finding's site, in `ast` nodes: (the statement to rewrite, its clause, the function's
# return annotation); the LibCST site is made from it when the finding is reported.
_AstSite = tuple[ast.Return, ast.ExceptHandler, ast.expr | None]
# A finding judged: (its node and message, its function, its site, reported only in a handler).
_Judged = tuple[tuple[ast.AST, str], str, _AstSite | None, bool]


class AstSilentEmptyFallback(SilentEmptyFallback):
    context: AstRuleContext

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._builder: _Builder | None = None  # made for a finding's text (``_shown``)
        # The walk's open definitions, innermost last (a class's: None), and each function's
        # own `return`s (by id): what ``empty_builders`` reads of every function of the module,
        # without listing the nodes of those no handler reaches.
        self._open: list[Function | None] = []
        self._returns: dict[int, list[ast.Return]] = {}

    def visit_FunctionDef(self, node: Function) -> None:  # type: ignore[override]
        self._functions.append((self.context.scopes.qualname_for(node.name), node))  # type: ignore[arg-type]
        self._open.append(node)
        self._returns[id(node)] = []

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._open.append(None)

    def leave_FunctionDef(self, node: Function | ast.ClassDef) -> None:
        self._open.pop()

    leave_AsyncFunctionDef = leave_ClassDef = leave_FunctionDef

    def visit_Return(self, node: ast.Return) -> None:
        function = self._open[-1] if self._open else None
        if function is not None:
            self._returns[id(function)].append(node)

    def visit_Try(self, node: ast.Try) -> None:  # type: ignore[override]
        self._with_try.add(self.context.scopes.current_function or "")

    def visit_Yield(self, node: ast.Yield | ast.YieldFrom) -> None:  # type: ignore[override]
        self._generators.add(self.context.scopes.current_function or "")

    visit_YieldFrom = visit_Yield  # LibCST's `Yield` is `yield from` too

    def finish(self) -> None:
        judged: Iterator[_Judged] = self._judge(self.context.reached)  # type: ignore[assignment]
        for (node, message), key, found, only_as_handler in judged:
            self.report(
                node,  # type: ignore[arg-type]
                message,
                function=key,
                through_return=True,
                advice=FAILURE_INSTEAD,
                only_as_handler=only_as_handler,
                later=functools.partial(self._fix_of, key, found) if found is not None else None,
            )

    def _fix_of(self, function: str, found: _AstSite) -> dict[str, Any]:
        """The fix of a site the engine keeps, of the LibCST nodes made from the site's."""
        site = self._libcst_site(function, found)
        return {"fix": self._fix(site, found), "error_message": site.message, "anchors": fix_anchors(site.statement)}

    def _libcst_site(self, function: str, found: _AstSite) -> ErrorSite:
        libcst_of = self.context.libcst_of
        statement, clause, annotation = found
        return ErrorSite(
            libcst_of(statement),  # type: ignore[arg-type]
            cst.SimpleString(repr(failure_text(function))),
            function,
            libcst_of(clause),  # type: ignore[arg-type]
            hides_cause=True,
            annotation=libcst_of(annotation) if annotation is not None else None,  # type: ignore[arg-type]
        )

    def _judge_function(self, key: str, node: Function) -> Iterator[_Judged]:  # type: ignore[override]
        functions: list[tuple[str, Function]] = self._functions  # type: ignore[assignment]
        if self._module_facts is None:
            self._module_facts = (
                frozenset(function.name for _, function in functions if never_returns(function)),
                empty_builders((function, self._returns[id(function)]) for _, function in functions),
            )
        exits, builders = self._module_facts
        if _is_probe(node):
            return
        returns_something: bool | None = None  # asked of a clause that answers None only
        annotation = node.returns
        outcomes = list(clause_returns(node, exits, builders))
        reported = {id(outcome.handler) for outcome in outcomes if outcome.empty}
        left = [o for o in clauses_leaving_empty(node, exits, text=self.context.text) if id(o.handler) not in reported]
        if left:
            answered, answered_none = self._failure_answered_empties(node)
            left = [
                o
                for o in left
                if (name := (o.left_empty or "").partition("[")[0]) not in answered
                and not (name in answered_none and _emptied_to_none(o.handler, name))
            ]
        flags = _flag_parameters(node)
        for outcome in [*outcomes, *left]:
            if not outcome.empty or self._expected(outcome, flags):
                continue
            if _returns_none(outcome):
                if returns_something is None:
                    returns_something = returns_values(node)
                if not returns_something:
                    continue  # a procedure: None is its only success
            only_as_handler = _returns_none(outcome) and self._declares_none(annotation)
            yield self._finding(outcome), key, _site(outcome, annotation), only_as_handler

    def _fix(self, site: ErrorSite, found: _AstSite) -> FixSpec | None:  # type: ignore[override]
        context = fix_context(self.context, *found)
        fix = None
        if self.context.default_symbol is not None:
            fix = registry_error_fix(context, site, UNSAFE, symbol=self.context.default_symbol)
        return fix or registry_error_fix(context, site, UNSAFE)

    def _expected(self, outcome: ClauseReturn, flags: frozenset[str] = frozenset()) -> bool:  # type: ignore[override]
        handler, try_node = outcome.handler, outcome.try_node
        if reraises(handler) and not _raises_only_on_request(handler, flags):
            return True
        imports: AstImportTable = self.context.imports  # type: ignore[assignment]
        if not catches_everything(handler, imports) and any(
            reraises(other) and catches_everything(other, imports) for other in try_node.handlers if other is not handler
        ):
            return True  # `except NotFound: return None` beside `except Exception: raise ...`
        caught = {name.rpartition(".")[2] for name in caught_names(handler, imports)}
        if not caught:
            return False
        return (
            caught <= self._control_flow
            or (caught <= self._lookup and _looks_up(try_node))
            or (caught <= self._loop and outcome.in_loop)
        )

    def _failure_answered_empties(self, function: Function) -> tuple[set[str], set[str]]:
        """``mcp005._failure_answered_empties``."""
        source = self.context.source
        found: set[str] = set()
        only_none: set[str] = set()
        for node in own_statements(function.body):
            if type(node) is not ast.If:
                continue
            statement = node.body[0]
            if type(statement) is ast.Raise or (
                type(statement) is ast.Return
                and statement.value is not None
                and is_failure_answer(statement.value, source)
            ):
                (only_none if _tests_is_none(node.test) else found).update(_names(node.test))
        return found, only_none

    def _finding(self, outcome: ClauseReturn) -> tuple[ast.AST, str]:
        """``mcp005._finding``."""
        caught = self._caught_text(outcome.handler)
        why = ": the client cannot tell the failure from an empty result"
        if outcome.left_empty is not None:
            message = (
                f"`{caught}` swallows the error and leaves `{outcome.left_empty}` empty, "
                f"which the answer carries as a success"
            )
        elif outcome.return_node is None:
            message = f"`{caught}` swallows the error and the function ends, returning `None` as a success"
        elif outcome.falls_through:
            value = self._shown(outcome.return_node.value)
            message = f"`{caught}` swallows the error and falls through to `return {value}`, an empty-looking success"
        else:
            message = f"`{caught}` returns `{self._shown(outcome.return_node.value)}`, an empty-looking success"
        node: ast.AST
        if outcome.falls_through or outcome.return_node is None:
            node = outcome.handler.type if outcome.handler.type is not None else outcome.handler
        else:
            node = outcome.return_node
        return node, message + why

    def _caught_text(self, handler: ast.ExceptHandler) -> str:
        if handler.type is None:
            return "except:"
        return f"except {self._shown(handler.type)}"

    def _shown(self, expression: ast.expr | None) -> str:
        """The expression as LibCST prints it in the tree built from `ast`, shortened."""
        if expression is None:
            return "None"
        builder = self._builder
        if builder is None:
            builder = self._builder = _Builder(self.context.text)
        text = " ".join(cst.Module(body=[]).code_for_node(builder.expr(expression)).split())
        return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 3] + "..."

    def _declares_none(self, annotation: ast.expr | None) -> bool:
        """``mcp005._declares_none``: `Optional[X]`, `X | None`, `Union[X, None]`."""
        if annotation is None:
            return False
        if isinstance(annotation, ast.BinOp) and type(annotation.op) is ast.BitOr:
            return self._declares_none(annotation.left) or self._declares_none(annotation.right)
        if isinstance(annotation, ast.Name):
            return annotation.id == "None"
        if isinstance(annotation, ast.Constant):
            value = annotation.value
            if value is None:
                return True  # LibCST's name `None`
            if type(value) is str and is_one_token(annotation):  # a quoted annotation: `"Client | None"`
                return "None" in value.split("|") or value.strip().endswith("| None") or value.startswith("Optional[")
            return False
        if isinstance(annotation, ast.Subscript):
            name = (dotted_name(annotation.value) or "").rpartition(".")[2]
            if name == "Optional":
                return True
            if name == "Union":
                return any(
                    type(element) is not ast.Slice and self._declares_none(element)
                    for element in _subscript_elements(annotation, self.context.facts.source)  # type: ignore[attr-defined]
                )
        return False


def _flag_parameters(function: Function) -> frozenset[str]:
    """``mcp005._flag_parameters``: parameters with a `True`/`False` default."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    pairs = [*zip(positional, defaults, strict=True), *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)]
    return frozenset(
        argument.arg
        for argument, default in pairs
        if type(default) is ast.Constant and (default.value is True or default.value is False)
    )


def _raises_only_on_request(handler: ast.ExceptHandler, flags: frozenset[str]) -> bool:
    """``mcp005._raises_only_on_request``."""
    if not flags:
        return False
    statements = [s for s in handler.body if type(s) is ast.If]
    guarded = {
        id(node)
        for statement in statements
        if not flags.isdisjoint(_names(statement.test))
        for node in own_statements(statement.body)
    }
    raises = [node for node in own_statements(handler.body) if type(node) is ast.Raise]
    return bool(raises) and all(id(node) in guarded for node in raises)


def _names(expression: ast.expr) -> set[str]:
    """The names LibCST's tree has in the expression: its names (`None`, `True`, `False`
    too), an attribute's name and a keyword argument's."""
    found = set()
    for node in own_nodes(expression):
        kind = type(node)
        if kind is ast.Name:
            found.add(node.id)  # type: ignore[attr-defined]
        elif kind is ast.Attribute:
            found.add(node.attr)  # type: ignore[attr-defined]
        elif kind is ast.keyword:
            if node.arg is not None:  # type: ignore[attr-defined]
                found.add(node.arg)  # type: ignore[attr-defined]
        elif kind is ast.Constant:
            text = name_text(node)
            if text is not None:
                found.add(text)
    return found


def _site(outcome: ClauseReturn, annotation: ast.expr | None) -> _AstSite | None:
    if outcome.return_node is None or outcome.falls_through:
        return None  # no statement of the clause to rewrite
    return outcome.return_node, outcome.handler, annotation


def _tests_is_none(test: ast.expr) -> bool:
    return (
        type(test) is ast.Compare
        and len(test.ops) == 1
        and type(test.ops[0]) is ast.Is
        and _is_none(test.comparators[0])
    )


def _emptied_to_none(handler: ast.ExceptHandler, name: str) -> bool:
    return any(
        type(node) is ast.Assign
        and any(type(target) is ast.Name and target.id == name for target in node.targets)
        and _is_none(node.value)
        for node in body_nodes(handler.body)
    )


def _returns_none(outcome: ClauseReturn) -> bool:
    return _is_none(outcome.return_node.value if outcome.return_node is not None else None)


def _is_none(value: ast.expr | None) -> bool:
    return value is None or is_none_literal(value)


def _is_probe(function: Function) -> bool:
    returns = function.returns
    return bool(PROBE_NAME.fullmatch(function.name)) or (
        returns is not None and dotted_name(returns) in ("bool", "builtins.bool")
    )


def _looks_up(try_node: ast.Try) -> bool:
    """``mcp005._looks_up``; LibCST's tree holds a dotted import's name as an attribute
    (`import os.path`, `from a.b import c`), which counts."""
    for node in body_nodes(try_node.body):
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            return True
        if isinstance(node, ast.Call) and dotted_name(node.func) in ("getattr", "next"):
            return True
        if isinstance(node, ast.Import) and any("." in alias.name for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module is not None and "." in node.module:
            return True
    return False
