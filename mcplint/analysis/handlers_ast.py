"""Handler detection and handler scope read from CPython's `ast` (the port's twin of
``handlers.py``): the raw facts (``AstHandlerFactsCollector``, the twin of
``HandlerFactsCollector``) and the resolver that reads them (``_AstResolver``, entered by
``resolve_local_scope_ast``; ``handlers.scope_in_project`` takes its local scope on).

``AstHandlerFactsCollector`` fills the tables ``HandlerFactsCollector`` fills, with the same
keys and strings, holding `ast` nodes where the original holds LibCST's. Two of its tables hold
what LibCST wraps and `ast` has no node for:

- ``FunctionInfo.decorators``: each decorator's expression (LibCST's ``Decorator.decorator``,
  all the resolver reads of it);
- ``class_bases``: each positional base's expression, a starred one's value (LibCST's
  ``Arg.value``, all the resolver reads of it; keywords such as ``metaclass=`` are not bases
  there either).

``_AstResolver`` is ``handlers._Resolver`` with the steps that read those nodes, and the
methods that read nodes throughout, reading `ast`'s; the rest of the resolution (the reach,
the tables for the run's join) is the original's, unchanged.

Where the trees differ in shape, the answers follow LibCST's:

- ``True``, ``False`` and ``None`` are names there: ``imports_ast.name_text`` and ``dotted_name`` give
  them as names (``f(None)`` calls ``None`` as the original lists it).
- A string literal is one token there (``SimpleString``) or a concatenation of several, and
  a statement after a colon is a suite, not a block: `ast` tells neither, so the collector
  reads them in the module's text (``SourceText``), as ``ast_cst`` built the original's tree;
  the resolver reads the mark ``source_text.mark_concatenated_strings`` leaves on the tree.
- A call's arguments are in written order there, keywords and starred ones among them
  (``_arguments``); a subscript's indexes are a list (``_subscript_elements``).
- An attribute's name, a keyword argument's and a parameter's are ``Name`` nodes there: a walk
  over an expression's nodes meets them as names (``_callees_flowing_to_return``).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TypeGuard, TypeVar

from mcplint.analysis.catching import Guards, encode
from mcplint.analysis.catching_ast import translator_called
from mcplint.analysis.empty_values_ast import emptiness_tested, is_empty_value
from mcplint.analysis.error_payloads_ast import (
    answer_checked,
    call_argument,
    is_error_text,
    is_failure_answer,
    string_value,
)
from mcplint.analysis.handlers import (
    _COLLECTORS,
    _MESSAGE_NAME,
    _NOT_PASSING,
    _RUNNERS,
    _SENDS,
    CONTAINER_ADDERS,
    HIGH_LEVEL_ADDERS,
    HIGH_LEVEL_DECORATORS,
    LOW_LEVEL_2,
    LOW_LEVEL_KEYWORDS,
    REGISTRY_FUNCTION_KEYS,
    REQUEST_METHODS,
    SERVER_CLASS_FACTORIES,
    SERVER_CLASSES,
    SERVER_DISPATCH_METHODS,
    TOOL_FACTORIES,
    UNTYPED_SERVER,
    FunctionInfo,
    LocalScope,
    ServerBinding,
    _call_externals,
    _is_project_name,
    _nearest_class,
    _Registration,
    _renders,
    _Resolver,
    local_scope,
)
from mcplint.analysis.imports_ast import AstImportTable, dotted_name, name_text
from mcplint.analysis.leads_to import leads_to
from mcplint.analysis.project import HELD, NO_PROJECT, ProjectContext
from mcplint.analysis.scopes import Frames, enclosing_function_keys
from mcplint.analysis.source_text import SourceText, is_one_token
from mcplint.analysis.walk_ast import argument_value, argument_values, children, own_nodes, written_arguments

T = TypeVar("T")


# -- LibCST's view of `ast`'s nodes ---------------------------------------------------------
def _is_string_token(node: ast.AST, source: SourceText) -> bool:
    """LibCST's ``SimpleString``: a text or bytes literal of one token."""
    return type(node) is ast.Constant and type(node.value) in (str, bytes) and source.one_token(node)


def _argument_count(call: ast.Call) -> int:
    return len(call.args) + len(call.keywords)


def _keyword_of(argument: ast.expr | ast.keyword) -> str | None:
    """LibCST's ``Arg.keyword`` (None for `*x` and `**x`)."""
    return argument.arg if type(argument) is ast.keyword else None


def _is_starred(argument: ast.expr | ast.keyword) -> bool:
    """LibCST's ``Arg.star`` set: `*x` or `**x`."""
    return type(argument) is ast.Starred or (type(argument) is ast.keyword and argument.arg is None)


def _subscript_elements(node: ast.Subscript, source: SourceText) -> list[ast.expr]:
    """LibCST's ``Subscript.slice``: one element per index of `x[a, b]` (an ``ast.Slice`` for
    a slice, a starred index's value), the index itself for `x[a]` and `x[(a, b)]`."""
    index = node.slice
    if type(index) is ast.Tuple and index.elts and not source.parenthesized(index):
        return [element.value if type(element) is ast.Starred else element for element in index.elts]
    return [index]


