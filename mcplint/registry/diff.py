"""`mcplint registry diff OLD NEW`: breaking changes between two versions of the registry.

Like ``buf breaking``: old and new entries are matched by symbol and by code,
and each change a client can notice is a finding (BRK001-BRK007). A changed
message is reported as BRK100, informational: the symbol is the contract, the
text is not (AIP-193), so it does not fail the run.

Findings sit in the NEW file where the thing still exists there; what is gone
is reported on line 1, with its old place in the message. OLD and NEW are
files or ``git:REF`` / ``git:REF:PATH`` (the committed version, read with
``git show``).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from mcplint.finding import Finding
from mcplint.fingerprint import snippet_digest
from mcplint.registry.docs import check_doc
from mcplint.registry.envelope import domain_of, envelope_of
from mcplint.registry.load import load_registry, parse_registry
from mcplint.registry.model import ErrorEntry, Registry, RegistryError, Reserved
from mcplint.registry.positions import Span, TomlPath

CONTEXT = "<registry>"
GIT_PREFIX = "git:"
_Key = TypeVar("_Key")


@dataclass(frozen=True)
class BreakingCheck:
    code: str
    name: str
    summary: str
    breaking: bool = True  # False: informational, never fails the run

    @property
    def doc(self) -> str:
        return check_doc(self.code)


# Each doc (docs/<CODE>.md) has an Example and a Use instead of two TOML fragments, "Before:" (OLD)
# and "After:" (NEW), without `schema_version` and `namespace`.
BREAKING_CHECKS: tuple[BreakingCheck, ...] = (
    BreakingCheck("BRK001", "symbol-removed", "an error was deleted without being retired or reserved"),
    BreakingCheck("BRK002", "code-renumbered", "an error's code changed"),
    BreakingCheck("BRK003", "code-reassigned", "a code now identifies a different symbol"),
    BreakingCheck("BRK004", "reserved-removed", "a reserved range or symbol was removed or narrowed"),
    BreakingCheck("BRK005", "reserved-reused", "an error uses a number or symbol the old registry reserved"),
    BreakingCheck("BRK006", "behavior-changed", "an error's `retryable`, `category`, `recovery` or metadata keys changed"),
    BreakingCheck("BRK007", "domain-removed", "a domain was deleted, or its range no longer holds the codes it issued"),
    BreakingCheck("BRK100", "message-changed", "an error's message changed (informational, not breaking)", breaking=False),
)
BREAKING_CHECKS_BY_CODE: dict[str, BreakingCheck] = {check.code: check for check in BREAKING_CHECKS}
_BY_NAME: dict[str, BreakingCheck] = {check.name: check for check in BREAKING_CHECKS}


def is_breaking(finding: Finding) -> bool:
    check = BREAKING_CHECKS_BY_CODE.get(finding.code)
    return check is None or check.breaking


# -- the comparison -----------------------------------------------------------------
def diff_registries(old: Registry, new: Registry) -> list[Finding]:
    """Every change from ``old`` to ``new`` that a client can notice, sorted."""
    return sorted(_Differ(old, new).run())


class _Differ:
    def __init__(self, old: Registry, new: Registry) -> None:
        self.old = old
        self.new = new
        self.findings: list[Finding] = []

    def run(self) -> list[Finding]:
        current = _first_by(self.new.errors, lambda entry: entry.symbol)
        for entry in self.old.errors:
            if entry.symbol in current:
                self._changed(entry, current[entry.symbol])
            else:
                self._removed(entry)
        self._reassigned_codes()
        self._reservations()
        self._reused()
        self._domains()
        return self.findings

    # -- errors ----------------------------------------------------------------------
    def _removed(self, entry: ErrorEntry) -> None:
        missing = []
        if entry.code is not None and not _reserves_code(self.new.reserved, entry.code):
            missing.append("code")
        if not any(entry.symbol in reserved.symbols for reserved in self.new.reserved):
            missing.append("symbol")
        if missing:
            message = (
                f"`{entry.symbol}`{_code_text(entry)} was removed without being retired or reserved: "
                f'keep it with `status = "retired"`, or list its {" and ".join(missing)} in [[reserved]]'
            )
            self._gone("symbol-removed", entry.path, message)

    def _changed(self, old: ErrorEntry, new: ErrorEntry) -> None:
        symbol = f"`{new.symbol}`"
        if old.code is not None and new.code != old.code:
            if new.code is None:
                message = f"{symbol} lost its code {old.code}; even a retired entry keeps its number"
                self._here("code-renumbered", new.path, message)
            else:
                message = (
                    f"{symbol} changed its code from {old.code} to {new.code}; "
                    f"keep {old.code}, or deprecate {symbol} and add a new symbol"
                )
                self._here("code-renumbered", new.key_path("code"), message, "value")
        if new.status != "retired":
            self._behavior(old, new)
        if old.message is not None and new.message is not None and old.message != new.message:
            message = (
                f"{symbol} changed its message from {_quote(old.message)} to {_quote(new.message)} "
                "(informational: check that the meaning is the same)"
            )
            self._here("message-changed", new.key_path("message"), message, "value")

    def _behavior(self, old: ErrorEntry, new: ErrorEntry) -> None:
        symbol = f"`{new.symbol}`"
        if old.retryable is not None and new.retryable is not None and old.retryable != new.retryable:
            message = f"{symbol} changed `retryable` from {_bool(old.retryable)} to {_bool(new.retryable)}"
            self._here("behavior-changed", new.key_path("retryable"), message, "value")
        if old.category is not None and new.category != old.category:
            if new.category is None:
                self._here("behavior-changed", new.path, f"{symbol} dropped its category {old.category}")
            else:
                message = f"{symbol} changed its category from {old.category} to {new.category}"
                self._here("behavior-changed", new.key_path("category"), message, "value")
        self._recovery(old, new)
        dropped = [key for key in old.metadata if key not in new.metadata]
        if dropped:
            keys = ", ".join(f"`{key}`" for key in dropped)
            noun = "key" if len(dropped) == 1 else "keys"
            path = new.key_path("metadata") if new.metadata else new.path
            self._here("behavior-changed", path, f"{symbol} dropped the metadata {noun} {keys}", "value")

    def _recovery(self, old: ErrorEntry, new: ErrorEntry) -> None:
        before = envelope_of(old, domain_of(self.old, old))
        after = envelope_of(new, domain_of(self.new, new))
        if before.recovery == after.recovery:
            return
        derived = before.recovery_path is None and after.recovery_path is None
        if derived and (old.retryable != new.retryable or old.category != new.category):
            return  # the derived recovery follows the `retryable` or `category` change reported above
        message = f"`{new.symbol}` changed `recovery` from {before.recovery} to {after.recovery}"
        if after.recovery_path is None:
            self._here("behavior-changed", new.path, message + " (derived from its category and retryable)")
        else:
            self._here("behavior-changed", after.recovery_path, message, "value")

    def _reassigned_codes(self) -> None:
        owners = _first_by((entry for entry in self.old.errors if entry.code is not None), lambda entry: entry.code)
        for entry in self.new.errors:
            owner = owners.get(entry.code)
            if owner is not None and owner.symbol != entry.symbol:
                message = (
                    f"code {entry.code} belonged to `{owner.symbol}` and now identifies `{entry.symbol}`; "
                    f"give `{entry.symbol}` a new code"
                )
                self._here("code-reassigned", entry.key_path("code"), message, "value")

    # -- reservations ----------------------------------------------------------------
    def _reservations(self) -> None:
        new_ranges = [reserved.range for reserved in self.new.reserved if reserved.range is not None]
        new_symbols = {symbol for reserved in self.new.reserved for symbol in reserved.symbols}
        for reserved in self.old.reserved:
            problems = []  # (message, the key of the new reservation it concerns)
            if reserved.range is not None:
                gaps = _uncovered(reserved.range, new_ranges)
                label = f"reserved range [{reserved.range[0]}, {reserved.range[1]}]{_reason(reserved)}"
                if gaps == [reserved.range]:
                    problems.append((f"{label} was removed", "range"))
                elif gaps:
                    numbers = ", ".join(_span_text(gap) for gap in gaps)
                    problems.append((f"{label} was narrowed: {numbers} no longer reserved", "range"))
            problems += [
                (f"reserved symbol `{symbol}`{_reason(reserved)} is no longer reserved", "symbols")
                for symbol in reserved.symbols
                if symbol not in new_symbols
            ]
            successor = self._successor(reserved)
            for message, key in problems:
                if successor is None:
                    self._gone("reserved-removed", reserved.path, message)
                else:
                    self._here("reserved-removed", (*successor.path, key), message, "value")

    def _successor(self, old: Reserved) -> Reserved | None:
        """The new reservation that carries on ``old``: one sharing numbers or symbols with it."""
        for reserved in self.new.reserved:
            if _overlaps(old.range, reserved.range) or set(old.symbols) & set(reserved.symbols):
                return reserved
        return None

    def _reused(self) -> None:
        for entry in self.new.errors:
            if entry.status == "retired":
                continue
            for reserved in self.old.reserved:
                if entry.code is not None and _reserves_code((reserved,), entry.code):
                    message = (
                        f"`{entry.symbol}` uses code {entry.code}, which the old registry reserved{_reason(reserved)}"
                    )
                    self._here("reserved-reused", entry.key_path("code"), message, "value")
                if entry.symbol in reserved.symbols:
                    message = f"`{entry.symbol}` is a symbol the old registry reserved{_reason(reserved)}"
                    self._here("reserved-reused", entry.path, message, "key")

    # -- domains ---------------------------------------------------------------------
    def _domains(self) -> None:
        current = {domain.name: domain for domain in self.new.domains}
        for domain in self.old.domains:
            new = current.get(domain.name)
            if new is None:
                self._gone("domain-removed", domain.path, f"domain `{domain.name}` was removed")
                continue
            if new.range is None:
                continue
            low, high = new.range
            outside = sorted({e.code for e in domain.errors if e.code is not None and not low <= e.code <= high})
            if outside:
                codes = ", ".join(map(str, outside))
                message = f"domain `{domain.name}` now spans [{low}, {high}], leaving out codes it issued: {codes}"
                self._here("domain-removed", (*new.path, "range"), message, "value")

    # -- findings --------------------------------------------------------------------
    def _here(self, check: str, path: TomlPath, message: str, part: str = "entry") -> None:
        """A finding on what still exists in the new registry."""
        span = self.new.positions.span(path, part)
        self._add(check, span, message, span.text)

    def _gone(self, check: str, old_path: TomlPath, message: str) -> None:
        """A finding on what the new registry no longer has: line 1, with the old place."""
        old_span = self.old.positions.span(old_path)
        where = f" (was at {self.old.path}:{old_span.line})"
        self._add(check, Span(1, 1, 1, 1, ""), message + where, old_span.text)

    def _add(self, check_name: str, span: Span, message: str, snippet: str) -> None:
        check = _BY_NAME[check_name]
        self.findings.append(
            Finding(
                path=self.new.path,
                line=span.line,
                column=span.column,
                code=check.code,
                end_line=span.end_line,
                end_column=span.end_column,
                name=check.name,
                message=message,
                handler=None,
                context=CONTEXT,
                snippet_digest=snippet_digest(snippet),
            )
        )


def _first_by(entries: Iterable[ErrorEntry], key: Callable[[ErrorEntry], _Key]) -> dict[_Key, ErrorEntry]:
    """Entries by ``key``; with duplicates (an invalid registry) the first one wins."""
    result: dict[_Key, ErrorEntry] = {}
    for entry in entries:
        result.setdefault(key(entry), entry)
    return result


def _reserves_code(reserved: Sequence[Reserved], code: int) -> bool:
    return any(entry.range is not None and entry.range[0] <= code <= entry.range[1] for entry in reserved)


def _overlaps(first: tuple[int, int] | None, second: tuple[int, int] | None) -> bool:
    return first is not None and second is not None and first[0] <= second[1] and second[0] <= first[1]


def _uncovered(bounds: tuple[int, int], ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of ``bounds`` that no range of ``ranges`` covers."""
    gaps = []
    low, high = bounds
    for start, end in sorted(ranges):
        if end < low or start > high:
            continue
        if start > low:
            gaps.append((low, start - 1))
        low = max(low, end + 1)
        if low > high:
            return gaps
    return [*gaps, (low, high)]


