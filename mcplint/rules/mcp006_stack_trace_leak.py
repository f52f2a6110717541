from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import libcst as cst

from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.exception_flow import (
    STRINGIFIERS,
    ExceptionFlow,
    Leak,
    StdioDetector,
    bound_name,
    owned_text_classes,
    text_helper,
)
from mcplint.analysis.handlers import module_aliases
from mcplint.analysis.imports import dotted_name
from mcplint.analysis.project import ProjectContext, TextHelperEntry
from mcplint.finding import UNSAFE
from mcplint.registry.codegen import helper_name
from mcplint.registry.match import site_message
from mcplint.rules.base import FixSpec, Rule, RuleContext
from mcplint.rules.registry_fix import (
    ErrorSite,
    exception_log_line,
    fix_anchors,
    own_message_reason,
    raised_message,
    registry_error_fix,
)


class StackTraceLeak(Rule):
    """
    ## What it does
    Finds exception text and tracebacks that reach the client from handler
    scope. Sources: the caught exception (`str(e)`, `f"{e}"`, `"%s" % e`,
    `e.args`, `e.message`), `e.__traceback__`, `traceback.format_exc()` and
    friends, `sys.exc_info()`, a parameter typed `BaseException`; followed
    through locals, string building, containers and the project's helpers.

    Sinks: a returned value (any part), a raised exception's message,
    `TextContent`/`CallToolResult`/`ErrorData`, an awaited
    `ctx.error/warning/info/debug/log` or `send_log_message`, and `print`
    where the server runs over stdio. Logging, `warnings.warn` and files are
    not sinks; `type(e).__name__`, `e.status_code`, unknown functions,
    registry helpers, the project's own exception classes, a
    `ValueError`-like class the `try` raises only with messages of its
    own (here or in callees), a `try` that only parses a value
    (`ZoneInfo(name)`), errors describing the caller's input (`re.error`,
    pydantic's `ValidationError`, `UnicodeDecodeError`) and `sanitizers`
    stop the flow.

    ## Why is this bad?
    Exception text is written for the developer: it carries file paths,
    hostnames, SQL, connection strings, library internals and sometimes
    secrets (CWE-209, CodeQL's `py/stack-trace-exposure`). An MCP client hands
    it to an LLM, which may repeat it to the user or act on it, and the text
    changes with every library upgrade, so no client can match on it.

    `return {"error": str(e)}` is also MCP001 (an error returned as a
    success); both findings on one line is intended.

    ## Example
    ```python
    import sqlite3

    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

    mcp = FastMCP("notes")

    @mcp.tool()
    def count_notes(folder: str) -> int:
        try:
            with sqlite3.connect("/srv/notes.db") as conn:
                return conn.execute("SELECT count(*) FROM notes WHERE folder = ?", (folder,)).fetchone()[0]
        except sqlite3.Error as e:
            raise ToolError(f"Database error: {e}") from e
    ```

    ## Use instead
    ```python
    import logging
    import sqlite3

    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

    logger = logging.getLogger(__name__)
    mcp = FastMCP("notes")

    @mcp.tool()
    def count_notes(folder: str) -> int:
        try:
            with sqlite3.connect("/srv/notes.db") as conn:
                return conn.execute("SELECT count(*) FROM notes WHERE folder = ?", (folder,)).fetchone()[0]
        except sqlite3.Error as e:
            logger.exception("counting notes in %s failed", folder)
            raise ToolError(f"The notes database is unavailable ({type(e).__name__})") from e
    ```
    With an error registry, raise the generated helper instead
    (`raise notes_error("NOTES_DB_UNAVAILABLE")`): it never serialises the cause.

    ## Fix safety
    Unsafe. In a raised error's message, with a registry entry whose message
    matches the rest of the text (`f"Database error: {e}"` → "Database error";
    only the exception → "Count notes failed", what the function does): the
    raise becomes the registry's helper, `raise notes_error("DATABASE_ERROR")
    from e`, and when the clause logs nothing, `logger.exception(...)` is added
    before it (a module without a logger gets one), so the text goes to the logs.
    Everywhere else, and without a match: `str(e)`, `repr(e)`, `{e}` and
    `{e!r}` become `type(e).__name__`, so the client learns what kind of failure
    it was and not its text (paths, SQL, hosts), and in the `except` clause
    that caught it, when the clause logs nothing yet, `logger.exception(...)`
    goes before the statement (a module without a logger gets one), so the
    text is in the logs instead. The failure itself always
    stays. Tracebacks and other shapes get no fix: what the client should be
    told is for the author. Nor does a raise or return in a clause that
    catches only classes its own `try` raises itself, where the calls in it
    may raise them too (`raise RuntimeError("... must be http or https")` in
    the body, `except RuntimeError as exc: raise ToolError(str(exc))`): the
    text may be the project's own message, which the client was meant to
    read, and either fix would lose it. `mcplint migrate` creates the
    registry entries.

    ## Options
    - `sanitizers` (list of function names, default `[]`): functions whose
      result is safe to send, e.g. `["redact", "myapp.errors.public_message"]`;
      a name matches the call as written, its imported qualified name, or its
      last part.
    """

    code = "MCP006"
    name = "stack-trace-leak"
    fix_safety = "unsafe"
    options = {"sanitizers": []}
    # Reads the module's aliases (its tree's expressions: the `ast` twin has its own reader).
    _module_aliases = staticmethod(module_aliases)

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        # The registry's helpers (no leak through them) are the flow's at finish: the walk
        # reads no registry (`Rule.walk_reads_registry`).
        self._flow = ExceptionFlow(self.context.imports, sanitizers=self.settings["sanitizers"])
        self._stdio = StdioDetector(self.context.imports)
        self._flow_module: str | None = None  # the module (package) the flow's analyses so far were made in
        self._project_imports: set[str] = set()
        self._imports_from_package: list[tuple[str, str]] = []  # (top-level package or ".", bound name)


    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        key = self.context.scopes.qualname_for(node.name.value)
        info = self.context.facts.functions.get(key)
        self._flow.add_function(key, node, info.class_key if info is not None else None)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        # `from .errors import NotesError`, `from notes.errors import NotesError` inside the
        # `notes` package: a class of the project itself.
        # (Which package is this module's is known when the project context is, at finish.)
        if isinstance(node.names, cst.ImportStar):
            return
        package = "." if node.relative else (dotted_name(node.module) or "").partition(".")[0] if node.module else ""
        for alias in node.names:
            bound = alias.asname.name if alias.asname is not None else alias.name
            if isinstance(bound, cst.Name) and package:
                self._imports_from_package.append((package, bound.value))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._stdio.visit_Assign(node, at_module_level=not self.context.scopes.frames)

    def visit_Call(self, node: cst.Call) -> None:
        self._stdio.visit_Call(node)

    def export(self) -> None:
        exported, raising, _ = self._judge(self.context.project.imported_text_helpers, leaks=False)
        self._export(exported, raising)

    def _export(self, exported: dict[str, list[list[str]]], raising: dict[str, list[list[str]]]) -> None:
        """The module's text helpers and raising functions, for the modules importing them."""
        exported.update(self._module_aliases(self.context.facts.aliases, exported))
        self.context.exports["text_helpers"] = exported
        raising.update(self._module_aliases(self.context.facts.aliases, raising))
        self.context.exports["raising_functions"] = raising

    def finish(self) -> None:
        exported, raising, leaks = self._judge(self.context.project.imported_text_helpers)
        self._export(exported, raising)
        logged: set[int] = set()  # the clauses a fix logs in already: one line each
        for leak in leaks:
            plain_fix = self._logging(_sanitising_fix(leak.origin.node), leak, logged)
            site = self._raise_site(leak)
            fix = registry_error_fix(self.context, site, UNSAFE, fallback=plain_fix) if site else plain_fix
            clause = site.clause if site is not None else self.context.return_clause(leak.sink.node)
            kept = own_message_reason(self.context, clause)
            self.report(
                leak.origin.node,
                _message(leak),
                function=leak.function,
                through_return=leak.sink.through_return,
                fix=None if kept else fix,
                error_message=site.message if site is not None and not kept else None,
                anchors=fix_anchors(site.statement if site is not None else None),
                unfixed_reason=kept or (_left_reason(leak) if fix is None else None),
            )

    def project_inputs(self, project: ProjectContext) -> object:
        return (
            project.imported_text_helpers,
            project.imported_raisers,
            project.parameter_classes,
            self.context.reached,
            project.imported_servers,
            project.stdio_transport,
        )

    def _judge(
        self, helpers: tuple[TextHelperEntry, ...], leaks: bool = True
    ) -> tuple[dict[str, list[list[str]]], dict[str, list[list[str]]], list[Leak]]:
        """The module's leaks, and its text helpers and raising functions for the modules
        importing them."""
        # A later round of the run hands the module a new project context. A function's
        # analysis depends on it only through what it asks of other modules (their text
        # helpers and raisers, the targets of its calls), of the transport and of the
        # registry's helpers, and on the module's package; the entry points decide which
        # functions are judged, not what an analysis finds. Each analysis whose questions the
        # new context answers the same stays (``ExceptionFlow.drop_stale``; not those that met
        # a call cycle, where the first function asked for decides, nor those reading them).
        imported = {name: (positional, keyword_only, returned) for name, positional, keyword_only, returned in helpers}
        registry = self.context.registry
        helpers_module = registry.helpers_module if registry is not None else None
        helper_names = frozenset(helper_name(domain) for domain in registry.domains) if registry is not None else frozenset()
        project = self.context.project
        runs_stdio = self._stdio.is_stdio({name for name, _, _ in project.imported_servers})
        self.context.runs_stdio = runs_stdio
        # Where the project runs its server over stdio, `print` writes into the transport in
        # every module its handlers reach, not only in the one that starts it.
        self._flow.stdio = runs_stdio or project.stdio_transport
        self._flow.helpers_module = helpers_module
        self._flow.helper_names = helper_names
        self._flow.external_calls = self.context.external_calls
        self._flow.imported_text_helpers = imported
        self._flow.imported_raisers = {
            name: (frozenset(own), frozenset(text)) for name, own, text in project.imported_raisers
        }
        if project.module != self._flow_module:
            self._flow.forget()
            self._flow_module = project.module
        else:
            self._flow.drop_stale()
        self._flow.project_classes = frozenset(self.context.facts.class_bases)
        own_package = (self.context.project.module or "").partition(".")[0]
        self._project_imports = {
            bound for package, bound in self._imports_from_package if package in (".", own_package)
        }
        self._flow.project_imports = frozenset(self._project_imports)
        reached = self.context.reached
        exported, raising = {}, {}
        for key, sources in self._flow.functions.items():
            # Module-level functions and methods a handler reaches: what other modules call.
            if "<locals>" not in key and (reached is None or key in reached):
                summary = self._flow.summary(key)
                helper = text_helper(summary, sources[-1].node)
                if helper is not None:
                    exported[key] = [list(part) for part in helper]
                # Only what can make a caller's clause read the project's own text: a summary
                # that cannot changes the importers' contexts, and their analyses, for nothing.
                own = owned_text_classes(summary.raised_own)
                if own:
                    raising[key] = [sorted(own), sorted(summary.raised_text)]
        return exported, raising, self._flow.leaks(reached) if leaks else []

    def _raise_site(self, leak: Leak) -> ErrorSite | None:
        """A leak into a raised error's message: the raise can become the registry's error
        (returns are MCP001's sites, and other sinks have no registry form)."""
        raise_node = leak.sink.node
        if not isinstance(raise_node, cst.Raise) or not isinstance(raise_node.exc, cst.Call):
            return None
        clause, annotation = self.context.raise_place(raise_node)
        written = raised_message(raise_node.exc)
        if clause is None or written is None or self._raises_project_class(raise_node.exc):
            return None
        message = site_message(written, leak.function, bound_name(clause))
        return ErrorSite(raise_node, message, leak.function, clause, hides_cause=True, annotation=annotation)

    def _logging(self, fix: FixSpec | None, leak: Leak, logged: set[int]) -> FixSpec | None:
        """The plain fix, with `logger.exception(...)` before the statement it changes when that
        is in the `except` clause that caught the exception and the clause logs nothing yet (a
        module without a logger gets one): the text the client no longer gets goes to the log."""
        if fix is None:
            return None
        found = self._clause_statement(leak)
        if found is None or id(found[0]) in logged:
            return fix
        clause, statement = found
        site = ErrorSite(statement, None, leak.function, clause, hides_cause=True)  # type: ignore[arg-type]
        line, imports = exception_log_line(self.context, site)
        if line is None:
            return fix
        logged.add(id(clause))
        # A module without a logger gets one (`imports`: the module logger, not a helper).
        return replace(fix, log_line=line, statement=statement, imports=imports)

    def _clause_statement(self, leak: Leak) -> tuple[cst.ExceptHandler, cst.BaseSmallStatement] | None:
        """The `except` clause of the leak's function around its origin, and the simple statement
        in it that holds the origin."""
        sources = self._flow.functions.get(leak.function)
        if not sources:
            return None
        origin = leak.origin.node
        for clause in own_nodes(sources[-1].node.body):
            if type(clause) is not cst.ExceptHandler:  # every node: isinstance on LibCST's ABCs is slow
                continue
            for statement in own_nodes(clause.body):
                if isinstance(statement, cst.BaseSmallStatement) and any(
                    node is origin for node in own_nodes(statement)
                ):
                    return clause, statement
        return None

    def _raises_project_class(self, call: cst.Call) -> bool:
        """`raise CommandSecurityError(f"... {e}")`: the project's own class, which its own
        `except` clauses may catch; a registry error would slip past them."""
        name = dotted_name(call.func)
        return name is not None and (
            name in self.context.facts.class_bases
            or name in self._project_imports
            or name.split(".")[0] in self._project_imports
        )


