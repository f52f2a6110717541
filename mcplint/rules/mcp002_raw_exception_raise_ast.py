"""MCP002 read from CPython's `ast` (the port's twin of ``mcp002_raw_exception_raise``).

Every judgement reads `ast` nodes; the fix, the error message and the anchors are built, as
the original builds them, from the LibCST nodes ``context.libcst_of`` gives for the site
(``registry_fix`` stays on LibCST), which asks the context about them through
``fix_context_ast.fix_context``. MCP007's twin shares ``mentions``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from typing import Any

from mcplint.analysis.catching import stops
from mcplint.analysis.empty_values_ast import is_none_literal
from mcplint.analysis.exception_flow_ast import bound_name
from mcplint.analysis.imports_ast import dotted_name, name_text
from mcplint.analysis.source_text import SourceText
from mcplint.analysis.walk_ast import argument_value, own_nodes, own_statements, written_arguments
from mcplint.finding import SAFE, UNSAFE
from mcplint.registry.match import site_message
from mcplint.rules.advice import RAISE_INSTEAD
from mcplint.rules.base import RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.fix_context_ast import fix_context
from mcplint.rules.mcp002_raw_exception_raise import _TYPE_NAMES, RawExceptionRaise, _unqualified
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, registry_error_fix

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class AstRawExceptionRaise(RawExceptionRaise):
    context: AstRuleContext

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._pending: list[tuple[ast.Raise, str, str | None, bool]] = []  # type: ignore[assignment]

    def visit_Raise(self, node: ast.Raise) -> None:  # type: ignore[override]
        exc = node.exc
        if exc is None:
            return
        name = dotted_name(exc.func if type(exc) is ast.Call else exc)
        if name is None or self._is_caught_name(name):
            return
        if stops(self.context.enclosing_guards(node), _unqualified(name).rpartition(".")[2]):
            return
        function = self.context.scopes.current_function
        self._pending.append((node, name, function, self._checks_a_validated_type(function, node)))

    def _checks_a_validated_type(self, function: str | None, node: ast.Raise) -> bool:  # type: ignore[override]
        # Told the raise: in `ast` a statement's parent is the `if` itself (no block between),
        # so the child of the `if` on the way to the raise may be the raise.
        info = self.context.facts.functions.get(function or "")
        if info is None:
            return False
        ancestors: list[ast.AST] = self.context.ancestors  # type: ignore[assignment]
        index = next(
            (i for i in reversed(range(len(ancestors))) if isinstance(ancestors[i], (ast.If, *_FUNCTIONS))), None
        )
        statement = ancestors[index] if index is not None else None
        if index is None or type(statement) is not ast.If:
            return False
        child = ancestors[index + 1] if index + 1 < len(ancestors) else node
        if not any(child is body_statement for body_statement in statement.body):
            return False  # in its `else` / `elif`
        conjuncts = _conjuncts(statement.test)
        for parameter, checked in filter(None, map(_failed_isinstance, conjuncts)):
            if parameter not in info.parameters or info.parameters[parameter] is None:
                continue
            source = self.context.facts.source  # type: ignore[attr-defined]
            allowed = _validated_types(info.parameters[parameter], source)  # type: ignore[arg-type]
            if allowed is None:
                continue
            if "None" in allowed and not any(_is_not_none(c, parameter) for c in conjuncts):
                continue
            if all(base in checked or (base == "bool" and "int" in checked) for base in allowed - {"None"}):
                return True
        return False

    def finish(self) -> None:
        for node, name, function, validated in self._pending:
            clause, annotation = self.context.raise_place(node)  # type: ignore[arg-type]
            builtin = self._builtin_class(name, function)
            is_call = type(node.exc) is ast.Call
            factory = self._factory_class(name, function) if builtin is None and is_call else None
            if factory is not None and factory in self._raw:
                self.report(
                    node,  # type: ignore[arg-type]
                    f"Raw `{factory}` (built by `{name}`) raised in handler scope",
                    advice=RAISE_INSTEAD,
                    function=function,
                    escapes=factory,
                    checks_validated_argument=validated,
                    unfixed_reason=f"`{name}` builds the exception: make it return a registry error",
                )
                continue
            if builtin is not None and builtin in self._raw:
                self.report(
                    node,  # type: ignore[arg-type]
                    f"Raw `{builtin}` raised in handler scope",
                    advice=RAISE_INSTEAD,
                    function=function,
                    escapes=builtin,
                    checks_validated_argument=validated,
                    later=functools.partial(self._fix_of, node, function, clause, annotation),  # type: ignore[arg-type]  # `ast` nodes here
                )

    def _fix_of(
        self, node: ast.Raise, function: str | None, clause: ast.ExceptHandler | None, annotation: ast.expr | None
    ) -> dict[str, Any]:
        """The fix of a raise the engine keeps, of the LibCST nodes made from the site's."""
        libcst_of = self.context.libcst_of
        caught = bound_name(clause) if clause is not None else None
        message = self._through_local(_message_argument(node), function, clause)
        exc = node.exc
        raised = exc.func if type(exc) is ast.Call else exc
        statement = libcst_of(node)
        written = libcst_of(message) if message is not None else None
        site = ErrorSite(
            statement,  # type: ignore[arg-type]
            site_message(written, function, caught) if written is not None else None,  # type: ignore[arg-type]
            function,
            libcst_of(clause) if clause is not None else None,  # type: ignore[arg-type]
            hides_cause=message is not None and mentions(message, caught),
            annotation=libcst_of(annotation) if annotation is not None else None,  # type: ignore[arg-type]
            raised_class=libcst_of(raised),  # type: ignore[arg-type]
        )
        applicability = UNSAFE if site.hides_cause else SAFE
        return {
            "fix": registry_error_fix(fix_context(self.context, node, clause), site, applicability),
            "error_message": site.message,
            "anchors": fix_anchors(statement),
        }

    def _factory_class(self, name: str, function: str | None) -> str | None:
        key = self.context.local_function(name, function)
        if key is None:
            return None
        info = self.context.facts.functions[key]
        built: set[str | None] = set()
        for value in info.returned_values:  # `ast`'s expressions
            made = dotted_name(value.func) if type(value) is ast.Call else None  # type: ignore[comparison-overlap]
            built.add(self._builtin_class(made, info.key) if made is not None else None)
        if not built and info.returns is not None:
            annotated = dotted_name(info.returns)  # type: ignore[arg-type]
            built.add(self._builtin_class(annotated, info.key) if annotated is not None else None)
        return next(iter(built)) if len(built) == 1 else None

    def _is_caught_name(self, name: str) -> bool:
        ancestors: list[ast.AST] = self.context.ancestors  # type: ignore[assignment]
        for index, ancestor in enumerate(ancestors):
            # An `except*` clause is no `ExceptHandler` to LibCST (its `ExceptStarHandler`).
            if type(ancestor) is ast.ExceptHandler and ancestor.name == name and type(ancestors[index - 1]) is ast.Try:
                return True
        return False

    def _through_local(  # type: ignore[override]
        self, message: ast.expr | None, function: str | None, clause: ast.ExceptHandler | None
    ) -> ast.expr | None:
        if type(message) is not ast.Name:
            return message
        if clause is not None:
            in_clause = [
                node.value
                for node in own_statements(clause.body)
                if type(node) is ast.Assign and any(type(t) is ast.Name and t.id == message.id for t in node.targets)
            ]
            if len(in_clause) == 1:
                return in_clause[0]
        values = self.context.locals.values(function, message.id)
        return values[0] if len(values) == 1 else message  # type: ignore[return-value]


