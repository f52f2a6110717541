"""The corpus gate: what mcplint reports on the pinned corpus is what was committed.

``benchmarks/ecosystem.json`` holds the findings per rule and package of the
pinned corpus (``benchmarks/fetch_corpus.py``). A change that moves them must
regenerate the file in the same commit, so every change in what mcplint says
about real code is seen and accepted, never by accident.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import ecosystem  # noqa: E402

REGENERATE = "python benchmarks/ecosystem.py --write"


@pytest.mark.slow
def test_findings_per_rule_and_package_match_the_committed_summary():
    if not ecosystem.DEFAULT_CORPUS.is_dir():
        pytest.skip(f"no corpus at {ecosystem.DEFAULT_CORPUS}: python benchmarks/fetch_corpus.py")
    committed = json.loads(ecosystem.SUMMARY.read_text(encoding="utf-8"))
    now, trouble = {}, []
    for package in ecosystem.packages(ecosystem.DEFAULT_CORPUS):
        now[package.name], found = ecosystem.findings_per_rule(package)
        trouble += found
    assert not trouble, trouble
    drift = {
        name: {"committed": committed["findings_per_package"].get(name), "now": now.get(name)}
        for name in sorted(set(now) | set(committed["findings_per_package"]))
        if now.get(name) != committed["findings_per_package"].get(name)
    }
    assert not drift, (
        f"the findings on the corpus drifted from benchmarks/ecosystem.json: {json.dumps(drift, indent=1)}\n"
        f"If the change is intended, regenerate the file with `{REGENERATE}` and commit it."
    )
