"""What `mcplint check --format json --no-cache` reports on the bundled example server, pinned.

`python benchmarks/example_snapshot.py --write` records it in benchmarks/example_snapshot.json;
tests/test_example_snapshot.py fails when the output differs, so a restructuring that must
not change behaviour is checked byte for byte, and a change that should is accepted in the
commit that causes it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "benchmarks" / "example_snapshot.json"


def current() -> list[dict[str, object]]:
    result = subprocess.run(
        [sys.executable, "-m", "mcplint", "check", "--format", "json", "--no-cache", "--exit-zero", "examples/notes_server"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    findings: list[dict[str, object]] = json.loads(result.stdout)
    return findings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record the current output")
    arguments = parser.parse_args()
    findings = current()
    if arguments.write:
        SNAPSHOT.write_text(json.dumps(findings, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{len(findings)} findings written to {SNAPSHOT.relative_to(ROOT)}")
        return 0
    same = findings == json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    print("identical" if same else "differs")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
