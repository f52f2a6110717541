"""`mcplint migrate`'s report (issue 12, item 7): --stat, --report FILE.md, --select/--ignore,
symbols per domain, and the README's shown report against a real run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_cli import run_cli

DEMO = Path(__file__).resolve().parent / "migrate_demo"
README = Path(__file__).resolve().parent.parent / "README.md"
README_ROOT = "/tmp/demo"  # where the README's run was made


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    shutil.copytree(DEMO, tmp_path / "demo")
    return tmp_path / "demo"


def test_stat_prints_the_summary_and_a_line_per_file_instead_of_the_diff(demo):
    result = run_cli("migrate", "--stat", ".", cwd=demo)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "  docs_server/server.py: 3 site(s) rewritten, +10 -3" in result.stderr.splitlines()
    assert "  docs_server: 3 symbol(s), codes 1000-1099" in result.stderr.splitlines()
    plain = run_cli("migrate", ".", cwd=demo)
    assert "+++ docs_server/server.py" in plain.stdout
    assert "  docs_server/server.py: 3 site(s) rewritten, +10 -3" not in plain.stderr  # the diff says it


def test_the_markdown_report_has_the_rules_the_domains_the_files_and_every_site_left(demo):
    result = run_cli("migrate", "--stat", "--report", "report.md", ".", cwd=demo)
    assert result.exit_code == 1
    report = (demo / "report.md").read_text()
    assert "| MCP001 | 3 | 2 | 1 |" in report
    assert "| MCP002 | 1 | 1 | 0 |" in report
    assert "### docs_server (3, codes 1000–1099)" in report
    assert "| `DOCUMENT_IS_LONGER_THAN_10000_CHARACTERS` | 1002 | Document {key} is longer than 10000 characters |" in report
    assert "| `docs_server/server.py` | 3 | 10 | 3 |" in report
    assert "## Left for a human: 1" in report
    left = result.stderr.split("left for a human (1; lines of the migrated files):\n", 1)[1].splitlines()[0]
    assert left == "docs_server/server.py:15: MCP001 a `try` of its function would catch a raise there"
    assert f"```text\n{left}\n```" in report
    assert not (demo / "mcp-errors.toml").exists()  # still a dry run


def test_the_report_is_written_with_write_too(demo):
    assert run_cli("migrate", "--write", "--report", "report.md", ".", cwd=demo).exit_code == 0
    assert "| MCP002 | 1 | 1 | 0 |" in (demo / "report.md").read_text()


def test_a_report_that_cannot_be_written_is_a_one_line_error(demo):
    result = run_cli("migrate", "--report", "pyproject.toml/report.md", ".", cwd=demo)  # a file, not a directory
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith("mcplint: error: pyproject.toml/report.md: cannot write the report:")


def test_select_migrates_only_the_rules_it_names(demo):
    result = run_cli("migrate", "--select", "MCP002", ".", cwd=demo)
    assert result.exit_code == 1
    rules = [line.split()[0] for line in result.stderr.splitlines() if re.match(r"MCP0\d\d ", line)]
    assert rules == ["MCP002"]
    assert '-        raise ValueError(f"Document {key} is longer than 10000 characters")' in result.stdout
    assert '-        return {"error": "A key is required"}' not in result.stdout
    assert "A_KEY_IS_REQUIRED" not in result.stdout  # no registry entry for a rule not migrated


def test_ignore_takes_rules_away_as_check_s_does_prefixes_included(demo):
    result = run_cli("migrate", "--ignore", "MCP002,MCP005", "--ignore", "MCP00", "--select", "MCP", ".", cwd=demo)
    assert result.exit_code == 2
    assert "leave no rule to migrate" in result.stderr
    ignored = run_cli("migrate", "--ignore", "MCP002", ".", cwd=demo)
    assert "-        raise ValueError" not in ignored.stdout
    assert '-        return {"error": "A key is required"}' in ignored.stdout


def test_an_unknown_selector_is_a_one_line_error(demo):
    result = run_cli("migrate", "--select", "XYZ1", ".", cwd=demo)
    assert result.exit_code == 2
    assert result.stderr.strip() == "mcplint: error: unknown rule selector 'XYZ1'"


def _readme_report() -> tuple[str, str]:
    """The README's example report: its command line and what it printed."""
    block = re.search(r"<!-- migrate-report -->\n```text\n\$ (.*?)\n(.*?)```", README.read_text(), re.DOTALL)
    assert block is not None, "README: the migration section's report example is gone"
    return block.group(1), block.group(2)


def test_the_readme_s_report_is_what_a_real_run_prints(demo):
    command, shown = _readme_report()
    arguments = command.split()
    assert arguments[:2] == ["mcplint", "migrate"]
    result = run_cli(*arguments[1:], cwd=demo)
    assert result.stderr.replace(str(demo), README_ROOT) == shown
