"""What linting one file gives back: light, picklable, and cheap to import (the
parent process of a warm run never loads LibCST)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplint.finding import Finding

#: The warning of a file the analysis gave up on (the summary does not claim it passed).
SKIPPED_NESTED = "skipped, nested too deeply to analyse"


@dataclass
class FileResult:
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    internal_error: bool = False
    # What the cache keys the result by (None when the file could not be read).
    stat_key: tuple[int, ...] | None = None  # cache.file_stamp (size, mtime, ctime, inode) or size, mtime
    content_hash: str | None = None
    # With --fix / --diff: the findings whose fixes were applied, and the diff.
    fixed: list[Finding] = field(default_factory=list)
    diff: str = ""
    # With --fix: why this file's fixes were not written (it changed meanwhile, or an OS error).
    write_error: str | None = None
    # For the run's cross-module join (see mcplint.analysis.project).
    module_servers: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (level, framework)
    imported_names: list[str] = field(default_factory=list)  # qualified names the module imports
    # target -> (handler label, kind, the guards of the call path: see analysis/catching.py)
    outgoing_calls: dict[str, list[tuple[str, str, tuple[str, ...]]]] = field(default_factory=dict)
    outgoing_returns: dict[str, list[tuple[str, str, tuple[str, ...]]]] = field(default_factory=dict)
    local_reach_calls: dict[str, list[str]] = field(default_factory=dict)  # function -> external targets
    local_reach_returns: dict[str, list[str]] = field(default_factory=dict)
    local_reach_guards: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # function -> target -> trys
    # What other modules may import from this one: its names bound by imports (re-exports),
    # its star imports, the names it defines, and its server classes and factories.
    exports: dict[str, str] = field(default_factory=dict)  # bound name -> qualified name
    star_imports: list[str] = field(default_factory=list)  # modules
    defined_names: list[str] = field(default_factory=list)
    server_classes: dict[str, tuple[str, str]] = field(default_factory=dict)  # class key -> (level, framework)
    server_factories: dict[str, tuple[str, str]] = field(default_factory=dict)  # function -> (level, framework)
    # What the project model saw here: the handlers registered, and the MCP server framework
    # modules imported (a module importing one with no handler anywhere is a blind spot).
    handlers: list[tuple[str, str]] = field(default_factory=list)  # (function key, kind)
    imports_server_framework: bool = False
    reached: dict[str, list[str]] = field(default_factory=dict)  # function -> handlers reaching it
    outgoing_servers: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # target -> slots
    outgoing_arguments: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # target -> (slot, class)
    outgoing_instances: dict[str, list[str]] = field(default_factory=dict)  # storing function -> classes
    dynamic_registrations: list[str] = field(default_factory=list)  # kinds registered from a registry
    dispatch_guards: list[str] = field(default_factory=list)  # per low-level call_tool: the trys around its dispatch
    # Messages sent by name whose answer a handler returns, and what a dispatcher runs per message.
    message_returns: dict[str, list[tuple[str, str, tuple[str, ...]]]] = field(default_factory=dict)
    message_targets: dict[str, list[str]] = field(default_factory=dict)
    registry_decorators: list[str] = field(default_factory=list)  # functions
    registry_tables: list[str] = field(default_factory=list)  # module-level tool tables ({"function": f})
    outgoing_registrations: list[tuple[str, str, str]] = field(default_factory=list)  # (target, kind, level)
    registrars: dict[str, list[str]] = field(default_factory=dict)  # function -> [position, name, kind, level]
    error_helpers: dict[str, str] = field(default_factory=dict)  # function -> payload kind
    unmasked_classes: dict[str, str] = field(default_factory=dict)  # fastmcp subclasses judged where built
    wrapper_guards: dict[str, list[str]] = field(default_factory=dict)  # wrapping function -> its trys (encoded)
    tool_wrappers: dict[str, list[list[Any]]] = field(default_factory=dict)  # server class -> [[wrapper, [trys]]]
    decorator_methods: dict[str, str] = field(default_factory=dict)  # "Class.method" returning a registering decorator -> kind
    decorator_method_wrappers: dict[str, list[list[Any]]] = field(default_factory=dict)  # "Class.method" -> [[wrapper, [trys]]]
    text_helpers: dict[str, list[list[str]]] = field(default_factory=dict)  # function -> [positional, kw, returned]
    # function -> [classes it raises with the project's own messages, ... with exception text]
    raising_functions: dict[str, list[list[str]]] = field(default_factory=dict)
    runs_stdio: bool = False  # starts a server of the project over stdio (stdout is its transport)
    # The first parts of the targets its tables left out, no module of the project beginning so
    # then (``HandlerScope.left_out_heads``): the cache's analysis is stale once one does.
    left_out_heads: list[str] = field(default_factory=list)
    # Parsed and analysed in full (not only syntax-checked): what it imports, the join reads.
    analysed: bool = False
    # Its findings are there (False: a round that only feeds the join analysed it, ``lint_text``'s
    # ``judge``; the run judges it afterwards in the context the rounds end with).
    judged: bool = True


#: What the run's join (and `mcplint handlers`) read; the cache keeps them beside the findings.
JOIN_FIELDS = (
    "module_servers",
    "imported_names",
    "outgoing_calls",
    "outgoing_returns",
    "local_reach_calls",
    "local_reach_returns",
    "local_reach_guards",
    "exports",
    "star_imports",
    "defined_names",
    "server_classes",
    "server_factories",
    "outgoing_servers",
    "outgoing_arguments",
    "outgoing_instances",
    "dynamic_registrations",
    "dispatch_guards",
    "message_returns",
    "message_targets",
    "registry_decorators",
    "registry_tables",
    "outgoing_registrations",
    "registrars",
    "error_helpers",
    "unmasked_classes",
    "wrapper_guards",
    "tool_wrappers",
    "decorator_methods",
    "decorator_method_wrappers",
    "text_helpers",
    "raising_functions",
    "runs_stdio",
    "handlers",
    "imports_server_framework",
    "reached",
    "analysed",
    "left_out_heads",  # the cache's, not the join's
)
