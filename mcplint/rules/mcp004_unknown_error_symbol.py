from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from mcplint.analysis.error_payloads import string_value
from mcplint.analysis.imports import dotted_name
from mcplint.finding import UNSAFE
from mcplint.registry.codegen import default_helper, helper_name
from mcplint.registry.model import ErrorEntry, Registry
from mcplint.rules.base import FixSpec, Rule, RuleContext, configured_registry

if TYPE_CHECKING:
    from mcplint.settings import FileSettings

SYMBOL_KEYS = frozenset({"error_code", "errorCode"})  # name a symbol in any error payload
# `"symbol"` names an error only in a structured error (`{domain, symbol, retryable}`): a
# finance server's `{"symbol": "AAPL"}` is a ticker.
STRUCTURED_KEYS = frozenset({"domain", "retryable", "code"})
SYMBOL_SHAPE = re.compile(r"[A-Z][A-Z0-9_]*")


@dataclass(frozen=True)
class Helpers:
    """What a registry lets source code name: its helpers by domain and its entries by symbol."""

    domain_of_helper: dict[str, str]
    entries: dict[str, ErrorEntry]
    reserved: dict[str, str | None]  # `[[reserved]] symbols`, with the reason
    module: str | None  # the generated module (`helpers-module`)
    prescreen: re.Pattern[str]

    def helper_of(self, domain: str) -> str:
        return next((helper for helper, name in self.domain_of_helper.items() if name == domain), default_helper(domain))

    def symbols(self, domain: str | None = None) -> list[str]:
        """The symbols a "did you mean" may suggest: not retired, of ``domain`` if given."""
        return [
            entry.symbol
            for entry in self.entries.values()
            if entry.status != "retired" and (domain is None or entry.domain == domain)
        ]


