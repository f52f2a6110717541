"""Library code stays library code: `mcplint migrate` maps a library's errors where a tool calls it.

A *library module* imports no MCP framework and defines no handler (an HTTP
client class, a config helper). Its sites are never rewritten into MCP errors:
the library keeps raising its own exception class, whoever else calls it. Where
such a raise reaches a tool uncaught (the project model's `reached` facts, and
the handler module's calls into the library), the migration maps it at the
boundary instead, in the tool itself, around the one statement that calls the
library function:

    try:
        number = parse_port(port)
    except ValueError as error:
        raise app_error("THE_PORT_MUST_BE_A_NUMBER").caught_as(ValueError) from error

(`caught_as`: every caller that caught the `ValueError` still does). A
placeholder of the message that is a parameter of the library function
(`f"Invalid limit: {value}"` in `parse_limit(value)`) is filled with the local
the tool passes for it (`value=limit`). Only where this is clearly right;
otherwise the site is left, with the reason: a placeholder the tool does not
pass a local for (an expression, a default, `{x!r}`), a call the tool makes through
other functions, a receiver whose class is not known, several library errors
through one statement, a call inside a `try` or a statement header, a handler
that is not a high-level tool.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from mcplint.analysis.catching import catches, clause_of
from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.imports import ImportTable, dotted_name
from mcplint.analysis.project import module_of
from mcplint.engine.runner import FileTask, RunResult
from mcplint.finding import Finding

# Imports inside functions: LibCST's codemod machinery (about 280 ms) is imported only when a
# boundary mapping adds an import.

MCP_PACKAGES = frozenset({"mcp", "fastmcp", "mcp_types"})
LIBRARY = "library code (its module imports no MCP framework), not rewritten into an MCP error"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

SiteKey = tuple[str, int]  # (display path, line)
_Results = dict[str, Any]  # display path -> the run's FileResult (None for a file that had none)
_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


@dataclass(frozen=True)
class Mapping:
    """One statement of a tool that a library error passes through, and the site it maps."""

    handler_path: str  # the handler module's file (the task's path)
    handler_display: str
    handler_key: str  # the tool's function: `serve`, `Tools.serve`
    statement: cst.SimpleStatementLine
    raised: str  # the library's class, as the `except` names it: `ValueError`
    site: Finding
    fields: tuple[tuple[str, str], ...] = ()  # the message's placeholders: (name, the tool's local passed for it)


@dataclass
class Boundary:
    library_paths: frozenset[str]  # display paths of the library modules: never fixed
    mappings: list[Mapping] = field(default_factory=list)
    left: dict[SiteKey, str] = field(default_factory=dict)  # library sites left, with the reason
    handlers: dict[str, _ParsedHandler] = field(default_factory=dict)  # the handler modules read, by path

    @property
    def mapped(self) -> set[SiteKey]:
        return {(m.site.path, m.site.line) for m in self.mappings}


def is_library(result: object) -> bool:
    """No handler, no MCP import: the module's code is the project's library."""
    imported = getattr(result, "imported_names", [])
    return (
        not getattr(result, "handlers", None)
        and not getattr(result, "imports_server_framework", False)
        and not any(name.split(".")[0] in MCP_PACKAGES for name in imported)
    )


def plan_boundary(tasks: list[FileTask], before: RunResult, sites: list[Finding], framework: str) -> Boundary:
    by_display = {task.display: task for task in tasks}
    results = {task.display: before.results.get(task.path) for task in tasks}
    library = frozenset(display for display, result in results.items() if result is not None and is_library(result))
    boundary = Boundary(library)
    sources = _Sources(by_display, results, boundary.handlers)
    for site in sites:
        if site.path not in library:
            continue
        try:
            found = _map_site(site, results, sources, framework)
        except _Left as left:
            boundary.left[(site.path, site.line)] = f"{LIBRARY}; {left}"
            continue
        boundary.mappings.extend(found)
    _one_error_per_call(boundary)
    return boundary


class _Left(Exception):
    """Why a library site is not mapped at the boundary."""


def _map_site(site: Finding, results: _Results, sources: _Sources, framework: str) -> list[Mapping]:
    if site.code != "MCP002":
        raise _Left("no raise for a tool to map (rewrite what the tool does with it by hand)")
    if framework == "lowlevel":
        raise _Left("a low-level handler answers with a result, not a raise: map it in the handler by hand")
    raised = sources.raised(site)
    if raised is None:
        raise _Left("its raise could not be read again")
    names = set(_PLACEHOLDER.findall(site.error_template or ""))
    if names and set(raised.fields) != names:
        fields = ", ".join(f"{{{name}}}" for name in sorted(names))
        raise _Left(f"its message has placeholders ({fields}) only the library fills: map it in the tool by hand")
    handlers = results[site.path].reached.get(site.context, [])
    if not handlers:
        raise _Left("no tool calls it directly")
    mappings = []
    for label in handlers:
        mappings.extend(_map_handler(site, label, raised, results, sources))
    return mappings


def _map_handler(
    site: Finding, label: str, raised: _LibraryRaise, results: _Results, sources: _Sources
) -> list[Mapping]:
    located = _handler_file(label, results, sources)
    if located is None:
        raise _Left(f"the module of `{label}` is not one file of this run")
    display, key, kind = located
    if kind != "tool":
        raise _Left(f"{kind} `{label}` reaches it: only a tool's call is mapped")
    result = results[display]
    if _low_level(result, sources):
        raise _Left(f"low-level `{label}` answers with a result, not a raise: map it in the handler by hand")
    library_module = module_of(Path(site.path))[1]
    targets = [t for t in result.local_reach_calls.get(key, []) if _names_function(t, library_module, site.context)]
    if not targets:
        raise _Left(f"tool `{label}` reaches it through other modules: map it where they call it, by hand")
    parsed = sources.handler(display)
    function = parsed.function(key)
    if function is None:
        raise _Left(f"tool `{label}` is not a plain function or method of its module")
    statements = []
    for call in _calls(function):
        verdict = parsed.calls_target(call, function, key, targets[0], site.context)
        if verdict == "other-path":
            raise _Left(f"tool `{label}` also reaches it through `{dotted_name(call.func)}`: map it by hand")
        if verdict == "unknown-receiver":
            raise _Left(f"tool `{label}` calls `.{site.context.rpartition('.')[2]}` on an object of unknown class")
        if verdict != "direct":
            continue
        statement, guarded = _statement_of(function, call, raised.raised)
        if guarded:
            continue  # a `try` of the tool stops it there already
        if statement is None:
            raise _Left(f"tool `{label}` calls it in a statement header or a `try`: map it by hand")
        fields = raised.arguments(call)
        if fields is None:
            missing = ", ".join(f"{{{name}}}" for name in sorted(raised.fields))
            raise _Left(f"tool `{label}` does not pass a local for each placeholder ({missing}): map it by hand")
        statements.append((statement, fields))
    if not statements:
        raise _Left(f"tool `{label}` reaches it through other calls: map it at the boundary by hand")
    path = sources.path(display)
    return [Mapping(path, display, key, statement, raised.raised, site, fields) for statement, fields in statements]


def _one_error_per_call(boundary: Boundary) -> None:
    """One `except` per statement, for one library error: two messages (or classes, or two calls
    passing different locals) through one statement cannot be told apart, so they are left."""
    through: dict[tuple[str, int], set[tuple[str, str, tuple[tuple[str, str], ...]]]] = (
        {}
    )  # per statement: what passes through it
    for mapping in boundary.mappings:
        key = (mapping.handler_path, id(mapping.statement))
        through.setdefault(key, set()).add((mapping.raised, mapping.site.error_template or "", mapping.fields))
    shared = {key for key, found in through.items() if len(found) > 1}
    dropped = {(m.site.path, m.site.line) for m in boundary.mappings if (m.handler_path, id(m.statement)) in shared}
    for site in dropped:
        boundary.left[site] = (
            f"{LIBRARY}; several library errors pass through one statement of a tool: "
            "one `except` cannot tell them apart"
        )  # fmt: skip
    boundary.mappings = [m for m in boundary.mappings if (m.site.path, m.site.line) not in dropped]


# -- the edits ---------------------------------------------------------------------------
def mapped_texts(
    boundary: Boundary,
    call_for: Callable[[Finding], tuple[str, str] | None],
    helpers_module: str,
    base: Callable[[str], str],
    line_length: Callable[[str], int] = lambda path: 88,
) -> dict[str, tuple[str, str, set[SiteKey]]]:
    """Per handler file (its path): (display, new text, the library sites mapped there), the
    mapped statements wrapped in ``base(path)`` (the file as the other rewrites leave it: each
    statement is found again by its function and its code) and laid out to the file's
    ``line_length`` as the fixes' rewrites are. ``call_for`` gives a site's (helper, symbol); a
    site without one, or whose statement is not found once, is not mapped."""
    by_file: dict[str, list[Mapping]] = {}
    for mapping in boundary.mappings:
        by_file.setdefault(mapping.handler_path, []).append(mapping)
    texts = {}
    for path, mappings in by_file.items():
        original = boundary.handlers[path].module
        try:
            module = cst.parse_module(base(path))
        except (OSError, UnicodeDecodeError, cst.ParserSyntaxError):
            continue
        functions = _functions_of(module)
        wraps: dict[int, tuple[str, str, str, tuple[tuple[str, str], ...]]] = {}
        helpers: set[str] = set()
        sites: set[SiteKey] = set()
        for mapping in mappings:
            call = call_for(mapping.site)
            function = functions.get(mapping.handler_key)
            if call is None or function is None:
                continue
            code = _code(original, mapping.statement)
            found = [
                node for node in own_nodes(function.body)
                if isinstance(node, cst.SimpleStatementLine) and _code(module, node) == code
            ]  # fmt: skip
            if len(found) != 1:
                continue
            helper, symbol = call
            wraps[id(found[0])] = (mapping.raised, helper, symbol, mapping.fields)
            helpers.add(helper)
            sites.add((mapping.site.path, mapping.site.line))
        if wraps:
            from mcplint.engine.wrap import relayout  # black: only when there is something to lay out

            code = _with_imports(module.visit(_Wrap(wraps)).code, helpers_module, sorted(helpers))
            texts[path] = (mappings[0].handler_display, relayout(base(path), code, line_length(path)), sites)
    return texts


def _code(module: cst.Module, statement: cst.SimpleStatementLine) -> str:
    return module.code_for_node(statement.with_changes(leading_lines=()))


def patched(text: str, diff: str) -> str:
    """``text`` with a unified diff of it (as `engine.fixer.unified_diff` writes them) applied."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    position = 0
    for line in diff.splitlines(keepends=True):
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            first, _, length = line.split()[1][1:].partition(",")  # `-a,b`: an empty range names the line before
            start = int(first) if length == "0" else int(first) - 1
            out.extend(lines[position:start])
            position = start
        elif line.startswith("+"):
            out.append(line[1:])
        elif line.startswith("-"):
            position += 1
        elif line.startswith(" "):
            out.append(lines[position])
            position += 1
    out.extend(lines[position:])
    return "".join(out)


