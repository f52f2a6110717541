"""Rewriting an error site into the registry's helper: the fix MCP001, MCP002 and MCP005–MCP007 share.

A site is where a handler tells the client about a failure: a returned error
payload, a raise, an empty fallback. Its *message* (`registry.match.site_message`:
the text as written, the exception's text dropped, or what failed) picks the
registry entry; a unique match gives the fix, as a chain of forms of which the
engine offers the first that the handlers reaching the site allow
(`registry_error_fix`). When the site dropped or hid the caught exception and
the clause does not log yet, the fix adds `logger.exception(...)` before the
statement (a module without a logger gets `logger = logging.getLogger(__name__)`
from the fixer): the text moves from the client to the logs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import libcst as cst

from mcplint.analysis.catching import CATCH_ALL, Guards, clause_of
from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.exception_flow import bound_name
from mcplint.analysis.imports import dotted_name
from mcplint.analysis.loggers import MODULE_LOGGER_IMPORT
from mcplint.finding import Applicability
from mcplint.registry.codegen import helper_name
from mcplint.registry.envelope import envelope_of
from mcplint.registry.match import helper_call, match_message
from mcplint.registry.model import Registry
from mcplint.rules.base import FixSpec, RuleContext

TOOLS = frozenset({"tool"})
_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
_RAISED_FOR = (("resource", "for_resource"), ("prompt", "for_prompt"))
# Return annotations under which mcp 1.x FastMCP passes a returned CallToolResult through
# (any other builds an output schema the result fails: `-> str` becomes a validation error).
_RESULT_ANNOTATIONS = frozenset({"dict", "Dict", "Mapping", "Any", "object", "CallToolResult", "ToolResult", "None"})


@dataclass(frozen=True)
class ErrorSite:
    statement: cst.Return | cst.Raise | cst.Assign  # the statement that tells the client about the failure
    message: cst.BaseExpression | None  # the site's registry message (`site_message`)
    function: str | None
    clause: cst.ExceptHandler | None = None  # the enclosing `except` clause, if any
    hides_cause: bool = False  # the site drops the caught exception (or its text)
    annotation: cst.BaseExpression | None = None  # the enclosing function's return annotation
    details: cst.BaseExpression | None = None  # what else the payload said (`{"id": note_id}`)
    # The builtin class the site raised (`ValueError`, as written): the registry error raised in
    # its place is also one (`.caught_as(ValueError)`), so every `except ValueError` still catches.
    raised_class: cst.BaseExpression | None = None


def registry_error_fix(
    context: RuleContext,
    site: ErrorSite,
    applicability: Applicability,
    *,
    symbol: str | None = None,
    fallback: FixSpec | None = None,
) -> FixSpec | None:
    """The site rewritten into the helper of the registry entry its message matches (or of
    ``symbol``, when the rule already knows it), in the form the reaching handlers need:

    - in a low-level handler itself, `return helper("SYMBOL").tool_result()` (a raise there
      loses the code on mcp 1.x and is a JSON-RPC -32603 on mcp 2.x);
    - in a high-level tool itself, a returned failure the same way, where its return
      annotation lets a `CallToolResult` through;
    - elsewhere in a tool's reach, `raise helper("SYMBOL")` (`from e` in an `except ... as e`):
      an exception passes through whatever the callers do with a returned value (not where
      an mcp 2.x low-level handler reaches: a raise becomes a JSON-RPC -32603 there);
    - where only resources (prompts) reach, `raise helper("SYMBOL").for_resource()` (`.for_prompt()`);
    - ``fallback`` everywhere else.

    No raise is offered where a `try` of the same function would catch it (its `except
    Exception` would answer instead), and the engine offers a form only when it suits every
    handler reaching the site, not only those of the rule's kinds.
    """
    registry = context.registry
    if registry is None or not registry.helpers_module:
        return fallback
    call = symbol_call(context, symbol) if symbol is not None else None
    if call is None:
        found = match_message(registry, site.message) if site.message is not None else None
        if found is None:
            return fallback
        call, chosen = helper_call(found), found.entry.symbol
    else:
        assert symbol is not None  # a symbol's call was found
        chosen = symbol
    details = _without_registry_hints(site.details, _entry_hints(registry, chosen))
    if details is not None:
        call = call.with_changes(args=[*call.args, cst.Arg(details, keyword=cst.Name("details"), equal=_EQUAL)])
    log_line, log_imports = exception_log_line(context, site)
    assert isinstance(call.func, cst.Name)  # helper_call and _symbol_call call the helper by name
    imports = ((registry.helpers_module, call.func.value), *log_imports)
    original = site.raised_class
    if original is not None and _class_name(original) in _NOT_KEPT:
        original = None  # a registry error is an `Exception` already
    if original is not None and _class_name(original) in _NOT_COPYABLE:
        return fallback  # an exception group needs its exceptions: no registry error can be one

    def raised(error: cst.BaseExpression) -> cst.BaseExpression:
        """``error``, also an instance of the class the site raised (its catchers still catch)."""
        if original is None:
            return error
        return cst.Call(cst.Attribute(error, cst.Name("caught_as")), [cst.Arg(original)])

    def form(
        edit: tuple[cst.CSTNode, cst.CSTNode],
        message: str,
        kinds: frozenset[str],
        *,
        in_handler: bool = False,
        low_level: bool | None = None,
        raises: bool = False,
    ) -> None:
        nonlocal fallback
        fallback = FixSpec(
            *edit, message, applicability, imports, kinds, log_line, site.statement,
            in_handler=in_handler, low_level=low_level, raises=raises, fallback=fallback,
        )  # fmt: skip

    # A `try` of the same function that would catch a raise here (`except Exception`) answers
    # in its own words: only a returned result keeps the site's error there.
    caught_here = _caught_on_the_way(context.statement_guards(site.statement))
    if not caught_here:
        for kind, method in reversed(_RAISED_FOR):
            protocol_error = raised(cst.Call(cst.Attribute(call, cst.Name(method)), []))
            form(_raise_edit(site, protocol_error), f"Raise the registry's `{chosen}` as the SDK's {kind} error", frozenset({kind}))
        form(_raise_edit(site, raised(call)), f"Raise the registry's `{chosen}` from `{registry.helpers_module}`", TOOLS, raises=True)
    result = cst.Call(cst.Attribute(call, cst.Name("tool_result")), [])
    returned = f"Return the registry's `{chosen}` as an isError result"
    if not isinstance(site.statement, cst.Raise) and result_allowed(site.annotation):
        form(_return_edit(site, result), returned, TOOLS, in_handler=True, low_level=False)
    form(_return_edit(site, result), returned, TOOLS, in_handler=True, low_level=True)
    if caught_here and fallback is not None:
        fallback = replace(fallback, no_raise_reason="a `try` of its function would catch a raise there")
    return fallback


# A raise of these needs no `.caught_as(...)`: every registry error is an `Exception`.
_NOT_KEPT = frozenset({"Exception", "BaseException"})
# Exception groups are built from their exceptions: a copy of a registry error cannot be one.
_NOT_COPYABLE = frozenset({"ExceptionGroup", "BaseExceptionGroup"})


# What catches a registry error besides a catch-all: the frameworks' classes it derives from.
_CATCHES_REGISTRY_ERRORS = CATCH_ALL | frozenset(
    {"ToolError", "FastMCPError", "McpError", "MCPError", "ResourceError", "PromptError",
     "RegisteredError", "RegisteredToolError", "RegisteredResourceError", "RegisteredPromptError"}
)  # fmt: skip


def _caught_on_the_way(guards: Guards) -> bool:
    """Whether one of these `try`s (innermost first) would stop a registry error raised inside it."""
    for guard in guards:
        for names, passes_on in guard:
            if not names or any(name in _CATCHES_REGISTRY_ERRORS for name in names):
                if not passes_on:
                    return True
                break  # passed on: the next `try` out may stop it
    return False


def _class_name(expression: cst.BaseExpression) -> str:
    return (dotted_name(expression) or "").rpartition(".")[2]


def symbol_call(context: RuleContext, symbol: str) -> cst.Call | None:
    registry = context.registry
    assert registry is not None
    for domain in registry.domains:
        if any(entry.symbol == symbol and entry.status != "retired" for entry in domain.errors):
            return cst.Call(cst.Name(helper_name(domain)), [cst.Arg(cst.SimpleString(f'"{symbol}"'))])
    return None


# Payload keys that give the model guidance (what `mcplint migrate` turns into `hints`).
HINT_KEYS = frozenset({"hint", "hints", "suggestion", "suggestions", "recovery_hint", "recovery_hints", "help"})


def _entry_hints(registry: Registry, symbol: str) -> frozenset[str]:
    for entry in registry.errors:
        if entry.symbol == symbol:
            domain = next((d for d in registry.domains if d.name == entry.domain), None)
            return frozenset(envelope_of(entry, domain).hints)
    return frozenset()


def _without_registry_hints(details: cst.BaseExpression | None, hints: frozenset[str]) -> cst.BaseExpression | None:
    """``details`` without the hint the registry entry already sends in ``data.hints``
    (`{"hint": "List the notes first."}`: said once, not twice)."""
    if not isinstance(details, cst.Dict) or not hints:
        return details
    kept = [
        element
        for element in details.elements
        if not (
            isinstance(element, cst.DictElement)
            and isinstance(element.key, cst.SimpleString)
            and str(element.key.evaluated_value).lower() in HINT_KEYS
            and isinstance(element.value, cst.SimpleString)
            and str(element.value.evaluated_value).strip() in hints
        )
    ]
    return details.with_changes(elements=kept) if kept else None


def fix_anchors(statement: cst.CSTNode | None) -> tuple[cst.CSTNode, ...]:
    """What a registry fix of the site at ``statement`` may edit (`_raise_edit`, `_return_edit`:
    the statement, the raised or returned value), so the engine places them with the finding
    whether or not a registry is configured: a migration's runs with one find them placed."""
    if statement is None:
        return ()
    inner = statement.exc if isinstance(statement, cst.Raise) else None
    if isinstance(statement, cst.Return):
        inner = statement.value
    return (statement,) if inner is None else (statement, inner)


