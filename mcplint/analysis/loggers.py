"""The module's logger, for fixes that move an exception's text from the client to the logs.

A logger is a module-level name bound to `logging.getLogger(...)` (or
structlog's `get_logger`), or loguru's imported `logger`. A clause "logs"
when it already calls a method on a logger or on `logging` itself: a fix then
adds nothing, so the failure is not logged twice.
"""

from __future__ import annotations

import libcst as cst

from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.scopes import ScopeTracker

LOGGER_FACTORIES = frozenset({"logging.getLogger", "structlog.get_logger", "structlog.getLogger"})
LOGGER_OBJECTS = frozenset({"loguru.logger"})
# The import a fix asks for to log where the module has no logger: the fixer then adds
# `logger = logging.getLogger(__name__)` after the module's imports (`engine.fixer`).
MODULE_LOGGER_IMPORT = ("logging", "")


def imports_a_helper(imports: tuple[tuple[str, str], ...]) -> bool:
    """A fix's imports bring in something besides a module logger: a registry helper."""
    return any(pair != MODULE_LOGGER_IMPORT for pair in imports)
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "msg"})


class ModuleLoggers:
    def __init__(self, imports: ImportTable, scopes: ScopeTracker) -> None:
        self._imports = imports
        self._scopes = scopes
        self._assigned: list[str] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._scopes.frames or len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        target = node.targets[0].target
        factory = dotted_name(node.value.func)
        if isinstance(target, cst.Name) and factory is not None:
            if (self._imports.qualify(factory) or factory) in LOGGER_FACTORIES:
                self._assigned.append(target.value)

    @property
    def name(self) -> str | None:
        """The name a fix calls `.exception(...)` on, or None when the module has no logger."""
        if self._assigned:
            return self._assigned[0]
        imported = self._imports.imported()
        return next((name for name, qualified in sorted(imported.items()) if qualified in LOGGER_OBJECTS), None)

    def already_logs(self, clause: cst.ExceptHandler) -> bool:
        names = {*self._assigned, "logging", "logger", "log", "LOGGER", "_logger", "_log"}
        for node in own_nodes(clause.body):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                receiver = dotted_name(node.func.value)
                if node.func.attr.value in LOG_METHODS and receiver is not None:
                    if receiver.split(".")[-1] in names or receiver.split(".")[0] in names:
                        return True
        return False
