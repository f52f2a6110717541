"""Run `mcplint migrate --write` on a copy of every corpus package and check the outcome.

Usage:
    python benchmarks/migrate_corpus.py [CORPUS_DIR] [--only NAME ...] [--json FILE]

Per package (each unpacked sdist under CORPUS_DIR is copied to a scratch
directory first; the corpus is never written): the findings before, the
migration's summary, then the checks a migration must pass: every file that
parsed before still parses, the registry has no REG finding, a second
`migrate` finds nothing, and the MCP001/MCP002/MCP005/MCP006/MCP007 findings
after. Prints one row per package and the totals.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

DEFAULT_CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
SITE_CODES = ("MCP001", "MCP002", "MCP005", "MCP006", "MCP007", "MCP008")


def mcplint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mcplint", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def findings(root: Path) -> Counter[str]:
    result = mcplint("check", "--no-cache", "--exit-zero", "--format", "json", ".", cwd=root)
    return Counter(finding["code"] for finding in json.loads(result.stdout or "[]"))


def parsing_files(root: Path) -> set[Path]:
    parsed = set()
    for path in root.rglob("*.py"):
        try:
            ast.parse(path.read_bytes(), str(path))
        except (SyntaxError, ValueError):
            continue
        parsed.add(path.relative_to(root))
    return parsed


def migrate_one(package: Path, scratch: Path) -> dict[str, object]:
    root = scratch / package.name
    shutil.copytree(package, root)
    parsed_before = parsing_files(root)
    before = findings(root)
    started = time.perf_counter()
    migration = mcplint("migrate", "--write", ".", cwd=root)
    seconds = time.perf_counter() - started
    after = findings(root)
    broken = sorted(str(path) for path in parsed_before - parsing_files(root))
    again = mcplint("migrate", ".", cwd=root)
    registry = root / "mcp-errors.toml"
    registry_findings = (
        mcplint("registry", "check", str(registry), cwd=root).stdout.count(": REG") if registry.exists() else 0
    )
    return {
        "package": package.name,
        "exit": migration.returncode,
        "seconds": round(seconds, 2),
        "before": {code: before[code] for code in SITE_CODES},
        "after": {code: after[code] for code in SITE_CODES},
        "broken_files": broken,
        # Findings of the other rules that the migration added (MCP003/MCP004 on its own registry ...).
        "new_findings": {code: after[code] - before[code] for code in after if after[code] > before[code] and code not in SITE_CODES},
        "registry_findings": registry_findings,
        "second_run_clean": again.returncode == 0 and "nothing to migrate" in again.stderr,
        "resolved": resolved(migration.stderr),
        "summary": migration.stderr.strip().splitlines()[-12:],
    }


def resolved(report: str) -> dict[str, int]:
    """The report's "resolved" column: the sites the migration rewrote, per rule."""
    rows = (line.split() for line in report.splitlines() if line.startswith(SITE_CODES))
    return {row[0]: int(row[2]) for row in rows if len(row) == 4 and row[2].isdigit()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--json", type=Path, default=None)
    arguments = parser.parse_args()
    packages = sorted(path for path in arguments.corpus.iterdir() if path.is_dir())
    if arguments.only:
        packages = [path for path in packages if any(path.name.startswith(name) for name in arguments.only)]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for package in packages:
            row = migrate_one(package, Path(scratch))
            rows.append(row)
            before, after = sum(row["before"].values()), sum(row["after"].values())  # type: ignore[attr-defined]
            flags = [f"rewrote {sum(row['resolved'].values())}"]  # type: ignore[attr-defined]
            flags += [] if row["second_run_clean"] else ["second run not clean"]
            flags += [f"{len(row['broken_files'])} broken"] if row["broken_files"] else []  # type: ignore[arg-type]
            flags += [f"{row['registry_findings']} REG"] if row["registry_findings"] else []
            flags += [f"new {code} {count}" for code, count in row["new_findings"].items()]  # type: ignore[attr-defined]
            print(f"{row['package']:40} exit {row['exit']}  {before:4} -> {after:4}  {row['seconds']:6}s  {' '.join(flags)}")
    totals_before = sum((Counter(row["before"]) for row in rows), Counter())  # type: ignore[arg-type]
    totals_after = sum((Counter(row["after"]) for row in rows), Counter())  # type: ignore[arg-type]
    for code in SITE_CODES:
        print(f"{code}: {totals_before[code]} -> {totals_after[code]}")
    failures = [
        row["package"] for row in rows
        if row["broken_files"] or not row["second_run_clean"] or row["registry_findings"] or row["new_findings"]
        or row["exit"] not in (0,)
    ]  # fmt: skip
    print(f"packages: {len(rows)}; with a problem: {len(failures)} {failures}")
    if arguments.json:
        arguments.json.write_text(json.dumps(rows, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
