from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

import libcst as cst

from mcplint.analysis.catching import stops
from mcplint.analysis.empty_values import is_none_literal, own_nodes
from mcplint.analysis.exception_flow import bound_name
from mcplint.analysis.imports import dotted_name
from mcplint.analysis.scopes import enclosing_function_keys
from mcplint.finding import SAFE, UNSAFE
from mcplint.registry.match import site_message
from mcplint.rules.advice import RAISE_INSTEAD
from mcplint.rules.base import Rule, RuleContext
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, mentions, registry_error_fix

BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)
# What a bare `except:` or `except BaseException` catches, by name.


class RawExceptionRaise(Rule):
    """
    ## What it does
    Finds handlers that raise a builtin exception class (`ValueError`,
    `Exception`, `RuntimeError`, ...) instead of a registry error, also one
    a module function builds (`raise _removed_error(exc)`).

    A bare `raise`, a re-raise of the caught exception (`raise e`), project
    exception classes, and the frameworks' own errors (`ToolError`,
    `ResourceError`, `PromptError`, `McpError`, `MCPError`) do not count, nor
    a raise a surrounding `try` catches, nor one in a private function
    (`_backend`) every call of which sits in a `try` catching the class, nor
    one every way from a handler stops: a caller's `try`, a wrapper decorator
    (the tool's or the function's) calling it in a `try`, the server
    class's `call_tool()` override (`super().call_tool()` in a `try`; `except
    UnexpectedToolError` catches all a tool raises), or a `with` of a context
    manager that converts what its body raises. Nor does a raise under `if not
    isinstance(p, T):` in a high-level handler whose `p` is
    annotated `T` (its arguments are validated before it runs).

    ## Why is this bad?
    What the client sees then depends on the SDK: mcp 1.x and fastmcp (without
    `mask_error_details`) send the exception text, which may leak internals;
    mcp 2.x masks it into "Error executing tool x", which tells the model
    nothing. Neither carries a code, a symbol or a `retryable` flag, so a client
    cannot tell a typo in an argument from an outage.

    ## Example
    ```python
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("notes")

    @mcp.tool()
    def delete_note(note_id: str) -> str:
        if not note_id.isalnum():
            raise ValueError(f"Invalid note id: {note_id}")
        return "deleted"
    ```

    ## Use instead
    ```python
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

    mcp = FastMCP("notes")

    @mcp.tool()
    def delete_note(note_id: str) -> str:
        if not note_id.isalnum():
            raise ToolError(f"Invalid note id: {note_id}")
        return "deleted"
    ```
    With an error registry, raise the generated helper instead
    (`raise notes_error("INVALID_NOTE_ID", note_id=note_id)`).

    ## Fix safety
    With a registry, a raise whose message is one of the registry's messages
    (constant text equal, case, spacing and a final full stop aside; an
    f-string's `{expressions}` where the message has `{placeholders}`) is
    rewritten into the registry's helper, imported from `helpers-module`:
    `raise ValueError(f"Note {note_id} does not exist.")` becomes
    `raise notes_error("NOTE_NOT_FOUND", note_id=note_id).caught_as(ValueError)`,
    `from e` kept: the registry's error, also an instance of the class raised
    before, so every `except ValueError` (and `pytest.raises(ValueError)`) that
    caught it still does; the client sees the registry's error either way
    (`Exception` needs no `.caught_as`). A
    raise only resources reach raises the helper's `.for_resource()`, one only
    prompts reach `.for_prompt()` (the SDK's protocol error with the registry's
    code). In a low-level `call_tool` handler itself the raise becomes
    `return <helper>(...).tool_result()`: there a raise reaches the client as
    bare text on mcp 1.x and as a JSON-RPC -32603 on mcp 2.x. The fix is safe:
    the symbol is determined exactly, the client still gets an error with that
    message and every caller still catches it. An `ExceptionGroup` has no
    registry form. When the message carried the
    caught exception's text (`f"Database error: {e}"`, matched as "Database
    error"), the fix is unsafe: the text leaves the client's message, the raise
    gets `from e`, and `logger.exception(...)` is added when the clause logs
    nothing (a module without a logger gets one). Without a unique match there is no fix.

    ## Options
    - `builtins` (list of class names, default: every builtin exception class):
      the classes that count as raw, e.g. `["Exception", "ValueError", "RuntimeError"]`.
    """

    code = "MCP002"
    name = "raw-exception-raise"
    fix_safety = "safe/unsafe"
    options = {"builtins": sorted(BUILTIN_EXCEPTIONS)}

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._raw = frozenset(self.settings["builtins"])
        self._pending: list[tuple[cst.Raise, str, str | None, bool]] = []

    def visit_Raise(self, node: cst.Raise) -> None:
        if node.exc is None:
            return
        raised = node.exc.func if isinstance(node.exc, cst.Call) else node.exc
        name = dotted_name(raised)
        if name is None or self._is_caught_name(name):
            return
        if stops(self.context.enclosing_guards(node), _unqualified(name).rpartition(".")[2]):
            return
        # Whether the name is shadowed is only known once the whole module is read.
        function = self.context.scopes.current_function
        self._pending.append((node, name, function, self._checks_a_validated_type(function)))

    def _checks_a_validated_type(self, function: str | None) -> bool:
        """The raise is the body of an `if not isinstance(p, T):` (or `if p is not None and not
        isinstance(p, T):`) where the annotation of the function's parameter `p` already
        guarantees a `T`: the framework validates a high-level handler's arguments before it
        runs, so there the check never fails (langfuse-mcp's `labels: list[str] | None`)."""
        info = self.context.facts.functions.get(function or "")
        ancestors = self.context.ancestors
        index = next((i for i in reversed(range(len(ancestors))) if isinstance(ancestors[i], (cst.If, cst.FunctionDef))), None)
        statement = ancestors[index] if index is not None else None
        if info is None or index is None or not isinstance(statement, cst.If):
            return False
        if index + 1 >= len(ancestors) or ancestors[index + 1] is not statement.body:
            return False  # in its `else` / `elif`
        conjuncts = _conjuncts(statement.test)
        for parameter, checked in filter(None, map(_failed_isinstance, conjuncts)):
            if parameter not in info.parameters or info.parameters[parameter] is None:
                continue
            allowed = _validated_types(info.parameters[parameter])  # type: ignore[arg-type]
            if allowed is None:
                continue
            if "None" in allowed and not any(_is_not_none(c, parameter) for c in conjuncts):
                continue
            if all(base in checked or (base == "bool" and "int" in checked) for base in allowed - {"None"}):
                return True
        return False

    def finish(self) -> None:
        for node, name, function, validated in self._pending:
            clause, annotation = self.context.raise_place(node)
            builtin = self._builtin_class(name, function)
            factory = self._factory_class(name, function) if builtin is None and isinstance(node.exc, cst.Call) else None
            if factory is not None and factory in self._raw:
                # `raise _removed_error(exc)`: the builtin is built where the factory returns it,
                # which is where a fix would change it.
                self.report(
                    node,
                    f"Raw `{factory}` (built by `{name}`) raised in handler scope",
                    advice=RAISE_INSTEAD,
                    function=function,
                    escapes=factory,
                    checks_validated_argument=validated,
                    unfixed_reason=f"`{name}` builds the exception: make it return a registry error",
                )
                continue
            if builtin is not None and builtin in self._raw:
                caught = bound_name(clause) if clause is not None else None
                message = self._through_local(_message_argument(node), function, clause)
                site = ErrorSite(
                    node,
                    site_message(message, function, caught) if message is not None else None,
                    function,
                    clause,
                    hides_cause=message is not None and mentions(message, caught),
                    annotation=annotation,
                    raised_class=node.exc.func if isinstance(node.exc, cst.Call) else node.exc,
                )
                self.report(
                    node,
                    f"Raw `{builtin}` raised in handler scope",
                    advice=RAISE_INSTEAD,
                    function=function,
                    # Safe: still an exception, now with the registry's code and message. Unsafe
                    # when the message carried the caught exception's text: the client loses it.
                    fix=registry_error_fix(self.context, site, UNSAFE if site.hides_cause else SAFE),
                    error_message=site.message,
                    escapes=builtin,
                    anchors=fix_anchors(node),
                    checks_validated_argument=validated,
                )

    def _builtin_class(self, name: str, function: str | None) -> str | None:
        imports = self.context.imports
        qualified = imports.qualify(name)
        if qualified is not None:  # imported: a builtin only when it comes from `builtins`
            module, _, attribute = qualified.rpartition(".")
            return attribute if module == "builtins" else None
        if "." in name or self._defines_class(name, function):
            return None
        return name if name in BUILTIN_EXCEPTIONS else None

    def _factory_class(self, name: str, function: str | None) -> str | None:
        """The builtin class every `return` of the module's function ``name`` builds
        (`return RuntimeError(...)`), else the one its return annotation names."""
        key = self.context.local_function(name, function)
        if key is None:
            return None
        info = self.context.facts.functions[key]
        built = set()
        for value in info.returned_values:
            made = dotted_name(value.func) if isinstance(value, cst.Call) else None
            built.add(self._builtin_class(made, info.key) if made is not None else None)
        if not built and info.returns is not None:
            annotated = dotted_name(info.returns)
            built.add(self._builtin_class(annotated, info.key) if annotated is not None else None)
        return next(iter(built)) if len(built) == 1 else None

    def _defines_class(self, name: str, function: str | None) -> bool:
        """A class of that name in the module or in an enclosing function shadows the builtin."""
        classes = self.context.facts.class_bases
        return name in classes or any(
            f"{scope}.<locals>.{name}" in classes for scope in enclosing_function_keys(function)
        )

    def _is_caught_name(self, name: str) -> bool:
        """`raise e` where `e` is bound by an enclosing `except ... as e`."""
        for ancestor in self.context.ancestors:
            if (
                isinstance(ancestor, cst.ExceptHandler)
                and ancestor.name is not None
                and isinstance(ancestor.name.name, cst.Name)
                and ancestor.name.name.value == name
            ):
                return True
        return False

    def _through_local(
        self, message: cst.BaseExpression | None, function: str | None, clause: cst.ExceptHandler | None
    ) -> cst.BaseExpression | None:
        """`message = f"..."; raise ValueError(message)`: the one value the local was given in
        the raise's `except` clause, else in its function."""
        if not isinstance(message, cst.Name):
            return message
        if clause is not None:
            in_clause = [
                node.value
                for node in own_nodes(clause.body)
                if isinstance(node, cst.Assign)
                and any(isinstance(t.target, cst.Name) and t.target.value == message.value for t in node.targets)
            ]
            if len(in_clause) == 1:
                return in_clause[0]
        values = self.context.locals.values(function, message.value)
        return values[0] if len(values) == 1 else message


