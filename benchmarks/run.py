"""Time mcplint against plain parsing on the MCP server corpus.

Usage:
    python benchmarks/run.py [CORPUS_DIR] [--repeat N] [--limit N] [--python EXE]
                             [--parse-only] [--json FILE]

Every measurement runs in a fresh subprocess (no warm caches or imports shared
between runs) and the median of --repeat runs is reported. The parse baselines
see the same file list as mcplint: every *.py file under CORPUS_DIR, minus the
directories in EXCLUDED_DIRS. Needs only the stdlib, plus libcst in --python.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CORPUS = (
    Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
)
EXCLUDED_DIRS = {
    ".git", "__pycache__", ".venv", "venv", "node_modules", "build", "dist", "site-packages",
}
PRE_COMMIT_FILES = 5
VERSION_RUNS = 10

# Run in the child process: read every file first so that only parsing is timed
# (not disk I/O or the parser's import), then print seconds and failure count.
PARSE_SCRIPT = """
import json, sys, time
mode, list_file = sys.argv[1], sys.argv[2]
if mode == "libcst":
    import libcst
    parse = libcst.parse_module
else:
    import ast
    parse = ast.parse
with open(list_file, encoding="utf-8") as fh:
    sources = [open(p, "rb").read() for p in fh.read().splitlines()]
failures = 0
start = time.perf_counter()
for source in sources:
    try:
        parse(source)
    except Exception:
        failures += 1
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "failures": failures}))
"""


def collect_files(root: Path) -> list[Path]:
    """All *.py files under root, sorted, pruning EXCLUDED_DIRS while walking."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in EXCLUDED_DIRS]
        found.extend(Path(dirpath, f) for f in filenames if f.endswith(".py"))
    return sorted(found)


def count_lines(files: list[Path]) -> int:
    return sum(len(path.read_bytes().splitlines()) for path in files)


def time_parser(python: str, mode: str, list_file: Path, repeat: int) -> dict:
    """Median in-process parse time over `repeat` fresh interpreters."""
    runs = []
    for _ in range(repeat):
        result = subprocess.run(
            [python, "-c", PARSE_SCRIPT, mode, str(list_file)],
            capture_output=True, text=True,
        )
        if result.returncode != 0:
            raise SystemExit(f"{mode} parse run failed:\n{result.stderr}")
        runs.append(json.loads(result.stdout))
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "failures": runs[0]["failures"],
    }


def wall_time(cmd: list[str], ok_codes: tuple[int, ...] = (0,), env: dict | None = None) -> float:
    """Wall-clock seconds of one subprocess, process start-up included."""
    start = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if result.returncode not in ok_codes:
        raise SystemExit(
            f"command failed with exit code {result.returncode}: {' '.join(cmd[:6])} ...\n"
            f"{result.stderr[-2000:]}"
        )
    return elapsed


def median_wall_time(cmd: list[str], repeat: int, env: dict | None = None) -> float:
    return statistics.median(wall_time(cmd, env=env) for _ in range(repeat))


def mcplint_importable(python: str) -> bool:
    probe = subprocess.run([python, "-c", "import mcplint"], capture_output=True)
    return probe.returncode == 0


def check_command(python: str, targets: list[str], output: str, *options: str) -> list[str]:
    return [
        python, "-m", "mcplint", "check", "--exit-zero", "--format", "json", "--output", output,
        *options, *targets,
    ]


def time_mcplint(python: str, targets: list[str], jobs: int, repeat: int) -> float:
    """Median wall time of a full, cold `mcplint check` run (no cache) writing JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        output = str(Path(tmp) / "report.json")
        cmd = check_command(python, targets, output, "--no-cache", "--jobs", str(jobs))
        return median_wall_time(cmd, repeat)


def time_cache(python: str, targets: list[str], repeat: int) -> tuple[float, float]:
    """(cold run that fills an empty cache, median warm run), all CPUs."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MCPLINT_CACHE_DIR": str(Path(tmp) / "cache")}
        cmd = check_command(python, targets, str(Path(tmp) / "report.json"))
        cold = wall_time(cmd, env=env)
        return cold, median_wall_time(cmd, max(repeat, 3), env=env)


