"""The error registry as data: what ``mcp-errors.toml`` declares (README, "The error registry").

Loading is tolerant: a value of the wrong type becomes ``None`` (or is left
out) and the loader records a problem for it, so one typo does not hide every
other finding. Each object keeps the TOML path it came from, for positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mcplint.registry.positions import PositionIndex, TomlPath

SCHEMA_VERSION = 1
STATUSES = ("active", "deprecated", "retired")
# What the model that receives an error should do next (the TypeScript seed
# taxonomy's recovery hints); `recovery.py` derives the default.
RECOVERIES = ("retry-later", "check-input", "try-alternative", "report-to-user")


class RegistryError(Exception):
    """The registry cannot be checked at all (unreadable, not TOML, unknown schema); exit code 2."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Problem:
    """A schema problem found while loading; ``check`` is a check name from ``checks.CHECKS``."""

    check: str
    path: TomlPath
    message: str
    part: str = "entry"  # which span of the path: "entry", "key" or "value"


@dataclass(frozen=True)
class Reserved:
    path: TomlPath
    range: tuple[int, int] | None
    symbols: tuple[str, ...]
    reason: str | None


@dataclass(frozen=True)
class ErrorEntry:
    path: TomlPath
    symbol: str
    domain: str
    code: int | None
    message: str | None
    retryable: bool | None
    category: str | None = None
    metadata: tuple[str, ...] = ()
    status: str | None = "active"  # None: the file's status is not a valid one
    deprecated_since: str | None = None
    replaced_by: str | None = None
    retired_since: str | None = None
    # Why this entry's `retryable` departs from its category's AIP-194 default.
    retry_note: str | None = None
    # The envelope for the model (issue 15). None: not set here, the domain's
    # default (or, for `recovery`, the derived one) applies.
    recovery: str | None = None
    hints: tuple[str, ...] | None = None
    retry_after_ms: int | None = None
    user_message: str | None = None

    def key_path(self, key: str) -> TomlPath:
        return (*self.path, key)


@dataclass(frozen=True)
class Domain:
    path: TomlPath
    name: str
    range: tuple[int, int] | None
    helper: str | None = None
    title: str | None = None
    errors: tuple[ErrorEntry, ...] = ()
    # Defaults for the domain's errors: an entry's own value wins.
    recovery: str | None = None
    hints: tuple[str, ...] | None = None
    retry_after_ms: int | None = None
    user_message: str | None = None

    def key_path(self, key: str) -> TomlPath:
        return (*self.path, key)


@dataclass(frozen=True)
class Registry:
    path: str  # the file, as given
    schema_version: int | None
    namespace: str | None
    helpers_module: str | None
    reserved: tuple[Reserved, ...]
    domains: tuple[Domain, ...]
    positions: PositionIndex = field(repr=False, compare=False)
    problems: tuple[Problem, ...] = ()

    @property
    def errors(self) -> tuple[ErrorEntry, ...]:
        return tuple(entry for domain in self.domains for entry in domain.errors)
