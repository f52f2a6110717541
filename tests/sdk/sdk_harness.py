"""Shared steps of the SDK proofs: generate helpers for a stack, run a script in its venv."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from sdk_venvs import Stack, venv_python

from mcplint.registry import load_registry
from mcplint.registry.codegen import generate_helpers

HERE = Path(__file__).resolve().parent
REGISTRIES = HERE.parent / "fixtures" / "registry" / "codegen"
PROBE_REGISTRY = REGISTRIES / "probe.toml"
PROBE_SCRIPT = HERE / "probe.py"
SUBPROCESS_TIMEOUT = 300  # seconds; a probe takes about one


def write_helpers(
    stack: Stack,
    directory: Path,
    registry: Path = PROBE_REGISTRY,
    module: str = "probe_errors",
    framework: str | None = None,
) -> Path:
    """The helpers for ``stack``'s framework (or ``framework``: `lowlevel` runs on mcp1 and mcp2)."""
    path = directory / f"{module}.py"
    path.write_text(generate_helpers(load_registry(str(registry)), framework or stack.framework), encoding="utf-8")
    return path


def run_in_venv(stack: Stack, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with the stack's interpreter; a clean environment for the
    variables the helpers read."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MCP_ERROR")}
    return subprocess.run(
        [str(venv_python(stack)), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )


def run_probe(stack: Stack, directory: Path) -> tuple[dict[str, Any], str]:
    """The probe's report for ``stack`` and its raw stdout (for leak checks)."""
    write_helpers(stack, directory)
    completed = run_in_venv(stack, str(PROBE_SCRIPT), stack.name, str(directory), cwd=directory)
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout), completed.stdout
