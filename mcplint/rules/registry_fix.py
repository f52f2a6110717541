"""Rewriting an error site into the registry's helper: the fix MCP001, MCP002 and MCP005–MCP007 share.

A site is where a handler tells the client about a failure: a returned error
payload, a raise, an empty fallback. Its *message* (`registry.match.site_message`:
the text as written, the exception's text dropped, or what failed) picks the
registry entry; a unique match gives the fix. The form depends on the site:

- ``RESULT``: the returned payload becomes `helper("SYMBOL").tool_result()`;
- ``RAISE``: the raised exception becomes `helper("SYMBOL")` (and `from e` in an
  `except ... as e` without a cause);
- ``RETURN_AS_RAISE``: the `return` becomes `raise helper("SYMBOL") from e`.

Tools get these; a site only resources (or only prompts) reach raises the
helper's `.for_resource()` (`.for_prompt()`), the SDK's protocol error. When the
site dropped or hid the caught exception, the module has a logger, and the
clause does not log yet, the fix adds `logger.exception(...)` before the
statement: the text moves from the client to the logs.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from mcplint.analysis.empty_values import own_nodes
from mcplint.analysis.exception_flow import bound_name
from mcplint.registry.match import helper_call, match_message
from mcplint.rules.base import FixSpec, RuleContext

RESULT, RAISE, RETURN_AS_RAISE = "result", "raise", "return-as-raise"
TOOLS = frozenset({"tool"})
_RAISED_FOR = (("resource", "for_resource"), ("prompt", "for_prompt"))


@dataclass(frozen=True)
class ErrorSite:
    target: cst.CSTNode  # what the fix replaces: the payload, the `raise`, the `return`
    form: str  # RESULT, RAISE or RETURN_AS_RAISE
    message: cst.BaseExpression | None  # the site's registry message (`site_message`)
    function: str | None
    clause: cst.ExceptHandler | None = None  # the enclosing `except` clause, if any
    statement: cst.CSTNode | None = None  # the small statement a log line goes before
    hides_cause: bool = False  # the site drops the caught exception (or its text)


def registry_error_fix(
    context: RuleContext,
    site: ErrorSite,
    applicability: str,
    *,
    symbol: str | None = None,
    fallback: FixSpec | None = None,
) -> FixSpec | None:
    """The site rewritten into the helper of the registry entry its message matches
    (or of ``symbol``, when the rule already knows it); ``fallback`` elsewhere."""
    registry = context.registry
    if registry is None or not registry.helpers_module:
        return fallback
    call = _symbol_call(context, symbol) if symbol is not None else None
    if call is None:
        found = match_message(registry, site.message) if site.message is not None else None
        if found is None:
            return fallback
        call, chosen = helper_call(found), found.entry.symbol
    else:
        chosen = symbol
    imports = ((registry.helpers_module, call.func.value),)  # type: ignore[attr-defined]
    log_line = _log_line(context, site)
    statement = site.statement if log_line is not None else None
    for kind, method in reversed(_RAISED_FOR):
        if site.form == RESULT:
            break  # a returned tool result has no resource or prompt form
        protocol_error = cst.Call(cst.Attribute(call, cst.Name(method)), [])
        fallback = FixSpec(
            *_edit(site, protocol_error),
            f"Raise the registry's `{chosen}` as the SDK's {kind} error",
            applicability,
            imports,
            frozenset({kind}),
            log_line,
            statement,
            fallback,
        )
    tool_form = cst.Call(cst.Attribute(call, cst.Name("tool_result")), []) if site.form == RESULT else call
    message = (
        f"Return the registry's `{chosen}` as an isError result"
        if site.form == RESULT
        else f"Raise the registry's `{chosen}` from `{registry.helpers_module}`"
    )
    return FixSpec(*_edit(site, tool_form), message, applicability, imports, TOOLS, log_line, statement, fallback)


def _symbol_call(context: RuleContext, symbol: str) -> cst.Call | None:
    from mcplint.registry.codegen import helper_name

    registry = context.registry
    assert registry is not None
    for domain in registry.domains:
        if any(entry.symbol == symbol and entry.status != "retired" for entry in domain.errors):
            return cst.Call(cst.Name(helper_name(domain)), [cst.Arg(cst.SimpleString(f'"{symbol}"'))])
    return None


def _edit(site: ErrorSite, error: cst.BaseExpression) -> tuple[cst.CSTNode, cst.CSTNode]:
    """(what to replace, its replacement): the smallest edit that makes the site say ``error``."""
    if site.form == RESULT:
        return site.target, error
    caught = bound_name(site.clause) if site.clause is not None else None
    cause = cst.From(item=cst.Name(caught)) if caught is not None else None
    if site.form == RAISE and isinstance(site.target, cst.Raise) and site.target.exc is not None:
        if site.target.cause is not None or cause is None:
            return site.target.exc, error
        return site.target, site.target.with_changes(exc=error, cause=cause)
    return site.target, cst.Raise(exc=error, cause=cause)


def _log_line(context: RuleContext, site: ErrorSite) -> str | None:
    logger = context.loggers.name
    if not site.hides_cause or site.clause is None or logger is None or context.loggers.already_logs(site.clause):
        return None
    what = (site.function or "the request").split(".<locals>.")[-1]
    return f'{logger}.exception("{what} failed")'


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