def mentions(message: ast.expr, name: str | None) -> bool:
    """``registry_fix.mentions``: the name anywhere LibCST has a `Name` node (an attribute's, a
    keyword's or a lambda parameter's name too)."""
    if name is None:
        return False
    for node in own_nodes(message):
        kind = type(node)
        if kind is ast.Name:
            if node.id == name:  # type: ignore[attr-defined]
                return True
        elif kind is ast.Attribute or kind is ast.keyword or kind is ast.arg:
            if (node.attr if kind is ast.Attribute else node.arg) == name:  # type: ignore[attr-defined]
                return True
    return False


def _message_argument(node: ast.Raise) -> ast.expr | None:
    call = node.exc
    if type(call) is not ast.Call or len(call.args) + len(call.keywords) != 1:
        return None
    if call.args:
        return argument_value(call.args[0])
    keyword = call.keywords[0]
    return keyword.value if keyword.arg is None else None  # `**kw` has no keyword to LibCST


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    if type(test) is ast.BoolOp and type(test.op) is ast.And:
        return [conjunct for value in test.values for conjunct in _conjuncts(value)]
    return [test]


def _failed_isinstance(test: ast.expr) -> tuple[str, set[str]] | None:
    if not (type(test) is ast.UnaryOp and type(test.op) is ast.Not):
        return None
    call = test.operand
    if not (type(call) is ast.Call and dotted_name(call.func) == "isinstance"):
        return None
    arguments = written_arguments(call)
    if len(arguments) != 2:
        return None
    subject, classes = argument_value(arguments[0]), argument_value(arguments[1])
    subject_name = name_text(subject)  # `None` is a name to LibCST
    if subject_name is None:
        return None
    written = [argument_value(e) for e in classes.elts] if type(classes) is ast.Tuple else [classes]
    checked = {_TYPE_NAMES.get(dotted_name(w) or "", "") for w in written}
    return (subject_name, checked - {""}) if checked - {""} else None


def _is_not_none(test: ast.expr, parameter: str) -> bool:
    return (
        type(test) is ast.Compare
        and type(test.left) is ast.Name
        and test.left.id == parameter
        and len(test.ops) == 1
        and type(test.ops[0]) is ast.IsNot
        and is_none_literal(test.comparators[0])
    )


def _validated_types(annotation: ast.expr, source: SourceText) -> set[str] | None:
    if type(annotation) is ast.BinOp and type(annotation.op) is ast.BitOr:
        left, right = _validated_types(annotation.left, source), _validated_types(annotation.right, source)
        return left | right if left is not None and right is not None else None
    if type(annotation) is ast.Subscript:
        outer = dotted_name(annotation.value) or ""
        inner = _subscript_indexes(annotation.slice, source)
        if outer.rpartition(".")[2] in ("Optional", "Union"):
            found = [_validated_types(value, source) for value in inner]
            if any(types is None for types in found):
                return None
            return set().union(*found) | ({"None"} if outer.endswith("Optional") else set())  # type: ignore[arg-type]
        if outer.rpartition(".")[2] == "Annotated" and inner:
            return _validated_types(inner[0], source)
        base = _TYPE_NAMES.get(outer.rpartition(".")[2])
        return {base} if base else None
    name = dotted_name(annotation) or ""
    if name == "None":
        return {"None"}
    base = _TYPE_NAMES.get(name)
    return {base} if base else None


def _subscript_indexes(index: ast.expr, source: SourceText) -> list[ast.expr]:
    """LibCST's `Index` elements of a subscript (its slices left out): `a[x, y]` has two, where
    `ast` has one tuple, as it has for `a[(x, y)]`, one to LibCST."""
    if type(index) is ast.Tuple and index.elts and not source.parenthesized(index):
        return [element for element in index.elts if type(element) is not ast.Slice]
    return [] if type(index) is ast.Slice else [index]
