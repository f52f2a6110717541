"""MCP000: what a file that cannot be analysed gets, and the cheap check of the rest.

CPython's parser is the cheap path: files that cannot contain a handler only get
its syntax check (and their imports, for the cross-module join). Its messages
and positions are exact, so they are preferred for MCP000 whenever it agrees the
file is broken; a file only newer Pythons accept is judged by LibCST.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from mcplint.analysis.handlers import CONTAINER_ADDERS, REGISTRY_FUNCTION_KEYS
from mcplint.analysis.leads_to import leads_to
from mcplint.analysis.project import ProjectContext
from mcplint.analysis.walk_ast import nodes_of
from mcplint.engine.limits import cpython_parse, depth_refusal, is_cpython_limit
from mcplint.engine.module_index import is_test_module
from mcplint.finding import Finding
from mcplint.rules.mcp000_syntax_error import SyntaxErrorRule, syntax_findings
from mcplint.settings import FileSettings
from mcplint.source import source_lines


@dataclass
class ModuleFacts:
    """What the run's join needs of a module it did not analyse: its names."""

    exports: dict[str, str] = field(default_factory=dict)  # bound name -> qualified name
    star_imports: list[str] = field(default_factory=list)
    defined_names: list[str] = field(default_factory=list)
    registry_decorators: list[str] = field(default_factory=list)
    registry_tables: list[str] = field(default_factory=list)
    # What a registration decorator imported from another module could be applied as here
    # (``applied_names``); None for a text that did not parse.
    applied: frozenset[str] | None = None

    def copy(self) -> ModuleFacts:
        """Facts a caller may keep and change without changing the ones remembered."""
        return ModuleFacts(
            dict(self.exports), list(self.star_imports), list(self.defined_names),
            list(self.registry_decorators), list(self.registry_tables), self.applied,
        )  # fmt: skip

    def may_apply(self, decorators: Iterable[str]) -> bool:
        """Whether the module may apply one of ``decorators`` (qualified names it imports): it
        applies a decorator or calls a call's result under that name's last part (or under an
        `as` name for it). Unknown facts may."""
        return self.applied is None or any(name.rpartition(".")[2] in self.applied for name in decorators)


def syntax_check_only(
    text: str, display: str, settings: FileSettings, project: ProjectContext, keep_tree: bool = False
) -> tuple[list[Finding], ModuleFacts]:
    """CPython's parser only: syntax errors, the names the module imports and defines (the run
    tells a module that imports a server from another module to look again), and what it
    applies as decorators (``ModuleFacts.applied``). ``keep_tree``: a later round's analysis
    of the text on CPython's tree takes the tree parsed here (``checked_tree``), unless the
    file is a test's (few of those are analysed later; most of the rest are)."""
    key = (display, len(text), hash(text), project.package)
    known = _CHECKED.get(key)
    if known is not None:  # a later round of the run, or of a migration's runs: the same text
        _CHECKED.move_to_end(key)
        return [], known.copy()
    try:
        tree = cpython_parse(text)
    except (SyntaxError, ValueError) as error:
        if SyntaxErrorRule.code not in settings.codes:
            return [], ModuleFacts()
        if isinstance(error, SyntaxError) and is_cpython_limit(error):  # no Python accepts it
            message = f"SyntaxError: {error.msg}"
            return syntax_findings(display, settings, message, error.lineno or 1, error.offset or 1), ModuleFacts()
        # Newer syntax than this interpreter knows (PEP 695, PEP 701): LibCST decides, if it
        # can parse the file without crashing (engine/limits.py).
        refusal = depth_refusal(text)
        if refusal is not None:
            return syntax_findings(display, settings, refusal.message, refusal.line, refusal.column), ModuleFacts()
        try:
            cst.parse_module(text)
        except cst.ParserSyntaxError as error:
            return parse_failure(text, display, settings, error), ModuleFacts()
        return [], ModuleFacts()
    facts = _ast_module_facts(tree, project.package, text)
    # Worked out now, with the tree at hand: a later round that asks (once the join names a
    # registration decorator this module imports) would have to parse the text again.
    facts.applied = applied_names(tree, text)
    _CHECKED[key] = facts
    if len(_CHECKED) > MAX_CHECKED:
        _CHECKED.popitem(last=False)
    if keep_tree and _KEPT[0] + len(text) <= MAX_KEPT_CHARACTERS and not is_test_module(display):
        _TREES[text] = tree
        _KEPT[0] += len(text)
    return [], facts.copy()


def checked_tree(text: str) -> ast.Module | None:
    """The tree the syntax check parsed of ``text`` and kept, handed over once (the analysis
    that takes it keeps it with its walk; the facts above only read it)."""
    tree = _TREES.pop(text, None)
    if tree is not None:
        _KEPT[0] -= len(text)
    return tree


