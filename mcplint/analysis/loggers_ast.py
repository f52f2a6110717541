"""The module's logger, read from CPython's `ast` (the port's twin of ``loggers.py``)."""

from __future__ import annotations

import ast

from mcplint.analysis.imports import ImportTable
from mcplint.analysis.imports_ast import dotted_name
from mcplint.analysis.loggers import LOG_METHODS, LOGGER_FACTORIES, LOGGER_OBJECTS
from mcplint.analysis.scopes import Frames
from mcplint.analysis.walk_ast import body_nodes


class AstModuleLoggers:
    def __init__(self, imports: ImportTable, scopes: Frames) -> None:
        self._imports = imports
        self._scopes = scopes
        self._assigned: list[str] = []

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._scopes.frames or len(node.targets) != 1 or type(node.value) is not ast.Call:
            return
        target = node.targets[0]
        factory = dotted_name(node.value.func)
        if type(target) is ast.Name and factory is not None:
            if (self._imports.qualify(factory) or factory) in LOGGER_FACTORIES:
                self._assigned.append(target.id)

    @property
    def name(self) -> str | None:
        """The name a fix calls `.exception(...)` on, or None when the module has no logger."""
        if self._assigned:
            return self._assigned[0]
        imported = self._imports.imported()
        return next((name for name, qualified in sorted(imported.items()) if qualified in LOGGER_OBJECTS), None)

    def already_logs(self, clause: ast.ExceptHandler) -> bool:
        names = {*self._assigned, "logging", "logger", "log", "LOGGER", "_logger", "_log"}
        for node in body_nodes(clause.body):
            if type(node) is ast.Call and type(node.func) is ast.Attribute:
                receiver = dotted_name(node.func.value)
                if node.func.attr in LOG_METHODS and receiver is not None:
                    if receiver.split(".")[-1] in names or receiver.split(".")[0] in names:
                        return True
        return False