class _Wrap(cst.CSTTransformer):
    def __init__(self, wraps: dict[int, tuple[str, str, str, tuple[tuple[str, str], ...]]]) -> None:
        self.wraps = wraps
        self._functions: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self._functions.pop()
        return updated

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement:
        wrap = self.wraps.get(id(original))
        if wrap is None:
            return updated
        raised, helper, symbol, fields = wrap
        name = _free_name(self._functions[-1] if self._functions else original)
        arguments = [cst.Arg(cst.SimpleString(f'"{symbol}"'))]
        arguments += [cst.Arg(cst.Name(local), keyword=cst.Name(field), equal=_EQUAL) for field, local in fields]
        error = cst.Call(
            cst.Attribute(cst.Call(cst.Name(helper), arguments), cst.Name("caught_as")), [cst.Arg(cst.Name(raised))]
        )
        clause = cst.ExceptHandler(
            body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Raise(exc=error, cause=cst.From(cst.Name(name)))])]),
            type=cst.Name(raised),
            name=cst.AsName(cst.Name(name)),
        )
        return cst.Try(
            body=cst.IndentedBlock([updated.with_changes(leading_lines=[])]),
            handlers=[clause],
            leading_lines=updated.leading_lines,
        )


def _free_name(function: cst.CSTNode) -> str:
    used = {node.value for node in own_nodes(function) if isinstance(node, cst.Name)}
    name, number = "error", 2
    while name in used:
        name, number = f"error_{number}", number + 1
    return name


