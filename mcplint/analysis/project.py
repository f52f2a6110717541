"""What one module needs to know about the rest of the project, and what it tells.

Handler scope crosses modules: a tool in ``tools.py`` registers on a server
built in ``server.py`` and calls into ``services/notes.py``. Each file is still
analysed alone (parallel, cacheable); a run repeats the analysis of the files
whose ``ProjectContext`` changed (the servers they import, the functions other
modules' handlers reach in them) until nothing changes. A file's analysis
reports back what the run joins: its module-level servers and the project
functions its reached functions call (``outgoing``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# An entry point: (function key or "<key>.<locals>.*", the reaching handler's label, its kind,
# the guards of the call path so far: the `try`s around its calls, see analysis/catching.py).
EntryPoint = tuple[str, str, str, tuple[str, ...]]
# Another module's text helper: (qualified name, positional parameters, keyword-only
# parameters, the parameters whose text it returns).
TextHelperEntry = tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
RaiserEntry = tuple[str, tuple[str, ...], tuple[str, ...]]

# The join's words for what the analyses tell it (here, not in analysis/handlers.py, so that
# the run's parent process joins without importing the analyses, and LibCST with them).
# The level of a tool a low-level `call_tool` runs by name from a table, followed by the `try`s
# (encoded) around the dispatching call: what the tool raises is stopped there.
DISPATCHED = "dispatched:"
#: A parameter slot for a server an argument object keeps in an attribute: `0@mcp` for the
#: `self` of `ToolsRegistry(self)` whose class set `self.mcp = FastMCP(...)`.
HELD = "@"


def constructor_slot(slot: str) -> str:
    """The slot of `__init__` a constructor call's argument lands in: positions count `self`."""
    position, held, attribute = slot.partition(HELD)
    return (str(int(position) + 1) if position.isdigit() else position) + held + attribute


