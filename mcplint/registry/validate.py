"""The registry's semantic checks: each yields ``Problem``s named after a check in ``checks.CHECKS``.

Schema problems (unknown, missing and mistyped keys, malformed ranges) come
from the loader; the functions here see only values that passed it, so a
field that is ``None`` was either absent or already reported.
"""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Callable, Iterable

from mcplint.protocol_codes import band_problem
from mcplint.registry.envelope import envelopes
from mcplint.registry.model import Domain, ErrorEntry, Problem, Registry, Reserved
from mcplint.registry.positions import TomlPath

SYMBOL = re.compile(r"[A-Z][A-Z0-9_]*")

# google.rpc.Code names, and what AIP-194 says about retrying each.
NEVER_RETRY = frozenset(
    {
        "CANCELLED",
        "DEADLINE_EXCEEDED",
        "INVALID_ARGUMENT",
        "DATA_LOSS",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "UNAUTHENTICATED",
        "FAILED_PRECONDITION",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
    }
)
RARELY_RETRY = frozenset({"RESOURCE_EXHAUSTED", "ABORTED", "INTERNAL", "UNKNOWN"})
ALWAYS_RETRY = frozenset({"UNAVAILABLE"})
CATEGORIES = NEVER_RETRY | RARELY_RETRY | ALWAYS_RETRY | {"OK"}

Check = Callable[[Registry], Iterable[Problem]]


def _line(registry: Registry, path: TomlPath) -> int:
    return registry.positions.span(path).line


def _by_line(registry: Registry, entries: Iterable[ErrorEntry], key: str | None = None) -> list[ErrorEntry]:
    return sorted(entries, key=lambda entry: _line(registry, entry.key_path(key) if key else entry.path))


def _valid_range(bounds: tuple[int, int] | None) -> bool:
    return bounds is not None and bounds[0] <= bounds[1]


def _show(bounds: tuple[int, int]) -> str:
    return f"[{bounds[0]}, {bounds[1]}]"


# -- names -----------------------------------------------------------------------
def invalid_symbols(registry: Registry) -> Iterable[Problem]:
    for entry in registry.errors:
        if not SYMBOL.fullmatch(entry.symbol):
            yield Problem("invalid-symbol", entry.path, _symbol_message(entry.symbol), part="key")
    for reserved in registry.reserved:
        for position, symbol in enumerate(reserved.symbols):
            if not SYMBOL.fullmatch(symbol):
                yield Problem("invalid-symbol", (*reserved.path, "symbols", position), _symbol_message(symbol))


def _symbol_message(symbol: str) -> str:
    upper = re.sub(r"[^A-Z0-9]+", "_", symbol.upper()).strip("_")
    upper = upper if SYMBOL.fullmatch(upper) else f"E_{upper}"
    return f"symbol `{symbol}` is not UPPER_SNAKE_CASE (`^[A-Z][A-Z0-9_]*$`); write `{upper}`"


def duplicate_symbols(registry: Registry) -> Iterable[Problem]:
    first: dict[str, ErrorEntry] = {}
    for entry in _by_line(registry, registry.errors):
        earlier = first.setdefault(entry.symbol, entry)
        if earlier is not entry:
            where = f"domain `{earlier.domain}` (line {_line(registry, earlier.path)})"
            yield Problem("duplicate-symbol", entry.path, f"symbol `{entry.symbol}` is also defined in {where}", "key")


# -- numbers -----------------------------------------------------------------------
def duplicate_codes(registry: Registry) -> Iterable[Problem]:
    first: dict[int, ErrorEntry] = {}
    for entry in _by_line(registry, (entry for entry in registry.errors if entry.code is not None), "code"):
        assert entry.code is not None
        earlier = first.setdefault(entry.code, entry)
        if earlier is not entry:
            retired = " (retired; its number is never reused)" if earlier.status == "retired" else ""
            where = f"`{earlier.symbol}`{retired} (line {_line(registry, earlier.key_path('code'))})"
            yield Problem("duplicate-code", entry.key_path("code"), f"code {entry.code} is already used by {where}")


