"""The error envelope in the registry: `recovery`, `hints`, `retry-after-ms`, `user-message`,
their domain defaults, the derived recovery and the schema checks of their values."""

from __future__ import annotations

import pytest

from mcplint.registry import parse_registry, registry_findings
from mcplint.registry.envelope import default_recovery, envelopes
from mcplint.registry.model import RECOVERIES
from mcplint.registry.validate import CATEGORIES

PREAMBLE = 'schema_version = 1\nnamespace = "demo"\n[domains.d]\nrange = [1, 99]\n'


def _entry(lines: str, retryable: str = "false") -> str:
    return PREAMBLE + f'[domains.d.errors.E]\ncode = 1\nmessage = "m"\nretryable = {retryable}\n' + lines


def _findings(text: str) -> list[tuple[str, int, str]]:
    return [(f.code, f.line, f.message) for f in registry_findings(parse_registry(text, "r.toml"))]


@pytest.mark.parametrize(
    ("category", "retryable", "recovery"),
    [
        ("UNAVAILABLE", True, "retry-later"),
        (None, True, "retry-later"),
        ("INVALID_ARGUMENT", False, "check-input"),
        ("NOT_FOUND", False, "check-input"),
        ("FAILED_PRECONDITION", False, "try-alternative"),
        ("UNIMPLEMENTED", False, "try-alternative"),
        ("PERMISSION_DENIED", False, "report-to-user"),
        ("INTERNAL", False, "report-to-user"),
        (None, False, "report-to-user"),
        (None, None, "report-to-user"),  # no decision: not retried, so not retry-later
    ],
)
def test_the_default_recovery_follows_category_and_retryable(category, retryable, recovery):
    assert default_recovery(category, retryable) == recovery


def test_every_category_has_a_default_recovery_and_never_retry_later_when_not_retryable():
    assert {default_recovery(category, False) for category in CATEGORIES} <= set(RECOVERIES) - {"retry-later"}


def test_an_entry_overrides_its_domain_and_the_domain_overrides_the_derived_default():
    text = (
        'schema_version = 1\nnamespace = "demo"\n[domains.d]\nrange = [1, 99]\n'
        'recovery = "try-alternative"\nhints = ["Domain hint."]\nuser-message = "Domain says."\n'
        "retry-after-ms = 100\n"
        '[domains.d.errors.OWN]\ncode = 1\nmessage = "m"\nretryable = true\nrecovery = "retry-later"\n'
        'hints = []\nretry-after-ms = 900\nuser-message = "Own says."\n'
        '[domains.d.errors.INHERITS]\ncode = 2\nmessage = "m"\nretryable = false\n'
    )
    registry = parse_registry(text, "r.toml")
    (own_entry, own), (inherits_entry, inherited) = envelopes(registry)
    assert (own.recovery, own.hints, own.retry_after_ms, own.user_message) == ("retry-later", (), 900, "Own says.")
    assert (inherited.recovery, inherited.hints, inherited.user_message) == (
        "try-alternative",
        ("Domain hint.",),
        "Domain says.",
    )
    assert inherited.retry_after_ms is None  # not retryable: the domain's delay does not apply
    assert inherited.recovery_path == ("domains", "d", "recovery")
    assert registry_findings(registry) == []


def test_a_registry_without_envelope_keys_loads_as_before():
    registry = parse_registry(_entry(""), "r.toml")
    [(entry, envelope)] = envelopes(registry)
    assert (entry.recovery, entry.hints, entry.retry_after_ms, entry.user_message) == (None, None, None, None)
    assert (envelope.recovery, envelope.recovery_path, envelope.hints) == ("report-to-user", None, ())


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ('recovery = "retry_later"\n', "`recovery` 'retry_later' is not valid (did you mean 'retry-later'?)"),
        ('hints = "Check the id."\n', "`hints` must be a list of strings"),
        ('hints = ["Check the id.", 3]\n', "`hints` must be a list of strings, not 3"),
        ('hints = ["  "]\n', "a hint must not be empty"),
        ("retry-after-ms = 0\n", "`retry-after-ms` must be a positive number of milliseconds, not 0"),
        ('retry-after-ms = "1s"\n', "`retry-after-ms` must be an integer"),
        ('user-message = ""\n', "`user-message` must not be empty"),
    ],
)
def test_invalid_envelope_values_are_reg003(lines, message):
    assert _findings(_entry(lines, retryable="true")) == [("REG003", 9, message)]


def test_misspelt_envelope_keys_are_reg001_with_a_suggestion():
    [(code, _, message)] = _findings(_entry("retry_after_ms = 10\n", retryable="true"))
    assert (code, message) == ("REG001", "unknown key `retry_after_ms` in error `E` (did you mean `retry-after-ms`?)")


def test_reg019_names_an_inherited_recovery():
    text = PREAMBLE.replace("range = [1, 99]\n", 'range = [1, 99]\nrecovery = "retry-later"\n') + (
        '[domains.d.errors.E]\ncode = 1\nmessage = "m"\nretryable = false\n'
    )
    [(code, line, message)] = _findings(text)
    assert (code, line) == ("REG019", 5)
    assert message.startswith('`recovery = "retry-later"` (the domain\'s default) on `E`, which is not retryable')


def test_reg020_quotes_the_value_it_found():
    [(code, _, message)] = _findings(_entry("hints = [\"Send 'draft' instead.\"]\n"))
    assert code == "REG020"
    assert message.startswith("the hint quotes the value \"'draft'\"")
