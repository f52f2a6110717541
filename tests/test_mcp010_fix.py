"""MCP010's fix: when it is offered, and which symbol it records a dropped item with."""

from __future__ import annotations

from pathlib import Path

from mcplint.config import FileSettings
from mcplint.engine.fixer import fix_text
from mcplint.rules import RULES_BY_CODE

FIXTURES = Path(__file__).parent / "fixtures"
FIXES_REGISTRY = FIXTURES / "registry" / "fixes.toml"

SOURCE = '''\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")


def load_note(note_id: int) -> dict:
    return {"id": note_id}


@mcp.tool()
def read_notes(note_ids: list[int]) -> dict:
    notes = []
    for note_id in note_ids:
        try:
            notes.append(load_note(note_id))
        except OSError:
            continue
    return {"notes": notes}
'''


def _fix(registry: Path, options: dict | None = None):
    settings = FileSettings(
        codes=frozenset(RULES_BY_CODE), registry=str(registry), rule_options={"MCP010": options or {}}
    )
    return fix_text(SOURCE, "server.py", settings, unsafe=True)


def test_the_fix_records_the_dropped_item_with_the_item_symbol():
    outcome = _fix(FIXES_REGISTRY)
    assert outcome.failure is None
    assert 'batch.failed(index, app_error("BATCH_ITEM_FAILED"))' in outcome.text
    assert [finding.code for finding in outcome.remaining] == []


def test_no_fix_until_the_registry_has_the_item_symbol(tmp_path):
    registry = tmp_path / "mcp-errors.toml"
    text = FIXES_REGISTRY.read_text()
    registry.write_text(text[: text.index("# MCP010's fix")])
    outcome = _fix(registry)
    assert outcome.text == SOURCE
    assert [(finding.code, finding.fix) for finding in outcome.remaining] == [("MCP010", None)]


def test_the_item_symbol_is_an_option():
    outcome = _fix(FIXES_REGISTRY, {"item-symbol": "READ_NOTE_FAILED"})
    assert 'batch.failed(index, app_error("READ_NOTE_FAILED"))' in outcome.text
    assert "BATCH_ITEM_FAILED" not in outcome.text
