from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import libcst as cst

from mcplint.analysis.empty_values import (
    ClauseReturn,
    clause_returns,
    clauses_leaving_empty,
    empty_builders,
    is_none_literal,
    never_returns,
    own_nodes,
    returns_values,
)
from mcplint.analysis.error_payloads import is_failure_answer
from mcplint.analysis.exception_flow import catches_everything, caught_names, reraises
from mcplint.analysis.imports import dotted_name
from mcplint.analysis.project import ProjectContext
from mcplint.finding import UNSAFE
from mcplint.registry.match import failure_text
from mcplint.rules.advice import FAILURE_INSTEAD
from mcplint.rules.base import FixSpec, Rule, RuleContext
from mcplint.rules.registry_fix import ErrorSite, fix_anchors, registry_error_fix

# A function whose contract is a yes/no answer: `False` on failure is its answer.
PROBE_NAME = re.compile(r"_*(is|has|can|probe)_\w+|_*(connect|ping|probe)")
_SHOWN_LENGTH = 40


# A finding judged: (its node and message, its function, its registry site, reported only in a handler).
_Judged = tuple[tuple[cst.CSTNode, str], str, ErrorSite | None, bool]


class SilentEmptyFallback(Rule):
    """
    ## What it does
    Finds `except` clauses in handler scope that end in an empty-looking
    success: `return` of `[]`, `{}`, `None`, `""`, `0`, `False`, a dict of
    empty values, an empty model, or a local still empty
    on that path; `pass`, `continue` or logging that falls through to such
    a `return` (past a loop returning its first success, too: every
    candidate failed); a clause that only logs (or empties it) while a
    collection the `try` was to fill goes into the answer (`{"rows":
    rows}`). The value must reach a handler.

    Silent when the clause raises on some path or a catch-all sibling
    re-raises, for control-flow exceptions, `KeyError`/`IndexError`/
    `AttributeError` around a lookup, `JSONDecodeError` in a loop, in
    yes/no probes (`is_*`, `has_*`, `-> bool`), for `None` in a helper typed
    `-> X | None` (unless a caller reads it as none: `read(p) or {}`),
    when a loop moves on past an absent or malformed candidate, when the
    emptiness is answered as a failure (`if not rows: raise`), for a `try`
    only reshaping what is at hand.

    ## Why is this bad?
    The client receives a *successful*, empty result. An LLM concludes there
    are no matching records, no files, no events, and acts on it; an automated
    client caches the emptiness. The real cause (an expired token, a database
    that is down, a typo in an argument) is lost, and nothing says whether a
    retry would help. The MCP spec (2026-07-28) says a server "MUST NOT return
    an empty `contents` array for a non-existent resource".

    ## Example
    ```python
    import logging

    import httpx
    from mcp.server.fastmcp import FastMCP

    logger = logging.getLogger(__name__)
    mcp = FastMCP("tickets")

    @mcp.tool()
    async def search_tickets(query: str) -> list[dict]:
        try:
            async with httpx.AsyncClient() as client:
                response = await client.get("https://tickets.example/api", params={"q": query})
                response.raise_for_status()
                return response.json()["tickets"]
        except httpx.HTTPError as e:
            logger.error("ticket search failed: %s", e)
            return []
    ```

    ## Use instead
    ```python
    import logging

    import httpx
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError

    logger = logging.getLogger(__name__)
    mcp = FastMCP("tickets")

    @mcp.tool()
    async def search_tickets(query: str) -> list[dict]:
        try:
            async with httpx.AsyncClient() as client:
                response = await client.get("https://tickets.example/api", params={"q": query})
                response.raise_for_status()
                return response.json()["tickets"]
        except httpx.HTTPError as e:
            logger.error("ticket search failed: %s", e)
            raise ToolError("The ticket service is unavailable; try again later") from e
    ```
    With an error registry, raise (or return the tool result of) the generated
    helper: `raise tickets_error("TICKETS_UNAVAILABLE")`.

    ## Fix safety
    Unsafe, and only with a registry: `except X as e: return []` becomes
    `raise <helper>("SYMBOL") from e`, where the symbol is `default-symbol` from
    the config (e.g. `DEPENDENCY_FAILED`) when it is set and registered, else the
    registry entry whose message says what failed ("Search notes failed" for
    `search_notes`; `mcplint migrate` creates it as a dependency failure:
    `category = "UNAVAILABLE"`, `retryable = true`, `recovery = "retry-later"`,
    so the model waits and calls again instead of reading "nothing found").
    A resource raises the
    helper's `.for_resource()`, a prompt `.for_prompt()`. When the clause logs
    nothing, `logger.exception(...)` is added before the raise (a module
    without a logger gets one). Whether the empty value was a legitimate answer is for the
    author to review; a fall-through (no `return` in the clause) gets no fix.

    ## Options
    - `control-flow-exceptions` (list of class names, default
      `["StopIteration", "StopAsyncIteration", "GeneratorExit"]`): exceptions
      that are control flow, never reported.
    - `lookup-exceptions` (default `["KeyError", "IndexError", "AttributeError",
      "LookupError"]`): not reported around a lookup (a subscript, an attribute,
      `getattr`, `next`).
    - `loop-exceptions` (default `["JSONDecodeError"]`): not reported inside a
      loop (a retry or a scan that skips a bad item).

    Names match by their last part (`json.JSONDecodeError` is `JSONDecodeError`).
    """

    code = "MCP005"
    name = "silent-empty-fallback"
    fix_safety = "unsafe"
    options = {
        "control-flow-exceptions": ["StopIteration", "StopAsyncIteration", "GeneratorExit"],
        "lookup-exceptions": ["KeyError", "IndexError", "AttributeError", "LookupError"],
        "loop-exceptions": ["JSONDecodeError"],
    }

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        self._control_flow = _tails(self.settings["control-flow-exceptions"])
        self._lookup = _tails(self.settings["lookup-exceptions"])
        self._loop = _tails(self.settings["loop-exceptions"])
        self._functions: list[tuple[str, cst.FunctionDef]] = []
        # Marked during the walk, so that finish() reads only the functions that matter:
        # those with a `try` of their own, minus generators.
        self._with_try: set[str] = set()
        self._generators: set[str] = set()
        # Per function judged so far: its findings. A function's judgement depends on its own
        # code and the module's (never on the project context): a later round that reaches more
        # functions judges only those.
        self._judged: dict[int, list[_Judged]] = {}
        self._module_facts: tuple[frozenset[str], frozenset[str]] | None = None  # (exits, empty builders)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # Judged after the walk, once every function of the module is known
        # (a clause ending in `_raise_tool_error(e)` does not fall through).
        self._functions.append((self.context.scopes.qualname_for(node.name.value), node))

    def visit_Try(self, node: cst.Try) -> None:
        self._with_try.add(self.context.scopes.current_function or "")

    def visit_Yield(self, node: cst.Yield) -> None:
        self._generators.add(self.context.scopes.current_function or "")

    def project_inputs(self, project: ProjectContext) -> object:
        return self.context.reached

    def finish(self) -> None:
        # The fixes depend on the registry (a migration's runs differ in it): built each time.
        for (node, message), key, site, only_as_handler in self._judge(self.context.reached):
            self.report(
                node,
                message,
                function=key,
                through_return=True,
                fix=self._fix(site) if site is not None else None,
                error_message=site.message if site is not None else None,
                anchors=fix_anchors(site.statement if site is not None else None),
                advice=FAILURE_INSTEAD,
                only_as_handler=only_as_handler,
            )

    def _judge(self, reached: frozenset[str] | None) -> Iterator[_Judged]:
        """(the finding's node and message, its function, its site, reported only in a handler)."""
        for key, node in self._functions:
            if key in self._with_try and key not in self._generators and (reached is None or key in reached):
                found = self._judged.get(id(node))
                if found is None:
                    found = self._judged[id(node)] = list(self._judge_function(key, node))
                yield from found

    def _judge_function(self, key: str, node: cst.FunctionDef) -> Iterator[_Judged]:
        if self._module_facts is None:
            self._module_facts = (
                frozenset(function.name.value for _, function in self._functions if never_returns(function)),
                empty_builders(function for _, function in self._functions),
            )
        exits, builders = self._module_facts
        if _is_probe(node):
            return
        returns_something: bool | None = None  # asked of a clause that answers None only
        annotation = node.returns.annotation if node.returns is not None else None
        outcomes = list(clause_returns(node, exits, builders))
        reported = {id(outcome.handler) for outcome in outcomes if outcome.empty}
        left = [o for o in clauses_leaving_empty(node, exits) if id(o.handler) not in reported]
        if left:
            answered, answered_none = _failure_answered_empties(node)
            left = [
                o
                for o in left
                if (name := (o.left_empty or "").partition("[")[0]) not in answered
                and not (name in answered_none and _emptied_to_none(o.handler, name))
            ]
        flags = _flag_parameters(node)
        for outcome in [*outcomes, *left]:
            if not outcome.empty or self._expected(outcome, flags):
                continue
            if _returns_none(outcome):
                if returns_something is None:
                    returns_something = returns_values(node)
                if not returns_something:
                    continue  # a procedure: None is its only success
            # `-> str | None` on a helper: None is in its contract, and its callers decide.
            only_as_handler = _returns_none(outcome) and _declares_none(annotation)
            yield _finding(outcome), key, _site(key, outcome, annotation), only_as_handler

    def _fix(self, site: ErrorSite) -> FixSpec | None:
        """`except X as e: return []` → `raise <helper>("SYMBOL") from e`: the configured
        `default-symbol` when set, else the registry entry for what failed ("Search notes failed").

        Unsafe: the function's callers now see an exception instead of an empty value."""
        fix = None
        if self.context.default_symbol is not None:
            fix = registry_error_fix(self.context, site, UNSAFE, symbol=self.context.default_symbol)
        return fix or registry_error_fix(self.context, site, UNSAFE)

    def _expected(self, outcome: ClauseReturn, flags: frozenset[str] = frozenset()) -> bool:
        """The clause is a deliberate, narrow fallback (or not a fallback at all)."""
        handler, try_node = outcome.handler, outcome.try_node
        if reraises(handler) and not _raises_only_on_request(handler, flags):
            return True
        imports = self.context.imports
        if not catches_everything(handler, imports) and any(
            reraises(other) and catches_everything(other, imports) for other in try_node.handlers if other is not handler
        ):
            return True  # `except NotFound: return None` beside `except Exception: raise ...`
        caught = {name.rpartition(".")[2] for name in caught_names(handler, imports)}
        if not caught:
            return False
        return (
            caught <= self._control_flow
            or (caught <= self._lookup and _looks_up(try_node))
            or (caught <= self._loop and outcome.in_loop)
        )


