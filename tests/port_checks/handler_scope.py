"""``handlers_ast``'s resolver (``resolve_local_scope_ast``, ``_AstResolver``) against
``handlers``' (``resolve_local_scope``, ``_Resolver``): the handler scope of a module resolved
from the `ast` facts and from LibCST's, in a few project contexts.

Each source's facts are collected both ways as ``handler_facts`` collects them (the original in
a ``RuleContext``'s walk, the twin given the guards it read), with both import tables. Its scope
is resolved as ``engine/lint.py::_resolve`` does: ``resolve_local_scope`` in the context without
its entry points, then ``scope_in_project`` with none and with them (the same local scope taken
on twice, as a run's rounds do). The contexts are made up from the module's own facts, names
the original and the twin share (function keys, callees, qualified imported names):

- ``NO_PROJECT`` (a file alone), its imports read with no package;
- "imports": the module `pkg.mod` importing servers, server classes with their tools' wrappers,
  server factories, wrapping functions, registrars, registration decorators and decorator
  methods of other modules, each qualified name the module uses given one of those roles;
- "callers": other modules passing servers and instances to its functions, registering its
  functions and lists of them, reaching its functions as entry points (by key, by
  `key.<locals>.*`, and by callees that are no key) through calls and returns, with guards,
  and the settings' handler decorators and functions;
- "both": the two together.

Every field of the ``HandlerScope``s compares as it is (they hold no nodes; ``external_calls``,
a function, is asked of every (callee, function) of the facts), the local scope's and its
``module_outputs`` too; then the resolver's own tables, its nodes (the wrapping calls, what
registrars wrap) mapped through ``paired.pairs``, and its answers to ``resolve_callee`` and
``checks_answers``, asked last (an answer asked out of a run's order may be remembered).
"""

from __future__ import annotations

import dataclasses
import traceback
from collections.abc import Callable
from typing import Any

from mcplint.analysis import handlers, handlers_ast
from mcplint.analysis.imports import ImportTable
from mcplint.analysis.project import NO_PROJECT, ProjectContext
from mcplint.engine.ast_pairs import PairedTree
from port_checks.handler_facts import Walked, _ast_nodes, _first_difference, _libcst_nodes, _plain, walked

_KINDS = ("tool", "resource", "prompt")
# How the run's join names a reaching handler's kind (``Handler.joined_kind``).
_JOINED_KINDS = ("tool", "tool!", "tool?", "resource!?", "prompt", "list")
_GUARDS: tuple[tuple[str, ...], ...] = ((), ("ValueError",), ("*", "+KeyError,TypeError"), ("OSError/*",))
_LEVELS = (("high", "fastmcp"), ("low", "mcp"), ("high", "mcp1"), ("any", "unknown"), ("low-2", "mcp"))
_MAX_KEYS = 30  # entry points per context: a module of hundreds of functions stays quick


@dataclasses.dataclass(frozen=True)
class _Setting:
    name: str
    package: str | None
    project: ProjectContext
    handler_decorators: tuple[str, ...] = ()
    handler_functions: tuple[str, ...] = ()


def handler_scope(paired: PairedTree) -> list[str]:
    """The scope resolved from either side's facts is the same in every made-up context."""
    sides = {package: walked(paired, package) for package in (None, "pkg")}
    problems: list[str] = []
    for setting in _settings(sides["pkg"]):
        found = _compare(paired, setting, sides[setting.package])
        problems.extend(f"{setting.name}: {problem}" for problem in found)
    return problems


def _settings(sides: Walked) -> list[_Setting]:
    facts, imports = sides.facts, sides.imports
    imported = _imported_roles(facts, imports)
    callers = _callers(facts)
    return [
        _Setting("NO_PROJECT", None, NO_PROJECT),
        _Setting("imports", "pkg", ProjectContext(module="pkg.mod", **imported)),
        _Setting(
            "callers",
            "pkg",
            ProjectContext(module="pkg.mod", **callers),
            handler_decorators=("*.route", "register_*"),
            handler_functions=("handle_*", "*.run"),
        ),
        _Setting("both", "pkg", ProjectContext(module="pkg.mod", **imported, **callers)),
    ]


def _callees(facts: handlers.HandlerFactsCollector) -> list[str]:
    found = dict.fromkeys(facts.module_calls)
    for info in facts.functions.values():
        found.update(dict.fromkeys(info.calls))
    return list(found)