class UnknownErrorSymbol(Rule):
    """
    ## What it does
    Finds error symbols the error registry does not have: the symbol passed
    to a registry helper (`upstream_error("UPSTREAM_TIMEOUT")` or
    `symbol=...`), an error payload's `"error_code"`/`"errorCode"`, and the
    `"symbol"` of a structured error (beside `domain`, `code` or `retryable`,
    or under `"error"`). It also finds retired and reserved symbols and a
    symbol passed to another domain's helper, and suggests the closest
    registered symbol.

    The helpers are the registry's domain helpers (`helper`, default
    `<domain>_error`) from the generated module (`helpers-module`), however
    imported (aliased, through the module, relatively), or called by bare
    name where the module defines or star-imports them; the module need not
    exist yet. Only string literals count, and in payloads only symbols in
    capitals. Without a registry the rule is silent. It reports anywhere, not
    only in handler scope.

    ## Why is this bad?
    The symbol is the contract a client matches on. A misspelt or unregistered
    symbol fails when the error is raised (the helper has no entry for it, and
    its `Literal` type rejects it), which is the worst moment to find out; in
    a hand-built payload it sends a symbol no client knows and the registry's
    documentation does not list. A retired symbol must never be sent again.

    ## Example
    With this registry (`mcp-errors.toml`):
    ```toml
    schema_version = 1
    namespace = "acme-weather"
    helpers-module = "acme_weather.errors"

    [domains.upstream]
    range = [2000, 2099]
    [domains.upstream.errors.UPSTREAM_UNAVAILABLE]
    code = 2001
    message = "Provider {provider} is unavailable."
    retryable = true
    metadata = ["provider"]
    ```
    ```python
    from acme_weather.errors import upstream_error

    def fetch(provider: str) -> dict:
        raise upstream_error("UPSTREAM_UNAVAILBLE", provider=provider)
    ```

    ## Use instead
    ```python
    from acme_weather.errors import upstream_error

    def fetch(provider: str) -> dict:
        raise upstream_error("UPSTREAM_UNAVAILABLE", provider=provider)
    ```
    For a new cause, add an entry to the registry first.

    ## Fix safety
    Unsafe (`--unsafe-fixes`): when exactly one registry symbol of the domain is
    close (difflib), the fix writes it in place of the unknown one. A close
    spelling is a guess, and the right symbol may not exist yet; otherwise no fix.

    ## Options
    None. The registry is the one named by `registry` in the config (default
    `mcp-errors.toml` beside it).
    """

    code = "MCP004"
    name = "unknown-error-symbol"
    fix_safety = "unsafe"
    handler_scope = False
    walk_reads_registry = True  # its visits look for the registry's helpers

    @classmethod
    def prescreen(cls, text: str, settings: FileSettings) -> bool:
        registry = configured_registry(settings.registry)
        return registry is not None and helpers_of(registry).prescreen.search(text) is not None

    def __init__(self, context: RuleContext, options: Mapping[str, Any]) -> None:
        super().__init__(context, options)
        registry = self.context.registry
        self._helpers = helpers_of(registry) if registry is not None else None
        self._calls: list[tuple[cst.Call, str, str | None]] = []
        self._payload_values: set[int] = set()  # `{"error": {"symbol": ...}}` is seen twice

    def visit_Call(self, node: cst.Call) -> None:
        if self._helpers is None:
            return
        # `from acme.errors import upstream_error as up`: the imported name decides.
        name = self.context.imports.qualified_name(node.func) or dotted_name(node.func)
        helper = name.rpartition(".")[2] if name else None
        if helper in self._helpers.domain_of_helper:
            # Whether the name is the generated helper is known once every import is read.
            self._calls.append((node, helper, self.context.scopes.current_function))

    def visit_Dict(self, node: cst.Dict) -> None:
        if self._helpers is None:
            return
        keys = {_string(element.key): element for element in node.elements if isinstance(element, cst.DictElement)}
        structured = bool(STRUCTURED_KEYS & keys.keys())
        for key, element in keys.items():
            if key in SYMBOL_KEYS or (key == "symbol" and structured):
                self._check_payload(element.value)
            elif key == "error" and isinstance(element.value, cst.Dict):
                for inner in element.value.elements:
                    if isinstance(inner, cst.DictElement) and _string(inner.key) == "symbol":
                        self._check_payload(inner.value)

    def finish(self) -> None:
        for call, helper, function in self._calls:
            if self._is_generated_helper(call.func):
                self._check_call(call, helper, function)

    # -- checks ------------------------------------------------------------------------
    def _check_call(self, call: cst.Call, helper: str, function: str | None) -> None:
        assert self._helpers is not None
        argument = _symbol_argument(call)
        symbol = _string(argument) if argument is not None else None
        if argument is None or symbol is None:
            return
        domain = self._helpers.domain_of_helper[helper]
        entry = self._helpers.entries.get(symbol)
        fix = None
        message: str | None
        if entry is None:
            suggestion = _suggestion(symbol, self._helpers.symbols(domain))
            message = _reserved(symbol, self._helpers) or (
                f"`{symbol}` is not in the registry's `{domain}` domain{suggestion}"
            )
            fix = _symbol_fix(argument, symbol, self._helpers.symbols(domain))
        elif entry.domain != domain:
            other = self._helpers.helper_of(entry.domain)
            message = (
                f"`{symbol}` belongs to the registry's `{entry.domain}` domain; call `{other}(...)`, not `{helper}`"
            )
        else:
            message = _retired(entry)
        if message is not None:
            self.report(argument, message, function=function, fix=fix)

    def _check_payload(self, value: cst.BaseExpression) -> None:
        assert self._helpers is not None
        symbol = _string(value)
        if symbol is None or not SYMBOL_SHAPE.fullmatch(symbol) or id(value) in self._payload_values:
            return
        self._payload_values.add(id(value))
        entry = self._helpers.entries.get(symbol)
        if entry is not None:
            message = _retired(entry)
        else:
            suggestion = _suggestion(symbol, self._helpers.symbols())
            message = _reserved(symbol, self._helpers) or (
                f"error payload names `{symbol}`, which is not in the registry{suggestion}"
            )
        if message is not None:
            self.report(value, message)

    def _is_generated_helper(self, func: cst.BaseExpression) -> bool:
        """The call's name is a helper of the generated module, however imported."""
        assert self._helpers is not None
        qualified = self.context.imports.qualified_name(func)
        if qualified is None:
            # A bare name the module defines or star-imports; `obj.upstream_error()` is someone else's.
            return isinstance(func, cst.Name)
        module = qualified.rpartition(".")[0]
        generated = self._helpers.module
        if generated is None:
            return True  # no `helpers-module` yet: any import of a helper's name
        if module.startswith("."):  # `from .errors import x`: the generated module's tail
            return f".{generated}".endswith("." + module.lstrip("."))
        return module == generated


