"""Before → after snapshots of the fixes: `tests/fixtures/<CODE>/fixes/*.py` fixed (unsafe
fixes included) against `tests/fixtures/registry/fixes.toml` must equal the `.fixed` file
beside it, parse, be idempotent, and import only helpers the generated module defines. The
look-alikes after the file's `# Left alone` comment stay as they are, and only they may
keep a finding."""

from __future__ import annotations

import ast
from pathlib import Path

import libcst as cst
import pytest

from mcplint.engine.fixer import fix_text
from mcplint.registry.codegen import generate_helpers
from mcplint.registry.load import load_registry
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

FIXTURES = Path(__file__).parent / "fixtures"
REGISTRY = FIXTURES / "registry" / "fixes.toml"
CASES = sorted(FIXTURES.glob("MCP*/fixes/*.py"))
SETTINGS = FileSettings(codes=frozenset(RULES_BY_CODE), registry=str(REGISTRY))
LEFT_ALONE = "# Left alone"
HELPER_CASES = [path for path in CASES if path.parent.parent.name != "MCP008"]  # MCP008 sets a keyword


def _fixed(path: Path) -> str:
    outcome = fix_text(path.read_text(), path.name, SETTINGS, unsafe=True)
    assert outcome.failure is None
    return outcome.text


@pytest.mark.parametrize("path", CASES, ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_the_fix_matches_its_snapshot(path: Path):
    assert _fixed(path) == path.with_suffix(".fixed").read_text()


@pytest.mark.parametrize("path", CASES, ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_the_fixed_code_parses_is_idempotent_and_keeps_only_the_sites_left_alone(path: Path):
    code = path.parent.parent.name
    fixed = _fixed(path)
    cst.parse_module(fixed)
    again = fix_text(fixed, path.name, SETTINGS, unsafe=True)
    assert again.text == fixed
    boundary = next(number for number, line in enumerate(fixed.splitlines(), 1) if line.strip().startswith(LEFT_ALONE))
    # The look-alikes after the marker are untouched, and only they may keep a finding.
    assert _after_marker(fixed) == _after_marker(path.read_text())
    remaining = [finding for finding in again.remaining if finding.code == code]
    assert all(finding.line > boundary for finding in remaining)


def _after_marker(text: str) -> str:
    return text[text.index(LEFT_ALONE) :]


@pytest.mark.parametrize("path", HELPER_CASES, ids=lambda path: f"{path.parent.parent.name}/{path.name}")
def test_the_fixed_code_imports_helpers_the_generated_module_defines(path: Path):
    registry = load_registry(str(REGISTRY))
    generated = ast.parse(generate_helpers(registry, "mcp1"))
    defined = {node.name for node in generated.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    symbols = {entry.symbol for entry in registry.errors}
    text = _fixed(path)
    fixed = ast.parse(text[: text.index(LEFT_ALONE)])  # the look-alikes after it may name anything
    imported = {
        alias.name
        for node in ast.walk(fixed)
        if isinstance(node, ast.ImportFrom) and node.module == registry.helpers_module
        for alias in node.names
    }
    assert imported and imported <= defined
    called = [
        node.args[0].value
        for node in ast.walk(fixed)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in imported
        and node.args  # `BatchResult()` (MCP010's fix) takes none
    ]
    assert called and set(called) <= symbols


def test_diff_and_fix_agree_byte_for_byte(tmp_path: Path):
    """`check --diff` shows exactly what `check --fix` then writes, for every snapshot at once."""
    import difflib
    import shutil

    from test_cli import run_cli

    shutil.copy(REGISTRY, tmp_path / "mcp-errors.toml")
    (tmp_path / "mcplint.toml").write_text("")
    names = []
    for path in CASES:
        name = f"{path.parent.parent.name.lower()}_{path.name}"
        shutil.copy(path, tmp_path / name)
        names.append(name)
    before = {name: (tmp_path / name).read_text() for name in names}
    shown = run_cli("check", "--no-cache", "--diff", "--unsafe-fixes", *names, cwd=tmp_path)
    assert shown.exit_code == 1
    assert {name: (tmp_path / name).read_text() for name in names} == before  # --diff writes nothing
    run_cli("check", "--no-cache", "--fix", "--unsafe-fixes", *names, cwd=tmp_path)
    written = "".join(
        "".join(difflib.unified_diff(
            before[name].splitlines(keepends=True),
            (tmp_path / name).read_text().splitlines(keepends=True),
            fromfile=name,
            tofile=name,
        ))
        for name in sorted(names)
    )  # fmt: skip
    assert written and shown.stdout == written
