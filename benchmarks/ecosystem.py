"""The ecosystem run: mcplint over every package of the pinned corpus, like ruff's ecosystem check.

    python benchmarks/ecosystem.py            # run, print the summary
    python benchmarks/ecosystem.py --write    # ... and write it to benchmarks/ecosystem.json

Per package (one directory of ``fetch_corpus.py``'s corpus), in a child process each:

1. ``mcplint check --format json``: the findings per rule;
2. ``mcplint check --fix --unsafe-fixes --diff``: what the fixes would change;
3. ``mcplint check --fix --unsafe-fixes`` on a copy of the package: every file the
   fixes rewrote must still compile if it compiled before;
4. ``mcplint migrate`` (its default dry run).

A crash is an exit code other than 0, 1 (findings) or 2 (a usage error), or a
Python traceback on stderr. The summary (``benchmarks/ecosystem.json``) keeps
the crashes, the tracebacks, the files that stopped compiling and the findings
per rule and package; ``tests/test_ecosystem.py`` (slow) fails when the
findings drift from it, so a change in what mcplint reports on real code is
accepted in the commit that causes it.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUMMARY = HERE / "ecosystem.json"
DEFAULT_CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
CLEAN_EXITS = (0, 1)


def packages(corpus: Path) -> list[Path]:
    """The unpacked packages: not a hidden directory (a `.mcplint_cache` a run left there)."""
    return sorted(path for path in corpus.iterdir() if path.is_dir() and not path.name.startswith("."))


def _mcplint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcplint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _trouble(step: str, result: subprocess.CompletedProcess[str], allowed: tuple[int, ...]) -> list[dict]:
    found = []
    if result.returncode not in allowed:
        found.append({"step": step, "kind": "crash", "exit": result.returncode, "stderr": result.stderr[-2_000:]})
    elif "Traceback (most recent call last)" in result.stderr:
        found.append({"step": step, "kind": "traceback", "exit": result.returncode, "stderr": result.stderr[-2_000:]})
    return found


def findings_per_rule(package: Path) -> tuple[dict[str, int], list[dict]]:
    """``check``'s findings of one package, counted per rule; and any crash."""
    result = _mcplint("check", "--no-cache", "--format", "json", ".", cwd=package)
    trouble = _trouble("check", result, CLEAN_EXITS)
    try:
        findings = json.loads(result.stdout) if result.stdout.strip() else []
    except ValueError:
        findings = []
        trouble.append({"step": "check", "kind": "unreadable report", "stderr": result.stderr[-2_000:]})
    return dict(sorted(Counter(finding["code"] for finding in findings).items())), trouble


def _compiles(path: Path) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def fixed_copy_problems(package: Path) -> tuple[int, list[str], list[dict]]:
    """Fix a copy of the package: how many files changed, which stopped compiling, any crash."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / package.name
        shutil.copytree(package, copy, symlinks=True)
        result = _mcplint("check", "--no-cache", "--fix", "--unsafe-fixes", "--exit-zero", ".", cwd=copy)
        trouble = _trouble("fix", result, CLEAN_EXITS)
        changed, broken = 0, []
        for original in sorted(package.rglob("*.py")):
            fixed = copy / original.relative_to(package)
            if not fixed.is_file() or filecmp.cmp(original, fixed, shallow=False):
                continue
            changed += 1
            if _compiles(original) and not _compiles(fixed):
                broken.append(str(original.relative_to(package.parent)))
    return changed, broken, trouble


def run_package(package: Path) -> dict:
    start = time.perf_counter()
    findings, trouble = findings_per_rule(package)
    diff = _mcplint("check", "--no-cache", "--fix", "--unsafe-fixes", "--diff", ".", cwd=package)
    trouble += _trouble("diff", diff, CLEAN_EXITS)
    changed, broken, fix_trouble = fixed_copy_problems(package)
    migrate = _mcplint("migrate", ".", cwd=package)
    trouble += fix_trouble + _trouble("migrate", migrate, (0, 1, 2))
    return {
        "findings": findings,
        "files_fixed": changed,
        "stopped_compiling": broken,
        "trouble": trouble,
        "seconds": round(time.perf_counter() - start, 1),
    }


def summarise(results: dict[str, dict]) -> dict:
    """What is committed: deterministic (no timings), sorted."""
    totals: Counter[str] = Counter()
    for result in results.values():
        totals.update(result["findings"])
    return {
        "packages": len(results),
        "crashes": [
            {"package": name, **item} for name, result in results.items() for item in result["trouble"]
            if item["kind"] == "crash"
        ],
        "tracebacks": [
            {"package": name, **item} for name, result in results.items() for item in result["trouble"]
            if item["kind"] != "crash"
        ],
        "stopped_compiling": sorted(path for result in results.values() for path in result["stopped_compiling"]),
        "files_fixed": sum(result["files_fixed"] for result in results.values()),
        "findings_per_rule": dict(sorted(totals.items())),
        "findings_per_package": {name: result["findings"] for name, result in sorted(results.items())},
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help=f"default {DEFAULT_CORPUS}")
    parser.add_argument("--write", action="store_true", help=f"write the summary to {SUMMARY.relative_to(HERE.parent)}")
    parser.add_argument("--package", action="append", help="only these packages (directory names)")
    options = parser.parse_args()
    if not options.corpus.is_dir():
        print(f"no corpus at {options.corpus}: run `python benchmarks/fetch_corpus.py` first", file=sys.stderr)
        return 2
    results = {}
    for package in packages(options.corpus):
        if options.package and package.name not in options.package:
            continue
        results[package.name] = result = run_package(package)
        problems = len(result["trouble"]) + len(result["stopped_compiling"])
        print(
            f"{package.name:40} {sum(result['findings'].values()):5} findings  {result['files_fixed']:3} files fixed"
            f"  {problems} problems  {result['seconds']:6.1f} s",
            flush=True,
        )
    summary = summarise(results)
    print(json.dumps({key: value for key, value in summary.items() if key != "findings_per_package"}, indent=2))
    if options.write:
        SUMMARY.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {SUMMARY}")
    return 1 if summary["crashes"] or summary["tracebacks"] or summary["stopped_compiling"] else 0


if __name__ == "__main__":
    sys.exit(main())