def _with_imports(code: str, module: str, names: list[str]) -> str:
    """``code`` with `from <module> import <name>` for each name, as LibCST's
    ``AddImportsVisitor`` adds them: `fixer.add_imports`, which runs it on the module's head
    only (on a large handler module the visitor's walk of the whole tree cost as much as the
    mapping)."""
    from mcplint.engine.fixer import add_imports

    return add_imports(code, [(module, name) for name in names])


# -- reading the files again -------------------------------------------------------------
class _Sources:
    def __init__(self, tasks: dict[str, FileTask], results: _Results, handlers: dict[str, _ParsedHandler]) -> None:
        self.tasks = tasks
        self.results = results
        self.handlers = handlers
        self._trees: dict[str, ast.Module | None] = {}
        self._module_names: dict[str, str] = {}
        self._servers: dict[str, list[tuple[str, Any]]] | None = None

    def module_name(self, display: str) -> str:
        """The file's module name (`module_of`: it looks at the directories), once per file."""
        if display not in self._module_names:
            self._module_names[display] = module_of(Path(display))[1]
        return self._module_names[display]

    def servers(self) -> dict[str, list[tuple[str, Any]]]:
        """Each name a module binds a server to -> (display, (level, framework)) of those modules,
        in the order of the results."""
        if self._servers is None:
            self._servers = {}
            for display, result in self.results.items():
                for name, server in getattr(result, "module_servers", {}).items():
                    self._servers.setdefault(name, []).append((display, server))
        return self._servers

    def path(self, display: str) -> str:
        return self.tasks[display].path

    def raised(self, site: Finding) -> _LibraryRaise | None:
        """The site's raise read again (by its line, in its function): its builtin class and
        where its message's placeholders come from."""
        if site.path not in self._trees:
            try:
                self._trees[site.path] = ast.parse(Path(self.path(site.path)).read_bytes())
            except (OSError, SyntaxError, ValueError):
                self._trees[site.path] = None
        tree = self._trees[site.path]
        return _library_raise(tree, site) if tree is not None else None

    def handler(self, display: str) -> _ParsedHandler:
        path = self.path(display)
        if path not in self.handlers:
            self.handlers[path] = _ParsedHandler(Path(path), self.results[display].local_reach_calls)
        return self.handlers[path]


