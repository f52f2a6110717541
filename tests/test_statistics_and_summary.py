"""`--statistics` as ruff prints it, and a summary that never hides what it hid."""

from __future__ import annotations

import textwrap

from test_cli import BAD_TOOL, run_cli

# MCP009's fix is safe: a stale suppression gives the statistics a fixable row.
STALE_SUPPRESSION = BAD_TOOL + "\n\nx = 1  # mcplint: ignore[MCP001]\n"


def test_statistics_mark_fixable_codes_and_end_with_the_total(tmp_path):
    (tmp_path / "server.py").write_text(STALE_SUPPRESSION)
    result = run_cli("check", "--statistics", "server.py", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.stdout == textwrap.dedent(
        """\
        1\tMCP001\t[ ] bare-error-return
        1\tMCP002\t[ ] raw-exception-raise
        1\tMCP009\t[*] unused-suppression
        Found 3 errors.
        [*] 1 fixable with the `--fix` option.
        """
    )


def test_statistics_width_and_order(tmp_path):
    for index in range(10):
        (tmp_path / f"server_{index}.py").write_text(BAD_TOOL)
    (tmp_path / "server_x.py").write_text(BAD_TOOL.replace('return {"error": "Note not found"}', "raise KeyError(1)"))
    (tmp_path / "stale.py").write_text("x = 1  # mcplint: ignore[MCP001]\n")
    lines = run_cli("check", "--statistics", ".", cwd=tmp_path).stdout.splitlines()
    assert lines[:4] == [
        "12\tMCP002\t[ ] raw-exception-raise",
        "10\tMCP001\t[ ] bare-error-return",
        " 1\tMCP009\t[*] unused-suppression",
        "Found 23 errors.",
    ]


def test_statistics_quiet_prints_rows_only(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--statistics", "--quiet", "server.py", cwd=tmp_path)
    assert result.stdout == "1\tMCP001\tbare-error-return\n1\tMCP002\traw-exception-raise\n"


def test_a_baselined_run_says_what_the_baseline_hid(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    assert run_cli("check", "--write-baseline", "base.json", "server.py", cwd=tmp_path).exit_code == 0
    clean = run_cli("check", "--baseline", "base.json", "server.py", cwd=tmp_path)
    assert clean.exit_code == 0
    assert clean.stdout == "No new errors; 2 more hidden by the baseline.\n"
    assert "All checks passed!" not in clean.stdout

    (tmp_path / "server.py").write_text(BAD_TOOL + "\n\n@mcp.tool()\ndef other() -> str:\n    raise KeyError('x')\n")
    new = run_cli("check", "--baseline", "base.json", "--no-show-source", "server.py", cwd=tmp_path)
    assert new.exit_code == 1
    assert new.stdout.splitlines()[-1] == "Found 1 error; 2 more hidden by the baseline."
    statistics = run_cli("check", "--baseline", "base.json", "--statistics", "server.py", cwd=tmp_path)
    assert statistics.stdout.splitlines()[-1] == "Found 1 error; 2 more hidden by the baseline."


def test_all_checks_passed_only_when_nothing_was_found_or_hidden(tmp_path):
    (tmp_path / "server.py").write_text("x = 1\n")
    assert run_cli("check", "server.py", cwd=tmp_path).stdout == "All checks passed!\n"
    assert run_cli("check", "--write-baseline", "base.json", "server.py", cwd=tmp_path).exit_code == 0
    assert run_cli("check", "--baseline", "base.json", "server.py", cwd=tmp_path).stdout == "All checks passed!\n"
