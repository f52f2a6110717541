"""The `ast` port's differential checks (tests/port_checks) over a directory of real code.

Usage:
    python benchmarks/twins.py [DIR] [CHECK ...]

Builds each Python file's paired trees (``engine/ast_pairs.py``) and runs every check
(or those named, ``module.function`` or a module) on it; prints each difference with
its file and the count of files per check that differ. DIR defaults to the pinned
corpus (fetch_corpus.py). Files the builder does not make (LibCST parses them) and
files Python refuses are counted apart. Exit status 1 when a check found a difference.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from port_checks import all_checks  # noqa: E402

from mcplint.analysis.ast_cst import Unsupported  # noqa: E402
from mcplint.engine.ast_pairs import paired_tree  # noqa: E402

CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache/mcplint/corpus")) / "src"
SHOWN_PER_CHECK = 10


def main(arguments: list[str]) -> int:
    directory = Path(arguments[0]) if arguments else CORPUS
    wanted = arguments[1:]
    checks = {
        name: check for name, check in all_checks().items()
        if not wanted or name in wanted or name.split(".")[0] in wanted
    }  # fmt: skip
    differing: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    compared = skipped = 0
    for path in sorted(directory.rglob("*.py")):
        try:
            paired = paired_tree(path.read_text(encoding="utf-8"), path)
        except (Unsupported, SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
            skipped += 1
            continue
        compared += 1
        for name, check in checks.items():
            problems = check(paired)
            if problems:
                differing[name] += 1
                for problem in problems:
                    if shown[name] < SHOWN_PER_CHECK:
                        print(f"{path}: {name}: {problem}")
                    shown[name] += 1
    print(f"{compared} files compared ({skipped} not built from ast)")
    for name in sorted(checks):
        print(f"{name}: {differing[name]} files differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
