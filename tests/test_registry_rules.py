"""MCP003 and MCP004: the rules that read the error registry, and how they get it.

The fixture files themselves run in test_fixtures.py (with their directory's
mcp-errors.toml); here: case counts, behaviour without a registry, the text
pre-screen that spares the parse, and the registry's way from the config.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from fixture_expectations import FIXTURES, expected_findings, fixture_files, silent_cases
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import run_cli

from mcplint.config import CliOverrides, ConfigResolver, FileSettings
from mcplint.engine import lint
from mcplint.engine.lint import lint_text
from mcplint.rules import RULES_BY_CODE
from mcplint.rules.base import configured_registry
from mcplint.rules.mcp003_error_code_collision import INT_CONSTANT, _code_constant, _says_code, _text_says_codes

MINIMUM_CASES = 15
REGISTRY_RULES = ("MCP003", "MCP004")
REGISTRY = FIXTURES / "MCP004" / "mcp-errors.toml"


def _findings(source: str, registry: Path | str | None = REGISTRY, codes=REGISTRY_RULES):
    settings = FileSettings(codes=frozenset(codes), registry=str(registry) if registry else None)
    return lint_text(textwrap.dedent(source), "example.py", settings).findings


def _messages(source: str, registry: Path | str | None = REGISTRY) -> list[str]:
    return [finding.message for finding in _findings(source, registry)]


@pytest.mark.parametrize("code", REGISTRY_RULES)
def test_rule_fixtures_cover_enough_cases(code):
    texts = [path.read_text(encoding="utf-8") for path in fixture_files(code)]
    invalid = sum(len({c for c in expected_findings(text) if c[1] == code}) for text in texts)
    valid = sum(len({c for c in silent_cases(text) if c[1] == code}) for text in texts)
    assert invalid >= MINIMUM_CASES, f"{code}: only {invalid} invalid cases"
    assert valid >= MINIMUM_CASES, f"{code}: only {valid} valid cases"


# -- without a registry ----------------------------------------------------------------
@pytest.mark.parametrize("path", fixture_files("MCP004"), ids=lambda p: p.name)
def test_mcp004_is_silent_without_a_registry(path):
    assert _findings(path.read_text(encoding="utf-8"), registry=None) == []


def test_mcp003_without_a_registry_keeps_what_needs_none():
    path = FIXTURES / "MCP003" / "sent_codes.py"
    text = path.read_text(encoding="utf-8")
    with_registry = {(f.line, f.message) for f in _findings(text)}
    without = {(f.line, f.message) for f in _findings(text, registry=None)}
    assert without < with_registry
    assert all("registry" in message for _, message in with_registry - without)
    assert not any("registry" in message for _, message in without)
    assert _findings((FIXTURES / "MCP003" / "registry_contradictions.py").read_text(), registry=None) == []


def test_an_unreadable_registry_counts_as_none(tmp_path):
    broken = tmp_path / "mcp-errors.toml"
    broken.write_text("schema_version = [\n")
    source = """\
        from acme_weather.errors import auth_error
        CRASH_CODE = 0
        raise auth_error("AUTH_NOPE")
    """
    assert [f.code for f in _findings(source, registry=broken)] == ["MCP003"]
    assert _findings(source, registry=tmp_path / "missing.toml")[0].code == "MCP003"


# -- messages --------------------------------------------------------------------------
def test_mcp004_says_what_is_wrong_and_suggests():
    messages = _messages(
        """\
        from acme_weather.errors import auth_error, provider_error
        auth_error("AUTH_TOKEN_EXPIRD")
        auth_error("UPSTREAM_UNAVAILABLE")
        provider_error("UPSTREAM_BAD_PAYLOAD")
        auth_error("AUTH_SESSION_LOCKED")
        payload = {"error_code": "UPSTREM_RATE_LIMITED"}
        """
    )
    assert messages == [
        "`AUTH_TOKEN_EXPIRD` is not in the registry's `auth` domain (did you mean `AUTH_TOKEN_EXPIRED`?)",
        (
            "`UPSTREAM_UNAVAILABLE` belongs to the registry's `upstream` domain; "
            "call `provider_error(...)`, not `auth_error`"
        ),
        "`UPSTREAM_BAD_PAYLOAD` is retired in the registry (since 2.0); it must not be sent again",
        "`AUTH_SESSION_LOCKED` is reserved in the registry (removed in 2.0); it must not be used again",
        (
            "error payload names `UPSTREM_RATE_LIMITED`, which is not in the registry "
            "(did you mean `UPSTREAM_RATE_LIMITED`?)"
        ),
    ]


def test_mcp003_names_the_first_of_a_duplicate_and_the_registry_code():
    messages = _messages(
        """\
        from enum import IntEnum

        class ErrorCode(IntEnum):
            NOTE_NOT_FOUND = 1004
            CONTACT_NOT_FOUND = 1004
            AUTH_TOKEN_INVALID = 1010
        """
    )
    assert messages == [
        (
            "`CONTACT_NOT_FOUND` repeats code 1004 of `NOTE_NOT_FOUND` in enum `ErrorCode`, which the enum "
            "makes an alias of it; give it its own code, or write `CONTACT_NOT_FOUND = NOTE_NOT_FOUND`"
        ),
        "`AUTH_TOKEN_INVALID = 1010` contradicts the registry, which gives `AUTH_TOKEN_INVALID` code 1001",
    ]


def test_mcp003_literal_codes_against_the_registry():
    messages = _messages(
        """\
        from mcp.types import ErrorData
        ErrorData(code=2001, message="registered")
        ErrorData(code=-32602, message="standard")
        ErrorData(code=4001, message="unknown")
        ErrorData(code=2003, message="retired")
        ErrorData(code=1003, message="reserved")
        """
    )
    assert messages == [
        f"code 4001 is not in the registry; add an entry to {REGISTRY} or use a registered error",
        "code 2003 is `UPSTREAM_BAD_PAYLOAD`, which the registry has retired",
        "code 1003 is reserved in the registry (removed in 2.0)",
    ]


# -- helpers: names and modules ----------------------------------------------------------
def _registry(tmp_path: Path, helpers_module: str | None, helper: str | None = None) -> Path:
    path = tmp_path / "mcp-errors.toml"
    lines = ["schema_version = 1", 'namespace = "n"']
    if helpers_module:
        lines.append(f'helpers-module = "{helpers_module}"')
    lines += ["[domains.billing]", "range = [5000, 5099]"]
    if helper:
        lines.append(f'helper = "{helper}"')
    lines += [
        "[domains.billing.errors.BILLING_CARD_DECLINED]",
        "code = 5001",
        'message = "The card was declined."',
        "retryable = false",
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_without_helpers_module_any_import_of_a_helper_name_counts(tmp_path):
    registry = _registry(tmp_path, helpers_module=None)
    source = 'from whatever.errors import billing_error\nbilling_error("BILLING_CARD_DECLIND")\n'
    assert [f.code for f in _findings(source, registry)] == ["MCP004"]


def test_with_helpers_module_only_that_module_counts(tmp_path):
    registry = _registry(tmp_path, helpers_module="shop.errors", helper="pay_error")
    source = """\
        from shop.errors import pay_error
        from other.errors import pay_error as other_pay_error
        from . import errors
        from .errors import pay_error as relative_pay_error
        from .other import pay_error as unrelated
        pay_error("BILLING_NOPE")
        other_pay_error("BILLING_NOPE")
        errors.pay_error("BILLING_NOPE")
        relative_pay_error("BILLING_NOPE")
        unrelated("BILLING_NOPE")
        billing_error("BILLING_NOPE")
    """
    assert [f.line for f in _findings(source, registry)] == [6, 8, 9]


# -- the pre-screen ------------------------------------------------------------------------
@pytest.fixture
def parses(monkeypatch):
    """Counts the trees the engine builds for analysis (CPython's for the `ast` pipeline, LibCST's
    or those built from `ast` for the LibCST one)."""
    from mcplint.engine import lint_ast

    calls = []
    real = cst.parse_module
    built = lint.build_tree
    analysed = lint_ast.analysis_tree

    def counting_analysed(text):
        calls.append(text)
        return analysed(text)

    def counting(text, *args, **kwargs):
        calls.append(text)
        return real(text, *args, **kwargs)

    def counting_built(text):
        calls.append(text)
        return built(text)

    monkeypatch.setattr(lint.cst, "parse_module", counting)
    monkeypatch.setattr(lint, "build_tree", counting_built)
    monkeypatch.setattr(lint_ast, "analysis_tree", counting_analysed)
    return calls


def test_a_file_with_nothing_to_check_is_not_parsed(parses):
    plain = "import os\n\ndef size(path):\n    error_count = 0\n    return os.path.getsize(path)\n"
    assert _findings(plain) == []
    assert _findings('PAYLOAD = {"symbol": "AAPL", "price": 1}\n', registry=None) == []
    assert parses == []


def test_a_table_is_parsed(parses):
    assert _findings("SERVER_ERROR_CODE = -32000\n", registry=None)
    assert len(parses) == 1


@pytest.mark.parametrize(
    ("text", "says_codes"),
    [
        ("class ErrorCodes(IntEnum):\n    A = 1\n", True),
        ("if True:\n    \tclass ToolErrors(Exception): pass\n", True),
        ("class Errors:\n", True),
        ('"""A subclass PaymentErrors: not a class here."""\n', False),
        ('x = "class Errors:"\n', False),
        # The first `class` of the text is not where a line starts; a later one is.
        ('NOTE = "see class Errors: below"\nclass Errors:\n    pass\n', True),
        ("class Reports:\n    pass\n", False),
    ],
)
def test_the_pre_screen_finds_a_table_class_where_a_line_starts(text, says_codes):
    assert _text_says_codes.__wrapped__(text) is says_codes


_CONSTANT_PIECES = ["ERROR_CODE", "E_AUTH", "code", "MAX_RETRIES", "x", " ", "\t", "\n", "=", ": int ", "-", "+", "("]
_CONSTANT_PIECES += ["1", "\u0661", "#", "'"]


@settings(max_examples=3_000, deadline=None)
@given(st.lists(st.sampled_from(_CONSTANT_PIECES), max_size=20))
def test_the_code_constant_screen_agrees_with_its_pattern(pieces):
    """The screen tries INT_CONSTANT only on the lines with an `=` before a digit, instead of
    letting it try every character: the same answer, always."""
    text = "".join(pieces)
    assert _code_constant(text) is any(_says_code(found.group(1)) for found in INT_CONSTANT.finditer(text))


@pytest.mark.parametrize(
    ("text", "says_code"),
    [
        ("ERROR_CODE = 1\n", True),
        ("x = 1\nclass A:\n    E_AUTH: int = -2\n", True),
        ("ERROR_CODE = NOT_FOUND = (3\n", True),  # the last `=` of a chain is the one before the digit
        ("MAX_RETRIES = 3\n", False),
        ("f(ERROR_CODE = 1)\n", False),  # not where a line starts
    ],
)
def test_the_code_constant_screen(text, says_code):
    assert _code_constant(text) is says_code


@pytest.mark.parametrize(
    "path", [*fixture_files("MCP003"), *fixture_files("MCP004")], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_findings_do_not_depend_on_the_other_selected_rules(path):
    """The pre-screen decides alone whether a rule runs on a file."""
    code = path.parent.name
    text = path.read_text(encoding="utf-8")
    settings = FileSettings(codes=frozenset({code}), registry=str(path.parent / "mcp-errors.toml"))
    assert RULES_BY_CODE[code].prescreen(text, settings)
    alone = lint_text(text, path.name, settings).findings
    everything = FileSettings(codes=frozenset(RULES_BY_CODE), registry=settings.registry)
    assert alone == [f for f in lint_text(text, path.name, everything).findings if f.code == code]


# -- from the config to the rule ------------------------------------------------------------
SERVER = textwrap.dedent(
    """\
    from acme_weather.errors import forecast_error

    def forecast(city: str) -> None:
        raise forecast_error("FORECAST_CITY_UNKNOWN", location=city)
    """
)


def test_settings_carry_the_registry_beside_the_config(tmp_path):
    (tmp_path / "mcplint.toml").write_text("")
    (tmp_path / "mcp-errors.toml").write_text(REGISTRY.read_text())
    resolver = ConfigResolver(CliOverrides(), cwd=tmp_path)
    assert resolver.settings_for(tmp_path / "server.py").registry == str(tmp_path / "mcp-errors.toml")


def test_settings_carry_a_configured_registry_or_none(tmp_path):
    (tmp_path / "mcplint.toml").write_text('registry = "errors/registry.toml"\n')
    resolver = ConfigResolver(CliOverrides(), cwd=tmp_path)
    assert resolver.settings_for(tmp_path / "s.py").registry == str(tmp_path / "errors" / "registry.toml")
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "mcplint.toml").write_text("")
    assert ConfigResolver(CliOverrides(), cwd=bare).settings_for(bare / "s.py").registry is None


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_check_reports_unknown_symbols_with_the_projects_registry(tmp_path, jobs):
    (tmp_path / "mcplint.toml").write_text("")
    (tmp_path / "mcp-errors.toml").write_text(REGISTRY.read_text())
    for name in ("server.py", "other.py"):
        (tmp_path / name).write_text(SERVER)
    result = run_cli("check", "--select", "MCP004", "--format", "json", "--jobs", jobs, ".", cwd=tmp_path)
    findings = json.loads(result.stdout)
    assert [(f["code"], f["location"]["row"]) for f in findings] == [("MCP004", 4), ("MCP004", 4)]
    assert "did you mean `FORECAST_LOCATION_UNKNOWN`?" in findings[0]["message"]


def test_the_registry_is_read_again_when_it_changes(tmp_path):
    path = _registry(tmp_path, helpers_module=None)
    first = configured_registry(str(path))
    assert configured_registry(str(path)) is first  # cached
    path.write_text(path.read_text().replace("BILLING_CARD_DECLINED", "BILLING_CARD_EXPIRED"))
    os.utime(path, ns=(0, os.stat(path).st_mtime_ns + 1_000_000))
    second = configured_registry(str(path))
    assert [entry.symbol for entry in second.errors] == ["BILLING_CARD_EXPIRED"]