def reversed_ranges(registry: Registry) -> Iterable[Problem]:
    owners: tuple[Domain | Reserved, ...] = (*registry.domains, *registry.reserved)
    for owner in owners:
        if owner.range is not None and not _valid_range(owner.range):
            message = f"range {_show(owner.range)} is reversed: the low bound comes first"
            yield Problem("invalid-range", (*owner.path, "range"), message)


def overlapping_ranges(registry: Registry) -> Iterable[Problem]:
    domains = sorted(
        (domain for domain in registry.domains if _valid_range(domain.range)),
        key=lambda domain: _line(registry, (*domain.path, "range")),
    )
    for position, domain in enumerate(domains):
        for earlier in domains[:position]:
            assert domain.range is not None and earlier.range is not None
            if domain.range[0] <= earlier.range[1] and earlier.range[0] <= domain.range[1]:
                line = _line(registry, (*earlier.path, "range"))
                message = (
                    f"range {_show(domain.range)} of domain `{domain.name}` overlaps "
                    f"{_show(earlier.range)} of domain `{earlier.name}` (line {line})"
                )
                yield Problem("overlapping-ranges", (*domain.path, "range"), message)


def codes_outside_ranges(registry: Registry) -> Iterable[Problem]:
    for domain in registry.domains:
        if domain.range is None or not _valid_range(domain.range):
            continue
        low, high = domain.range
        for entry in domain.errors:
            if entry.code is not None and not low <= entry.code <= high:
                where = f"domain `{domain.name}`'s range {_show((low, high))}"
                message = f"code {entry.code} of `{entry.symbol}` is outside {where}"
                yield Problem("code-outside-range", entry.key_path("code"), message)


def reserved_in_use(registry: Registry) -> Iterable[Problem]:
    # A retired entry may sit on a reserved number or name: retiring and reserving go together.
    for entry in registry.errors:
        if entry.status == "retired":
            continue
        for reserved in registry.reserved:
            reason = f": {reserved.reason}" if reserved.reason else ""
            where = f"(line {_line(registry, reserved.path)}{reason})"
            if entry.code is not None and reserved.range is not None and _valid_range(reserved.range):
                low, high = reserved.range
                if low <= entry.code <= high:
                    message = f"code {entry.code} of `{entry.symbol}` is reserved by {_show((low, high))} {where}"
                    yield Problem("reserved-used", entry.key_path("code"), message)
            if entry.symbol in reserved.symbols:
                yield Problem("reserved-used", entry.path, f"symbol `{entry.symbol}` is reserved {where}", "key")


def protocol_codes(registry: Registry) -> Iterable[Problem]:
    for entry in registry.errors:
        if entry.code is None or entry.status == "retired":
            continue  # a retired entry is never sent again
        message = _protocol_code_problem(entry)
        if message:
            yield Problem("protocol-reserved-code", entry.key_path("code"), message)


def _protocol_code_problem(entry: ErrorEntry) -> str | None:
    code = entry.code
    assert code is not None
    if code == 0:
        return "code 0 is what the MCP SDKs send for an unmapped exception; a registered error needs its own code"
    return band_problem(code, entry.symbol, f"{entry.symbol} {entry.message or ''}".replace("_", " ").lower())


# -- categories and retries -----------------------------------------------------------
def unknown_categories(registry: Registry) -> Iterable[Problem]:
    for entry in registry.errors:
        category = entry.category
        if category is None or (category in CATEGORIES and category != "OK"):
            continue
        if category == "OK":
            message = "category `OK` means success; an error needs a failure code such as `INTERNAL`"
        else:
            close = difflib.get_close_matches(category.upper(), sorted(CATEGORIES - {"OK"}), n=1, cutoff=0.5)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            message = f"category `{category}` is not a google.rpc.Code name{hint}"
        yield Problem("unknown-category", entry.key_path("category"), message)


def retryable_mismatches(registry: Registry) -> Iterable[Problem]:
    for entry in registry.errors:
        if entry.retryable is None or entry.category not in CATEGORIES:
            continue
        message = _retry_problem(entry)
        if message:
            yield Problem("retryable-mismatch", entry.key_path("retryable"), message)


