"""The migration proof: each server of ``benchmarks/proof_servers.toml`` keeps its own test suite green.

Per server (``benchmarks/migration_proof.py`` does the work): its sdist from
PyPI in a cached venv with its test dependencies, pinned; its tests on a copy;
`mcplint migrate --write .` on the copy, which must rewrite at least one site
and change at least one file on disk (no vacuous proof); its tests again. The
tests that pass after are exactly those that passed before, less the ones the
server's entry excepts (each asserts the old message text, or the old in-band
error value the migration replaces, and the entry records the old and the new).
An excepted test that still passes is an error too: the list stays exact.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import migration_proof  # noqa: E402

pytestmark = pytest.mark.slow

SERVERS = migration_proof.load_servers()


def _param(server: migration_proof.ProofServer) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=server.xfail)] if server.xfail else []
    return pytest.param(server, id=server.name, marks=marks)


def test_the_proof_covers_both_server_styles():
    kinds = " ".join(server.kind for server in SERVERS)
    assert len(SERVERS) >= 5
    assert "low-level" in kinds and ("FastMCP" in kinds or "fastmcp" in kinds or "MCPServer" in kinds)


@pytest.mark.parametrize("server", [_param(server) for server in SERVERS])
def test_the_servers_own_tests_pass_after_migration_as_before(server, tmp_path):
    proof = migration_proof.prove(server, tmp_path)
    # The pinned environment passes what it passed when the entry was written: fewer would
    # make a weaker proof without anyone noticing.
    assert len(proof.before.passed) == server.passed_before, proof.before.summary + proof.before.output[-4000:]
    assert proof.sites_rewritten > 0, proof.migrate_output[-4000:]
    assert proof.files_changed > 0, proof.migrate_output[-4000:]
    assert proof.holds, migration_proof.explain(proof)
