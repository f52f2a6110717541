"""What a caught exception taints, and where that text reaches the client.

Sources (CodeQL's ``py/stack-trace-exposure`` list): the name an ``except ... as
e`` clause binds, ``e.__traceback__``, ``traceback.format_exc()`` and friends,
``sys.exc_info()``. The exception object becomes text through ``str``/``repr``/
``format``, f-strings (``{e}``, ``{e!r}``), ``%`` and ``.format``, and its
message-like attributes (``e.args``, ``e.message``, ``getattr(e, "msg")``); that
expression is the *origin* a finding points at.

Taint then flows, within one function and in statement order (branches merge,
loops run twice), through locals, string building, string methods,
containers (also filled by ``append``/``d[k] = v``), constructors and the
returns of the module's own functions: each function gets a summary saying
which parameters reach its return value or a sink inside it, so
``return format_error(e)`` and ``_raise_for(e)`` are followed, and which
exception text of its own its return value carries, so a caller that sends a
part of it (``result["error"]["message"]``) leaks it too.

Not followed, for precision: the project's own exception classes (defined in
the module or imported relatively: their text is written for the client, and
wrapping a cause into one is reported where it happens), other attributes of
the exception (``e.code``,
``type(e).__name__``), calls of functions that are neither the module's own,
nor builtins, serialisers or classes (``classify(e)``), the registry's helpers
(they never serialise the cause) and configured sanitisers.

Sinks are what the client receives: the returned value, a raised exception
(its constructor arguments), ``ctx.error/warning/info/debug/log(...)`` and
``send_log_message`` (log notifications), the MCP result types
(``TextContent(...)``, ``CallToolResult(...)``, ``ErrorData(...)``) and, on a
stdio server, ``print`` to stdout. Logging, ``warnings.warn`` and files are not.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import libcst as cst

from mcplint.analysis.empty_values import MUTATORS, own_nodes, units_of
from mcplint.analysis.handlers import SERVER_CLASSES
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.scopes import enclosing_function_keys
from mcplint.analysis.walk import children

_TRACEBACK_NAMES = ("format_exc", "format_exception", "format_exception_only", "format_tb", "format_stack")
TRACEBACK_FUNCTIONS = frozenset(
    [f"traceback.{name}" for name in (*_TRACEBACK_NAMES, "format_list", "extract_tb", "extract_stack")]
    + ["sys.exc_info", "sys.exception"]
)
STRINGIFIERS = frozenset({"str", "repr", "ascii", "format", "getattr"})
CONTAINER_BUILTINS = frozenset({"dict", "list", "tuple", "set", "frozenset", "sorted", "reversed"})
SERIALISERS = frozenset(
    {"json.dumps", "orjson.dumps", "ujson.dumps", "simplejson.dumps", "yaml.dump", "yaml.safe_dump", "flask.jsonify"}
    | {"pprint.pformat", "textwrap.shorten", "textwrap.fill", "textwrap.indent", "html.escape"}
)
# Methods whose result carries their arguments' text: `"; ".join(parts)`, `"{}".format(e)`.
TEXT_FROM_ARGUMENTS = frozenset({"join", "format", "format_map"})
# Attributes of an exception that hold its message or its traceback.
MESSAGE_ATTRIBUTES = frozenset({"args", "message", "msg", "detail", "details", "__str__", "__repr__", "__traceback__"})
# Attributes of an exception that hold the exception it was raised from or during.
CHAINED_ATTRIBUTES = frozenset({"__cause__", "__context__"})
CONTEXT_NAMES = frozenset({"ctx", "context"})
CONTEXT_METHODS = frozenset({"debug", "info", "warning", "error", "log", "report_progress"})
MCP_PACKAGES = ("mcp", "mcp_types", "fastmcp")
MCP_RESULT_TYPES = frozenset({"TextContent", "CallToolResult", "ErrorData", "TextResourceContents", "ToolResult"})
CATCH_ALL = frozenset({"Exception", "BaseException"})
# Classes whose text only describes what the caller handed in: a regular expression engine's
# compile error ("unterminated character set at position 0"), a schema validator's report on the
# data it was given ("1 validation error for Node ... Field required"). They say nothing of the
# server. (Not a JSON document's decode error, "Expecting value: line 1 column 1": the labels
# call it a leak where the document came from upstream, a look-alike where the client wrote it.)
INPUT_ERRORS = frozenset(
    {"re.error", "re.PatternError", "sre_constants.error", "regex.error", "re2.error"}
    | {"pydantic.ValidationError", "pydantic_core.ValidationError", "pydantic_core._pydantic_core.ValidationError"}
    | {"jsonschema.ValidationError", "jsonschema.exceptions.ValidationError"}
    # The codec, the byte and its position in the text or data the client asked to convert.
    | {"UnicodeDecodeError", "UnicodeEncodeError"}
)
# Functions that only turn a value into another (no I/O): what they raise describes that value.
# Not `json.loads`: the reviewers count a JSONDecodeError of what a service answered as a leak.
PURE_PARSERS = frozenset(
    {"int", "float", "complex", "len", "str", "isinstance", "round", "abs", "min", "max"}
    | {"decimal.Decimal", "fractions.Fraction", "uuid.UUID", "zoneinfo.ZoneInfo", "ast.literal_eval", "shlex.split"}
    | {"ipaddress.ip_address", "ipaddress.ip_network", "ipaddress.ip_interface", "urllib.parse.urlparse"}
    | {f"datetime.{kind}.fromisoformat" for kind in ("datetime", "date", "time")}
    | {"datetime.datetime.strptime", "datetime.datetime.fromtimestamp", "datetime.date.fromtimestamp"}
    | {"base64.b64decode", "base64.urlsafe_b64decode", "base64.b64encode"}
)
_BUILTIN_ERRORS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)
# The builtin classes a project raises to refuse an argument, which the system and libraries do
# not raise for a failed operation (unlike `OSError`, `RuntimeError`, `TimeoutError`).
_VALIDATION_ERRORS = frozenset({"ValueError", "TypeError", "KeyError", "IndexError", "LookupError", "NotImplementedError"})
# A generated registry helper is called with its symbol first: `notes_error("NOTE_NOT_FOUND", ...)`.
_HELPER_NAME = re.compile(r"[a-z][a-z0-9_]*_error")
_SYMBOL = re.compile(r"[A-Z][A-Z0-9_]*")


# -- except clauses -------------------------------------------------------------------
def caught_names(handler: cst.ExceptHandler | cst.ExceptStarHandler, imports: ImportTable) -> tuple[str, ...]:
    """The classes a clause catches, qualified where imported; () for a bare ``except:``."""
    if handler.type is None:
        return ()
    types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = (imports.qualified_name(t) or dotted_name(t) or "?" for t in types)
    return tuple(name.removeprefix("builtins.") for name in names)


def catches_everything(handler: cst.ExceptHandler, imports: ImportTable) -> bool:
    names = caught_names(handler, imports)
    return not names or any(name in CATCH_ALL for name in names)


def reraises(handler: cst.ExceptHandler) -> bool:
    """The clause raises on some path (a bare ``raise``, ``raise e``, or a new error)."""
    return any(isinstance(node, cst.Raise) for node in own_nodes(handler.body))


def bound_name(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> str | None:
    if handler.name is not None and isinstance(handler.name.name, cst.Name):
        return handler.name.name.value
    return None


# -- taint ------------------------------------------------------------------------------
class Origin(NamedTuple):
    """Where exception text is made: the expression a finding points at. (A named tuple: the
    analysis makes and hashes one for each use of a name holding exception text, and a tuple
    is made and hashed in a fraction of a frozen dataclass's time; the same hash, by value.)"""

    node: cst.CSTNode
    kind: str  # "exception" (its message) or "traceback"
    raw: bool = False  # the exception object itself, not yet turned into text
    parameter: str | None = None  # in a summary: the parameter the taint came in through


@dataclass(frozen=True)
class _Marker:
    """What a name holds before any use: the caught exception, or a parameter's value."""

    parameter: str | None = None


_CAUGHT = _Marker()
# A taint: the origins a value's text may come from; a name holds one, or its first marker.
Taint = frozenset["Origin"]
Environment = dict[str, frozenset["Origin | _Marker"]]  # what each local name holds
Arguments = list[tuple[cst.Arg, Taint]]  # a call's arguments with their taints
_CLEAN: Taint = frozenset()


@dataclass(frozen=True)
class Sink:
    node: cst.CSTNode
    description: str  # "the returned value", "the message of `raise ToolError(...)`", ...
    through_return: bool  # reaches the client only if the function's value reaches a handler's return


@dataclass(frozen=True)
class Leak:
    function: str
    origin: Origin
    sink: Sink


@dataclass
class Summary:
    """What a function does with its parameters' text."""

    returned: set[str] = field(default_factory=set)
    sinks: dict[str, Sink] = field(default_factory=dict)
    # Exception text of its own that its return value carries (`return {"error": {"message":
    # f"Request failed: {e}"}}`): a caller that sends a part of that value leaks it too.
    returned_origins: set[Origin] = field(default_factory=set)
    # The classes (last names) it raises with a message of its own, in its body or in the
    # project functions it calls, that no `try` of its own catches: `raise ValueError("No
    # workspace configured. Run setup first.")` in a `get_workspace()` the tools call ...
    raised_own: set[str] = field(default_factory=set)
    # ... and those it raises carrying exception text (`raise ValueError(f"... {e}")`).
    raised_text: set[str] = field(default_factory=set)


# What a function raises: (classes with the project's own messages, classes with exception text).
Raised = tuple[frozenset[str], frozenset[str]]
_NOTHING_RAISED: Raised = (frozenset(), frozenset())
# (positional parameters, keyword-only parameters, the parameters whose text is returned)
TextHelper = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
# What an analysis asked of its context: (kind, the question), and the answer it was given.
Question = tuple[str, tuple[Any, ...]]
Questions = dict[Question, object]


def text_helper(summary: Summary, function: cst.FunctionDef) -> TextHelper | None:
    """What other modules need of a function's summary to follow text through its calls."""
    if not summary.returned:
        return None
    parameters = _parameters(function)
    return parameters.positional, parameters.keyword_only, tuple(sorted(summary.returned))


@dataclass(frozen=True)
class FunctionSource:
    key: str
    node: cst.FunctionDef
    class_key: str | None


class ContextMemory:
    """What both flows (LibCST's and `ast`'s) share of their context: what it was at the last
    ``drop_stale`` (the call targets' function, the handler scope's, which keeps its answers; the
    rest by value: the same again, no remembered answer can differ), what it answers each kind of
    question now, and what another module's function raises."""

    _asked_with: tuple[object, tuple[object, ...]] | None = None
    external_calls: Callable[[str, str | None], list[str]]
    imported_text_helpers: Mapping[str, object]
    imported_raisers: Mapping[str, Raised]
    stdio: bool
    helpers_module: str | None
    helper_names: frozenset[str]

    def forget_context(self) -> None:
        self._asked_with = None

    def _told_the_same(self, questions: Questions, now: Questions, registry_aside: bool = False) -> bool:
        """Whether the present context tells each question what it told the analysis (``now``:
        the present answers worked out so far, one per question for every function asking it;
        ``registry_aside``: the registry's questions are told the same)."""
        for question, told in questions.items():
            if registry_aside and question[0] == "registry":
                continue
            try:
                answer = now[question]
            except KeyError:
                answer = now[question] = self._answer_now(*question)
            if answer != told:
                return False
        return True

    def _answer_now(self, kind: str, asked: tuple[Any, ...]) -> object:
        """What the present context answers ``asked``, as the analysis was told it."""
        if kind == "helper":
            return self.imported_text_helpers.get(asked[0])
        if kind == "no_helper":  # the targets were not looked up: no helper may sit among them now
            found = any(self.imported_text_helpers.get(target) is not None for target in self.external_calls(*asked))
            return True if found else None
        if kind == "targets":
            return self.external_calls(*asked)
        if kind == "raised":
            return self._raised(*asked)
        if kind == "stdio":
            return self.stdio
        tail, qualified = asked  # "registry"
        return _registry_helper(tail, qualified, self.helpers_module, self.helper_names)

    def _raised(self, qualified: str | None, callee: str, function: str) -> Raised:
        if not self.imported_raisers:
            return _NOTHING_RAISED
        found = self.imported_raisers.get(qualified or "")
        if found is not None:
            return found
        targets = [self.imported_raisers.get(target, _NOTHING_RAISED) for target in self.external_calls(callee, function)]
        return frozenset().union(*(own for own, _ in targets)), frozenset().union(*(text for _, text in targets))

    def _context_is_the_same(self) -> bool:
        """Whether every question would be told what it was at the last ``drop_stale`` (the
        judging round after the last export, a round that changed only what the flow never
        asks); remembers the present context for the next."""
        present = (self.imported_text_helpers, self.imported_raisers, self.stdio, self.helpers_module, self.helper_names)
        last, self._asked_with = self._asked_with, (self.external_calls, present)
        return last is not None and last[0] is self.external_calls and last[1] == present


class ExceptionFlow(ContextMemory):
    """The taint analysis of one module's functions, run once the walk has seen them all.

    Callees are found by key (``name``, ``f.<locals>.g``, ``Class.method``), so
    functions of other modules could be added the same way.
    """

    def __init__(
        self,
        imports: ImportTable,
        *,
        sanitizers: Iterable[str] = (),
        helpers_module: str | None = None,
        helper_names: Iterable[str] = (),
        stdio: bool = False,
        project_classes: Iterable[str] = (),
        project_imports: Iterable[str] = (),
    ) -> None:
        self.imports = imports
        self.project_classes = frozenset(project_classes)
        self.project_imports = frozenset(project_imports)
        self.sanitizers = frozenset(sanitizers)
        self.helpers_module = helpers_module
        self.helper_names = frozenset(helper_names)
        self.stdio = stdio
        self.functions: dict[str, list[FunctionSource]] = {}
        # Other modules' functions by qualified name: which parameters' text they return.
        self.imported_text_helpers: dict[str, TextHelper] = {}
        # Other modules' functions by qualified name: the classes they raise with their own
        # messages and with exception text (Summary.raised_own, Summary.raised_text).
        self.imported_raisers: dict[str, Raised] = {}
        # Which functions of other modules a call in a function may run (the handler scope's).
        self.external_calls: Callable[[str, str | None], list[str]] = lambda callee, function: []
        self._summaries: dict[str, Summary] = {}
        self._leaks: dict[str, list[Leak]] = {}
        self._running: list[str] = []  # the functions being analysed, the innermost last
        # The functions whose analysis met a callee in progress (a call cycle), which counted
        # as clean there: their analyses, and those that read them, depend on which function
        # was asked for first (``drop_stale`` drops them).
        self._met_cycle: set[str] = set()
        # Per function analysed: what it asked of the project context (other modules' helpers
        # and raisers, the targets of its calls, the transport, the registry's helpers) and
        # what it was told, and the functions of this module whose summaries it read. A later
        # round's context keeps each analysis whose answers stay the same (``drop_stale``).
        self._asked: dict[str, Questions] = {}
        self._callees: dict[str, set[str]] = {}
        self._orders: dict[str, dict[int, int]] = {}  # function -> id(node) -> place in its source

    def forget(self) -> None:
        """Drop the summaries and leaks computed so far."""
        self._summaries.clear()
        self._leaks.clear()
        self._running.clear()
        self._met_cycle.clear()
        self._asked.clear()
        self._callees.clear()
        self.forget_context()

    def drop_stale(self) -> int:
        """Drop the analyses the flow's present context (a later round's helpers, raisers,
        call targets, transport or registry) would answer otherwise than it answered them,
        those that met a call cycle, and those of every function that read one of their
        summaries; the others stand (what their functions and callees make them, whichever
        function is asked for first). Returns how many were dropped."""
        if self._context_is_the_same():
            stale = set(self._met_cycle)
        else:
            now: Questions = {}
            stale = {key for key, questions in self._asked.items() if not self._told_the_same(questions, now)}
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
        """The imported text helper of that qualified name, if any (the answer is remembered:
        see drop_stale)."""
        found = self.imported_text_helpers.get(name)
        self._ask("helper", (name,), found)
        return found

    def has_text_helpers(self, callee: str, function: str) -> bool:
        """Whether any text helper is imported: without, the call's targets are not looked up
        (which is remembered, see drop_stale)."""
        if self.imported_text_helpers:
            return True
        self._ask("no_helper", (callee, function), None)
        return False

    def external_targets(self, callee: str, function: str) -> list[str]:
        """The functions of other modules the call may run (the answer is remembered)."""
        targets = self.external_calls(callee, function)
        self._ask("targets", (callee, function), list(targets))
        return targets

    def imported_raised(self, qualified: str | None, callee: str, function: str) -> Raised:
        """What a call of another module's function raises: (with the project's own messages,
        with exception text)."""
        found = self._raised(qualified, callee, function)
        self._ask("raised", (qualified, callee, function), found)
        return found

    def prints_into_transport(self) -> bool:
        """Whether `print` writes into the stdio transport here (the answer is remembered)."""
        self._ask("stdio", (), self.stdio)
        return self.stdio

    def add_function(self, key: str, node: cst.FunctionDef, class_key: str | None) -> None:
        self.functions.setdefault(key, []).append(FunctionSource(key, node, class_key))

    def leaks(self, only: Iterable[str] | None = None) -> list[Leak]:
        """Every origin that reaches a sink, once, with its most telling sink (in the ``only``
        functions, when given)."""
        found: list[Leak] = []
        wanted = None if only is None else set(only)
        keys = self.functions if wanted is None else [key for key in self.functions if key in wanted]
        for key in keys:
            self._analyse(key)
            if not self._leaks[key]:
                continue
            # In source order: the taint sets the analysis iterates are ordered by node ids, which
            # differ from run to run, and the first leak of a clause is the one whose fix adds
            # the clause's logging line.
            order = self._source_order(key)
            by_origin: dict[cst.CSTNode, list[Leak]] = {}
            # (By origin only: one origin's sinks come in the order the analysis met them.)
            for leak in sorted(self._leaks[key], key=lambda leak: order(leak.origin.node)):
                by_origin.setdefault(leak.origin.node, []).append(leak)
            for leaks in by_origin.values():
                # A sink that reaches the client wherever the function is called beats a return.
                found.append(next((leak for leak in leaks if not leak.sink.through_return), leaks[0]))
        return found

    def _source_order(self, key: str) -> Callable[[cst.CSTNode], int]:
        """A function's nodes numbered in the order the source has them."""
        numbers = self._orders.get(key)
        if numbers is None:
            numbers = self._orders[key] = {}
            pending: list[cst.CSTNode] = [self.functions[key][-1].node]
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
    def resolve(self, func: cst.BaseExpression, caller: FunctionSource) -> FunctionSource | None:
        dotted = dotted_name(func)
        if dotted is None:
            return None
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

    def is_project_exception(self, handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
        """Every caught class is the project's own: defined in the module, or imported relatively.

        Their text is written for the client; where one wraps a cause
        (`raise NotesError(f"... {e}")`), that wrapping is the finding.
        """
        if handler.type is None:
            return False
        types = [element.value for element in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
        written = [dotted_name(t) or "" for t in types]
        return all(name in self.project_classes or name.split(".")[0] in self.project_imports for name in written)

    def is_sanitiser(self, call: cst.Call) -> bool:
        """A configured sanitiser, or a registry helper (it never serialises the cause)."""
        dotted = dotted_name(call.func) or ""
        qualified = self.imports.qualified_name(call.func) or ""
        tail = dotted.rpartition(".")[2]
        if self.sanitizers & {dotted, qualified, tail}:
            return True
        if _called_like_a_helper(call, tail):
            return True
        told = _registry_helper(tail, qualified, self.helpers_module, self.helper_names)
        self._ask("registry", (tail, qualified), told)
        return told


def _registry_helper(tail: str, qualified: str, helpers_module: str | None, helper_names: frozenset[str]) -> bool:
    """A call of one of the registry's helpers: by its name, or imported from its module."""
    return tail in helper_names or _from_helpers_module(qualified, helpers_module)


def _from_helpers_module(qualified: str, helpers_module: str | None) -> bool:
    """Imported from the registry's generated module (relatively: its last parts)."""
    module = qualified.rpartition(".")[0]
    if not helpers_module or not module:
        return False
    return module == helpers_module or f".{helpers_module}".endswith("." + module.lstrip("."))


def _called_like_a_helper(call: cst.Call, name: str) -> bool:
    """`<domain>_error("SYMBOL", ...)`: the shape of a generated helper call, registry or not."""
    first = call.args[0].value if call.args else None
    return (
        _HELPER_NAME.fullmatch(name) is not None
        and isinstance(first, cst.SimpleString)
        and isinstance(first.evaluated_value, str)
        and _SYMBOL.fullmatch(first.evaluated_value) is not None
    )


_COMPREHENSION_TYPES = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})
_Comprehension = cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp


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
        self._awaited: cst.CSTNode | None = None  # the expression of the latest `await` met
        # Per `try` body being run, innermost last: the classes raised in it with own messages,
        # and with exception text.
        self._raised_in_try: list[tuple[set[str], set[str]]] = []
        self._calls_in_try: list[list[str]] = []  # per open `try` body, what it calls

    def run(self) -> None:
        environment: Environment = {name: frozenset({_Marker(name)}) for name in self.parameters.all if name not in ("self", "cls")}
        for name in self._exception_parameters():
            # `def error_response(action, exc: BaseException)`: a caught exception handed in; its
            # text leaks here, where the helper puts it into what it returns (and, through the
            # helper's summary, at the calls that return what it gives back).
            environment[name] = frozenset({_Marker(name), _CAUGHT})
        self._block(units_of(self.source.node.body), environment)

    def _exception_parameters(self) -> list[str]:
        found = []
        for name, annotation in self.parameters.annotations.items():
            for named in _annotation_types(annotation):
                written = dotted_name(named) or ""
                tail = written.rpartition(".")[2]
                if not (tail in ("BaseException", "Exception") or tail.endswith(("Error", "Exception"))):
                    continue
                # The project's own exception classes carry text written for the client.
                if written in self.flow.project_classes or written.split(".")[0] in self.flow.project_imports:
                    continue
                found.append(name)
                break
        return found

    def _typed_context_parameters(self) -> set[str]:
        found = set()
        for name, annotation in self.parameters.annotations.items():
            for named in _annotation_types(annotation):
                qualified = self.imports.qualified_name(named) or ""
                if qualified.rpartition(".")[2] == "Context" and qualified.split(".")[0] in MCP_PACKAGES:
                    found.add(name)
        return found

    # -- statements --------------------------------------------------------------------
    def _block(self, units: Sequence[cst.CSTNode], environment: Environment) -> None:
        for unit in units:
            self._statement(unit, environment)

    def _statement(self, node: cst.CSTNode, environment: Environment) -> None:
        if type(node) is cst.Assign:
            taint = self._taint(node.value, environment)
            for target in node.targets:
                self._bind(target.target, taint, environment)
        elif type(node) is cst.AnnAssign and node.value is not None:
            self._bind(node.target, self._taint(node.value, environment), environment)
        elif type(node) is cst.AugAssign:
            self._bind(node.target, self._taint(node.value, environment), environment, weak=True)
        elif type(node) is cst.Expr:
            self._taint(node.value, environment)
        elif type(node) is cst.Return and node.value is not None:
            self._sink(self._taint(node.value, environment), Sink(node, "the returned value", True))
        elif type(node) is cst.Raise:
            self._raise(node, environment)
        elif type(node) is cst.Del:
            for name in _target_names(node.target):
                environment.pop(name, None)
        elif type(node) is cst.FunctionDef or type(node) is cst.ClassDef:
            environment.pop(node.name.value, None)  # analysed on its own
        else:
            self._compound(node, environment)

    def _compound(self, node: cst.CSTNode, environment: Environment) -> None:
        if isinstance(node, cst.If):
            self._taint(node.test, environment)
            otherwise = dict(environment)
            self._block(units_of(node.body), environment)
            if isinstance(node.orelse, cst.If):
                self._statement(node.orelse, otherwise)
            elif node.orelse is not None:
                self._block(units_of(node.orelse.body), otherwise)
            _merge_into(environment, otherwise)
        elif isinstance(node, (cst.For, cst.While)):
            self._loop(node, environment)
        elif isinstance(node, (cst.Try, cst.TryStar)):
            self._try(node, environment)
        elif isinstance(node, cst.With):
            for item in node.items:
                taint = self._taint(item.item, environment)
                if item.asname is not None:
                    self._bind(item.asname.name, taint, environment)
            self._block(units_of(node.body), environment)
        elif isinstance(node, cst.Match):
            self._taint(node.subject, environment)
            before = dict(environment)
            for case in node.cases:
                branch = dict(before)
                self._block(units_of(case.body), branch)
                _merge_into(environment, branch)

    def _loop(self, node: cst.For | cst.While, environment: Environment) -> None:
        # Twice, so that what one iteration taints reaches the next one's uses; once where the
        # first taints nothing new (the second would start where it did and find the same).
        iterated = self._taint(node.iter, environment) if isinstance(node, cst.For) else _CLEAN
        for _ in range(2):
            before = dict(environment)
            body = dict(environment)
            if isinstance(node, cst.For):
                self._bind(node.target, iterated, body)
            else:
                self._taint(node.test, body)
            self._block(units_of(node.body), body)
            _merge_into(environment, body)
            if environment == before:
                break
        if node.orelse is not None:
            self._block(units_of(node.orelse.body), environment)

    def _try(self, node: cst.Try | cst.TryStar, environment: Environment) -> None:
        before = dict(environment)
        self._raised_in_try.append((set(), set()))
        self._calls_in_try.append([])
        self._block(units_of(node.body), environment)
        own, text = self._raised_in_try.pop()
        calls = self._calls_in_try.pop()
        # A body that only parses values (`ZoneInfo(name)`, `datetime.fromisoformat(text)`):
        # what it raises describes the value, never the server's paths, hosts or queries.
        parses_only = bool(calls) and not text and all(call in PURE_PARSERS for call in calls)
        escaping = (set(own), set(text))
        # The exception may come from any statement of the body: both states are possible.
        on_error = dict(before)
        _merge_into(on_error, environment)
        outcomes = []
        for handler in node.handlers:
            clause = dict(on_error)
            name = bound_name(handler)
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
            self._block(units_of(handler.body), clause)
            if name is not None:
                clause.pop(name, None)  # Python unbinds it when the clause ends
            outcomes.append(clause)
        self._raises(*escaping)
        if node.orelse is not None:
            self._block(units_of(node.orelse.body), environment)
        for clause in outcomes:
            _merge_into(environment, clause)
        if node.finalbody is not None:
            self._block(units_of(node.finalbody.body), environment)

    def _raises(self, own: Iterable[str], text: Iterable[str] = ()) -> None:
        """Classes raised here with the project's own messages and with exception text: the
        innermost `try` body being run collects them, else they escape the function."""
        if self._raised_in_try:
            into_own, into_text = self._raised_in_try[-1]
        else:
            into_own, into_text = self.summary.raised_own, self.summary.raised_text
        into_own.update(own)
        into_text.update(text)

    def _raise(self, node: cst.Raise, environment: Environment) -> None:
        if node.exc is None:
            return
        taint = self._taint(node.exc, environment)
        if isinstance(node.exc, cst.Name) and all(origin.raw for origin in taint):
            return  # `raise e`: the same exception goes on, nothing new is said
        raised = node.exc.func if isinstance(node.exc, cst.Call) else node.exc
        name = dotted_name(raised)
        shown = f"`raise {name}(...)`" if isinstance(node.exc, cst.Call) and name else "the raised exception"
        self._sink(taint, Sink(node, f"the message of {shown}", False))
        raised_class = (name or "").rpartition(".")[2]
        if isinstance(node.exc, cst.Call) and raised_class[:1].isupper():
            # A parameter's text is the caller's to judge (its summary's sinks).
            if all(origin.parameter for origin in taint):
                self._raises((raised_class,))
            else:
                self._raises((), (raised_class,))

    def _bind(self, target: cst.BaseExpression, taint: Taint, environment: Environment, weak: bool = False) -> None:
        if isinstance(target, cst.Name):
            previous = environment.get(target.value, _CLEAN) if weak else _CLEAN
            environment[target.value] = previous | taint
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind(element.value, taint, environment, weak)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, taint, environment, weak)
        elif isinstance(target, (cst.Subscript, cst.Attribute)):
            # `result["error"] = msg`: the local container now carries the text (not `self`).
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
    def _taint(self, node: cst.CSTNode | None, environment: Environment) -> Taint:
        # `type(node) is`: these classes have no subclasses, and `isinstance` on LibCST's ABCs
        # costs several times more (this runs for every expression of every function judged).
        if node is None:
            return _CLEAN
        if type(node) is cst.Name:
            return frozenset(_materialise(item, node) for item in environment.get(node.value, _CLEAN))
        if type(node) is cst.Attribute:
            return self._attribute(node, environment)
        if type(node) is cst.Call:
            return self._call(node, environment)
        if type(node) is cst.Await:
            self._awaited = node.expression
            return self._taint(node.expression, environment)
        if type(node) is cst.FormattedString:
            return self._formatted(node, environment)
        if type(node) is cst.BinaryOperation:  # `"%s" % e`, `"failed: " + str(e)`
            taint = self._taint(node.left, environment) | self._taint(node.right, environment)
            return _as_text(taint, node)
        if type(node) is cst.Lambda:
            return _CLEAN
        if type(node) is cst.Comparison or type(node) is cst.UnaryOperation:
            self._parts(node, environment)  # calls inside still run (and may be sinks)
            return _CLEAN  # a truth value or a number
        if type(node) in _COMPREHENSION_TYPES:
            return self._comprehension(cast(_Comprehension, node), environment)
        if type(node) is cst.NamedExpr:
            taint = self._taint(node.value, environment)
            self._bind(node.target, taint, environment)
            return taint
        if type(node) is cst.Subscript:
            for element in node.slice:
                self._taint(element.slice, environment)
            return self._taint(node.value, environment)
        if type(node) is cst.IfExp:
            self._taint(node.test, environment)
            return self._taint(node.body, environment) | self._taint(node.orelse, environment)
        # Strings, containers, boolean operations, slices, starred values: the union of the parts.
        return self._parts(node, environment)

    def _parts(self, node: cst.CSTNode, environment: Environment) -> Taint:
        taint = _CLEAN
        for child in children(node):
            taint |= self._taint(child, environment)
        return taint

    def _attribute(self, node: cst.Attribute, environment: Environment) -> Taint:
        base = self._taint(node.value, environment)
        exception = frozenset(origin for origin in base if origin.raw)
        text = base - exception
        if exception and node.attr.value in MESSAGE_ATTRIBUTES:
            kind = "traceback" if node.attr.value == "__traceback__" else None
            text |= _as_text(exception, node, kind)
        elif node.attr.value in CHAINED_ATTRIBUTES:
            return base  # `e.__cause__`: another exception, whose text is as telling
        return text  # `e.code`, `e.__class__`: not the message

    def _formatted(self, node: cst.FormattedString, environment: Environment) -> Taint:
        taint = _CLEAN
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                taint |= _as_text(self._taint(part.expression, environment), part)
        return taint

    def _comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp, environment: Environment
    ) -> Taint:
        inner = dict(environment)
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            self._bind(clause.target, self._taint(clause.iter, inner), inner)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            return self._taint(node.key, inner) | self._taint(node.value, inner)
        return self._taint(node.elt, inner)

    def _call(self, call: cst.Call, environment: Environment) -> Taint:
        awaited = call is self._awaited  # before the arguments' own `await`s
        func = call.func
        qualified = self.imports.qualified_name(func)
        name = qualified or dotted_name(func) or ""
        for calls in self._calls_in_try:
            calls.append(name)
        if qualified in TRACEBACK_FUNCTIONS:
            return frozenset({Origin(call, "traceback")})
        receiver = self._taint(func, environment) if not isinstance(func, (cst.Name, cst.Attribute)) else _CLEAN
        arguments = [(arg, self._taint(arg.value, environment)) for arg in call.args]
        everything = _union(taint for _, taint in arguments)
        if self.flow.is_sanitiser(call):
            return _CLEAN
        self._call_sinks(call, name, qualified, everything, awaited)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value in MUTATORS:
            self._bind(func.value, everything, environment, weak=True)
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
        if isinstance(func, cst.Attribute):
            return receiver | self._method(call, func, environment, everything)
        return receiver

    @staticmethod
    def _plain_callee(func: cst.BaseExpression, environment: Environment) -> bool:
        """A name, or a chain of attributes on a name, whose root carries no taint: what a call
        of it returns without text in its arguments is clean, helper or not (its taint has no
        part to evaluate, so nothing else is asked or found on the way)."""
        while type(func) is cst.Attribute:
            func = func.value
        return type(func) is cst.Name and not environment.get(func.value)

    def _stringified(self, call: cst.Call, name: str, arguments: Arguments) -> Taint:
        if name == "getattr" and len(arguments) >= 2:
            attribute = arguments[1][0].value
            wanted = attribute.evaluated_value if isinstance(attribute, cst.SimpleString) else None
            default = arguments[2][1] if len(arguments) > 2 else _CLEAN
            if isinstance(wanted, str) and wanted not in MESSAGE_ATTRIBUTES:
                return default  # getattr(e, "status_code", None)
            return _as_text(arguments[0][1], call) | default
        return _as_text(_union(taint for _, taint in arguments), call)

    def _method(self, call: cst.Call, func: cst.Attribute, environment: Environment, arguments: Taint) -> Taint:
        owner = self._taint(func.value, environment)
        # A parameter may hold text already: its methods (`text.replace(...)`) keep the taint.
        exception = frozenset(origin for origin in owner if origin.raw and origin.parameter is None)
        text = owner - exception
        if exception and func.attr.value in MESSAGE_ATTRIBUTES:  # e.__str__(), grpc's e.details()
            text |= _as_text(exception, call)
        if func.attr.value in TEXT_FROM_ARGUMENTS:
            text |= _as_text(arguments, call)
        return text

    def _through_function(self, call: cst.Call, callee: FunctionSource, arguments: Arguments) -> Taint:
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

    def _through_imported(self, call: cst.Call, helper: TextHelper, arguments: Arguments) -> Taint:
        """A function of another module whose summary says which parameters' text it returns."""
        positional, keyword_only, returned = helper
        if positional[:1] in (("self",), ("cls",)):
            positional = positional[1:]
        result = _CLEAN
        index = 0
        for arg, taint in arguments:
            if arg.star or arg.keyword is not None:
                parameter = arg.keyword.value if arg.keyword is not None else None
            elif index < len(positional):
                parameter, index = positional[index], index + 1
            else:
                parameter = None
            if taint and (parameter is None or parameter in returned):
                result |= _as_text(taint, call)
        return result

    def _call_sinks(self, call: cst.Call, name: str, qualified: str | None, taint: Taint, awaited: bool) -> None:
        if not taint:
            return
        func = call.func
        sink = None
        if isinstance(func, cst.Attribute):
            receiver = dotted_name(func.value)
            method = func.attr.value
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


