"""MCP004 read from CPython's `ast` (the port's twin of ``mcp004_unknown_error_symbol``).

The symbol a call or a payload names is judged from `ast`'s nodes; the fix (a close
symbol written in place of the unknown one) is the original's, built from the LibCST
literal the context's ``libcst_of`` gives for the reported one.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any, cast

import libcst as cst

from mcplint.analysis.imports_ast import AstImportTable, dotted_name, name_text
from mcplint.rules.base import RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.mcp004_unknown_error_symbol import (
    STRUCTURED_KEYS,
    SYMBOL_KEYS,
    SYMBOL_SHAPE,
    UnknownErrorSymbol,
    _reserved,
    _retired,
    _suggestion,
    _symbol_fix,
)


class AstUnknownErrorSymbol(UnknownErrorSymbol):
    context: AstRuleContext

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._helper_calls: list[tuple[ast.Call, str, str | None]] = []

    def visit_Call(self, node: ast.Call) -> None:  # type: ignore[override]
        if self._helpers is None:
            return
        # `from acme.errors import upstream_error as up`: the imported name decides.
        name = cast(AstImportTable, self.context.imports).qualified_name(node.func) or dotted_name(node.func)
        helper = name.rpartition(".")[2] if name else None
        if helper in self._helpers.domain_of_helper:
            # Whether the name is the generated helper is known once every import is read.
            self._helper_calls.append((node, helper, self.context.scopes.current_function))

    def visit_Dict(self, node: ast.Dict) -> None:  # type: ignore[override]
        if self._helpers is None:
            return
        # A key written twice: its first place, its last value (the original's dict of elements).
        keys = {_string(key): value for key, value in zip(node.keys, node.values, strict=True) if key is not None}
        structured = bool(STRUCTURED_KEYS & keys.keys())
        for key, value in keys.items():
            if key in SYMBOL_KEYS or (key == "symbol" and structured):
                self._check_payload(value)
            elif key == "error" and type(value) is ast.Dict:
                for inner_key, inner in zip(value.keys, value.values, strict=True):
                    if inner_key is not None and _string(inner_key) == "symbol":
                        self._check_payload(inner)

    def finish(self) -> None:
        for call, helper, function in self._helper_calls:
            if self._is_generated_helper(call.func):
                self._check_call(call, helper, function)

    def _check_call(self, call: ast.Call, helper: str, function: str | None) -> None:  # type: ignore[override]
        assert self._helpers is not None
        argument = _symbol_argument(call)
        symbol = _string(argument) if argument is not None else None
        if argument is None or symbol is None:
            return
        domain = self._helpers.domain_of_helper[helper]
        entry = self._helpers.entries.get(symbol)
        fix = None
        message: str | None
        if entry is None:
            suggestion = _suggestion(symbol, self._helpers.symbols(domain))
            message = _reserved(symbol, self._helpers) or (
                f"`{symbol}` is not in the registry's `{domain}` domain{suggestion}"
            )
            literal = self.context.libcst_of(argument)  # the fix rewrites LibCST's literal
            if isinstance(literal, cst.BaseExpression):
                fix = _symbol_fix(literal, symbol, self._helpers.symbols(domain))
        elif entry.domain != domain:
            other = self._helpers.helper_of(entry.domain)
            message = (
                f"`{symbol}` belongs to the registry's `{entry.domain}` domain; call `{other}(...)`, not `{helper}`"
            )
        else:
            message = _retired(entry)
        if message is not None:
            self.report(argument, message, function=function, fix=fix)  # type: ignore[arg-type]

    def _check_payload(self, value: ast.expr) -> None:  # type: ignore[override]
        assert self._helpers is not None
        symbol = _string(value)
        if symbol is None or not SYMBOL_SHAPE.fullmatch(symbol) or id(value) in self._payload_values:
            return
        self._payload_values.add(id(value))
        entry = self._helpers.entries.get(symbol)
        if entry is not None:
            message = _retired(entry)
        else:
            suggestion = _suggestion(symbol, self._helpers.symbols())
            message = _reserved(symbol, self._helpers) or (
                f"error payload names `{symbol}`, which is not in the registry{suggestion}"
            )
        if message is not None:
            self.report(value, message)  # type: ignore[arg-type]

    def _is_generated_helper(self, func: ast.expr) -> bool:  # type: ignore[override]
        """The call's name is a helper of the generated module, however imported."""
        assert self._helpers is not None
        qualified = cast(AstImportTable, self.context.imports).qualified_name(func)
        if qualified is None:
            # A bare name the module defines or star-imports (`None`, `True`, `False` are
            # names to LibCST); `obj.upstream_error()` is someone else's.
            return name_text(func) is not None
        module = qualified.rpartition(".")[0]
        generated = self._helpers.module
        if generated is None:
            return True  # no `helpers-module` yet: any import of a helper's name
        if module.startswith("."):  # `from .errors import x`: the generated module's tail
            return f".{generated}".endswith("." + module.lstrip("."))
        return module == generated


def _symbol_argument(call: ast.Call) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == "symbol":
            return keyword.value
    # The first argument written, if positional: a keyword can only come before a starred one.
    if call.args and type(call.args[0]) is not ast.Starred:
        return call.args[0]
    return None


def _string(node: ast.AST | None) -> str | None:
    """A text literal's value, also of `"A" "B"` (LibCST's concatenation of plain strings);
    None for bytes and anything with an f-string."""
    if type(node) is ast.Constant and type(node.value) is str:
        return node.value
    return None
