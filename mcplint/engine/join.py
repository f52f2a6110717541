"""The run's cross-module join: from every file's analysis, each file's ProjectContext.

A module learns the servers, server classes and server factories it imports from
other modules (so `@billing.tool()` on `billing = AppMCP("billing")` registers a
handler when `AppMCP` subclasses `FastMCP` elsewhere) and the entry points other
modules' reached functions give it (so a service function a tool calls is in
scope, and its findings name that tool).

Names are resolved the way Python imports them: through re-exports
(`from .lookup import handle_lookup` in a package's `__init__`), star imports,
and namespace packages or `src/` layouts without `__init__.py` files (see
``ModuleIndex``). Two projects in one run never mix: a name resolves only to a
file of the importer's own project.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mcplint.analysis.project import DISPATCHED, EntryPoint, ProjectContext, RaiserEntry, constructor_slot, module_of
from mcplint.engine.module_index import ModuleIndex, is_test_module
from mcplint.engine.result import FileResult

MAX_REEXPORT_HOPS = 8


def initial_contexts(paths: list[str]) -> dict[str, ProjectContext]:
    contexts = {}
    packages: dict[str, tuple[str, tuple[str, ...]]] = {}  # by directory, for all its files
    for path in paths:
        root, module, is_package = module_of(Path(path), packages)
        contexts[path] = ProjectContext(module=module or None, is_package=is_package, root=root)
    return contexts


class NameMemory:
    """What a run's joins resolved, for the next join of the run (the same ``ModuleIndex``): a
    name's answer stands while the files its resolution read keep the names they define,
    re-export and star-import (rounds 2-6 of a corpus check change them in 68, 43, 14 and 1
    files of 1,464, and ask mostly the questions the last join asked)."""

    def __init__(self) -> None:
        self.resolved: dict[tuple[str, str], tuple[str, str] | None] = {}
        self.defined: dict[str, set[str]] = {}
        self._readers: dict[str, list[tuple[str, str]]] = {}  # file -> the questions that read it
        self._names: dict[str, tuple[FileResult, tuple[object, ...]]] = {}

    def take(self, results: Mapping[str, FileResult]) -> None:
        """The files' latest results: the answers that read a file whose names changed go."""
        for path, result in results.items():
            known = self._names.get(path)
            if known is not None and known[0] is result:
                continue
            names = (result.defined_names, result.exports, result.star_imports)
            if known is not None and known[1] == names:
                self._names[path] = (result, known[1])
                continue
            self._names[path] = (result, names)
            self.defined[path] = set(result.defined_names)
            for question in self._readers.pop(path, ()):
                self.resolved.pop(question, None)

    def read_by(self, question: tuple[str, str], paths: list[str]) -> None:
        for path in dict.fromkeys(paths):
            self._readers.setdefault(path, []).append(question)


class NameResolver:
    """Qualified names to (file, key in that file), through re-exports and star imports
    (``memory``: what the run's earlier joins resolved, when kept)."""

    def __init__(
        self,
        results: Mapping[str, FileResult],
        contexts: Mapping[str, ProjectContext],
        index: ModuleIndex,
        memory: NameMemory | None = None,
    ) -> None:
        self._results = results
        self._contexts = contexts
        self._index = index
        self._memory = NameMemory() if memory is None else memory
        self._memory.take(results)
        self._resolved = self._memory.resolved
        self._defined = self._memory.defined

    def resolve(self, qualified: str, importer: str) -> tuple[str, str] | None:
        key = (qualified, importer)
        try:
            return self._resolved[key]
        except KeyError:
            read: list[str] = []
            found = self._resolved[key] = self._resolve(qualified, importer, 0, read)
            self._memory.read_by(key, read)
            return found

    def canonical(self, qualified: str, importer: str) -> str:
        """The name of what ``qualified`` stands for where it is defined (re-exports followed)."""
        found = self.resolve(qualified, importer)
        return self._contexts[found[0]].label(found[1]) if found is not None else qualified

    def resolved(self, table: str) -> Iterator[tuple[str, str, str, Any]]:
        """(importer, file, key, payload) for each entry of every file's ``table`` (a
        FileResult field mapping qualified targets to payloads) that resolves to a file."""
        for path, result in self._results.items():
            for target, payload in getattr(result, table).items():
                found = self.resolve(target, path)
                if found is not None:
                    yield path, found[0], found[1], payload

    def defines(self, path: str, key: str) -> bool:
        return key in self._defined[path]

    def _resolve(self, qualified: str, importer: str, hops: int, read: list[str]) -> tuple[str, str] | None:
        found = self._index.locate(qualified, importer)
        if found is None:
            return None
        path, key = found
        read.append(path)  # (also where the hops end: a star import's caller reads what it defines)
        if hops >= MAX_REEXPORT_HOPS:
            return found
        head = _head(key)
        if head in self._defined[path]:
            return found
        result = self._results[path]
        if head in result.exports:  # a re-export: follow it to where the name is defined
            suffix = key[len(head):]
            target = result.exports[head] + suffix
            deeper = self._resolve(target, path, hops + 1, read)
            if deeper is not None:
                return deeper
        for star in result.star_imports:
            deeper = self._resolve(f"{star}.{key}", path, hops + 1, read)
            if deeper is not None and _head(deeper[1]) in self._defined[deeper[0]]:
                return deeper
        return found


