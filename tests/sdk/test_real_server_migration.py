"""`mcplint migrate --write` on two real MCP servers from the pinned corpus, proven with the SDK's own client.

Each package's sdist is fetched from PyPI, installed with its dependencies into
a venv of its own (real_servers.py), copied and migrated in place. Then: every
file still parses, a second migrate finds nothing, the findings drop by exactly
the rewritten sites, the migrated package imports, and a tool call driven into
the error path of a rewritten site (offline and deterministic) is answered, in
process and over the SDK's in-memory streams (real_server_client.py), by the
migrated code. The same call against the installed original is pinned too, so
the gain shows.

Why these two: in the corpus they are the only packages, one per server style,
where migrate rewrites a site that an offline, deterministic call reaches and
whose value goes straight back to the client:

- **pymupdf4llm-mcp** (mcp 1.x ``FastMCP``, ``@mcp.tool()``): a missing file
  was a *successful* ``{"error": ..., "success": False}``; migrated, it is an
  ``isError`` result with the registry's code, symbol and retryable. (Its tool is
  ``-> dict[str, Any]``; pdf-tools-mcp's and mcp-server's are ``-> str``, and
  mcp 1.x FastMCP rejects a ``tool_result()`` from those by output validation.)
- **cli-mcp-server** (mcp 1.x low-level ``Server``, ``@server.call_tool()``): an
  unknown tool name reaches ``raise ValueError(f"Unknown tool: {name}")`` in the
  dispatcher itself, which migrate turns into ``return
  cli_mcp_server_error("UNKNOWN_TOOL", name=name).tool_result()``: the original's
  raise reached the client as bare text (the low-level server sends ``str(e)``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from real_servers import RealServer, call_tool, sdist_tree, venv_dir

from mcplint.registry import load_registry

pytestmark = pytest.mark.slow

MCP_PIN = "mcp==1.30.0"  # both packages are written for mcp 1.x; the newest 1.x, as in sdk_venvs
SITE_CODES = ("MCP001", "MCP002")
MISSING_PDF = "/nonexistent/missing.pdf"


@dataclass(frozen=True)
class Case:
    server: RealServer
    tool: str
    arguments: dict[str, Any]
    error_site: str  # source text of the site the call's error goes through; migrate rewrites it
    symbol: str  # the registry symbol migrate makes for that site
    message: str  # what that entry's message says for this call
    before: dict[str, Any] = field(repr=False)  # what the client got from the original


CASES = {
    case.server.name: case
    for case in (
        Case(
            RealServer(
                "pymupdf4llm-mcp", "1.28.0", pins=(MCP_PIN,), source_dir=".", server_object="pymupdf4llm_mcp.app:mcp"
            ),
            tool="convert_pdf_to_markdown",
            arguments={"file_path": MISSING_PDF},
            error_site='"error": f"File not found: {file_path}",',
            symbol="FILE_NOT_FOUND",
            message=f"File not found: {MISSING_PDF}",
            # A fake success: the error is only a key of the structured content.
            before={
                "isError": False,
                "structuredContent": {"error": f"File not found: {MISSING_PDF}", "success": False},
            },
        ),
        Case(
            RealServer(
                "cli-mcp-server",
                "0.2.5",
                pins=(MCP_PIN,),
                source_dir="src",
                server_object="cli_mcp_server.server:server",
                # The module builds its executor at import time, from an existing ALLOWED_DIR.
                environment=(("ALLOWED_DIR", "."),),
            ),
            tool="no_such_tool",
            arguments={},
            error_site='raise ValueError(f"Unknown tool: {name}")',
            symbol="UNKNOWN_TOOL",
            message="Unknown tool: no_such_tool",
            # The low-level server sends str(e) of whatever the handler raised.
            before={"isError": True, "structuredContent": None, "content": ["Unknown tool: no_such_tool"]},
        ),
    )
}
NAMES = list(CASES)


@dataclass
class Migration:
    case: Case
    pristine: Path  # the unpacked sdist, never changed
    copy: Path  # the migrated copy
    findings_before: list[dict[str, Any]]
    findings_after: list[dict[str, Any]]
    summary: str  # migrate --write's stderr
    second_run: subprocess.CompletedProcess[str]
    client_before: dict[str, Any]
    client_after: dict[str, Any]

    def rewritten(self) -> dict[str, int]:
        return {code: int(fixed) for code, _, fixed, _ in _summary_rows(self.summary)}

    def left(self) -> dict[str, int]:
        return {code: int(left) for code, _, _, left in _summary_rows(self.summary)}


def _summary_rows(summary: str) -> list[tuple[str, ...]]:
    """The table's rows: (rule, sites, rewritten, left for a human)."""
    return re.findall(r"^(MCP00[12])\s+(\d+)\s+(\d+)\s+(\d+)$", summary, re.MULTILINE)


def mcplint(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "MCPLINT_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "mcplint", *args], cwd=cwd, env=environment, capture_output=True, text=True, timeout=600
    )


def site_findings(directory: Path, cache: Path) -> list[dict[str, Any]]:
    completed = mcplint("check", "--select", ",".join(SITE_CODES), "--format", "json", ".", cwd=directory, cache=cache)
    assert completed.returncode in (0, 1), completed.stderr
    return json.loads(completed.stdout)


def site_key(finding: dict[str, Any], tree: Path) -> tuple[str, str, str]:
    """A finding by its code, file and source text (spacing collapsed): stable when
    migrate's added imports shift the line numbers."""
    lines = (tree / finding["filename"]).read_text(encoding="utf-8").splitlines()
    span = lines[finding["location"]["row"] - 1 : finding["end_location"]["row"]]
    return finding["code"], finding["filename"], " ".join(" ".join(span).split())