def _retry_problem(entry: ErrorEntry) -> str | None:
    category = entry.category
    if entry.retryable and category in NEVER_RETRY:
        return f"`{category}` errors must not be retried (AIP-194); set `retryable = false`"
    if entry.retry_note is not None:
        return None  # a documented exception to the category's default
    if entry.retryable and category in RARELY_RETRY:
        return (
            f"`{category}` errors are generally not retried (AIP-194); "
            "set `retryable = false` or explain why in `retry_note`"
        )
    if entry.retryable is False and category in ALWAYS_RETRY:
        return (
            f"`{category}` errors are the ones to retry (AIP-194); "
            "set `retryable = true` or explain why not in `retry_note`"
        )
    return None


# -- messages ------------------------------------------------------------------
def undeclared_placeholders(registry: Registry) -> Iterable[Problem]:
    """In the message, the hints and the user message: each text is filled from `metadata`."""
    for entry, envelope in envelopes(registry):
        texts: list[tuple[str, str, TomlPath]] = []
        if entry.message is not None:
            texts.append(("the message", entry.message, entry.key_path("message")))
        for position, hint in enumerate(envelope.hints):
            assert envelope.hints_path is not None
            texts.append(("a hint", hint, (*envelope.hints_path, position)))
        if envelope.user_message is not None and envelope.user_message_path is not None:
            texts.append(("the user message", envelope.user_message, envelope.user_message_path))
        for what, text, path in texts:
            message = _placeholder_problem(entry, what, text)
            if message:
                yield Problem("undeclared-placeholder", path, message, part="value")


def _placeholder_problem(entry: ErrorEntry, what: str, text: str) -> str | None:
    try:
        names = _placeholders(text)
    except ValueError:
        return f"{what} has an unbalanced `{{` or `}}`; write `{{{{` or `}}}}` for a literal brace"
    missing = [name for name in names if name not in entry.metadata]
    if not missing:
        return None
    listed = ", ".join(f"`{{{name}}}`" for name in missing)
    verb = "is" if len(missing) == 1 else "are"
    return f"{listed} in {what} of `{entry.symbol}` {verb} not listed in `metadata`"


def _placeholders(message: str) -> list[str]:
    names: list[str] = []
    for _, field, _, _ in string.Formatter().parse(message):
        if field is None:
            continue
        # `{user.name}` and `{items[0]}` read the `user` and `items` keys.
        name = re.split(r"[.\[]", field, maxsplit=1)[0]
        if name not in names:
            names.append(name)
    return names


# -- lifecycle -------------------------------------------------------------------
def lifecycle(registry: Registry) -> Iterable[Problem]:
    by_symbol = {entry.symbol: entry for entry in registry.errors}
    for entry in registry.errors:
        for path_key, message in _lifecycle_problems(entry, by_symbol):
            path = entry.key_path(path_key) if path_key else entry.path
            yield Problem("inconsistent-lifecycle", path, message, part="entry" if path_key else "key")


def _lifecycle_problems(entry: ErrorEntry, by_symbol: dict[str, ErrorEntry]) -> Iterable[tuple[str | None, str]]:
    status = entry.status
    if status is None:
        return  # an invalid status is REG003 already
    if status == "retired" and entry.code is None:
        yield None, f"retired `{entry.symbol}` has no `code`: a retired entry keeps its number so it is never reused"
    if status == "deprecated" and entry.deprecated_since is None:
        yield "status", "a deprecated entry needs `deprecated_since`"
    if status == "retired" and entry.retired_since is None:
        yield "status", "a retired entry needs `retired_since`"
    if status == "active" and entry.deprecated_since is not None:
        yield "deprecated_since", '`deprecated_since` on an active entry; set `status = "deprecated"` or remove it'
    if status != "retired" and entry.retired_since is not None:
        yield "retired_since", f'`retired_since` on a {status} entry; set `status = "retired"` or remove it'
    if entry.replaced_by is not None:
        yield from _replacement_problems(entry, by_symbol)


def _replacement_problems(entry: ErrorEntry, by_symbol: dict[str, ErrorEntry]) -> Iterable[tuple[str, str]]:
    target = by_symbol.get(entry.replaced_by or "")
    if entry.status == "active":
        yield "replaced_by", '`replaced_by` on an active entry; set `status = "deprecated"` or remove it'
    if entry.replaced_by == entry.symbol:
        yield "replaced_by", f"`{entry.symbol}` cannot replace itself"
    elif target is None:
        close = difflib.get_close_matches(entry.replaced_by or "", list(by_symbol), n=1)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        yield "replaced_by", f"`replaced_by` names `{entry.replaced_by}`, which is not in the registry{hint}"
    elif target.status in ("deprecated", "retired"):
        message = f"`replaced_by` names `{target.symbol}`, which is {target.status} itself; name an active error"
        yield "replaced_by", message


