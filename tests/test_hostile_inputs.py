"""Hostile input ends in one line and exit 2, never a traceback (issue 14, item 6).

Deep nesting in the TOML files, a cache of the wrong shape, report files that
cannot be written: through `check`, `--fix`, `migrate` and every `registry`
subcommand.
"""

from __future__ import annotations

import json
import re

import pytest
from test_cli import BAD_TOOL, json_findings, run_cli

DEEP = "[" * 3000 + "]" * 3000
# json recurses in C: how deep it goes depends on the stack (pytest's is deeper than a plain run's).
DEEP_JSON = "[" * 100_000 + "]" * 100_000
REGISTRY = 'schema_version = 1\nnamespace = "demo"\nhelpers-module = "errors"\n'
COMMANDS = [
    ("check", "."),
    ("check", "--fix", "."),
    ("migrate", "."),
    ("migrate", "--write", "."),
    ("registry", "check"),
    ("registry", "generate"),
    ("registry", "export"),
    ("registry", "diff", "mcp-errors.toml"),
]


def _one_error_line(result, expected: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [f"mcplint: error: {expected}"]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_deeply_nested_registry_is_one_line_and_exit_2(tmp_path, command):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    (tmp_path / "mcp-errors.toml").write_text(f"{REGISTRY}\n\ndeep = {DEEP}\n")
    result = run_cli(*command, cwd=tmp_path)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("mcplint: error: ") and line.endswith("mcp-errors.toml:6: arrays or inline tables nested more than 100 deep")
    assert (tmp_path / "server.py").read_text() == BAD_TOOL


@pytest.mark.parametrize("command", [*COMMANDS, ("clean",), ("handlers", ".")], ids=" ".join)
@pytest.mark.parametrize("config", ["mcplint.toml", "pyproject.toml"])
def test_a_deeply_nested_config_is_one_line_and_exit_2(tmp_path, command, config):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    (tmp_path / "mcp-errors.toml").write_text(REGISTRY)
    header = "[tool.mcplint]\n" if config == "pyproject.toml" else ""
    (tmp_path / config).write_text(f"{header}select = {DEEP}\n")
    result = run_cli(*command, cwd=tmp_path)
    line = 2 if header else 1
    _one_error_line(result, f"{tmp_path / config}:{line}: arrays or inline tables nested more than 100 deep")


def test_a_config_that_is_not_utf8_is_a_config_error(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    (tmp_path / "mcplint.toml").write_bytes(b'select = ["MCP001"]\n# \xff\n')
    _one_error_line(run_cli("check", ".", cwd=tmp_path), f"{tmp_path / 'mcplint.toml'}:2: config is not valid UTF-8")


# -- reports that cannot be written ---------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [("check", "-o", "missing/report.txt", "."), ("registry", "check", "-o", "missing/report.txt")],
    ids=" ".join,
)
def test_a_report_into_a_missing_directory_is_one_line_and_exit_2(tmp_path, command):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    (tmp_path / "mcp-errors.toml").write_text(REGISTRY)
    result = run_cli(*command, cwd=tmp_path)
    _one_error_line(result, "missing/report.txt: cannot write the report: No such file or directory")


def test_a_baseline_into_a_missing_directory_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--write-baseline", "missing/baseline.json", ".", cwd=tmp_path)
    _one_error_line(result, "missing/baseline.json: cannot write the baseline: No such file or directory")


def test_a_deeply_nested_baseline_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    (tmp_path / "baseline.json").write_text(DEEP_JSON)
    result = run_cli("check", "--baseline", "baseline.json", ".", cwd=tmp_path)
    _one_error_line(result, "baseline.json: baseline is nested too deeply to read")


# -- a cache of the wrong shape -------------------------------------------------------
WRONG_SHAPES = {
    "analyses is a list": lambda entry: {**entry, "analyses": [1, 2]},
    "entry is a number": lambda entry: 5,
    "findings are strings": lambda entry: {
        **entry,
        "analyses": {key: {**analysis, "findings": ["x"]} for key, analysis in entry["analyses"].items()},
    },
    "handlers are numbers": lambda entry: {
        **entry,
        "analyses": {key: {**analysis, "handlers": [7]} for key, analysis in entry["analyses"].items()},
    },
}


@pytest.mark.parametrize("damage", WRONG_SHAPES.values(), ids=WRONG_SHAPES.keys())
def test_a_cache_of_the_wrong_shape_is_rebuilt(tmp_path, monkeypatch, damage):
    """A cache only costs speed: valid JSON of unexpected types is dropped, the run's result
    is the same, and the next run uses a sound cache again."""
    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "server.py").write_text(BAD_TOOL)
    cold = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    (tmp_path / "server.py").touch()  # past the whole-run replay, to the per-file lookup
    for index in (tmp_path / "cache").rglob("*.json"):
        if index.name == "runs.json":
            index.unlink()
            continue
        document = json.loads(index.read_text())
        index.write_text(json.dumps({path: damage(entry) for path, entry in document.items()}))
    damaged = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    assert damaged.exit_code == 1
    assert json_findings(damaged) == json_findings(cold)
    # Types the run never reads whole cost nothing; the others are one warning.
    assert damaged.stderr == "" or re.fullmatch(
        rf"mcplint: warning: the cache in {re.escape(str(tmp_path / 'cache'))} was damaged \(\w+\); rebuilt it\n",
        damaged.stderr,
    )
    again = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    assert again.stderr == "" and json_findings(again) == json_findings(cold)


def test_a_deeply_nested_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "server.py").write_text(BAD_TOOL)
    cold = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    for index in (tmp_path / "cache").rglob("*.json"):
        index.write_text(DEEP_JSON)
    (tmp_path / "server.py").touch()
    damaged = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    assert damaged.exit_code == 1 and json_findings(damaged) == json_findings(cold)
    assert "was damaged (RecursionError); rebuilt it" in damaged.stderr


# -- the nesting pre-check --------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a = " + "[" * 100 + "]" * 100, None),
        ("a = " + "[" * 101 + "]" * 101, 1),
        ("x = 1\ny = {a = " + "[" * 100 + "]" * 100 + "}", 2),
        ('m = "' + "[" * 500 + '"', None),  # inside strings and comments brackets are text
        ("m = '" + "{" * 500 + "'", None),
        ('m = """\n' + "[" * 500 + '\n"""\nn = 1', None),
        ('m = "\\"' + "[" * 500 + '"', None),  # an escaped quote does not end the string
        ("# " + "[" * 500 + "\nk = 1", None),
        ('m = """a\nb"""\nk = ' + "[" * 101, 3),  # lines inside a multi-line string count
        ("[[domains]]\n[domains.x]\n" * 200, None),  # headers close on their line
    ],
)
def test_too_deep_counts_brackets_outside_strings_and_comments(text, line):
    from mcplint.toml_depth import too_deep

    assert too_deep(text) == line