def _raise_edit(site: ErrorSite, error: cst.BaseExpression) -> tuple[cst.CSTNode, cst.CSTNode]:
    """(what to replace, its replacement): the smallest edit that raises ``error``."""
    caught = bound_name(site.clause) if site.clause is not None else None
    cause = cst.From(item=cst.Name(caught)) if caught is not None else None
    statement = site.statement
    if isinstance(statement, cst.Raise) and statement.exc is not None:
        if statement.cause is not None or cause is None:
            return statement.exc, error
        return statement, statement.with_changes(exc=error, cause=cause)
    return statement, cst.Raise(exc=error, cause=cause)


def _return_edit(site: ErrorSite, result: cst.BaseExpression) -> tuple[cst.CSTNode, cst.CSTNode]:
    statement = site.statement
    if isinstance(statement, cst.Return) and statement.value is not None:
        return statement.value, result
    return statement, cst.Return(value=result)


def result_allowed(annotation: cst.BaseExpression | None) -> bool:
    if annotation is None:
        return True
    if isinstance(annotation, cst.BinaryOperation):  # X | Y
        return result_allowed(annotation.left) and result_allowed(annotation.right)
    if isinstance(annotation, cst.Subscript):
        base = dotted_name(annotation.value) or ""
        if base.rsplit(".", 1)[-1] in ("Optional", "Union"):
            return all(
                isinstance(element.slice, cst.Index) and result_allowed(element.slice.value)
                for element in annotation.slice
            )
        annotation = annotation.value
    name = dotted_name(annotation) if not isinstance(annotation, cst.SimpleString) else None
    return name is not None and name.rsplit(".", 1)[-1] in _RESULT_ANNOTATIONS


