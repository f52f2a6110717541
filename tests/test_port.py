"""The `ast` twins of the analyses agree with the LibCST originals on every fixture
(``port_checks``; the same checks run over the corpus with ``benchmarks/twins.py``)."""

from __future__ import annotations

import pytest
from port_checks import all_checks, fixture_sources

from mcplint.analysis.ast_cst import Unsupported
from mcplint.engine.ast_pairs import PairedTree, paired_tree

CHECKS = all_checks()


def _paired_fixtures() -> list[tuple[str, PairedTree]]:
    found = []
    for path in fixture_sources():
        try:
            found.append((path.name, paired_tree(path.read_text(encoding="utf-8"), path)))
        except (Unsupported, SyntaxError, ValueError, UnicodeDecodeError):
            continue  # the fixtures of MCP000 and the builder's fallbacks
    return found


@pytest.fixture(scope="module")
def paired_fixtures() -> list[tuple[str, PairedTree]]:
    return _paired_fixtures()


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_twin_agrees_on_every_fixture(name: str, paired_fixtures: list[tuple[str, PairedTree]]) -> None:
    check = CHECKS[name]
    problems = [f"{file}: {problem}" for file, paired in paired_fixtures for problem in check(paired)]
    assert not problems, "\n".join(problems[:20])


def test_checks_are_found() -> None:
    assert "walk.walk_order" in CHECKS