def time_pre_commit(python: str, files: list[Path], repeat: int) -> float:
    """A pre-commit-style run: the 5 largest files named explicitly, project cache warm."""
    chosen = [str(p) for p in sorted(files, key=lambda p: -p.stat().st_size)[:PRE_COMMIT_FILES]]
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "MCPLINT_CACHE_DIR": str(Path(tmp) / "cache")}
        cmd = check_command(python, chosen, str(Path(tmp) / "report.json"), "--force-exclude")
        wall_time(cmd, env=env)
        return median_wall_time(cmd, max(repeat, 3), env=env)


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def markdown_table(figures: dict) -> str:
    def seconds(value):
        return "n/a" if value is None else f"{value:.3f} s"

    def times(value):
        return "n/a" if value is None else f"{value:.2f}x"

    jobs_n = figures["cpu_count"]
    rows = [
        ("Files (.py)", str(figures["files"])),
        ("KLOC", f"{figures['kloc']:.1f}"),
        ("`ast.parse`, all files, one process", seconds(figures["ast_parse_s"])),
        ("Files `ast.parse` rejected (newer syntax than --python)", str(figures["ast_failures"])),
        ("LibCST parse-only, all files, one process", seconds(figures["libcst_parse_s"])),
        ("Files LibCST failed to parse (skipped)", str(figures["libcst_failures"])),
        ("`mcplint check --jobs 1` (wall)", seconds(figures["mcplint_jobs1_s"])),
        (f"`mcplint check --jobs {jobs_n}` (wall)", seconds(figures["mcplint_jobsN_s"])),
        ("`mcplint --version` (wall, median of 10)", seconds(figures["mcplint_version_s"])),
        ("mcplint jobs 1 / LibCST parse-only", times(figures["jobs1_over_libcst"])),
        (f"Speed-up jobs 1 / jobs {jobs_n}", times(figures["jobs1_over_jobsN"])),
        ("`mcplint check`, cold, filling an empty cache (wall)", seconds(figures["cache_cold_s"])),
        ("`mcplint check`, warm cache (wall)", seconds(figures["cache_warm_s"])),
        ("Speed-up warm / cold", times(figures["cold_over_warm"])),
        (f"Pre-commit style: {PRE_COMMIT_FILES} largest files, warm cache (wall)", seconds(figures["pre_commit_s"])),
    ]
    lines = ["| Measure | Value |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS,
                        help=f"directory to scan (default: {DEFAULT_CORPUS})")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--limit", type=int, help="only the first N files (sorted)")
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter for all measurements (default: this one)")
    parser.add_argument("--parse-only", action="store_true",
                        help="skip the mcplint measurements")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    corpus = args.corpus.expanduser()
    if not corpus.is_dir():
        raise SystemExit(f"{corpus} is not a directory; run benchmarks/fetch_corpus.py first")

    files = collect_files(corpus)
    print(f"{len(files)} .py files under {corpus} after excluding {sorted(EXCLUDED_DIRS)}")
    if args.limit is not None:
        files = files[: args.limit]
    lines = count_lines(files)
    print(f"using {len(files)} files, {lines} lines ({lines / 1000:.1f} KLOC)")

    cpu_count = os.cpu_count() or 1
    figures = {
        "corpus": str(corpus), "python": args.python, "repeat": args.repeat,
        "cpu_count": cpu_count, "files": len(files), "lines": lines, "kloc": lines / 1000,
        "mcplint_jobs1_s": None, "mcplint_jobsN_s": None, "mcplint_version_s": None,
        "cache_cold_s": None, "cache_warm_s": None, "pre_commit_s": None,
    }

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(str(p) for p in files))
        list_file = Path(fh.name)
    try:
        ast_result = time_parser(args.python, "ast", list_file, args.repeat)
        libcst_result = time_parser(args.python, "libcst", list_file, args.repeat)
    finally:
        list_file.unlink()
    figures.update(
        ast_parse_s=ast_result["seconds"], ast_failures=ast_result["failures"],
        libcst_parse_s=libcst_result["seconds"], libcst_failures=libcst_result["failures"],
    )

    if args.parse_only:
        print("--parse-only: skipping mcplint")
    elif not mcplint_importable(args.python):
        print(f"mcplint is not importable by {args.python}; reporting parse figures only")
    else:
        # With --limit, pass the chosen files explicitly; otherwise let mcplint walk
        # the directory itself, as a user would run it.
        targets = [str(p) for p in files] if args.limit is not None else [str(corpus)]
        figures["mcplint_jobs1_s"] = time_mcplint(args.python, targets, 1, args.repeat)
        figures["mcplint_jobsN_s"] = time_mcplint(args.python, targets, cpu_count, args.repeat)
        figures["mcplint_version_s"] = median_wall_time(
            [args.python, "-m", "mcplint", "--version"], VERSION_RUNS
        )
        figures["cache_cold_s"], figures["cache_warm_s"] = time_cache(args.python, targets, args.repeat)
        figures["pre_commit_s"] = time_pre_commit(args.python, files, args.repeat)

    figures["jobs1_over_libcst"] = ratio(figures["mcplint_jobs1_s"], figures["libcst_parse_s"])
    figures["jobs1_over_jobsN"] = ratio(figures["mcplint_jobs1_s"], figures["mcplint_jobsN_s"])
    figures["cold_over_warm"] = ratio(figures["cache_cold_s"], figures["cache_warm_s"])

    print()
    print(markdown_table(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