# The generated helper's own keywords: a metadata key of one of these names cannot be passed.
HELPER_KEYWORDS = ("details", "hint", "retry_after_ms")


def helper_keyword_metadata(registry: Registry) -> Iterable[Problem]:
    for entry in registry.errors:
        for position, key in enumerate(entry.metadata):
            if key in HELPER_KEYWORDS:
                message = (
                    f"metadata key `{key}` of `{entry.symbol}` is a keyword of the generated helper "
                    f"({', '.join(HELPER_KEYWORDS)}): `{key}=` would not reach the message; rename it"
                )
                yield Problem("invalid-value", (*entry.key_path("metadata"), position), message, part="value")


# -- the envelope ----------------------------------------------------------------
def retry_delays_without_retry(registry: Registry) -> Iterable[Problem]:
    for entry in registry.errors:
        if entry.retry_after_ms is not None and entry.retryable is False and entry.status != "retired":
            message = (
                f"`retry-after-ms` on `{entry.symbol}`, which is not retryable: "
                "nobody waits to retry it; remove it or set `retryable = true`"
            )
            yield Problem("retry-after-not-retryable", entry.key_path("retry-after-ms"), message, part="value")


def retry_later_without_retry(registry: Registry) -> Iterable[Problem]:
    for entry, envelope in envelopes(registry):
        if envelope.recovery != "retry-later" or entry.retryable is not False or entry.status == "retired":
            continue
        assert envelope.recovery_path is not None  # the derived recovery of a non-retryable error is never this
        inherited = "" if envelope.recovery_path == entry.key_path("recovery") else " (the domain's default)"
        message = (
            f'`recovery = "retry-later"`{inherited} on `{entry.symbol}`, which is not retryable: '
            "the model would repeat a call that fails the same way; choose another recovery or set `retryable = true`"
        )
        yield Problem("retry-later-not-retryable", envelope.recovery_path, message, part="value")


# A hint that quotes a value (`"draft"`, 'x', `x`, “x”) or assigns one (`limit=10`)
# prescribes a replacement argument instead of giving general guidance.
_QUOTED_VALUE = re.compile(
    "|".join((r'"[^"]+"', r"(?<!\w)'[^']+'(?!\w)", r"`[^`]+`", "\u201c[^\u201d]+\u201d", "\u2018[^\u2019]+\u2019"))
)
_ASSIGNED_VALUE = re.compile(r"\b[A-Za-z_]\w*\s*=\s*[^\s=]")


def quoted_value(hint: str) -> str | None:
    """The value a hint quotes or assigns (`"draft"`, `limit=10`), if any: then it prescribes."""
    quoted = _QUOTED_VALUE.search(hint) or _ASSIGNED_VALUE.search(hint)
    return quoted.group(0) if quoted else None


def prescriptive_hints(registry: Registry) -> Iterable[Problem]:
    owners: list[Domain | ErrorEntry] = [*registry.domains, *registry.errors]
    for owner in owners:
        for position, hint in enumerate(owner.hints or ()):
            quoted = quoted_value(hint)
            if quoted:
                message = (
                    f"the hint quotes the value {quoted!r}: hints give general guidance "
                    "(what to check, what to try), never the argument to send"
                )
                yield Problem("prescriptive-hint", (*owner.path, "hints", position), message, part="value")


SEMANTIC_CHECKS: tuple[Check, ...] = (
    invalid_symbols,
    duplicate_codes,
    duplicate_symbols,
    reversed_ranges,
    overlapping_ranges,
    codes_outside_ranges,
    reserved_in_use,
    protocol_codes,
    unknown_categories,
    retryable_mismatches,
    undeclared_placeholders,
    lifecycle,
    helper_keyword_metadata,
    retry_delays_without_retry,
    retry_later_without_retry,
    prescriptive_hints,
)