def _imported_roles(facts: handlers.HandlerFactsCollector, imports: ImportTable) -> dict[str, Any]:
    """Each qualified name the module uses (a callee, a prefix of one, an imported name) in
    one of the roles another module's name may have here."""
    names: dict[str, None] = dict.fromkeys(imports.imported().values())
    for callee in _callees(facts):
        parts = callee.split(".")
        for end in range(1, len(parts) + 1):
            qualified = imports.qualify(".".join(parts[:end]))
            if qualified is not None and "[" not in qualified and "(" not in qualified:
                names[qualified] = None
    qualified_names = sorted(names)
    methods = sorted({callee.rpartition(".")[2] for callee in _callees(facts) if "." in callee})[:6]
    classes = [name for name in qualified_names if name.rpartition(".")[2][:1].isupper()]
    wrappers = tuple((f"{name}.wrap", ("", "ValueError")) for name in qualified_names[:2])
    decorator_methods = [f"{name}.{method}" for name in classes[:4] for method in methods]
    return {
        "imported_servers": tuple(
            (name, *_LEVELS[index % len(_LEVELS)]) for index, name in enumerate(qualified_names[0::4])
        ),
        "imported_server_classes": tuple(
            (name, *_LEVELS[index % len(_LEVELS)]) for index, name in enumerate([*qualified_names[1::4], *classes])
        ),
        "imported_server_factories": tuple(
            (name, *_LEVELS[index % len(_LEVELS)]) for index, name in enumerate(qualified_names[2::4])
        ),
        "imported_wrapper_guards": tuple(
            (name, _GUARDS[index % len(_GUARDS)] or ("",)) for index, name in enumerate(qualified_names[3::4])
        ),
        "imported_tool_wrappers": tuple((name, wrappers) for name in classes),
        "imported_decorator_methods": tuple(
            (method, _KINDS[index % 3]) for index, method in enumerate(decorator_methods)
        ),
        "imported_decorator_method_wrappers": tuple((method, wrappers) for method in decorator_methods[::2]),
        "imported_registrars": tuple(
            (name, slot, parameter, kind, level)
            for index, name in enumerate(qualified_names)
            for slot, parameter, kind, level in [
                (
                    ("0", "fn", "tool", "high"),
                    (handlers.FACTORY_SLOT, "func", "tool", "high"),
                    ("1", "handler", "resource", "low"),
                    ("0", "f", "prompt", "low-2"),
                )[index % 4]
            ]
        ),  # fmt: skip
        "registry_decorators": tuple((name, _KINDS[index % 3]) for index, name in enumerate(qualified_names[::2])),
    }


