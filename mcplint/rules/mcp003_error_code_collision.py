from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from mcplint.analysis.error_payloads import MCP_PACKAGES, is_error_dict, string_value
from mcplint.analysis.imports import TEST_FRAMEWORKS, dotted_name, imported_package
from mcplint.analysis.prescreen import ImportScreen
from mcplint.protocol_codes import SPEC_CODES, band_problem
from mcplint.registry.model import Registry
from mcplint.rules.base import Rule, RuleContext, configured_registry

if TYPE_CHECKING:
    from mcplint.settings import FileSettings

ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum"})
# A table's name ends in what it holds: `ErrorCode`, `JsonRpcErrors`, `NotFoundError`, `Errno`.
TABLE_NAME = re.compile(r"(?:err(?:or)?s?|codes?|errno)$", re.IGNORECASE)
# A class of constants named `...Error` with no base is a table too; with a base it is an exception.
PLURAL_TABLE_NAME = re.compile(r"(?:codes?|errors|errs|errno)$", re.IGNORECASE)
CODE_WORDS = frozenset({"ERROR", "ERR", "ERRNO", "CODE"})  # plurals name counts and collections
# Constants that name a range bound or a quantity, not a code: `SERVER_ERROR_START`, `ERROR_BODY_CAP`.
RANGE_BOUNDS = frozenset(
    {"START", "END", "BEGIN", "STOP", "BASE", "OFFSET", "FIRST", "LAST", "LOW", "HIGH", "RANGE", "MIN", "MAX"}
)
NOT_A_CODE = RANGE_BOUNDS | {
    *("LIMIT", "CAP", "COUNT", "SIZE", "LEN", "LENGTH", "TIMEOUT", "RETRY", "RETRIES", "THRESHOLD"),
    *("DELAY", "INTERVAL", "BYTES", "CHARS", "LINES", "TTL", "WINDOW", "BUDGET", "LEVEL", "SEVERITY", "PRIORITY"),
}
# `OK = 0` in an error-code table means "no error", not an error sent as 0.
SUCCESS_WORDS = frozenset({"OK", "SUCCESS", "SUCCEEDED", "NONE", "NOERROR"})
CODE_ATTRIBUTES = frozenset({"code", "error_code", "errno"})
CODE_KEY_NAME = "code"  # the wire form's; an `errorCode` is as often an upstream API's own
PAYLOAD_KEYS = frozenset({"error", "errors"})
ERROR_CALLS = frozenset({"ErrorData", "McpError", "MCPError"})
# The pre-screen: a file is checked when its text has one of these (or one of ERROR_CALLS).
MCP_IMPORT = ImportScreen(("mcp", "fastmcp", "mcp_types"))
CODE_KEY = re.compile(r"[\"']code[\"']\s*:")
ERROR_CONTEXT = re.compile(r"[\"'](?:error\w*|errorCode|status|success|ok)[\"']|\berror=")
# A class whose name ends in codes, errors, errno or error (at the start of a line: ``_table_class``).
TABLE_CLASS = re.compile(
    r"class[ \t]+\w*(?:(?i:codes?|errors|errs|errno)[ \t]*[(:]"
    r"|(?i:err(?:or)?)[ \t]*(?::|\([ \t]*(?:object[ \t]*)?\)|\([^)]*Enum\b))"
)
INT_CONSTANT = re.compile(
    r"^[ \t]*([A-Z_][A-Z0-9_]*|code|error_code|errno)[ \t]*(?::[^=\n]*)?=[ \t]*(?:\w+[ \t]*=[ \t]*)*[-+(]?[ \t]*\d",
    re.MULTILINE,
)
# The end of every INT_CONSTANT match: `=`, blanks, a sign or parenthesis, a digit.
ASSIGNED_DIGIT = re.compile(r"=[ \t]*[-+(]?[ \t]*\d")


@dataclass(frozen=True)
class Constant:
    name: str
    value: int | str
    target: cst.Name  # where a finding goes
    annotated: bool = False  # `code: int = 0` in a class is a field's default, not a constant
    in_tuple: bool = False  # `NOT_FOUND = (404, "Not found")`: the code is the first element


@dataclass(frozen=True)
class Table:
    title: str  # "enum `ErrorCode`", "class `JsonRpcErrors`", "the module's constants"
    constants: tuple[Constant, ...]
    is_enum: bool = False