def migrate(case: Case, workspace: Path) -> Migration:
    pristine = sdist_tree(case.server)
    copy = workspace / pristine.name
    shutil.copytree(pristine, copy)
    cache = workspace / "mcplint-cache"
    client_before = call_tool(case.server, case.tool, case.arguments, source=None, cwd=workspace)
    findings_before = site_findings(copy, cache)
    written = mcplint("migrate", "--write", cwd=copy, cache=cache)
    assert written.returncode == 0, written.stdout + written.stderr
    return Migration(
        case=case,
        pristine=pristine,
        copy=copy,
        findings_before=findings_before,
        findings_after=site_findings(copy, cache),
        summary=written.stderr,
        second_run=mcplint("migrate", cwd=copy, cache=cache),
        client_before=client_before,
        client_after=call_tool(case.server, case.tool, case.arguments, source=copy, cwd=workspace),
    )


_migrations: dict[str, Migration] = {}


@pytest.fixture(scope="module")
def migration(tmp_path_factory):
    """``migration(name)``: the package migrated and called, once per module."""

    def get(name: str) -> Migration:
        if name not in _migrations:
            _migrations[name] = migrate(CASES[name], tmp_path_factory.mktemp(name))
        return _migrations[name]

    return get


@pytest.mark.parametrize("name", NAMES)
def test_every_file_still_parses(migration, name):
    result = migration(name)
    for path in result.copy.rglob("*.py"):
        ast.parse(path.read_bytes(), filename=str(path))


@pytest.mark.parametrize("name", NAMES)
def test_a_second_migrate_has_nothing_to_do(migration, name):
    second = migration(name).second_run
    assert second.returncode == 0, second.stdout + second.stderr
    assert "nothing to migrate" in second.stderr


@pytest.mark.parametrize("name", NAMES)
def test_the_findings_left_are_exactly_the_ones_not_rewritten(migration, name):
    result = migration(name)
    found = Counter(finding["code"] for finding in result.findings_before)
    assert {code: int(sites) for code, sites, _, _ in _summary_rows(result.summary)} == {
        code: found[code] for code in SITE_CODES
    }
    assert sum(result.rewritten().values()) >= 1
    left = Counter(finding["code"] for finding in result.findings_after)
    assert {code: left[code] for code in SITE_CODES} == result.left()
    # No finding moved or appeared: each one left was there, on the same line of text, before.
    before = Counter(site_key(finding, result.pristine) for finding in result.findings_before)
    after = Counter(site_key(finding, result.copy) for finding in result.findings_after)
    assert after <= before
    assert sum((before - after).values()) == sum(result.rewritten().values())


@pytest.mark.parametrize("name", NAMES)
def test_the_called_site_was_rewritten_into_a_registry_entry(migration, name):
    result = migration(name)
    case = result.case
    sites_before = [text for _, _, text in (site_key(f, result.pristine) for f in result.findings_before)]
    assert any(case.error_site in text for text in sites_before)
    migrated_text = "".join(path.read_text(encoding="utf-8") for path in result.copy.rglob("*.py"))
    assert case.error_site not in migrated_text
    registry = load_registry(str(result.copy / "mcp-errors.toml"))
    assert case.symbol in {entry.symbol for entry in registry.errors}
    created = int(re.search(r"symbols created: (\d+)", result.summary).group(1))
    assert len(registry.errors) == created


@pytest.mark.parametrize("name", NAMES)
def test_each_run_imports_the_intended_copy(migration, name):
    """The migrated package imports in the package's venv, from the copy; the
    original's call came from the installed package."""
    result = migration(name)
    assert Path(result.client_after["module_file"]).is_relative_to(result.copy)
    assert Path(result.client_before["module_file"]).is_relative_to(venv_dir(result.case.server))


@pytest.mark.parametrize("name", NAMES)
def test_what_the_original_answered(migration, name):
    result = migration(name)
    record = result.client_before["record"]
    assert record["kind"] == "result"
    assert {key: record[key] for key in result.case.before} == result.case.before


@pytest.mark.parametrize("name", NAMES)
def test_the_client_gets_the_registered_error(migration, name):
    """The key proof: an isError result carrying the registry's code, symbol and retryable."""
    result = migration(name)
    record = result.client_after["record"]
    assert record["kind"] == "result" and record["isError"] is True
    entry = registry_entry(result)
    error = (record["structuredContent"] or {}).get("error")
    assert error is not None, record
    assert (error["code"], error["symbol"], error["retryable"]) == (entry.code, entry.symbol, entry.retryable)
    assert error["message"] == result.case.message
    # The text form first (for clients that show only text), then the structure as JSON.
    text_form, payload = record["content"]
    assert text_form.startswith(f"{entry.symbol} ({entry.code}): {result.case.message}\n")
    assert json.loads(payload) == record["structuredContent"]


@pytest.mark.parametrize("name", NAMES)
def test_the_client_sees_the_registry_message_and_no_exception_text(migration, name):
    result = migration(name)
    record = result.client_after["record"]
    assert record["kind"] == "result" and record["isError"] is True
    constant_parts = re.split(r"\{\w+\}", registry_entry(result).message)
    assert re.fullmatch(".+".join(map(re.escape, constant_parts)), result.case.message)
    text = "\n".join(record["content"])
    assert result.case.message in text
    for leak in ("Traceback", 'File "', "Error:", "ValueError", "FileNotFoundError", "validation error"):
        assert leak not in text


def registry_entry(result: Migration):
    registry = load_registry(str(result.copy / "mcp-errors.toml"))
    (entry,) = (entry for entry in registry.errors if entry.symbol == result.case.symbol)
    return entry
