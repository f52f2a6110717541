"""Which registry entry a hand-written message stands for (`registry.match.match_message`)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from mcplint.registry.load import load_registry
from mcplint.registry.match import match_message
from mcplint.registry.model import Registry

_HEAD = """schema_version = 1
namespace = "notes"
helpers-module = "{helpers_module}"

[domains.notes]
range = [1000, 1099]
helper = "{helper}"
"""


def registry_file(
    tmp_path: Path,
    entries: dict[str, tuple[int, str, str]],
    name: str = "mcp-errors.toml",
    helper: str = "notes_error",
    helpers_module: str = "notes_server.errors",
) -> Path:
    """A registry of one domain, ``notes``: symbol -> (code, message, status or "")."""
    text = _HEAD.format(helper=helper, helpers_module=helpers_module)
    for symbol, (code, message, status) in entries.items():
        text += f'\n[domains.notes.errors.{symbol}]\ncode = {code}\nmessage = "{message}"\ncategory = "INTERNAL"\n'
        text += "retryable = false\n" + (f'status = "{status}"\n' if status else "")
    path = tmp_path / name
    path.write_text(text)
    return path


def _registry(tmp_path: Path, entries: dict[str, tuple[int, str, str]], name: str = "mcp-errors.toml") -> Registry:
    return load_registry(str(registry_file(tmp_path, entries, name)))


def _symbol(registry: Registry, source: str) -> str | None:
    found = match_message(registry, cst.parse_expression(source))
    return found.entry.symbol if found is not None else None


@pytest.fixture
def registry(tmp_path: Path) -> Registry:
    return _registry(
        tmp_path,
        {
            "NOTE_NOT_FOUND": (1001, "Note {note_id} does not exist.", ""),
            "STORE_DOWN": (1002, "The note store is unavailable", ""),
            "TWICE_A": (1003, "Could not save", ""),
            "TWICE_B": (1004, "could not save.", ""),
            "OLD": (1005, "Legacy failure", "retired"),
        },
    )


def test_case_spacing_and_a_final_full_stop_aside(registry: Registry) -> None:
    assert _symbol(registry, '"the  note store is UNAVAILABLE."') == "STORE_DOWN"
    assert _symbol(registry, '"The note store is unavailable now"') is None


def test_an_f_string_fills_the_placeholders_in_place(registry: Registry) -> None:
    found = match_message(registry, cst.parse_expression('f"note {key} does not exist"'))
    assert found is not None and found.entry.symbol == "NOTE_NOT_FOUND" and found.helper == "notes_error"
    assert [(name, cst.Module([]).code_for_node(value)) for name, value in found.arguments] == [("note_id", "key")]
    assert _symbol(registry, '"Note 7 does not exist"') is None  # a constant where the entry has a hole
    assert _symbol(registry, 'f"Note {key} is gone"') is None


def test_only_a_unique_live_entry_matches(registry: Registry) -> None:
    assert _symbol(registry, '"Could not save"') is None  # two entries say it
    assert _symbol(registry, '"Legacy failure"') is None  # retired


def test_each_registry_is_matched_against_its_own_entries(registry: Registry, tmp_path: Path) -> None:
    assert _symbol(registry, '"Legacy failure"') is None
    other = _registry(tmp_path, {"LEGACY": (1001, "Legacy failure", "")}, name="other.toml")
    assert _symbol(other, '"Legacy failure"') == "LEGACY"
    assert _symbol(registry, '"Legacy failure"') is None