class ErrorCodeCollision(Rule):
    """
    ## What it does
    Finds error-code tables whose codes collide. A table is an `Enum` or
    `IntEnum`, a class named `...Error(s)`, `...Code(s)` or `...Errno` (with
    the `code` attributes of exception classes), or the module's int constants
    named `ERROR`/`ERR`/`CODE`/`E_...`. It reports a duplicate value (on the
    later constant, naming the first; an `Enum` silently makes it an alias), a
    code inside JSON-RPC's reserved band -32768..-32000 other than the spec's
    own codes with their meaning (-32700, -32600..-32603, MCP's
    -32020..-32022, judged by the name), code 0 (`OK`, `SUCCESS`, `NONE`
    exempt), and a constant named like a registry symbol with another code.

    It also checks the literal codes sent by `ErrorData(code=...)`,
    `McpError(...)`/`MCPError(...)` and `"code": N` in an error payload: the
    band, 0 and, with a registry, codes it lacks, reserves or has retired.
    Range bounds and quantities (`SERVER_ERROR_START`, `MAX_ERRORS`) and
    aliases (`MISSING = NOT_FOUND`) are not codes. It reports anywhere, not
    only in handler scope.

    ## Why is this bad?
    A client tells errors apart by code. Two causes under one code cannot be
    told apart, and an `Enum` hides the clash: `ErrorCode(1004)` is always the
    first name. JSON-RPC reserves -32768..-32000 and MCP keeps assigning codes
    there (-32002 meant "resource not found" until SEP-2164), so an
    application code in the band means something else to a client; code 0 is
    what mcp and fastmcp send for an unmapped exception. A constant that
    disagrees with the registry sends a code the documentation does not list.
    In a test module (one importing pytest or unittest) a payload is the
    test's data, an upstream API's error mocked: only the band and 0 are
    judged there, not the registry.

    ## Example
    ```python
    from enum import IntEnum

    class ErrorCode(IntEnum):
        PARSE_ERROR = -32700
        INVALID_PARAMS = -32602
        MONICA_API_ERROR = -32000
        NOTE_NOT_FOUND = 1004
        CONTACT_NOT_FOUND = 1004
    ```

    ## Use instead
    ```python
    from enum import IntEnum

    class ErrorCode(IntEnum):
        PARSE_ERROR = -32700
        INVALID_PARAMS = -32602
        MONICA_API_ERROR = 1001
        NOTE_NOT_FOUND = 1004
        CONTACT_NOT_FOUND = 1005
    ```
    Better still, declare the codes in the error registry (`mcp-errors.toml`)
    and raise its generated helpers.

    ## Fix safety
    No fix: which code a constant should have is a decision for its owner
    (and a change of code is a breaking change for clients).

    ## Options
    None. The registry is the one named by `registry` in the config (default
    `mcp-errors.toml` beside it).
    """

    code = "MCP003"
    name = "error-code-collision"
    handler_scope = False

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._module: cst.Module | None = None
        self._calls: list[tuple[cst.Call, str | None]] = []
        self._payload_codes: list[tuple[cst.DictElement, str | None]] = []
        self._seen_payload_codes: set[int] = set()
        self._test_module = False

    @classmethod
    def prescreen(cls, text: str, settings: FileSettings) -> bool:
        """Files with a table class, a code-like int constant, a sent code or a registry symbol."""
        if _text_says_codes(text):
            return True
        registry = configured_registry(settings.registry)
        return registry is not None and _symbol_pattern(registry).search(text) is not None

    # -- the walk ----------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self._test_module |= any(package in TEST_FRAMEWORKS for package in imported_package(node))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._test_module |= any(package in TEST_FRAMEWORKS for package in imported_package(node))

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.imports.qualified_name(node.func)
        if qualified is not None and qualified.rpartition(".")[2] in ERROR_CALLS:
            self._calls.append((node, self.context.scopes.current_function))
        for arg in node.args:  # `JSONRPCError(error={"code": ...})`
            if arg.keyword is not None and arg.keyword.value == "error" and isinstance(arg.value, cst.Dict):
                self._collect_codes(arg.value)

    def visit_Dict(self, node: cst.Dict) -> None:
        if is_error_dict(node):
            self._collect_codes(node)
        for element in node.elements:
            if isinstance(element, cst.DictElement) and string_value(element.key) in PAYLOAD_KEYS:
                for payload in _dicts(element.value):
                    self._collect_codes(payload)

    def _collect_codes(self, payload: cst.Dict) -> None:
        function = self.context.scopes.current_function
        for element in payload.elements:
            if not isinstance(element, cst.DictElement):
                continue
            is_code = string_value(element.key) == CODE_KEY_NAME
            if is_code and id(element) not in self._seen_payload_codes:
                self._seen_payload_codes.add(id(element))
                self._payload_codes.append((element, function))

    # -- after the walk ------------------------------------------------------------------
    def finish(self) -> None:
        registry = self.context.registry
        if self._module is not None:
            self._check_tables(self._module, registry)
        for call, function in self._calls:
            self._check_call(call, function, registry)
        for element, function in self._payload_codes:
            code = _int(element.value)
            if code is not None:
                # A test module's payloads are its data (an upstream API's error mocked): their
                # codes are not the server's, so not the registry's business; the band still is.
                self._check_literal(element.value, code, function, None if self._test_module else registry)

    def _check_tables(self, module: cst.Module, registry: Registry | None) -> None:
        symbols = {entry.symbol: entry.code for entry in registry.errors} if registry else {}
        for table, others in _tables(module, self.context.imports.qualify):
            first_of: dict[int | str, str] = {}
            for constant in table.constants:
                message = _registry_problem(constant, symbols)
                first = first_of.setdefault(constant.value, constant.name)
                if message is None and first != constant.name and not _means_success(constant):
                    message = _duplicate(constant, first, table)
                if message is None and isinstance(constant.value, int):
                    message = code_problem(constant.value, constant.name)
                if message is not None:
                    self.report(constant.target, message, function=None)
            for constant in others:
                message = _registry_problem(constant, symbols)
                if message is not None:
                    self.report(constant.target, message, function=None)

    def _check_call(self, call: cst.Call, function: str | None, registry: Registry | None) -> None:
        if isinstance(call.func, cst.Name) and call.func.value in self.context.facts.class_bases:
            return  # the module's own class of that name shadows the import
        qualified = self.context.imports.qualified_name(call.func) or ""
        package, _, attribute = qualified.rpartition(".")
        if package.split(".", 1)[0] not in MCP_PACKAGES or attribute not in ERROR_CALLS:
            return
        for position, arg in enumerate(call.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            # ErrorData(code=...) takes keywords only; MCPError(code, message) the code first.
            if keyword == "code" or (keyword is None and position == 0 and attribute != "ErrorData"):
                code = _int(arg.value)
                if code is not None:
                    self._check_literal(arg.value, code, function, registry)

    def _check_literal(
        self, node: cst.BaseExpression, code: int, function: str | None, registry: Registry | None
    ) -> None:
        message = code_problem(code, None)
        if message is None and registry is not None and code not in SPEC_CODES:
            message = _unregistered(code, registry)
        if message is not None:
            self.report(node, message, function=function)


def _duplicate(constant: Constant, first: str, table: Table) -> str:
    alias = ", which the enum makes an alias of it" if table.is_enum and not constant.in_tuple else ""
    plain = "." not in first and not constant.in_tuple
    fix = f"give it its own code, or write `{constant.name} = {first}`" if plain else "give it its own code"
    return f"`{constant.name}` repeats code {constant.value!r} of `{first}` in {table.title}{alias}; {fix}"


def code_problem(code: int, name: str | None) -> str | None:
    """What is wrong with sending ``code`` (as constant ``name``, if known), or None."""
    if code == 0:
        if name is not None and _says_success(name):
            return None
        return "code 0 is what the MCP SDKs send for an unmapped exception; an error needs its own code"
    return band_problem(code, name, " ".join(_words(name)).lower() if name else "")


def _unregistered(code: int, registry: Registry) -> str | None:
    for entry in registry.errors:
        if entry.code == code:
            if entry.status == "retired":
                return f"code {code} is `{entry.symbol}`, which the registry has retired"
            return None
    for reserved in registry.reserved:
        if reserved.range is not None and reserved.range[0] <= code <= reserved.range[1]:
            reason = f" ({reserved.reason})" if reserved.reason else ""
            return f"code {code} is reserved in the registry{reason}"
    return f"code {code} is not in the registry; add an entry to {registry.path} or use a registered error"


def _registry_problem(constant: Constant, symbols: dict[str, int | None]) -> str | None:
    registered = symbols.get(constant.name)
    if registered is None or not isinstance(constant.value, int) or registered == constant.value:
        return None
    name = constant.name
    return f"`{name} = {constant.value}` contradicts the registry, which gives `{name}` code {registered}"


# -- tables --------------------------------------------------------------------------
def _tables(module: cst.Module, qualify: Callable[[str], str | None]) -> Iterator[tuple[Table, list[Constant]]]:
    """Each table, with the constants beside it that only the registry check reads."""
    module_constants = [c for c in _constants(module.body) if isinstance(c.value, int)]
    in_table = [c for c in module_constants if c.name.isupper() and _says_code(c.name) and not _names_quantity(c.name)]
    yield Table("the module's constants", tuple(in_table)), [c for c in module_constants if c not in in_table]
    coded: list[tuple[cst.ClassDef, Constant]] = []
    for node in _classes(module.body):
        name = node.name.value
        bases = [dotted_name(base.value) or "" for base in node.bases]
        constants = _constants(node.body.body)
        if any(qualify(base) in ENUM_BASES for base in bases):
            members = tuple(c for c in constants if not c.name.startswith("_"))
            if TABLE_NAME.search(name):
                yield Table(f"enum `{name}`", members, is_enum=True), []
            else:
                yield Table(f"enum `{name}`", ()), list(members)
            continue
        int_members = [c for c in constants if isinstance(c.value, int) and _is_constant(c)]
        codes = [c for c in int_members if c.name.lower() in CODE_ATTRIBUTES]
        rest = [c for c in int_members if c not in codes]
        if any(TABLE_NAME.search(n) or n.endswith("Exception") for n in (name, *bases)):
            coded += [(node, c) for c in codes]
        if PLURAL_TABLE_NAME.search(name) or (TABLE_NAME.search(name) and bases in ([], ["object"])):
            table = [c for c in rest if not _names_quantity(c.name)]
            yield Table(f"class `{name}`", tuple(table)), [c for c in rest if c not in table]
        else:
            yield Table(f"class `{name}`", ()), rest
    yield _code_attributes(coded), []


def _code_attributes(coded: list[tuple[cst.ClassDef, Constant]]) -> Table:
    """The `code` attributes of a module's error classes: one table, bar a subclass repeating its base's code."""
    kept: list[Constant] = []
    for node, constant in coded:
        bases = {(dotted_name(base.value) or "").rpartition(".")[2] for base in node.bases}
        if any(other.name.value in bases and c.value == constant.value for other, c in coded if other is not node):
            continue
        kept.append(Constant(f"{node.name.value}.{constant.name}", constant.value, constant.target))
    return Table("the module's error classes", tuple(kept))


def _classes(body: Sequence[cst.BaseStatement]) -> Iterator[cst.ClassDef]:
    for statement in body:
        if isinstance(statement, cst.ClassDef):
            yield statement
            if isinstance(statement.body, cst.IndentedBlock):
                yield from _classes(statement.body.body)


def _constants(body: Sequence[cst.CSTNode]) -> list[Constant]:
    found = []
    for statement in body:
        smalls = statement.body if isinstance(statement, cst.SimpleStatementLine) else [statement]
        for small in smalls:
            if isinstance(small, cst.Assign):
                targets = [target.target for target in small.targets]
                assigned = small.value
            elif isinstance(small, cst.AnnAssign) and small.value is not None:
                targets = [small.target]
                assigned = small.value
            else:
                continue
            in_tuple = isinstance(assigned, cst.Tuple) and bool(assigned.elements)
            value = _table_value(assigned.elements[0].value if isinstance(assigned, cst.Tuple) and in_tuple else assigned)
            for target in targets:
                if isinstance(target, cst.Name) and value is not None:
                    annotated = isinstance(small, cst.AnnAssign)
                    found.append(Constant(target.value, value, target, annotated, in_tuple))
    return found


def _table_value(node: cst.BaseExpression) -> int | str | None:
    number = _int(node)
    return number if number is not None else string_value(node)


def _says_success(name: str) -> bool:
    words = _words(name)
    return bool(SUCCESS_WORDS & set(words)) or "NO_ERROR" in "_".join(words)


def _means_success(constant: Constant) -> bool:
    """`OK = 0` after an error code 0 is "no error", not a second name for it."""
    return constant.value == 0 and _says_success(constant.name)


# Each round of a run asks again for every file whose project context changed: the same texts.
@functools.lru_cache(maxsize=4096)
def _text_says_codes(text: str) -> bool:
    """A table class, a code-like int constant, a sent code or a code key in an error payload."""
    if _table_class(text) or _code_constant(text):
        return True
    # Substring tests before the patterns they are implied by: the regular-expression engine
    # tries a pattern at every character, and most files have neither.
    if any(name in text for name in ERROR_CALLS) and MCP_IMPORT.search(text):
        return True
    if "code'" not in text and 'code"' not in text:
        return False
    return CODE_KEY.search(text) is not None and ERROR_CONTEXT.search(text) is not None


def _code_constant(text: str) -> bool:
    """Some line binds a code-like name to an int (INT_CONSTANT). Each such line holds an `=`
    before the digit (ASSIGNED_DIGIT, led by a character the regular-expression engine finds
    fast), and only those lines are tried: INT_CONSTANT, led by a line start and blanks, is
    tried at every character."""
    tried = -1
    for assigned in ASSIGNED_DIGIT.finditer(text):
        start = text.rfind("\n", 0, assigned.start()) + 1
        if start == tried:
            continue
        tried = start
        constant = INT_CONSTANT.match(text, start)
        if constant is not None and _says_code(constant.group(1)):
            return True
    return False


def _table_class(text: str) -> bool:
    """TABLE_CLASS where a line starts (blanks before it). Searched from its leading `class`, which
    the regular-expression engine finds fast; a pattern led by a line start and blanks is tried at
    every character."""
    found = TABLE_CLASS.search(text)
    while found is not None:
        start = found.start()
        if not text[text.rfind("\n", 0, start) + 1 : start].strip(" \t"):
            return True
        found = TABLE_CLASS.search(text, start + 1)
    return False


def _says_code(name: str) -> bool:
    words = _words(name)
    return bool(CODE_WORDS & set(words)) or (len(words) > 1 and words[0] == "E")


def _names_quantity(name: str) -> bool:
    words = _words(name)
    if words[0] in ("MAX", "MIN", "NUM"):
        return True
    if words[-1] in ("ERROR", "ERR", "ERRNO", "CODE") or words[0] in ("E", "ERR"):
        return words[-1] in RANGE_BOUNDS  # `TIMEOUT_ERROR`, `E_TIMEOUT`, `ERR_RATE_LIMIT` are codes
    return bool(NOT_A_CODE & set(words))


def _is_constant(constant: Constant) -> bool:
    if constant.name.isupper():
        return True
    return constant.name in CODE_ATTRIBUTES and not constant.annotated


def _words(name: str) -> list[str]:
    return [word for word in name.upper().split("_") if word]


def _symbol_pattern(registry: Registry) -> re.Pattern[str]:
    cached = _SYMBOL_PATTERNS.get(id(registry))
    if cached is None or cached[0] is not registry:
        symbols = sorted({entry.symbol for entry in registry.errors}, key=len, reverse=True)
        alternatives = "|".join(map(re.escape, symbols)) or r"(?!)"
        pattern = re.compile(rf"^[ \t]*(?:{alternatives})[ \t]*(?::[^=\n]+)?=", re.MULTILINE)
        cached = _SYMBOL_PATTERNS[id(registry)] = (registry, pattern)
    return cached[1]


_SYMBOL_PATTERNS: dict[int, tuple[Registry, re.Pattern[str]]] = {}


# -- literals ----------------------------------------------------------------------------
def _int(node: cst.BaseExpression) -> int | None:
    sign = 1
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        sign = -1 if isinstance(node.operator, cst.Minus) else 1
        node = node.expression
    if isinstance(node, cst.Integer):
        value = node.evaluated_value
        return sign * value if isinstance(value, int) else None
    return None


def _dicts(node: cst.BaseExpression) -> Iterator[cst.Dict]:
    """A payload dict, or the dicts of a list of them (`"errors": [{...}]`)."""
    if isinstance(node, cst.Dict):
        yield node
    elif isinstance(node, (cst.List, cst.Tuple)):
        for element in node.elements:
            if isinstance(element.value, cst.Dict):
                yield element.value