def _flag_parameters(function: cst.FunctionDef) -> frozenset[str]:
    """Parameters with a `True`/`False` default: switches a caller may leave as they are."""
    params = function.params
    return frozenset(
        param.name.value
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
        if isinstance(param.default, cst.Name) and param.default.value in ("True", "False")
    )


def _raises_only_on_request(handler: cst.ExceptHandler, flags: frozenset[str]) -> bool:
    """Every raise of the clause sits under an `if` on a flag parameter (`if not fail_silently
    or is_auth_error(exc): raise`): with the flag's default the failure turns into the empty
    answer, which is what callers that pass nothing get."""
    if not flags:
        return False
    statements = [s for s in handler.body.body if isinstance(s, cst.If)]
    guarded = {
        id(node)
        for statement in statements
        if any(isinstance(n, cst.Name) and n.value in flags for n in [statement.test, *own_nodes(statement.test)])
        for node in own_nodes(statement.body)
    }
    raises = [node for node in own_nodes(handler.body) if isinstance(node, cst.Raise)]
    return bool(raises) and all(id(node) in guarded for node in raises)


def _site(function: str, outcome: ClauseReturn, annotation: cst.BaseExpression | None) -> ErrorSite | None:
    if outcome.return_node is None or outcome.falls_through:
        return None  # no statement of the clause to rewrite
    return ErrorSite(
        outcome.return_node,
        cst.SimpleString(repr(failure_text(function))),
        function,
        outcome.handler,
        hides_cause=True,
        annotation=annotation,
    )


