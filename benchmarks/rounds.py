"""Where each round of the cross-module join spends a check's time.

Usage:
    python benchmarks/rounds.py [DIR]

Runs `mcplint check --no-cache --jobs 1` over DIR (default: the corpus, see
fetch_corpus.py) in this process and prints, per round, how many files it linted
and analysed and the seconds of its parts: building the trees, the walk, the
`ast` syntax check, the module's local handler scope, the scope with other
modules' entry points, each rule's exports for the join (`export`) and its
whole-module judgement (`finish`), placing the findings, and the join that
follows the round. Round 0 lints every file; the later ones only those whose
project context the join changed, for the join alone; the last round judges each
file analysed in full once (a check's `judge_once`). With MCPLINT_AST=1, the `ast`
pipeline's parts too (its walk, the rules' twins, the LibCST nodes built for the
fixes). One process, one worker: compare the parts with each other, not with
another day's figures.
"""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mcplint.cli import main
from mcplint.engine import lint, runner
from mcplint.rules import ALL_RULES

CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
PARTS = {
    "_analysis_tree": "trees",
    "_walk": "walk",
    "syntax_check_only": "ast check",
    "resolve_local_scope": "local scope",
    "scope_in_project": "scope in project",
    "_findings": "findings",
    # the `ast` pipeline's (MCPLINT_AST=1)
    "_walk_ast": "walk ast",
    "_ast_local_scope": "local scope ast",
}


class _Rounds:
    def __init__(self) -> None:
        self.current = -1
        self.seconds: dict[int, defaultdict[str, float]] = {}  # round -> part -> seconds
        self.files: dict[int, tuple[int, int]] = {}

    def add(self, part: str, seconds: float) -> None:
        self.seconds.setdefault(self.current, defaultdict(float))[part] += seconds


def _timed(rounds: _Rounds, owner: Any, name: str, part: str) -> None:
    function: Callable[..., Any] = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            rounds.add(part, time.perf_counter() - start)

    setattr(owner, name, timed)


def _instrument(rounds: _Rounds) -> None:
    for name, part in PARTS.items():
        _timed(rounds, lint, name, part)
    rules: list[type] = list(ALL_RULES)
    if lint.AST_PORT:
        from mcplint.engine import lint_ast

        _timed(rounds, lint_ast.Bridge, "libcst_of", "fixes' LibCST nodes")
        rules.extend(lint_ast._twins().values())  # their own finish and export
    for rule in rules:
        _timed(rounds, rule, "finish", f"finish {rule.code}")
        if "export" in vars(rule):
            _timed(rounds, rule, "export", f"export {rule.code}")
    _timed(rounds, runner, "_joined", "join")

    class InProcess(runner.Workers):
        """The round's files linted in this process, counted as one round."""

        def lint(self, tasks: Sequence[runner.FileTask]) -> Iterator[tuple[runner.FileTask, Any]]:
            rounds.current += 1
            linted = analysed = 0
            for task in tasks:
                start = time.perf_counter()
                result = runner._lint_task(task)
                rounds.add("lint (all parts)", time.perf_counter() - start)
                linted += 1
                analysed += bool(result.analysed)
                yield task, result
            rounds.files[rounds.current] = (linted, analysed)

    runner.Workers = InProcess  # type: ignore[misc]


def main_(directory: Path) -> None:
    rounds = _Rounds()
    _instrument(rounds)
    os.chdir(directory)
    start = time.perf_counter()
    CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "1", "--exit-zero", "--quiet", "."])
    total = time.perf_counter() - start
    print(f"check of {directory}: {total:.2f} s in {len(rounds.files)} rounds")
    totals: defaultdict[str, float] = defaultdict(float)
    for number, (linted, analysed) in sorted(rounds.files.items()):
        seconds: Mapping[str, float] = rounds.seconds.get(number, {})
        for part, value in seconds.items():
            totals[part] += value
        print(f"round {number}: {linted} files linted, {analysed} analysed; {_listed(seconds)}")
    print(f"all rounds: {_listed(totals)}")


def _listed(seconds: Mapping[str, float]) -> str:
    ordered = sorted(seconds.items(), key=lambda item: -item[1])
    return ", ".join(f"{part} {value:.2f}" for part, value in ordered if value >= 0.005)


if __name__ == "__main__":
    main_(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS)