# -- helpers ------------------------------------------------------------------------------
def owned_text_classes(raised: Iterable[str]) -> set[str]:
    """Of the classes raised with the project's own messages, those whose text a clause catching
    them may read as the project's (not the builtin classes libraries raise too)."""
    return {name for name in raised if name not in _BUILTIN_ERRORS or name in _VALIDATION_ERRORS}


def _only_own_text(
    handler: cst.ExceptHandler | cst.ExceptStarHandler, caught: tuple[str, ...], own: set[str], text: set[str]
) -> bool:
    """Every class the clause catches is one its `try` raises with the project's own message
    (in its body or the project functions it calls) and never with exception text, or one of
    INPUT_ERRORS: the text is written for the client, or only describes what the caller handed
    in. Not a catch-all, not a builtin class the system and libraries raise with
    their own text (`OSError`, `RuntimeError`, ...), and not a class named through its library
    (`httpx.HTTPError`): those come from the calls in the `try` as well."""
    if handler.type is None:
        return False
    types = [element.value for element in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    for written, qualified in zip((dotted_name(named) or "" for named in types), caught, strict=True):
        if qualified in INPUT_ERRORS:
            continue
        if "." in written or written in CATCH_ALL or written in text or not owned_text_classes({written} & own):
            return False
    return True


def _materialise(item: Origin | _Marker, use: cst.Name) -> Origin:
    """A name's marker becomes an origin at the place it is used."""
    if isinstance(item, _Marker):
        return Origin(use, "exception", raw=True, parameter=item.parameter)
    return item


def _as_text(taint: Taint, node: cst.CSTNode, kind: str | None = None) -> Taint:
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
        environment[name] = environment.get(name, _CLEAN) | taint


def _root_name(expression: cst.BaseExpression) -> str | None:
    while isinstance(expression, (cst.Subscript, cst.Attribute)):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else None


def _target_names(target: cst.BaseExpression) -> Iterator[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _target_names(element.value)


def _prints_to_stdout(call: cst.Call) -> bool:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "file":
            return dotted_name(arg.value) == "sys.stdout"
    return True


@dataclass(frozen=True)
class _Parameters:
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    star: str | None
    double_star: str | None
    annotations: dict[str, cst.BaseExpression]

    @property
    def all(self) -> tuple[str, ...]:
        extra = tuple(name for name in (self.star, self.double_star) if name)
        return (*self.positional, *self.keyword_only, *extra)


def _parameters(function: cst.FunctionDef) -> _Parameters:
    params = function.params
    positional = (*params.posonly_params, *params.params)
    annotations = {
        param.name.value: param.annotation.annotation
        for param in (*positional, *params.kwonly_params)
        if param.annotation is not None
    }
    star = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
    double_star = params.star_kwarg.name.value if params.star_kwarg is not None else None
    return _Parameters(
        tuple(param.name.value for param in positional),
        tuple(param.name.value for param in params.kwonly_params),
        star,
        double_star,
        annotations,
    )


def _parameter_arguments(
    call: cst.Call, function: cst.FunctionDef, arguments: Arguments
) -> Iterator[tuple[str | None, Taint]]:
    """(parameter, taint) per argument; None when the parameter cannot be told."""
    parameters = _parameters(function)
    positional = list(parameters.positional)
    if positional[:1] in (["self"], ["cls"]) and isinstance(call.func, cst.Attribute):
        positional = positional[1:]  # bound by the attribute access
    index = 0
    for arg, taint in arguments:
        if arg.star:
            yield None, taint
        elif arg.keyword is not None:
            name = arg.keyword.value
            known = name in positional or name in parameters.keyword_only
            yield (name if known else parameters.double_star), taint
        elif index < len(positional):
            yield positional[index], taint
            index += 1
        else:
            yield parameters.star, taint


def _annotation_types(annotation: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The types an annotation names: `X`, `X | None`, `Optional[X]`, `X[A, B]`."""
    if isinstance(annotation, cst.BinaryOperation):
        yield from _annotation_types(annotation.left)
        yield from _annotation_types(annotation.right)
    elif isinstance(annotation, cst.Subscript):
        yield annotation.value
        for element in annotation.slice:
            if isinstance(element.slice, cst.Index):
                yield from _annotation_types(element.slice.value)
    else:
        yield annotation


# -- stdio servers ------------------------------------------------------------------------
class StdioDetector:
    """Whether the module runs its server over stdio (where stdout *is* the transport).

    Fed during the walk: ``mcp.server.stdio.stdio_server()``, ``X.run_stdio_async()``,
    and ``X.run()`` / ``X.run("stdio")`` / ``X.run(transport="stdio")`` on a
    module-level server object or one imported from another module of the project (stdio is
    the default transport).
    """

    def __init__(self, imports: ImportTable) -> None:
        self.imports = imports
        self._servers: set[str] = set()
        self._runs: list[cst.Call] = []
        self.found = False

    def visit_Assign(self, node: cst.Assign, at_module_level: bool) -> None:
        value = node.value
        if (
            at_module_level
            and isinstance(value, cst.Call)
            and self.imports.qualified_name(value.func) in SERVER_CLASSES
        ):
            self._servers.update(dotted_name(t.target) or "" for t in node.targets)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.imports.qualified_name(node.func) or ""
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        if qualified.startswith("mcp.server.stdio.") or method == "run_stdio_async":
            self.found = True
        elif method == "run":
            self._runs.append(node)

    def is_stdio(self, imported_servers: Collection[str] = ()) -> bool:
        """``imported_servers``: the qualified names of the servers the module imports."""
        return self.found or any(self._runs_stdio(call, imported_servers) for call in self._runs)

    def _runs_stdio(self, call: cst.Call, imported_servers: Collection[str]) -> bool:
        assert isinstance(call.func, cst.Attribute)
        server = dotted_name(call.func.value)
        if server not in self._servers and self.imports.qualified_name(call.func.value) not in imported_servers:
            return False
        transports = [
            arg.value
            for arg in call.args
            if (arg.keyword is None and not arg.star) or (arg.keyword and arg.keyword.value == "transport")
        ]
        transport = transports[0] if transports else None
        if transport is None:
            return True
        return isinstance(transport, cst.SimpleString) and transport.evaluated_value == "stdio"
