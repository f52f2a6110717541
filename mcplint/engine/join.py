"""The run's cross-module join: from every file's analysis, each file's ProjectContext.

A module learns the servers it imports from other modules (so `@mcp.tool()` on
an imported `mcp` registers a handler) and the entry points other modules'
reached functions give it (so a service function a tool calls is in scope, and
its findings name that tool). Modules are matched within one import root (the
directory above the top-level package), so two projects in one run that both
have a `server` module never mix.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from mcplint.analysis.project import EntryPoint, ProjectContext, module_of, split_target
from mcplint.engine.lint import FileResult


def initial_contexts(paths: list[str]) -> dict[str, ProjectContext]:
    contexts = {}
    for path in paths:
        root, module, is_package = module_of(Path(path))
        contexts[path] = ProjectContext(module=module or None, is_package=is_package, root=root)
    return contexts


def join(results: Mapping[str, FileResult], contexts: Mapping[str, ProjectContext]) -> dict[str, ProjectContext]:
    """The contexts the files should have been analysed with, given these results."""
    roots = {path: contexts[path].root for path in results}
    files_by_module = {(roots[path], contexts[path].module): path for path in results if contexts[path].module}
    modules_by_root: dict[str, set[str]] = {}
    for root, module in files_by_module:
        modules_by_root.setdefault(root, set()).add(module)

    servers: dict[tuple[str, str], tuple[str, str]] = {}
    for path, result in results.items():
        for name, binding in result.module_servers.items():
            servers[(roots[path], f"{contexts[path].module}.{name}")] = tuple(binding)  # type: ignore[assignment]

    calls: dict[str, set[EntryPoint]] = {path: set() for path in results}
    returns: dict[str, set[EntryPoint]] = {path: set() for path in results}
    for path, result in results.items():
        root = roots[path]
        for outgoing, entries in ((result.outgoing_calls, calls), (result.outgoing_returns, returns)):
            for target, handlers in outgoing.items():
                found = split_target(target.removesuffix(".<locals>.*"), modules_by_root.get(root, set()))
                if found is None:
                    continue
                module, key = found
                if target.endswith(".<locals>.*"):
                    key += ".<locals>.*"
                entries[files_by_module[(root, module)]].update((key, label, kind) for label, kind in handlers)

    joined = {}
    for path, context in contexts.items():
        imported = tuple(
            sorted((name, *servers[(roots[path], name)]) for name in results[path].imported_names
                   if (roots[path], name) in servers)
        )  # fmt: skip
        joined[path] = ProjectContext(
            module=context.module,
            is_package=context.is_package,
            root=context.root,
            imported_servers=imported,
            entry_points=tuple(sorted(calls[path])),
            return_entry_points=tuple(sorted(returns[path])),
        )
    return joined
