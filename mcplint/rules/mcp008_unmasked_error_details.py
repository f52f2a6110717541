from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import libcst as cst

from mcplint.analysis.error_payloads import string_value
from mcplint.analysis.handlers import SERVER_CLASSES
from mcplint.analysis.imports import TEST_FRAMEWORKS, dotted_name
from mcplint.analysis.prescreen import ImportScreen
from mcplint.analysis.project import ProjectContext
from mcplint.analysis.scopes import Frame
from mcplint.finding import UNSAFE
from mcplint.rules.base import FixSpec, Rule, RuleContext

if TYPE_CHECKING:
    from mcplint.settings import FileSettings

# Standalone fastmcp's server classes (mcp's own `mcp.server.fastmcp.FastMCP` has no such option).
FASTMCP_SERVERS = frozenset(name for name, (_, framework) in SERVER_CLASSES.items() if framework == "fastmcp")
# Class methods that build a server from `**settings` passed to the constructor.
FACTORIES = frozenset({"from_openapi", "from_fastapi"})
OPTION = "mask_error_details"
ENV_VAR = "FASTMCP_MASK_ERROR_DETAILS"
# pydantic-settings reads these (case-insensitively) as False.
FALSE_TEXT = frozenset({"0", "false", "f", "no", "n", "off", ""})
ENV_SETTERS = frozenset({"setdefault", "putenv", "setenv", "__setitem__"})
# The pre-screen: a fastmcp import and the class's name.
FASTMCP_IMPORT = ImportScreen(("fastmcp",))
# What is wrong with a building call's masking.
SETS_FALSE = (
    "sets `mask_error_details=False`: fastmcp sends every unhandled exception's "
    "text to the client; set it to True and raise `ToolError` for what the model should read"
)
NOT_SET = (
    "without `mask_error_details=True`: fastmcp sends every unhandled exception's text to the "
    "client (the default is False); pass `mask_error_details=True` and raise `ToolError` "
    "for what the model should read"
)


