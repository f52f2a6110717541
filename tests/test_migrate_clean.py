"""A second `migrate` is clean and the registry a migration writes passes its own checks
(issue 12, item 8), on small projects that reproduce what the corpus showed.

Each project under tests/migrate_clean/ is copied, migrated with `--write`, then
migrated again (nothing to do, exit 0) and its registry checked (no REG finding).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_cli import run_cli

from mcplint.packaging.placement import place_helpers
from mcplint.registry.match import template_of

PROJECTS = Path(__file__).resolve().parent / "migrate_clean"


def migrated(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert result.exit_code == 0, result.stderr
    return root


@pytest.mark.parametrize("name", sorted(path.name for path in PROJECTS.iterdir() if path.is_dir()))
def test_a_second_migrate_finds_nothing_and_the_registry_passes_its_checks(tmp_path, name):
    root = migrated(tmp_path, name)
    again = run_cli("migrate", ".", cwd=root)
    assert again.exit_code == 0, again.stderr
    assert "mcplint: nothing to migrate" in again.stderr
    if (root / "mcp-errors.toml").exists():  # none when there was nothing to migrate (text_helper)
        checked = run_cli("registry", "check", "mcp-errors.toml", cwd=root)
        assert checked.exit_code == 0, checked.output


# -- the helpers module of a migration that needs no entry ------------------------------------
def test_a_migration_without_entries_names_a_helpers_module_the_wheel_ships(tmp_path):
    """analytics-mcp: the one rewrite (the exception's text in an isError result becomes its
    type's name) needs no entry, so no site placed the helpers; the registry named a top-level
    `mcp_errors` that setuptools does not ship, and the next run refused it."""
    root = migrated(tmp_path, "no_entry")
    assert 'helpers-module = "acme_tools.errors"' in (root / "mcp-errors.toml").read_text()
    assert "{type(e).__name__}" in (root / "acme_tools" / "server.py").read_text()


def test_without_a_site_the_helpers_join_the_shipped_package_with_most_modules(tmp_path):
    files = {
        "pyproject.toml": '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "acme"\nversion = "1"\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
        "src/small/__init__.py": "",
        "src/big/__init__.py": "",
        "src/big/a.py": "",
        "src/big/b.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    placed = place_helpers(tmp_path, [], lambda path: not path.exists())
    assert placed is not None and (placed.module, placed.path) == ("big.errors", tmp_path / "src/big/errors.py")
    (tmp_path / "pyproject.toml").unlink()  # no build configuration: any importable place will do
    assert place_helpers(tmp_path, [], lambda path: not path.exists()) is None


# -- placeholders named like the helper's keywords ---------------------------------------------
def test_a_placeholder_named_like_a_helper_keyword_is_renamed(tmp_path):
    """mfa-servicenow-mcp: `f"... '{ref}'.{hint} Or pass its sys_id."` became an entry with
    metadata `hint`, the helper's own keyword (REG003): `hint=` would add a hint, not fill it."""
    import libcst as cst

    expression = cst.parse_expression("f\"No record '{ref}'.{hint} {details} {retry_after_ms} {hint_value}\"")
    assert template_of(expression) == "No record '{ref}'.{hint_value} {details_value} {retry_after_ms_value} {hint_value_4}"
    root = migrated(tmp_path, "helper_keywords")
    server = (root / "acme_flows" / "server.py").read_text()
    assert "ref=ref, hint_value=hint" in server
    assert 'acme_flows_error("THE_FLOW_NOTES_ARE_TOO_LONG", details_value=details)' in server


# -- the project's own validation message passed on ---------------------------------------------
def test_a_clause_passing_on_its_own_trys_validation_message_is_left_with_the_reason(tmp_path):
    """mcp-clickhouse: `raise ValueError("... must be http or https ...")` inside the `try`,
    `except ValueError as exc: raise ToolError(str(exc))`: the client was told the project's own
    validation message (its tests match on it). A registry entry ("Resolve client config failed")
    or the type's name would lose it: the site is left. MCP006 does not report it at all (the
    `try` raises `ValueError` only with messages of its own); MCP001's error dict is left with
    the reason. An OS error's text in the same module is a leak and is still rewritten."""
    root = tmp_path / "own_validation"
    shutil.copytree(PROJECTS / "own_validation", root)
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert result.exit_code == 0, result.stderr
    server = (root / "acme_db" / "server.py").read_text()
    assert "    except ValueError as exc:\n        raise ToolError(str(exc)) from exc\n" in server
    assert 'raise acme_db_error("COULD_NOT_READ_THE_SCHEMA") from exc' in server
    line = server.splitlines().index("        raise ToolError(str(exc)) from exc") + 1  # as migrated
    assert f"acme_db/server.py:{line}: MCP006" not in result.stderr
    assert "RESOLVE_CLIENT_CONFIG" not in (root / "mcp-errors.toml").read_text()
    # The same text returned as an error dict: neither MCP001's registry error nor MCP006's
    # type name replaces it.
    assert '    except ValueError as exc:\n        return {"error": str(exc)}\n' in server
    returned = server.splitlines().index('        return {"error": str(exc)}') + 1
    assert f"acme_db/server.py:{returned}: MCP001 the `except ValueError` passes on" in result.stderr
    assert f"acme_db/server.py:{returned}: MCP006" not in result.stderr


# -- the reason a site is left ---------------------------------------------------------------------
def test_exception_text_from_an_imported_helper_is_left_with_the_helper_named(tmp_path):
    """opensearch-mcp-server (38 sites), astro-airflow-mcp: `return log_tool_error(..., e, ...)`
    was left "where no registry error fits (a notification, print)", which was not the reason."""
    root = tmp_path / "text_helper"
    shutil.copytree(PROJECTS / "text_helper", root)
    result = run_cli("migrate", "--stat", ".", cwd=root)
    assert (
        "acme_search/server.py:20: MCP006 the text comes from `tool_failure(...)`, which puts the "
        "exception's text in what it returns: change it there"
    ) in result.stderr