def _callers(facts: handlers.HandlerFactsCollector) -> dict[str, Any]:
    """Other modules calling the module's functions: passing servers and instances to them,
    registering them, reaching them as handlers do."""
    keys = [key for key in facts.functions if "<locals>" not in key][:_MAX_KEYS]
    classes = [key for key in facts.class_bases if "<locals>" not in key]
    server_parameters: list[tuple[str, str, str, str]] = []
    parameter_classes: list[tuple[str, str, str]] = []
    for index, key in enumerate(keys):
        parameters = list(facts.functions[key].parameters)
        level, framework = _LEVELS[index % len(_LEVELS)]
        slots = ["0", "1", *parameters[:2], f"0{handlers.HELD}mcp", f"1{handlers.HELD}server"]
        slot = slots[index % len(slots)]
        server_parameters.append((key, slot, level, framework))
        class_name = f"pkg.mod.{classes[index % len(classes)]}" if classes and index % 2 else "pkg.other.Service"
        parameter_classes.append((key, slots[(index + 1) % len(slots)], class_name))
    module_lists = [
        name for (scope, name), values in facts.aliases.items() if scope is None and not name.endswith("[]")
    ]
    registered_here = [
        *((key, _KINDS[index % 3], ("high", "low", "low-2")[index % 3]) for index, key in enumerate(keys[::3])),
        *((f"{name}[]", "tool", "high") for name in module_lists[:5]),
        *((f"{name}{{}}", "tool", "low") for name in facts.registry_tables),
    ]
    inner = [f"{key}.<locals>.*" for key in facts.functions if ".<locals>." in key][:5]
    unresolved = [callee for callee in _callees(facts) if callee not in facts.functions][: _MAX_KEYS // 2]
    patterns = [
        *keys,
        *dict.fromkeys(pattern.rpartition(".<locals>.")[0] + ".<locals>.*" for pattern in inner),
        *unresolved,
    ]
    entry_points = tuple(
        (
            pattern,
            f"pkg.handlers.h{index % 7}",
            _JOINED_KINDS[index % len(_JOINED_KINDS)],
            _GUARDS[index % len(_GUARDS)],
        )
        for index, pattern in enumerate(patterns)
    )
    return {
        "server_parameters": tuple(server_parameters),
        "parameter_classes": tuple(parameter_classes),
        "collected_instances": tuple(
            (key, f"pkg.mod.{classes[index % len(classes)]}" if classes and index % 2 else "pkg.tools.ExportTool")
            for index, key in enumerate(keys[::2])
        ),
        "registered_here": tuple(registered_here),
        "entry_points": entry_points,
        "return_entry_points": entry_points[::2],
    }


def _compare(paired: PairedTree, setting: _Setting, sides: Walked) -> list[str]:
    project = setting.project
    local_inputs = dataclasses.replace(project, entry_points=(), return_entry_points=())
    problems: list[str] = []
    results: list[tuple[Any, ...]] = []
    for resolve, facts, imports in (
        (handlers.resolve_local_scope, sides.facts, sides.imports),
        (handlers_ast.resolve_local_scope_ast, sides.twin, sides.twin_imports),
    ):
        try:
            local = resolve(
                facts,
                imports,
                handler_decorators=setting.handler_decorators,
                handler_functions=setting.handler_functions,
                project=local_inputs,
            )
            local_fields = _scope_fields(local.scope)
            alone = handlers.scope_in_project(local, local_inputs)
            entered = handlers.scope_in_project(local, project)
            results.append((local, local_fields, alone, entered))
        except Exception:  # noqa: BLE001  # a side that fails is a difference, whichever it is
            results.append((" | ".join(traceback.format_exc(limit=-2).strip().splitlines()[-3:]),))
    expected, found = results
    if len(expected) == 1 or len(found) == 1:  # a side raised
        return [f"raised: {expected[0] if len(expected) == 1 else '-'} / {found[0] if len(found) == 1 else '-'}"]
    original_local, original_fields, *original_scopes = expected
    twin_local, twin_fields, *twin_scopes = found
    problems.extend(_differences("local scope", original_fields, twin_fields))
    for what, original, twin in zip(
        ("without entry points", "with entry points"), original_scopes, twin_scopes, strict=True
    ):
        problems.extend(_differences(what, _scope_fields(original), _scope_fields(twin)))
        problems.extend(_external_calls(what, sides.facts, original, twin))
    assert original_local.module_outputs is not None and twin_local.module_outputs is not None
    problems.extend(
        _differences(
            "module outputs", _scope_fields(original_local.module_outputs), _scope_fields(twin_local.module_outputs)
        )
    )
    problems.extend(_resolver_differences(paired, sides.facts, original_local.resolver, twin_local.resolver))
    return problems


def _scope_fields(scope: handlers.HandlerScope) -> dict[str, Any]:
    return {
        field.name: getattr(scope, field.name) for field in dataclasses.fields(scope) if field.name != "external_calls"
    }


def _differences(what: str, expected: dict[str, Any], found: dict[str, Any]) -> list[str]:
    problems = []
    for name, value in expected.items():
        if value != found[name] or _order(value) != _order(found[name]):
            problems.append(f"{what}: {name}: {_first_difference(_plain_table(value), _plain_table(found[name]))}")
    return problems


def _order(value: Any) -> Any:
    """Dicts and lists compare in their order too (a finding's text lists handlers in it)."""
    if isinstance(value, dict):
        return [(key, _order(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_order(item) for item in value]
    return value


def _plain_table(value: Any) -> Any:
    if isinstance(value, dict):
        return [(key, _plain_table(item)) for key, item in value.items()]
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    return value


def _external_calls(
    what: str, facts: handlers.HandlerFactsCollector, original: handlers.HandlerScope, twin: handlers.HandlerScope
) -> list[str]:
    problems = []
    for callee, function in _callee_pairs(facts):
        expected, found = original.external_calls(callee, function), twin.external_calls(callee, function)
        if expected != found:
            problems.append(f"{what}: external_calls({callee!r}, {function!r}): {expected} != {found}")
    return problems


def _callee_pairs(facts: handlers.HandlerFactsCollector) -> list[tuple[str, str | None]]:
    pairs: list[tuple[str, str | None]] = [(callee, None) for callee in dict.fromkeys(facts.module_calls)]
    for key, info in facts.functions.items():
        pairs.extend((callee, key) for callee in dict.fromkeys(info.calls))
    return pairs


# The resolver's tables after the scope is resolved (those holding nodes: mapped).
_RESOLVER_TABLES = (
    "bindings", "server_subclasses", "server_parameters", "registrars", "registrar_wrappers", "wrapping_calls",
    "dynamic_registrations", "outgoing_registrations", "local_decorator_methods", "decorator_method_wrappers",
    "local_registry_decorators", "imported_registering",
)  # fmt: skip


def _resolver_differences(
    paired: PairedTree, facts: handlers.HandlerFactsCollector, original: handlers._Resolver, twin: handlers._Resolver
) -> list[str]:
    node_of: Callable[[Any], Any] = _libcst_nodes(paired)
    problems = []
    for name in _RESOLVER_TABLES:
        expected, found = _plain(getattr(original, name), node_of), _plain(getattr(twin, name), _ast_nodes)
        if expected != found:
            problems.append(f"resolver.{name}: {_first_difference(expected, found)}")
    for callee, function in _callee_pairs(facts):
        info = facts.functions.get(function or "")
        class_key = info.class_key if info is not None else None
        expected_keys = original.resolve_callee(callee, function, class_key)
        found_keys = twin.resolve_callee(callee, function, class_key)
        if expected_keys != found_keys:
            problems.append(f"resolve_callee({callee!r}, {function!r}): {expected_keys} != {found_keys}")
    for key in facts.functions:
        if original.checks_answers(key) != twin.checks_answers(key):
            problems.append(f"checks_answers({key!r}): {original.checks_answers(key)} != {twin.checks_answers(key)}")
    return problems


CHECKS = [handler_scope]
