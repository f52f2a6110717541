"""What a check would cost if every file were judged once, in its final project context.

Usage:
    python benchmarks/judge_once.py [DIR]

Runs `mcplint check --no-cache --jobs 1` over DIR (default: the corpus, see
fetch_corpus.py) in this process, keeps the project context each file ended
the run with, then lints every file once more in that context from scratch
(fresh trees and walks, no rounds) and prints both times with the second's
parts: building the trees, the walk, the resolution, the `ast` check. The
difference is what the join's rounds spend re-judging files (issue 11); the
parts are what a run judged once would still spend. One process, one worker:
figures taken a minute apart on a shared machine, so compare them with each
other, not with another day's.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mcplint.cli import main
from mcplint.engine import lint, runner, syntax

CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
PARTS = {"_analysis_tree": "trees", "_walk": "walk", "_resolve": "resolution", "syntax_check_only": "ast check"}


class _InProcess(runner.Workers):
    """The run's files linted in this process, so that its walks can be timed and its contexts kept."""

    def lint(self, tasks: Sequence[runner.FileTask]) -> Iterator[tuple[runner.FileTask, Any]]:
        for task in tasks:
            yield task, runner._lint_task(task)


def _timed(seconds: Counter[str]) -> None:
    for name, part in PARTS.items():
        function: Callable[..., Any] = getattr(lint, name)

        def timed(*args: Any, function: Callable[..., Any] = function, part: str = part, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[part] += time.perf_counter() - start

        setattr(lint, name, timed)


def main_(directory: Path) -> None:
    kept: dict[str, Any] = {}
    run = runner.run

    def keeping(tasks: Sequence[runner.FileTask], *args: Any, **kwargs: Any) -> runner.RunResult:
        result = run(tasks, *args, **kwargs)
        kept.update(tasks=tasks, result=result)
        return result

    runner.run = keeping  # type: ignore[assignment]
    runner.Workers = _InProcess  # type: ignore[misc]
    os.chdir(directory)
    start = time.perf_counter()
    CliRunner().invoke(main, ["check", "--no-cache", "--jobs", "1", "--exit-zero", "--quiet", "."])
    with_rounds = time.perf_counter() - start
    tasks, result = kept["tasks"], kept["result"]
    if not result.settled:
        print("warning: the run was cut off before its rounds settled", file=sys.stderr)

    seconds: Counter[str] = Counter()
    _timed(seconds)
    lint.forget_walked_modules()
    syntax._CHECKED.clear()
    start = time.perf_counter()
    for task in tasks:
        project = result.contexts.get(task.path, task.project)
        lint.lint_path(task.path, task.display, task.settings, task.skip_generated, project)
    once = time.perf_counter() - start
    print(f"{len(tasks)} files under {directory}")
    print(f"check, its rounds, join and output included: {with_rounds:.2f} s")
    print(f"each file linted once in its final context: {once:.2f} s ({once / with_rounds:.2f}x), of which")
    for part, value in seconds.most_common():
        print(f"  {part}: {value:.2f} s")


if __name__ == "__main__":
    main_(Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS)
