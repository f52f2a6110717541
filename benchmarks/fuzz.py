"""Long fuzz runs: the properties of tests/fuzz_properties.py on many more sources.

    python benchmarks/fuzz.py                    # 1,000 of each source, a random seed
    python benchmarks/fuzz.py --examples 5000 --seed 7 --source mutated

A failure prints hypothesis's shrunk example (and the seed to replay it) and
exits 1. Add what it finds to the tests as a regression test with the example.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_properties import check_properties, hypothesmith_sources, mutated_fixtures  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

SOURCES = {"mutated": mutated_fixtures, "generated": hypothesmith_sources}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=1_000, help="examples per source (default 1,000)")
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed (default: random)")
    parser.add_argument("--source", choices=[*SOURCES, "all"], default="all")
    options = parser.parse_args()
    failed = False
    for name, strategy in SOURCES.items():
        if options.source not in (name, "all"):
            continue
        run_settings = settings(
            max_examples=options.examples, deadline=None, database=None,
            suppress_health_check=list(HealthCheck),
        )  # fmt: skip
        test = run_settings(given(strategy())(check_properties))
        if options.seed is not None:
            test = seed(options.seed)(test)
        start = time.perf_counter()
        try:
            test()
        except Exception as error:  # the falsifying example is in the exception's notes
            traceback.print_exc()
            print(f"{name}: FAILED after {time.perf_counter() - start:.1f} s: {type(error).__name__}: {error}")
            failed = True
            continue
        print(f"{name}: {options.examples} examples passed in {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
