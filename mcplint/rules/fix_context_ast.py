"""The rule context as the LibCST fix builders ask it, for the rules' `ast` twins.

A twin hands ``registry_fix``'s builders (``registry_error_fix``, ``exception_log_line``) a
site of LibCST nodes (``AstRuleContext.libcst_of``), and those builders ask the context
about them: the ``try``s around the statement, whether the clause logs. ``AstRuleContext``
answers about `ast` nodes: ``FixContext`` answers for the LibCST nodes made from the site's
`ast` nodes with what it says of those.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

import libcst as cst

from mcplint.analysis.catching import Guards

if TYPE_CHECKING:
    from mcplint.rules.base import RuleContext
    from mcplint.rules.base_ast import AstRuleContext


class FixContext:
    """``context`` for the LibCST nodes made from ``nodes``; everything else as it is."""

    def __init__(self, context: AstRuleContext, nodes: Iterable[ast.AST | None]) -> None:
        self._context = context
        self._ast_of: dict[int, ast.AST] = {}
        for node in nodes:
            made = context.libcst_of(node) if node is not None else None
            if made is not None:
                self._ast_of[id(made)] = node  # type: ignore[assignment]
        self.loggers = _Loggers(context, self._ast_of)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    def statement_guards(self, node: cst.CSTNode) -> Guards:
        # A node the site did not name is a twin's mistake: the answer would be silently empty.
        return self._context.statement_guards(self._ast_of[id(node)])

    def own_raises(self, clause: cst.ExceptHandler) -> frozenset[str]:
        return self._context.own_raises(self._ast_of[id(clause)])  # type: ignore[arg-type]


class _Loggers:
    def __init__(self, context: AstRuleContext, ast_of: dict[int, ast.AST]) -> None:
        self._loggers = context.loggers
        self._ast_of = ast_of

    @property
    def name(self) -> str | None:
        return self._loggers.name

    def already_logs(self, clause: cst.ExceptHandler) -> bool:
        return self._loggers.already_logs(self._ast_of[id(clause)])  # type: ignore[arg-type]


def fix_context(context: AstRuleContext, *nodes: ast.AST | None) -> RuleContext:
    """``context`` as ``registry_fix``'s builders ask it about the LibCST nodes made from ``nodes``."""
    return cast("RuleContext", FixContext(context, nodes))
