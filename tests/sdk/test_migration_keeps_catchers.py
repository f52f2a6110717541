"""A migration keeps the server's own callers working (issue 12, item 1), proven on mcp 1.x.

A small FastMCP project validates its input in the server's module, in a
function the tool calls (`raise ValueError(...)`); another module catches that
`ValueError` to skip a bad item, and the project's own test asserts
`pytest.raises(ValueError)`. After `mcplint migrate --write` the raise is the
registry's error, and in the SDK's venv: the catcher still catches it, the
project's test still passes, and the SDK's own client gets the registry's error
(the same as a plain `raise helper(...)`: `.caught_as(ValueError)` does not
change the wire form). Library code (item 3): `shop/units.py` imports no MCP
framework; its `ValueError` stays one, and the tool that calls it maps it to
the registry's error, which the client gets.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from real_servers import CLIENT_SCRIPT
from sdk_venvs import STACKS_BY_NAME, venv_python
from test_cli import run_cli

pytestmark = pytest.mark.slow

FILES = {
    "shop/__init__.py": "",
    "shop/units.py": """\
        def to_metres(unit: str) -> float:
            if unit not in ("m", "km"):
                raise ValueError(f"Unknown unit: {unit}")
            return 1000.0 if unit == "km" else 1.0
        """,
    "shop/batch.py": """\
        from shop.server import parse_limit


        def valid_limits(values: list[str]) -> list[int]:
            found = []
            for value in values:
                try:
                    found.append(parse_limit(value))
                except ValueError:  # a bad item is skipped, not the whole batch
                    continue
            return found
        """,
    "shop/server.py": """\
        from mcp.server.fastmcp import FastMCP

        from shop.units import to_metres

        mcp = FastMCP("shop")


        def parse_limit(value: str) -> int:
            if not value.isdigit():
                raise ValueError(f"Invalid limit: {value}")
            return int(value)


        @mcp.tool()
        def search(limit: str) -> str:
            return f"{parse_limit(limit)} results"


        @mcp.tool()
        def distance(value: float, unit: str) -> str:
            factor = to_metres(unit)
            return f"{value * factor} m"
        """,
    "test_shop.py": """\
        import pytest

        from shop.batch import valid_limits
        from shop.server import distance, parse_limit
        from shop.units import to_metres


        def test_a_bad_limit_is_a_value_error():
            with pytest.raises(ValueError):
                parse_limit("ten")


        def test_a_bad_unit_is_a_value_error_in_the_library_and_in_the_tool():
            with pytest.raises(ValueError):
                to_metres("mile")
            with pytest.raises(ValueError):
                distance(3.0, "mile")


        def test_a_batch_skips_bad_limits():
            assert valid_limits(["1", "x", "3"]) == [1, 3]
        """,
}
# The SDK venvs have no pytest: this run's own, found after everything the venv has.
PROJECT_TESTS = """\
import sys

sys.path.append({site!r})
import pytest

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "test_shop.py"]))
"""


def environment(root: Path) -> dict[str, str]:
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("MCP_ERROR", "PYTHON"))}
    return {**clean, "PYTHONPATH": str(root)}


def run_project_tests(root: Path) -> subprocess.CompletedProcess[str]:
    (root / "run_tests.py").write_text(PROJECT_TESTS.format(site=str(Path(pytest.__file__).parents[1])))
    return subprocess.run(
        [str(venv_python(STACKS_BY_NAME["mcp1"])), "run_tests.py"],
        cwd=root,
        env=environment(root),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("shop")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    result = run_cli("migrate", "--write", "shop", cwd=root)
    assert result.exit_code == 0, result.stderr
    return root


def test_the_raise_became_the_registry_error_kept_a_value_error(migrated):
    server = (migrated / "shop" / "server.py").read_text()
    assert 'raise shop_error("INVALID_LIMIT", value=value).caught_as(ValueError)' in server
    # The library keeps its own error; the tool maps it where it calls the library.
    assert (migrated / "shop" / "units.py").read_text() == textwrap.dedent(FILES["shop/units.py"])
    assert 'raise shop_error("UNKNOWN_UNIT", unit=unit).caught_as(ValueError) from error' in server


def test_the_project_s_catcher_and_its_pytest_raises_still_pass(migrated):
    completed = run_project_tests(migrated)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    assert "3 passed" in completed.stdout


def call_tool(root: Path, tool: str, arguments: str) -> dict:
    completed = subprocess.run(
        [str(venv_python(STACKS_BY_NAME["mcp1"])), str(CLIENT_SCRIPT), "shop.server:mcp", tool, arguments],
        cwd=root,
        env=environment(root),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)["record"]


def test_the_library_s_error_reaches_the_client_as_the_registry_error(migrated):
    record = call_tool(migrated, "distance", '{"value": 3, "unit": "mile"}')
    assert record["isError"] is True
    assert record["content"][0].startswith("Error executing tool distance: UNKNOWN_UNIT (")
    assert "): Unknown unit: mile" in record["content"][0]


def test_the_client_gets_the_registry_error(migrated):
    completed = subprocess.run(
        [str(venv_python(STACKS_BY_NAME["mcp1"])), str(CLIENT_SCRIPT), "shop.server:mcp", "search", '{"limit": "ten"}'],
        cwd=migrated,
        env=environment(migrated),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    record = json.loads(completed.stdout)["record"]
    assert record["isError"] is True
    # FastMCP 1.x sends the raised tool error's text: the registry's text form, code and recovery included.
    assert record["content"] == [
        "Error executing tool search: INVALID_LIMIT (1000): Invalid limit: ten\nRecovery: check-input."
    ]
