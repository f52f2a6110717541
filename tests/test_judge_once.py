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

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _tasks(root: Path) -> list[engine_runner.FileTask]:
    resolver = ConfigResolver(CliOverrides(), cwd=root)
    return [
        engine_runner.FileTask(str(path), str(path.relative_to(root)), resolver.settings_for(path), True)
        for path in sorted(root.rglob("*.py"))
    ]


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
    assert once.findings and once.findings == every_round.findings
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
