"""Handler detection and handler scope (docs/project-model.md).

A function is a handler when an MCP framework calls it: it is registered on an
object built by a framework's server class (resolved through the module's
imports, never by the variable's spelling), or registered by a framework
function. Handler scope adds the wrapper decorators stacked under the
registration and every function of the module that a handler reaches through
calls, transitively.

Facts are gathered during the engine's single walk (``HandlerFactsCollector``)
and resolved once afterwards (``resolve_local_scope``, then ``scope_in_project``
for other modules' entry points), so the order of definitions in the file does not
matter.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, NamedTuple, TypeGuard, TypeVar, cast, get_args

import libcst as cst

from mcplint.analysis.asked_project import AskedProject, ProjectQuestions
from mcplint.analysis.catching import Guards, encode, stops_encoded, translator_called
from mcplint.analysis.empty_values import emptiness_tested, is_empty_value, own_nodes
from mcplint.analysis.error_payloads import (
    answer_checked,
    call_argument,
    is_error_text,
    is_failure_answer,
    string_value,
)
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.leads_to import leads_to
from mcplint.analysis.project import DISPATCHED, HELD, NO_PROJECT, ProjectContext, constructor_slot
from mcplint.analysis.scopes import Frames, ScopeTracker, enclosing_function_keys, parent_function
from mcplint.analysis.walk import children

# Server classes by qualified name: (level, framework).
SERVER_CLASSES: dict[str, tuple[str, str]] = {
    "mcp.server.fastmcp.FastMCP": ("high", "mcp1"),
    "mcp.server.fastmcp.server.FastMCP": ("high", "mcp1"),
    "mcp.server.mcpserver.MCPServer": ("high", "mcp2"),
    "mcp.server.mcpserver.server.MCPServer": ("high", "mcp2"),
    "mcp.server.MCPServer": ("high", "mcp2"),
    "fastmcp.FastMCP": ("high", "fastmcp"),
    "fastmcp.server.FastMCP": ("high", "fastmcp"),
    "fastmcp.server.server.FastMCP": ("high", "fastmcp"),
    "mcp.server.Server": ("low", "mcp"),
    "mcp.server.lowlevel.Server": ("low", "mcp"),
    "mcp.server.lowlevel.server.Server": ("low", "mcp"),
}

HIGH_LEVEL_DECORATORS = {"tool": "tool", "resource": "resource", "prompt": "prompt"}
# The method of a high-level server that runs a tool by name: a subclass overriding it around
# `super().call_tool(...)` wraps every tool.
SERVER_DISPATCH_METHODS = ("call_tool",)
HIGH_LEVEL_ADDERS = {
    "add_tool": "tool",
    "add_resource": "resource",
    "add_template": "resource",
    "add_prompt": "prompt",
}
LOW_LEVEL_DECORATORS = {
    "call_tool": "tool",
    "read_resource": "resource",
    "get_prompt": "prompt",
    "list_tools": "list",
    "list_resources": "list",
    "list_resource_templates": "list",
    "list_prompts": "list",
    "completion": "completion",
    "subscribe_resource": "other",
    "unsubscribe_resource": "other",
    "set_logging_level": "other",
}
# What a client reaches a handler as.
HandlerKind = Literal["tool", "resource", "prompt", "list", "completion", "other"]
HANDLER_KINDS = frozenset(get_args(HandlerKind))


def as_handler_kind(text: str) -> HandlerKind:
    """A kind read from a table or from the run's join, checked."""
    if text not in HANDLER_KINDS:
        raise ValueError(f"not a handler kind: {text!r}")
    return cast(HandlerKind, text)


# How a server registers handlers: "high" (FastMCP/MCPServer decorators), "low" (the low-level
# `Server`), "low-2" (mcp 2.x's low-level `Server(on_call_tool=f)`, `add_request_handler`),
# "any" (an untyped parameter: either).
ServerLevel = Literal["high", "low", "low-2", "any"]
SERVER_LEVELS = frozenset(get_args(ServerLevel))
LOW_LEVEL_2: ServerLevel = "low-2"  # mcp 2.x's low-level registrations: `Server(on_call_tool=f)`, add_request_handler
# mcp 2.x low-level `Server(on_call_tool=...)`; any other `on_*` keyword is a handler too.
LOW_LEVEL_KEYWORDS = {
    "on_call_tool": "tool",
    "on_read_resource": "resource",
    "on_get_prompt": "prompt",
    "on_list_tools": "list",
    "on_list_resources": "list",
    "on_list_resource_templates": "list",
    "on_list_prompts": "list",
    "on_completion": "completion",
}
# mcp 2.x `Server.add_request_handler("tools/call", Params, fn)`.
REQUEST_METHODS = {
    "tools/call": "tool",
    "resources/read": "resource",
    "prompts/get": "prompt",
    "tools/list": "list",
    "resources/list": "list",
    "resources/templates/list": "list",
    "prompts/list": "list",
    "completion/complete": "completion",
}
# fastmcp 3.x+ standalone decorators, registered later with `add_tool` & co.
STANDALONE_DECORATORS = {
    "fastmcp.tools.tool": "tool",
    "fastmcp.tools.function_tool.tool": "tool",
    "fastmcp.resources.resource": "resource",
    "fastmcp.prompts.prompt": "prompt",
}
TOOL_FACTORIES = {
    "fastmcp.Tool.from_function",
    "fastmcp.tools.Tool.from_function",
    "fastmcp.tools.tool.Tool.from_function",
    "fastmcp.tools.FunctionTool.from_function",
    "mcp.server.fastmcp.tools.Tool.from_function",
    "mcp.server.fastmcp.tools.base.Tool.from_function",
    "mcp.server.mcpserver.tools.Tool.from_function",
    "mcp.server.mcpserver.tools.base.Tool.from_function",
}


# fastmcp's class methods that build a server of their class.
SERVER_CLASS_FACTORIES = frozenset({"from_openapi", "from_fastapi", "as_proxy"})


T = TypeVar("T")

#: A call path's guards: every `try` around a call on the way from a handler to a function,
#: each call site's guards in their text form (analysis/catching.py `encode`).
PathState = frozenset[str]
#: Beyond this many distinct path states a function counts as reached through the guards all
#: its paths share (the analysis stays bounded; a raise is reported unless each path stops it).
MAX_PATH_STATES = 8


# A registrar entry's position for a function that returns a registering decorator (`@tool(...)`).
FACTORY_SLOT = "()"


#: A function a server class's `tool()` wraps each tool in, with the `try`s (encoded) its inner
#: function puts around its call of the tool.
ToolWrapper = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class ServerBinding:
    level: ServerLevel
    framework: str
    # `class AppMCP(FastMCP): def tool(self, fn): return super().tool(handle_errors(fn))`: the
    # client calls the wrapper, which calls the tool.
    tool_wrappers: tuple[ToolWrapper, ...] = ()

    @classmethod
    def read(cls, level: str, framework: str) -> ServerBinding:
        """A binding read from a table or from the run's join, its level checked."""
        if level not in SERVER_LEVELS:
            raise ValueError(f"not a server level: {level!r}")
        return cls(cast(ServerLevel, level), framework)


UNTYPED_SERVER = ServerBinding("any", "unknown")


@dataclass
class FunctionInfo:
    key: str
    decorators: Sequence[cst.Decorator]
    class_key: str | None  # nearest enclosing class, for `self.x` calls
    parameters: dict[str, cst.BaseExpression | None] = field(default_factory=dict)  # name: annotation
    returns: cst.BaseExpression | None = None  # the return annotation
    calls: list[str] = field(default_factory=list)  # dotted callees and function references
    # What `return` hands back: a call's callee (`return f(x)`) or a local (`return result`).
    returned_calls: list[str] = field(default_factory=list)
    returned_names: list[str] = field(default_factory=list)
    returned_values: list[cst.BaseExpression] = field(default_factory=list)  # each `return`'s
    # Locals an `if` tests for an error and raises on before the function answers with them
    # (`if "error" in result: raise ...`, `if message := _tool_error_message(result): raise`).
    checked_answers: set[str] = field(default_factory=set)
    # Locals an `if` tests for an error at all (`if "error" in result:`), whatever it does then.
    error_tested: set[str] = field(default_factory=set)
    # Locals whose emptiness picks the answer (`if not matches: return "No matches found"`):
    # an empty value a callee hands back reaches the client as that answer.
    answered_empties: list[str] = field(default_factory=list)
    # Callees whose missing result the function makes an empty one (`f(x) or {}`): the
    # caller has said a `None` from them means "no data", and carries on with it.
    coalesced_calls: list[str] = field(default_factory=list)
    coalesced_names: list[str] = field(default_factory=list)  # `tail = tail_file(p)`; `tail or ""`
    # Messages it sends by name to another process or loop: (callee, message), for
    # `await session.call("get_results", args)`; the project's dispatcher runs them.
    message_calls: list[tuple[str, str]] = field(default_factory=list)
    # Per callee, the `try`s around each of its calls (calls outside any `try` are not listed).
    call_guards: dict[str, list[str]] = field(default_factory=dict)
    # guards_for's answers: asked for every callee on every reach step, after the walk is done.
    _guards: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def guards_for(self, callee: str) -> list[str]:
        """The guards of each call of ``callee`` here (encoded): "" for a call no `try` surrounds."""
        if callee not in self._guards:
            guarded = self.call_guards.get(callee, [])
            unguarded = self.calls.count(callee) - len(guarded)
            self._guards[callee] = [*dict.fromkeys(guarded), *([""] if unguarded > 0 else [])]
        return self._guards[callee]


# How other modules name a handler's kind in the run's join: the kind, marked when a raise
# reaching the handler is a protocol error (functions it calls in other modules must know),
# and when it checks its answers.
_PROTOCOL_MARK = "!"
_CHECKED_MARK = "?"


class Handler(NamedTuple):  # hashed each time a table adds it: a tuple hashes in a fraction of the time
    key: str
    kind: HandlerKind
    # Registered on a low-level `Server`: what it raises is not a tool error there (mcp 1.x sends
    # only the text, mcp 2.x a JSON-RPC -32603), so fixes return a result instead.
    low_level: bool = False
    # mcp 2.x's low-level `on_*=` / `add_request_handler` registration: a raise reaching it is a
    # JSON-RPC error the model never sees, so a fix must not raise in a function it calls either.
    raise_is_protocol_error: bool = False
    # Every answer it gives is checked for an error first: an error-shaped value becomes an
    # error result (it raises on it, or builds a `CallToolResult` whose `isError` it computes),
    # so a helper's error payload it returns is not answered as a success.
    checks_answers: bool = False

    @property
    def joined_kind(self) -> str:
        return (
            self.kind
            + (_PROTOCOL_MARK if self.raise_is_protocol_error else "")
            + (_CHECKED_MARK if self.checks_answers else "")
        )

    @classmethod
    # Every round of a run hands each module its entry points again, each naming its handler:
    # the same few thousand handlers (immutable), made once.
    @functools.lru_cache(maxsize=65_536)
    def from_join(cls, label: str, joined_kind: str) -> Handler:
        checked = joined_kind.removesuffix(_CHECKED_MARK)
        kind = checked.removesuffix(_PROTOCOL_MARK)
        return cls(
            label,
            as_handler_kind(kind),
            raise_is_protocol_error=kind != checked,
            checks_answers=checked != joined_kind,
        )


# What is registered, as a handler of (kind, level), and where: the expression, and the
# function and class it is written in.
_Registered = tuple[cst.BaseExpression, str, str, "str | None", "str | None"]


class _Registration(NamedTuple):  # one per call of the module: a tuple is made in less time
    call: cst.Call
    context_key: str | None
    context_class: str | None