def join(
    results: Mapping[str, FileResult],
    contexts: Mapping[str, ProjectContext],
    index: ModuleIndex | None = None,
    memory: NameMemory | None = None,
) -> dict[str, ProjectContext]:
    """The contexts the files should have been analysed with, given these results (``index``:
    the run's module names, the same every round; ``memory``: the names its joins resolved)."""
    if index is None:
        index = ModuleIndex({path: contexts[path] for path in results})
    names = NameResolver(results, contexts, index, memory)

    located: dict[tuple[str, str], tuple[str, str] | None] = {}

    def locate(target: str, importer: str) -> tuple[str, str] | None:
        """(file, function key or `key.<locals>.*` pattern) of a qualified target; of a choice
        (`a.Mixin.m|b.Base.m`, a method by resolution order) the first that is defined."""
        asked = (target, importer)
        if asked in located:  # the chain below asks again for every entry point passing through
            return located[asked]
        found = located[asked] = _locate(target, importer)
        return found

    def _locate(target: str, importer: str) -> tuple[str, str] | None:
        if "|" in target:
            choices = [found for found in (names.resolve(t, importer) for t in target.split("|")) if found]
            defined = [found for found in choices if names.defines(*found)]
            return (defined or choices)[0] if defined or choices else None
        found = names.resolve(target.removesuffix(".<locals>.*"), importer)
        if found is None:
            return None
        path, key = found
        return path, key + ".<locals>.*" if target.endswith(".<locals>.*") else key

    calls: dict[str, set[EntryPoint]] = {path: set() for path in results}
    returns: dict[str, set[EntryPoint]] = {path: set() for path in results}
    for path, result in results.items():
        for outgoing, entries in ((result.outgoing_calls, calls), (result.outgoing_returns, returns)):
            for target, handlers in outgoing.items():
                found = locate(target, path)
                if found is not None:
                    entries[found[0]].update((found[1], label, kind, tuple(state)) for label, kind, state in handlers)

    # A message sent by name to a dispatcher of the same project (`session.call("get_results")`
    # answered by `elif msg_type == "get_results": self.client.get_results()` in a worker
    # process): what the branch runs returns to the handlers the sender returns to.
    message_targets: dict[tuple[str | None, str], list[tuple[str, str]]] = {}
    for path, result in results.items():
        for message, targets in result.message_targets.items():
            message_targets.setdefault((index.project_of(path), message), []).extend((path, t) for t in targets)
    for path, result in results.items():
        for message, handlers in result.message_returns.items():
            for dispatcher, target in message_targets.get((index.project_of(path), message), ()):
                found = locate(target, dispatcher)
                if found is not None:
                    returns[found[0]].update((found[1], label, kind, tuple(state)) for label, kind, state in handlers)

    # Follow each entry point through the module it lands in, to the modules that
    # module calls on, so a chain of service modules is joined in one step.
    for entries, reach_of in ((calls, "local_reach_calls"), (returns, "local_reach_returns")):
        # Where an entry point leads does not depend on whose it is: each step is worked out once
        # and taken by every handler's entry passing that way.
        steps: dict[tuple[str, str, tuple[str, ...]], list[tuple[str, str, tuple[str, ...]]]] = {}
        pending = [(path, entry) for path, found in entries.items() for entry in found]
        while pending:
            path, (key, label, kind, state) = pending.pop()
            step = steps.get((path, key, state))
            if step is None:
                step = steps[(path, key, state)] = _chain_step(results[path], reach_of, key, state, path, locate)
            for other, other_key, way_guards in step:
                entry = (other_key, label, kind, way_guards)
                if entry not in entries[other]:
                    entries[other].add(entry)
                    pending.append((other, entry))

    # Servers passed into other modules' functions and classes (`Handlers(mcp)`).
    server_parameters: dict[str, set[tuple[str, str, str, str]]] = {path: set() for path in results}
    for _, other, key, slots in names.resolved("outgoing_servers"):
        for slot, level, framework in slots:
            server_parameters[other].add((*_parameter_of(results[other], key, slot), level, framework))

    # The classes of objects passed into other modules' functions (`register(mcp, Service())`);
    # not the fakes a test passes (`register_alert_tools(mcp=fake, mcp_error=FakeMCPError())`):
    # no client request runs them, and a parameter given several classes reaches each.
    parameter_classes: dict[str, set[tuple[str, str, str]]] = {path: set() for path in results}
    for path, other, key, slots in names.resolved("outgoing_arguments"):
        if is_test_module(path):
            continue
        for slot, class_name in slots:
            parameter_classes[other].add((*_parameter_of(results[other], key, slot), names.canonical(class_name, path)))

    # Instances given to another module's function that keeps them (`register(ExportTool())`).
    collected: dict[str, set[tuple[str, str]]] = {path: set() for path in results}
    for path, other, key, instance_classes in names.resolved("outgoing_instances"):
        collected[other].update((key, names.canonical(class_name, path)) for class_name in instance_classes)

    # Functions (and lists of them) registered on a server by another module.
    registered_here: dict[str, set[tuple[str, str, str]]] = {path: set() for path in results}
    for path, result in results.items():
        for target, kind, level in result.outgoing_registrations:
            found = names.resolve(target.removesuffix("[]"), path)
            if found is not None:
                registered_here[found[0]].add((found[1] + ("[]" if target.endswith("[]") else ""), kind, level))

    # Registration decorators count once a server of the same project registers, in a loop, what
    # a registry holds (or a low-level `tools/call` handler dispatches by name): another
    # project's loop says nothing about this one's decorators.
    dynamic: dict[str | None, set[str]] = {}
    for path, result in results.items():
        dynamic.setdefault(index.project_of(path), set()).update(result.dynamic_registrations)
    registry_kinds = {
        project: "tool" if "tool" in kinds else sorted(kinds)[0] for project, kinds in dynamic.items() if kinds
    }

    # Tool tables (`{"ListIndexTool": {"function": list_indices, ...}}`) count like registration
    # decorators: once a server of the same project runs tools by name or registers in a loop.
    # When every low-level `call_tool` of the project runs them inside the same `try`s, what a
    # tool raises is stopped there (it answers with its own error result).
    dispatch_guards: dict[str | None, set[str]] = {}
    for path, result in results.items():
        dispatch_guards.setdefault(index.project_of(path), set()).update(result.dispatch_guards)
    for path, result in results.items():
        project = index.project_of(path)
        table_kind = registry_kinds.get(project)
        if table_kind is not None:
            guards = dispatch_guards.get(project, set())
            level = f"{DISPATCHED}{next(iter(guards))}" if len(guards) == 1 and "" not in guards else "high"
            registered_here[path].update((f"{table}{{}}", table_kind, level) for table in result.registry_tables)

    # The files some fully analysed module imports from (it reads their helpers' summaries).
    imported_by_analysed: set[str] = set()
    for path, result in results.items():
        if result.analysed:
            for name in result.imported_names:
                found = names.resolve(name, path)
                if found is not None and found[0] != path:
                    imported_by_analysed.add(found[0])

    stdio_projects = {index.project_of(path) for path, result in results.items() if result.runs_stdio} - {None}

    # Per file, the names its tables below hold: most imported names are in none of them.
    keys_tabled: dict[str, set[str]] = {}

    def tabled(path: str) -> set[str]:
        found = keys_tabled.get(path)
        if found is None:
            found = keys_tabled[path] = _tabled_keys(results[path])
        return found

    joined = {}
    for path, context in contexts.items():
        registry_kind = registry_kinds.get(index.project_of(path))
        servers: list[tuple[str, str, str]] = []
        classes: list[tuple[str, str, str]] = []
        factories: list[tuple[str, str, str]] = []
        error_helpers: list[tuple[str, str]] = []
        text_helpers: list[tuple[str, tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = []
        raisers: list[RaiserEntry] = []
        decorators: list[tuple[str, str]] = []
        registrars: list[tuple[str, str, str, str, str]] = []
        unmasked: list[tuple[str, str]] = []
        wrapper_guards: list[tuple[str, tuple[str, ...]]] = []
        tool_wrappers: list[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]] = []
        decorator_methods: list[tuple[str, str]] = []
        method_wrappers: list[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]]] = []
        for name in results[path].imported_names:
            found = names.resolve(name, path)
            if found is None or found[0] == path:
                continue
            other, key = found
            if key not in tabled(other) and not results[other].decorator_methods:
                continue
            if registry_kind is not None and key in results[other].registry_decorators:
                decorators.append((name, registry_kind))
            if key in results[other].unmasked_classes:
                unmasked.append((name, results[other].unmasked_classes[key]))
            if key in results[other].wrapper_guards:
                wrapper_guards.append((name, tuple(results[other].wrapper_guards[key])))
            for method, kind in results[other].decorator_methods.items():
                if method.startswith(f"{key}."):
                    decorator_methods.append((f"{name}{method[len(key):]}", kind))
                    decorated = results[other].decorator_method_wrappers.get(method, [])
                    if decorated:
                        method_wrappers.append((f"{name}{method[len(key):]}", _wrappers_from(decorated, other, contexts)))
            if key in results[other].tool_wrappers:
                tool_wrappers.append((name, _wrappers_from(results[other].tool_wrappers[key], other, contexts)))
            if key in results[other].registrars:
                position, registered, kind, level = results[other].registrars[key]
                registrars.append((name, position, registered, kind, level))
            if key in results[other].error_helpers:
                error_helpers.append((name, results[other].error_helpers[key]))
            if key in results[other].text_helpers:
                positional, keyword_only, returned = results[other].text_helpers[key]
                text_helpers.append((name, tuple(positional), tuple(keyword_only), tuple(returned)))
            if key in results[other].raising_functions:
                own, text = results[other].raising_functions[key]
                raisers.append((name, tuple(own), tuple(text)))
            for table, into in (
                (results[other].module_servers, servers),
                (results[other].server_classes, classes),
                (results[other].server_factories, factories),
            ):
                if key in table:
                    level, framework = table[key]
                    into.append((name, level, framework))
        # Error and text helpers reached through an object's method (`errors.tool_error(...)`).
        for target in (*results[path].outgoing_returns, *results[path].outgoing_calls):
            found = names.resolve(target, path)
            if found is None or found[0] == path:
                continue
            other, key = found
            if key not in tabled(other):
                continue
            if key in results[other].error_helpers and (target, results[other].error_helpers[key]) not in error_helpers:
                error_helpers.append((target, results[other].error_helpers[key]))
            if key in results[other].text_helpers:
                positional, keyword_only, returned = results[other].text_helpers[key]
                helper = (target, tuple(positional), tuple(keyword_only), tuple(returned))
                if helper not in text_helpers:
                    text_helpers.append(helper)
            if key in results[other].raising_functions:
                own, text = results[other].raising_functions[key]
                if (target, tuple(own), tuple(text)) not in raisers:
                    raisers.append((target, tuple(own), tuple(text)))
        joined[path] = ProjectContext(
            module=context.module,
            is_package=context.is_package,
            root=context.root,
            module_heads=context.module_heads,
            imported_servers=tuple(sorted(servers)),
            imported_server_classes=tuple(sorted(classes)),
            imported_server_factories=tuple(sorted(factories)),
            server_parameters=tuple(sorted(server_parameters[path])),
            registry_decorators=tuple(sorted(decorators)),
            registered_here=tuple(sorted(registered_here[path])),
            parameter_classes=tuple(sorted(parameter_classes[path])),
            collected_instances=tuple(sorted(collected[path])),
            imported_unmasked_classes=tuple(sorted(unmasked)),
            imported_wrapper_guards=tuple(sorted(wrapper_guards)),
            imported_tool_wrappers=tuple(sorted(tool_wrappers)),
            imported_decorator_methods=tuple(sorted(decorator_methods)),
            imported_decorator_method_wrappers=tuple(sorted(method_wrappers)),
            imported_registrars=tuple(sorted(registrars)),
            imported_error_helpers=tuple(sorted(error_helpers)),
            imported_text_helpers=tuple(sorted(text_helpers)),
            imported_raisers=tuple(sorted(raisers)),
            # Set only where it decides something (a module importing helpers), so that it
            # does not change the context, and so the analysis, of every other file.
            imported_by_analysed=bool(error_helpers or text_helpers) and path in imported_by_analysed,
            entry_points=_sorted_as_before(calls[path], context.entry_points),
            return_entry_points=_sorted_as_before(returns[path], context.return_entry_points),
            stdio_transport=index.project_of(path) in stdio_projects
            and bool(calls[path] or returns[path] or results[path].handlers),
        )
    return joined