def forget_checked_trees() -> None:
    _TREES.clear()
    _KEPT[0] = 0


# Per process, the facts of the texts that parsed, by (file, text, package): each round of a run
# asks again for every file whose project context changed; only the text and the package (for
# relative imports) decide the facts, and a text that parses has no finding to give.
_CHECKED: OrderedDict[tuple[str, int, int, str | None], ModuleFacts] = OrderedDict()
MAX_CHECKED = 4096

# Per process, by text, the trees of the run's syntax checks that a later round may analyse: on
# the pinned corpus a third of the files only checked in the first round are analysed later, and
# parsing them again was 2-3 % of a check. The analysis keeps the tree it takes (``_Walked``), so
# what this costs is the trees of the files never analysed; tests' trees are not kept (of the
# corpus's 835 files checked and never analysed, 488 are tests', 5.6 of their 7.1 MB).
_TREES: dict[str, ast.Module] = {}
# The characters of the texts whose trees are kept, and the most kept at once: a tree takes about
# 30 times its text, so a project of many files no handler reaches keeps at most ~250 MB of them
# (the corpus's need 5.9 MB of text; past the bound a file is parsed again, as before).
_KEPT = [0]
MAX_KEPT_CHARACTERS = 8 * 2**20


def _module_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements run at import: the body and its if/try/with blocks, not functions."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.Try, ast.With)):
            yield from _module_level_statements(statement.body)
            yield from _module_level_statements(getattr(statement, "orelse", []))
            for handler in getattr(statement, "handlers", []):
                yield from _module_level_statements(handler.body)


