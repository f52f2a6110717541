"""The example server's full JSON report equals benchmarks/example_snapshot.json (messages,
positions, handlers and fixes included); regenerate it with
`python benchmarks/example_snapshot.py --write` when a change is meant to alter it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from example_snapshot import SNAPSHOT, current  # noqa: E402


def test_the_example_server_report_is_unchanged():
    assert current() == json.loads(SNAPSHOT.read_text(encoding="utf-8"))