def _sorted_as_before(found: set[EntryPoint], before: tuple[EntryPoint, ...]) -> tuple[EntryPoint, ...]:
    """``found`` sorted: the last round's tuple when it holds the same (most files' entry points
    stay from one round to the next; sorting them all was a tenth of a corpus check's joins).
    Entry points mostly come on top of the last round's: those (sorted already) followed by the
    new ones sorted, which a sort merges in one pass over the old ones."""
    if len(found) == len(before) and found.issuperset(before):
        return before
    added = found.difference(before)
    if len(found) == len(before) + len(added):  # the old ones are all still there
        return tuple(sorted([*before, *sorted(added)]))
    return tuple(sorted(found))


def _tabled_keys(result: FileResult) -> set[str]:
    """The names a module's tables that importers read hold (its decorator methods aside)."""
    keys = set(result.registry_decorators)
    for table in (
        result.unmasked_classes, result.wrapper_guards, result.tool_wrappers, result.registrars, result.error_helpers,
        result.text_helpers, result.raising_functions, result.module_servers, result.server_classes,
        result.server_factories,
    ):  # fmt: skip
        keys.update(table)
    return keys


def _chain_step(
    result: FileResult,
    reach_of: str,
    key: str,
    state: tuple[str, ...],
    path: str,
    locate: Callable[[str, str], tuple[str, str] | None],
) -> list[tuple[str, str, tuple[str, ...]]]:
    """(file, function, guards) of the other modules' functions an entry point at ``key`` of the
    module at ``path`` reaches through that module's own calls."""
    # The calls inside the module passed through add the `try`s every way to them passes
    # (the next round, which analyses that module, adds each way's own).
    reach: dict[str, list[str]] = getattr(result, reach_of)
    shared = result.local_reach_guards if reach_of == "local_reach_calls" else {}
    keys = [k for k in reach if k.startswith(key[:-1])] if key.endswith(".*") else [key]
    step = []
    for target in {t for k in keys for t in reach.get(k, ())}:
        found = locate(target, path)
        if found is not None:
            # (a `.*` entry stands for several functions: only what all their ways share)
            ways = [set(shared.get(k, {}).get(target, ())) for k in keys if target in reach.get(k, ())]
            guards = set(state) | set.intersection(*ways) if ways else set(state)
            step.append((found[0], found[1], tuple(sorted(guards))))
    return step


