"""The shared per-file state rules read, from CPython's `ast` (the port's twin of
``base.RuleContext``)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import libcst as cst

from mcplint.analysis.catching import Clause, Guards, TryGuard, catches
from mcplint.analysis.catching_ast import clause_of, translating_clauses, translator_called
from mcplint.analysis.handlers_ast import AstHandlerFactsCollector
from mcplint.analysis.imports_ast import AstImportTable, dotted_name
from mcplint.analysis.locals_ast import AstLocalAssignments
from mcplint.analysis.loggers_ast import AstModuleLoggers
from mcplint.analysis.scopes_ast import AstScopeTracker
from mcplint.analysis.source_text import SourceText
from mcplint.rules.base import RuleContext

# Nodes that open a scope of their own.
_SCOPE_TYPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TRY_STAR = getattr(ast, "TryStar", None)  # Python 3.11 on


class AstRuleContext(RuleContext):
    """``RuleContext`` over the `ast` walk: the same tables (their twins) and answers. The
    walk's ``ancestors`` hold `ast` nodes, and a block is no node there: what is inside a
    `try`'s body is told by the statement among its ``body``."""

    def __init__(
        self,
        ancestors: list[ast.AST],
        text: str,
        registry_path: str | None = None,
        package: str | None = None,
        default_symbol: str | None = None,
        assigned_codes: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__([], registry_path, package, default_symbol, assigned_codes)
        self.text = text
        self.source = SourceText.of(text)  # what `ast` does not tell of a literal (analysis/source_text.py)
        self.scopes = AstScopeTracker()  # type: ignore[assignment]
        self.imports = AstImportTable(package)
        self.facts = AstHandlerFactsCollector(self.scopes, self.enclosing_guards, self.translators, text=text)  # type: ignore[assignment]
        self.loggers = AstModuleLoggers(self.imports, self.scopes)  # type: ignore[assignment]
        self.locals = AstLocalAssignments(self.scopes)  # type: ignore[assignment]
        self.ancestors = ancestors  # type: ignore[assignment]
        # The LibCST node made from an `ast` node: what fixes (and the migration's error
        # messages) are built from. The engine gives it (a tree built only for a file whose
        # finding has a fix); none until then.
        self.libcst_of: Callable[[ast.AST], cst.CSTNode | None] = lambda node: None
        # The source's text of a node ``libcst_of`` made, where its span is LibCST's (None
        # elsewhere): what a fix that keeps the node's own whitespace is parsed from.
        self.written: Callable[[cst.CSTNode], str | None] = lambda node: None

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:  # type: ignore[override]
        handlers = translating_clauses(node, self.imports.qualify)
        if handlers:
            self.translators[node.name] = tuple(self._clause_through_constants(handler) for handler in handlers)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _clause_through_constants(self, handler: ast.ExceptHandler) -> Clause:  # type: ignore[override]
        names, passes_on = clause_of(handler)
        if len(names) == 1 and type(handler.type) is ast.Name:
            values: Sequence[Any] = self.facts.aliases.get((None, handler.type.id), ())  # ast nodes here
            if len(values) == 1 and type(values[0]) is ast.Tuple:
                elements = [dotted_name(element) for element in values[0].elts]
                if all(elements):
                    names = tuple(name.rpartition(".")[2] for name in elements if name)
        return names, passes_on

    def visit_Raise(self, node: ast.Raise) -> None:  # type: ignore[override]
        self._raise_places[id(node)] = (self.enclosing_clause(), self.return_annotation())  # type: ignore[assignment]
        self._remember_tries(node)  # type: ignore[arg-type]
        self._remember_own_raise(node)

    def visit_Return(self, node: ast.Return) -> None:  # type: ignore[override]
        self._remember_tries(node)  # type: ignore[arg-type]
        clause = self.enclosing_clause()
        if clause is not None:
            self._return_clauses[id(node)] = clause  # type: ignore[assignment]

    def visit_Assign(self, node: ast.Assign) -> None:  # type: ignore[override]
        self._remember_tries(node)  # type: ignore[arg-type]

    def _remember_own_raise(self, node: ast.Raise) -> None:  # type: ignore[override]
        raised = _raised_class(node.exc)
        if raised is None:
            return
        for handlers in self._statement_tries.get(id(node), ()):  # innermost first
            clause = next((handler for handler in handlers if catches(clause_of(handler)[0], raised)), None)  # type: ignore[arg-type]
            if clause is not None:  # the first clause that catches it decides
                self._own_raises.setdefault(id(clause), set()).add(raised)
                return

    def statement_guards(self, node: ast.AST) -> Guards:  # type: ignore[override]
        return tuple(tuple(map(clause_of, handlers)) for handlers in self._statement_tries.get(id(node), ()))  # type: ignore[arg-type]

    def return_annotation(self) -> ast.expr | None:  # type: ignore[override]
        for ancestor in reversed(self.ancestors):
            if isinstance(ancestor, _FUNCTIONS):
                return ancestor.returns
        return None

    def _guarding_blocks(self, node: ast.AST) -> Iterator[ast.Try | ast.With | ast.AsyncWith]:  # type: ignore[override]
        ancestors: list[ast.AST] = self.ancestors  # type: ignore[assignment]
        for index in range(len(ancestors) - 1, -1, -1):
            ancestor = ancestors[index]
            kind = type(ancestor)
            if kind in _SCOPE_TYPES:
                return
            if kind is ast.Try or kind is ast.With or kind is ast.AsyncWith:
                child = ancestors[index + 1] if index + 1 < len(ancestors) else node
                if any(statement is child for statement in ancestor.body):  # type: ignore[attr-defined]
                    yield ancestor  # type: ignore[misc]

    def enclosing_try_handlers(self, node: ast.AST) -> tuple[tuple[ast.ExceptHandler, ...], ...]:  # type: ignore[override]
        return tuple(tuple(block.handlers) for block in self._guarding_blocks(node) if type(block) is ast.Try)

    def enclosing_guards(self, node: ast.AST) -> Guards:  # type: ignore[override]
        found: list[TryGuard] = []
        for block in self._guarding_blocks(node):
            if isinstance(block, ast.Try):
                found.append(_try_guard(block))
            elif self.translators:
                for item in reversed(block.items):  # the last one entered is the first to exit
                    name = translator_called(item.context_expr, self.translators)
                    if name is not None:
                        found.append(self.translators[name])
        return tuple(found)

    def enclosing_clause(self) -> ast.ExceptHandler | None:  # type: ignore[override]
        ancestors: list[Any] = self.ancestors  # ast nodes here
        for index in range(len(ancestors) - 1, -1, -1):
            ancestor = ancestors[index]
            kind = type(ancestor)
            if kind in _SCOPE_TYPES:
                return None
            # An `except*` clause is no `ExceptHandler` in LibCST's tree (its own class there).
            if kind is ast.ExceptHandler and (index == 0 or type(ancestors[index - 1]) is not _TRY_STAR):
                return ancestor  # type: ignore[no-any-return]
        return None


def _try_guard(block: ast.Try) -> TryGuard:
    """What a `try` stops, worked out once: the facts ask again for every call in its body."""
    try:
        return block._mcplint_guard  # type: ignore[attr-defined,no-any-return]
    except AttributeError:
        guard = block._mcplint_guard = tuple(map(clause_of, block.handlers))  # type: ignore[attr-defined]
        return guard


def _raised_class(raised: ast.expr | None) -> str | None:
    """`ValueError` of `raise ValueError(...)` or `raise errors.ConfigError`; None for a name
    that is not a class's (`raise error`)."""
    if type(raised) is ast.Call:
        raised = raised.func
    name = dotted_name(raised) if raised is not None else None
    last = name.rpartition(".")[2] if name else ""
    return last if last[:1].isupper() else None