class HandlerFactsCollector:
    """Collects, during the walk, the raw facts handler detection needs."""

    def __init__(
        self,
        scopes: ScopeTracker,
        guards_of: Callable[[cst.CSTNode], Guards] | None = None,
        translators: Mapping[str, object] | None = None,
    ) -> None:
        self._scopes = scopes
        self._guards_of = guards_of
        # guards are looked up only for calls inside a `try`, or a `with` of a context manager
        # that stops what its body raises (``translators``, by name)
        self._open_trys = 0
        self._translators = translators if translators is not None else {}
        self._translating_withs: list[bool] = []
        # Per function: the callees wrapping what it passes to `super().tool(...)`.
        self.super_registration_wrappers: dict[str, list[cst.BaseExpression]] = {}
        # A server subclass's `call_tool()` override: the `try`s (encoded, "" for none) around its
        # `super().call_tool(...)`, which runs every tool of the server.
        self.super_dispatch_guards: dict[str, list[str]] = {}
        # `(batch or {}).get(rid)`: a default read through, where a missing item falls back.
        self._projected: set[int] = set()
        self.functions: dict[str, FunctionInfo] = {}
        # What a local holds besides its aliases: a dict literal assigned to it, values stored
        # into its items (`payload["x"] = ...`); read only to follow a message's answer.
        self.contents: dict[tuple[str | None, str], list[cst.BaseExpression]] = {}
        # (function, its class, message, callees) per branch of a dispatcher by message name.
        self.message_branches: list[tuple[str, str | None, str, list[str]]] = []
        self.class_bases: dict[str, Sequence[cst.Arg]] = {}
        # Where a name or `self.x` gets a value (a constructor call) or a type:
        # (scope, target, expression, is_annotation). The scope of a name is the
        # function it is assigned in (None: the module); of `self.x`, its class.
        self.bindings: list[tuple[str | None, str, cst.BaseExpression, bool]] = []
        self.registrations: list[_Registration] = []
        self.module_calls: list[str] = []
        # `find_foo = find`, `fn = wraps(fn, ...)`: names that may stand for a function.
        self.aliases: dict[tuple[str | None, str], list[cst.BaseExpression]] = {}
        # `self.x = x` in a method: (class, "self.x", parameter name, method key); the
        # object a constructor receives (a server, a client) is what `self.x` holds.
        self.attribute_parameters: list[tuple[str | None, str, str, str]] = []
        self.parameter_stores: set[str] = set()  # functions that keep their first parameter in a container
        self.loop_sources: dict[tuple[str | None, str], list[str]] = {}  # loop variable -> the lists it walks
        self.parameter_containers: dict[str, str] = {}  # function -> where it keeps its first parameter
        self.returned_tables: dict[str, list[str]] = {}  # function -> containers it returns an item of
        self.returned_dicts: dict[str, list[cst.BaseExpression]] = {}  # function -> dicts it builds and returns
        # `found.extend(page_matches)`, `found += more`: what a local collects beyond its assignments.
        self.collected: dict[tuple[str | None, str], list[cst.BaseExpression]] = {}
        # Module-level tool tables and the functions their entries name under a function key.
        self.registry_tables: dict[str, list[cst.BaseExpression]] = {}
        # Locals assigned an item looked up in a container (`tool = tool_map[name]`, `.get(name)`).
        self.looked_up: set[tuple[str | None, str]] = set()
        # ... and the containers, by local: `handler = TOOL_HANDLERS.get(name)` calls what
        # `TOOL_HANDLERS[name](...)` would.
        self.table_lookups: dict[tuple[str | None, str], list[str]] = {}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        key = self._scopes.qualname_for(node.name.value)
        class_key = _nearest_class(self._scopes)
        info = self.functions.get(key)
        if info is None:
            info = self.functions[key] = FunctionInfo(key, tuple(node.decorators), class_key)
        else:  # a redefinition: keep both definitions' decorators
            info.decorators = (*info.decorators, *node.decorators)
        if node.returns is not None:
            info.returns = node.returns.annotation
        for param in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params):
            annotation = param.annotation.annotation if param.annotation is not None else None
            info.parameters[param.name.value] = annotation

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.class_bases[self._scopes.qualname_for(node.name.value)] = node.bases

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        name = dotted_name(node.target)
        if name is None:
            return
        if node.value is not None:
            self._assigned(node.target, node.value)
        frames = self._scopes.frames
        if frames and frames[-1].kind == "class":
            # `mcp: FastMCP` in a class body types `self.mcp` for its methods.
            self.bindings.append((frames[-1].qualname, f"self.{name}", node.annotation.annotation, True))
        else:
            self.bindings.append((*self._binding_scope(name), node.annotation.annotation, True))

    def _binding_scope(self, target: str) -> tuple[str | None, str]:
        if target.startswith("self."):
            return _nearest_class(self._scopes), target
        return self._scopes.current_function, target

    def _assigned(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if type(target) is cst.Tuple and isinstance(value, (cst.Call, cst.Await)):
            # `ok, message = check(path)`: each name carries part of what the call returns.
            call = value.expression if type(value) is cst.Await else value
            for element in target.elements:
                if type(element.value) is cst.Name and type(call) is cst.Call:
                    self.aliases.setdefault((self._scopes.current_function, element.value.value), []).append(call)
            return
        if type(target) is cst.Subscript:
            self._stores_first_parameter([value], dotted_name(_table_of(target)))
            if type(target.value) is cst.Name:  # `payload["mata"] = await session.call(...)`
                self.contents.setdefault((self._scopes.current_function, target.value.value), []).append(value)
        elif type(target) is cst.Name and type(value) is cst.Dict:
            self.contents.setdefault((self._scopes.current_function, target.value), []).append(value)
        elif type(target) is cst.Attribute and type(target.value) is cst.Name:
            self._stores_first_parameter([target.value])  # `function.__tool__ = ...`: marked as above
        name = dotted_name(target)
        if name is None:
            return
        if type(value) is cst.Await:
            value = value.expression
        if type(target) is cst.Name and (
            type(value) is cst.Subscript
            or (type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value == "get")
        ):
            self.looked_up.add((self._scopes.current_function, name))
            container = dotted_name(_table_of(value) if isinstance(value, cst.Subscript) else cast(cst.Attribute, value.func).value)
            if container is not None:
                self.table_lookups.setdefault((self._scopes.current_function, name), []).append(container)
        if type(value) is cst.Call:
            self.bindings.append((*self._binding_scope(name), value.func, False))
        function = self._scopes.current_function
        if name.startswith("self.") and type(value) is cst.Name and function in self.functions:
            if value.value in self.functions[function].parameters:
                self.attribute_parameters.append((_nearest_class(self._scopes), name, value.value, function))
        elif (
            name.startswith("self.")
            and type(value) is cst.Attribute
            and type(value.value) is cst.Name
            and function in self.functions
            and value.value.value in self.functions[function].parameters
        ):  # `self.mcp = server.mcp`: what the object the parameter holds keeps there
            held = f"{value.value.value}{HELD}{value.attr.value}"
            self.attribute_parameters.append((_nearest_class(self._scopes), name, held, function))
        if isinstance(target, cst.Name) and isinstance(
            value, (cst.Name, cst.Attribute, cst.Call, *_SEQUENCES, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.FormattedString)
        ):
            self.aliases.setdefault((self._scopes.current_function, name), []).append(value)
        if isinstance(target, cst.Name) and isinstance(value, (cst.Dict, cst.Call, *_SEQUENCES)) and function is None:
            tools = list(_table_functions(value))
            # `TOOLS = {"ListIndexTool": {"function": list_indices, ...}}`, `[FunctionTool(f), ...]`
            if tools:
                self.registry_tables.setdefault(name, []).extend(tools)
        if isinstance(target, cst.Name) and isinstance(value, cst.Dict):
            # `HANDLERS = {"x": handle_x}`: `HANDLERS[name](...)` may call any value.
            values = list(_table_values(value))
            self.aliases.setdefault((self._scopes.current_function, f"{name}[]"), []).extend(values)
        elif isinstance(target, cst.Name) and isinstance(value, cst.DictComp):
            # `{n: getattr(obj, n) for n in NAMES}`: resolved when a call looks into it.
            self.aliases.setdefault((self._scopes.current_function, f"{name}[]"), []).append(value)

    def visit_For(self, node: cst.For) -> None:
        # `for fn in (a, b): X.add_tool(fn)`: the loop variable stands for each element.
        if isinstance(node.target, cst.Name) and isinstance(node.iter, (cst.List, cst.Tuple, cst.Set)):
            key = (self._scopes.current_function, node.target.value)
            self.aliases.setdefault(key, []).extend(element.value for element in node.iter.elements)
        elif isinstance(node.target, cst.Name) and dotted_name(node.iter) is not None:
            # `for tool in read_tools:`: the loop variable is an element of that list.
            key = (self._scopes.current_function, node.target.value)
            self.loop_sources.setdefault(key, []).append(dotted_name(node.iter) or "")

    def visit_Return(self, node: cst.Return) -> None:
        info = self.functions.get(self._scopes.current_function or "")
        if info is None or node.value is None:
            return
        # A call or local inside the returned expression carries its value to
        # the caller (`return f(x)`, `return [TextContent(text=f(x))]`,
        # `return result`), unless only a projection of it is returned
        # (`res["rows"]`, `res.get(...)`, `"a" if res["x"] else "b"`).
        item = node.value
        if isinstance(item, (cst.Dict, cst.DictComp)):  # `return {n: getattr(obj, n) for n in NAMES}`
            self.returned_dicts.setdefault(info.key, []).append(item)
        # `return TOOLS[name]`, `return TOOLS.get(name)`: an item of a registry
        table = None
        if isinstance(item, cst.Subscript):
            table = dotted_name(_table_of(item))
        elif isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) and item.func.attr.value == "get":
            table = dotted_name(item.func.value)
        if table is not None:
            self.returned_tables.setdefault(info.key, []).append(table)
        info.returned_values.append(item)
        callees, names = _carried_values(node.value)
        info.returned_calls.extend(callees)
        info.returned_names.extend(names)
        if isinstance(item, cst.Call) and (dotted_name(item.func) or "").rpartition(".")[2][:1].isupper():
            # `return ToolDefinition(fn=fn, ...)`: a definition built around the decorated
            # function, which a registry registers later (`add_tool(fn=definition.fn)`).
            self._stores_first_parameter([arg.value for arg in item.args if isinstance(arg.value, cst.Name)])

    def _stores_first_parameter(self, values: Iterable[cst.BaseExpression], container: str | None = None) -> None:
        """`_tools.append({"func": func, ...})`, `TOOLS[name] = func`: the function keeps its
        first parameter in a container (a registration decorator does that)."""
        function = self._scopes.current_function
        info = self.functions.get(function or "")
        if info is None:
            return
        first = next((name for name in info.parameters if name not in ("self", "cls")), None)
        if first is None:
            return
        if self._carries_parameter(values, first, info.key):
            self.parameter_stores.add(info.key)
            if container is not None:
                self.parameter_containers.setdefault(info.key, container)

    def _carries_parameter(self, values: Iterable[cst.BaseExpression | str], first: str, function: str) -> bool:
        """Whether one of ``values`` is the parameter ``first`` of ``function``, holds it, or is a
        local made from it: an alias (`wrapper = cast(Callable, inner)`) or a nested function
        that calls it (`def inner(*args): return func(*args)`, the wrapper a logging decorator
        keeps in its registry instead of the function it decorates)."""

        def stands_for(name: str) -> list[cst.BaseExpression | str]:
            nested = self.functions.get(f"{function}.<locals>.{name}")
            callees = [callee for callee in nested.calls if "." not in callee] if nested is not None else []
            return [*self.aliases.get((function, name), ()), *callees]

        return leads_to(values, first, _cst_name, _cst_parts, stands_for)

    def visit_If(self, node: cst.If) -> None:
        info = self.functions.get(self._scopes.current_function or "")
        if info is not None:
            tested = answer_checked(node.test)
            info.error_tested.update(tested)
            if tested and _raises(node.body):
                info.checked_answers.update(tested)
        name = emptiness_tested(node.test)
        if info is not None and name is not None and _answers(node.body):
            info.answered_empties.append(name)
        message = _message_tested(node.test)
        if info is not None and message is not None:
            # `elif msg_type == "get_results": result = self.client.get_results(...)`
            callees = [
                callee
                for inner in own_nodes(node.body)
                if isinstance(inner, cst.Call)
                for callee in [_callee(inner.func)]
                if callee is not None
            ]
            self.message_branches.append((info.key, info.class_key, message, callees))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.BooleanOperation):
            self._projected.add(id(node.value))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if isinstance(node.value, cst.BooleanOperation):
            self._projected.add(id(node.value))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        info = self.functions.get(self._scopes.current_function or "")
        if info is None or not isinstance(node.operator, cst.Or) or not _is_empty_literal(node.right):
            return
        if id(node) in self._projected:
            return  # only an item of it is read, and its absence may well be checked
        left = node.left.expression if isinstance(node.left, cst.Await) else node.left
        if isinstance(left, cst.Call):
            callee = _callee(left.func)
            if callee is not None:
                info.coalesced_calls.append(callee)
        elif isinstance(left, cst.Name):
            info.coalesced_names.append(left.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and isinstance(node.operator, cst.AddAssign):
            self.collected.setdefault((self._scopes.current_function, node.target.value), []).append(node.value)

    def visit_Try(self, node: cst.Try) -> None:
        self._open_trys += 1

    def leave_Try(self, node: cst.Try) -> None:
        self._open_trys -= 1

    def visit_With(self, node: cst.With) -> None:
        translating = bool(self._translators) and any(
            translator_called(item.item, self._translators) is not None for item in node.items
        )
        self._translating_withs.append(translating)
        self._open_trys += translating

    def leave_With(self, node: cst.With) -> None:
        self._open_trys -= self._translating_withs.pop()

    def visit_Call(self, node: cst.Call) -> None:
        function = self._scopes.current_function
        if function is not None and _is_super_registration(node):
            # `super().tool(handle_tool_errors(fn), **kwargs)` in a server subclass's `tool()`
            self.super_registration_wrappers.setdefault(function, []).extend(
                arg.value.func for arg in node.args if isinstance(arg.value, cst.Call)
            )
        if function is not None and _is_super_call(node, SERVER_DISPATCH_METHODS):
            guards = self._guards_of(node) if self._open_trys and self._guards_of is not None else ()
            self.super_dispatch_guards.setdefault(function, []).append(encode(guards) if guards else "")
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in CONTAINER_ADDERS:
            self._stores_first_parameter((arg.value for arg in node.args), dotted_name(node.func.value))
            if isinstance(node.func.value, cst.Name) and node.func.attr.value in _COLLECTORS and node.args:
                key = (function, node.func.value.value)
                self.collected.setdefault(key, []).append(node.args[0].value)
        elif isinstance(node.func, cst.Name) and node.func.value == "setattr" and node.args:
            # `setattr(function, "__tool__", ToolDefinition(...))`: a decorator marking what it
            # decorates for a registration loop that looks for the mark (`vars(module)`).
            self._stores_first_parameter([node.args[0].value])
        references = [_callee(node.func)] + [_callee(arg.value) for arg in node.args]
        message = _message_sent(node)
        if message is not None and references[0] is not None and function in self.functions:
            self.functions[function].message_calls.append((references[0], message))
        calls = self.functions[function].calls if function in self.functions else self.module_calls
        calls.extend(ref for ref in references if ref is not None)
        if self._open_trys and self._guards_of is not None and function in self.functions:
            guards = self._guards_of(node)
            if guards:
                # A function handed to a runner (`await loop.run_in_executor(None, fetch, url)`)
                # runs under the same `try` as the call.
                for callee in dict.fromkeys(references):
                    if callee is not None:
                        self.functions[function].call_guards.setdefault(callee, []).append(encode(guards))
        self.registrations.append(
            _Registration(node, function, _nearest_class(self._scopes))
        )


def _cst_name(value: cst.BaseExpression | str) -> str | None:
    return value if isinstance(value, str) else value.value if isinstance(value, cst.Name) else None


def _cst_parts(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """A container's elements (a dict's values), a call's arguments."""
    if isinstance(value, (cst.Dict, cst.Tuple, cst.List)):
        return [element.value for element in value.elements if isinstance(element, (cst.DictElement, cst.Element))]
    if isinstance(value, cst.Call):
        return [arg.value for arg in value.args]
    return []


def _is_super_registration(call: cst.Call) -> bool:
    """`super().tool(...)`, `super(AppMCP, self).tool(...)`."""
    return _is_super_call(call, HIGH_LEVEL_DECORATORS)


def _is_super_call(call: cst.Call, methods: Collection[str]) -> bool:
    func = call.func
    return (
        type(func) is cst.Attribute
        and func.attr.value in methods
        and type(func.value) is cst.Call
        and type(func.value.func) is cst.Name
        and func.value.func.value == "super"
    )


# Methods that put their argument into a container: how a registry keeps what it registers
# (the `ast` pre-screen path asks the same of the modules it reads).
CONTAINER_ADDERS = frozenset({"append", "add", "appendleft", "insert", "setdefault", "extend"})
_COLLECTORS = frozenset({"append", "extend"})
# The keys under which a tool table keeps each tool's function (`{"function": list_indices, ...}`).
REGISTRY_FUNCTION_KEYS = frozenset({"function", "func", "fn", "handler", "callable", "callback", "impl"})
# Calls whose arguments tell nothing about a project function's parameters.
_NOT_PASSING = frozenset({"isinstance", "issubclass", "getattr", "setattr", "hasattr", "print", "len", "str", "repr"})
_SEQUENCES = (cst.List, cst.Tuple, cst.Set)


def _table_functions(table: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The functions a tool table names under a function key (`{"X": {"function": f, ...}}`),
    or wraps in a tool object (`FunctionTool(f)`, alone or in a list): an agent framework's
    tools, which a low-level `call_tool` runs by name (`tool_map[name].run_async(...)`)."""
    if isinstance(table, cst.Call):
        wrapped = _tool_wrapped(table)
        if wrapped is not None:
            yield wrapped
        return
    if isinstance(table, _SEQUENCES):
        for item in table.elements:
            wrapped = _tool_wrapped(item.value) if isinstance(item.value, cst.Call) else None
            if wrapped is not None:
                yield wrapped
        return
    if not isinstance(table, cst.Dict):
        return
    for element in table.elements:
        if isinstance(element, cst.DictElement) and isinstance(element.value, cst.Dict):
            for entry in element.value.elements:
                if (
                    isinstance(entry, cst.DictElement)
                    and isinstance(entry.key, cst.SimpleString)
                    and entry.key.evaluated_value in REGISTRY_FUNCTION_KEYS
                    and isinstance(entry.value, (cst.Name, cst.Attribute))
                ):
                    yield entry.value


def _tool_wrapped(call: cst.Call) -> cst.BaseExpression | None:
    """The function `FunctionTool(f)` (a class named `...Tool`) wraps."""
    name = (dotted_name(call.func) or "").rpartition(".")[2]
    if not (name.endswith("Tool") and name[:1].isupper() and call.args and call.args[0].keyword is None):
        return None
    first = call.args[0].value
    return first if isinstance(first, (cst.Name, cst.Attribute)) and not call.args[0].star else None


def _table_values(table: cst.Dict) -> Iterator[cst.BaseExpression]:
    """A dispatch table's values, nested tables included (`OPS[op]["handler"](...)`)."""
    for element in table.elements:
        if isinstance(element, cst.DictElement):
            if isinstance(element.value, cst.Dict):
                yield from _table_values(element.value)
            else:
                yield element.value


# Expressions that return something derived from a value, not the value itself.
_PROJECTIONS = (cst.Subscript, cst.Attribute, cst.Comparison, cst.UnaryOperation, cst.Lambda)
# The same, compared by class in loops over every node (isinstance on LibCST's ABCs is slow).
_PROJECTION_TYPES = frozenset(_PROJECTIONS)


def _answers(body: cst.BaseSuite) -> bool:
    """The branch answers as a success in its own words: it returns a value that is not empty
    (`return None` passes the emptiness on), nor an error text or payload (`return "No matches
    found"`), first or after simple statements that fill it (`preview["found"] = False`)."""
    lines = body.body
    first: cst.CSTNode | None = lines[0] if lines else None
    if lines and all(isinstance(line, cst.SimpleStatementLine) for line in lines):
        last = cast(cst.SimpleStatementLine, lines[-1])
        first = last.body[-1] if last.body else None
    if isinstance(first, cst.SimpleStatementLine):
        first = first.body[0] if first.body else None
    if not isinstance(first, cst.Return) or first.value is None:
        return False
    value = first.value
    if isinstance(value, cst.Tuple):  # `return False, "No header found and creation failed"`
        parts = [element.value for element in value.elements]
        if any(isinstance(part, cst.Name) and part.value == "False" or is_error_text(part) for part in parts):
            return False
    return not (is_empty_value(value) or is_failure_answer(value))


def _raises(body: cst.BaseSuite) -> bool:
    """The block raises as one of its own statements (not only in a nested block)."""
    return any(
        isinstance(statement, cst.Raise)
        for line in body.body
        if isinstance(line, cst.SimpleStatementLine)
        for statement in line.body
    )


def _marks_errors(value: cst.BaseExpression) -> bool:
    """`CallToolResult(content=..., isError=is_error)`: a result whose error flag is computed
    from what it carries (a literal `isError=False` marks nothing)."""
    if not isinstance(value, cst.Call) or (dotted_name(value.func) or "").rpartition(".")[2] != "CallToolResult":
        return False
    flag = next((arg.value for arg in value.args if arg.keyword is not None and arg.keyword.value == "isError"), None)
    return flag is not None and not (isinstance(flag, cst.Name) and flag.value in ("False", "None", "True"))


def _partial_of(value: cst.BaseExpression) -> str | None:
    """`partial(generic_tool, name_enum=ToolName)`: the function it binds."""
    if not isinstance(value, cst.Call) or not value.args or not isinstance(value.args[0].value, cst.Name):
        return None
    if (dotted_name(value.func) or "").rpartition(".")[2] != "partial":
        return None
    return value.args[0].value.value


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _carried_values(value: cst.BaseExpression) -> tuple[list[str], list[str]]:
    """The callees and locals whose value an expression carries on: `f(x)`,
    `[TextContent(text=f(x))]`, `result`, and a function a call runs for it
    (`await asyncio.to_thread(TOOLS[name], **args)`); not a projection (`res["rows"]`,
    `res.get(...)`, `"a" if res["x"] else "b"`)."""
    callees: list[str] = []
    names: list[str] = []
    pending: list[cst.CSTNode] = [value]
    while pending:
        expression = pending.pop()
        if type(expression) is cst.Await:
            pending.append(expression.expression)
        elif type(expression) is cst.Call:
            callee = _callee(expression.func)
            if callee is not None:
                callees.append(callee)
            for arg in expression.args:
                if type(arg.value) is cst.Subscript:  # a table's function handed to a runner
                    table_callee = _callee(arg.value)
                    if table_callee is not None:
                        callees.append(table_callee)
                elif type(arg.value) is cst.Lambda:
                    # `safe_operation(lambda: tool.execute(...))`: what it runs, it may hand back
                    pending.append(arg.value.body)
                else:
                    if type(arg.value) is cst.Name:  # `run_sync(_sync_list)`: a function handed to a runner
                        callees.append(arg.value.value)
                    elif type(arg.value) is cst.Attribute and callee is not None and callee.rpartition(".")[2] in _RUNNERS:
                        # `asyncio.to_thread(searcher.search, query)`: a bound method it runs
                        method = _callee(arg.value)
                        if method is not None:
                            callees.append(method)
                    pending.append(arg.value)
        elif type(expression) is cst.Name:
            names.append(expression.value)
        elif type(expression) is cst.IfExp:
            pending.extend((expression.body, expression.orelse))
        elif type(expression) is cst.Subscript and all(type(e.slice) is cst.Slice for e in expression.slice):
            pending.append(expression.value)  # `fields[:limit]` is a part of the list, not an item of it
        elif type(expression) not in _PROJECTION_TYPES:
            # The walk's children: `CSTNode.children` rebuilds the node to list them (a tenth
            # of the run's node constructions). They add brackets, and leave out whitespace and
            # punctuation, which hold no callee and no name; the rest comes in the same order.
            pending.extend(children(expression))
    return callees, names


# Calls that run the function they are given and hand back its result.
_RUNNERS = frozenset({"to_thread", "run_in_executor", "run_sync", "run_in_threadpool", "submit", "wait_for"})


# A call that sends a message by name (`session.call("get_results", args)`, `rpc.request(...)`).
_SENDS = re.compile(r"_*(call|send|request|invoke|dispatch|rpc|call_raw|send_command|send_request)(_\w+)?")
_MESSAGE_NAME = re.compile(r"[A-Za-z_][\w.:/-]{2,63}")


def _message_name(literal: cst.SimpleString) -> str | None:
    """The literal's text when it can name a message: the sender and the dispatcher's branch
    must agree on what one is."""
    text = string_value(literal)
    return text if text is not None and _MESSAGE_NAME.fullmatch(text) else None


def _message_sent(call: cst.Call) -> str | None:
    if not isinstance(call.func, cst.Attribute) or not _SENDS.fullmatch(call.func.attr.value) or not call.args:
        return None
    first = call.args[0]
    if first.keyword is not None or first.star or not isinstance(first.value, cst.SimpleString):
        return None
    return _message_name(first.value)


def _message_tested(test: cst.BaseExpression) -> str | None:
    """The message a dispatcher's branch answers: `msg_type == "get_results"`."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return None
    sides = (test.left, target.comparator)
    literal = next((side for side in sides if isinstance(side, cst.SimpleString)), None)
    other = next((side for side in sides if not isinstance(side, cst.SimpleString)), None)
    if literal is None or other is None or dotted_name(other) is None:
        return None
    return _message_name(literal)


def _message_returns(resolver: _Resolver, scope: HandlerScope) -> dict[str, list[Handler]]:
    """Per message sent by name, the handlers that return what its answer carries."""
    found: dict[str, list[Handler]] = {}
    for info in resolver.facts.functions.values():
        handlers = scope.returns_to.get(info.key)
        if not handlers or not info.message_calls:
            continue
        returned = resolver.callees_flowing_to_return(info)
        for callee, message in info.message_calls:
            if callee in returned:
                for handler in handlers:
                    _add(found, message, handler)
    return found


def _callees_flowing_to_return(resolver: _Resolver, info: FunctionInfo) -> set[str]:
    """The callees whose result the function's answer is built from, through any number of
    locals and calls (`results = await session.call(...)`; `payload = compact(results)`;
    `envelope = build(data=payload)`; `return envelope`). Wider than the return reach: it
    only decides which messages sent by name a handler answers with."""
    callees = set(info.returned_calls)
    pending, seen = list(info.returned_names), set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        key = (info.key, name)
        for value in (*resolver.facts.aliases.get(key, ()), *resolver.facts.contents.get(key, ())):
            for node in own_nodes(value):
                if isinstance(node, cst.Name):
                    pending.append(node.value)
                elif isinstance(node, cst.Call):
                    callee = _callee(node.func)
                    if callee is not None:
                        callees.add(callee)
    return callees


def _message_targets(resolver: _Resolver, project: ProjectContext) -> dict[str, list[str]]:
    """Per message a dispatcher answers by name, the project functions its branch runs,
    qualified for the other modules (the run's join links them to the senders)."""
    found: dict[str, list[str]] = {}
    for function, class_key, message, callees in resolver.facts.message_branches:
        targets = found.setdefault(message, [])
        for callee in callees:
            for key in resolver.resolve_callee(callee, function, class_key):
                targets.append(project.label(key))
            targets.extend(_call_externals(resolver, callee, function, class_key))
    return {message: list(dict.fromkeys(targets)) for message, targets in found.items() if targets}


def _coalesced(resolver: _Resolver, scope: HandlerScope) -> set[str]:
    found: set[str] = set()
    for info in resolver.facts.functions.values():
        if info.key in scope.returns_to:
            for callee in resolver.coalesced_callees(info, answered=True):
                found.update(resolver.resolve_callee(callee, info.key, info.class_key))
    return found


def _coalesced_callees(resolver: _Resolver, info: FunctionInfo, *, answered: bool = False) -> list[str]:
    """The callees whose missing result the function makes an empty one, directly
    (`read(p) or {}`) or through the local it keeps it in (`tail = tail_file(p)`; `tail or ""`);
    with ``answered``, also those whose None it answers as a success (`if row is None: return
    {"found": False}`)."""
    callees = list(info.coalesced_calls)
    for name in [*info.coalesced_names, *(info.answered_empties if answered else ())]:
        for value in resolver.facts.aliases.get((info.key, name), ()):
            if isinstance(value, cst.Call):
                callee = _callee(value.func)
                if callee is not None:
                    callees.append(callee)
    return callees


def _is_empty_literal(expression: cst.BaseExpression) -> bool:
    """`{}`, `[]`, `""`, `0`, `dict()`: an empty value written out (not `None`, which is no value)."""
    if isinstance(expression, cst.Name):
        return False
    return is_empty_value(expression)


def _nearest_class(scopes: Frames) -> str | None:
    for frame in reversed(scopes.frames):
        if frame.kind == "class":
            return frame.qualname
    return None


def _callee(expression: cst.BaseExpression) -> str | None:
    """A callee's dotted name; `TABLE[]` / `TABLE[].run` for a dispatch through a dict."""
    if type(expression) is cst.Await:
        expression = expression.expression
    if type(expression) is cst.Attribute and type(expression.value) is cst.Subscript:
        table = dotted_name(_table_of(expression.value))
        return f"{table}[].{expression.attr.value}" if table else None
    if type(expression) is cst.Subscript:
        table = dotted_name(_table_of(expression))
        return f"{table}[]" if table else None
    if type(expression) is cst.Attribute:
        # `get_client().post()`: a method of what the getter returns; `get_state().client.post()`:
        # of an attribute of it.
        attributes, value = [expression.attr.value], expression.value
        while type(value) is cst.Attribute:
            attributes.append(value.attr.value)
            value = value.value
        if type(value) is cst.Call:
            getter = dotted_name(value.func)
            return f"{getter}().{'.'.join(reversed(attributes))}" if getter else None
    return dotted_name(expression)


def _table_of(subscript: cst.Subscript) -> cst.BaseExpression:
    """`OPS` in `OPS[op]["handler"]`."""
    value: cst.BaseExpression = subscript
    while isinstance(value, cst.Subscript):
        value = value.value
    return value


@dataclass
class HandlerScope:
    """The handlers of a module and, for each function in scope, who reaches it."""

    handlers: dict[str, Handler] = field(default_factory=dict)
    #: Functions a handler reaches through calls: what they raise reaches the client.
    reached_by: dict[str, list[Handler]] = field(default_factory=dict)
    #: Functions whose return value becomes a handler's return value.
    returns_to: dict[str, list[Handler]] = field(default_factory=dict)
    #: Functions whose missing result (`None`) a caller carrying its value to a handler makes
    #: an empty one (`read(path) or {}`) or answers as a success (`if row is None: return
    #: {"found": False}`): "no data" is what that handler answers for a failure.
    coalesced: set[str] = field(default_factory=set)
    #: Messages sent by name whose answer a handler returns (message -> handlers), and the
    #: functions a dispatcher here runs per message: the run's join links the two.
    message_returns: dict[str, list[Handler]] = field(default_factory=dict)
    message_targets: dict[str, list[str]] = field(default_factory=dict)
    #: Project functions of other modules that reached functions call (qualified name ->
    #: handlers), and those whose result they return.
    outgoing_calls: dict[str, list[Handler]] = field(default_factory=dict)
    outgoing_returns: dict[str, list[Handler]] = field(default_factory=dict)
    #: Module-level names bound to servers, for the modules that import them.
    module_servers: dict[str, ServerBinding] = field(default_factory=dict)
    #: Servers this module passes to other modules' functions and classes (qualified target ->
    #: (parameter position or keyword, level, framework)).
    outgoing_servers: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    #: Classes of the objects this module passes to other modules' functions (target -> (slot, class)).
    outgoing_arguments: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: Instances given to other modules' storing functions (`register(ExportTool())`): target -> classes.
    outgoing_instances: dict[str, list[str]] = field(default_factory=dict)
    #: Kinds registered with an argument that names no function (a loop over a registry), and
    #: the module's registration decorators: the run's join pairs the two across modules.
    dynamic_registrations: list[str] = field(default_factory=list)
    # Per low-level `call_tool`: the `try`s (encoded) around its calls of tools looked up by name.
    dispatch_guards: list[str] = field(default_factory=list)
    # The first parts of the targets the tables above left out (``_Resolver.joinable``): an
    # analysis stays valid while no module of the project begins so (the cache checks).
    left_out_heads: frozenset[str] = frozenset()
    registry_decorators: list[str] = field(default_factory=list)
    registry_tables: list[str] = field(default_factory=list)
    #: Functions of other modules registered here (target, kind, level), and this module's
    #: functions that register a parameter (key -> [position, name, kind, level]).
    outgoing_registrations: list[tuple[str, str, str]] = field(default_factory=list)
    registrars: dict[str, list[str]] = field(default_factory=dict)
    #: The module's server classes and server factories, for the modules that import them.
    server_classes: dict[str, ServerBinding] = field(default_factory=dict)
    server_factories: dict[str, ServerBinding] = field(default_factory=dict)
    #: The module's wrapping functions whose inner functions call what they wrap inside `try`s:
    #: key -> those `try`s (encoded; "" for a call outside any), for the modules importing them.
    wrapper_guards: dict[str, list[str]] = field(default_factory=dict)
    #: Methods returning a decorator that registers what it decorates: "Class.method" -> kind,
    #: and what that decorator wraps each function in before registering it.
    decorator_methods: dict[str, str] = field(default_factory=dict)
    decorator_method_wrappers: dict[str, list[ToolWrapper]] = field(default_factory=dict)
    #: Per function, the other modules' functions it reaches through this module (any handler).
    local_reach_calls: dict[str, list[str]] = field(default_factory=dict)
    local_reach_returns: dict[str, list[str]] = field(default_factory=dict)
    # Per function and target of local_reach_calls: the `try`s every way there passes.
    local_reach_guards: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    #: Per (function, handler key): the `try`s on each call path from the handler down to the
    #: function (a path state is the set of guards of its call sites; see analysis/catching.py).
    paths: dict[tuple[str, str], set[PathState]] = field(default_factory=dict)
    #: Per (other module's function, handler key): the path states of the calls into it.
    outgoing_states: dict[tuple[str, str], set[PathState]] = field(default_factory=dict)

    #: Which functions of other modules a call may run (set by ``scope_in_project``).
    external_calls: Callable[[str, str | None], list[str]] = lambda callee, function: []

    def escapes(self, function_key: str | None, handler: Handler, raised: str) -> bool:
        """Whether ``raised``, raised in the function (and not stopped there), reaches the
        handler on some call path: no `try` around a call on that path stops it."""
        states = self.paths.get((function_key or "", handler.key))
        if not states:
            return True
        return any(not any(stops_encoded(guards, raised) for guards in state) for state in states)

    def stopped_on_the_way(self, function_key: str | None, handler: Handler, raised: str) -> bool:
        """Whether on some call path from the handler a `try` around a call stops ``raised``,
        raised in the function (a caller's `except Exception` that answers in its own words)."""
        states = self.paths.get((function_key or "", handler.key), set())
        return any(any(stops_encoded(guards, raised) for guards in state) for state in states)

    def caught_differently(self, function_key: str | None, handler: Handler, original: str, replacement: str) -> bool:
        """Whether on some call path from the handler a `try` stops one of ``original`` and
        ``replacement`` but not the other (`except McpError` around a call, for a raise that
        becomes a `ToolError`)."""
        states = self.paths.get((function_key or "", handler.key), set())
        return any(
            any(stops_encoded(guards, original) for guards in state)
            != any(stops_encoded(guards, replacement) for guards in state)
            for state in states
        )

    def handlers_reaching(self, function_key: str | None, *, through_return: bool = False) -> list[Handler]:
        if function_key is None:
            return []
        table = self.returns_to if through_return else self.reached_by
        return table.get(function_key, [])


def _bound_names(facts: HandlerFactsCollector, imports: ImportTable) -> frozenset[str]:
    """The bare names a call in the module may resolve through (``_Resolver.is_free_name``): the
    last part of each function and class key (`f`, `Outer.<locals>.f`, `Store.save`), each name
    assigned or looked up in a table (in any scope), each name imported."""
    names = set(imports.imported())
    names.update(key.rpartition(".")[2] for key in facts.functions)
    names.update(key.rpartition(".")[2] for key in facts.class_bases)
    names.update(name for _, name in facts.aliases)
    names.update(name for _, name in facts.table_lookups)
    return frozenset(names)


# The resolver's tables of its project context (``ProjectQuestions.table``).
def _imported_servers(project: ProjectContext) -> dict[str, ServerBinding]:
    return {name: ServerBinding.read(level, framework) for name, level, framework in project.imported_servers}


def _imported_server_classes(project: ProjectContext) -> dict[str, ServerBinding]:
    class_wrappers = dict(project.imported_tool_wrappers)
    return {
        name: replace(ServerBinding.read(level, framework), tool_wrappers=class_wrappers.get(name, ()))
        for name, level, framework in project.imported_server_classes
    }


def _imported_server_factories(project: ProjectContext) -> dict[str, ServerBinding]:
    return {name: ServerBinding.read(level, framework) for name, level, framework in project.imported_server_factories}


def _imported_registering(project: ProjectContext) -> dict[str, tuple[bool, tuple[int, str, str, str]]]:
    return {
        name: (slot == FACTORY_SLOT, (0, parameter, kind, level))
        for name, slot, parameter, kind, level in project.imported_registrars
        if slot in ("0", FACTORY_SLOT)
    }


def _parameter_class_table(project: ProjectContext) -> dict[tuple[str, str], list[str]]:
    """Per (function, parameter slot), the classes other modules pass there, in the order met."""
    table: dict[tuple[str, str], list[str]] = {}
    for key, slot, class_name in project.parameter_classes:
        passed = table.setdefault((key, slot), [])
        if class_name not in passed:
            passed.append(class_name)
    return table


def _server_parameters(project: ProjectContext) -> dict[tuple[str, str], ServerBinding]:
    return {
        (function, slot): ServerBinding.read(level, framework)
        for function, slot, level, framework in project.server_parameters
    }


class _Resolver:
    def __init__(
        self,
        facts: HandlerFactsCollector,
        imports: ImportTable,
        handler_decorators: Sequence[str],
        handler_functions: Sequence[str],
        project: ProjectContext,
    ) -> None:
        self.facts = facts
        self.imports = imports
        self.handler_decorators = handler_decorators
        self.handler_functions = handler_functions
        # The context is read only through what remembers what was asked of it (its tables, or
        # ``project``'s fields read whole): ``LocalScope.answered_the_same``.
        self.questions = ProjectQuestions(project)
        self.project = project
        self._module_heads = frozenset(project.module_heads) if project.module_heads is not None else None
        self.questions.read_whole("module_heads")
        self._passing: dict[str, bool] = {}  # callee -> a function the join can find elsewhere
        # (callee, typing depth) -> this module's function or class (``resolve_function`` looks
        # less deep into objects' classes from inside another such question)
        self._running_here: dict[tuple[str, int], bool] = {}
        self.left_out_heads: set[str] = set()  # what ``joinable`` said no to
        table = self.questions.table
        self.imported_servers: dict[str, ServerBinding] = table(("imported_servers",), _imported_servers)
        # Server classes and factories other modules of the project define (the run's join).
        self.imported_server_classes: dict[str, ServerBinding] = table(
            ("imported_server_classes", "imported_tool_wrappers"), _imported_server_classes
        )
        self.imported_wrapper_guards: dict[str, tuple[str, ...]] = table(
            ("imported_wrapper_guards",), lambda project: dict(project.imported_wrapper_guards)
        )
        # Methods of other modules' classes that return a registering decorator: qualified -> kind.
        self.imported_decorator_methods: dict[str, str] = table(
            ("imported_decorator_methods",), lambda project: dict(project.imported_decorator_methods)
        )
        self.local_decorator_methods: dict[str, str] = {}
        # What a registrar wraps its parameter in before registering it (`_as_tool_errors(function)`).
        self.registrar_wrappers: dict[str, list[tuple[cst.BaseExpression, str | None]]] = {}
        # Decorator methods' wrappers, as ToolWrappers: method key (local) or qualified name.
        self.decorator_method_wrappers: dict[str, tuple[ToolWrapper, ...]] = table(
            ("imported_decorator_method_wrappers",), lambda project: dict(project.imported_decorator_method_wrappers)
        )
        self.imported_server_factories: dict[str, ServerBinding] = table(
            ("imported_server_factories",), _imported_server_factories
        )
        self.imports_framework = any(
            name.split(".", 1)[0] in ("mcp", "fastmcp") for name in imports.imported().values()
        )
        self._typing_depth = 0  # class_of and resolve_function call each other
        self._bound_names: frozenset[str] | None = None  # ``is_free_name``'s
        # The facts' bindings by (scope, target): looked up once per name, not scanned.
        self._bindings_at: dict[tuple[str | None, str], list[tuple[cst.BaseExpression, bool]]] = {}
        for binding_scope, target, expression, is_annotation in facts.bindings:
            self._bindings_at.setdefault((binding_scope, target), []).append((expression, is_annotation))
        self._callees: dict[tuple[str, str | None, str | None], list[str]] = {}
        # Per function registered through wrapping calls: the callees of those calls.
        self.wrapping_calls: dict[str, list[tuple[cst.BaseExpression, str | None, str | None]]] = {}
        self._arguments: dict[tuple[str, str], list[tuple[cst.BaseExpression, str | None, str | None]]] = {}
        self._calls_by_name: dict[str, list[_Registration]] | None = None
        # Asked for every function by the reach, the outgoing tables and the local reach alike.
        self.returned_callees: dict[str, list[str]] = {}
        self.call_steps: dict[str, list[tuple[list[str], list[str]]]] = {}  # _reach_paths'
        # _decorated_states' answers: a function's decorators wrap every call of it the same way.
        self.decorated_states: dict[str, set[PathState] | None] = {}
        self.external_calls: dict[tuple[str, bool], list[tuple[str, str]]] = {}
        self.externals_asked: set[tuple[str, str | None, str | None]] = set()  # _call_externals in progress
        # _call_externals' answers to questions asked from the top: the resolver's answers do not
        # change once it is made (``scope_in_project`` gives it other entry points, which it never reads).
        self.externals_known: dict[tuple[str, str | None, str | None], list[str]] = {}
        # Per (function, parameter slot), the classes callers pass there, in the order met
        # (`async_search(crossref_searcher, ...)`, `async_search(hal_searcher, ...)`).
        self._parameter_classes: dict[tuple[str, str], list[str]] | None = None
        self._collected: dict[str, list[str]] | None = None
        self._classes: dict[tuple[str, str | None, str | None], str | None] = {}
        self.dynamic_registrations: set[str] = set()
        # Functions of this module that register a parameter: key -> (position, name, kind, level).
        self.registrars: dict[str, tuple[int, str, str, str]] = {}
        # Other modules' functions that register what they decorate: qualified name -> (used
        # called, `@tool(...)`, the registrar entry).
        self.imported_registering: dict[str, tuple[bool, tuple[int, str, str, str]]] = table(
            ("imported_registrars",), _imported_registering
        )
        # Functions (or lists of them, `name[]`) of other modules registered here: (target, kind, level).
        self.outgoing_registrations: set[tuple[str, str, str]] = set()
        # The project's registration decorators (`@mcp_for_unity_tool(...)`) when its servers
        # register what such registries collect: qualified name -> handler kind.
        self.registry_decorators_in_use: dict[str, str] = table(
            ("registry_decorators",), lambda project: dict(project.registry_decorators)
        )
        self.local_registry_decorators: dict[str, str] = {}
        # (function key, parameter name or position) -> the server a caller passes there.
        self.server_parameters: dict[tuple[str, str], ServerBinding] = table(("server_parameters",), _server_parameters)
        self.server_subclasses = self._server_subclasses()
        self.bindings = self._bindings()
        self._local_server_parameters()
        self._bind_attribute_parameters()

    @property
    def project(self) -> ProjectContext:
        return self._project  # type: ignore[return-value]  # read as one: ``AskedProject``

    @project.setter
    def project(self, project: ProjectContext) -> None:
        """A context differing from the one the resolver was made with only where the resolver
        does not look (``scope_in_project``'s entry points): its reads are remembered the same."""
        self._project = AskedProject(project, self.questions)

    # -- the facts' nodes --------------------------------------------------
    # What the methods below read of a node the facts hold, where the rest of the method reads
    # none: the `ast` twin's resolver (handlers_ast._AstResolver) reads its own nodes here, and
    # overrides the methods that read nodes throughout.
    _dotted = staticmethod(dotted_name)
    _call_argument = staticmethod(call_argument)
    _partial_of = staticmethod(_partial_of)

    @staticmethod
    def decorator_expression(decorator: cst.Decorator) -> cst.BaseExpression:
        return decorator.decorator

    def decorator_target(self, decorator: cst.Decorator) -> cst.BaseExpression:
        """What a decorator names: the callee of `@tool(...)`, `@tool` itself."""
        return self._named(self.decorator_expression(decorator))

    @staticmethod
    def _called(value: cst.BaseExpression) -> cst.BaseExpression | None:
        """What a call calls; None for any other expression."""
        return value.func if isinstance(value, cst.Call) else None

    @staticmethod
    def _named(expression: cst.BaseExpression) -> cst.BaseExpression:
        """What a call calls (`@tool(...)`'s `tool`), else the expression itself (`@tool`)."""
        return expression.func if isinstance(expression, cst.Call) else expression

    @staticmethod
    def _attribute(target: cst.Attribute) -> str:
        """`tool` of `mcp.tool`."""
        return target.attr.value

    @staticmethod
    def _is_call(value: cst.BaseExpression) -> TypeGuard[cst.Call]:
        return isinstance(value, cst.Call)

    @staticmethod
    def _annotation_types(annotation: cst.BaseExpression) -> Iterable[cst.BaseExpression]:
        return _annotation_types(annotation)

    @staticmethod
    def _base_value(base: cst.Arg) -> cst.BaseExpression:
        return base.value

    @staticmethod
    def _base_name(base: cst.Arg) -> str | None:
        return dotted_name(base.value.value if isinstance(base.value, cst.Subscript) else base.value)

    @staticmethod
    def _elements(value: cst.BaseExpression) -> list[cst.BaseExpression]:
        """A list's, tuple's or set's elements (a starred one's value), a dict's values (`**x`'s x)."""
        return [element.value for element in getattr(value, "elements", ())]

    @staticmethod
    def _unwrapped(expression: cst.BaseExpression) -> tuple[list[cst.BaseExpression], cst.BaseExpression]:
        """The callees of the calls wrapping an expression in their first argument
        (`_as_tool_errors(function)`), outermost first, and what they wrap."""
        wrapping: list[cst.BaseExpression] = []
        while isinstance(expression, cst.Call) and expression.args and expression.args[0].keyword is None:
            wrapping.append(expression.func)
            expression = expression.args[0].value
        return wrapping, expression

    @staticmethod
    def _names_no_function(expression: cst.BaseExpression) -> bool:
        return isinstance(expression, (cst.Lambda, cst.SimpleString))

    @staticmethod
    def _is_reference(value: cst.BaseExpression) -> bool:
        return isinstance(value, (cst.Name, cst.Attribute))

    @staticmethod
    def _is_attribute(value: cst.BaseExpression) -> TypeGuard[cst.Attribute]:
        return isinstance(value, cst.Attribute)

    @staticmethod
    def _name_expression(name: str) -> cst.BaseExpression:
        return cst.parse_expression(name)

    def callees_flowing_to_return(self, info: FunctionInfo) -> set[str]:
        return _callees_flowing_to_return(self, info)

    def coalesced_callees(self, info: FunctionInfo, *, answered: bool = False) -> list[str]:
        return _coalesced_callees(self, info, answered=answered)

    def find_returned_callees(self, info: FunctionInfo) -> list[str]:
        return _find_returned_callees(self, info)

    # -- what is a server ------------------------------------------------
    def server_class(self, expression: cst.BaseExpression) -> ServerBinding | None:
        if type(expression) is cst.Subscript:  # `FastMCP[State]`: a generic server class
            expression = expression.value
        dotted = dotted_name(expression)
        if dotted is None:
            if isinstance(expression, cst.SimpleString):
                text = string_value(expression)
                dotted = text.strip() if text is not None else None
            if dotted is None:
                return None
        if dotted in self.server_subclasses:
            return self.server_subclasses[dotted]
        qualified = self.imports.qualify(dotted)
        if qualified in SERVER_CLASSES:
            return ServerBinding.read(*SERVER_CLASSES[qualified])
        return self.imported_server_classes.get(qualified or "")

    def _server_subclasses(self) -> dict[str, ServerBinding]:
        subclasses: dict[str, ServerBinding] = {}
        self.server_subclasses = subclasses
        changed = True
        while changed:  # classes may derive from each other in any order
            changed = False
            for class_key, bases in self.facts.class_bases.items():
                if class_key in subclasses:
                    continue
                for base in bases:
                    binding = self.server_class(self._base_value(base))
                    if binding is not None:
                        own = self._tool_override_wrappers(class_key)
                        subclasses[class_key] = replace(binding, tool_wrappers=(*binding.tool_wrappers, *own)) if own else binding
                        changed = True
                        break
        return subclasses

    def _tool_override_wrappers(self, class_key: str) -> list[ToolWrapper]:
        """What the class's own `tool()` wraps each tool in before registering it on its base
        (`return super().tool(handle_tool_errors(fn), **kwargs)`, in the method or in the
        decorator it returns): local functions by key, imported ones by qualified name. Its own
        `call_tool()` calling `super().call_tool(...)` inside `try`s runs every tool: the method
        is a wrapper of each, with those `try`s."""
        method = f"{class_key}.tool"
        found: list[ToolWrapper] = []
        for dispatcher in SERVER_DISPATCH_METHODS:
            guards = self.facts.super_dispatch_guards.get(f"{class_key}.{dispatcher}")
            if guards:
                found.append((f"{class_key}.{dispatcher}", tuple(sorted(set(guards)))))
        for function, callees in self.facts.super_registration_wrappers.items():
            if function != method and not function.startswith(f"{method}.<locals>."):
                continue
            for callee in callees:
                found.extend(wrapper for wrapper in self.wrappers_of(callee, function)[:1] if wrapper not in found)
        return found

    def _bindings(self) -> dict[tuple[str | None, str], ServerBinding | None]:
        """Per (scope, target): the server it holds, or None for "something else"."""
        bindings: dict[tuple[str | None, str], ServerBinding | None] = {}
        for scope, target, expression, is_annotation in self.facts.bindings:
            candidates = self._annotation_types(expression) if is_annotation else (expression,)
            binding = next(filter(None, map(self._server_value, candidates)), None)
            if binding is not None or (scope, target) not in bindings:
                bindings[(scope, target)] = binding or bindings.get((scope, target))
        return bindings

    def _server_value(self, expression: cst.BaseExpression) -> ServerBinding | None:
        """A server class, or a function that returns a server (a factory, here or imported)."""
        if isinstance(expression, cst.Attribute) and expression.attr.value in SERVER_CLASS_FACTORIES:
            expression = expression.value  # `FastMCP.from_openapi(spec, client)`: a server of that class
        binding = self.server_class(expression)
        if binding is None:
            dotted = dotted_name(expression) or ""
            binding = self.factory_binding(dotted) if dotted in self.facts.functions else None
            if binding is None:
                binding = self.imported_server_factories.get(self.imports.qualify(dotted) or "")
        return binding

    def factory_binding(self, key: str, depth: int = 0) -> ServerBinding | None:
        """The server a module function returns: by its annotation (`-> FastMCP`), else by
        the local it returns (`server = FastMCP(...); ...; return server`)."""
        factory = self.facts.functions.get(key)
        if factory is None or depth > 3:
            return None
        if factory.returns is not None:
            return next(filter(None, map(self.server_class, _annotation_types(factory.returns))), None)
        for value in factory.returned_values:
            if isinstance(value, cst.Call):  # `return FastMCP(name=..., instructions=...)`
                callee = value.func
                if isinstance(callee, cst.Attribute) and callee.attr.value in SERVER_CLASS_FACTORIES:
                    callee = callee.value  # `return FastMCP.from_openapi(spec, client)`
                binding = self.server_class(callee)
                if binding is None and dotted_name(callee) in self.facts.functions:
                    binding = self.factory_binding(dotted_name(callee) or "", depth + 1)
                if binding is not None:
                    return binding
        for name in factory.returned_names:
            for expression, is_annotation in self._bindings_at.get((key, name), ()):
                if not is_annotation:
                    binding = self.server_class(expression)
                    if binding is None and dotted_name(expression) in self.facts.functions:
                        binding = self.factory_binding(dotted_name(expression) or "", depth + 1)
                    if binding is not None:
                        return binding
        return None

    def module_factories(self) -> dict[str, ServerBinding]:
        """Module-level functions that return a server, for the modules that import them."""
        factories = {}
        for key in self.facts.functions:
            if "." not in key:
                binding = self.factory_binding(key)
                if binding is not None:
                    factories[key] = binding
        return factories

    def module_server_classes(self) -> dict[str, ServerBinding]:
        return {key: binding for key, binding in self.server_subclasses.items() if "<locals>" not in key}

    def _bind_attribute_parameters(self) -> None:
        """`self.mcp = mcp` in `__init__(self, mcp)`: `self.mcp` is what the parameter is."""
        for class_key, target, parameter, function in self.facts.attribute_parameters:
            if self.bindings.get((class_key, target)) is None:
                binding = self.parameter_binding(function, parameter)
                if binding is not None:
                    self.bindings[(class_key, target)] = binding

    def parameter_binding(self, function: str, parameter: str) -> ServerBinding | None:
        """The server a parameter holds: one a caller passes (`Handlers(mcp)`, here or in
        another module), or by its annotation."""
        passed = self.server_parameters.get((function, parameter))
        name, held, attribute = parameter.partition(HELD)
        if passed is None:
            names = list(self.facts.functions[function].parameters) if function in self.facts.functions else []
            if name in names:
                passed = self.server_parameters.get((function, f"{names.index(name)}{held}{attribute}"))
        if passed is not None or held:
            return passed
        return self._server_parameter(self.facts.functions[function].parameters.get(parameter))

    def _passed_servers(self, to: Callable[[str], bool] | None = None) -> Iterator[tuple[str, str, ServerBinding]]:
        """(callee as written, parameter position or keyword, server) for each server passed
        as an argument: `Handlers(mcp)`, `register_tools(mcp)`, `setup(server=mcp)` (``to``:
        only in the calls of the callees it accepts)."""
        for registration in self.facts.registrations:
            call = registration.call
            callee = dotted_name(call.func)
            if callee is None or to is not None and not to(callee):
                continue
            for position, arg in enumerate(call.args):
                if arg.star:
                    break
                slot = arg.keyword.value if arg.keyword is not None else str(position)
                binding = self.receiver(arg.value, registration.context_key, registration.context_class)
                if binding is not None and binding is not UNTYPED_SERVER:
                    yield callee, slot, binding
                elif dotted_name(arg.value) == "self" and registration.context_class is not None:
                    # `ToolsRegistry(self)` where `self.mcp = FastMCP(...)`: the object holds one.
                    for attribute, held in self._held_servers(registration.context_class):
                        yield callee, f"{slot}{HELD}{attribute}", held

    def _held_servers(self, class_key: str) -> list[tuple[str, ServerBinding]]:
        """(attribute, server) for the servers a class's instances keep (`self.mcp = FastMCP()`)."""
        return [
            (target.removeprefix("self."), binding)
            for (scope, target), binding in self.bindings.items()
            if scope == class_key and target.count(".") == 1 and binding is not None and binding is not UNTYPED_SERVER
        ]

    def _local_server_parameters(self) -> None:
        """Servers passed to this module's own functions and classes."""
        for callee, slot, binding in self._passed_servers(to=self._runs_here):
            parameter = self._local_parameter(callee, slot)
            if parameter is not None:
                self.server_parameters.setdefault(parameter, binding)

    def _runs_here(self, callee: str) -> bool:
        """A call of this module's function or class (``_local_parameter`` finds a parameter
        for any slot of it); asked of every call, twice (servers, then classes passed)."""
        asked = (callee, self._typing_depth)
        known = self._running_here.get(asked)
        if known is None:
            known = self._running_here[asked] = (
                self._constructed(callee) is not None or self.resolve_function(callee, None, None) is not None
            )
        return known

    def _local_parameter(self, callee: str, slot: str) -> tuple[str, str] | None:
        """(function, parameter slot) an argument at ``slot`` of a call of this module's
        ``callee`` lands in: a class called runs its `__init__`, whose positions count `self`."""
        constructor = self._constructed(callee)
        if constructor is not None:
            return constructor, constructor_slot(slot)
        function = self.resolve_function(callee, None, None)
        return (function, slot) if function is not None else None

    def _elsewhere(self, callee: str, context_key: str | None = None) -> str | None:
        """The qualified target of a call that runs nothing of this module, else None."""
        if self._constructed(callee) is not None or self.resolve_function(callee, context_key, None) is not None:
            return None
        return self.external_target(callee)

    def _passes_to_project(self, callee: str) -> bool:
        """A call of another module's function that the join can find: what it is given (a
        server, an instance of a known class) is read there, and only there."""
        known = self._passing.get(callee)
        if known is None:
            target = self._elsewhere(callee)
            known = self._passing[callee] = target is not None and self.joinable(target)
        return known

    def _label(self, class_name: str) -> str:
        """A class as other modules name it: this module's classes module-qualified."""
        return self.project.label(class_name) if class_name in self.facts.class_bases else class_name

    def _constructed(self, callee: str) -> str | None:
        """`Handlers` called: its `__init__` (here or in a base of this module)."""
        if callee not in self.facts.class_bases:
            return None
        return self._method(callee, "__init__")

    def outgoing_servers(self) -> dict[str, list[tuple[str, str, str]]]:
        """Servers passed to other modules' functions and classes: target -> (slot, level, framework)."""
        passed: dict[str, list[tuple[str, str, str]]] = {}
        for callee, slot, binding in self._passed_servers(to=self._passes_to_project):
            target = self._elsewhere(callee)
            if target is not None:
                entry = (slot, binding.level, binding.framework)
                if entry not in passed.setdefault(target, []):
                    passed[target].append(entry)
        return passed

    def receiver(
        self, expression: cst.BaseExpression, context_key: str | None, context_class: str | None
    ) -> ServerBinding | None:
        """What server object `expression` is, where it is used (the closest binding wins)."""
        dotted = self._dotted(expression)
        if dotted is None:
            return None
        if dotted == "self":
            return self.server_subclasses.get(context_class or "")
        if dotted.startswith("self."):
            return self.bindings.get((context_class, dotted))
        for scope in enclosing_function_keys(context_key):
            if (scope, dotted) in self.bindings:
                return self.bindings[(scope, dotted)]
            parameters = self.facts.functions[scope].parameters if scope in self.facts.functions else {}
            if dotted in parameters:
                return self.parameter_binding(scope, dotted)
        if (None, dotted) in self.bindings:
            return self.bindings[(None, dotted)]
        # `from .server import mcp`: a server another module builds.
        return self.imported_servers.get(self.imports.qualify(dotted) or "")

    def module_servers(self) -> dict[str, ServerBinding]:
        """The module-level names bound to servers, for the modules that import them."""
        return {name: binding for (scope, name), binding in self.bindings.items() if scope is None and binding}

    def _server_parameter(self, annotation: cst.BaseExpression | None) -> ServerBinding | None:
        """`def register(mcp): @mcp.tool() ...`: a parameter used as a server.

        A parameter typed as a server is one. The object comes from the caller,
        which a module-local analysis cannot see; a parameter without a type (or
        typed `Any`) that is registered on with an MCP registration method, in a
        module importing an MCP framework, is taken to be a server too. A
        parameter typed as anything else is not.
        """
        if annotation is None or self._dotted(annotation) in ("Any", "typing.Any"):
            return UNTYPED_SERVER if self.imports_framework else None
        return next(filter(None, map(self.server_class, self._annotation_types(annotation))), None)

    # -- registrations -----------------------------------------------------
    def decorator_kind(
        self, expression: cst.BaseExpression, context_key: str | None, context_class: str | None
    ) -> str | None:
        target = self._named(expression)
        qualified = self.imports.qualified_name(target)
        if qualified in STANDALONE_DECORATORS:
            return STANDALONE_DECORATORS[qualified]
        if self._configured_decorator(target, qualified):
            return "tool"
        if qualified in self.registry_decorators_in_use:
            return self.registry_decorators_in_use[qualified]
        local = self._dotted(target)
        if local in self.local_registry_decorators:
            return self.local_registry_decorators[local]
        registering = self._registering_decorator(expression, context_key, context_class)
        if registering is not None:
            return registering[1][2]
        if self._is_attribute(target):
            binding = self.receiver(target.value, context_key, context_class)
            if binding is not None:
                name = self._attribute(target)
                if binding.level != "low" and name in HIGH_LEVEL_DECORATORS:
                    return HIGH_LEVEL_DECORATORS[name]
                if binding.level != "high":
                    return LOW_LEVEL_DECORATORS.get(name)
            return self._decorator_method_kind(target, context_key, context_class)
        return None

    def _registering_decorator(
        self, expression: cst.BaseExpression, context_key: str | None, context_class: str | None
    ) -> tuple[str, tuple[int, str, str, str]] | None:
        """A function used as a decorator that registers what it decorates (see
        ``registering_function``), of this module or imported: (the registering function, its
        registrar entry; an imported one's has no local key)."""
        target = self._named(expression)
        if self._is_call(target):
            return None
        called = self._is_call(expression)
        if self.registrars:
            for key in self.function_references(target, context_key, context_class):
                found = self.registering_function(key, called)
                if found is not None:
                    return found
        imported = self.imported_registering.get(self.imports.qualified_name(target) or "")
        if imported is not None and imported[0] == called:
            return "", imported[1]
        return None

    def registering_function(self, key: str, called: bool) -> tuple[str, tuple[int, str, str, str]] | None:
        """`@register` registering its first parameter (`mcp.tool()(func)`), or, ``called``,
        `@tool(...)` whose factory returns an inner function doing so (a decorator registering
        only the tools a setting enables, or each one under two names): (the registering
        function, its registrar entry)."""
        if called:
            info = self.facts.functions.get(key)
            candidates = [f"{key}.<locals>.{name}" for name in info.returned_names] if info is not None else []
        else:
            candidates = [key]
        for candidate in candidates:
            registrar = self.registrars.get(candidate)
            if registrar is not None and registrar[0] == 0:
                return candidate, registrar
        return None

    def _decorator_method_kind(self, target: cst.Attribute, context_key: str | None, context_class: str | None) -> str | None:
        """`@tools.writer("Format range")` with `tools: ToolRegistry`, whose `writer` returns a
        decorator that registers what it decorates on the registry's server."""
        method = self._decorator_method(target, context_key, context_class)
        return (self.local_decorator_methods.get(method) or self.imported_decorator_methods.get(method)) if method else None

    def _decorator_method(self, target: cst.Attribute, context_key: str | None, context_class: str | None) -> str | None:
        """The decorator method `target` names (`tools.writer` -> `ToolRegistry.writer`, local
        key or qualified name), if it is one."""
        if not (self.local_decorator_methods or self.imported_decorator_methods):
            return None
        owner = self._dotted(target.value)
        owner_class = self.class_of(owner, context_key, context_class) if owner is not None else None
        if owner_class is None:
            return None
        method = f"{owner_class}.{self._attribute(target)}"
        return method if method in self.local_decorator_methods or method in self.imported_decorator_methods else None

    def decorator_methods(self) -> dict[str, str]:
        """Methods that return a decorator registering what it decorates (`def writer(self,
        title): return self._register(title)`, `_register` returning its inner `decorate`,
        which registers its parameter): method key -> handler kind."""
        found: dict[str, str] = {}
        changed = True
        while changed:  # methods may return each other's decorators in any order
            changed = False
            for key, info in self.facts.functions.items():
                if key in found or info.class_key is None or "<locals>" in key:
                    continue
                kinds: list[str] = []
                wrappers: list[ToolWrapper] = []
                for name in info.returned_names:
                    inner = f"{key}.<locals>.{name}"
                    registrar = self.registrars.get(inner)
                    if registrar is not None and registrar[0] == 0:
                        kinds.append(registrar[2])
                        wrappers.extend(self._registrar_wrappers(inner))
                for callee in info.returned_calls:
                    method = f"{info.class_key}.{callee[5:]}"
                    if callee.startswith("self.") and method in found:
                        kinds.append(found[method])
                        wrappers.extend(self.decorator_method_wrappers.get(method, ()))
                if kinds:
                    found[key] = kinds[0]
                    self.decorator_method_wrappers[key] = tuple(dict.fromkeys(wrappers))
                    changed = True
        return found

    def _registrar_wrappers(self, key: str) -> list[ToolWrapper]:
        """What a registrar wraps its parameter in before registering it
        (`mcp.tool()(_as_tool_errors(func))`), as wrappers."""
        return [
            wrapper
            for wrapping, scope in self.registrar_wrappers.get(key, ())
            for wrapper in self.wrappers_of(wrapping, scope)[:1]
        ]

    def wrappers_of(
        self, callee: cst.BaseExpression, scope: str | None, scope_class: str | None = None
    ) -> list[ToolWrapper]:
        """The wrapping functions ``callee`` names, each with the `try`s its inner function puts
        around what it wraps: local ones by key, else an imported one by qualified name (its
        `try`s from the run's join)."""
        local = [
            (key, tuple(sorted(decorating_guards(self.facts.functions, key))))
            for key in self.function_references(callee, scope, scope_class)
        ]
        if local:
            return local
        qualified = self.imports.qualified_name(callee)
        if qualified is None or qualified.startswith("."):
            return []
        return [(qualified, self.imported_wrapper_guards.get(qualified, ()))]

    def registration_wrappers(
        self, expression: cst.BaseExpression, context_key: str | None, context_class: str | None
    ) -> tuple[ToolWrapper, ...]:
        """What the server a registering decorator (`@jira_mcp.tool(...)`) belongs to wraps each
        tool in: its class's `tool()` override's wrappers."""
        registering = self._registering_decorator(expression, context_key, context_class)
        if registering is not None:  # what the decorator wraps the function in to register it
            if not registering[0]:
                return ()  # another module's: what it wraps in is not summarised
            return tuple(self._registrar_wrappers(registering[0]))
        target = self._named(expression)
        if not self._is_attribute(target):
            return ()
        binding = self.receiver(target.value, context_key, context_class)
        if binding is not None:  # its `tool()` and `call_tool()` overrides wrap tools only
            return binding.tool_wrappers if self._attribute(target) == "tool" else ()
        method = self._decorator_method(target, context_key, context_class)
        return self.decorator_method_wrappers.get(method, ()) if method is not None else ()

    def is_low_level_decorator(
        self, expression: cst.BaseExpression, context_key: str | None, context_class: str | None
    ) -> bool:
        """`@server.call_tool()` on a low-level `Server` (not a same-named high-level decorator)."""
        target = self._named(expression)
        if not self._is_attribute(target):
            return False
        binding = self.receiver(target.value, context_key, context_class)
        name = self._attribute(target)
        if binding is None or name not in LOW_LEVEL_DECORATORS:
            return False
        return binding.level == "low" or (binding.level != "high" and name not in HIGH_LEVEL_DECORATORS)

    def _configured_decorator(self, target: cst.BaseExpression, qualified: str | None) -> bool:
        names = [name for name in (qualified, self._dotted(target)) if name]
        return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in self.handler_decorators)

    def registered_by_calls(self) -> Iterator[tuple[str, str, str]]:
        """(function key, kind, level) for every imperative registration in the module; the
        level is "high", "low" (mcp 1.x's decorators) or LOW_LEVEL_2 (mcp 2.x's `on_*=`).

        What is registered may be a parameter (`def add_tool(mcp, fn): mcp.add_tool(fn)`: the
        calls of that function register their arguments, here or, through the run's join, in
        the modules importing it), an element of a list (`for fn in read_tools:`), or a function
        of another module (`outgoing_registrations`). A registration of something that names
        no function (`mcp.tool()(info["func"])` in a loop over a registry) is kept in
        ``dynamic_registrations``."""
        pending: list[_Registered] = [
            (expression, kind, level, registration.context_key, registration.context_class)
            for registration in self.facts.registrations
            for expression, kind, level in self._registered_arguments(registration)
        ]
        pending += self._registered_elsewhere()
        seen: set[tuple[int, str | None]] = set()
        while pending:
            expression, kind, level, context_key, context_class = pending.pop()
            if (id(expression), context_key) in seen:
                continue
            seen.add((id(expression), context_key))
            found = False
            for key in self.function_references(expression, context_key, context_class):
                found = True
                wrapping = self.wrapping_calls.setdefault(key, [])
                wrapping.extend(
                    call for call in self._wrapping_calls(expression, context_key, context_class) if call not in wrapping
                )
                yield key, kind, level
            if found or self._names_no_function(expression):
                continue
            if self._registered_through(expression, kind, level, context_key, pending):
                continue
            self.dynamic_registrations.add(kind)

    def _wrapping_calls(
        self, expression: cst.BaseExpression, context_key: str | None, context_class: str | None, depth: int = 0
    ) -> Iterator[tuple[cst.BaseExpression, str | None, str | None]]:
        """The wrapping calls on the way to a registered function (`fn = wrap_filters(fn, ...)`,
        `mcp.tool(partial_of(fn))`): each call's callee, with where it is written."""
        if depth > 4:
            return
        if isinstance(expression, cst.Call):
            yield expression.func, context_key, context_class
            first = next((arg.value for arg in expression.args if arg.keyword is None and not arg.star), None)
            if first is not None:
                yield from self._wrapping_calls(first, context_key, context_class, depth + 1)
        elif isinstance(expression, cst.Name):
            for value in self._alias_values(expression.value, context_key):
                if value is not expression:
                    yield from self._wrapping_calls(value, context_key, context_class, depth + 1)

    def _alias_values(self, name: str, context_key: str | None) -> Iterator[cst.BaseExpression]:
        """What a name is assigned where a call in ``context_key`` reads it: in that function,
        the functions around it, then the module."""
        for scope in (*enclosing_function_keys(context_key), None):
            yield from self.facts.aliases.get((scope, name), ())

    def _registered_through(
        self, expression: cst.BaseExpression, kind: str, level: str, context_key: str | None, pending: list[_Registered]
    ) -> bool:
        """A registered expression that is a parameter, a loop over a list, or an import; or a
        wrapping call of one (`server.tool()(_as_tool_errors(function))`)."""
        wrapping, expression = self._unwrapped(expression)
        name = self._dotted(expression)
        if name is None:
            return False
        info = self.facts.functions.get(context_key or "")
        if info is not None and name in info.parameters:
            slot = list(info.parameters).index(name)
            self.registrars[context_key or ""] = (slot, name, kind, level)
            if wrapping:
                self.registrar_wrappers[context_key or ""] = [(callee, context_key) for callee in wrapping]
            for argument, caller, caller_class in self._arguments_for(info.key, name):  # this registrar's calls here
                pending.append((argument, kind, level, caller, caller_class))
            return True
        for scope in (*enclosing_function_keys(context_key), None):
            sources = self.facts.loop_sources.get((scope, name))
            if not sources:
                continue
            for source in sources:
                values = [v for s in (scope, None) for v in self.facts.aliases.get((s, source), ())]
                for value in values:
                    for element in self._elements(value):
                        pending.append((element, kind, level, None, None))
                if not values:
                    qualified = self.imports.qualify(source)
                    if qualified is not None and not qualified.startswith("."):
                        self.outgoing_registrations.add((f"{qualified}[]", kind, level))
            return True
        qualified = self.imports.qualify(name)
        if _is_project_name(qualified):
            self.outgoing_registrations.add((qualified, kind, level))
            return True
        # `run_query = _queries.run_query` with `_queries = _Queries(...)` of another module: the
        # method of that class is what runs.
        targets = {
            self.external_target(self._dotted(value) or "")
            for value in self._alias_values(name, context_key)
            if self._is_attribute(value)
        }
        found = sorted(target for target in targets if _is_project_name(target))
        self.outgoing_registrations.update((target, kind, level) for target in found)
        return bool(found)

    def _registered_elsewhere(self) -> list[_Registered]:
        """What other modules register here: a function, a list of them (`read_tools[]`), or
        the arguments of calls to another module's registrar."""
        pending: list[_Registered] = []
        for target, kind, level in self.project.registered_here:
            name = target.removesuffix("[]")
            if target.endswith("{}"):  # a tool table: the function of each entry
                functions = self.facts.registry_tables.get(target[:-2], ())
                pending.extend((function, kind, level, None, None) for function in functions)
            elif target.endswith("[]"):
                for value in self.facts.aliases.get((None, name), ()):
                    pending.extend((element, kind, level, None, None) for element in self._elements(value))
            else:
                pending.append((self._name_expression(name), kind, level, None, None))
        imported = {
            name: (int(slot), parameter, kind, level)
            for name, slot, parameter, kind, level in self.project.imported_registrars
            if slot != FACTORY_SLOT
        }
        if imported:
            for registration in self.facts.registrations:
                call = registration.call
                found = imported.get(self.imports.qualified_name(call.func) or "")
                if found is not None:
                    slot, parameter, kind, level = found
                    argument = self._call_argument(call, slot, parameter)
                    if argument is not None:
                        pending.append((argument, kind, level, registration.context_key, registration.context_class))
        return pending

    def registry_decorators(self) -> list[str]:
        """Module functions that work as registration decorators: `@register` keeping the
        function it decorates, or `@register(...)` whose inner function does."""
        found = []
        for key in self.facts.functions:
            if "." in key:
                continue
            prefix = f"{key}.<locals>."
            if key in self.facts.parameter_stores or any(
                stored.startswith(prefix) and stored.count(".<locals>.") == 1 for stored in self.facts.parameter_stores
            ):
                found.append(key)
        # `tool = partial(generic_tool, name_enum=ToolName)`: the alias decorates the same way.
        for (scope, name), values in self.facts.aliases.items():
            if scope is None and any(self._partial_of(value) in found for value in values):
                found.append(name)
        return found

    def _registered_arguments(self, registration: _Registration) -> Iterator[tuple[cst.BaseExpression, str, str]]:
        call, context_key, context_class = registration.call, registration.context_key, registration.context_class
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        if not positional:  # X.add_tool(fn=f)
            positional = [arg.value for arg in call.args if arg.keyword and arg.keyword.value in ("fn", "func")]
        func = call.func
        # X.tool(...)(fn) and tool(...)(fn)
        if isinstance(func, cst.Call) and positional:
            kind = self.decorator_kind(func, context_key, context_class)
            if kind is not None:
                yield positional[0], kind, "low" if self.is_low_level_decorator(func, context_key, context_class) else "high"
            return
        qualified = self.imports.qualified_name(func)
        if qualified in TOOL_FACTORIES and positional:
            yield positional[0], "tool", "high"
            return
        binding = self.server_class(func)
        if binding is not None and binding.level == "low":
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value.startswith("on_"):
                    yield arg.value, LOW_LEVEL_KEYWORDS.get(arg.keyword.value, "other"), LOW_LEVEL_2
            return
        if isinstance(func, cst.Name):  # `add = server.add_request_handler; add("tools/call", ...)`
            func = self._bound_method(func.value, context_key) or func
        if not isinstance(func, cst.Attribute) or not positional:
            return
        receiver = self.receiver(func.value, context_key, context_class)
        if receiver is None:
            return
        method = func.attr.value
        if receiver.level != "high" and method == "add_request_handler" and len(positional) >= 3:
            request = positional[0]
            if isinstance(request, cst.SimpleString) and isinstance(request.evaluated_value, str):
                yield positional[2], REQUEST_METHODS.get(request.evaluated_value, "other"), LOW_LEVEL_2
        elif receiver.level != "low":
            kind = HIGH_LEVEL_ADDERS.get(method) or HIGH_LEVEL_DECORATORS.get(method)
            if kind is not None:  # X.add_tool(fn), or X.tool(fn) on fastmcp
                yield positional[0], kind, "high"

    def _bound_method(self, name: str, context_key: str | None) -> cst.Attribute | None:
        """The method a local alias holds (`add = self.server.add_request_handler`)."""
        return next((value for value in self._alias_values(name, context_key) if self._is_attribute(value)), None)

    # -- functions by name -------------------------------------------------
    def function_references(
        self, expression: cst.BaseExpression, context_key: str | None, context_class: str | None, depth: int = 0
    ) -> Iterator[str]:
        """The functions an expression may name, through local aliases and wrapping calls."""
        if depth > 4:
            return
        if isinstance(expression, cst.Call):
            # wraps(fn, ...), partial(fn, ...): the wrapped function is what runs.
            for arg in expression.args:
                if arg.keyword is None and not arg.star:
                    yield from self.function_references(arg.value, context_key, context_class, depth + 1)
                    return
            return
        dotted = _callee(expression)
        if dotted is None:
            return
        found = self.resolve_function(dotted, context_key, context_class)
        if found is not None:
            yield found
        elif "." not in dotted:
            for value in self.facts.aliases.get((context_key, dotted), ()):
                yield from self.function_references(value, context_key, context_class, depth + 1)

    def external_target(self, dotted: str) -> str | None:
        """The qualified name an unresolved callee stands for: `helper()` imported from
        `pkg.util`, `storage.load()` on an imported module, or `svc.get()` on a
        module-level instance of an imported class."""
        table, brackets, rest_of_table = dotted.partition("[]")
        if brackets and "." not in table:  # `OPS[op]["handler"](...)` on an imported table
            owner = self.imports.qualify(table)
            return f"{owner}[]{rest_of_table}" if owner is not None and not owner.startswith(".") else None
        qualified = self.imports.qualify(dotted)
        if qualified is None:
            root, _, rest = dotted.partition(".")
            for value in self.facts.aliases.get((None, root), ()):
                called = self._called(value)
                if rest and called is not None:
                    owner = self.imports.qualified_name(called)
                    if owner is not None:
                        # `svc = Service()`: Service's method; `db = get_db_client()`: a method of
                        # what the factory returns, which its module knows (`_returned_class`).
                        built = owner if owner.rpartition(".")[2][:1].isupper() else f"{owner}()"
                        qualified = f"{built}.{rest}"
                        break
        if qualified is None or qualified.startswith("."):
            return None
        return qualified

    def joinable(self, target: str) -> bool:
        """Whether the run's join may find ``target`` (or one of its choices, `a.M.m|b.B.m`) in a
        module of the project: the tables it reads leave out what it would look up for nothing
        (most calls out of a module go to the standard library and other packages)."""
        heads = self._module_heads
        if heads is None:
            return True
        firsts = [choice.partition(".")[0] for choice in target.split("|")]
        if any(first in heads for first in firsts):
            return True
        self.left_out_heads.update(firsts)
        return False

    def resolve_callee(self, dotted: str, context_key: str | None, context_class: str | None) -> list[str]:
        """The functions a call may run: a direct target, or every entry of a dispatch table."""
        key = (dotted, context_key, context_class)
        found = self._callees.get(key)
        if found is None:
            found = self._callees[key] = [] if self.is_free_name(dotted) else self._resolve_callee(*key)
        return found

    def is_free_name(self, callee: str) -> bool:
        """A bare name that no function, class, assignment or table lookup of the module binds and
        that it does not import (`len`, `print`, a parameter called): ``_resolve_callee`` and
        ``_find_call_externals`` find nothing for it in any function, and are not asked (a third
        of a module's calls; every function asks again)."""
        bound = self._bound_names
        if bound is None:
            bound = self._bound_names = _bound_names(self.facts, self.imports)
        return callee not in bound and callee.isidentifier()

    def _resolve_callee(self, dotted: str, context_key: str | None, context_class: str | None) -> list[str]:
        owner, dot, method = dotted.rpartition(".")
        choices = self.parameter_choices(owner, context_key) if dot and "." not in owner and "[" not in owner else []
        if choices:  # the method of each class callers pass (those of other modules: external_methods)
            return [key for choice in choices if choice in self.facts.class_bases for key in [self._method(choice, method)] if key]
        direct = self.resolve_function(dotted, context_key, context_class)
        if direct is not None:
            return [direct]
        constructor = self._constructed(dotted)
        if constructor is not None:  # `SQLiteHandler(path)` runs its `__init__`
            return [constructor]
        looked_up = [
            key
            for table in self.table_lookup(dotted, context_key)
            for key in self.resolve_callee(table, context_key, context_class)
        ]
        if looked_up:
            return list(dict.fromkeys(looked_up))
        table, brackets, method = dotted.partition("[]")
        if not brackets and "." not in dotted:  # `serialize = serialize_fast`: a plain alias
            aliased = [value for value in self._alias_values(dotted, context_key) if self._is_reference(value)]
            found = [key for value in aliased for key in self.function_references(value, context_key, context_class)]
            if found:
                return list(dict.fromkeys(found))
        if not brackets:
            owner, dot, name = dotted.rpartition(".")
            if dot and self._collected_at_all():
                owner_class = self.class_of(owner, context_key, context_class) or ""
                return self.collected_methods(owner_class, name)[0]
            return []
        if method and table in self.collected():  # TOOLS[name].run() on a registry of instances
            return self.collected_methods(f"<collected:{table}>", method[1:])[0]
        entries = list(self._table_entries(table, context_key, context_class))
        if not method:  # HANDLERS[name](...)
            return list(
                dict.fromkeys(key for value, *where in entries for key in self._entry_functions(value, *where))
            )
        targets: list[str] = []  # HANDLERS[name].run(...): the method of each entry's class
        for value, *_ in entries:
            called = self._called(value)
            class_name = self._dotted(value if called is None else called)
            method_key = self._method(class_name, method[1:]) if class_name in self.facts.class_bases else None
            if method_key is not None:
                targets.append(method_key)
        return targets

    def _table_entries(
        self, table: str, context_key: str | None, context_class: str | None, depth: int = 0
    ) -> Iterator[tuple[cst.BaseExpression, str | None, str | None]]:
        """The values a dispatch table may hold, each with the function and class it is
        written in: a dict built here (`HANDLERS = {...}`), one a project function built and
        returned (`registry = register_tools(svc)`), or what callers pass for a parameter
        (`call_registered(registry, ...)`)."""
        if depth > 4 or "." in table:
            return
        scopes = (*enclosing_function_keys(context_key), None)
        for scope in scopes:
            for value in self.facts.aliases.get((scope, f"{table}[]"), ()):
                yield value, context_key, context_class
        for scope in scopes:
            for value in self.facts.aliases.get((scope, table), ()):
                if isinstance(value, cst.Await):
                    value = value.expression
                builder = dotted_name(value.func) if isinstance(value, cst.Call) else None
                found = self.resolve_function(builder, context_key, context_class) if builder else None
                if found is not None:
                    yield from self._returned_entries(found, depth)
            info = self.facts.functions.get(scope or "")
            if info is not None and table in info.parameters:
                for argument, caller, caller_class in self._arguments_for(info.key, table):
                    if isinstance(argument, cst.Name):
                        yield from self._table_entries(argument.value, caller, caller_class, depth + 1)
                    elif isinstance(argument, (cst.Dict, cst.DictComp)):
                        yield argument, caller, caller_class
                break  # the parameter shadows what outer scopes call the name

    def _returned_entries(self, function: str, depth: int) -> Iterator[tuple[cst.BaseExpression, str | None, str | None]]:
        """The values of the dicts a function returns, built in its return or in a local."""
        info = self.facts.functions[function]
        for value in self.facts.returned_dicts.get(function, ()):
            yield value, function, info.class_key
        for name in dict.fromkeys(info.returned_names):
            yield from self._table_entries(name, function, info.class_key, depth + 1)

    def _arguments_for(self, function: str, parameter: str) -> list[tuple[cst.BaseExpression, str | None, str | None]]:
        """What the calls of this module pass to a function's parameter, with where each call is."""
        key = (function, parameter)
        if key not in self._arguments:
            names = [name for name in self.facts.functions[function].parameters]
            position = names.index(parameter)
            found = []
            for registration in self._calls_named(function.rpartition(".")[2]):
                callee = self._dotted(registration.call.func)
                if callee is None:
                    continue
                if self.resolve_function(callee, registration.context_key, registration.context_class) != function:
                    continue
                skip = 1 if names[:1] in (["self"], ["cls"]) and "." in callee else 0  # a bound method's call
                argument = self._call_argument(registration.call, position - skip, parameter)
                if argument is not None:
                    found.append((argument, registration.context_key, registration.context_class))
            self._arguments[key] = found
        return self._arguments[key]

    def _calls_named(self, name: str) -> list[_Registration]:
        """This module's calls whose callee's last name is ``name`` (`f(...)`, `self.f(...)`)."""
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for registration in self.facts.registrations:
                callee = registration.call.func
                tail = callee.attr.value if isinstance(callee, cst.Attribute) else getattr(callee, "value", None)
                if isinstance(tail, str):
                    self._calls_by_name.setdefault(tail, []).append(registration)
        return self._calls_by_name.get(name, [])

    def _entry_functions(self, value: cst.BaseExpression, context_key: str | None, context_class: str | None) -> Iterator[str]:
        """The functions a dispatch table's value names (a comprehension by names included)."""
        if isinstance(value, cst.Dict):
            for item in _table_values(value):
                yield from self.function_references(item, context_key, context_class)
        elif isinstance(value, cst.DictComp):
            yield from self._named_methods(value, context_key, context_class)
        else:
            yield from self.function_references(value, context_key, context_class)

    def _named_methods(self, table: cst.DictComp, context_key: str | None, context_class: str | None) -> Iterator[str]:
        """`{name: getattr(obj, name) for name in NAMES}`: the methods of `obj` that NAMES spells."""
        for dotted in self._named_attributes(table, context_key):
            found = self.resolve_function(dotted, context_key, context_class)
            if found is not None:
                yield found

    def _named_attributes(self, table: cst.DictComp, context_key: str | None) -> list[str]:
        """`obj.a`, `obj.b` for `{name: getattr(obj, name) for name in ("a", "b")}`."""
        value, loop = table.value, table.for_in
        if not (
            isinstance(value, cst.Call)
            and dotted_name(value.func) == "getattr"
            and len(value.args) >= 2
            and isinstance(loop.target, cst.Name)
            and isinstance(value.args[1].value, cst.Name)
            and value.args[1].value.value == loop.target.value
        ):
            return []
        owner = dotted_name(value.args[0].value)
        if owner is None:
            return []
        return [f"{owner}.{name}" for name in self._literal_strings(loop.iter, context_key)]

    def table_lookup(self, name: str, context_key: str | None) -> list[str]:
        """`TABLE[]` for a local assigned an item of a table (`handler = TABLE.get(name)`,
        `TABLE[name]`), in this function or an enclosing one."""
        if "." in name or "[" in name:
            return []
        for scope in (*enclosing_function_keys(context_key), None):
            tables = self.facts.table_lookups.get((scope, name))
            if tables:
                return [f"{table}[]" for table in dict.fromkeys(tables)]
        return []

    def table_externals(self, dotted: str, context_key: str | None, context_class: str | None) -> list[str]:
        """Functions of other modules a call through a dispatch table may run: imported
        functions among its values, methods of an imported class named by a comprehension."""
        table, brackets, method = dotted.partition("[]")
        if not brackets or method:
            return []
        found: list[str] = []
        for value, key, class_key in self._table_entries(table, context_key, context_class):
            if isinstance(value, cst.DictComp):
                callees = self._named_attributes(value, key)
            else:
                items = _table_values(value) if isinstance(value, cst.Dict) else [value]
                callees = [name for name in map(dotted_name, items) if name is not None]
            for callee in callees:
                if self.resolve_function(callee, key, class_key) is None:
                    found.extend(_call_externals(self, callee, key, class_key))
        return list(dict.fromkeys(found))

    def _literal_strings(self, expression: cst.BaseExpression, context_key: str | None) -> list[str]:
        """The strings of a literal tuple/list/set, or of the name of one (`TOOL_NAMES`)."""
        if isinstance(expression, cst.Name):
            sequence = next((v for v in self._alias_values(expression.value, context_key) if isinstance(v, _SEQUENCES)), None)
            return self._literal_strings(sequence, None) if sequence is not None else []
        if not isinstance(expression, _SEQUENCES):
            return []
        return [
            element.value.evaluated_value
            for element in expression.elements
            if isinstance(element.value, cst.SimpleString) and isinstance(element.value.evaluated_value, str)
        ]

    def resolve_function(self, dotted: str, context_key: str | None, context_class: str | None) -> str | None:
        functions = self.facts.functions
        parts = dotted.split(".")
        if len(parts) == 1:
            for scope in enclosing_function_keys(context_key):
                candidate = f"{scope}.<locals>.{dotted}"
                if candidate in functions:
                    return candidate
            return dotted if dotted in functions else None
        if len(parts) == 2:
            owner, method = parts
            if owner in ("self", "cls") and context_class is not None:
                return self._method(context_class, method)
            if owner in self.facts.class_bases:
                return self._method(owner, method)
            for value in self.facts.aliases.get((None, owner), ()):  # `svc = Store()` at module level
                called = self._called(value)
                class_name = self._dotted(called) if called is not None else None
                if class_name in self.facts.class_bases:
                    return self._method(class_name, method)
        if len(parts) >= 2 and self._typing_depth < 3:
            # A method of an object whose class is known: `r = Report(db); r.build()`,
            # `self.store.save()`, `get_store().save()`, a parameter typed `store: Store`.
            self._typing_depth += 1
            try:
                owner_class = self.class_of(".".join(parts[:-1]), context_key, context_class)
            finally:
                self._typing_depth -= 1
            if owner_class is not None and owner_class in self.facts.class_bases:
                return self._method(owner_class, parts[-1])
        return None

    def checks_answers(self, key: str, depth: int = 0) -> bool:
        """Whether every answer of the function is checked for an error before it is given
        (``Handler.checks_answers``): each `return` hands back a local an `if` raises on when it
        holds an error, a `CallToolResult` whose `isError` is computed, or the answer of a
        function of the module that checks its own (`return await call_registered_tool(...)`)."""
        info = self.facts.functions.get(key)
        if info is None or not info.returned_values or depth > 3:
            return False
        for value in info.returned_values:
            if isinstance(value, cst.Await):
                value = value.expression
            if isinstance(value, cst.Name) and value.value in info.checked_answers:
                continue
            if _marks_errors(value):
                continue
            callee = dotted_name(value.func) if isinstance(value, cst.Call) else None
            function = self.resolve_function(callee, key, info.class_key) if callee is not None else None
            if function is None or function == key or not self.checks_answers(function, depth + 1):
                return False
        return True

    # -- the classes of objects ---------------------------------------------
    def class_of(self, dotted: str, context_key: str | None, context_class: str | None, depth: int = 0) -> str | None:
        """The class of the object `dotted` names where it is used: a class of this module
        (its key) or an imported one (its qualified name); None when unknown."""
        if depth > 4:
            return None
        if depth == 0:  # the top-level question is asked again and again: remember its answer
            key = (dotted, context_key, context_class)
            if key not in self._classes:
                self._classes[key] = None  # a cycle asks again: unknown
                self._classes[key] = self.class_of(dotted, context_key, context_class, depth=-1)
            return self._classes[key]
        depth = max(depth, 0)
        if dotted.endswith("()"):
            return self._returned_class(dotted[:-2], context_key, context_class, depth)
        if dotted in ("self", "cls"):
            return context_class
        if dotted.startswith("self.") and dotted.count(".") == 1:
            return self._attribute_class(dotted, context_class, depth)
        getter, called, attributes = dotted.partition("().")
        if called and "(" not in getter and "(" not in attributes:  # `get_state().client`
            owner = self._returned_class(getter, context_key, context_class, depth)
            for attribute in attributes.split("."):
                if owner is None or owner not in self.facts.class_bases:
                    return None
                owner = self._attribute_class(f"self.{attribute}", owner, depth + 1)
            return owner
        owner, dot, attribute = dotted.partition(".")
        if dot and owner in self.facts.class_bases and "." not in attribute:
            # `Server.search`: an attribute of this module's class, named so by a module whose
            # object holds an instance of it (`_held_class`).
            return self._attribute_class(f"self.{attribute}", owner, depth + 1)
        if "." in dotted:
            return None
        for scope in (*enclosing_function_keys(context_key), None):
            found = self._name_class(scope, dotted, depth)
            if found is not None:
                return found
            info = self.facts.functions.get(scope or "")
            if info is not None and dotted in info.parameters:
                return self._parameter_class(info.key, dotted)
        return None

    def _collected_at_all(self) -> bool:
        return bool(self.facts.parameter_containers) and bool(self.collected())

    def collected(self) -> dict[str, list[str]]:
        """Per registry container, the classes whose instances are kept in it: by a call of a
        function that stores its argument there (`register(ExportTool())`), here or, through
        the run's join, in another module."""
        if self._collected is None:
            self._collected = {}
            for function, class_name in self.project.collected_instances:
                container = self.facts.parameter_containers.get(function)
                if container is not None:
                    self._collected.setdefault(container, []).append(class_name)
            for callee, class_name, context_key in self._instances_passed():
                target = self.resolve_function(callee, context_key, None)
                container = self.facts.parameter_containers.get(target or "")
                if container is not None and class_name not in self._collected.get(container, []):
                    self._collected.setdefault(container, []).append(class_name)
        return self._collected

    def _instances_passed(self) -> Iterator[tuple[str, str, str | None]]:
        """(callee, class, where) for calls given a new instance first: `register(ExportTool())`."""
        for registration in self.facts.registrations:
            call = registration.call
            callee = dotted_name(call.func)
            first = call.args[0].value if call.args and call.args[0].keyword is None else None
            if callee is None or type(first) is not cst.Call:
                continue
            found = self._callable_class(first.func, registration.context_key, registration.context_class, 1)
            if found is not None and not found.endswith("()"):
                yield callee, found, registration.context_key

    def outgoing_instances(self) -> dict[str, list[str]]:
        """Instances given to other modules' storing functions: target -> qualified classes."""
        passed: dict[str, list[str]] = {}
        for callee, class_name, context_key in self._instances_passed():
            target = self._elsewhere(callee, context_key)
            if target is not None:
                qualified = self._label(class_name)
                if qualified not in passed.setdefault(target, []):
                    passed[target].append(qualified)
        return passed

    def collected_methods(self, owner: str, method: str) -> tuple[list[str], list[str]]:
        """A method called on an item of a registry (`lookup(name).execute()`, `TOOLS[n].run()`):
        (this module's methods, other modules' targets) of every class kept there."""
        if not owner.startswith("<collected:"):
            return [], []
        local, external = [], []
        for class_name in self.collected().get(owner[len("<collected:") : -1], []):
            if class_name in self.facts.class_bases:
                found = self._method(class_name, method)
                if found is not None:
                    local.append(found)
                else:
                    external.extend(self.inherited_externally(class_name, method))
            else:
                external.append(f"{class_name}.{method}")
        return local, external

    def _passed_class(self, function: str, parameter: str) -> str | None:
        """The class of what callers pass to an untyped parameter (`register(mcp, service)`
        with `service = Service()`, `mcp_error=MCPError`), here or in other modules."""
        passed = self._classes_passed(function, parameter)
        return self._local_class(passed[0]) if passed else None

    def _classes_passed(self, function: str, parameter: str) -> list[str]:
        """Every class callers pass to the parameter, by its name or its position."""
        if self._parameter_classes is None:
            self._parameter_classes = self.questions.table(("parameter_classes",), _parameter_class_table)
            self._local_parameter_classes()
        names = list(self.facts.functions[function].parameters) if function in self.facts.functions else []
        found = self._parameter_classes.get((function, parameter))
        if found is None and parameter in names:
            found = self._parameter_classes.get((function, str(names.index(parameter))))
        return found or []

    def _parameter_class(self, function: str, parameter: str) -> str | None:
        """The class of what a parameter of the module's function holds: what callers pass is
        concrete; else its annotation's, which may name a protocol or a base."""
        passed = self._passed_class(function, parameter)
        if passed is not None:
            return passed
        annotation = self.facts.functions[function].parameters.get(parameter)
        return self._annotation_class(annotation) if annotation is not None else None

    def _local_class(self, qualified: str) -> str:
        """A class of this module by its key, though the join names it by its qualified name."""
        prefix = f"{self.project.module}." if self.project.module else ""
        local = qualified.removeprefix(prefix) if prefix else qualified
        return local if local != qualified and local in self.facts.class_bases else qualified

    def _passed_arguments(self, to: Callable[[str], bool] | None = None) -> Iterator[tuple[str, str, str]]:
        """(callee as written, parameter position or keyword, class) for each argument whose
        class is known: an instance built here, a typed local, a class itself (``to``: only in
        the calls of the callees it accepts)."""
        if self._parameter_classes is None:
            self._parameter_classes = {}  # what is passed is not judged by what is passed
        for registration in self.facts.registrations:
            call = registration.call
            callee = dotted_name(call.func)
            if callee is None or callee.rpartition(".")[2] in _NOT_PASSING:
                continue
            if to is not None and not to(callee):
                continue
            for position, arg in enumerate(call.args):
                if arg.star:
                    break
                found = self._argument_class(arg.value, registration.context_key, registration.context_class)
                if found is not None and not found.endswith("()"):
                    yield callee, arg.keyword.value if arg.keyword is not None else str(position), found

    def _argument_class(
        self, value: cst.BaseExpression, context_key: str | None, context_class: str | None
    ) -> str | None:
        if type(value) is cst.Await:
            value = value.expression
        if type(value) is cst.Call:
            return self._callable_class(value.func, context_key, context_class, 1)
        dotted = dotted_name(value)
        if dotted is None:
            return None
        if dotted in self.facts.class_bases:
            return dotted
        if dotted == "self" and context_class is not None:
            return context_class  # `FileManager(self)`: the object hands itself over
        found = self.class_of(dotted, context_key, context_class)
        if found is None and dotted.rpartition(".")[2][:1].isupper():  # a class passed as a value
            qualified = self.imports.qualify(dotted)
            if _is_project_name(qualified):
                found = qualified
        return found

    def _local_parameter_classes(self) -> None:
        assert self._parameter_classes is not None
        for callee, slot, class_name in list(self._passed_arguments(to=self._runs_here)):
            parameter = self._local_parameter(callee, slot)
            if parameter is not None:
                self._add_class_passed(parameter, class_name)

    def _add_class_passed(self, slot: tuple[str, str], class_name: str) -> None:
        assert self._parameter_classes is not None
        passed = self._parameter_classes.setdefault(slot, [])
        if class_name not in passed:
            passed.append(class_name)

    def parameter_choices(self, name: str, context_key: str | None) -> list[str]:
        """The classes callers pass to the parameter ``name`` of the function (or of an
        enclosing one), when they pass instances of more than one; else []."""
        for scope in enclosing_function_keys(context_key):
            info = self.facts.functions.get(scope)
            if info is None or name not in info.parameters:
                continue
            choices = self._classes_passed(scope, name)
            return [self._local_class(choice) for choice in choices] if len(choices) > 1 else []
        return []

    def outgoing_arguments(self) -> dict[str, list[tuple[str, str]]]:
        """Classes passed to other modules' functions: target -> (slot, qualified class)."""
        passed: dict[str, list[tuple[str, str]]] = {}
        for callee, slot, class_name in self._passed_arguments(to=self._passes_to_project):
            target = self._elsewhere(callee)
            if target is None:
                continue
            entry = (slot, self._label(class_name))
            if entry not in passed.setdefault(target, []):
                passed[target].append(entry)
        return passed

    def _name_class(self, scope: str | None, name: str, depth: int) -> str | None:
        for value in self.facts.aliases.get((scope, name), ()):
            found = self._value_class(value, scope, depth)
            if found is not None:
                return found
        for expression, is_annotation in self._bindings_at.get((scope, name), ()):
            if is_annotation:
                return self._annotation_class(expression)
        return None

    def _attribute_class(self, target: str, class_key: str | None, depth: int) -> str | None:
        """`self.client`: from `self.client = Client(...)`, `self.client: Client` or
        `self.client = client` with `client: Client` or given a `Client` by its callers, in the
        class or its bases."""
        for expression, is_annotation in self._bindings_at.get((class_key, target), ()):
            found = self._annotation_class(expression) if is_annotation else self._callable_class(expression, None, None, depth)
            if found is not None:
                return found
        for owner, bound, parameter, function in self.facts.attribute_parameters:
            if owner == class_key and bound == target:
                holder, held, attribute = parameter.partition(HELD)
                if held:  # `self.search = server.search`: what the object passed keeps there
                    return self._held_class(function, holder, attribute, depth)
                # What callers pass is concrete (`FileManager(self)`); an annotation may name a base.
                passed = self._passed_class(function, parameter)
                if passed is not None:
                    return passed
                annotation = self.facts.functions[function].parameters.get(parameter)
                if annotation is not None:
                    return self._annotation_class(annotation)
        return None

    def _held_class(self, function: str, parameter: str, attribute: str, depth: int) -> str | None:
        """The class of what the object a parameter holds keeps in ``attribute``: found here
        when its class is this module's; for another module's class, its ``Class.attribute``
        name, which that module resolves (`class_of`) when a call on it reaches there."""
        holder = self._parameter_class(function, parameter)
        if holder is None or depth > 4:
            return None
        if holder in self.facts.class_bases:
            return self._attribute_class(f"self.{attribute}", holder, depth + 1)
        return f"{holder}.{attribute}" if not holder.endswith("()") else None

    def _value_class(self, value: cst.BaseExpression, scope: str | None, depth: int) -> str | None:
        if isinstance(value, cst.Await):
            value = value.expression
        if isinstance(value, cst.Call):
            return self._callable_class(value.func, scope, None, depth)
        dotted = dotted_name(value)
        return self.class_of(dotted, scope, None, depth + 1) if dotted else None

    def _callable_class(
        self, func: cst.BaseExpression, context_key: str | None, context_class: str | None, depth: int
    ) -> str | None:
        """What calling `func` makes: an instance of the class it names, or what it returns."""
        dotted = self._dotted(func)
        if dotted is None:
            return None
        if dotted in self.facts.class_bases:
            return dotted
        return self._returned_class(dotted, context_key, context_class, depth)

    def _returned_class(self, dotted: str, context_key: str | None, context_class: str | None, depth: int) -> str | None:
        if dotted in self.facts.class_bases:
            return dotted
        key = self.resolve_function(dotted, context_key, context_class) if depth < 3 else None
        info = self.facts.functions.get(key or "")
        if info is not None:
            # A lookup in a registry of instances: the classes registered there, whose methods
            # override the base class the getter may be annotated with (`-> ToolHandler | None`).
            for table in self.facts.returned_tables.get(info.key, ()):
                if table in self.collected():
                    return f"<collected:{table}>"
            if info.returns is not None:
                return self._annotation_class(info.returns)
            for name in info.returned_names:  # a getter of a module-level instance
                found = self._name_class(key, name, depth + 1) or self._name_class(None, name, depth + 1)
                if found is not None:
                    return found
            return None
        qualified = self.imports.qualify(dotted)
        if not _is_project_name(qualified):
            owner, dot, method = dotted.rpartition(".")
            owner_class = self.class_of(owner, context_key, context_class, depth + 1) if dot and depth < 3 else None
            if owner_class is not None and owner_class not in self.facts.class_bases and _is_project_name(owner_class):
                # `session_manager.get_or_create_session()` on an instance of another module's
                # class: that module knows what the method returns.
                return f"{owner_class}.{method}()"
            return None
        # An imported name called: a class by the naming convention (PEP 8's CapWords);
        # else a function whose module knows what it returns (`pkg.deps.get_client()`).
        return qualified if dotted.rpartition(".")[2][:1].isupper() else f"{qualified}()"

    def _annotation_class(self, annotation: cst.BaseExpression) -> str | None:
        for candidate in _annotation_types(annotation):
            if isinstance(candidate, cst.SimpleString) and isinstance(candidate.evaluated_value, str):
                dotted: str | None = candidate.evaluated_value.strip()
            else:
                dotted = dotted_name(candidate)
            if dotted is None or dotted in ("None", "Any", "typing.Any"):
                continue
            if dotted in self.facts.class_bases:
                return dotted
            qualified = self.imports.qualify(dotted)
            if _is_project_name(qualified):
                return qualified
        return None

    def external_methods(self, dotted: str, context_key: str | None, context_class: str | None) -> list[str]:
        """Methods of other modules a call on an object may run: the object's class is
        imported (`Report(db).build()`), or a base class of its (a mixin) is."""
        owner, dot, method = dotted.rpartition(".")
        if not dot:
            return []
        choices = self.parameter_choices(owner, context_key) if "." not in owner else []
        if choices:  # `searcher.search()` with `searcher` one of several classes' instances
            return [
                target
                for choice in choices
                for target in (
                    self.inherited_externally(choice, method) if choice in self.facts.class_bases else [f"{choice}.{method}"]
                )
            ]
        owner_class = owner if owner in self.facts.class_bases else self.class_of(owner, context_key, context_class)
        if owner_class is None:
            table, brackets, _ = owner.partition("[]")
            if not brackets or table not in self.collected():
                return []
            owner_class = f"<collected:{table}>"
        if owner_class.startswith("<collected:"):
            return self.collected_methods(owner_class, method)[1]
        if owner_class not in self.facts.class_bases:
            return [f"{owner_class}.{method}"]
        return self.inherited_externally(owner_class, method)

    def inherited_externally(self, class_key: str, method: str) -> list[str]:
        """`Class.method` resolved through bases of other modules: one target, the bases that
        may define it in method-resolution order (`pkg.mixins.HttpMixin.request|...`), ending
        with this module's definition if a later base has one; the run's join picks the first
        that defines it."""
        candidates = self._method_candidates(class_key, method, 0)
        if not candidates or candidates[0] in self.facts.functions:
            return []
        return ["|".join(self.project.label(c) if c in self.facts.functions else c for c in candidates)]

    def _method(self, class_key: str, method: str) -> str | None:
        """This module's definition of the method, unless a base of another module may come first."""
        candidates = self._method_candidates(class_key, method, 0)
        return candidates[0] if candidates and candidates[0] in self.facts.functions else None

    def _method_candidates(self, class_key: str, method: str, depth: int) -> list[str]:
        """Where `class_key.method` may be defined, in (depth-first) resolution order, up to the
        first definition in this module: this module's keys, other modules' qualified names."""
        own = f"{class_key}.{method}"
        if own in self.facts.functions:
            return [own]
        if depth > 10:
            return []
        found: list[str] = []
        for base in self.facts.class_bases.get(class_key, ()):
            base_name = self._base_name(base)
            if base_name is None:
                continue
            if base_name in self.facts.class_bases:
                found.extend(self._method_candidates(base_name, method, depth + 1))
            else:
                qualified = self.imports.qualify(base_name)
                if _is_project_name(qualified):
                    found.append(f"{qualified}.{method}")
            if found and found[-1] in self.facts.functions:
                break
        return found


# Packages that are never the project's own: a call on their objects is not followed.
_NOT_PROJECT = frozenset({"mcp", "fastmcp", "typing", "collections", "builtins", "pydantic", "httpx", "requests"})


def _is_project_name(qualified: str | None) -> TypeGuard[str]:
    """An absolute name that may be the project's own (not a relative leftover, not a library
    whose objects are never followed)."""
    return qualified is not None and not qualified.startswith(".") and qualified.split(".", 1)[0] not in _NOT_PROJECT


def _annotation_types(annotation: cst.BaseExpression) -> Iterable[cst.BaseExpression]:
    """The types an annotation names: `X`, `"X"`, `X | None`, `Optional[X]`."""
    if type(annotation) is cst.BinaryOperation:
        yield from _annotation_types(annotation.left)
        yield from _annotation_types(annotation.right)
    elif type(annotation) is cst.Subscript:
        for element in annotation.slice:
            if type(element.slice) is cst.Index:
                yield from _annotation_types(element.slice.value)
    else:
        yield annotation


@dataclass
class LocalScope:
    """What a module's handler scope is before other modules' entry points: its own handlers
    and what they reach, with the resolver that found them (its answers about calls are the
    same for any entry points, so a round that brings only new entry points keeps them)."""

    resolver: _Resolver
    scope: HandlerScope
    # What the module gives the join whatever the entry points (``_MODULE_OUTPUTS``), once worked out.
    module_outputs: HandlerScope | None = None
    # ``scope_in_project``'s answers for an entry point's pattern (and state), which depend on
    # the resolver alone: a round that brings more entry points walks only from the new ones.
    matching: dict[str, list[str]] = field(default_factory=dict)  # pattern -> this module's functions
    walks: dict[tuple[str, PathState], dict[str, set[PathState]] | None] = field(default_factory=dict)
    returned: dict[str, list[str]] = field(default_factory=dict)  # pattern -> the functions whose result it returns

    def kept_for(self, project: ProjectContext) -> bool:
        """Whether ``project`` (another round's context, entry points aside) tells the resolver
        all it asked as the one it was made with did: the local scope is then the same, and the
        resolver goes on with ``project`` (``asked_project``). False leaves it as it was."""
        return self.resolver.questions.move_to(project)


def resolve_local_scope(
    facts: HandlerFactsCollector,
    imports: ImportTable,
    *,
    handler_decorators: Sequence[str] = (),
    handler_functions: Sequence[str] = (),
    project: ProjectContext = NO_PROJECT,
) -> LocalScope:
    """The module's own handlers and their reach: ``project``'s entry points are not read."""
    return local_scope(_Resolver(facts, imports, handler_decorators, handler_functions, project))


def local_scope(resolver: _Resolver) -> LocalScope:
    """``resolve_local_scope`` with its resolver made (the `ast` twin makes its own)."""
    facts, handler_functions = resolver.facts, resolver.handler_functions
    scope = HandlerScope()
    registered = list(resolver.registered_by_calls())
    resolver.local_decorator_methods = resolver.decorator_methods()
    if resolver.dynamic_registrations:
        # A registry and the loop registering what it collects, in one module.
        kind = "tool" if "tool" in resolver.dynamic_registrations else sorted(resolver.dynamic_registrations)[0]
        resolver.local_registry_decorators = {key: kind for key in resolver.registry_decorators()}
    roots: dict[str, list[str]] = {}  # handler key -> functions it runs first
    initial_states: dict[str, set[frozenset[str]]] = {}  # handler key -> the guards its caller puts around it
    # handler key -> the guards its own decorators' wrappers put around their call of it
    wrapped_states: dict[str, set[PathState]] = {}
    external_wrappers: dict[str, list[str]] = {}  # handler key -> imported decorators under it

    def add_handler(key: str, kind: str, wrappers: Sequence[str] = (), level: str = "high") -> None:
        if key not in scope.handlers:
            low_level = level != "high" and not level.startswith(DISPATCHED)
            checked = resolver.checks_answers(key)
            scope.handlers[key] = Handler(key, as_handler_kind(kind), low_level, level == LOW_LEVEL_2, checked)
            if level.startswith(DISPATCHED) and level != DISPATCHED:
                initial_states[key] = {frozenset([level.removeprefix(DISPATCHED)])}
            roots[key] = [key]
        roots[key].extend(wrappers)

    for info in facts.functions.values():
        for index, decorator in enumerate(info.decorators):
            context = (resolver.decorator_expression(decorator), parent_function(info.key), info.class_key)
            decorated_kind = resolver.decorator_kind(*context)
            if decorated_kind is not None:
                below = info.decorators[index + 1 :]
                level = "low" if resolver.is_low_level_decorator(*context) else "high"
                # What the server's own `tool()` wraps the function in counts as a decorator below.
                tool_wrappers = resolver.registration_wrappers(*context)
                local = [key for key, _ in tool_wrappers if key in facts.functions]
                inner = [name for key in local for name in _runs_per_call(resolver.facts.functions, key)]
                add_handler(info.key, decorated_kind, [*_wrappers(resolver, below, info), *inner], level)
                external_wrappers[info.key] = [
                    *_imported_decorators(resolver, below), *(key for key, _ in tool_wrappers if key not in local)
                ]
                states = _wrapper_guards(resolver, below, info)
                for _, guards in tool_wrappers:
                    states = _with_layer(states, guards)
                wrapped_states[info.key] = states
                break
        if info.key not in scope.handlers and any(
            fnmatch.fnmatchcase(info.key, pattern) for pattern in handler_functions
        ):
            add_handler(info.key, "tool")
    for key, kind, level in registered:
        # The function object registered is the decorated one: all its decorators wrap it.
        info = facts.functions[key]
        add_handler(key, kind, _wrappers(resolver, info.decorators, info), level=level)
        external_wrappers.setdefault(key, _imported_decorators(resolver, info.decorators))
        wrapped_states.setdefault(key, _wrapper_guards(resolver, info.decorators, info))
        # ... and so do the calls that wrapped it on the way to its registration.
        inner, imported = _call_wrappers(resolver, resolver.wrapping_calls.get(key, ()))
        add_handler(key, kind, inner, level=level)
        external_wrappers[key].extend(name for name in imported if name not in external_wrappers[key])

    for key, handler in scope.handlers.items():
        starts = initial_states.get(key, {frozenset()})
        wrapped = wrapped_states.get(key, {frozenset()})
        if wrapped != {frozenset()}:
            # The client calls the wrappers; they call the function inside their `try`s.
            _reach_paths(resolver, scope, [key], handler, {state | guards for state in starts for guards in wrapped})
            _reach_paths(resolver, scope, [root for root in roots[key] if root != key], handler, starts)
        else:
            _reach_paths(resolver, scope, roots[key], handler, starts)
        _reach(resolver, scope.returns_to, roots[key], handler, True)
        for wrapper in external_wrappers.get(key, ()):
            # An imported wrapper's inner function runs per call and returns to the client.
            target = f"{wrapper}.<locals>.*"
            for table in (scope.outgoing_calls, scope.outgoing_returns):
                _add(table, target, handler)
            scope.outgoing_states.setdefault((target, handler.key), set()).add(frozenset())
    return LocalScope(resolver, scope)


def scope_in_project(local: LocalScope, project: ProjectContext) -> HandlerScope:
    """The handler scope: ``local``'s, with the functions other modules' handlers reach here
    (``project``'s entry points, which must be the only difference from the context ``local``
    was resolved in). ``local`` itself is left as it was."""
    resolver = local.resolver
    resolver.project = project
    facts = resolver.facts
    scope = HandlerScope(
        handlers=dict(local.scope.handlers),
        reached_by=_copied_table(local.scope.reached_by),
        returns_to=_copied_table(local.scope.returns_to),
        outgoing_calls=_copied_table(local.scope.outgoing_calls),
        outgoing_returns=_copied_table(local.scope.outgoing_returns),
        paths={key: set(states) for key, states in local.scope.paths.items()},
        outgoing_states={key: set(states) for key, states in local.scope.outgoing_states.items()},
    )
    # Functions that handlers of other modules reach (the run's join says which).
    matching = local.matching
    # Most entries differ only by their handler (a helper a hundred tools reach, with the same
    # guards): a walk from the same functions in the same state reaches the same functions in
    # the same states whoever the handler is, so it is walked once per (pattern, state) and its
    # result given to each handler (`_given_reach`) as its own walk would have added it.
    walks = local.walks
    returned = local.returned
    for entries, table, through_return in (
        (project.entry_points, scope.reached_by, False),
        (project.return_entry_points, scope.returns_to, True),
    ):
        outgoing = scope.outgoing_returns if through_return else scope.outgoing_calls
        for pattern, label, kind, state in entries:
            handler = Handler.from_join(label, kind)
            initial = frozenset(state)
            keys = matching.get(pattern)
            if keys is None:  # the same function for many handlers: a `.*` pattern scans them all
                keys = matching[pattern] = _matching_keys(facts, pattern)
            if not keys:  # `Client.fetch` inherited, `get_client().post`: a call to resolve here
                keys = resolver.resolve_callee(pattern, None, None)
                if not keys:
                    for target in _call_externals(resolver, pattern, None, None):
                        if not resolver.joinable(target):
                            continue
                        _add(outgoing, target, handler)
                        if not through_return:
                            scope.outgoing_states.setdefault((target, handler.key), set()).add(initial)
            if through_return:
                found = returned.get(pattern)
                if found is None:
                    found = returned[pattern] = _reachable(resolver, keys, through_return=True)
                for function in found:
                    _add(table, function, handler)
                continue
            shared = None
            # A handler that is one of the roots walks for itself: that root runs without its
            # decorators (`_reach_paths`).
            if handler.key not in keys:
                if (pattern, initial) not in walks:
                    walks[(pattern, initial)] = _shared_reach(resolver, keys, initial)
                shared = walks[(pattern, initial)]
            if shared is None or not _given_reach(scope, shared, handler):
                _reach_paths(resolver, scope, keys, handler, {initial})
    _collect_outgoing(resolver, scope)
    if local.module_outputs is None:
        local.module_outputs = _module_outputs(resolver, project, local.scope.handlers)
    for name in _MODULE_OUTPUTS:
        setattr(scope, name, getattr(local.module_outputs, name))
    scope.coalesced = _coalesced(resolver, scope)
    scope.message_returns = _message_returns(resolver, scope)

    def external_calls(callee: str, function: str | None) -> list[str]:
        info = facts.functions.get(function or "")
        return _call_externals(resolver, callee, function, info.class_key if info else None)

    scope.external_calls = external_calls
    scope.dynamic_registrations = sorted(resolver.dynamic_registrations)
    scope.outgoing_registrations = sorted(resolver.outgoing_registrations)
    scope.left_out_heads = frozenset(resolver.left_out_heads)
    return scope


# What a module gives the run's join that other modules' entry points do not change: worked out
# with the module's local scope, once for every round that brings only new entry points.
_MODULE_OUTPUTS = (
    "local_reach_calls", "local_reach_returns", "local_reach_guards", "message_targets", "module_servers",
    "server_classes", "decorator_methods", "decorator_method_wrappers", "wrapper_guards", "server_factories",
    "outgoing_servers", "outgoing_arguments", "outgoing_instances", "dispatch_guards", "registrars",
    "registry_decorators", "registry_tables",
)  # fmt: skip


def _module_outputs(resolver: _Resolver, project: ProjectContext, handlers: Mapping[str, Handler]) -> HandlerScope:
    """A scope holding only the fields of ``_MODULE_OUTPUTS`` (its handlers: the local ones)."""
    facts = resolver.facts
    scope = HandlerScope()
    _collect_local_reach(resolver, scope)
    scope.message_targets = _message_targets(resolver, resolver.project)
    scope.module_servers = resolver.module_servers()
    scope.server_classes = resolver.module_server_classes()
    scope.decorator_methods = {key: kind for key, kind in resolver.local_decorator_methods.items() if "<locals>" not in key}
    scope.decorator_method_wrappers = {
        key: list(resolver.decorator_method_wrappers.get(key, ())) for key in scope.decorator_methods
        if resolver.decorator_method_wrappers.get(key)
    }
    scope.wrapper_guards = {
        key: sorted(layer)
        for key in facts.functions
        if "." not in key and (layer := decorating_guards(facts.functions, key)) and layer != {""}
    }
    scope.server_factories = resolver.module_factories()
    scope.outgoing_servers = resolver.outgoing_servers()
    scope.outgoing_arguments = resolver.outgoing_arguments()
    scope.outgoing_instances = resolver.outgoing_instances()
    low_level_tools = [key for key, handler in handlers.items() if handler.kind == "tool" and handler.low_level]
    if low_level_tools:
        # A low-level `tools/call` handler runs tools by name: what a registry holds, if any.
        resolver.dynamic_registrations.add("tool")
        scope.dispatch_guards = [_dispatch_guard(facts, facts.functions[key]) for key in low_level_tools if key in facts.functions]
    scope.registrars = {key: [str(slot), name, kind, level] for key, (slot, name, kind, level) in resolver.registrars.items()}
    # Module functions returning a registering decorator (`@tool(...)`), for the modules importing them.
    for key in facts.functions:
        found = resolver.registering_function(key, True) if "." not in key else None
        if found is not None:
            _, (_, name, kind, level) = found
            scope.registrars[key] = [FACTORY_SLOT, name, kind, level]
    scope.registry_decorators = resolver.registry_decorators()
    scope.registry_tables = sorted(facts.registry_tables)
    return scope


def _copied_table(table: dict[str, list[Handler]]) -> dict[str, list[Handler]]:
    copied: dict[str, list[Handler]] = {}
    for key, handlers in table.items():
        for handler in handlers:
            _add(copied, key, handler)
    return copied


def _dispatch_guard(facts: HandlerFactsCollector, info: FunctionInfo) -> str:
    """The `try`s around a low-level `call_tool`'s calls of a tool it looked up by name
    (`tool = tool_map[name]` ... `await tool.run_async(...)`, `TOOLS[name](...)`), when every
    such call has the same ones; "" when none is guarded, or they differ."""
    guards: set[str] = set()
    for callee in dict.fromkeys(info.calls):
        root, dot, _ = callee.partition(".")
        if "[]" in callee or (dot and (info.key, root) in facts.looked_up):
            guards.update(info.guards_for(callee))
    return guards.pop() if len(guards) == 1 else ""


def _reach(
    resolver: _Resolver, table: dict[str, list[Handler]], roots: Sequence[str], handler: Handler, through_return: bool
) -> None:
    for function in _reachable(resolver, roots, through_return=through_return):
        _add(table, function, handler)


def _reach_paths(
    resolver: _Resolver, scope: HandlerScope, roots: Sequence[str], handler: Handler, initial: set[PathState]
) -> bool:
    """Calls reach: every function the handler reaches, with the guards of each call path.
    Whether MAX_PATH_STATES merged some path state on the way."""
    functions = resolver.facts.functions
    merged = False
    pending: list[tuple[str, PathState]] = []
    for root in roots:
        if root not in functions:
            continue
        # A root other than the handler (a wrapper's inner function) runs inside its own
        # decorators too; the handler's own are in ``initial`` already.
        layers = _decorated_states(resolver, root) if root != handler.key else None
        pending.extend((root, state | layer) for state in initial for layer in layers or {frozenset()})
    while pending:
        key, state = pending.pop()
        states = scope.paths.setdefault((key, handler.key), set())
        if state in states:
            continue
        if len(states) >= MAX_PATH_STATES:
            # The guards every path so far shares: never more than any path has (a raise is
            # reported unless each of them stops it), and the sets only shrink from here.
            merged = True
            state = state.intersection(*states)
            if state in states:
                continue
        states.add(state)
        _add(scope.reached_by, key, handler)
        steps = resolver.call_steps.get(key)
        if steps is None:
            steps = resolver.call_steps[key] = _call_steps(resolver, functions[key])
        for targets, guards_list in steps:
            for guards in guards_list:
                next_state = state | {guards} if guards else state
                for target in targets:
                    layers = _decorated_states(resolver, target)
                    if layers is None:
                        pending.append((target, next_state))
                    else:  # `@handle_errors` on the callee: its wrapper's `try`s stand around the call
                        pending.extend((target, next_state | layer) for layer in layers)
    return merged


# The handler of a walk shared by many (`_shared_reach`): no function has its key, so every
# root runs inside its own decorators.
_ANY_HANDLER = Handler("", "tool")


def _shared_reach(resolver: _Resolver, roots: Sequence[str], initial: PathState) -> dict[str, set[PathState]] | None:
    """What a walk from ``roots`` in the state ``initial`` reaches, for any handler none of them
    is: each function's path states. None when the cap merged some: the walk then depends on
    the order of its steps and on what the handler reached before."""
    walked = HandlerScope()
    if _reach_paths(resolver, walked, roots, _ANY_HANDLER, {initial}):
        return None
    return {function: walked.paths[(function, _ANY_HANDLER.key)] for function in walked.reached_by}


def _given_reach(scope: HandlerScope, shared: dict[str, set[PathState]], handler: Handler) -> bool:
    """Add a shared walk's result to ``handler``'s as its own walk would; False, adding nothing,
    where that is not sure.

    Its own walk adds each state the handler's states of a function do not hold yet, and lists
    the handler as reaching a function it adds one to. It stops at a state the handler reached
    before: whatever follows from there was added then, except where MAX_PATH_STATES merged a
    state into those before it (a function holding that many already). So while no function's
    states would pass MAX_PATH_STATES, its walk merges nothing and skips nothing the shared one
    reached; past it, its walk merges, and the states it keeps depend on its order."""
    paths = scope.paths
    for function, states in shared.items():
        known = paths.get((function, handler.key))
        if known and len(known | states) > MAX_PATH_STATES:
            return False
    for function, states in shared.items():
        known = paths.get((function, handler.key))
        if known is None:
            paths[(function, handler.key)] = set(states)
        elif states <= known:
            continue
        else:
            known |= states
        _add(scope.reached_by, function, handler)
    return True


def _decorated_states(resolver: _Resolver, key: str) -> set[PathState] | None:
    """The ways through the `try`s a function's own decorators' wrappers put around every call
    of it (`@handle_tool_errors` catching what it raises); None when they put none."""
    if key in resolver.decorated_states:
        return resolver.decorated_states[key]
    info = resolver.facts.functions[key]
    states = _wrapper_guards(resolver, info.decorators, info) if info.decorators else None
    found = None if states is None or states == {frozenset()} else states
    resolver.decorated_states[key] = found
    return found


def _call_steps(resolver: _Resolver, info: FunctionInfo) -> list[tuple[list[str], list[str]]]:
    """(the functions a callee may be, the guards of its calls) for each callee of ``info`` that
    resolves here, in the order the reach takes them: every handler's reach steps through the
    same function again (a module that 100 tools reach, once per tool and call path)."""
    steps = []
    for callee in set(info.calls):
        targets = resolver.resolve_callee(callee, info.key, info.class_key)
        if targets:
            steps.append((targets, info.guards_for(callee)))
    return steps


class _Handlers(list[Handler]):
    """The handlers of a table's entry, in the order they came, with a set of them beside:
    `_add` runs for every step of every reach, and `in` on a list compares each element
    (a function many handlers reach made it 11 % of a run)."""

    __slots__ = ("members",)

    def __init__(self) -> None:
        super().__init__()
        self.members: set[Handler] = set()


def _add(table: dict[str, list[Handler]], key: str, handler: Handler) -> None:
    handlers = table.get(key)
    if handlers is None:
        handlers = table[key] = _Handlers()
    assert isinstance(handlers, _Handlers)  # only _add fills these tables
    if handler not in handlers.members:
        handlers.members.add(handler)
        handlers.append(handler)


def _matching_keys(facts: HandlerFactsCollector, pattern: str) -> list[str]:
    if pattern.endswith(".*"):
        prefix = pattern[:-1]
        return [key for key in facts.functions if key.startswith(prefix)]
    return [pattern] if pattern in facts.functions else []


# The path states of a function reached with none recorded: one way, through no `try`.
_NO_PATH: frozenset[PathState] = frozenset({frozenset()})


def _collect_outgoing(resolver: _Resolver, scope: HandlerScope) -> None:
    """Calls from reached functions to functions of other modules, with who reaches them
    (and, for calls, the guards on the way)."""
    for table, outgoing, through_return in (
        (scope.reached_by, scope.outgoing_calls, False),
        (scope.returns_to, scope.outgoing_returns, True),
    ):
        for function, handlers in table.items():
            info = resolver.facts.functions.get(function)
            for callee, target in _external_calls(resolver, function, through_return):
                if not resolver.joinable(target):
                    continue
                for handler in handlers:
                    _add(outgoing, target, handler)
                if through_return or info is None:
                    continue
                guards_list = info.guards_for(callee)  # the same whoever reaches the function
                for handler in handlers:
                    states = scope.outgoing_states.setdefault((target, handler.key), set())
                    paths = scope.paths.get((function, handler.key), _NO_PATH)
                    if guards_list == [""]:  # no call of it in a `try`: the ways here are the ways there
                        states.update(paths)
                    else:
                        states.update(state | {guards} if guards else state for state in paths for guards in guards_list)


def _joinable_targets(resolver: _Resolver, function: str, through_return: bool) -> list[str]:
    return [target for _, target in _external_calls(resolver, function, through_return) if resolver.joinable(target)]


def _external_calls(resolver: _Resolver, function: str, through_return: bool) -> list[tuple[str, str]]:
    """(callee as written, qualified target) for the functions of other modules that
    ``function`` itself calls (or returns the result of)."""
    key = (function, through_return)
    found = resolver.external_calls.get(key)
    if found is not None:
        return found
    info = resolver.facts.functions.get(function)
    targets: list[tuple[str, str]] = []
    if info is not None:
        for callee in _returned_callees(resolver, info) if through_return else dict.fromkeys(info.calls):
            if not resolver.resolve_callee(callee, function, info.class_key):
                targets.extend((callee, target) for target in _call_externals(resolver, callee, function, info.class_key))
    resolver.external_calls[key] = targets
    return targets


def _call_externals(resolver: _Resolver, callee: str, function: str | None, class_key: str | None) -> list[str]:
    """The functions of other modules a call may run (a list nobody changes). A question asked
    from the top (not while another is being answered: the recursion guard may cut an inner
    answer short) is answered once per resolver: the outgoing tables, the local reach and
    MCP006's flows ask the same ones, the flows once per call site and round."""
    if resolver.is_free_name(callee):
        return []
    asked = (callee, function, class_key)
    if asked in resolver.externals_asked:
        return []  # a table whose values lead back to it (`handler = handlers[name]` in a loop over them)
    from_the_top = not resolver.externals_asked
    if from_the_top:
        known = resolver.externals_known.get(asked)
        if known is not None:
            return known
    resolver.externals_asked.add(asked)
    try:
        found = _find_call_externals(resolver, callee, function, class_key)
    finally:
        resolver.externals_asked.discard(asked)
    if from_the_top:
        resolver.externals_known[asked] = found
    return found


def _find_call_externals(resolver: _Resolver, callee: str, function: str | None, class_key: str | None) -> list[str]:
    looked_up = resolver.table_lookup(callee, function)
    if looked_up:  # `handler = TOOL_HANDLERS.get(name)`, the table imported or its values
        found = [target for table in looked_up for target in _call_externals(resolver, table, function, class_key)]
        return list(dict.fromkeys(found))
    target = resolver.external_target(callee)
    if target is not None:
        return [target]
    return resolver.external_methods(callee, function, class_key) or resolver.table_externals(callee, function, class_key)


def _collect_local_reach(resolver: _Resolver, scope: HandlerScope) -> None:
    """For each function, the other modules' functions it reaches through this module's
    calls: what lets the run's join follow a chain of modules in one step."""
    functions = resolver.facts.functions
    for through_return, table in ((False, scope.local_reach_calls), (True, scope.local_reach_returns)):
        direct = {key: _joinable_targets(resolver, key, through_return) for key in functions}
        if not any(direct.values()):
            continue
        # Each external target flows back to every function that reaches its caller.
        callers: dict[str, list[tuple[str, str]]] = {}  # function -> (caller, callee as written)
        for key, info in functions.items():
            for callee in set(_returned_callees(resolver, info) if through_return else info.calls):
                for target in resolver.resolve_callee(callee, key, info.class_key):
                    callers.setdefault(target, []).append((key, callee))
        reached: dict[str, set[str]] = {}
        for key, targets in direct.items():
            if not targets:
                continue
            pending, seen = [key], {key}
            while pending:
                function = pending.pop()
                reached.setdefault(function, set()).update(targets)
                for caller, _ in callers.get(function, ()):
                    if caller not in seen:
                        seen.add(caller)
                        pending.append(caller)
        for key, reached_targets in reached.items():
            table[key] = sorted(reached_targets)
        if not through_return:
            scope.local_reach_guards = _shared_reach_guards(resolver, callers)


def _shared_reach_guards(
    resolver: _Resolver, callers: Mapping[str, Sequence[tuple[str, str]]]
) -> dict[str, dict[str, list[str]]]:
    """Per function, per function of another module it reaches through this module's calls:
    the `try`s (encoded) that every way from it to that call passes. The join's chain step adds
    them to the guards of an entry it carries through the module (the guards of one way differ
    from another's only by more `try`s, so these are never more than a way has)."""
    functions = resolver.facts.functions
    shared: dict[str, dict[str, frozenset[str]]] = {}
    pending: list[str] = []
    for key, info in functions.items():
        for callee, target in _external_calls(resolver, key, False):
            if not resolver.joinable(target):
                continue
            _narrow(shared.setdefault(key, {}), target, _common_guard(info.guards_for(callee)))
        if key in shared:
            pending.append(key)
    while pending:
        function = pending.pop()
        for caller, callee in callers.get(function, ()):
            call_guard = _common_guard(functions[caller].guards_for(callee))
            known = shared.setdefault(caller, {})
            changed = [_narrow(known, target, guards | call_guard) for target, guards in list(shared[function].items())]
            if any(changed):
                pending.append(caller)
    return {
        key: {target: sorted(guards) for target, guards in targets.items() if guards}
        for key, targets in shared.items()
        if any(targets.values())
    }


def _narrow(known: dict[str, frozenset[str]], target: str, guards: frozenset[str]) -> bool:
    """Keep only the guards this way shares with the ways met before; whether that changed."""
    new = known[target] & guards if target in known else guards
    if known.get(target) == new:
        return False
    known[target] = new
    return True


def _common_guard(guards_list: Sequence[str]) -> frozenset[str]:
    """What every call site of a callee in one function sits in ("" is a call outside any `try`)."""
    first = guards_list[0] if guards_list else ""
    return frozenset((first,)) if first and all(guards == first for guards in guards_list) else frozenset()


def _imported_decorators(resolver: _Resolver, decorators: Sequence[cst.Decorator]) -> list[str]:
    found = []
    for decorator in decorators:
        target = resolver.decorator_target(decorator)
        qualified = resolver.imports.qualified_name(target)
        if qualified is not None and not qualified.startswith("."):
            found.append(qualified)
    return found


def _wrappers(resolver: _Resolver, decorators: Sequence[cst.Decorator], info: FunctionInfo) -> list[str]:
    """The inner functions of same-module decorators stacked under the registration."""
    found: list[str] = []
    for decorator in decorators:
        target = resolver.decorator_target(decorator)
        for key in resolver.function_references(target, parent_function(info.key), info.class_key):
            found.extend(inner_functions(resolver.facts.functions, key))
    return found


def decorating_guards(functions: Mapping[str, FunctionInfo], key: str) -> set[str]:
    """The `try`s (encoded; "" for none) a wrapping function's inner functions put around their
    calls of the function it wraps (`def wrapper(*a): try: return fn(*a) except ValueError as
    e: raise ToolError(...)`); empty: it calls no such function."""
    found: set[str] = set()
    for inner in inner_functions(functions, key):
        parent = functions.get(parent_function(inner) or "")
        wrapped = next((name for name in (parent.parameters if parent else {}) if name not in ("self", "cls")), None)
        if wrapped is not None and wrapped in functions[inner].calls:
            found.update(functions[inner].guards_for(wrapped))
    return found


def _with_layer(states: set[PathState], layer: Iterable[str]) -> set[PathState]:
    """Each path state, continued through each way past one more wrapper."""
    layer = set(layer)
    if not layer:
        return states
    return {state | ({guards} if guards else set()) for state in states for guards in layer}


def _wrapper_guards(resolver: _Resolver, decorators: Sequence[cst.Decorator], info: FunctionInfo) -> set[PathState]:
    """The `try`s the decorators' wrappers put around their call of the function they decorate,
    one path state per way through them ({frozenset()}: none): a same-module decorator's
    from its inner functions, an imported one's from the run's join."""
    states: set[PathState] = {frozenset()}
    for decorator in decorators:
        target = resolver.decorator_target(decorator)
        for _, guards in resolver.wrappers_of(target, parent_function(info.key), info.class_key):
            states = _with_layer(states, guards)
    return states


def _runs_per_call(functions: Iterable[str], key: str) -> list[str]:
    """What of a server's wrapper runs for each call of a tool: a wrapping function's inner
    functions, or a `call_tool()` override itself."""
    if key.rpartition(".")[2] in SERVER_DISPATCH_METHODS:
        return [key]
    return inner_functions(functions, key)


def inner_functions(functions: Iterable[str], key: str) -> list[str]:
    """A wrapping function's inner functions: its own body runs once (at import, or where it
    wraps), they run per call."""
    prefix = f"{key}.<locals>."
    return [name for name in functions if name.startswith(prefix)]


def _call_wrappers(
    resolver: _Resolver, calls: Iterable[tuple[cst.BaseExpression, str | None, str | None]]
) -> tuple[list[str], list[str]]:
    """(inner functions of this module's wrapping functions, qualified imported wrappers)."""
    inner: list[str] = []
    imported: list[str] = []
    for callee, context_key, context_class in calls:
        for key in resolver.function_references(callee, context_key, context_class):
            inner.extend(name for name in inner_functions(resolver.facts.functions, key) if name not in inner)
        qualified = resolver.imports.qualified_name(callee)
        if _is_project_name(qualified) and qualified not in imported:
            imported.append(qualified)
    return inner, imported


def _reachable(resolver: _Resolver, roots: Sequence[str], *, through_return: bool) -> list[str]:
    functions = resolver.facts.functions
    seen: dict[str, None] = {}
    stack = [root for root in roots if root in functions]
    while stack:
        key = stack.pop()
        if key in seen:
            continue
        seen[key] = None
        info = functions[key]
        for callee in _returned_callees(resolver, info) if through_return else info.calls:
            for target in resolver.resolve_callee(callee, key, info.class_key):
                if target not in seen:
                    stack.append(target)
    return list(seen)


def _returned_callees(resolver: _Resolver, info: FunctionInfo) -> list[str]:
    """Callees whose result `info` returns, directly or through a local."""
    found = resolver.returned_callees.get(info.key)
    if found is None:
        found = resolver.returned_callees[info.key] = resolver.find_returned_callees(info)
    return found


def _find_returned_callees(resolver: _Resolver, info: FunctionInfo) -> list[str]:
    # `page = read(path) or {}`: the empty that stands in for a failed read is the caller's data.
    callees = [*info.returned_calls, *_coalesced_callees(resolver, info)]
    aliases, collected = resolver.facts.aliases, resolver.facts.collected
    # `result = generate(...)`; `return result.format_for_mcp()`: a method that renders the whole
    # object hands back what the function that built it put in it.
    rendered = [callee.partition(".")[0] for callee in info.returned_calls if _renders(callee)]
    names = [*info.returned_names, *rendered]
    for name in names:
        # `result = f"Exit: {status}\n"`; `result += f"STDERR: {stderr}"`; `return result`: the
        # text a returned local is built from carries the locals it is built of.
        for built in (*aliases.get((info.key, name), ()), *collected.get((info.key, name), ())):
            if isinstance(built, (cst.FormattedString, cst.BinaryOperation, cst.ConcatenatedString)):
                names.extend(part for part in _carried_values(built)[1] if part not in names)
        for value in aliases.get((info.key, name), ()):
            # `items = results.get("diseases", [])`: the rows of what `results` holds, an empty
            # list when it holds none (a projection that keeps the data); not where the function
            # tests `results` for an error itself (`if "error" in results: ...`).
            read_from = _rows_of(value)
            if read_from is not None and read_from not in names and read_from not in info.error_tested:
                names.append(read_from)
            # `rows = fetch(...)`; `warnings = [Warning(**w) for w in scan(path)]`: the
            # comprehension carries what its iterable holds.
            if isinstance(value, (cst.Call, cst.Await, *_COMPREHENSIONS)):
                callees.extend(_carried_values(value)[0])
            if isinstance(value, _COMPREHENSIONS) and isinstance(value.for_in.iter, cst.Name):
                # `comments = fetcher.get_comments(id)`; `[c.to_dict() for c in comments]`
                for source in aliases.get((info.key, value.for_in.iter.value), ()):
                    if isinstance(source, (cst.Call, cst.Await)):
                        callees.extend(_carried_values(source)[0])
    # A local whose emptiness is the answer: the calls that fill it, directly or through
    # the locals it collects (`found.extend(page_matches)`, `page_matches = search(...)`).
    for name in info.answered_empties:
        sources = [*aliases.get((info.key, name), ()), *collected.get((info.key, name), ())]
        for source in list(sources):
            if isinstance(source, cst.Name):
                sources.extend(aliases.get((info.key, source.value), ()))
        for value in sources:
            if isinstance(value, (cst.Call, cst.Await)):
                callees.extend(_carried_values(value)[0])
    return callees


def _rows_of(value: cst.BaseExpression) -> str | None:
    """`results.get("rows", [])` / `results.get("items", {})`: the local whose rows it reads."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "get"):
        return None
    if len(value.args) != 2 or not isinstance(value.func.value, cst.Name):
        return None
    default = value.args[1].value
    empty = isinstance(default, (cst.List, cst.Dict)) and not default.elements
    return value.func.value.value if empty and isinstance(value.args[0].value, cst.SimpleString) else None


# `result.model_dump()`, `report.to_markdown()`, `result.format_for_mcp()`, `answer.render()`.
_RENDERING_METHOD = re.compile(r"(?:model_dump(?:_json)?|to_\w+|as_\w+|format(?:_\w+)?|render(?:_\w+)?|dict|json)")


def _renders(callee: str) -> bool:
    """`local.method` where the method renders the object it is called on."""
    local, _, method = callee.partition(".")
    return bool(local) and local.isidentifier() and "." not in method and bool(_RENDERING_METHOD.fullmatch(method))


def module_aliases(aliases: dict[tuple[str | None, str], list[cst.BaseExpression]], summaries: dict[str, T]) -> dict[str, T]:
    """Module-level names bound to summarised functions (`serialize = serialize_fast if FAST
    else serialize_plain`, assigned in both branches): the summary of the first such function
    (a helper's output reaches the client through either)."""
    found: dict[str, T] = {}
    for (scope, name), values in aliases.items():
        if scope is not None or name in summaries or name.endswith("[]"):
            continue
        for value in values:
            target = dotted_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
            if target in summaries:
                found[name] = summaries[target]
                break
    return found
