"""What a caught exception taints, and where that text reaches the client, read from CPython's
`ast` tree: the port's twin of ``exception_flow.py`` (whose docstring tells the analysis).

The tables (sources, sinks, stringifiers, parsers...) and the node-free helpers are the
original's. What differs is only how the tree is read:

- a block is already a flat list of statements (``units_of`` has nothing to split);
- a call's arguments are its positional ones (a ``*`` one an ``ast.Starred``) and its
  keywords (``**`` one: ``arg`` None), taken in the order they are written, as LibCST's
  single list has them;
- an f-string's ``{...}`` part is an ``ast.FormattedValue`` (the origin made there; on
  Python 3.11 its position is the whole string's);
- a literal written as several (``"a" "b"``) is one ``ast.Constant`` where LibCST has a
  ``ConcatenatedString`` the original never reads as a name or a symbol, and ``X[(A, B)]``
  one tuple where ``X[A, B]`` is two subscripts: both are told apart on the module's text,
  which ``ExceptionFlow`` and ``StdioDetector`` take for that (``text``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from mcplint.analysis.empty_values import MUTATORS
from mcplint.analysis.exception_flow import (
    _HELPER_NAME,
    _SYMBOL,
    CATCH_ALL,
    CHAINED_ATTRIBUTES,
    CONTAINER_BUILTINS,
    CONTEXT_METHODS,
    CONTEXT_NAMES,
    INPUT_ERRORS,
    MCP_PACKAGES,
    MCP_RESULT_TYPES,
    MESSAGE_ATTRIBUTES,
    PURE_PARSERS,
    SERIALISERS,
    STRINGIFIERS,
    TEXT_FROM_ARGUMENTS,
    TRACEBACK_FUNCTIONS,
    ContextMemory,
    Question,
    Questions,
    Raised,
    TextHelper,
    _registry_helper,
    owned_text_classes,
)
from mcplint.analysis.handlers import SERVER_CLASSES
from mcplint.analysis.imports_ast import AstImportTable, dotted_name, name_text
from mcplint.analysis.scopes import enclosing_function_keys
from mcplint.analysis.walk_ast import children, own_statements
from mcplint.source import source_lines

__all__ = [
    "CATCH_ALL",
    "CHAINED_ATTRIBUTES",
    "CONTAINER_BUILTINS",
    "CONTEXT_METHODS",
    "CONTEXT_NAMES",
    "INPUT_ERRORS",
    "MCP_PACKAGES",
    "MCP_RESULT_TYPES",
    "MESSAGE_ATTRIBUTES",
    "PURE_PARSERS",
    "SERIALISERS",
    "STRINGIFIERS",
    "TEXT_FROM_ARGUMENTS",
    "TRACEBACK_FUNCTIONS",
    "ExceptionFlow",
    "FunctionSource",
    "Leak",
    "Origin",
    "Question",
    "Questions",
    "Raised",
    "Sink",
    "StdioDetector",
    "Summary",
    "TextHelper",
    "bound_name",
    "catches_everything",
    "caught_names",
    "owned_text_classes",
    "reraises",
    "text_helper",
]

Function = ast.FunctionDef | ast.AsyncFunctionDef
# An argument as LibCST's `Arg` would be: a positional expression (`ast.Starred` for `*x`) or
# a keyword (`arg` None for `**x`).
Argument = ast.expr | ast.keyword
# `except*` (Python 3.11 on): its clauses are `ast.ExceptHandler`s as a `try`'s are.
_TRY_STAR: type | None = getattr(ast, "TryStar", None)


# -- except clauses -------------------------------------------------------------------
def _caught_types(caught: ast.expr) -> list[ast.expr]:
    """The expressions a clause names its classes by (a starred one's value, as LibCST's
    element's)."""
    if type(caught) is ast.Tuple:
        return [element.value if type(element) is ast.Starred else element for element in caught.elts]
    return [caught]


def caught_names(handler: ast.ExceptHandler, imports: AstImportTable) -> tuple[str, ...]:
    """The classes a clause catches, qualified where imported; () for a bare ``except:``."""
    if handler.type is None:
        return ()
    names = (imports.qualified_name(t) or dotted_name(t) or "?" for t in _caught_types(handler.type))
    return tuple(name.removeprefix("builtins.") for name in names)


def catches_everything(handler: ast.ExceptHandler, imports: AstImportTable) -> bool:
    names = caught_names(handler, imports)
    return not names or any(name in CATCH_ALL for name in names)


def reraises(handler: ast.ExceptHandler) -> bool:
    """The clause raises on some path (a bare ``raise``, ``raise e``, or a new error)."""
    # The clause's own nodes are its body's and its class expression's (no raise in that).
    return any(type(node) is ast.Raise for node in own_statements(handler.body))


def bound_name(handler: ast.ExceptHandler) -> str | None:
    return handler.name


# -- taint ------------------------------------------------------------------------------
class Origin(NamedTuple):
    """Where exception text is made: the expression a finding points at. (A named tuple: the
    analysis makes and hashes one for each use of a name holding exception text, and a tuple
    is made and hashed in a fraction of a frozen dataclass's time; the same hash, by value.)"""

    node: ast.AST
    kind: str  # "exception" (its message) or "traceback"
    raw: bool = False  # the exception object itself, not yet turned into text
    parameter: str | None = None  # in a summary: the parameter the taint came in through


@dataclass(frozen=True)
class _Marker:
    """What a name holds before any use: the caught exception, or a parameter's value."""

    parameter: str | None = None


_CAUGHT = _Marker()
Taint = frozenset["Origin"]
Environment = dict[str, frozenset["Origin | _Marker"]]  # what each local name holds
Arguments = list[tuple[Argument, Taint]]  # a call's arguments, as written, with their taints
_CLEAN: Taint = frozenset()


@dataclass(frozen=True)
class Sink:
    node: ast.AST
    description: str  # "the returned value", "the message of `raise ToolError(...)`", ...
    through_return: bool  # reaches the client only if the function's value reaches a handler's return


@dataclass(frozen=True)
class Leak:
    function: str
    origin: Origin
    sink: Sink


@dataclass
class Summary:
    """What a function does with its parameters' text (``exception_flow.Summary``)."""

    returned: set[str] = field(default_factory=set)
    sinks: dict[str, Sink] = field(default_factory=dict)
    returned_origins: set[Origin] = field(default_factory=set)
    raised_own: set[str] = field(default_factory=set)
    raised_text: set[str] = field(default_factory=set)


def text_helper(summary: Summary, function: Function) -> TextHelper | None:
    """What other modules need of a function's summary to follow text through its calls."""
    if not summary.returned:
        return None
    parameters = _parameters(function)
    return parameters.positional, parameters.keyword_only, tuple(sorted(summary.returned))


@dataclass(frozen=True)
class FunctionSource:
    key: str
    node: Function
    class_key: str | None


class ExceptionFlow(ContextMemory):
    """The taint analysis of one module's functions, run once the walk has seen them all
    (``exception_flow.ExceptionFlow``). ``text`` is the module's source, read only to tell
    how a few literals and tuples are written (see the module's docstring)."""

    def __init__(
        self,
        imports: AstImportTable,
        *,
        text: str,
        sanitizers: Iterable[str] = (),
        helpers_module: str | None = None,
        helper_names: Iterable[str] = (),
        stdio: bool = False,
        project_classes: Iterable[str] = (),
        project_imports: Iterable[str] = (),
    ) -> None:
        self.imports = imports
        self.source_text = _SourceText(text)
        self.project_classes = frozenset(project_classes)
        self.project_imports = frozenset(project_imports)
        self.sanitizers = frozenset(sanitizers)
        self.helpers_module = helpers_module
        self.helper_names = frozenset(helper_names)
        self.stdio = stdio
        self.functions: dict[str, list[FunctionSource]] = {}
        self.imported_text_helpers: dict[str, TextHelper] = {}
        self.imported_raisers: dict[str, Raised] = {}
        self.external_calls: Callable[[str, str | None], list[str]] = lambda callee, function: []
        self._summaries: dict[str, Summary] = {}
        self._leaks: dict[str, list[Leak]] = {}
        self._running: list[str] = []
        self._met_cycle: set[str] = set()
        self._asked: dict[str, Questions] = {}
        self._callees: dict[str, set[str]] = {}
        self._orders: dict[str, dict[int, int]] = {}
        self._resolved: dict[tuple[str, str, str | None], FunctionSource | None] = {}
        # The registry the questions asked since the last ``forget`` or ``drop_stale`` were asked
        # under: while it stays, their "registry" questions are told the same.
        self._asked_under: tuple[str | None, frozenset[str]] = (helpers_module, self.helper_names)

    def forget(self) -> None:
        """Drop the summaries and leaks computed so far."""
        self._summaries.clear()
        self._leaks.clear()
        self._running.clear()
        self._met_cycle.clear()
        self._asked.clear()
        self._callees.clear()
        self.forget_context()
        self._asked_under = (self.helpers_module, self.helper_names)

    def drop_stale(self) -> int:
        """``exception_flow.ExceptionFlow.drop_stale``: drop the analyses the present context
        would answer otherwise, those that met a call cycle, and their readers."""
        registry = (self.helpers_module, self.helper_names)
        registry_aside = registry == self._asked_under
        self._asked_under = registry
        if self._context_is_the_same():
            stale = set(self._met_cycle)
        else:
            now: Questions = {}
            stale = {
                key for key, questions in self._asked.items() if not self._told_the_same(questions, now, registry_aside)
            }
            stale |= self._met_cycle
        self._met_cycle.clear()
        if not stale:
            return 0
        callers: dict[str, list[str]] = {}
        for caller, callees in self._callees.items():
            for callee in callees:
                callers.setdefault(callee, []).append(caller)
        pending = list(stale)
        while pending:
            for caller in callers.get(pending.pop(), ()):
                if caller not in stale:
                    stale.add(caller)
                    pending.append(caller)
        for key in stale:
            self._summaries.pop(key, None)
            self._leaks.pop(key, None)
            self._asked.pop(key, None)
            self._callees.pop(key, None)
        return len(stale)

    def _ask(self, kind: str, asked: tuple[Any, ...], told: object) -> None:
        if self._running:
            questions = self._asked.get(self._running[-1])
            if questions is None:
                questions = self._asked[self._running[-1]] = {}
            questions[(kind, asked)] = told  # (asked again, the same answer: one check later)

    def text_helper(self, name: str) -> TextHelper | None:
        found = self.imported_text_helpers.get(name)
        self._ask("helper", (name,), found)
        return found

    def has_text_helpers(self, callee: str, function: str) -> bool:
        if self.imported_text_helpers:
            return True
        self._ask("no_helper", (callee, function), None)
        return False

    def external_targets(self, callee: str, function: str) -> list[str]:
        targets = self.external_calls(callee, function)
        self._ask("targets", (callee, function), list(targets))
        return targets

    def imported_raised(self, qualified: str | None, callee: str, function: str) -> Raised:
        found = self._raised(qualified, callee, function)
        self._ask("raised", (qualified, callee, function), found)
        return found

    def prints_into_transport(self) -> bool:
        self._ask("stdio", (), self.stdio)
        return self.stdio

    def add_function(self, key: str, node: Function, class_key: str | None) -> None:
        self.functions.setdefault(key, []).append(FunctionSource(key, node, class_key))
        self._resolved.clear()  # (the walk adds them all before any analysis asks)

    def leaks(self, only: Iterable[str] | None = None) -> list[Leak]:
        """Every origin that reaches a sink, once, with its most telling sink (in the ``only``
        functions, when given)."""
        found: list[Leak] = []
        wanted = None if only is None else set(only)
        keys = self.functions if wanted is None else [key for key in self.functions if key in wanted]
        for key in keys:
            self._analyse(key)
            in_function = self._leaks[key]
            if not in_function:
                continue
            if len(in_function) > 1:  # (one leak has no order to keep: its function is not numbered)
                order = self._source_order(key)
                in_function = sorted(in_function, key=lambda leak: order(leak.origin.node))
            by_origin: dict[ast.AST, list[Leak]] = {}
            for leak in in_function:
                by_origin.setdefault(leak.origin.node, []).append(leak)
            for leaks in by_origin.values():
                found.append(next((leak for leak in leaks if not leak.sink.through_return), leaks[0]))
        return found

    def _source_order(self, key: str) -> Callable[[ast.AST], int]:
        """A function's nodes numbered in the order the source has them."""
        numbers = self._orders.get(key)
        if numbers is None:
            numbers = self._orders[key] = {}
            pending: list[ast.AST] = [self.functions[key][-1].node]
            while pending:
                node = pending.pop()
                numbers[id(node)] = len(numbers)
                pending.extend(reversed(children(node)))
        return lambda node: numbers.get(id(node), len(numbers))

    def summary(self, key: str) -> Summary:
        self._analyse(key)
        return self._summaries.get(key, Summary())

    def _analyse(self, key: str) -> None:
        if self._running:
            self._callees.setdefault(self._running[-1], set()).add(key)
        if key in self._leaks:
            return
        if key in self._running:
            self._met_cycle.add(self._running[-1])
            return  # recursion: the callee in progress counts as clean
        self._running.append(key)
        summary, leaks = Summary(), []
        for source in self.functions[key]:
            run = _FunctionRun(self, source)
            run.run()
            summary.returned |= run.summary.returned
            summary.returned_origins |= run.summary.returned_origins
            summary.raised_own |= run.summary.raised_own
            summary.raised_text |= run.summary.raised_text
            for parameter, sink in run.summary.sinks.items():
                summary.sinks.setdefault(parameter, sink)
            leaks.extend(run.leaks)
        self._running.pop()
        self._summaries[key] = summary
        self._leaks[key] = leaks

    # -- what a call is ------------------------------------------------------------
    def resolve(self, func: ast.expr, caller: FunctionSource) -> FunctionSource | None:
        dotted = dotted_name(func)
        if dotted is None:
            return None
        # The module's functions and imports are the walk's: the same answer every round.
        asked = (dotted, caller.key, caller.class_key)
        try:
            return self._resolved[asked]
        except KeyError:
            found = self._resolved[asked] = self._resolve(dotted, caller)
            return found

    def _resolve(self, dotted: str, caller: FunctionSource) -> FunctionSource | None:
        parts = dotted.split(".")
        candidates: list[str] = []
        if len(parts) == 1 and not self.imports.is_imported(dotted):
            candidates = [f"{scope}.<locals>.{dotted}" for scope in enclosing_function_keys(caller.key)] + [dotted]
        elif len(parts) == 2 and parts[0] in ("self", "cls") and caller.class_key:
            candidates = [f"{caller.class_key}.{parts[1]}"]
        elif len(parts) == 2:
            candidates = [dotted]
        for candidate in candidates:
            if candidate in self.functions:
                return self.functions[candidate][-1]
        return None

    def is_project_exception(self, handler: ast.ExceptHandler) -> bool:
        """Every caught class is the project's own: defined in the module, or imported relatively."""
        if handler.type is None:
            return False
        written = [dotted_name(t) or "" for t in _caught_types(handler.type)]
        return all(name in self.project_classes or name.split(".")[0] in self.project_imports for name in written)

    def is_sanitiser(self, call: ast.Call) -> bool:
        """A configured sanitiser, or a registry helper (it never serialises the cause)."""
        dotted = dotted_name(call.func)
        return self._is_sanitiser(call, dotted or "", (self.imports.qualify(dotted) if dotted else None) or "")

    def _is_sanitiser(self, call: ast.Call, dotted: str, qualified: str) -> bool:
        tail = dotted.rpartition(".")[2]
        if self.sanitizers and self.sanitizers & {dotted, qualified, tail}:
            return True
        if self._called_like_a_helper(call, tail):
            return True
        told = _registry_helper(tail, qualified, self.helpers_module, self.helper_names)
        self._ask("registry", (tail, qualified), told)
        return told

    def _called_like_a_helper(self, call: ast.Call, name: str) -> bool:
        """`<domain>_error("SYMBOL", ...)`: the shape of a generated helper call, registry or not."""
        if not name.endswith("_error") or _HELPER_NAME.fullmatch(name) is None:
            return False
        arguments = _arguments_of(call)
        symbol = self.source_text.literal(_argument_value(arguments[0])) if arguments else None
        return isinstance(symbol, str) and _SYMBOL.fullmatch(symbol) is not None


class _FunctionRun:
    """One pass over one function's statements, in order, with an environment of tainted locals."""

    def __init__(self, flow: ExceptionFlow, source: FunctionSource) -> None:
        self.flow = flow
        self.source = source
        self.imports = flow.imports
        self.leaks: list[Leak] = []
        self.summary = Summary()
        self.parameters = _parameters(source.node)
        self.context_names = CONTEXT_NAMES | self._typed_context_parameters()
        self._awaited: ast.AST | None = None  # the expression of the latest `await` met
        self._raised_in_try: list[tuple[set[str], set[str]]] = []
        self._calls_in_try: list[list[str]] = []

    def run(self) -> None:
        environment: Environment = {name: frozenset({_Marker(name)}) for name in self.parameters.all if name not in ("self", "cls")}
        for name in self._exception_parameters():
            environment[name] = frozenset({_Marker(name), _CAUGHT})
        self._block(self.source.node.body, environment)

    def _exception_parameters(self) -> list[str]:
        found = []
        for name, annotation in self.parameters.annotations.items():
            for named in self._annotation_types(annotation):
                written = dotted_name(named) or ""
                tail = written.rpartition(".")[2]
                if not (tail in ("BaseException", "Exception") or tail.endswith(("Error", "Exception"))):
                    continue
                if written in self.flow.project_classes or written.split(".")[0] in self.flow.project_imports:
                    continue
                found.append(name)
                break
        return found

    def _typed_context_parameters(self) -> set[str]:
        found = set()
        for name, annotation in self.parameters.annotations.items():
            for named in self._annotation_types(annotation):
                qualified = self.imports.qualified_name(named) or ""
                if qualified.rpartition(".")[2] == "Context" and qualified.split(".")[0] in MCP_PACKAGES:
                    found.add(name)
        return found

    def _annotation_types(self, annotation: ast.expr) -> Iterator[ast.expr]:
        """The types an annotation names: `X`, `X | None`, `Optional[X]`, `X[A, B]` (not the
        items of a tuple written in parentheses, `X[(A, B)]`, one subscript to LibCST)."""
        if type(annotation) is ast.BinOp:
            yield from self._annotation_types(annotation.left)
            yield from self._annotation_types(annotation.right)
        elif type(annotation) is ast.Subscript:
            yield annotation.value
            index = annotation.slice
            if type(index) is ast.Tuple and index.elts and not self.flow.source_text.parenthesised(index):
                items = index.elts
            else:
                items = [index]
            for item in items:
                if type(item) is ast.Starred:  # `X[*Ts]`: LibCST's starred index
                    yield from self._annotation_types(item.value)
                elif type(item) is not ast.Slice:
                    yield from self._annotation_types(item)
        else:
            yield annotation

    # -- statements --------------------------------------------------------------------
    def _block(self, statements: list[ast.stmt], environment: Environment) -> None:
        for statement in statements:
            self._statement(statement, environment)

    def _statement(self, node: ast.stmt, environment: Environment) -> None:
        kind = type(node)
        if kind is ast.Assign:
            assign = cast(ast.Assign, node)
            taint = self._taint(assign.value, environment)
            for target in assign.targets:
                self._bind(target, taint, environment)
        elif kind is ast.AnnAssign:
            annotated = cast(ast.AnnAssign, node)
            if annotated.value is not None:
                self._bind(annotated.target, self._taint(annotated.value, environment), environment)
        elif kind is ast.AugAssign:
            augmented = cast(ast.AugAssign, node)
            self._bind(augmented.target, self._taint(augmented.value, environment), environment, weak=True)
        elif kind is ast.Expr:
            self._taint(cast(ast.Expr, node).value, environment)
        elif kind is ast.Return:
            returned = cast(ast.Return, node)
            if returned.value is not None:
                taint = self._taint(returned.value, environment)
                if taint:  # (most returns carry none: no sink is made for them)
                    self._sink(taint, Sink(node, "the returned value", True))
        elif kind is ast.Raise:
            self._raise(cast(ast.Raise, node), environment)
        elif kind is ast.Delete:
            for target in cast(ast.Delete, node).targets:
                for name in _target_names(target):
                    environment.pop(name, None)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            environment.pop(cast(Function | ast.ClassDef, node).name, None)  # analysed on its own
        else:
            self._compound(node, environment)

    def _compound(self, node: ast.stmt, environment: Environment) -> None:
        kind = type(node)
        if kind is ast.If:
            branch = cast(ast.If, node)
            self._taint(branch.test, environment)
            otherwise = dict(environment)
            self._block(branch.body, environment)
            # An `elif` runs as the only statement of an `else:` would: the same either way.
            self._block(branch.orelse, otherwise)
            _merge_into(environment, otherwise)
        elif kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
            self._loop(cast(ast.For | ast.AsyncFor | ast.While, node), environment)
        elif kind is ast.Try or kind is _TRY_STAR:
            self._try(cast(ast.Try, node), environment)
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in cast(ast.With | ast.AsyncWith, node).items:
                taint = self._taint(item.context_expr, environment)
                if item.optional_vars is not None:
                    self._bind(item.optional_vars, taint, environment)
            self._block(cast(ast.With | ast.AsyncWith, node).body, environment)
        elif kind is ast.Match:
            match = cast(ast.Match, node)
            self._taint(match.subject, environment)
            before = dict(environment)
            for case in match.cases:
                branch_environment = dict(before)
                self._block(case.body, branch_environment)
                _merge_into(environment, branch_environment)

    def _loop(self, node: ast.For | ast.AsyncFor | ast.While, environment: Environment) -> None:
        # Twice, so that what one iteration taints reaches the next one's uses; once where the
        # first taints nothing new (the second would start where it did and find the same).
        is_for = type(node) is not ast.While
        iterated = self._taint(node.iter, environment) if is_for else _CLEAN  # type: ignore[union-attr]
        for _ in range(2):
            before = dict(environment)
            body = dict(environment)
            if is_for:
                self._bind(node.target, iterated, body)  # type: ignore[union-attr]
            else:
                self._taint(node.test, body)  # type: ignore[union-attr]
            self._block(node.body, body)
            _merge_into(environment, body)
            if environment == before:
                break
        self._block(node.orelse, environment)

    def _try(self, node: ast.Try, environment: Environment) -> None:
        before = dict(environment)
        self._raised_in_try.append((set(), set()))
        self._calls_in_try.append([])
        self._block(node.body, environment)
        own, text = self._raised_in_try.pop()
        calls = self._calls_in_try.pop()
        parses_only = bool(calls) and not text and all(call in PURE_PARSERS for call in calls)
        escaping = (set(own), set(text))
        on_error = dict(before)
        _merge_into(on_error, environment)
        outcomes = []
        for handler in node.handlers:
            clause = dict(on_error)
            name = handler.name
            caught = caught_names(handler, self.imports)
            for classes in escaping:
                if not caught or CATCH_ALL.intersection(caught):
                    classes.clear()
                else:
                    classes.difference_update(written.rpartition(".")[2] for written in caught)
            if name is not None:
                written_here = (
                    parses_only or self.flow.is_project_exception(handler) or _only_own_text(handler, caught, own, text)
                )
                clause[name] = _CLEAN if written_here else frozenset({_CAUGHT})
            self._block(handler.body, clause)
            if name is not None:
                clause.pop(name, None)  # Python unbinds it when the clause ends
            outcomes.append(clause)
        self._raises(*escaping)
        self._block(node.orelse, environment)
        for clause in outcomes:
            _merge_into(environment, clause)
        self._block(node.finalbody, environment)

    def _raises(self, own: Iterable[str], text: Iterable[str] = ()) -> None:
        if self._raised_in_try:
            into_own, into_text = self._raised_in_try[-1]
        else:
            into_own, into_text = self.summary.raised_own, self.summary.raised_text
        into_own.update(own)
        into_text.update(text)

    def _raise(self, node: ast.Raise, environment: Environment) -> None:
        exc = node.exc
        if exc is None:
            return
        taint = self._taint(exc, environment)
        if type(exc) is ast.Name and all(origin.raw for origin in taint):
            return  # `raise e`: the same exception goes on, nothing new is said
        is_call = type(exc) is ast.Call
        name = dotted_name(exc.func if is_call else exc)  # type: ignore[attr-defined]
        if taint:
            shown = f"`raise {name}(...)`" if is_call and name else "the raised exception"
            self._sink(taint, Sink(node, f"the message of {shown}", False))
        raised_class = (name or "").rpartition(".")[2]
        if is_call and raised_class[:1].isupper():
            if all(origin.parameter for origin in taint):
                self._raises((raised_class,))
            else:
                self._raises((), (raised_class,))

    def _bind(self, target: ast.expr, taint: Taint, environment: Environment, weak: bool = False) -> None:
        kind = type(target)
        if kind is ast.Name:
            name = cast(ast.Name, target).id
            previous = environment.get(name, _CLEAN) if weak else _CLEAN
            environment[name] = previous | taint
        elif kind is ast.Tuple or kind is ast.List:
            for element in cast(ast.Tuple | ast.List, target).elts:
                self._bind(element, taint, environment, weak)
        elif kind is ast.Starred:
            self._bind(cast(ast.Starred, target).value, taint, environment, weak)
        elif kind is ast.Subscript or kind is ast.Attribute:
            root = _root_name(target)
            if root is not None and root not in ("self", "cls") and taint:
                environment[root] = environment.get(root, _CLEAN) | taint

    def _sink(self, taint: Iterable[object], sink: Sink) -> None:
        for origin in taint:
            if not isinstance(origin, Origin):
                continue
            if origin.parameter is None:
                self.leaks.append(Leak(self.source.key, origin, sink))
                if sink.through_return:
                    self.summary.returned_origins.add(origin)
            elif sink.through_return:
                self.summary.returned.add(origin.parameter)
            else:
                self.summary.sinks.setdefault(origin.parameter, sink)

    # -- expressions -------------------------------------------------------------------
    def _taint(self, node: ast.AST | None, environment: Environment) -> Taint:
        if node is None:
            return _CLEAN
        kind = type(node)
        if kind is ast.Name:
            held = environment.get(cast(ast.Name, node).id)
            if not held:  # most names hold nothing
                return _CLEAN
            return frozenset(_materialise(item, node) for item in held)
        if kind is ast.Constant:
            return _CLEAN
        if kind is ast.Attribute:
            return self._attribute(cast(ast.Attribute, node), environment)
        if kind is ast.Call:
            return self._call(cast(ast.Call, node), environment)
        if kind is ast.Await:
            value = cast(ast.Await, node).value
            self._awaited = value
            return self._taint(value, environment)
        if kind is ast.JoinedStr:
            return self._formatted(cast(ast.JoinedStr, node), environment)
        if kind is ast.BinOp:  # `"%s" % e`, `"failed: " + str(e)`
            operation = cast(ast.BinOp, node)
            taint = self._taint(operation.left, environment) | self._taint(operation.right, environment)
            return _as_text(taint, node)
        if kind is ast.Lambda:
            return _CLEAN
        if kind is ast.Compare or kind is ast.UnaryOp:
            self._parts(node, environment)  # calls inside still run (and may be sinks)
            return _CLEAN  # a truth value or a number
        if kind in _COMPREHENSION_TYPES:
            return self._comprehension(cast(_Comprehension, node), environment)
        if kind is ast.NamedExpr:
            named = cast(ast.NamedExpr, node)
            taint = self._taint(named.value, environment)
            self._bind(named.target, taint, environment)
            return taint
        if kind is ast.Subscript:
            subscript = cast(ast.Subscript, node)
            self._taint(subscript.slice, environment)
            return self._taint(subscript.value, environment)
        if kind is ast.IfExp:
            choice = cast(ast.IfExp, node)
            self._taint(choice.test, environment)
            return self._taint(choice.body, environment) | self._taint(choice.orelse, environment)
        if kind is ast.Tuple or kind is ast.List or kind is ast.Set:
            taint = _CLEAN
            for element in cast(ast.Tuple | ast.List | ast.Set, node).elts:
                taint |= self._taint(element, environment)
            return taint
        if kind is ast.BoolOp:
            taint = _CLEAN
            for value in cast(ast.BoolOp, node).values:
                taint |= self._taint(value, environment)
            return taint
        # Dictionaries, slices, starred values, `yield`: the union of the parts.
        return self._parts(node, environment)

    def _parts(self, node: ast.AST, environment: Environment) -> Taint:
        taint = _CLEAN
        for child in children(node):
            taint |= self._taint(child, environment)
        return taint

    def _attribute(self, node: ast.Attribute, environment: Environment) -> Taint:
        base = self._taint(node.value, environment)
        exception = frozenset(origin for origin in base if origin.raw)
        text = base - exception
        if exception and node.attr in MESSAGE_ATTRIBUTES:
            kind = "traceback" if node.attr == "__traceback__" else None
            text |= _as_text(exception, node, kind)
        elif node.attr in CHAINED_ATTRIBUTES:
            return base  # `e.__cause__`: another exception, whose text is as telling
        return text  # `e.code`, `e.__class__`: not the message

    def _formatted(self, node: ast.JoinedStr, environment: Environment) -> Taint:
        # (Format specs are not read, as the original reads only a part's expression.)
        taint = _CLEAN
        for part in node.values:
            if type(part) is ast.FormattedValue:
                taint |= _as_text(self._taint(part.value, environment), part)
        return taint

    def _comprehension(self, node: _Comprehension, environment: Environment) -> Taint:
        inner = dict(environment)
        for clause in node.generators:
            self._bind(clause.target, self._taint(clause.iter, inner), inner)
        if type(node) is ast.DictComp:
            return self._taint(node.key, inner) | self._taint(node.value, inner)
        return self._taint(node.elt, inner)  # type: ignore[union-attr]

    def _call(self, call: ast.Call, environment: Environment) -> Taint:
        awaited = call is self._awaited  # before the arguments' own `await`s
        func = call.func
        dotted = dotted_name(func)
        qualified = self.imports.qualify(dotted) if dotted else None
        name = qualified or dotted or ""
        for calls in self._calls_in_try:
            calls.append(name)
        if qualified in TRACEBACK_FUNCTIONS:
            return frozenset({Origin(call, "traceback")})
        func_kind = type(func)
        receiver = self._taint(func, environment) if func_kind is not ast.Name and func_kind is not ast.Attribute else _CLEAN
        arguments = [(argument, self._taint(_argument_value(argument), environment)) for argument in _arguments_of(call)]
        everything = _union(taint for _, taint in arguments)
        if self.flow._is_sanitiser(call, dotted or "", qualified or ""):
            return _CLEAN
        self._call_sinks(call, name, qualified, everything, awaited)
        if func_kind is ast.Attribute and type(func.value) is ast.Name and func.attr in MUTATORS:  # type: ignore[attr-defined]
            self._bind(func.value, everything, environment, weak=True)  # type: ignore[attr-defined]
        if qualified is None and name in STRINGIFIERS:
            return self._stringified(call, name, arguments)
        if (qualified is None and name in CONTAINER_BUILTINS) or name in SERIALISERS:
            return _as_text(everything, call)
        callee = self.flow.resolve(func, self.source)
        if callee is not None:
            taint = self._through_function(call, callee, arguments)
            summary = self.flow.summary(callee.key)
            self._raises(summary.raised_own, summary.raised_text)
            return taint
        self._raises(*self.flow.imported_raised(qualified, name, self.source.key))
        if not everything and self._plain_callee(func, environment):
            # Clean arguments through a callee named by clean names: nothing comes back whether
            # or not it is another module's text helper, so that is not asked (an answer a later
            # round changes would drop this analysis for nothing: ExceptionFlow.drop_stale).
            return _CLEAN
        imported = self.flow.text_helper(qualified or "")
        if imported is None and self.flow.has_text_helpers(name, self.source.key):
            targets = self.flow.external_targets(name, self.source.key)
            imported = next(filter(None, map(self.flow.text_helper, targets)), None)
        if imported is not None:
            return self._through_imported(call, imported, arguments)
        if name.rpartition(".")[2][:1].isupper():  # a class (`server.LeanToolError(...)` too): its instance carries its arguments
            return receiver | everything
        if func_kind is ast.Attribute:
            return receiver | self._method(call, cast(ast.Attribute, func), environment, everything)
        return receiver

    @staticmethod
    def _plain_callee(func: ast.expr, environment: Environment) -> bool:
        """A name, or a chain of attributes on a name, whose root carries no taint."""
        while type(func) is ast.Attribute:
            func = func.value
        root = name_text(func)  # `None.append(...)`: LibCST's tree has a name there
        return root is not None and not environment.get(root)

    def _stringified(self, call: ast.Call, name: str, arguments: Arguments) -> Taint:
        if name == "getattr" and len(arguments) >= 2:
            wanted = self.flow.source_text.literal(_argument_value(arguments[1][0]))
            default = arguments[2][1] if len(arguments) > 2 else _CLEAN
            if isinstance(wanted, str) and wanted not in MESSAGE_ATTRIBUTES:
                return default  # getattr(e, "status_code", None)
            return _as_text(arguments[0][1], call) | default
        return _as_text(_union(taint for _, taint in arguments), call)

    def _method(self, call: ast.Call, func: ast.Attribute, environment: Environment, arguments: Taint) -> Taint:
        owner = self._taint(func.value, environment)
        # A parameter may hold text already: its methods (`text.replace(...)`) keep the taint.
        exception = frozenset(origin for origin in owner if origin.raw and origin.parameter is None)
        text = owner - exception
        if exception and func.attr in MESSAGE_ATTRIBUTES:  # e.__str__(), grpc's e.details()
            text |= _as_text(exception, call)
        if func.attr in TEXT_FROM_ARGUMENTS:
            text |= _as_text(arguments, call)
        return text

    def _through_function(self, call: ast.Call, callee: FunctionSource, arguments: Arguments) -> Taint:
        summary = self.flow.summary(callee.key)
        result = frozenset(summary.returned_origins)
        for parameter, taint in _parameter_arguments(call, callee.node, arguments):
            if not taint:
                continue
            origins = _as_text(taint, call)  # `format_error(e)` is what made the text
            if parameter is None or parameter in summary.returned:
                result |= origins
            inner = summary.sinks.get(parameter or "")
            if inner is not None:
                self._sink(origins, Sink(call, f"{inner.description} in `{callee.key}`", False))
        return result

    def _through_imported(self, call: ast.Call, helper: TextHelper, arguments: Arguments) -> Taint:
        """A function of another module whose summary says which parameters' text it returns."""
        positional, keyword_only, returned = helper
        if positional[:1] in (("self",), ("cls",)):
            positional = positional[1:]
        result = _CLEAN
        index = 0
        for argument, taint in arguments:
            parameter: str | None
            if type(argument) is ast.keyword:
                parameter = argument.arg
            elif type(argument) is ast.Starred:
                parameter = None
            elif index < len(positional):
                parameter, index = positional[index], index + 1
            else:
                parameter = None
            if taint and (parameter is None or parameter in returned):
                result |= _as_text(taint, call)
        return result

    def _call_sinks(self, call: ast.Call, name: str, qualified: str | None, taint: Taint, awaited: bool) -> None:
        if not taint:
            return
        func = call.func
        sink = None
        if type(func) is ast.Attribute:
            receiver = dotted_name(func.value)
            method = func.attr
            if method == "send_log_message" or (method in CONTEXT_METHODS and receiver in self.context_names):
                # The SDKs' notifications are coroutines: one never awaited is never sent.
                if awaited:
                    sink = f"`{receiver or '...'}.{method}(...)`, a log notification the client receives"
        if qualified is None and name == "print" and self.flow.prints_into_transport() and _prints_to_stdout(call):
            sink = "`print(...)`, which writes into the stdio transport"
        if qualified and qualified.split(".")[0] in MCP_PACKAGES and qualified.rpartition(".")[2] in MCP_RESULT_TYPES:
            sink = f"`{qualified.rpartition('.')[2]}(...)`"
        if sink is not None:
            self._sink(taint, Sink(call, sink, False))


_COMPREHENSION_TYPES = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
_Comprehension = ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp


# -- helpers ------------------------------------------------------------------------------
def _only_own_text(handler: ast.ExceptHandler, caught: tuple[str, ...], own: set[str], text: set[str]) -> bool:
    """``exception_flow._only_own_text``: every class the clause catches is one its `try`
    raises with the project's own message only, or one of INPUT_ERRORS."""
    if handler.type is None:
        return False
    types = _caught_types(handler.type)
    for written, qualified in zip((dotted_name(named) or "" for named in types), caught, strict=True):
        if qualified in INPUT_ERRORS:
            continue
        if "." in written or written in CATCH_ALL or written in text or not owned_text_classes({written} & own):
            return False
    return True


def _materialise(item: Origin | _Marker, use: ast.AST) -> Origin:
    """A name's marker becomes an origin at the place it is used."""
    if isinstance(item, _Marker):
        return Origin(use, "exception", raw=True, parameter=item.parameter)
    return item


def _as_text(taint: Taint, node: ast.AST, kind: str | None = None) -> Taint:
    """The exception object turned into text at ``node``: the origin moves there."""
    return frozenset(
        Origin(node, kind or origin.kind, raw=False, parameter=origin.parameter) if origin.raw else origin
        for origin in taint
    )


def _union(taints: Iterable[Taint]) -> Taint:
    result = _CLEAN
    for taint in taints:
        result |= taint
    return result


def _merge_into(environment: Environment, other: Mapping[str, frozenset[Origin | _Marker]]) -> None:
    for name, taint in other.items():
        held = environment.get(name)
        if held is None:
            environment[name] = taint
        elif taint and taint is not held:  # most merged names hold nothing, or what they held
            environment[name] = held | taint


def _root_name(expression: ast.expr) -> str | None:
    while type(expression) is ast.Subscript or type(expression) is ast.Attribute:
        expression = expression.value
    return expression.id if type(expression) is ast.Name else None


def _target_names(target: ast.expr) -> Iterator[str]:
    if type(target) is ast.Name:
        yield target.id
    elif type(target) is ast.Tuple or type(target) is ast.List:
        for element in target.elts:
            # A starred element's value, as LibCST's element's (never a name itself).
            yield from _target_names(element.value if type(element) is ast.Starred else element)


def _arguments_of(call: ast.Call) -> list[Argument]:
    """A call's arguments in the order they are written (LibCST's `Call.args`)."""
    args, keywords = call.args, call.keywords
    if not keywords:
        return list(args)
    if not args:
        return list(keywords)
    arguments: list[Argument] = [*args, *keywords]
    first = keywords[0]
    last = args[-1]
    if (first.lineno, first.col_offset) < (last.lineno, last.col_offset):
        arguments.sort(key=lambda argument: (argument.lineno, argument.col_offset))  # `f(key=1, *rest)`
    return arguments


def _argument_value(argument: Argument) -> ast.expr:
    """What LibCST's `Arg.value` holds: the expression after `*`, `**` or `name=`."""
    if type(argument) is ast.Starred or type(argument) is ast.keyword:
        return argument.value
    return argument  # type: ignore[return-value]


def _prints_to_stdout(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "file":
            return dotted_name(keyword.value) == "sys.stdout"
    return True


@dataclass(frozen=True)
class _Parameters:
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    star: str | None
    double_star: str | None
    annotations: dict[str, ast.expr]

    @property
    def all(self) -> tuple[str, ...]:
        extra = tuple(name for name in (self.star, self.double_star) if name)
        return (*self.positional, *self.keyword_only, *extra)


def _parameters(function: Function) -> _Parameters:
    """The function's parameters, read once per node (each call site of it asks: the node keeps
    them, as it lives as long as the walk that holds it)."""
    found: _Parameters | None = getattr(function, "_mcplint_parameters", None)
    if found is None:
        found = _read_parameters(function)
        function._mcplint_parameters = found  # type: ignore[union-attr]
    return found


def _read_parameters(function: Function) -> _Parameters:
    arguments = function.args
    positional = (*arguments.posonlyargs, *arguments.args)
    annotations = {
        argument.arg: argument.annotation
        for argument in (*positional, *arguments.kwonlyargs)
        if argument.annotation is not None
    }
    return _Parameters(
        tuple(argument.arg for argument in positional),
        tuple(argument.arg for argument in arguments.kwonlyargs),
        arguments.vararg.arg if arguments.vararg is not None else None,
        arguments.kwarg.arg if arguments.kwarg is not None else None,
        annotations,
    )


def _parameter_arguments(call: ast.Call, function: Function, arguments: Arguments) -> Iterator[tuple[str | None, Taint]]:
    """(parameter, taint) per argument; None when the parameter cannot be told."""
    parameters = _parameters(function)
    positional = list(parameters.positional)
    if positional[:1] in (["self"], ["cls"]) and type(call.func) is ast.Attribute:
        positional = positional[1:]  # bound by the attribute access
    index = 0
    for argument, taint in arguments:
        if type(argument) is ast.keyword:
            name = argument.arg
            if name is None:  # `**kwargs`
                yield None, taint
                continue
            known = name in positional or name in parameters.keyword_only
            yield (name if known else parameters.double_star), taint
        elif type(argument) is ast.Starred:
            yield None, taint
        elif index < len(positional):
            yield positional[index], taint
            index += 1
        else:
            yield parameters.star, taint


class _SourceText:
    """The module's text where the tree does not tell what LibCST's does (how a literal or a
    tuple is written); read only for the few expressions that need it."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: list[str] | None = None

    def _segment(self, node: ast.expr) -> str:
        if self._lines is None:
            self._lines = source_lines(self._text)
        lineno, col = node.lineno, node.col_offset
        end_lineno, end_col = node.end_lineno or lineno, node.end_col_offset or 0
        # `ast`'s columns count UTF-8 bytes.
        lines = [line.encode() for line in self._lines[lineno - 1 : end_lineno]]
        if len(lines) == 1:
            return lines[0][col:end_col].decode(errors="replace")
        return b"\n".join([lines[0][col:], *lines[1:-1], lines[-1][:end_col]]).decode(errors="replace")

    def literal(self, node: ast.expr) -> object:
        """The value of a string literal written as one (LibCST's `SimpleString`), else None
        (`"a" "b"`, LibCST's `ConcatenatedString`)."""
        if type(node) is not ast.Constant or not isinstance(node.value, (str, bytes)):
            return None
        written = self._segment(node)
        end = _string_end(written, 0)
        if end is None or end == len(written):  # one literal (or positions to distrust: 3.11's in f-strings)
            return node.value
        return None if _string_end(written, _after_blanks(written, end)) is not None else node.value

    def parenthesised(self, node: ast.Tuple) -> bool:
        """Whether a tuple with items is written in parentheses of its own (``X[(A, B)]``),
        not only its first item (``X[(A), B]``): more opened before that item than closed
        after it."""
        first = node.elts[0]
        if (node.lineno, node.col_offset) == (first.lineno, first.col_offset):
            return False
        written = self._segment(node)
        start = self._offset_in(node, first.lineno, first.col_offset)
        end = self._offset_in(node, first.end_lineno or first.lineno, first.end_col_offset or 0)
        comma = written.find(",", end)
        return written[:start].count("(") > written[end : comma if comma != -1 else len(written)].count(")")

    def _offset_in(self, node: ast.expr, lineno: int, col: int) -> int:
        """Where (``lineno``, ``col``) is in ``node``'s segment (its lines joined by ``\\n``)."""
        lines = self._lines or []
        if lineno == node.lineno:
            return len(lines[lineno - 1].encode()[node.col_offset : col].decode(errors="replace"))
        offset = len(lines[node.lineno - 1].encode()[node.col_offset :].decode(errors="replace")) + 1
        offset += sum(len(line) + 1 for line in lines[node.lineno : lineno - 1])
        return offset + len(lines[lineno - 1].encode()[:col].decode(errors="replace"))


def _after_blanks(text: str, index: int) -> int:
    """Past the spaces, line breaks, continuations and comments from ``index`` on."""
    while index < len(text):
        char = text[index]
        if char in " \t\f\r\n\\":
            index += 1
        elif char == "#":
            line_end = text.find("\n", index)
            index = len(text) if line_end == -1 else line_end
        else:
            break
    return index


def _string_end(text: str, start: int) -> int | None:
    """Where the string literal written at ``start`` ends (after its closing quote), or None
    when none is written there."""
    index = start
    while index < len(text) and index - start < 2 and text[index] in "rRuUbBfF":
        index += 1
    if index >= len(text) or text[index] not in "'\"":
        return None
    quote = text[index : index + 3] if text[index : index + 3] in ('"""', "'''") else text[index]
    body = index = index + len(quote)
    while True:  # the first quote after an even run of backslashes
        found = text.find(quote, index)
        if found == -1:
            return None
        backslash = found - 1
        while backslash >= body and text[backslash] == "\\":
            backslash -= 1
        if (found - 1 - backslash) % 2 == 0:
            return found + len(quote)
        index = found + 1


# -- stdio servers ------------------------------------------------------------------------
class StdioDetector:
    """Whether the module runs its server over stdio (``exception_flow.StdioDetector``;
    ``text``: the module's source)."""

    def __init__(self, imports: AstImportTable, *, text: str) -> None:
        self.imports = imports
        self._source = _SourceText(text)
        self._servers: set[str] = set()
        self._runs: list[ast.Call] = []
        self.found = False

    def visit_Assign(self, node: ast.Assign, at_module_level: bool) -> None:
        value = node.value
        if at_module_level and type(value) is ast.Call and self.imports.qualified_name(value.func) in SERVER_CLASSES:
            self._servers.update(dotted_name(target) or "" for target in node.targets)

    def visit_Call(self, node: ast.Call) -> None:
        qualified = self.imports.qualified_name(node.func) or ""
        method = node.func.attr if type(node.func) is ast.Attribute else None
        if qualified.startswith("mcp.server.stdio.") or method == "run_stdio_async":
            self.found = True
        elif method == "run":
            self._runs.append(node)

    def is_stdio(self, imported_servers: Collection[str] = ()) -> bool:
        """``imported_servers``: the qualified names of the servers the module imports."""
        return self.found or any(self._runs_stdio(call, imported_servers) for call in self._runs)

    def _runs_stdio(self, call: ast.Call, imported_servers: Collection[str]) -> bool:
        assert isinstance(call.func, ast.Attribute)
        server = dotted_name(call.func.value)
        if server not in self._servers and self.imports.qualified_name(call.func.value) not in imported_servers:
            return False
        # Positional arguments come before any keyword one (Python refuses them after).
        transports = [
            *(arg for arg in call.args if type(arg) is not ast.Starred),
            *(keyword.value for keyword in call.keywords if keyword.arg == "transport"),
        ]
        transport = transports[0] if transports else None
        if transport is None:
            return True
        return self._source.literal(transport) == "stdio"
