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
from mcplint.engine.result import FileResult


def initial_contexts(paths: list[str]) -> dict[str, ProjectContext]:
    contexts = {}
    for path in paths:
        root, module, is_package = module_of(Path(path))
        contexts[path] = ProjectContext(module=module or None, is_package=is_package, root=root)
    return contexts


def join(results: Mapping[str, FileResult], contexts: Mapping[str, ProjectContext]) -> dict[str, ProjectContext]:
    """The contexts the files should have been analysed with, given these results."""
    located: dict[tuple[str, str], tuple[str, str] | None] = {}

    def locate(target: str, root: str) -> tuple[str, str] | None:
        if (target, root) not in located:
            located[(target, root)] = _locate(target, root, modules_by_root, files_by_module)
        return located[(target, root)]

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
                found = locate(target, root)
                if found is not None:
                    entries[found[0]].update((found[1], label, kind) for label, kind in handlers)

    # Follow each entry point through the module it lands in, to the modules that
    # module calls on, so a chain of service modules is joined in one step.
    for entries, reach_of in ((calls, "local_reach_calls"), (returns, "local_reach_returns")):
        pending = [(path, entry) for path, found in entries.items() for entry in found]
        while pending:
            path, (key, label, kind) = pending.pop()
            reach: dict[str, list[str]] = getattr(results[path], reach_of)
            keys = [k for k in reach if k.startswith(key[:-1])] if key.endswith(".*") else [key]
            for target in {t for k in keys for t in reach.get(k, ())}:
                found = locate(target, roots[path])
                if found is not None:
                    entry = (found[1], label, kind)
                    if entry not in entries[found[0]]:
                        entries[found[0]].add(entry)
                        pending.append((found[0], entry))

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


def _locate(
    target: str,
    root: str,
    modules_by_root: Mapping[str, set[str]],
    files_by_module: Mapping[tuple[str, str], str],
) -> tuple[str, str] | None:
    """(file, function key or `key.<locals>.*` pattern) of a qualified target in this root."""
    found = split_target(target.removesuffix(".<locals>.*"), modules_by_root.get(root, set()))
    if found is None:
        return None
    module, key = found
    if target.endswith(".<locals>.*"):
        key += ".<locals>.*"
    return files_by_module[(root, module)], key
