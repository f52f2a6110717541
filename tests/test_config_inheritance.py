"""Config: `extend` inheritance, every problem reported at once, excludes from the command line."""

from __future__ import annotations

import textwrap
from pathlib import Path

from test_cli import BAD_TOOL, json_findings, run_cli

from mcplint.config import CliOverrides, ConfigResolver


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_extend_inherits_and_overrides(tmp_path):
    _write(
        tmp_path / "pyproject.toml",
        """\
        [tool.mcplint]
        ignore = ["MCP001"]
        extend-exclude = ["generated/"]
        cache-dir = ".shared-cache"
        """,
    )
    _write(
        tmp_path / "service" / "pyproject.toml",
        """\
        [tool.mcplint]
        extend = "../pyproject.toml"
        extend-exclude = ["legacy/"]
        """,
    )
    _write(tmp_path / "service" / "server.py", BAD_TOOL)
    _write(tmp_path / "service" / "legacy" / "old.py", BAD_TOOL)
    _write(tmp_path / "service" / "generated" / "gen.py", BAD_TOOL)
    findings = json_findings(run_cli("check", "--format", "json", ".", cwd=tmp_path / "service"))
    # MCP001 ignored by the extended file; both files' excludes apply.
    assert [(f["filename"], f["code"]) for f in findings] == [("server.py", "MCP002")]

    config = ConfigResolver(CliOverrides(), cwd=tmp_path / "service").config_for(tmp_path / "service" / "server.py")
    assert config.root == (tmp_path / "service").absolute()
    assert config.cache_dir == tmp_path / ".shared-cache"  # relative to the file that sets it
    assert config.extend_exclude == ["generated/", "legacy/"]
    assert config.sources["ignore"] == f"{tmp_path / 'pyproject.toml'}:2"
    assert config.sources["extend-exclude"] == f"{tmp_path}/pyproject.toml:3 + {tmp_path}/service/pyproject.toml:3"


def test_the_extending_file_wins(tmp_path):
    _write(tmp_path / "base.toml", 'ignore = ["MCP001"]\n')
    _write(tmp_path / "app" / "mcplint.toml", 'extend = "../base.toml"\nselect = ["MCP001"]\n')
    _write(tmp_path / "app" / "server.py", BAD_TOOL)
    findings = json_findings(run_cli("check", "--format", "json", ".", cwd=tmp_path / "app"))
    assert [f["code"] for f in findings] == ["MCP001"]
    # Selection applies in layers, as in ruff: an `ignore` here adds to the extended file's.
    _write(tmp_path / "app" / "mcplint.toml", 'extend = "../base.toml"\nignore = ["MCP002"]\n')
    assert json_findings(run_cli("check", "--format", "json", ".", cwd=tmp_path / "app")) == []


def test_an_extend_cycle_is_a_config_error(tmp_path):
    _write(tmp_path / "a" / "mcplint.toml", 'extend = "../b/mcplint.toml"\n')
    _write(tmp_path / "b" / "mcplint.toml", 'select = ["ALL"]\nextend = "../a/mcplint.toml"\n')
    _write(tmp_path / "a" / "server.py", BAD_TOOL)
    result = run_cli("check", ".", cwd=tmp_path / "a")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    a, b = (tmp_path / "a" / "mcplint.toml").resolve(), (tmp_path / "b" / "mcplint.toml").resolve()
    assert line.startswith(f"mcplint: error: {b}:2: 'extend' makes a cycle: ")
    assert line.endswith(f"{a} -> {b} -> {a}")


def test_extend_of_a_missing_file(tmp_path):
    _write(tmp_path / "mcplint.toml", 'extend = "../nowhere.toml"\n')
    _write(tmp_path / "server.py", BAD_TOOL)
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.exit_code == 2
    config = tmp_path / "mcplint.toml"
    assert result.stderr == f"mcplint: error: {config}:1: 'extend': ../nowhere.toml: no such config file\n"


def test_every_unknown_key_is_reported(tmp_path):
    _write(
        tmp_path / "pyproject.toml",
        """\
        [tool.mcplint]
        selct = ["MCP001"]
        ignore = ["MCP002"]
        exlude = ["build"]
        colour = "never"
        """,
    )
    _write(tmp_path / "server.py", BAD_TOOL)
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.exit_code == 2
    config = tmp_path / "pyproject.toml"
    assert result.stderr.splitlines() == [
        f"mcplint: error: {config}:2: unknown key 'selct' in [tool.mcplint] (did you mean 'select'?)",
        f"mcplint: error: {config}:4: unknown key 'exlude' in [tool.mcplint] (did you mean 'exclude'?)",
        f"mcplint: error: {config}:5: unknown key 'colour' in [tool.mcplint]",
    ]


def test_exclude_and_extend_exclude_on_the_command_line(tmp_path):
    _write(tmp_path / "mcplint.toml", 'exclude = ["vendored"]\n')
    for directory in ("app", "vendored", "legacy", "scripts/tools"):
        _write(tmp_path / directory / "server.py", BAD_TOOL)

    def linted(*options: str) -> set[str]:
        result = run_cli("check", "--format", "json", *options, ".", cwd=tmp_path)
        return {finding["filename"].split("/server.py")[0] for finding in json_findings(result)}

    assert linted() == {"app", "legacy", "scripts/tools"}
    assert linted("--extend-exclude", "legacy") == {"app", "scripts/tools"}
    # --exclude replaces the config's exclude (vendored comes back); comma-separated or repeated.
    assert linted("--exclude", "legacy, app") == {"vendored", "scripts/tools"}
    assert linted("--exclude", "legacy", "--exclude", "scripts/tools/") == {"app", "vendored"}


def test_every_unknown_rule_option_is_reported_with_the_unknown_keys(tmp_path):
    _write(
        tmp_path / "mcplint.toml",
        """\
        colour = "never"

        [rules.MCP002]
        bultins = ["ValueError"]

        [rules.MCP777]
        x = 1
        """,
    )
    result = run_cli("check", ".", cwd=tmp_path)
    assert result.exit_code == 2
    assert [line.split(": ", 3)[3] for line in result.stderr.splitlines()] == [
        "unknown key 'colour' in mcplint.toml",
        "unknown option 'bultins' for MCP002 (known: builtins)",
        "unknown rule 'MCP777' in rules options",
    ]