def _finding(outcome: ClauseReturn) -> tuple[cst.CSTNode, str]:
    caught = _caught_text(outcome.handler)
    why = ": the client cannot tell the failure from an empty result"
    if outcome.left_empty is not None:
        message = (
            f"`{caught}` swallows the error and leaves `{outcome.left_empty}` empty, "
            f"which the answer carries as a success"
        )
    elif outcome.return_node is None:
        message = f"`{caught}` swallows the error and the function ends, returning `None` as a success"
    elif outcome.falls_through:
        value = _shown(outcome.return_node.value)
        message = f"`{caught}` swallows the error and falls through to `return {value}`, an empty-looking success"
    else:
        message = f"`{caught}` returns `{_shown(outcome.return_node.value)}`, an empty-looking success"
    node: cst.CSTNode
    if outcome.falls_through or outcome.return_node is None:
        # The clause is the cause; its `except` line is where to look (and to suppress).
        node = outcome.handler.type if outcome.handler.type is not None else outcome.handler
    else:
        node = outcome.return_node
    return node, message + why


def _failure_answered_empties(function: cst.FunctionDef) -> tuple[set[str], set[str]]:
    """Locals the function checks and answers with a failure (`if not rows: raise ...`,
    `if count < 1: return "Error: ..."`): the empty value does not pass for a result. The
    second set: locals only a `x is None` test answers (an emptied `""` passes it)."""
    found: set[str] = set()
    only_none: set[str] = set()
    for node in own_nodes(function.body):
        if not isinstance(node, cst.If) or not node.body.body:
            continue
        names = {n.value for n in [node.test, *own_nodes(node.test)] if isinstance(n, cst.Name)}
        if not names:
            continue
        first = node.body.body[0]
        statement = first.body[0] if isinstance(first, cst.SimpleStatementLine) and first.body else first
        if isinstance(statement, cst.Raise) or (
            isinstance(statement, cst.Return) and statement.value is not None and is_failure_answer(statement.value)
        ):
            (only_none if _tests_is_none(node.test) else found).update(names)
    return found, only_none


