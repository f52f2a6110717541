"""Time `mcplint migrate` (dry run) against `mcplint check --no-cache` on the same tree.

Usage:
    python benchmarks/migrate_speed.py [DIR ...] [--repeat N] [--python EXE]

DIR defaults to the corpus package workspace-mcp and the whole corpus
(~/.cache/mcplint/corpus/src, see fetch_corpus.py). Each figure is the median
wall time of --repeat fresh processes (default 3), the two commands run in turn
(check, migrate, check, migrate, ...) so a drift of the machine's speed hits
both. The bar (issue 12): migrate takes at most 1.5 x the time of check.
Nothing is written: migrate runs as a dry run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
DEFAULT_DIRS = [CORPUS / "workspace-mcp-2.2.1", CORPUS]
BAR = 1.5


def wall_time(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def measure(directory: Path, python: str, repeat: int) -> tuple[float, float]:
    """Median seconds of check and of migrate on the directory."""
    check = [python, "-m", "mcplint", "check", "--no-cache", "--exit-zero", "."]
    migrate = [python, "-m", "mcplint", "migrate", "."]
    checks, migrations = [], []
    for _ in range(repeat):
        checks.append(wall_time(check, directory))
        migrations.append(wall_time(migrate, directory))
    return statistics.median(checks), statistics.median(migrations)


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
    print("| tree | check (s) | migrate (s) | migrate / check |")
    print("|---|---:|---:|---:|")
    over = False
    for directory in directories:
        check, migrate = measure(directory, args.python, args.repeat)
        ratio = migrate / check if check else float("inf")
        over |= ratio > BAR
        print(f"| {directory.name} | {check:.1f} | {migrate:.1f} | {ratio:.2f} |")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