def helpers_of(registry: Registry) -> Helpers:
    cached = _HELPERS.get(id(registry))
    if cached is None or cached[0] is not registry:
        cached = _HELPERS[id(registry)] = (registry, _build_helpers(registry))
    return cached[1]


_HELPERS: dict[int, tuple[Registry, Helpers]] = {}


def _build_helpers(registry: Registry) -> Helpers:
    domain_of_helper = {helper_name(domain): domain.name for domain in registry.domains}
    domain_of_helper = {helper: domain for helper, domain in domain_of_helper.items() if helper.isidentifier()}
    entries: dict[str, ErrorEntry] = {}
    for entry in registry.errors:
        entries.setdefault(entry.symbol, entry)
    reserved = {symbol: reserved.reason for reserved in registry.reserved for symbol in reserved.symbols}
    names = "|".join(map(re.escape, sorted(domain_of_helper)))
    helper_call = rf"|\b(?:{names})\b" if names else ""
    pattern = re.compile(rf"[\"'](?:error_code|errorCode|symbol)[\"']\s*:{helper_call}")
    return Helpers(domain_of_helper, entries, reserved, registry.helpers_module, pattern)


def _symbol_argument(call: cst.Call) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "symbol":
            return arg.value
    first = call.args[0] if call.args else None
    if first is not None and first.keyword is None and not first.star:
        return first.value
    return None


def _retired(entry: ErrorEntry) -> str | None:
    if entry.status != "retired":
        return None
    since = f" (since {entry.retired_since})" if entry.retired_since else ""
    instead = f"; use `{entry.replaced_by}`" if entry.replaced_by else "; it must not be sent again"
    return f"`{entry.symbol}` is retired in the registry{since}{instead}"


def _reserved(symbol: str, helpers: Helpers) -> str | None:
    if symbol not in helpers.reserved:
        return None
    reason = helpers.reserved[symbol]
    return f"`{symbol}` is reserved in the registry{f' ({reason})' if reason else ''}; it must not be used again"


def _symbol_fix(argument: cst.BaseExpression, symbol: str, candidates: list[str]) -> FixSpec | None:
    """A single close registry symbol replaces the misspelt one; unsafe, because a
    close spelling is a guess, and the replacement may be a different error."""
    close = difflib.get_close_matches(symbol, candidates, n=2)
    if len(close) != 1 or not isinstance(argument, cst.SimpleString):
        return None
    quote = argument.quote
    replacement = cst.SimpleString(f"{argument.prefix}{quote}{close[0]}{quote}")
    return FixSpec(argument, replacement, f"Use `{close[0]}`", UNSAFE)


def _suggestion(symbol: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(symbol, candidates, n=1)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _string(node: cst.BaseExpression | None) -> str | None:
    if isinstance(node, cst.SimpleString):
        return string_value(node)
    if isinstance(node, cst.ConcatenatedString):
        left, right = _string(node.left), _string(node.right)
        return left + right if left is not None and right is not None else None
    return None