class _ParsedHandler:
    """A handler module, parsed once: its imports, its functions, its module-level bindings."""

    def __init__(self, path: Path, reach: dict[str, list[str]]) -> None:
        self.reach = reach  # module-local function -> the other modules' functions it reaches
        self.text = path.read_text(encoding="utf-8")
        self.module = cst.parse_module(self.text)
        _, name, is_package = module_of(path)
        package = name if is_package else name.rpartition(".")[0]
        self.imports = ImportTable(package)
        self.functions = _functions_of(self.module)
        self.bindings: dict[str, list[cst.BaseExpression]] = {}
        for statement in self.module.body:
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Import):
                    self.imports.visit_Import(small)
                elif isinstance(small, cst.ImportFrom):
                    self.imports.visit_ImportFrom(small)
                elif isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            self.bindings.setdefault(target.target.value, []).append(small.value)

    def function(self, key: str) -> cst.FunctionDef | None:
        return self.functions.get(key)

    def calls_target(self, call: cst.Call, function: cst.FunctionDef, key: str, target: str, site_function: str) -> str:
        """ "direct": the call runs the library function; "other-path": it runs a function of this
        module that reaches it; "unknown-receiver": a method of that name on an object of unknown
        class; "": anything else."""
        method = site_function.rpartition(".")[2] if "." in site_function else None
        if method is None:
            if self.imports.qualified_name(call.func) == target:
                return "direct"
        elif isinstance(call.func, cst.Attribute) and call.func.attr.value == method:
            owner = target.rpartition(".")[0]  # `app.config.Client`
            return "direct" if self._instance_of(call.func.value, function, owner) else "unknown-receiver"
        callee = dotted_name(call.func) or ""
        if callee.startswith(("self.", "cls.")) and "." in key:
            local = f"{key.rpartition('.')[0]}.{callee.partition('.')[2]}"
        else:
            local = callee if not self.imports.is_imported(callee.split(".")[0]) else ""
        if local and local != key and target in self.reach.get(local, ()):
            return "other-path"
        return ""

    def _instance_of(self, receiver: cst.BaseExpression, function: cst.FunctionDef, owner: str) -> bool:
        """`Client()` itself, or a name bound once (in the function, else at module level) to one."""
        if isinstance(receiver, cst.Call):
            return self.imports.qualified_name(receiver.func) == owner
        if not isinstance(receiver, cst.Name):
            return False
        local = [
            node.value for node in own_nodes(function) if isinstance(node, cst.Assign)
            and any(isinstance(t.target, cst.Name) and t.target.value == receiver.value for t in node.targets)
        ]  # fmt: skip
        values = local or ([] if _is_parameter(function, receiver.value) else self.bindings.get(receiver.value, []))
        return (
            len(values) == 1
            and isinstance(values[0], cst.Call)
            and self.imports.qualified_name(values[0].func) == owner
        )