def _block_own_nodes(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """``own_nodes`` of a LibCST block, in its order: the last statement's nodes first (the
    block's, itself no `ast` node, listed last child first)."""
    for statement in reversed(statements):
        if type(statement) not in _DEFINITIONS:
            yield from own_nodes(statement)


_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
# Statements that are no small statement of LibCST's (one on a line of its own).
_COMPOUND = frozenset(
    {
        ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, *((ast.TryStar,) if sys.version_info >= (3, 11) else ()),
        ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match,
    }
)  # fmt: skip


# -- the collector ----------------------------------------------------------------------------
class AstHandlerFactsCollector:
    """Collects, during the `ast` walk, the raw facts handler detection needs
    (``HandlerFactsCollector``'s tables). ``text`` is the module's (``SourceText``)."""

    def __init__(
        self,
        scopes: Frames,
        guards_of: Callable[[ast.AST], Guards] | None = None,
        translators: Mapping[str, object] | None = None,
        *,
        text: str,
    ) -> None:
        self._scopes = scopes
        self._guards_of = guards_of
        self.source = SourceText.of(text)
        self._open_trys = 0
        self._translators = translators if translators is not None else {}
        self._translating_withs: list[bool] = []
        self.super_registration_wrappers: dict[str, list[ast.expr]] = {}
        self.super_dispatch_guards: dict[str, list[str]] = {}
        self._projected: set[int] = set()
        self.functions: dict[str, FunctionInfo] = {}  # their nodes are `ast`'s, their types say LibCST's
        self.contents: dict[tuple[str | None, str], list[ast.expr]] = {}
        self.message_branches: list[tuple[str, str | None, str, list[str]]] = []
        # Per class: its positional bases' expressions (LibCST's `Arg.value`: a starred base's value).
        self.class_bases: dict[str, list[ast.expr]] = {}
        self.bindings: list[tuple[str | None, str, ast.expr, bool]] = []
        self.registrations: list[_Registration] = []  # their calls are `ast.Call`s
        # ``_AstResolver._calls_with_arguments``'s, listed once per walk: the facts alone decide it,
        # and every round that resolves the module again (a new resolver) asks for it.
        self.calls_with_arguments: list[tuple[_Registration, str, list[ast.expr | ast.keyword]]] | None = None
        self.module_calls: list[str] = []
        self.aliases: dict[tuple[str | None, str], list[ast.expr]] = {}
        self.attribute_parameters: list[tuple[str | None, str, str, str]] = []
        self.parameter_stores: set[str] = set()
        self.loop_sources: dict[tuple[str | None, str], list[str]] = {}
        self.parameter_containers: dict[str, str] = {}
        self.returned_tables: dict[str, list[str]] = {}
        self.returned_dicts: dict[str, list[ast.expr]] = {}
        self.collected: dict[tuple[str | None, str], list[ast.expr]] = {}
        self.registry_tables: dict[str, list[ast.expr]] = {}
        self.looked_up: set[tuple[str | None, str]] = set()
        self.table_lookups: dict[tuple[str | None, str], list[str]] = {}

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        key = self._scopes.qualname_for(node.name)
        class_key = _nearest_class(self._scopes)
        info = self.functions.get(key)
        # FunctionInfo's fields say LibCST's nodes: the twin's are `ast`'s (the decorators, their
        # expressions: LibCST's `Decorator.decorator`).
        if info is None:
            info = self.functions[key] = FunctionInfo(key, tuple(node.decorator_list), class_key)  # type: ignore[arg-type]
        else:  # a redefinition: keep both definitions' decorators
            info.decorators = (*info.decorators, *node.decorator_list)  # type: ignore[arg-type]
        if node.returns is not None:
            info.returns = node.returns  # type: ignore[assignment]
        arguments = node.args
        for param in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            info.parameters[param.arg] = param.annotation  # type: ignore[assignment]

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.class_bases[self._scopes.qualname_for(node.name)] = [
            base.value if type(base) is ast.Starred else base for base in node.bases
        ]

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._assigned(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        name = dotted_name(node.target)
        if name is None:
            return
        if node.value is not None:
            self._assigned(node.target, node.value)
        frames = self._scopes.frames
        if frames and frames[-1].kind == "class":
            self.bindings.append((frames[-1].qualname, f"self.{name}", node.annotation, True))
        else:
            self.bindings.append((*self._binding_scope(name), node.annotation, True))

    def _binding_scope(self, target: str) -> tuple[str | None, str]:
        if target.startswith("self."):
            return _nearest_class(self._scopes), target
        return self._scopes.current_function, target

    def _assigned(self, target: ast.expr, value: ast.expr) -> None:
        function = self._scopes.current_function
        if type(target) is ast.Tuple and (type(value) is ast.Call or type(value) is ast.Await):
            # `ok, message = check(path)`: each name carries part of what the call returns.
            call = value.value if type(value) is ast.Await else value
            for element in target.elts:
                element_name = name_text(argument_value(element))  # `*rest`: LibCST's element holds the name
                if element_name is not None and type(call) is ast.Call:
                    self.aliases.setdefault((function, element_name), []).append(call)
            return
        if type(target) is ast.Subscript:
            self._stores_first_parameter([value], dotted_name(_table_of(target)))
            held = name_text(target.value)
            if held is not None:  # `payload["mata"] = await session.call(...)`
                self.contents.setdefault((function, held), []).append(value)
        elif type(target) is ast.Name and type(value) is ast.Dict:
            self.contents.setdefault((function, target.id), []).append(value)
        elif type(target) is ast.Attribute and name_text(target.value) is not None:
            self._stores_first_parameter([target.value])  # `function.__tool__ = ...`
        name = dotted_name(target)
        if name is None:
            return
        if type(value) is ast.Await:
            value = value.value
        if type(target) is ast.Name and (
            type(value) is ast.Subscript
            or (type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr == "get")
        ):
            self.looked_up.add((function, name))
            container = dotted_name(_table_of(value) if type(value) is ast.Subscript else value.func.value)  # type: ignore[union-attr]
            if container is not None:
                self.table_lookups.setdefault((function, name), []).append(container)
        if type(value) is ast.Call:
            self.bindings.append((*self._binding_scope(name), value.func, False))
        value_name = name_text(value)
        if name.startswith("self.") and value_name is not None and function in self.functions:
            if value_name in self.functions[function].parameters:
                self.attribute_parameters.append((_nearest_class(self._scopes), name, value_name, function))
        elif name.startswith("self.") and type(value) is ast.Attribute and function in self.functions:
            holder = name_text(value.value)
            if holder is not None and holder in self.functions[function].parameters:
                # `self.mcp = server.mcp`: what the object the parameter holds keeps there
                held = f"{holder}{HELD}{value.attr}"
                self.attribute_parameters.append((_nearest_class(self._scopes), name, held, function))
        if type(target) is not ast.Name:
            return
        if (
            value_name is not None
            or type(value) in _ALIASED
            or (type(value) is ast.JoinedStr and self.source.one_token(value))  # LibCST's `FormattedString`
        ):
            self.aliases.setdefault((function, name), []).append(value)
        if type(value) in _TABLES and function is None:
            # `TOOLS = {"ListIndexTool": {"function": list_indices, ...}}`, `[FunctionTool(f), ...]`
            tools = list(_table_functions(value, self.source))
            if tools:
                self.registry_tables.setdefault(name, []).extend(tools)
        if type(value) is ast.Dict:
            # `HANDLERS = {"x": handle_x}`: `HANDLERS[name](...)` may call any value.
            self.aliases.setdefault((function, f"{name}[]"), []).extend(_table_values(value))
        elif type(value) is ast.DictComp:
            self.aliases.setdefault((function, f"{name}[]"), []).append(value)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        target, iterated = node.target, node.iter
        if type(target) is not ast.Name:
            return
        key = (self._scopes.current_function, target.id)
        if type(iterated) is ast.List or type(iterated) is ast.Tuple or type(iterated) is ast.Set:
            # `for fn in (a, b): X.add_tool(fn)`: the loop variable stands for each element.
            self.aliases.setdefault(key, []).extend(argument_value(element) for element in iterated.elts)
        else:
            source = dotted_name(iterated)
            if source is not None:  # `for tool in read_tools:`: an element of that list
                self.loop_sources.setdefault(key, []).append(source)

    visit_AsyncFor = visit_For

    def visit_Return(self, node: ast.Return) -> None:
        info = self.functions.get(self._scopes.current_function or "")
        if info is None or node.value is None:
            return
        item = node.value
        if type(item) is ast.Dict or type(item) is ast.DictComp:
            self.returned_dicts.setdefault(info.key, []).append(item)
        # `return TOOLS[name]`, `return TOOLS.get(name)`: an item of a registry
        table = None
        if type(item) is ast.Subscript:
            table = dotted_name(_table_of(item))
        elif type(item) is ast.Call and type(item.func) is ast.Attribute and item.func.attr == "get":
            table = dotted_name(item.func.value)
        if table is not None:
            self.returned_tables.setdefault(info.key, []).append(table)
        info.returned_values.append(item)  # type: ignore[arg-type]  # `ast`'s node (FunctionInfo says LibCST's)
        callees, names = _carried_values(item)
        info.returned_calls.extend(callees)
        info.returned_names.extend(names)
        if type(item) is ast.Call and (dotted_name(item.func) or "").rpartition(".")[2][:1].isupper():
            # `return ToolDefinition(fn=fn, ...)`: a definition built around the decorated function.
            self._stores_first_parameter([value for value in argument_values(item) if name_text(value) is not None])

    def _stores_first_parameter(self, values: Iterable[ast.expr], container: str | None = None) -> None:
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

    def _carries_parameter(self, values: Iterable[ast.expr | str], first: str, function: str) -> bool:
        def stands_for(name: str) -> list[ast.expr | str]:
            nested = self.functions.get(f"{function}.<locals>.{name}")
            callees = [callee for callee in nested.calls if "." not in callee] if nested is not None else []
            return [*self.aliases.get((function, name), ()), *callees]

        return leads_to(values, first, _cst_name, _cst_parts, stands_for)

    def visit_If(self, node: ast.If) -> None:
        source = self.source
        info = self.functions.get(self._scopes.current_function or "")
        if info is not None:
            tested = answer_checked(node.test, source)
            info.error_tested.update(tested)
            if tested and _raises(node.body, source):
                info.checked_answers.update(tested)
        name = emptiness_tested(node.test)
        if info is not None and name is not None and _answers(node.body, source):
            info.answered_empties.append(name)
        message = _message_tested(node.test, source)
        if info is not None and message is not None:
            callees = [
                callee
                for inner in _block_own_nodes(node.body)
                if type(inner) is ast.Call
                for callee in [_callee(inner.func)]
                if callee is not None
            ]
            self.message_branches.append((info.key, info.class_key, message, callees))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if type(node.value) is ast.BoolOp:
            self._projected.add(id(node.value))

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if type(node.value) is ast.BoolOp:
            self._projected.add(id(node.value))

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        # LibCST nests `a or b or c` to the left, one operation per `or`: only the innermost,
        # `a or b`, has an operand for its left; it is the whole one (what an item is read
        # of) when it is the only one.
        info = self.functions.get(self._scopes.current_function or "")
        if info is None or type(node.op) is not ast.Or or not _is_empty_literal(node.values[1], self.source):
            return
        if len(node.values) == 2 and id(node) in self._projected:
            return  # only an item of it is read, and its absence may well be checked
        left = node.values[0]
        if type(left) is ast.Await:
            left = left.value
        if type(left) is ast.Call:
            callee = _callee(left.func)
            if callee is not None:
                info.coalesced_calls.append(callee)
        else:
            name = name_text(left)
            if name is not None:
                info.coalesced_names.append(name)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if type(node.target) is ast.Name and type(node.op) is ast.Add:
            self.collected.setdefault((self._scopes.current_function, node.target.id), []).append(node.value)

    def visit_Try(self, node: ast.Try) -> None:
        self._open_trys += 1

    def leave_Try(self, node: ast.Try) -> None:
        self._open_trys -= 1

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        translating = bool(self._translators) and any(
            translator_called(item.context_expr, self._translators) is not None for item in node.items
        )
        self._translating_withs.append(translating)
        self._open_trys += translating

    def leave_With(self, node: ast.With | ast.AsyncWith) -> None:
        self._open_trys -= self._translating_withs.pop()

    visit_AsyncWith = visit_With
    leave_AsyncWith = leave_With

    def visit_Call(self, node: ast.Call) -> None:
        function = self._scopes.current_function
        func = node.func
        values = argument_values(node)
        if function is not None and _is_super_registration(node):
            self.super_registration_wrappers.setdefault(function, []).extend(
                value.func for value in values if type(value) is ast.Call
            )
        if function is not None and _is_super_call(node, SERVER_DISPATCH_METHODS):
            guards = self._guards_of(node) if self._open_trys and self._guards_of is not None else ()
            self.super_dispatch_guards.setdefault(function, []).append(encode(guards) if guards else "")
        if type(func) is ast.Attribute and func.attr in CONTAINER_ADDERS:
            self._stores_first_parameter(iter(values), dotted_name(func.value))
            receiver = name_text(func.value)
            if receiver is not None and func.attr in _COLLECTORS and values:
                self.collected.setdefault((function, receiver), []).append(values[0])
        elif type(func) is ast.Name and func.id == "setattr" and values:
            self._stores_first_parameter([values[0]])
        references = [_callee(func)] + [_callee(value) for value in values]
        message = _message_sent(node, self.source)
        if message is not None and references[0] is not None and function in self.functions:
            self.functions[function].message_calls.append((references[0], message))
        calls = self.functions[function].calls if function in self.functions else self.module_calls
        calls.extend(ref for ref in references if ref is not None)
        if self._open_trys and self._guards_of is not None and function in self.functions:
            guards = self._guards_of(node)
            if guards:
                encoded = encode(guards)
                for callee in dict.fromkeys(references):
                    if callee is not None:
                        self.functions[function].call_guards.setdefault(callee, []).append(encoded)
        # `_Registration.call` says LibCST's node: the twin's is `ast`'s.
        self.registrations.append(_Registration(node, function, _nearest_class(self._scopes)))  # type: ignore[arg-type]


_SEQUENCES = frozenset({ast.List, ast.Tuple, ast.Set})
# What a local assigned one of these may stand for (besides a name and a lone f-string).
_ALIASED = frozenset({ast.Name, ast.Attribute, ast.Call, *_SEQUENCES, ast.ListComp, ast.SetComp, ast.GeneratorExp})
_TABLES = frozenset({ast.Dict, ast.Call, *_SEQUENCES})


# -- the helpers that read nodes ------------------------------------------------------------
def _cst_name(value: ast.expr | str) -> str | None:
    """A name as LibCST's tree gives it (``handlers._cst_name``)."""
    return value if isinstance(value, str) else name_text(value)


def _cst_parts(value: ast.expr) -> list[ast.expr]:
    """A container's elements (a dict's values), a call's arguments (``handlers._cst_parts``)."""
    if type(value) is ast.Dict:
        return [item for key, item in zip(value.keys, value.values, strict=True) if key is not None]
    if type(value) is ast.Tuple or type(value) is ast.List:
        return [element for element in value.elts if type(element) is not ast.Starred]
    if type(value) is ast.Call:
        return argument_values(value)
    return []


def _is_super_registration(call: ast.Call) -> bool:
    """`super().tool(...)`, `super(AppMCP, self).tool(...)`."""
    return _is_super_call(call, HIGH_LEVEL_DECORATORS)


def _is_super_call(call: ast.Call, methods: Collection[str]) -> bool:
    func = call.func
    return (
        type(func) is ast.Attribute
        and func.attr in methods
        and type(func.value) is ast.Call
        and type(func.value.func) is ast.Name
        and func.value.func.id == "super"
    )


def _table_functions(table: ast.expr, source: SourceText) -> Iterator[ast.expr]:
    """``handlers._table_functions``."""
    if type(table) is ast.Call:
        wrapped = _tool_wrapped(table)
        if wrapped is not None:
            yield wrapped
        return
    if type(table) is ast.List or type(table) is ast.Tuple or type(table) is ast.Set:
        for item in table.elts:
            value = argument_value(item)
            wrapped = _tool_wrapped(value) if type(value) is ast.Call else None
            if wrapped is not None:
                yield wrapped
        return
    if type(table) is not ast.Dict:
        return
    for key, value in zip(table.keys, table.values, strict=True):
        if key is not None and type(value) is ast.Dict:
            for entry_key, entry in zip(value.keys, value.values, strict=True):
                if (
                    entry_key is not None
                    and type(entry_key) is ast.Constant
                    and entry_key.value in REGISTRY_FUNCTION_KEYS  # evaluated: bytes are in no key set
                    and source.one_token(entry_key)
                    and (type(entry) is ast.Attribute or name_text(entry) is not None)
                ):
                    yield entry


def _tool_wrapped(call: ast.Call) -> ast.expr | None:
    """The function `FunctionTool(f)` (a class named `...Tool`) wraps."""
    name = (dotted_name(call.func) or "").rpartition(".")[2]
    # A starred first argument, or a keyword before it, is no function it wraps.
    if not (name.endswith("Tool") and name[:1].isupper() and call.args and type(call.args[0]) is not ast.Starred):
        return None
    first = call.args[0]
    return first if type(first) is ast.Attribute or name_text(first) is not None else None


def _table_values(table: ast.Dict) -> Iterator[ast.expr]:
    """A dispatch table's values, nested tables included (`OPS[op]["handler"](...)`)."""
    for key, value in zip(table.keys, table.values, strict=True):
        if key is not None:
            if type(value) is ast.Dict:
                yield from _table_values(value)
            else:
                yield value


# Expressions that return something derived from a value, not the value itself.
_PROJECTION_TYPES = frozenset({ast.Subscript, ast.Attribute, ast.Compare, ast.UnaryOp, ast.Lambda})


def _answers(body: Sequence[ast.stmt], source: SourceText) -> bool:
    """``handlers._answers`` of a block: the statement LibCST's reads is the first after the
    colon, the last of a block of small statements, else the first."""
    if source.after_colon(body) or any(type(statement) in _COMPOUND for statement in body):
        first = body[0]
    else:
        first = body[-1]
    if type(first) is not ast.Return or first.value is None:
        return False
    value = first.value
    if type(value) is ast.Tuple:  # `return False, "No header found and creation failed"`
        parts = [argument_value(element) for element in value.elts]
        if any(name_text(part) == "False" or is_error_text(part, source) for part in parts):
            return False
    return not (is_empty_value(value) or is_failure_answer(value, source))


def _raises(body: Sequence[ast.stmt], source: SourceText) -> bool:
    """The block raises as one of its own statements (LibCST's lines of a block, not the
    statements after a colon)."""
    return not source.after_colon(body) and any(type(statement) is ast.Raise for statement in body)


def _marks_errors(value: ast.expr) -> bool:
    """`CallToolResult(content=..., isError=is_error)`: a result whose error flag is computed."""
    if type(value) is not ast.Call or (dotted_name(value.func) or "").rpartition(".")[2] != "CallToolResult":
        return False
    flag = next((keyword.value for keyword in value.keywords if keyword.arg == "isError"), None)
    return flag is not None and name_text(flag) not in ("False", "None", "True")


def _partial_of(value: ast.expr) -> str | None:
    """`partial(generic_tool, name_enum=ToolName)`: the function it binds."""
    if type(value) is not ast.Call or not _argument_count(value):
        return None
    first = name_text(argument_value(written_arguments(value)[0]))
    if first is None or (dotted_name(value.func) or "").rpartition(".")[2] != "partial":
        return None
    return first


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _carried_values(value: ast.expr) -> tuple[list[str], list[str]]:
    """``handlers._carried_values``: the callees and locals whose value an expression carries on."""
    callees: list[str] = []
    names: list[str] = []
    pending: list[ast.AST] = [value]
    while pending:
        expression = pending.pop()
        if type(expression) is ast.Await:
            pending.append(expression.value)
        elif type(expression) is ast.Call:
            callee = _callee(expression.func)
            if callee is not None:
                callees.append(callee)
            for argument in argument_values(expression):
                if type(argument) is ast.Subscript:  # a table's function handed to a runner
                    table_callee = _callee(argument)
                    if table_callee is not None:
                        callees.append(table_callee)
                elif type(argument) is ast.Lambda:
                    # `safe_operation(lambda: tool.execute(...))`: what it runs, it may hand back
                    pending.append(argument.body)
                else:
                    name = name_text(argument)
                    if name is not None:  # `run_sync(_sync_list)`: a function handed to a runner
                        callees.append(name)
                    elif (
                        type(argument) is ast.Attribute and callee is not None and callee.rpartition(".")[2] in _RUNNERS
                    ):
                        # `asyncio.to_thread(searcher.search, query)`: a bound method it runs
                        method = _callee(argument)
                        if method is not None:
                            callees.append(method)
                    pending.append(argument)
        elif type(expression) is ast.Name:
            names.append(expression.id)
        elif type(expression) is ast.Constant:
            name = name_text(expression)  # `None`, `True`, `False`: names to LibCST
            if name is not None:
                names.append(name)
        elif type(expression) is ast.IfExp:
            pending.extend((expression.body, expression.orelse))
        elif type(expression) is ast.Subscript and _all_slices(expression):
            pending.append(expression.value)  # `fields[:limit]` is a part of the list, not an item of it
        elif type(expression) not in _PROJECTION_TYPES:
            # In LibCST's walk order: the same names and callees come out in the same order.
            pending.extend(children(expression))
    return callees, names


def _all_slices(node: ast.Subscript) -> bool:
    """Every index of `x[a:b]`, `x[a:b, c:d]` is a slice (a tuple of slices has no parentheses)."""
    index = node.slice
    if type(index) is ast.Slice:
        return True
    return type(index) is ast.Tuple and bool(index.elts) and all(type(element) is ast.Slice for element in index.elts)


def _message_name(literal: ast.Constant, source: SourceText) -> str | None:
    """The literal's text when it can name a message."""
    text = string_value(literal, source)
    return text if text is not None and _MESSAGE_NAME.fullmatch(text) else None


def _message_sent(call: ast.Call, source: SourceText) -> str | None:
    func = call.func
    if type(func) is not ast.Attribute or not _SENDS.fullmatch(func.attr) or not _argument_count(call):
        return None
    # The first argument written: a keyword or a starred one sends no name.
    if not call.args or type(call.args[0]) is ast.Starred:
        return None
    first = call.args[0]
    if type(first) is not ast.Constant or not _is_string_token(first, source):
        return None
    return _message_name(first, source)


def _message_tested(test: ast.expr, source: SourceText) -> str | None:
    """The message a dispatcher's branch answers: `msg_type == "get_results"`."""
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) is not ast.Eq:
        return None
    sides = (test.left, test.comparators[0])
    literal = next((side for side in sides if _is_string_token(side, source)), None)
    other = next((side for side in sides if not _is_string_token(side, source)), None)
    if type(literal) is not ast.Constant or other is None or dotted_name(other) is None:
        return None
    return _message_name(literal, source)


def _is_empty_literal(expression: ast.expr, source: SourceText) -> bool:
    """`{}`, `[]`, `""`, `0`, `dict()`: an empty value written out (not `None`, which is no value)."""
    if name_text(expression) is not None:
        return False
    return is_empty_value(expression)


def _callee(expression: ast.expr) -> str | None:
    """A callee's dotted name; `TABLE[]` / `TABLE[].run` for a dispatch through a dict."""
    if type(expression) is ast.Await:
        expression = expression.value
    if type(expression) is ast.Attribute and type(expression.value) is ast.Subscript:
        table = dotted_name(_table_of(expression.value))
        return f"{table}[].{expression.attr}" if table else None
    if type(expression) is ast.Subscript:
        table = dotted_name(_table_of(expression))
        return f"{table}[]" if table else None
    if type(expression) is ast.Attribute:
        # `get_client().post()`: a method of what the getter returns; `get_state().client.post()`:
        # of an attribute of it.
        attributes, value = [expression.attr], expression.value
        while type(value) is ast.Attribute:
            attributes.append(value.attr)
            value = value.value
        if type(value) is ast.Call:
            getter = dotted_name(value.func)
            return f"{getter}().{'.'.join(reversed(attributes))}" if getter else None
    return dotted_name(expression)


def _table_of(subscript: ast.Subscript) -> ast.expr:
    """`OPS` in `OPS[op]["handler"]`."""
    value: ast.expr = subscript
    while type(value) is ast.Subscript:
        value = value.value
    return value


def _annotation_types(annotation: ast.expr, source: SourceText) -> Iterator[ast.expr]:
    """The types an annotation names: `X`, `"X"`, `X | None`, `Optional[X]`."""
    if type(annotation) is ast.BinOp:
        yield from _annotation_types(annotation.left, source)
        yield from _annotation_types(annotation.right, source)
    elif type(annotation) is ast.Subscript:
        for element in _subscript_elements(annotation, source):
            if type(element) is not ast.Slice:
                yield from _annotation_types(element, source)
    else:
        yield annotation


def _rows_of(value: ast.expr, source: SourceText) -> str | None:
    """`results.get("rows", [])` / `results.get("items", {})`: the local whose rows it reads."""
    if not (type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr == "get"):
        return None
    holder = name_text(value.func.value)
    if _argument_count(value) != 2 or holder is None:
        return None
    key, default = argument_values(value)
    empty = (type(default) is ast.List and not default.elts) or (type(default) is ast.Dict and not default.keys)
    return holder if empty and _is_string_token(key, source) else None


def module_aliases(aliases: dict[tuple[str | None, str], list[ast.expr]], summaries: dict[str, T]) -> dict[str, T]:
    """``handlers.module_aliases``: module-level names bound to summarised functions."""
    found: dict[str, T] = {}
    for (scope, name), values in aliases.items():
        if scope is not None or name in summaries or name.endswith("[]"):
            continue
        for value in values:
            target = dotted_name(value) if type(value) is ast.Attribute or name_text(value) is not None else None
            if target in summaries:
                found[name] = summaries[target]
                break
    return found


# -- the resolver -----------------------------------------------------------------------------
def _first_positional(call: ast.Call) -> ast.expr | None:
    """LibCST's first argument that is neither a keyword nor starred (`ast` lists the positional
    ones first: none is written after a keyword)."""
    return next((argument for argument in call.args if type(argument) is not ast.Starred), None)


class _AstResolver(_Resolver):
    """``_Resolver`` over ``AstHandlerFactsCollector``'s facts, with an ``AstImportTable``: the
    methods that read a node the facts hold read `ast`'s, as the original reads LibCST's (its
    steps that read nodes, ``_dotted`` and the like, and the methods that read little else)."""

    # The tables the original's say hold LibCST's nodes hold `ast`'s.
    facts: AstHandlerFactsCollector  # type: ignore[assignment]
    _bindings_at: dict[tuple[str | None, str], list[tuple[ast.expr, bool]]]  # type: ignore[assignment]

    def __init__(
        self,
        facts: AstHandlerFactsCollector,
        imports: AstImportTable,
        handler_decorators: Sequence[str],
        handler_functions: Sequence[str],
        project: ProjectContext,
    ) -> None:
        self.source = facts.source  # read while the constructor binds the servers
        super().__init__(facts, imports, handler_decorators, handler_functions, project)  # type: ignore[arg-type]

    # -- the facts' nodes: the original's steps ------------------------------------------------
    _dotted = staticmethod(dotted_name)  # type: ignore[assignment]
    _call_argument = staticmethod(call_argument)  # type: ignore[assignment]
    _partial_of = staticmethod(_partial_of)  # type: ignore[assignment]

    @staticmethod
    def decorator_expression(decorator: ast.expr) -> ast.expr:  # type: ignore[override]
        return decorator  # the facts keep a decorator's expression

    @staticmethod
    def _called(value: ast.expr) -> ast.expr | None:  # type: ignore[override]
        return value.func if type(value) is ast.Call else None

    @staticmethod
    def _named(expression: ast.expr) -> ast.expr:  # type: ignore[override]
        return expression.func if type(expression) is ast.Call else expression

    @staticmethod
    def _attribute(target: ast.Attribute) -> str:  # type: ignore[override]
        return target.attr

    @staticmethod
    def _is_call(value: ast.expr) -> TypeGuard[ast.Call]:  # type: ignore[override]
        return type(value) is ast.Call

    def _annotation_types(self, annotation: ast.expr) -> Iterable[ast.expr]:  # type: ignore[override]
        return _annotation_types(annotation, self.source)

    @staticmethod
    def _base_value(base: ast.expr) -> ast.expr:  # type: ignore[override]
        return base  # the facts keep a base's expression

    @staticmethod
    def _base_name(base: ast.expr) -> str | None:  # type: ignore[override]
        return dotted_name(base.value if type(base) is ast.Subscript else base)

    @staticmethod
    def _elements(value: ast.expr) -> list[ast.expr]:  # type: ignore[override]
        """LibCST's ``elements`` of a list, tuple, set or dict: their values."""
        if type(value) is ast.List or type(value) is ast.Tuple or type(value) is ast.Set:
            return [argument_value(element) for element in value.elts]
        if type(value) is ast.Dict:
            return list(value.values)  # `**x`'s too (its key is None)
        return []

    @staticmethod
    def _unwrapped(expression: ast.expr) -> tuple[list[ast.expr], ast.expr]:  # type: ignore[override]
        wrapping: list[ast.expr] = []
        # LibCST's first argument as written, unless a keyword one (`*x` and `**x` are not)
        while type(expression) is ast.Call and (expression.args or expression.keywords):
            first = written_arguments(expression)[0]
            if _keyword_of(first) is not None:
                break
            wrapping.append(expression.func)
            expression = argument_value(first)
        return wrapping, expression

    @staticmethod
    def _names_no_function(expression: ast.expr) -> bool:  # type: ignore[override]
        return type(expression) is ast.Lambda or is_one_token(expression)  # LibCST's `SimpleString`

    @staticmethod
    def _is_reference(value: ast.expr) -> bool:  # type: ignore[override]
        return type(value) is ast.Attribute or name_text(value) is not None

    @staticmethod
    def _is_attribute(value: ast.expr) -> TypeGuard[ast.Attribute]:  # type: ignore[override]
        return type(value) is ast.Attribute

    @staticmethod
    def _name_expression(name: str) -> ast.expr:  # type: ignore[override]
        return ast.parse(name, mode="eval").body

    def callees_flowing_to_return(self, info: FunctionInfo) -> set[str]:
        return _callees_flowing_to_return(self, info)

    def coalesced_callees(self, info: FunctionInfo, *, answered: bool = False) -> list[str]:
        return _coalesced_callees(self, info, answered=answered)

    def find_returned_callees(self, info: FunctionInfo) -> list[str]:
        return _find_returned_callees(self, info)

    # -- the methods that read nodes throughout --------------------------------------------------
    def server_class(self, expression: ast.expr) -> ServerBinding | None:  # type: ignore[override]
        if type(expression) is ast.Subscript:  # `FastMCP[State]`: a generic server class
            expression = expression.value
        dotted = dotted_name(expression)
        if dotted is None:
            if type(expression) is ast.Constant and type(expression.value) is str and is_one_token(expression):
                dotted = expression.value.strip()
            else:
                return None
        if dotted in self.server_subclasses:
            return self.server_subclasses[dotted]
        qualified = self.imports.qualify(dotted)
        if qualified in SERVER_CLASSES:
            return ServerBinding.read(*SERVER_CLASSES[qualified])
        return self.imported_server_classes.get(qualified or "")

    def _server_value(self, expression: ast.expr) -> ServerBinding | None:  # type: ignore[override]
        if type(expression) is ast.Attribute and expression.attr in SERVER_CLASS_FACTORIES:
            expression = expression.value  # `FastMCP.from_openapi(spec, client)`: a server of that class
        binding = self.server_class(expression)
        if binding is None:
            dotted = dotted_name(expression) or ""
            binding = self.factory_binding(dotted) if dotted in self.facts.functions else None
            if binding is None:
                binding = self.imported_server_factories.get(self.imports.qualify(dotted) or "")
        return binding

    def factory_binding(self, key: str, depth: int = 0) -> ServerBinding | None:
        factory = self.facts.functions.get(key)
        if factory is None or depth > 3:
            return None
        if factory.returns is not None:
            returns: ast.expr = factory.returns  # type: ignore[assignment]  # `ast`'s
            return next(filter(None, map(self.server_class, _annotation_types(returns, self.source))), None)
        returned: list[ast.expr] = factory.returned_values  # type: ignore[assignment]  # `ast`'s
        for value in returned:
            if type(value) is ast.Call:  # `return FastMCP(name=..., instructions=...)`
                callee = value.func
                if type(callee) is ast.Attribute and callee.attr in SERVER_CLASS_FACTORIES:
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

    def _calls_with_arguments(self) -> list[tuple[_Registration, str, list[ast.expr | ast.keyword]]]:
        """(registration, callee, arguments as written) of the module's calls of a named callee
        that pass something: what the servers and classes passed are looked for in (each asked
        of every call, the servers and the classes, for this module and for the join)."""
        found = self.facts.calls_with_arguments
        if found is None:
            found = self.facts.calls_with_arguments = []
            for registration in self.facts.registrations:
                call: ast.Call = registration.call  # type: ignore[assignment]  # `ast`'s
                if call.args or call.keywords:
                    callee = dotted_name(call.func)
                    if callee is not None:
                        found.append((registration, callee, written_arguments(call)))
        return found

    def _passed_servers(self, to: Callable[[str], bool] | None = None) -> Iterator[tuple[str, str, ServerBinding]]:
        for registration, callee, arguments in self._calls_with_arguments():
            if to is not None and not to(callee):
                continue
            for position, argument in enumerate(arguments):
                if _is_starred(argument):
                    break
                keyword = _keyword_of(argument)
                slot = keyword if keyword is not None else str(position)
                value = argument_value(argument)
                binding = self.receiver(value, registration.context_key, registration.context_class)  # type: ignore[arg-type]
                if binding is not None and binding is not UNTYPED_SERVER:
                    yield callee, slot, binding
                elif dotted_name(value) == "self" and registration.context_class is not None:
                    for attribute, held in self._held_servers(registration.context_class):
                        yield callee, f"{slot}{HELD}{attribute}", held

    def _wrapping_calls(  # type: ignore[override]
        self, expression: ast.expr, context_key: str | None, context_class: str | None, depth: int = 0
    ) -> Iterator[tuple[ast.expr, str | None, str | None]]:
        if depth > 4:
            return
        if type(expression) is ast.Call:
            yield expression.func, context_key, context_class
            first = _first_positional(expression)
            if first is not None:
                yield from self._wrapping_calls(first, context_key, context_class, depth + 1)
            return
        name = name_text(expression)
        if name is not None:
            for value in self._alias_values(name, context_key):
                if value is not expression:  # type: ignore[comparison-overlap]  # `ast`'s, the facts' aliases
                    yield from self._wrapping_calls(value, context_key, context_class, depth + 1)  # type: ignore[arg-type]

    def _registered_arguments(self, registration: _Registration) -> Iterator[tuple[ast.expr, str, str]]:  # type: ignore[override]
        call: ast.Call = registration.call  # type: ignore[assignment]  # `ast`'s
        context_key, context_class = registration.context_key, registration.context_class
        positional = [argument for argument in call.args if type(argument) is not ast.Starred]
        if not positional:  # X.add_tool(fn=f)
            positional = [keyword.value for keyword in call.keywords if keyword.arg in ("fn", "func")]
        func = call.func
        # X.tool(...)(fn) and tool(...)(fn)
        if type(func) is ast.Call and positional:
            kind = self.decorator_kind(func, context_key, context_class)  # type: ignore[arg-type]
            if kind is not None:
                low = self.is_low_level_decorator(func, context_key, context_class)  # type: ignore[arg-type]
                yield positional[0], kind, "low" if low else "high"
            return
        qualified = self.imports.qualified_name(func)  # type: ignore[arg-type]
        if qualified in TOOL_FACTORIES and positional:
            yield positional[0], "tool", "high"
            return
        binding = self.server_class(func)
        if binding is not None and binding.level == "low":
            for keyword in call.keywords:
                if keyword.arg is not None and keyword.arg.startswith("on_"):
                    yield keyword.value, LOW_LEVEL_KEYWORDS.get(keyword.arg, "other"), LOW_LEVEL_2
            return
        if type(func) is ast.Name:  # `add = server.add_request_handler; add("tools/call", ...)`
            func = self._bound_method(func.id, context_key) or func  # type: ignore[assignment]
        if type(func) is not ast.Attribute or not positional:
            return
        receiver = self.receiver(func.value, context_key, context_class)  # type: ignore[arg-type]
        if receiver is None:
            return
        method = func.attr
        if receiver.level != "high" and method == "add_request_handler" and len(positional) >= 3:
            request = positional[0]
            if type(request) is ast.Constant and type(request.value) is str and is_one_token(request):
                yield positional[2], REQUEST_METHODS.get(request.value, "other"), LOW_LEVEL_2
        elif receiver.level != "low":
            kind = HIGH_LEVEL_ADDERS.get(method) or HIGH_LEVEL_DECORATORS.get(method)
            if kind is not None:  # X.add_tool(fn), or X.tool(fn) on fastmcp
                yield positional[0], kind, "high"

    def function_references(  # type: ignore[override]
        self, expression: ast.expr, context_key: str | None, context_class: str | None, depth: int = 0
    ) -> Iterator[str]:
        if depth > 4:
            return
        if type(expression) is ast.Call:
            # wraps(fn, ...), partial(fn, ...): the wrapped function is what runs.
            first = _first_positional(expression)
            if first is not None:
                yield from self.function_references(first, context_key, context_class, depth + 1)
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

    def _table_entries(  # type: ignore[override]
        self, table: str, context_key: str | None, context_class: str | None, depth: int = 0
    ) -> Iterator[tuple[ast.expr, str | None, str | None]]:
        if depth > 4 or "." in table:
            return
        scopes = (*enclosing_function_keys(context_key), None)
        for scope in scopes:
            for value in self.facts.aliases.get((scope, f"{table}[]"), ()):
                yield value, context_key, context_class
        for scope in scopes:
            for value in self.facts.aliases.get((scope, table), ()):
                if type(value) is ast.Await:
                    value = value.value
                builder = dotted_name(value.func) if type(value) is ast.Call else None
                found = self.resolve_function(builder, context_key, context_class) if builder else None
                if found is not None:
                    yield from self._returned_entries(found, depth)  # type: ignore[misc]
            info = self.facts.functions.get(scope or "")
            if info is not None and table in info.parameters:
                passed: list[tuple[ast.expr, str | None, str | None]] = self._arguments_for(info.key, table)  # type: ignore[assignment]
                for argument, caller, caller_class in passed:
                    name = name_text(argument)
                    if name is not None:
                        yield from self._table_entries(name, caller, caller_class, depth + 1)
                    elif type(argument) is ast.Dict or type(argument) is ast.DictComp:
                        yield argument, caller, caller_class
                break  # the parameter shadows what outer scopes call the name

    def _calls_named(self, name: str) -> list[_Registration]:
        if self._calls_by_name is None:
            self._calls_by_name = {}
            for registration in self.facts.registrations:
                callee: ast.expr = registration.call.func  # type: ignore[assignment]  # `ast`'s
                # LibCST's also lists a literal's call by its token (`"a"(...)`): no function's name.
                tail = callee.attr if type(callee) is ast.Attribute else name_text(callee)
                if tail is not None:
                    self._calls_by_name.setdefault(tail, []).append(registration)
        return self._calls_by_name.get(name, [])

    def _entry_functions(  # type: ignore[override]
        self, value: ast.expr, context_key: str | None, context_class: str | None
    ) -> Iterator[str]:
        if type(value) is ast.Dict:
            for item in _table_values(value):
                yield from self.function_references(item, context_key, context_class)
        elif type(value) is ast.DictComp:
            yield from self._named_methods(value, context_key, context_class)  # type: ignore[arg-type]
        else:
            yield from self.function_references(value, context_key, context_class)

    def _named_attributes(self, table: ast.DictComp, context_key: str | None) -> list[str]:  # type: ignore[override]
        value, loop = table.value, table.generators[0]
        if type(value) is not ast.Call or dotted_name(value.func) != "getattr" or _argument_count(value) < 2:
            return []
        target = name_text(loop.target)
        arguments = written_arguments(value)
        if target is None or name_text(argument_value(arguments[1])) != target:
            return []
        owner = dotted_name(argument_value(arguments[0]))
        if owner is None:
            return []
        return [f"{owner}.{name}" for name in self._literal_strings(loop.iter, context_key)]

    def table_externals(self, dotted: str, context_key: str | None, context_class: str | None) -> list[str]:
        table, brackets, method = dotted.partition("[]")
        if not brackets or method:
            return []
        found: list[str] = []
        for value, key, class_key in self._table_entries(table, context_key, context_class):
            if type(value) is ast.DictComp:
                callees = self._named_attributes(value, key)
            else:
                items = _table_values(value) if type(value) is ast.Dict else [value]
                callees = [name for name in map(dotted_name, items) if name is not None]
            for callee in callees:
                if self.resolve_function(callee, key, class_key) is None:
                    found.extend(_call_externals(self, callee, key, class_key))
        return list(dict.fromkeys(found))

    def _literal_strings(self, expression: ast.expr, context_key: str | None) -> list[str]:  # type: ignore[override]
        name = name_text(expression)
        if name is not None:
            sequence = next((v for v in self._alias_values(name, context_key) if type(v) in _SEQUENCES), None)
            return self._literal_strings(sequence, None) if sequence is not None else []  # type: ignore[arg-type]
        if type(expression) not in _SEQUENCES:
            return []
        return [
            element.value
            for element in map(argument_value, expression.elts)  # type: ignore[attr-defined]
            if type(element) is ast.Constant and type(element.value) is str and is_one_token(element)
        ]

    def checks_answers(self, key: str, depth: int = 0) -> bool:
        info = self.facts.functions.get(key)
        if info is None or not info.returned_values or depth > 3:
            return False
        for returned in info.returned_values:
            value: ast.expr = returned  # type: ignore[assignment]  # `ast`'s
            if type(value) is ast.Await:
                value = value.value
            name = name_text(value)
            if name is not None and name in info.checked_answers:
                continue
            if _marks_errors(value):
                continue
            callee = dotted_name(value.func) if type(value) is ast.Call else None
            function = self.resolve_function(callee, key, info.class_key) if callee is not None else None
            if function is None or function == key or not self.checks_answers(function, depth + 1):
                return False
        return True

    def _instances_passed(self) -> Iterator[tuple[str, str, str | None]]:
        for registration, callee, arguments in self._calls_with_arguments():
            first = argument_value(arguments[0]) if _keyword_of(arguments[0]) is None else None
            if type(first) is not ast.Call:
                continue
            found = self._callable_class(first.func, registration.context_key, registration.context_class, 1)  # type: ignore[arg-type]
            if found is not None and not found.endswith("()"):
                yield callee, found, registration.context_key

    def _passed_arguments(self, to: Callable[[str], bool] | None = None) -> Iterator[tuple[str, str, str]]:
        if self._parameter_classes is None:
            self._parameter_classes = {}  # what is passed is not judged by what is passed
        for registration, callee, arguments in self._calls_with_arguments():
            if callee.rpartition(".")[2] in _NOT_PASSING:
                continue
            if to is not None and not to(callee):
                continue
            for position, argument in enumerate(arguments):
                if _is_starred(argument):
                    break
                found = self._argument_class(argument_value(argument), registration.context_key, registration.context_class)
                if found is not None and not found.endswith("()"):
                    keyword = _keyword_of(argument)
                    yield callee, keyword if keyword is not None else str(position), found

    def _argument_class(  # type: ignore[override]
        self, value: ast.expr, context_key: str | None, context_class: str | None
    ) -> str | None:
        if type(value) is ast.Await:
            value = value.value
        if type(value) is ast.Call:
            return self._callable_class(value.func, context_key, context_class, 1)  # type: ignore[arg-type]
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

    def _value_class(self, value: ast.expr, scope: str | None, depth: int) -> str | None:  # type: ignore[override]
        if type(value) is ast.Await:
            value = value.value
        if type(value) is ast.Call:
            return self._callable_class(value.func, scope, None, depth)  # type: ignore[arg-type]
        dotted = dotted_name(value)
        return self.class_of(dotted, scope, None, depth + 1) if dotted else None

    def _annotation_class(self, annotation: ast.expr) -> str | None:  # type: ignore[override]
        for candidate in _annotation_types(annotation, self.source):
            if type(candidate) is ast.Constant and type(candidate.value) is str and is_one_token(candidate):
                dotted: str | None = candidate.value.strip()
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


def _callees_flowing_to_return(resolver: _AstResolver, info: FunctionInfo) -> set[str]:
    """``handlers._callees_flowing_to_return``: LibCST's names there are also an attribute's
    (`x.name`), a keyword argument's and a lambda parameter's, which `ast` keeps as text."""
    facts = resolver.facts
    callees = set(info.returned_calls)
    pending, seen = list(info.returned_names), set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        key = (info.key, name)
        for value in (*facts.aliases.get(key, ()), *facts.contents.get(key, ())):
            for node in own_nodes(value):
                kind = type(node)
                if kind is ast.Name:
                    pending.append(node.id)  # type: ignore[attr-defined]
                elif kind is ast.Call:
                    callee = _callee(node.func)  # type: ignore[attr-defined]
                    if callee is not None:
                        callees.add(callee)
                elif kind is ast.Attribute:
                    pending.append(node.attr)  # type: ignore[attr-defined]
                elif kind is ast.keyword or kind is ast.arg:
                    if node.arg is not None:  # type: ignore[attr-defined]  # None: `**x`
                        pending.append(node.arg)  # type: ignore[attr-defined]
                elif kind is ast.Constant:
                    constant = name_text(node)  # `None`, `True`, `False`
                    if constant is not None:
                        pending.append(constant)
    return callees


def _coalesced_callees(resolver: _AstResolver, info: FunctionInfo, *, answered: bool = False) -> list[str]:
    """``handlers._coalesced_callees``."""
    callees = list(info.coalesced_calls)
    for name in [*info.coalesced_names, *(info.answered_empties if answered else ())]:
        for value in resolver.facts.aliases.get((info.key, name), ()):
            if type(value) is ast.Call:
                callee = _callee(value.func)
                if callee is not None:
                    callees.append(callee)
    return callees


def _find_returned_callees(resolver: _AstResolver, info: FunctionInfo) -> list[str]:
    """``handlers._find_returned_callees``."""
    source, facts = resolver.source, resolver.facts
    callees = [*info.returned_calls, *_coalesced_callees(resolver, info)]
    aliases, collected = facts.aliases, facts.collected
    rendered = [callee.partition(".")[0] for callee in info.returned_calls if _renders(callee)]
    names = [*info.returned_names, *rendered]
    for name in names:
        for built in (*aliases.get((info.key, name), ()), *collected.get((info.key, name), ())):
            # LibCST's `FormattedString`, `ConcatenatedString` and `BinaryOperation`: a
            # concatenation of plain literals (one constant here) carries no local.
            if type(built) is ast.JoinedStr or type(built) is ast.BinOp:
                names.extend(part for part in _carried_values(built)[1] if part not in names)
        for value in aliases.get((info.key, name), ()):
            read_from = _rows_of(value, source)
            if read_from is not None and read_from not in names and read_from not in info.error_tested:
                names.append(read_from)
            kind = type(value)
            if kind is ast.Call or kind is ast.Await or kind in _COMPREHENSIONS:
                callees.extend(_carried_values(value)[0])
            if kind in _COMPREHENSIONS:
                iterated = name_text(value.generators[0].iter)  # type: ignore[attr-defined]
                for built_from in aliases.get((info.key, iterated), ()) if iterated is not None else ():
                    if type(built_from) is ast.Call or type(built_from) is ast.Await:
                        callees.extend(_carried_values(built_from)[0])
    for name in info.answered_empties:
        sources = [*aliases.get((info.key, name), ()), *collected.get((info.key, name), ())]
        for filled_from in list(sources):
            local = name_text(filled_from)
            if local is not None:
                sources.extend(aliases.get((info.key, local), ()))
        for value in sources:
            if type(value) is ast.Call or type(value) is ast.Await:
                callees.extend(_carried_values(value)[0])
    return callees


def resolve_local_scope_ast(
    facts: AstHandlerFactsCollector,
    imports: AstImportTable,
    *,
    handler_decorators: Sequence[str] = (),
    handler_functions: Sequence[str] = (),
    project: ProjectContext = NO_PROJECT,
) -> LocalScope:
    """``handlers.resolve_local_scope`` of the `ast` facts (``scope_in_project`` takes it on)."""
    return local_scope(_AstResolver(facts, imports, handler_decorators, handler_functions, project))
