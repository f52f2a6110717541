"""Time `mcplint migrate` (dry run) against `mcplint check --no-cache` on the same tree.

Usage:
    python benchmarks/migrate_speed.py [DIR ...] [--repeat N] [--python EXE]

DIR defaults to the corpus package workspace-mcp and the whole corpus
(~/.cache/mcplint/corpus/src, see fetch_corpus.py). Each figure is the median
over --repeat fresh processes (default 3) of the CPU time (user + system, the
process and its workers: steadier than wall time on a shared machine) and of
the wall time, the two commands run in turn (check, migrate, check, migrate,
...) so a drift of the machine's speed hits both. The bar (issue 12): migrate
takes at most 1.5 x the time of check (compared in CPU time). Nothing is
written: migrate runs as a dry run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
DEFAULT_DIRS = [CORPUS / "workspace-mcp-2.2.1", CORPUS]
BAR = 1.5


def times(command: list[str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds of the process and the workers it waited for, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def measure(directory: Path, python: str, repeat: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (CPU, wall) seconds of check and of migrate on the directory."""
    check = [python, "-m", "mcplint", "check", "--no-cache", "--exit-zero", "."]
    migrate = [python, "-m", "mcplint", "migrate", "."]
    checks, migrations = [], []
    for _ in range(repeat):
        checks.append(times(check, directory))
        migrations.append(times(migrate, directory))
    return _medians(checks), _medians(migrations)


def _medians(figures: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(cpu for cpu, _ in figures), statistics.median(wall for _, wall in figures)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dirs", nargs="*", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    directories = args.dirs or [d for d in DEFAULT_DIRS if d.is_dir()]
    if not directories:
        print("no tree to measure: run benchmarks/fetch_corpus.py first, or name one", file=sys.stderr)
        return 2
    print("| tree | check CPU (s) | migrate CPU (s) | migrate / check (CPU) | check wall (s) | migrate wall (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    over = False
    for directory in directories:
        (check, check_wall), (migrate, migrate_wall) = measure(directory, args.python, args.repeat)
        ratio = migrate / check if check else float("inf")
        over |= ratio > BAR
        print(
            f"| {directory.name} | {check:.1f} | {migrate:.1f} | {ratio:.2f} | {check_wall:.1f} | {migrate_wall:.1f} |"
        )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