def _functions_of(module: cst.Module) -> dict[str, cst.FunctionDef]:
    """The module's functions and its classes' methods, by key (`serve`, `Tools.serve`)."""
    functions: dict[str, cst.FunctionDef] = {}
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            functions[statement.name.value] = statement
        elif isinstance(statement, cst.ClassDef):
            for member in statement.body.body:
                if isinstance(member, cst.FunctionDef):
                    functions[f"{statement.name.value}.{member.name.value}"] = member
    return functions


def _is_parameter(function: cst.FunctionDef, name: str) -> bool:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return any(param.name.value == name for param in every)


def _calls(function: cst.FunctionDef) -> Iterator[cst.Call]:
    for node in own_nodes(function.body):
        if isinstance(node, cst.Call):
            yield node


def _statement_of(
    function: cst.FunctionDef, call: cst.Call, raised: str
) -> tuple[cst.SimpleStatementLine | None, bool]:
    """(the simple statement of the function holding ``call``, whether a `try` around it stops
    ``raised`` already); None when the call sits in a compound statement's header or a `try`."""
    path = _path_to(function.body, call)
    if path is None:
        return None, False
    statement = next((node for node in reversed(path) if isinstance(node, cst.SimpleStatementLine)), None)
    tries = [
        node for index, node in enumerate(path[:-1])
        if isinstance(node, cst.Try) and path[index + 1] is node.body
    ]  # fmt: skip

    for try_node in tries:
        for clause in try_node.handlers:
            names, passes_on = clause_of(clause)
            if catches(names, raised):
                return None, not passes_on
    if statement is None or tries or any(isinstance(node, cst.Try) for node in path):
        return None, False
    return statement, False


