"""Real MCP server packages from the pinned corpus, fetched and installed for the migration proof.

Each package's sdist is fetched from PyPI with pip, as the corpus header says
(``shared/corpus/pypi-mcp-servers.txt``), and unpacked under
``<sdk_venvs.venvs_root()>/sdists/``. Each package gets a venv of its own beside
the SDK venvs: ``pip install <sdist> <pins>`` brings its dependencies, with the
MCP SDK held to an exact version. Like the SDK venvs, a venv is keyed by its
pins and the Python version and counts only once its ``.ready`` marker exists;
so does an unpacked sdist. The migrated copy then runs from source: its source
directory first on ``PYTHONPATH`` shadows the installed original.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdk_venvs import built_once, new_venv, venvs_root
from sdk_venvs import sdist_archive as sdk_sdist_archive
from sdk_venvs import sdist_tree as sdk_sdist_tree

HERE = Path(__file__).resolve().parent
CLIENT_SCRIPT = HERE / "real_server_client.py"
SUBPROCESS_TIMEOUT = 600  # seconds; a cold install takes about a minute


@dataclass(frozen=True)
class RealServer:
    name: str
    version: str
    pins: tuple[str, ...]  # installed along with the sdist, to hold its SDK to one version
    source_dir: str  # where its import packages live inside the sdist: "src" or "."
    server_object: str  # "module:attribute" of the server (a FastMCP or a low-level Server)
    environment: tuple[tuple[str, str], ...] = ()  # what the module needs to import

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def sdist_tree(server: RealServer) -> Path:
    """The unpacked sdist's root directory (cached); never changed, copy it first."""
    return sdk_sdist_tree(server.requirement)


def sdist_archive(server: RealServer) -> Path:
    return sdk_sdist_archive(server.requirement)


def venv_dir(server: RealServer) -> Path:
    requirements = "\n".join(sorted((server.requirement, *server.pins)))
    key = hashlib.sha256(f"{sys.version_info[:2]}\n{requirements}".encode()).hexdigest()[:12]
    return venvs_root() / f"real-{server.name}-{key}"


def venv_python(server: RealServer) -> Path:
    """The package's venv interpreter, with the original package and its dependencies installed."""
    archive = sdist_archive(server)
    # Without --ignore-requires-python: it would let pip pick dependencies too new for this Python.
    marker = "\n".join((server.requirement, *server.pins))
    directory = built_once(venv_dir(server), lambda target: new_venv(target, str(archive), *server.pins), marker)
    return directory / "bin" / "python"


def call_tool(
    server: RealServer, tool: str, arguments: dict[str, Any], *, source: Path | None, cwd: Path
) -> dict[str, Any]:
    """What the SDK's own client gets from ``tool(**arguments)``: from the installed
    original when ``source`` is None, else from the package tree at ``source``."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("MCP_ERROR", "PYTHON"))}
    environment.update(server.environment)
    if source is not None:
        environment["PYTHONPATH"] = str(source / server.source_dir)
    completed = subprocess.run(
        [str(venv_python(server)), str(CLIENT_SCRIPT), server.server_object, tool, json.dumps(arguments)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)
