"""Which function the `ast` walk is inside (the port's twin of ``scopes.ScopeTracker``)."""

from __future__ import annotations

import ast

from mcplint.analysis.scopes import Frame, Frames


class AstScopeTracker(Frames):
    """The enclosing functions and classes, pushed when the walk enters a body
    (``AstWalker``'s ``enter_body``): decorators, defaults and annotations count as code
    of the enclosing scope."""

    def enter_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        kind = "class" if type(node) is ast.ClassDef else "function"
        self.frames.append(Frame(kind, self.qualname_for(node.name)))

    def leave_body(self, node: ast.AST) -> None:
        self.frames.pop()