class UnmaskedErrorDetails(Rule):
    """
    ## What it does
    Finds standalone fastmcp servers built without `mask_error_details=True`.

    It reports at `FastMCP(...)` (fastmcp's class, however imported),
    `FastMCP.from_openapi` / `from_fastapi`, and the module's subclasses of it
    (at their `super().__init__(...)`, or at their construction when that
    passes `**kwargs` on), when the option is missing, `False` or `None`.
    Silent are any other value (an expression cannot be judged), `**kwargs`
    in the call, a subclass that sets the option itself, a module that
    handles the setting (the string `"FASTMCP_MASK_ERROR_DETAILS"` unless it
    sets a false value, or `fastmcp.settings.mask_error_details = ...` other
    than `False`), and test modules (importing `pytest` or `unittest`). mcp's
    own `mcp.server.fastmcp.FastMCP` and `MCPServer` have no such option. It
    reports anywhere, not only in handler scope; a setting made in another
    module is not seen.

    ## Why is this bad?
    `mask_error_details` defaults to False (the constructor keyword, or the
    `FASTMCP_MASK_ERROR_DETAILS` environment variable). Unmasked, fastmcp
    sends the text of every unhandled exception to the client: a tool that
    hits `ValueError("db at /srv/secret.db failed")` returns an `isError`
    result "Error calling tool 'query': db at /srv/secret.db failed", and a
    resource sends the same text in a JSON-RPC error. Paths, hostnames, SQL
    and credentials in exception messages reach the model and whoever reads
    its transcript. With masking on, only the text of an explicit
    `ToolError`, `ResourceError` or `PromptError` reaches the client; every
    other exception becomes "Error calling tool 'query'". (fastmcp 3.4 still
    leaks a prompt's exception text even when masked, and fastmcp 4 rewrites
    upstream HTTP 429 and timeouts into fixed `ToolError` text.)

    ## Example
    ```python
    from fastmcp import FastMCP

    mcp = FastMCP("warehouse")

    @mcp.tool
    def query(sql: str) -> list[dict]:
        return run_query(sql)
    ```

    ## Use instead
    ```python
    from fastmcp import FastMCP
    from fastmcp.exceptions import ToolError

    mcp = FastMCP("warehouse", mask_error_details=True)

    @mcp.tool
    def query(sql: str) -> list[dict]:
        if not sql.lstrip().lower().startswith("select"):
            raise ToolError("Only SELECT statements are allowed")  # still shown
        return run_query(sql)
    ```
    Or set `FASTMCP_MASK_ERROR_DETAILS=true` where the server is deployed
    (and `os.environ.setdefault("FASTMCP_MASK_ERROR_DETAILS", "true")` in
    the module, so the linter can see it).

    ## Fix safety
    Unsafe (`--unsafe-fixes`): the fix adds `mask_error_details=True` (or
    replaces a false value). Masking changes what clients see for every
    unexpected error, which the server's owner should decide, along with
    turning the messages meant for the model into `ToolError`s.

    ## Options
    None.
    """

    code = "MCP008"
    name = "unmasked-error-details"
    fix_safety = "unsafe"
    handler_scope = False

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._calls: list[tuple[cst.Call, str | None]] = []
        # `super().__init__(...)` / `Base.__init__(self, ...)` by the class they are in.
        self._base_inits: dict[str, list[tuple[cst.Call, str | None]]] = {}
        self._handled = False  # the module sets the option through the environment or the settings
        self._mentioning_classes: set[str] = set()  # classes whose body handles the option itself
        self._test_module = False

    @classmethod
    def prescreen(cls, text: str, settings: FileSettings) -> bool:
        """Files that import fastmcp and name `FastMCP`."""
        return "FastMCP" in text and FASTMCP_IMPORT.search(text) is not None

    # -- the walk ----------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            self._imported((dotted_name(alias.name) or "").split(".", 1)[0])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.module is not None and not node.relative:
            self._imported((dotted_name(node.module) or "").split(".", 1)[0])

    def _imported(self, package: str) -> None:
        if package in TEST_FRAMEWORKS:
            self._test_module = True

    def visit_Call(self, node: cst.Call) -> None:
        function = self.context.scopes.current_function
        owner = _nearest_class(self.context.scopes.frames)
        if owner is not None and _base_init(node.func) is not None:
            self._base_inits.setdefault(owner, []).append((node, function))
        else:
            self._calls.append((node, function))

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        written = node.value
        if OPTION not in written and ENV_VAR not in written and "\\" not in written:
            return  # every string of the module: its value is not evaluated where it cannot match
        value = node.evaluated_value
        if value == ENV_VAR and not self._sets_false(node):
            self._handled = True
        elif value == OPTION:  # `kwargs.setdefault("mask_error_details", True)`
            self._mentioned()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            attribute = target.target
            if isinstance(attribute, cst.Attribute) and attribute.attr.value.lstrip("_") == OPTION:
                self._mentioned()
                if _literal(node.value) not in (False, None):
                    self._handled = True  # `fastmcp.settings.mask_error_details = True`

    def visit_Name(self, node: cst.Name) -> None:
        if node.value != OPTION:
            return
        parent = self.context.ancestors[-1] if self.context.ancestors else None
        if not (isinstance(parent, cst.Arg) and parent.keyword is node):  # a call's keyword is judged per call
            self._mentioned()

    def _mentioned(self) -> None:
        owner = _nearest_class(self.context.scopes.frames)
        if owner is not None:
            self._mentioning_classes.add(owner)

    def _sets_false(self, key: cst.SimpleString) -> bool:
        """`os.environ["FASTMCP_MASK_ERROR_DETAILS"] = "false"` and the like."""
        for ancestor in reversed(self.context.ancestors):
            if isinstance(ancestor, cst.DictElement):
                return ancestor.key is key and _false_text(ancestor.value)
            if isinstance(ancestor, cst.Call):
                return _sets_false_value(ancestor)
            if isinstance(ancestor, cst.Assign):
                return _false_text(ancestor.value)
            if isinstance(ancestor, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return False
        return False

    # -- after the walk ------------------------------------------------------------------
    @classmethod
    def wanted_by(cls, project: ProjectContext) -> bool:
        """A module building another module's fastmcp server subclass: `AppMCP("billing")`."""
        return bool(project.imported_unmasked_classes)

    def project_inputs(self, project: ProjectContext) -> object:
        return project.imported_unmasked_classes

    def export(self) -> None:
        self._exported_classes()

    def _exported_classes(self) -> dict[str, str] | None:
        """The module's server classes (by subclass: its base), the subclasses whose building
        calls decide exported for the modules that import them; None where nothing is judged."""
        if self._handled or self._test_module:
            return None
        servers = self._server_bases()
        self.context.exports["unmasked_classes"] = {
            key: "fastmcp" for key in servers if "<locals>" not in key and self._judged_at(key, servers)
        }
        return servers

    def finish(self) -> None:
        servers = self._exported_classes()
        if servers is None:
            return
        for call, function in self._calls:
            built = self._built(call.func, servers)
            if built is not None and self._judged_at(built, servers):
                self._check(call, dotted_name(call.func) or "FastMCP", function)
        for owner, base in servers.items():
            if owner not in self._mentioning_classes and self._judged_at(base, servers):
                for call, function in self._server_inits(owner, servers):
                    self._check(call, _label(call.func), function)

    def _check(self, call: cst.Call, label: str, function: str | None) -> None:
        problem = _problem(call)
        if problem is not None:
            self.report(call, f"`{label}(...)` {problem}", function=function, fix=_masking_fix(call))

    def _server_bases(self) -> dict[str, str]:
        """The module's fastmcp server subclasses, each with the server class it derives from
        (another such subclass, or the qualified name of fastmcp's class)."""
        classes = self.context.facts.class_bases
        servers: dict[str, str] = {}
        changed = True
        while changed:  # classes may derive from each other in any order
            changed = False
            for key, bases in classes.items():
                if key in servers:
                    continue
                for base in bases:
                    built = self._built(base.value, servers)
                    if built is not None:
                        servers[key] = built
                        changed = True
                        break
        return servers

    def _built(self, expression: cst.BaseExpression, servers: dict[str, str]) -> str | None:
        """The server class an expression (a class, or its factory method) builds, if fastmcp's."""
        if isinstance(expression, cst.Subscript):  # `FastMCP[State]`: a generic server class
            expression = expression.value
        name = dotted_name(expression)
        if name is None:
            return None
        owner, _, method = name.rpartition(".")
        if method in FACTORIES and owner:
            name = owner
        if name in self.context.facts.class_bases:  # the module's own class shadows an import
            return name if name in servers else None
        qualified = self.context.imports.qualify(name)
        if qualified in FASTMCP_SERVERS:
            return qualified
        imported = {name for name, _ in self.context.project.imported_unmasked_classes}
        return qualified if qualified in imported else None

    def _server_inits(self, owner: str, servers: dict[str, str]) -> list[tuple[cst.Call, str | None]]:
        """The calls in a server subclass that run its server base's `__init__` (not a mixin's)."""
        return [
            (call, function)
            for call, function in self._base_inits.get(owner, [])
            if isinstance(call.func, cst.Attribute)
            and (_base_init(call.func) == "super" or self._built(call.func.value, servers) is not None)
        ]

    def _judged_at(self, server: str, servers: dict[str, str], depth: int = 0) -> bool:
        """Whether building ``server`` is judged by the building call's arguments: fastmcp's class
        always; a subclass when nothing in it sets the option and its `__init__` (if any) passes
        the caller's keywords on."""
        if server not in servers:
            return True
        if server in self._mentioning_classes or depth > 10:
            return False
        inits = self._server_inits(server, servers)
        if inits and not any(arg.star == "**" for call, _ in inits for arg in call.args):
            return False  # its own `super().__init__(...)` call is judged instead
        return self._judged_at(servers[server], servers, depth + 1)


def _nearest_class(frames: Sequence[Frame]) -> str | None:
    for frame in reversed(frames):
        if frame.kind == "class":
            return frame.qualname
    return None


def _base_init(func: cst.BaseExpression) -> str | None:
    """`super().__init__` / `Base.__init__`: the base named, or "super"."""
    if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__"):
        return None
    value = func.value
    if isinstance(value, cst.Call) and dotted_name(value.func) == "super":
        return "super"
    return dotted_name(value)


def _masking_fix(call: cst.Call) -> FixSpec:
    """Set `mask_error_details=True` (replacing a false value). Unsafe: unhandled
    errors then reach the client as a generic message, which is the point, but a
    client that parsed the old text sees a change."""
    equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    masked = cst.Arg(cst.Name("True"), keyword=cst.Name(OPTION), equal=equal)
    kept = [arg for arg in call.args if not (arg.keyword is not None and arg.keyword.value == OPTION)]
    if call.args:  # the call's own trailing comma (and line break) stays last
        masked = masked.with_changes(comma=call.args[-1].comma)
    separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    last = call.args[-1] if call.args else None
    kept = [
        arg.with_changes(comma=separator) if arg is last or arg.comma is cst.MaybeSentinel.DEFAULT else arg
        for arg in kept
    ]
    # A keyword argument may follow positional ones and `**kwargs` alike.
    return FixSpec(call, call.with_changes(args=[*kept, masked]), "Add `mask_error_details=True`", UNSAFE)


def _label(func: cst.BaseExpression) -> str:
    return "super().__init__" if _base_init(func) == "super" else dotted_name(func) or "__init__"


def _problem(call: cst.Call) -> str | None:
    """What is wrong with the call's masking, or None when it cannot be judged."""
    for arg in call.args:
        if arg.star == "**":
            return None
        if arg.keyword is not None and arg.keyword.value == OPTION:
            value = _literal(arg.value)
            if value is False:
                return SETS_FALSE
            if value is not None:  # True, or an expression that cannot be judged
                return None
            break  # None: the default
    return NOT_SET


_UNKNOWN = object()


def _literal(node: cst.BaseExpression) -> object:
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    return _UNKNOWN


def _false_text(node: cst.BaseExpression) -> bool:
    text = string_value(node)
    if text is not None:
        return text.strip().lower() in FALSE_TEXT
    return _literal(node) is False


def _sets_false_value(call: cst.Call) -> bool:
    """`os.environ.setdefault(K, "false")`, `os.putenv(K, "0")`, `monkeypatch.setenv(K, "no")`."""
    method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return method in ENV_SETTERS and len(positional) >= 2 and _false_text(positional[1])