def _span_text(bounds: tuple[int, int]) -> str:
    return str(bounds[0]) if bounds[0] == bounds[1] else f"{bounds[0]}..{bounds[1]}"


def _code_text(entry: ErrorEntry) -> str:
    return f" (code {entry.code})" if entry.code is not None else ""


def _reason(reserved: Reserved) -> str:
    return f" ({reserved.reason})" if reserved.reason else ""


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _bool(value: bool) -> str:
    return "true" if value else "false"


# -- revisions and the command ---------------------------------------------------------
def load_revision(spec: str, default_path: str) -> Registry:
    """A registry from a file, or from git: ``git:REF`` (``default_path`` at REF) or ``git:REF:PATH``.

    PATH (like ``default_path``) is relative to the working directory, as file
    arguments are. Raises ``RegistryError`` when it cannot be read.
    """
    if not spec.startswith(GIT_PREFIX):
        return load_registry(spec)
    ref, _, path = spec[len(GIT_PREFIX) :].partition(":")
    path = path or default_path
    label = f"{GIT_PREFIX}{ref}:{path}"
    if not ref or ref.startswith("-"):
        raise RegistryError(label, 1, "expected git:REF or git:REF:PATH with a revision such as HEAD or main")
    return parse_registry(_git_show(ref, path, label), label)


def _git_show(ref: str, path: str, label: str) -> str:
    relative = Path(os.path.relpath(path)).as_posix()
    try:
        result = subprocess.run(["git", "show", f"{ref}:./{relative}"], capture_output=True, check=False)
    except OSError as error:
        raise RegistryError(label, 1, f"cannot run git: {error.strerror or error}") from None
    if result.returncode != 0:
        lines = result.stderr.decode("utf-8", "replace").strip().splitlines() or ["git show failed"]
        detail = lines[-1].removeprefix("fatal: ")
        raise RegistryError(label, 1, f"cannot read the registry from git: {detail}")
    try:
        return result.stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        line = result.stdout[: error.start].count(b"\n") + 1
        raise RegistryError(label, line, "registry is not valid UTF-8") from None
