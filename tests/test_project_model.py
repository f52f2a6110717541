"""The project model on the shapes real servers are written in (one fixture project per
shape under fixtures/projects/model/, markers written from the shape, not the code)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixture_expectations import FIXTURES, expected_findings, silent_cases
from test_cli import json_findings, run_cli

MODEL = FIXTURES / "projects" / "model"
SHAPES = sorted(path.name for path in MODEL.iterdir() if path.is_dir())
# Shapes the project model does not follow yet: each must fail until it does (strict).
NOT_YET: dict[str, str] = {
    "escaping": "a raise every caller catches still counts (no escape analysis across calls yet)",
    "class_registry": "instances collected by a registration function are not followed",
    "decorator_factory_add_tool": "a wrapper decorator on a call-registered tool is not in scope",
    "inherited_method": "method resolution picks a local base before an imported mixin",
    "nested_dispatch": "a dispatch table imported from another module is not followed",
    "server_into_class": "a server passed into another module's class is not seen",
}


def expected(root: Path) -> set[tuple[str, int, str]]:
    sites = set()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        sites |= {(relative, line, code) for line, code in expected_findings(path.read_text())}
    return sites


@pytest.mark.parametrize(
    "shape",
    [pytest.param(s, marks=pytest.mark.xfail(reason=NOT_YET[s], strict=True)) if s in NOT_YET else s for s in SHAPES],
)
def test_shape_findings_match_the_markers(shape, tmp_path):
    root = tmp_path / shape
    shutil.copytree(MODEL / shape, root)
    result = run_cli("check", "--format", "json", "--no-cache", "--select", "MCP001,MCP002,MCP006", ".", cwd=root)
    found = {(f["filename"], f["location"]["row"], f["code"]) for f in json_findings(result)}
    assert found == expected(root)
    assert any(silent_cases(path.read_text()) for path in root.rglob("*.py"))
