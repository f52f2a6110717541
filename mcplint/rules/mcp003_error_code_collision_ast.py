"""MCP003 read from CPython's `ast` (the port's twin of ``mcp003_error_code_collision``).

A payload's `"code": N` is a dict item, no node in `ast`: the twin keeps the value (where the
finding goes, as in the original) and knows an item by its key."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from mcplint.analysis.error_payloads import MCP_PACKAGES
from mcplint.analysis.error_payloads_ast import is_error_dict, string_value
from mcplint.analysis.imports import TEST_FRAMEWORKS
from mcplint.analysis.imports_ast import dotted_name, imported_package
from mcplint.analysis.source_text import is_one_token
from mcplint.analysis.walk_ast import argument_value, written_arguments
from mcplint.registry.model import Registry
from mcplint.rules.base import RuleContext
from mcplint.rules.base_ast import AstRuleContext
from mcplint.rules.mcp003_error_code_collision import (
    CODE_ATTRIBUTES,
    CODE_KEY_NAME,
    ENUM_BASES,
    ERROR_CALLS,
    PAYLOAD_KEYS,
    PLURAL_TABLE_NAME,
    TABLE_NAME,
    Constant,
    ErrorCodeCollision,
    Table,
    _duplicate,
    _is_constant,
    _means_success,
    _names_quantity,
    _registry_problem,
    _says_code,
    code_problem,
)


class AstErrorCodeCollision(ErrorCodeCollision):
    context: AstRuleContext

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._module: ast.Module | None = None  # type: ignore[assignment]
        self._calls: list[tuple[ast.Call, str | None]] = []  # type: ignore[assignment]
        self._payload_codes: list[tuple[ast.expr, str | None]] = []  # type: ignore[assignment]  # the values

    def visit_Import(self, node: ast.Import) -> None:  # type: ignore[override]
        self._test_module |= any(package in TEST_FRAMEWORKS for package in imported_package(node))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # type: ignore[override]
        self._test_module |= any(package in TEST_FRAMEWORKS for package in imported_package(node))

    def visit_Module(self, node: ast.Module) -> None:  # type: ignore[override]
        self._module = node

    def visit_Call(self, node: ast.Call) -> None:  # type: ignore[override]
        qualified = self.context.imports.qualified_name(node.func)  # type: ignore[arg-type]
        if qualified is not None and qualified.rpartition(".")[2] in ERROR_CALLS:
            self._calls.append((node, self.context.scopes.current_function))
        for keyword in node.keywords:  # `JSONRPCError(error={"code": ...})`
            if keyword.arg == "error" and type(keyword.value) is ast.Dict:
                self._collect_codes(keyword.value)

    def visit_Dict(self, node: ast.Dict) -> None:  # type: ignore[override]
        source = self.context.source
        if is_error_dict(node, source):
            self._collect_codes(node)
        for key, value in zip(node.keys, node.values, strict=True):
            if type(key) is ast.Constant and key.value in PAYLOAD_KEYS and string_value(key, source) is not None:
                for payload in _dicts(value):
                    self._collect_codes(payload)

    def _collect_codes(self, payload: ast.Dict) -> None:  # type: ignore[override]
        function = self.context.scopes.current_function
        source = self.context.source
        for key, value in zip(payload.keys, payload.values, strict=True):
            if key is None or type(key) is not ast.Constant or key.value != CODE_KEY_NAME:
                continue  # `**rest` (LibCST's StarredDictElement), or no string "code"
            if string_value(key, source) == CODE_KEY_NAME and id(key) not in self._seen_payload_codes:
                self._seen_payload_codes.add(id(key))
                self._payload_codes.append((value, function))

    def finish(self) -> None:
        registry = self.context.registry
        if self._module is not None:
            self._check_tables(self._module, registry)
        for call, function in self._calls:
            self._check_call(call, function, registry)
        for value, function in self._payload_codes:
            code = _int(value)
            if code is not None:
                self._check_literal(value, code, function, None if self._test_module else registry)  # type: ignore[arg-type]

    def _check_tables(self, module: ast.Module, registry: Registry | None) -> None:  # type: ignore[override]
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

    def _check_call(self, call: ast.Call, function: str | None, registry: Registry | None) -> None:  # type: ignore[override]
        if type(call.func) is ast.Name and call.func.id in self.context.facts.class_bases:
            return  # the module's own class of that name shadows the import
        qualified = self.context.imports.qualified_name(call.func) or ""  # type: ignore[arg-type]
        package, _, attribute = qualified.rpartition(".")
        if package.split(".", 1)[0] not in MCP_PACKAGES or attribute not in ERROR_CALLS:
            return
        for position, argument in enumerate(written_arguments(call)):
            keyword = argument.arg if type(argument) is ast.keyword else None
            if keyword == "code" or (keyword is None and position == 0 and attribute != "ErrorData"):
                value = argument_value(argument)
                code = _int(value)
                if code is not None:
                    self._check_literal(value, code, function, registry)  # type: ignore[arg-type]


# -- tables --------------------------------------------------------------------------
def _tables(module: ast.Module, qualify: Callable[[str], str | None]) -> Iterator[tuple[Table, list[Constant]]]:
    module_constants = [c for c in _constants(module.body) if isinstance(c.value, int)]
    in_table = [c for c in module_constants if c.name.isupper() and _says_code(c.name) and not _names_quantity(c.name)]
    yield Table("the module's constants", tuple(in_table)), [c for c in module_constants if c not in in_table]
    coded: list[tuple[ast.ClassDef, Constant]] = []
    for node in _classes(module.body):
        name = node.name
        bases = [dotted_name(_base(base)) or "" for base in node.bases]
        constants = _constants(node.body)
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


def _base(base: ast.expr) -> ast.expr:
    """A class base as LibCST's `Arg.value`: `*bases`' value."""
    return base.value if type(base) is ast.Starred else base


def _code_attributes(coded: list[tuple[ast.ClassDef, Constant]]) -> Table:
    kept: list[Constant] = []
    for node, constant in coded:
        bases = {(dotted_name(_base(base)) or "").rpartition(".")[2] for base in node.bases}
        if any(other.name in bases and c.value == constant.value for other, c in coded if other is not node):
            continue
        kept.append(Constant(f"{node.name}.{constant.name}", constant.value, constant.target))
    return Table("the module's error classes", tuple(kept))


def _classes(body: list[ast.stmt]) -> Iterator[ast.ClassDef]:
    for statement in body:
        if type(statement) is ast.ClassDef:
            yield statement
            yield from _classes(statement.body)


def _constants(body: list[ast.stmt]) -> list[Constant]:
    found = []
    for statement in body:
        kind = type(statement)
        if kind is ast.Assign:
            targets = statement.targets  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign and statement.value is not None:  # type: ignore[attr-defined]
            targets = [statement.target]  # type: ignore[attr-defined]
        else:
            continue
        assigned = statement.value  # type: ignore[attr-defined]
        in_tuple = type(assigned) is ast.Tuple and bool(assigned.elts)
        value = _table_value(_base(assigned.elts[0]) if in_tuple else assigned)
        for target in targets:
            if type(target) is ast.Name and value is not None:
                found.append(Constant(target.id, value, target, kind is ast.AnnAssign, in_tuple))  # type: ignore[arg-type]
    return found


def _table_value(node: ast.expr) -> int | str | None:
    number = _int(node)
    if number is not None:
        return number
    return node.value if is_one_token(node) and type(node.value) is str else None  # type: ignore[attr-defined]


# -- literals ----------------------------------------------------------------------------
def _int(node: ast.expr) -> int | None:
    sign = 1
    if type(node) is ast.UnaryOp and (type(node.op) is ast.USub or type(node.op) is ast.UAdd):
        sign = -1 if type(node.op) is ast.USub else 1
        node = node.operand
    if type(node) is ast.Constant and type(node.value) is int:  # not `True`: a name to LibCST
        return sign * node.value
    return None


def _dicts(node: ast.expr) -> Iterator[ast.Dict]:
    if type(node) is ast.Dict:
        yield node
    elif type(node) is ast.List or type(node) is ast.Tuple:
        for element in node.elts:
            if type(_base(element)) is ast.Dict:  # `[*{...}]`: LibCST's starred element's value
                yield _base(element)  # type: ignore[misc]