def _tests_is_none(test: cst.BaseExpression) -> bool:
    """`x is None`: true of a None only, not of an empty text or list."""
    return (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and _is_none(test.comparisons[0].comparator)
    )


def _emptied_to_none(handler: cst.ExceptHandler, name: str) -> bool:
    """The clause sets the local to None (which an `is None` test answers)."""
    return any(
        isinstance(node, cst.Assign)
        and any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets)
        and _is_none(node.value)
        for node in own_nodes(handler.body)
    )


def _caught_text(handler: cst.ExceptHandler) -> str:
    if handler.type is None:
        return "except:"
    return f"except {_shown(handler.type)}"


def _shown(expression: cst.BaseExpression | None) -> str:
    if expression is None:
        return "None"
    text = " ".join(cst.Module(body=[]).code_for_node(expression).split())
    return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 3] + "..."


def _returns_none(outcome: ClauseReturn) -> bool:
    return _is_none(outcome.return_node.value if outcome.return_node is not None else None)


def _is_none(value: cst.BaseExpression | None) -> bool:
    """`None` written out, or a bare `return`."""
    return value is None or is_none_literal(value)


def _declares_none(annotation: cst.BaseExpression | None) -> bool:
    """`Optional[X]`, `X | None`, `Union[X, None]`: the function's type says it may answer None."""
    if annotation is None:
        return False
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return _declares_none(annotation.left) or _declares_none(annotation.right)
    if isinstance(annotation, cst.Name):
        return annotation.value == "None"
    if isinstance(annotation, cst.SimpleString):  # a quoted annotation: `"Client | None"`
        text = annotation.evaluated_value
        return isinstance(text, str) and ("None" in text.split("|") or text.strip().endswith("| None") or text.startswith("Optional["))
    if isinstance(annotation, cst.Subscript):
        name = (dotted_name(annotation.value) or "").rpartition(".")[2]
        if name == "Optional":
            return True
        if name == "Union":
            return any(
                isinstance(element.slice, cst.Index) and _declares_none(element.slice.value)
                for element in annotation.slice
            )
    return False


def _is_probe(function: cst.FunctionDef) -> bool:
    returns = function.returns.annotation if function.returns is not None else None
    return bool(PROBE_NAME.fullmatch(function.name.value)) or (
        returns is not None and dotted_name(returns) in ("bool", "builtins.bool")
    )


def _looks_up(try_node: cst.Try) -> bool:
    """The try body subscripts, reads an attribute, or calls `getattr`/`next`."""
    for node in own_nodes(try_node.body):
        if isinstance(node, (cst.Subscript, cst.Attribute)):
            return True
        if isinstance(node, cst.Call) and dotted_name(node.func) in ("getattr", "next"):
            return True
    return False


def _tails(names: list[str]) -> frozenset[str]:
    return frozenset(name.rpartition(".")[2] for name in names)
