"""Loading ``mcp-errors.toml``: the model, and what stops a registry from being checked at all."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from mcplint.registry import RegistryError, check_registry, load_registry, parse_registry

FIXTURES = Path(__file__).parent / "fixtures" / "registry"


def registry(source: str):
    return parse_registry(textwrap.dedent(source).lstrip("\n"), "mcp-errors.toml")


def test_the_design_example_loads_into_the_model():
    loaded = load_registry(str(FIXTURES / "valid.toml"))
    assert (loaded.schema_version, loaded.namespace, loaded.helpers_module) == (
        1,
        "acme.weather-mcp",
        "acme_weather.errors",
    )
    assert loaded.reserved[0].range == (1003, 1003)
    assert loaded.reserved[0].symbols == ("AUTH_SESSION_LOCKED",)
    assert [domain.name for domain in loaded.domains] == ["auth", "upstream", "protocol"]
    upstream = loaded.domains[1]
    assert (upstream.range, upstream.helper) == ((2000, 2099), "upstream_error")
    unavailable = upstream.errors[0]
    assert unavailable.symbol == "UPSTREAM_UNAVAILABLE"
    assert (unavailable.domain, unavailable.code, unavailable.retryable) == ("upstream", 2001, True)
    assert (unavailable.category, unavailable.metadata, unavailable.status) == ("UNAVAILABLE", ("provider",), "active")
    retired = upstream.errors[2]
    assert (retired.status, retired.retired_since) == ("retired", "2.0")
    assert len(loaded.errors) == 7
    assert loaded.problems == ()


def test_the_model_is_frozen():
    loaded = load_registry(str(FIXTURES / "valid.toml"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        loaded.domains[0].errors[0].code = 7  # type: ignore[misc]


def test_negative_ranges_and_codes():
    loaded = registry(
        """
        schema_version = 1
        namespace = "n"
        [domains.low]
        range = [-2099, -2000]
        [domains.low.errors.LOW]
        code = -2001
        message = "m"
        retryable = false
        """
    )
    assert loaded.domains[0].range == (-2099, -2000)
    assert loaded.errors[0].code == -2001


def test_wrong_types_become_none_and_a_problem():
    loaded = registry(
        """
        schema_version = 1
        namespace = "n"
        [domains.d]
        range = "1-9"
        [domains.d.errors.E]
        code = "1"
        message = "m"
        retryable = "varies"
        metadata = ["a", 2]
        """
    )
    entry = loaded.errors[0]
    assert (entry.code, entry.retryable, entry.metadata) == (None, None, ("a",))
    assert loaded.domains[0].range is None
    assert sorted(problem.check for problem in loaded.problems) == [
        "invalid-range",
        "invalid-value",
        "invalid-value",
        "invalid-value",
    ]


def test_syntax_error_is_one_registry_error_with_its_line(tmp_path):
    path = tmp_path / "mcp-errors.toml"
    path.write_text('schema_version = 1\nnamespace = "n"\n[domains.a]\nrange = [1, 2\n', encoding="utf-8")
    with pytest.raises(RegistryError) as raised:
        check_registry(str(path))
    error = raised.value
    assert (error.path, error.line) == (str(path), 4)
    assert error.message.startswith("invalid TOML: ")
    assert str(error) == f"{path}:4: {error.message}"


def test_a_repeated_table_is_a_syntax_error():
    with pytest.raises(RegistryError) as raised:
        registry(
            """
            schema_version = 1
            namespace = "n"
            [domains.a]
            range = [1, 2]
            [domains.a]
            range = [3, 4]
            """
        )
    assert raised.value.line == 5


def test_error_at_end_of_document_points_at_the_last_line():
    with pytest.raises(RegistryError) as raised:
        parse_registry('schema_version = 1\nnamespace = "', "r.toml")
    assert raised.value.line == 2


def test_undecodable_and_missing_files(tmp_path):
    path = tmp_path / "mcp-errors.toml"
    path.write_bytes(b'schema_version = 1\nnamespace = "\xff"\n')
    with pytest.raises(RegistryError) as raised:
        load_registry(str(path))
    assert (raised.value.line, raised.value.message) == (2, "registry is not valid UTF-8")
    with pytest.raises(RegistryError) as raised:
        load_registry(str(tmp_path / "absent.toml"))
    assert raised.value.message.startswith("cannot read registry")


def test_a_newer_schema_version_cannot_be_checked():
    with pytest.raises(RegistryError) as raised:
        registry(
            """
            namespace = "n"
            schema_version = 2
            """
        )
    assert raised.value.line == 2
    assert "newer than this mcplint understands (1)" in raised.value.message


@pytest.mark.parametrize("value", ["0", '"1"', "1.0", "true"])
def test_other_bad_schema_versions_are_findings(value):
    loaded = registry(f'schema_version = {value}\nnamespace = "n"\n')
    assert loaded.schema_version is None
    assert [problem.check for problem in loaded.problems] == ["invalid-value"]


def test_reserved_must_be_an_array_of_tables():
    loaded = registry(
        """
        schema_version = 1
        namespace = "n"
        [reserved]
        range = [1, 2]
        """
    )
    assert loaded.reserved == ()
    assert [problem.message for problem in loaded.problems] == [
        "`reserved` must be an array of tables: write `[[reserved]]`"
    ]


def test_an_invalid_status_is_none_and_skips_lifecycle_guesses():
    loaded = registry(
        """
        schema_version = 1
        namespace = "n"
        [domains.d]
        range = [1, 9]
        [domains.d.errors.E]
        code = 1
        message = "m"
        retryable = false
        status = "gone"
        replaced_by = "F"
        """
    )
    assert loaded.errors[0].status is None
    assert [problem.check for problem in loaded.problems] == ["invalid-value"]
