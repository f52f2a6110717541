"""What an error tells the model to do next: its recovery, hints, retry delay and user message.

An entry's own value wins over its domain's default; ``recovery`` falls back
to ``default_recovery(category, retryable)``. The generated helpers, export,
diff and the checks all read the envelope through ``envelope_of`` so they
agree on what an entry means.

The default recovery (documented in the README's registry section):

- ``retryable = true``: ``retry-later`` (the same call, after a wait);
- a category whose fix is in the arguments (INVALID_ARGUMENT, OUT_OF_RANGE,
  NOT_FOUND, ALREADY_EXISTS): ``check-input``;
- a category that another tool or approach can get around (FAILED_PRECONDITION,
  UNIMPLEMENTED, UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, CANCELLED):
  ``try-alternative``;
- everything else, an uncategorised error included (PERMISSION_DENIED,
  UNAUTHENTICATED, RESOURCE_EXHAUSTED, DATA_LOSS, INTERNAL, UNKNOWN):
  ``report-to-user``: the model cannot fix it, a human must know.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcplint.registry.model import Domain, ErrorEntry, Registry
from mcplint.registry.positions import TomlPath

CHECK_INPUT_CATEGORIES = frozenset({"INVALID_ARGUMENT", "OUT_OF_RANGE", "NOT_FOUND", "ALREADY_EXISTS"})
TRY_ALTERNATIVE_CATEGORIES = frozenset(
    {"FAILED_PRECONDITION", "UNIMPLEMENTED", "UNAVAILABLE", "DEADLINE_EXCEEDED", "ABORTED", "CANCELLED"}
)


def default_recovery(category: str | None, retryable: bool | None) -> str:
    if retryable:
        return "retry-later"
    if category in CHECK_INPUT_CATEGORIES:
        return "check-input"
    if category in TRY_ALTERNATIVE_CATEGORIES:
        return "try-alternative"
    return "report-to-user"


@dataclass(frozen=True)
class Envelope:
    recovery: str
    # Where `recovery` came from: the entry's key path, the domain's, or None when derived.
    recovery_path: TomlPath | None
    hints: tuple[str, ...]
    hints_path: TomlPath | None
    retry_after_ms: int | None
    user_message: str | None
    user_message_path: TomlPath | None


def envelope_of(entry: ErrorEntry, domain: Domain | None) -> Envelope:
    recovery, recovery_path = _own_or_default(entry, domain, "recovery", "recovery")
    hints, hints_path = _own_or_default(entry, domain, "hints", "hints")
    user_message, user_message_path = _own_or_default(entry, domain, "user_message", "user-message")
    retry_after_ms = entry.retry_after_ms
    # A domain's delay is a default for its retryable errors only: the others are not retried.
    if retry_after_ms is None and domain is not None and entry.retryable:
        retry_after_ms = domain.retry_after_ms
    return Envelope(
        recovery=recovery or default_recovery(entry.category, entry.retryable),
        recovery_path=recovery_path,
        hints=hints or (),
        hints_path=hints_path,
        retry_after_ms=retry_after_ms,
        user_message=user_message,
        user_message_path=user_message_path,
    )


def _own_or_default(entry: ErrorEntry, domain: Domain | None, field: str, key: str) -> tuple[Any, TomlPath | None]:
    own = getattr(entry, field)
    if own is not None:
        return own, entry.key_path(key)
    inherited = getattr(domain, field) if domain is not None else None
    if inherited is not None and domain is not None:
        return inherited, domain.key_path(key)
    return None, None


def domain_of(registry: Registry, entry: ErrorEntry) -> Domain | None:
    # Loaded entries keep their domain's path as a prefix: the domain table itself.
    return next((domain for domain in registry.domains if entry.path[: len(domain.path)] == domain.path), None)


def envelopes(registry: Registry) -> list[tuple[ErrorEntry, Envelope]]:
    return [(entry, envelope_of(entry, domain)) for domain in registry.domains for entry in domain.errors]
