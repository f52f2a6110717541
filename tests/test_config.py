"""``[tool.mcplint]`` / ``mcplint.toml``: discovery, validation, per-file settings."""

from __future__ import annotations

import json
import textwrap

import pytest
from test_cli import BAD_TOOL, json_findings, run_cli


@pytest.fixture
def project(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    return tmp_path


def codes(result):
    return [finding["code"] for finding in json_findings(result)]


def test_pyproject_select(project):
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.mcplint]\nselect = ["MCP001"]\n')
    assert codes(run_cli("check", "--format", "json", ".", cwd=project)) == ["MCP001"]


def test_mcplint_toml_wins_over_pyproject_in_the_same_directory(project):
    (project / "pyproject.toml").write_text('[tool.mcplint]\nselect = ["MCP001"]\n')
    (project / "mcplint.toml").write_text('ignore = ["MCP001"]\n')
    assert codes(run_cli("check", "--format", "json", ".", cwd=project)) == ["MCP002"]


def test_closest_config_applies_to_each_file(project):
    (project / "pyproject.toml").write_text('[tool.mcplint]\nignore = ["MCP002"]\n')
    nested = project / "legacy"
    nested.mkdir()
    (nested / "server.py").write_text(BAD_TOOL)
    (nested / "mcplint.toml").write_text('ignore = ["MCP001"]\n')
    findings = json_findings(run_cli("check", "--format", "json", ".", cwd=project))
    assert [(f["filename"], f["code"]) for f in findings] == [
        ("legacy/server.py", "MCP002"),
        ("server.py", "MCP001"),
    ]


def test_pyproject_without_mcplint_table_is_skipped(project):
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n')
    parent_config = project.parent / "mcplint.toml"
    assert not parent_config.exists()
    assert codes(run_cli("check", "--format", "json", ".", cwd=project)) == ["MCP002", "MCP001"]


def test_cli_select_overrides_config(project):
    (project / "mcplint.toml").write_text('select = ["MCP001"]\n')
    assert codes(run_cli("check", "--format", "json", "--select", "MCP002", ".", cwd=project)) == ["MCP002"]


def test_explicit_config_file(project):
    (project / "custom.toml").write_text('ignore = ["MCP002"]\n')
    result = run_cli("check", "--format", "json", "--config", "custom.toml", ".", cwd=project)
    assert codes(result) == ["MCP001"]


def test_unknown_key_stops_with_file_line_and_suggestion(project):
    (project / "pyproject.toml").write_text('[tool.mcplint]\nselect = ["MCP001"]\nignroe = ["MCP002"]\n')
    result = run_cli("check", ".", cwd=project)
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(
        "pyproject.toml:3: unknown key 'ignroe' in [tool.mcplint] (did you mean 'ignore'?)"
    )
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('select = "MCP001"\n', "mcplint.toml:1: 'select' must be a list of strings"),
        ('select = ["MCP9"]\n', "mcplint.toml:1: 'select': unknown rule selector 'MCP9'"),
        ("select = [\n", "mcplint.toml:2: invalid TOML"),
        ('[rules.MCP002]\nbuiltin = ["ValueError"]\n', "mcplint.toml:2: unknown option 'builtin' for MCP002"),
        ('[rules.MCP002]\nbuiltins = "ValueError"\n', "mcplint.toml:2: option 'builtins' of MCP002 must be a list"),
        ('[per-file-ignores]\n"tests/*" = ["XYZ1"]\n', "mcplint.toml:2: per-file-ignores 'tests/*'"),
    ],
)
def test_invalid_config_values(project, content, message):
    (project / "mcplint.toml").write_text(content)
    result = run_cli("check", ".", cwd=project)
    assert result.exit_code == 2
    assert message in result.stderr


def test_rule_options_reach_the_rule(project):
    (project / "mcplint.toml").write_text('[rules.MCP002]\nbuiltins = ["RuntimeError"]\n')
    assert codes(run_cli("check", "--format", "json", ".", cwd=project)) == ["MCP001"]


def test_per_file_ignores(project):
    (project / "tools").mkdir()
    (project / "tools" / "legacy.py").write_text(BAD_TOOL)
    (project / "mcplint.toml").write_text('[per-file-ignores]\n"tools/*.py" = ["MCP001"]\n')
    findings = json_findings(run_cli("check", "--format", "json", ".", cwd=project))
    assert [(f["filename"], f["code"]) for f in findings] == [
        ("server.py", "MCP002"),
        ("server.py", "MCP001"),
        ("tools/legacy.py", "MCP002"),
    ]


def test_handler_decorators_option(tmp_path):
    (tmp_path / "app.py").write_text(
        textwrap.dedent(
            """\
            from registry import register_tool

            @register_tool
            def lookup(key):
                raise ValueError("missing")
            """
        )
    )
    assert codes(run_cli("check", "--format", "json", ".", cwd=tmp_path)) == []
    (tmp_path / "mcplint.toml").write_text('handler-decorators = ["registry.register_tool"]\n')
    assert codes(run_cli("check", "--format", "json", ".", cwd=tmp_path)) == ["MCP002"]


def test_handler_functions_option(tmp_path):
    (tmp_path / "handlers.py").write_text('def handle_lookup(args):\n    raise KeyError("k")\n')
    (tmp_path / "mcplint.toml").write_text('handler-functions = ["handle_*"]\n')
    findings = json_findings(run_cli("check", "--format", "json", ".", cwd=tmp_path))
    assert [(f["code"], f["handler"]) for f in findings] == [("MCP002", "handle_lookup")]
    assert json.dumps(findings)  # plain data