def _message_argument(node: cst.Raise) -> cst.BaseExpression | None:
    """The message of `raise ValueError("...")`, when it is the one argument."""
    if isinstance(node.exc, cst.Call) and len(node.exc.args) == 1 and node.exc.args[0].keyword is None:
        return node.exc.args[0].value
    return None


def _unqualified(name: str) -> str:
    """`builtins.ValueError` is `ValueError`."""
    return name.removeprefix("builtins.")


# What `isinstance` tests and annotations name, as the builtin type they check.
_TYPE_NAMES = {
    **{name: name for name in ("str", "int", "float", "bool", "list", "dict", "tuple", "set", "frozenset", "bytes")},
    **{"List": "list", "Dict": "dict", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset"},
}


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _failed_isinstance(test: cst.BaseExpression) -> tuple[str, set[str]] | None:
    """`not isinstance(p, T)`, `not isinstance(p, (T1, T2))`: (p, {T, ...})."""
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return None
    call = test.expression
    if not (isinstance(call, cst.Call) and dotted_name(call.func) == "isinstance" and len(call.args) == 2):
        return None
    subject, classes = call.args[0].value, call.args[1].value
    if not isinstance(subject, cst.Name):
        return None
    written = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
    checked = {_TYPE_NAMES.get(dotted_name(w) or "", "") for w in written}
    return (subject.value, checked - {""}) if checked - {""} else None


def _is_not_none(test: cst.BaseExpression, parameter: str) -> bool:
    """`p is not None`."""
    return (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value == parameter
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.IsNot)
        and is_none_literal(test.comparisons[0].comparator)
    )


def _validated_types(annotation: cst.BaseExpression) -> set[str] | None:
    """The builtin types an annotation lets through validation (`list[str] | None`: {"list",
    "None"}); None when it names anything else (a class, `Any`, a string)."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        left, right = _validated_types(annotation.left), _validated_types(annotation.right)
        return left | right if left is not None and right is not None else None
    if isinstance(annotation, cst.Subscript):
        outer = dotted_name(annotation.value) or ""
        inner = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
        if outer.rpartition(".")[2] in ("Optional", "Union"):
            found = [_validated_types(value) for value in inner]
            if any(types is None for types in found):
                return None
            return set().union(*found) | ({"None"} if outer.endswith("Optional") else set())  # type: ignore[arg-type]
        if outer.rpartition(".")[2] == "Annotated" and inner:
            return _validated_types(inner[0])
        base = _TYPE_NAMES.get(outer.rpartition(".")[2])
        return {base} if base else None
    name = dotted_name(annotation) or ""
    if name == "None":
        return {"None"}
    base = _TYPE_NAMES.get(name)
    return {base} if base else None