def exception_log_line(context: RuleContext, site: ErrorSite) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """The `logger.exception(...)` line that keeps the caught exception the rewrite stops from
    reaching the client, and the imports it needs (a module logger, when there is none)."""
    if not site.hides_cause or site.clause is None or context.loggers.already_logs(site.clause):
        return None, ()
    what = (site.function or "the request").split(".<locals>.")[-1]
    logger = context.loggers.name
    imports: tuple[tuple[str, str], ...] = ()
    if logger is None:
        if "logger" in context.imports.imported() or context.locals.values(None, "logger"):
            return None, ()  # the name is taken by something else: no logger of ours
        logger, imports = "logger", (MODULE_LOGGER_IMPORT,)
    return f'{logger}.exception("{what} failed")', imports


def own_message_reason(context: RuleContext, clause: cst.ExceptHandler | None) -> str | None:
    """Why a site that sends the caught exception's text to the client is not rewritten: its
    `except` catches only classes (no catch-all) of which its `try` raises one itself, with a
    message written for the client (`raise ValueError("... must be http or https")` in the
    body, `except ValueError as exc: raise ToolError(str(exc))`). The text is then the
    project's own input validation, often from its other functions too, and a registry entry
    (or the exception's type name) in its place would lose what the client was told (its tests
    match on it). Left for a human, who can give each of those raises its own entry."""
    if clause is None:
        return None
    return kept_message_reason(clause_of(clause)[0], context.own_raises(clause))


def kept_message_reason(names: tuple[str, ...], own: frozenset[str]) -> str | None:
    """``own_message_reason`` of a clause catching ``names`` whose `try` raises ``own`` itself."""
    if not names or CATCH_ALL.intersection(names) or not own:
        return None
    return (
        f"the `except {', '.join(names)}` passes on to the client the text of the `{', '.join(sorted(own))}` "
        "its `try` raises itself (a message the project wrote): a registry entry would lose it"
    )


def mentions(message: cst.BaseExpression, name: str | None) -> bool:
    """The message uses the caught exception (`f"... {e}"`): a fix moves that text to the logs."""
    return name is not None and any(isinstance(node, cst.Name) and node.value == name for node in own_nodes(message))


def raised_message(call: cst.Call) -> cst.BaseExpression | None:
    """The message of `X("...")`, `McpError(ErrorData(code=..., message=...))` or `MCPError(code, message)`."""
    for candidate in (call, *(arg.value for arg in call.args if isinstance(arg.value, cst.Call))):
        if not isinstance(candidate, cst.Call):
            continue
        for arg in candidate.args:
            if arg.keyword is not None and arg.keyword.value == "message":
                return arg.value
        positional = [arg.value for arg in candidate.args if arg.keyword is None]
        if len(positional) >= 2:  # (code, message)
            return positional[1]
        if len(positional) == 1 and not _is_error_data(positional[0]):
            return positional[0]
    return None


def _is_error_data(expression: cst.BaseExpression) -> bool:
    """`ErrorData(code=..., message=...)`: a call that carries the message in keywords."""
    return isinstance(expression, cst.Call) and any(arg.keyword is not None for arg in expression.args)