def _message(leak: Leak) -> str:
    what = "Traceback details reach" if leak.origin.kind == "traceback" else "The caught exception's text reaches"
    return (
        f"{what} the client through {leak.sink.description}; "
        "log it and send a fixed message (or a registry error) instead"
    )


def _left_reason(leak: Leak) -> str | None:
    """Why a leak has no fix, where the origin says it (`mcplint migrate` lists the site with it)."""
    origin = leak.origin.node
    if leak.origin.kind == "traceback":
        return "traceback text: what the client should be told instead is for the author"
    if isinstance(origin, cst.Call):
        name = dotted_name(origin.func)
        if name is not None and name not in STRINGIFIERS:
            return f"the text comes from `{name}(...)`, which puts the exception's text in what it returns: change it there"
    return None


def _exception_name(expression: cst.BaseExpression) -> cst.Name | None:
    """`e` in `str(e)`, `repr(e)` or a bare `e`."""
    if isinstance(expression, cst.Call) and len(expression.args) == 1:
        if dotted_name(expression.func) in ("str", "repr"):
            expression = expression.args[0].value
    return expression if isinstance(expression, cst.Name) else None


def _sanitising_fix(origin: cst.CSTNode) -> FixSpec | None:
    """`str(e)` / `{e}` / `{e!r}` → `type(e).__name__`: the kind of failure, not its text.

    Unsafe: the client sees less (which is the point), and whatever the text told
    a human now has to come from the logs (`logger.exception(...)`)."""
    if isinstance(origin, cst.FormattedStringExpression):
        name = _exception_name(origin.expression)
        if name is None:
            return None
        replacement: cst.CSTNode = origin.with_changes(expression=_type_name(name), conversion=None)
    elif isinstance(origin, (cst.Call, cst.Name)):
        name = _exception_name(origin)
        if name is None:
            return None
        replacement = _type_name(name)
    else:
        return None
    return FixSpec(origin, replacement, "Show the exception's type, not its text", UNSAFE)


def _type_name(name: cst.Name) -> cst.Attribute:
    return cst.Attribute(cst.Call(cst.Name("type"), [cst.Arg(cst.Name(name.value))]), cst.Name("__name__"))