def _parameter_of(result: FileResult, key: str, slot: str) -> tuple[str, str]:
    """(function, parameter slot) an argument at ``slot`` of a call of ``key`` lands in: a
    class called runs its `__init__`, whose positions count `self`."""
    if key in result.defined_names and f"{key}.__init__" in result.defined_names:
        return f"{key}.__init__", constructor_slot(slot)
    return key, slot


def _head(key: str) -> str:
    """The module-level name a key starts with: `Client` of `Client.fetch`, `OPS` of `OPS[]`,
    `get_client` of `get_client().post`."""
    return _HEAD_END.split(key, maxsplit=1)[0]


_HEAD_END = re.compile(r"[.(\[]")


def _wrappers_from(
    wrappers: list[list[Any]], path: str, contexts: Mapping[str, ProjectContext]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The wrappers a FileResult of ``path`` lists, named as other modules name them."""
    return tuple((_absolute(wrapper, path, contexts), tuple(guards)) for wrapper, guards in wrappers)


def _absolute(name: str, path: str, contexts: Mapping[str, ProjectContext]) -> str:
    """A function key of the module at ``path`` as other modules name it (`handle_errors` ->
    `pkg.errors.handle_errors`); a qualified name stays as it is."""
    module = contexts[path].module if path in contexts else None
    return f"{module}.{name}" if module and "." not in name else name