def _path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from ``root`` down to ``target`` (nested functions not entered)."""
    if root is target:
        return [root]
    for child in root.children:
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        below = _path_to(child, target)
        if below is not None:
            return [root, *below]
    return None


def _low_level(result: object, sources: _Sources) -> bool:
    """The tool's module builds a low-level `Server`, or imports one: the SDK's (`mcp.server.lowlevel`,
    `mcp.server.Server`) or another module's (by that module's servers)."""
    levels = {level for level, _ in getattr(result, "module_servers", {}).values()}
    for name in getattr(result, "imported_names", []):
        if name.split(".")[0] == "mcp" and (".lowlevel" in name or name.endswith(".Server")):
            levels.add("low")
        module, _, bound = name.rpartition(".")
        if not module:
            continue
        for display, server in sources.servers().get(bound, ()):
            if _same_module(module, display, sources):
                levels.add(server[0])
    return bool(levels) and "high" not in levels


def _handler_file(label: str, results: _Results, sources: _Sources) -> tuple[str, str, str] | None:
    """(display path, function key, kind) of the handler a label names."""
    found = []
    for display, result in results.items():
        if result is None:
            continue
        for key, kind in result.handlers:
            if label.endswith("." + key) and _same_module(label[: -len(key) - 1], display, sources):
                found.append((display, key, kind))
    return found[0] if len(found) == 1 else None


def _same_module(module: str, display: str, sources: _Sources) -> bool:
    name = sources.module_name(display)
    return bool(name) and (module == name or module.endswith("." + name))


def _names_function(target: str, library_module: str, function: str) -> bool:
    """`app.config.Client.fetch` names `Client.fetch` of the library module `config` (or `app.config`)."""
    if not target.endswith("." + function):
        return False
    module = target[: -len(function) - 1]
    return module == library_module or module.endswith("." + library_module)


# -- the library's raise -------------------------------------------------------------------
@dataclass(frozen=True)
class _LibraryRaise:
    raised: str  # the builtin class: `ValueError`
    positional: tuple[str, ...]  # the parameters positional arguments bind (a method's `self` dropped)
    keyword_only: tuple[str, ...]
    fields: dict[str, str]  # placeholder -> the parameter it is (`f"Invalid limit: {value}"`)

    def arguments(self, call: cst.Call) -> tuple[tuple[str, str], ...] | None:
        """(placeholder, the tool's local) for each placeholder, from the call's arguments; None
        when one is not a plain local (an expression would run twice, a default is not seen)."""
        bound: dict[str, cst.BaseExpression] = {}
        index = 0
        for arg in call.args:
            if arg.star:
                return None
            if arg.keyword is not None:
                bound[arg.keyword.value] = arg.value
            elif index < len(self.positional):
                bound[self.positional[index]] = arg.value
                index += 1
            else:
                return None
        fields = []
        for placeholder, parameter in sorted(self.fields.items()):
            value = bound.get(parameter)
            if not isinstance(value, cst.Name):
                return None
            fields.append((placeholder, value.value))
        return tuple(fields)


def _library_raise(tree: ast.Module, site: Finding) -> _LibraryRaise | None:
    for key, function, method in _ast_functions(tree):
        if key != site.context:
            continue
        for node in ast.walk(function):
            if not (isinstance(node, ast.Raise) and node.lineno == site.line and node.exc is not None):
                continue
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if not isinstance(raised, ast.Name):
                return None
            arguments = function.args
            positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
            if method:
                positional = positional[1:]
            fields = _fields(node.exc, function, {*positional, *(a.arg for a in arguments.kwonlyargs)})
            return _LibraryRaise(raised.id, tuple(positional), tuple(a.arg for a in arguments.kwonlyargs), fields)
    return None


def _ast_functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """(key, function, is a method that binds its first parameter) for the module's functions and methods."""
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield statement.name, statement, False
        elif isinstance(statement, ast.ClassDef):
            for member in statement.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in member.decorator_list)
                    yield f"{statement.name}.{member.name}", member, not static


def _fields(
    exception: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef, parameters: set[str]
) -> dict[str, str]:
    """Placeholder -> parameter, for a message that is an f-string of the function's own,
    never reassigned parameters (`{value}`, no conversion or format); {} for anything else."""
    if not (isinstance(exception, ast.Call) and len(exception.args) == 1 and not exception.keywords):
        return {}
    message = exception.args[0]
    if not isinstance(message, ast.JoinedStr):
        return {}
    stored = {node.id for node in ast.walk(function) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    fields = {}
    for part in message.values:
        if not isinstance(part, ast.FormattedValue):
            continue
        value = part.value
        if not isinstance(value, ast.Name) or part.conversion != -1 or part.format_spec is not None:
            return {}
        if value.id not in parameters or value.id in stored:
            return {}
        fields[value.id] = value.id
    return fields