def _ast_module_facts(tree: ast.Module, package: str | None, text: str) -> ModuleFacts:
    facts = ModuleFacts()
    defined = set()
    lines: list[str] | None = None
    for node in _module_level_statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines = lines if lines is not None else source_lines(text)
            if _is_registry_decorator(node, lines):
                facts.registry_decorators.append(node.name)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
            if isinstance(node, ast.ClassDef):
                defined.update(
                    f"{node.name}.{member.name}"
                    for member in node.body
                    if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
                )
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defined.update(target.id for target in targets if isinstance(target, ast.Name))
            if _partial_of(node.value) in facts.registry_decorators:  # `tool = partial(register, ...)`
                facts.registry_decorators.extend(target.id for target in targets if isinstance(target, ast.Name))
            if is_registry_table(node.value):
                facts.registry_tables.extend(target.id for target in targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    facts.exports[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    facts.exports[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            module = node.module or ""
            if node.level:
                if package is None:
                    continue
                parts = package.split(".") if package else []
                if node.level - 1 > len(parts):
                    continue
                module = ".".join([*parts[: len(parts) - (node.level - 1)], *([module] if module else [])])
            for alias in node.names:
                if alias.name == "*":
                    if module:
                        facts.star_imports.append(module)
                    continue
                facts.exports[alias.asname or alias.name] = f"{module}.{alias.name}" if module else alias.name
    facts.defined_names = sorted(defined)
    return facts


def applied_names(tree: ast.Module, text: str) -> frozenset[str]:
    """The last names of the decorators the module's functions apply (`@tools.register(...)`)
    and of the calls whose result it calls (`register(name)(fn)`): where the LibCST analysis
    asks whether a registration decorator is applied. A name bound by an `as` import adds the
    last part of what it imports (`from .deco import register as reg`, then `@reg`).

    Decorators and imports are statements' parts, found without walking every expression; a
    call of a call's result only on the lines of a `)` followed by a `(` (a tenth of the files
    have one), in the expressions of the statements spanning them."""
    lines = _call_of_call_lines(text)
    if lines == [] and "@" not in text:  # no decorator and no call of a call's result (4 in 10 files)
        return frozenset()
    applied: set[str] = set()
    aliases: dict[str, set[str]] = {}
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            for decorator in node.decorator_list:  # type: ignore[attr-defined]
                _add_last_name(applied, decorator.func if isinstance(decorator, ast.Call) else decorator)
        elif kind is ast.Import or kind is ast.ImportFrom:
            for alias in node.names:  # type: ignore[attr-defined]
                if alias.asname:
                    aliases.setdefault(alias.asname, set()).add(alias.name.rpartition(".")[2])
        if lines is None or (lines and _spans_a_line(node, lines)):
            for name, value in ast.iter_fields(node):
                if name not in _BLOCKS:
                    _add_called_results(applied, value)
        for name in _BLOCKS:
            block = getattr(node, name, None)
            if block:
                pending.extend(block)
    for name in list(applied):
        applied.update(aliases.get(name, ()))
    return frozenset(applied)


# `f(...)(...)`: the first call's `)`, then only blanks, line continuations and comments, then the
# second call's `(` (a comment runs to its line's end).
_CALL_OF_CALL = re.compile(r"\)(?:[ \t\f\r\n\\]|#[^\r\n]*[\r\n])*\(")


def _call_of_call_lines(text: str) -> list[int] | None:
    """The lines of each `)` that a `(` follows, in order, as `ast` numbers them; None for
    every line (a text with carriage returns, which `ast` counts as line breaks too)."""
    if "\r" in text:
        return None if _CALL_OF_CALL.search(text) else []
    lines: list[int] = []
    line, position = 1, 0
    for found in _CALL_OF_CALL.finditer(text):
        line += text.count("\n", position, found.start())
        position = found.start()
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def _spans_a_line(node: ast.AST, lines: Sequence[int]) -> bool:
    first = getattr(node, "lineno", None)
    if first is None:  # a `case` block: no position of its own
        return True
    decorators = getattr(node, "decorator_list", None)
    if decorators:  # a definition's line is its `def` or `class`, after its decorators
        first = decorators[0].lineno
    index = bisect.bisect_left(lines, first)
    return index < len(lines) and lines[index] <= node.end_lineno  # type: ignore[attr-defined]


def _add_called_results(names: set[str], value: object) -> None:
    """The last names of the calls whose result is called, in an expression (or a list of them)."""
    for part in value if isinstance(value, list) else (value,):
        if isinstance(part, ast.AST):
            for call in nodes_of(part, _CALL):
                func = call.func  # type: ignore[attr-defined]
                if type(func) is ast.Call:
                    _add_last_name(names, func.func)


def _add_last_name(names: set[str], expression: ast.expr) -> None:
    if isinstance(expression, ast.Name):
        names.add(expression.id)
    elif isinstance(expression, ast.Attribute):
        names.add(expression.attr)


def _is_registry_decorator(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: Sequence[str]) -> bool:
    """`def register(fn): TOOLS.append(fn)`, or a factory whose inner function keeps its
    first parameter in a container (the same test as the LibCST analysis makes)."""
    candidates = [function] + [
        inner for inner in function.body if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    # Without a container method named in its text, a function can keep its parameter only by a
    # subscript assignment or by returning a definition built around it: both are statements,
    # found without walking every expression (most functions; the walk was most of the syntax
    # check's own time). Only an ASCII text: Python reads other identifiers NFKC-normalised.
    first_line = function.decorator_list[0].lineno if function.decorator_list else function.lineno
    source = "\n".join(lines[first_line - 1 : function.end_lineno])
    if source.isascii() and _CONTAINER_METHOD.search(source) is None:
        found = [_stored_without_calls(candidate) for candidate in candidates]
        if None not in found:
            return any(found)
    return any(_stores_first_parameter(candidate) for candidate in candidates)


def _stored_without_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool | None:
    """``_stores_first_parameter`` of a function that calls no container method: whether it
    returns a definition built around its first parameter; None where it assigns to a
    subscript (the whole test decides then)."""
    first = _first_parameter(function)
    if first is None:
        return False
    pending: list[ast.AST] = list(function.body)
    builds = False
    while pending:
        statement = pending.pop()
        if type(statement) is ast.Assign:
            if any(isinstance(target, ast.Subscript) for target in statement.targets):
                return None
        elif type(statement) is ast.Return:
            builds = builds or _builds_definition(statement.value, first)
        for name in _BLOCKS:
            block = getattr(statement, name, None)
            if block:
                pending.extend(block)
    return builds


# `.append`, `. add`, `.\\\n extend`: an attribute named like a container method (in brackets, a
# comment may sit between the dot and the name).
_CONTAINER_METHOD = re.compile(rf"\.(?:\s|\\|#[^\r\n]*)*(?:{'|'.join(sorted(CONTAINER_ADDERS))})\b")


# The fields holding the statements a statement (or an `except` clause, a `case`) runs.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _first_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    return next(
        (arg.arg for arg in (*function.args.posonlyargs, *function.args.args) if arg.arg not in ("self", "cls")), None
    )


def _stores_first_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = _first_parameter(function)
    if first is None:
        return False
    aliases: dict[str, list[ast.expr]] = {}
    nested_calls: dict[str, list[str]] = {}
    stored: list[ast.expr] = []
    nested: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    # In no particular order (`nodes_of`: `ast.walk` costs three times as much): what a function
    # stores is searched as a whole, and any definition it returns decides.
    for node in nodes_of(function, _STORING):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CONTAINER_ADDERS:
            stored.extend(node.args)
        elif isinstance(node, ast.Assign):
            if any(isinstance(target, ast.Subscript) for target in node.targets):
                stored.append(node.value)
            for target in node.targets:
                if isinstance(target, ast.Name):
                    aliases.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not function:
            nested.append(node)
        if isinstance(node, ast.Return) and _builds_definition(node.value, first):
            return True
    for inner in nested:  # two of one name (`if`/`else`): either may run, as the analysis reads them
        nested_calls.setdefault(inner.name, []).extend(
            call.func.id for call in nodes_of(inner, _CALL) if isinstance(call.func, ast.Name)  # type: ignore[attr-defined]
        )
    return _carries_parameter(stored, first, aliases, nested_calls)


_CALL: frozenset[type] = frozenset({ast.Call})
_STORING: frozenset[type] = frozenset({ast.Call, ast.Assign, ast.FunctionDef, ast.AsyncFunctionDef, ast.Return})


def _carries_parameter(
    values: list[ast.expr], first: str, aliases: dict[str, list[ast.expr]], nested_calls: dict[str, list[str]]
) -> bool:
    """One of ``values`` is the parameter, holds it, or is a local made from it: an alias or a
    nested function calling it (the same test as the LibCST analysis makes)."""

    def stands_for(name: str) -> list[ast.expr | str]:
        return [*aliases.get(name, ()), *nested_calls.get(name, ())]

    return leads_to(values, first, _ast_name, _ast_parts, stands_for)


def _ast_name(value: ast.expr | str) -> str | None:
    return value if isinstance(value, str) else value.id if isinstance(value, ast.Name) else None


def _ast_parts(value: ast.expr) -> list[ast.expr]:
    """A container's elements (a dict's values), a call's arguments."""
    if isinstance(value, (ast.Tuple, ast.List)):
        return [element for element in value.elts if not isinstance(element, ast.Starred)]
    if isinstance(value, ast.Dict):
        return list(value.values)
    if isinstance(value, ast.Call):
        return [*value.args, *(keyword.value for keyword in value.keywords)]
    return []


def _builds_definition(value: ast.expr | None, parameter: str) -> bool:
    """`return ToolDefinition(fn=fn, ...)`: an object of a class built around the parameter
    (what a definition-collecting registry registers later, `add_tool(fn=definition.fn)`)."""
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    tail = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if not tail[:1].isupper():
        return False
    arguments = [*value.args, *(keyword.value for keyword in value.keywords)]
    return any(isinstance(argument, ast.Name) and argument.id == parameter for argument in arguments)


def is_registry_table(value: ast.expr | None) -> bool:
    """`TOOLS = {"ListIndexTool": {"function": list_indices, "input_schema": ...}, ...}`: a table
    whose entries name a function under a function key, or `[FunctionTool(f), ...]` (the same
    test as the LibCST analysis)."""
    if isinstance(value, ast.Call):
        return _tool_wrapped(value)
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return any(isinstance(item, ast.Call) and _tool_wrapped(item) for item in value.elts)
    if not isinstance(value, ast.Dict):
        return False
    for entry in value.values:
        if isinstance(entry, ast.Dict):
            for key, item in zip(entry.keys, entry.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value in REGISTRY_FUNCTION_KEYS
                    and isinstance(item, (ast.Name, ast.Attribute))
                ):
                    return True
    return False


def _tool_wrapped(call: ast.Call) -> bool:
    """`FunctionTool(f)`: a class named `...Tool` wrapping a function (as the LibCST analysis)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return (
        name.endswith("Tool")
        and name[:1].isupper()
        and bool(call.args)
        and isinstance(call.args[0], (ast.Name, ast.Attribute))
    )


def _partial_of(value: ast.expr | None) -> str | None:
    """`partial(generic_tool, name_enum=ToolName)`: the function a module-level alias binds."""
    if not isinstance(value, ast.Call) or not value.args or not isinstance(value.args[0], ast.Name):
        return None
    func = value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return value.args[0].id if name == "partial" else None


def parse_failure(text: str, display: str, settings: FileSettings, error: cst.ParserSyntaxError) -> list[Finding]:
    """CPython's message and position are more precise than LibCST's; prefer them."""
    try:
        cpython_parse(text)
    except SyntaxError as ast_error:
        message = f"SyntaxError: {ast_error.msg}"
        return syntax_findings(display, settings, message, ast_error.lineno or 1, ast_error.offset or 1)
    except ValueError:
        pass
    message = f"SyntaxError: {error.message}"
    return syntax_findings(display, settings, message, error.raw_line, error.raw_column + 1)