@dataclass(frozen=True)
class ProjectContext:
    module: str | None = None  # this file's dotted module name; None when unknown (stdin)
    is_package: bool = False  # an __init__.py: its package is the module itself
    root: str | None = None  # the import root (the directory above the top-level package)
    # The first parts of the module names of the file's project (``ModuleIndex.heads_of``): the
    # join locates no name beginning otherwise, so the tables it reads leave such targets out
    # (`json.dumps`, `httpx.AsyncClient.get`). None: not known, every target is kept.
    module_heads: tuple[str, ...] | None = None
    imported_servers: tuple[tuple[str, str, str], ...] = ()  # (qualified name, level, framework)
    # The project's own server classes (`class AppMCP(FastMCP)`) and factories
    # (`def create_server() -> FastMCP`) that this module imports, by the name it imports.
    imported_server_classes: tuple[tuple[str, str, str], ...] = ()
    imported_server_factories: tuple[tuple[str, str, str], ...] = ()
    # Summaries of imported functions: error helpers (name, payload kind: "dict" or "text")
    # and text helpers (name, positional parameters, keyword-only ones, those whose text
    # reaches the return value).
    # Servers other modules pass to this module's functions: (function key, parameter
    # position or keyword, level, framework); a constructor's position counts `self`.
    server_parameters: tuple[tuple[str, str, str, str], ...] = ()
    # The project's registration decorators this module uses, when a server registers what
    # their registry collects (qualified name, handler kind).
    registry_decorators: tuple[tuple[str, str], ...] = ()
    # Functions of this module (or lists of them, `name[]`) that other modules register on a
    # server: (key, kind, level); and the imported functions that register an argument:
    # (qualified name, position, parameter, kind, level).
    registered_here: tuple[tuple[str, str, str], ...] = ()
    # The classes of what other modules pass to this module's functions: (function key,
    # parameter position or keyword, qualified class); a constructor's position counts `self`.
    parameter_classes: tuple[tuple[str, str, str], ...] = ()
    # Instances other modules give to this module's storing functions (`register(ExportTool())`):
    # (function key, qualified class).
    collected_instances: tuple[tuple[str, str], ...] = ()
    # fastmcp server subclasses of other modules that this module imports and whose building
    # call decides whether error details are masked: (name as imported, framework).
    imported_unmasked_classes: tuple[tuple[str, str], ...] = ()
    # Wrapping functions of other modules this module imports whose inner functions call what
    # they wrap inside `try`s: (name as imported, the `try`s encoded, "" for a call outside any).
    imported_wrapper_guards: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Server classes of other modules whose `tool()` wraps each tool: (name as imported,
    # ((wrapper, its `try`s), ...)).
    imported_tool_wrappers: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()
    # Methods of imported classes that return a decorator registering what it decorates
    # (`tools.writer("...")` on a `ToolRegistry`): (qualified class.method, handler kind).
    imported_decorator_methods: tuple[tuple[str, str], ...] = ()
    # ... and what each such decorator wraps a function in: (qualified method, ((wrapper, its `try`s), ...)).
    imported_decorator_method_wrappers: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()
    imported_registrars: tuple[tuple[str, str, str, str, str], ...] = ()
    imported_error_helpers: tuple[tuple[str, str], ...] = ()
    imported_text_helpers: tuple[TextHelperEntry, ...] = ()
    # What imported functions raise (MCP006 reads a caught class's text as the project's own
    # when its `try` raises it only with messages the project wrote): (qualified name, classes
    # raised with the project's own messages, classes raised with exception text).
    imported_raisers: tuple[RaiserEntry, ...] = ()
    # Some module analysed in full imports from this one: the summaries of its error and text
    # helpers are read, so the helpers it imports itself are a reason to analyse it.
    imported_by_analysed: bool = False
    # A module of the project starts its server over stdio, where `print` writes into the
    # transport (set only on modules with handlers or entry points, where it decides something).
    stdio_transport: bool = False
    entry_points: tuple[EntryPoint, ...] = ()  # reached through calls: what they raise counts
    return_entry_points: tuple[EntryPoint, ...] = ()  # their return value is a handler's

    @property
    def package(self) -> str | None:
        if self.module is None:
            return None
        if self.is_package:
            return self.module
        return self.module.rpartition(".")[0]

    def label(self, key: str) -> str:
        """A function's name as other modules' findings show it."""
        return f"{self.module}.{key}" if self.module else key


def module_of(path: Path, packages: dict[str, tuple[str, tuple[str, ...]]] | None = None) -> tuple[str, str, bool]:
    """(import root, dotted module name, is a package's __init__) from the package layout.

    A directory whose name is not an identifier is never a package on an import path, even
    with an ``__init__.py`` (an unpacked sdist ``server-1.2.0/``, a checkout ``my-server/``
    with a stray one at the top): the import root is there. ``packages``: what the files of the
    same directories found, kept there (a run's files share their directories)."""
    absolute = os.path.abspath(path)
    name = os.path.basename(absolute)
    is_package = name == "__init__.py"
    root, package = _package_of(os.path.dirname(absolute), {} if packages is None else packages)
    parts = package if is_package else (*package, Path(name).stem)
    return root, ".".join(parts), is_package


def _package_of(directory: str, packages: dict[str, tuple[str, tuple[str, ...]]]) -> tuple[str, tuple[str, ...]]:
    """(import root, the package's names) of an absolute directory: its own name and its parents'
    while each holds an ``__init__.py``."""
    found = packages.get(directory)
    if found is None:
        parent, name = os.path.dirname(directory), os.path.basename(directory)
        if parent != directory and name.isidentifier() and os.path.isfile(os.path.join(directory, "__init__.py")):
            root, names = _package_of(parent, packages)
            found = (root, (*names, name))
        else:
            found = (directory, ())
        packages[directory] = found
    return found


def split_target(target: str, modules: set[str]) -> tuple[str, str] | None:
    """``pkg.mod.Class.method`` to (``pkg.mod``, ``Class.method``): the longest known module wins."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        if module in modules:
            return module, ".".join(parts[cut:])
    return None


#: A file analysed on its own (standard input, tests): module-local scope only.
NO_PROJECT = ProjectContext()
