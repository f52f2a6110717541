"""A check judges each file once, in the project context the cross-module rounds end with
(``runner.run``'s ``judge_once``): its rounds analyse only what the join reads. The findings,
and every fact the join and `mcplint handlers` read, are those of a run that judges every round."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mcplint.config import CliOverrides, ConfigResolver
from mcplint.engine import runner as engine_runner
from mcplint.engine.result import JOIN_FIELDS
from mcplint.finding import Finding

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _tasks(root: Path) -> list[engine_runner.FileTask]:
    resolver = ConfigResolver(CliOverrides(), cwd=root)
    return [
        engine_runner.FileTask(str(path), str(path.relative_to(root)), resolver.settings_for(path), True)
        for path in sorted(root.rglob("*.py"))
    ]


def _whole(findings: list[Finding]) -> list[tuple[object, ...]]:
    """Findings with the fields their equality leaves out (the template aside)."""
    return [(finding, finding.fix, finding.unfixed_reason, finding.handler) for finding in findings]


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """(file, judged) of every task a round hands the workers."""
    handed: list[tuple[str, bool]] = []
    original = engine_runner.Workers.lint

    def recording(self, tasks):  # type: ignore[no-untyped-def]
        handed.extend((task.display, task.judge) for task in tasks)
        return original(self, tasks)

    monkeypatch.setattr(engine_runner.Workers, "lint", recording)
    return handed


@pytest.mark.parametrize("server", ["billing_server", "notes_server"])
def test_judged_once_gives_what_every_round_judged_gives(server: str) -> None:
    tasks = _tasks(EXAMPLES / server)
    every_round = engine_runner.run(tasks, 1)
    once = engine_runner.run(tasks, 1, judge_once=True)
    assert once.findings and _whole(once.findings) == _whole(every_round.findings)
    # With a registry to fix from, the sites are built: the templates are there too.
    assert [f.error_template for f in once.findings] == [f.error_template for f in every_round.findings]
    assert once.contexts == every_round.contexts
    for path, result in every_round.results.items():
        judged = once.results[path]
        assert judged.judged
        assert {name: getattr(judged, name) for name in JOIN_FIELDS} == {
            name: getattr(result, name) for name in JOIN_FIELDS
        }, path


def test_each_file_is_judged_once_after_the_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = _tasks(EXAMPLES / "billing_server")
    handed = _recorded(monkeypatch)
    result = engine_runner.run(tasks, 1, judge_once=True)
    rounds = Counter(file for file, judged in handed if not judged)
    judged = [file for file, is_judged in handed if is_judged]
    assert max(rounds.values()) > 1  # the join changed some file's context: it had rounds
    analysed = {task.display for task in tasks if result.results[task.path].analysed}
    assert sorted(judged) == sorted(analysed)  # each once, the syntax-checked ones not again
    # ... after every round: the judged tasks come last.
    assert handed[-len(judged) :] == [(file, True) for file in judged]


def test_fixes_buffers_and_reused_analyses_are_judged_every_round(monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = _tasks(EXAMPLES / "billing_server")
    handed = _recorded(monkeypatch)
    engine_runner.run(tasks, 1, judge_once=True, reuse=lambda task: None)
    assert handed and all(judged for _, judged in handed)


_NO_REGISTRY_SERVER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")


@mcp.tool()
def read_note(note_id: str) -> dict:
    if not note_id:
        return {"error": f"Note {note_id} missing"}
    return {"id": note_id}
"""


def test_a_check_without_a_registry_builds_no_site_for_a_template_nobody_reads(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(_NO_REGISTRY_SERVER)
    tasks = _tasks(tmp_path)
    assert tasks[0].settings.registry is None
    every_round = engine_runner.run(tasks, 1)
    once = engine_runner.run(tasks, 1, judge_once=True)
    assert [f.code for f in once.findings] == ["MCP001"]
    assert _whole(once.findings) == _whole(every_round.findings)  # the same findings, fixes, reasons
    assert [f.error_template for f in every_round.findings] == ["Note {note_id} missing"]  # migrate reads it
    assert [f.error_template for f in once.findings] == [None]  # a check does not: no site built for it
