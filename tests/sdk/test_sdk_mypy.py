"""The generated modules pass ``mypy --strict`` next to the real framework, and
mypy catches an unknown or retired symbol through the ``Literal`` types.

Also: a module generated from the hostile registry imports on a real SDK,
holds the hostile strings unchanged and runs none of them.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from sdk_harness import REGISTRIES, run_in_venv, write_helpers
from sdk_venvs import STACKS, STACKS_BY_NAME

from mcplint.registry import load_registry

pytestmark = pytest.mark.slow

USE = """\
from __future__ import annotations

from probe_errors import RegisteredResourceError, ErrorStats, WireError, error_stats, widget_error
from {result_module} import {result_type}


def tool() -> {result_type}:
    return widget_error("WIDGETS_NOT_FOUND", details={{"tried": ["main", 2]}}, widgetId="w").tool_result()


def resource() -> None:
    error: RegisteredResourceError = widget_error("WIDGETS_BACKEND_DOWN").for_resource()
    wire: WireError = error.to_wire()
    code: int = error.code
    raise error


def validate(value: int) -> None:
    if value < 0:  # in place of `raise ValueError(...)`: every `except ValueError` still catches it
        raise widget_error("WIDGETS_NOT_FOUND", widgetId=value).caught_as(ValueError)


def lookup(key: str) -> None:
    error: RegisteredResourceError = widget_error("WIDGETS_NOT_FOUND", widgetId=key).for_resource().caught_as(KeyError)
    raise error


def stats() -> ErrorStats:
    return error_stats()


def envelope() -> str:
    error = widget_error("WIDGETS_BUSY", hint="The sync runs nightly.", retry_after_ms=250)
    recovery: str = error.recovery
    hints: list[str] = error.hints
    delay: int | None = error.retry_after_ms
    user: str | None = error.user_message
    return error.text()
"""

MISUSE = """\
from probe_errors import widget_error

widget_error("WIDGETS_NOT_FOUNDD")
widget_error("WIDGETS_OLD_LOOKUP")
widget_error("WIDGETS_NOT_FOUND", widgetId=object())
widget_error("WIDGETS_BUSY", retry_after_ms="soon")
"""

RESULT_TYPES = {
    "mcp1": ("mcp.types", "CallToolResult"),
    "mcp2": ("mcp.types", "CallToolResult"),
    "fastmcp": ("fastmcp.tools", "ToolResult"),
}


def mypy(stack, directory: Path, *files: str):
    return run_in_venv(stack, "-m", "mypy", "--strict", "--no-incremental", *files, cwd=directory)


@pytest.mark.parametrize("stack", [stack.name for stack in STACKS])
def test_generated_module_and_its_use_pass_mypy_strict(tmp_path, stack):
    stack = STACKS_BY_NAME[stack]
    write_helpers(stack, tmp_path)
    write_helpers(stack, tmp_path, REGISTRIES / "hostile.toml", "hostile_errors")
    result_module, result_type = RESULT_TYPES[stack.framework]
    (tmp_path / "use.py").write_text(USE.format(result_module=result_module, result_type=result_type))
    completed = mypy(stack, tmp_path, "probe_errors.py", "hostile_errors.py", "use.py")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Success: no issues found in 3 source files" in completed.stdout


@pytest.mark.parametrize("stack", ["mcp1", "mcp2"])
def test_low_level_helpers_pass_mypy_strict_on_both_majors(tmp_path, stack):
    """One `lowlevel` module for mcp 1.x and 2.x: strict on each, whichever name its SDK error has."""
    stack = STACKS_BY_NAME[stack]
    write_helpers(stack, tmp_path, framework="lowlevel")
    (tmp_path / "use.py").write_text(USE.format(result_module="mcp.types", result_type="CallToolResult"))
    completed = mypy(stack, tmp_path, "probe_errors.py", "use.py")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Success: no issues found in 2 source files" in completed.stdout


@pytest.mark.parametrize("stack", ["mcp1", "fastmcp4"])
def test_mypy_flags_unknown_and_retired_symbols(tmp_path, stack):
    stack = STACKS_BY_NAME[stack]
    write_helpers(stack, tmp_path)
    (tmp_path / "misuse.py").write_text(MISUSE)
    completed = mypy(stack, tmp_path, "misuse.py")
    assert completed.returncode == 1
    errors = [line for line in completed.stdout.splitlines() if ": error:" in line]
    assert [line.split(":")[1] for line in errors] == ["3", "4", "5", "6"], completed.stdout
    assert all(line.endswith("[arg-type]") for line in errors)
    assert "'WIDGETS_NOT_FOUNDD'" in errors[0] and "'WIDGETS_OLD_LOOKUP'" in errors[1]


PROBE_HOSTILE = """\
import json, os
import hostile_errors as m
evil = getattr(m, "evil___import___os_system_touch_pwned_domain_error")
result = evil("QUOTES", value="V").tool_result()  # the SDK's own model, built from hostile text
print(json.dumps({
    "namespace": m.NAMESPACE,
    "entries": {d: {s: list(e) for s, e in t.items()} for d, t in m._ENTRIES.items()},
    "text": evil("QUOTES", value="V").text(),
    "retired": m.RETIRED_CODES,
    "quotes": getattr(result, "structured_content", None) or result.structuredContent,
    "pwned": sorted(name for name in os.listdir(".") if name.startswith("PWNED")),
}))
"""


@pytest.mark.parametrize("stack", ["mcp1", "mcp2"])
def test_hostile_registry_imports_on_the_real_sdk(tmp_path, stack):
    stack = STACKS_BY_NAME[stack]
    write_helpers(stack, tmp_path, REGISTRIES / "hostile.toml", "hostile_errors")
    (tmp_path / "probe_hostile.py").write_text(textwrap.dedent(PROBE_HOSTILE))
    completed = run_in_venv(stack, "probe_hostile.py", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    loaded = load_registry(str(REGISTRIES / "hostile.toml"))
    assert result["pwned"] == []
    assert result["namespace"] == loaded.namespace
    offered = {
        domain.name: {e.symbol: [e.code, e.message, bool(e.retryable)] for e in domain.errors if e.status != "retired"}
        for domain in loaded.domains
    }
    assert {domain: {symbol: entry[:3] for symbol, entry in table.items()} for domain, table in result["entries"].items()} == offered
    # The envelope's strings arrive unchanged (hints filled like the message, never evaluated).
    [quotes] = [entry for entry in loaded.errors if entry.symbol == "QUOTES"]
    [hints] = [table["QUOTES"][5] for table in result["entries"].values() if "QUOTES" in table]
    assert hints == list(quotes.hints)
    assert result["quotes"]["error"]["userMessage"] == "\'\'\'); __import__(\'os\').system(\'touch PWNED_USER\') #V"
    assert result["text"].startswith("QUOTES (3002): ") and "Recovery: retry-later, after 2147483647 ms." in result["text"]
    assert result["retired"] == {"RETIRED_ONE": 3004}
    assert result["quotes"]["error"]["symbol"] == "QUOTES"
    assert "{value.__class__}" in result["quotes"]["error"]["message"]  # never evaluated
