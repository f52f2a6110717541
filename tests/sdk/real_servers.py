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
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sdk_venvs import install_lock, venvs_root

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


def _ready(directory: Path) -> bool:
    return (directory / ".ready").exists()


def _start_afresh(directory: Path) -> None:
    """Remove what an install that did not finish left behind."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)


def _pip(python: Path | str, *args: str) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", "-q", *args], check=True, timeout=SUBPROCESS_TIMEOUT
    )


def sdist_archive(server: RealServer) -> Path:
    """The downloaded sdist (cached)."""
    directory = venvs_root() / "sdists" / server.requirement.replace("==", "-")
    if not _ready(directory):
        with install_lock(directory):
            if not _ready(directory):
                _start_afresh(directory)
                # As the corpus header says: some packages declare a newer Python than they need.
                _pip(
                    sys.executable, "download", "--no-deps", "--no-binary", ":all:", "--ignore-requires-python",
                    "--dest", str(directory / "download"), server.requirement,
                )  # fmt: skip
                (directory / ".ready").write_text(server.requirement + "\n", encoding="utf-8")
    (archive,) = (directory / "download").iterdir()
    return archive


def sdist_tree(server: RealServer) -> Path:
    """The unpacked sdist's root directory (cached); never changed, copy it first."""
    archive = sdist_archive(server)
    directory = archive.parent.parent / "unpacked"
    if not _ready(directory):
        with install_lock(directory):
            if not _ready(directory):
                _start_afresh(directory)
                with tarfile.open(archive) as sdist:
                    # The "data" filter refuses absolute paths and links out of the tree (Python >= 3.10.12).
                    sdist.extractall(directory, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
                (directory / ".ready").write_text(archive.name + "\n", encoding="utf-8")
    (root,) = (path for path in directory.iterdir() if path.is_dir())
    return root


def venv_dir(server: RealServer) -> Path:
    requirements = "\n".join(sorted((server.requirement, *server.pins)))
    key = hashlib.sha256(f"{sys.version_info[:2]}\n{requirements}".encode()).hexdigest()[:12]
    return venvs_root() / f"real-{server.name}-{key}"


def venv_python(server: RealServer) -> Path:
    """The package's venv interpreter, with the original package and its dependencies installed."""
    directory = venv_dir(server)
    python = directory / "bin" / "python"
    if _ready(directory):
        return python
    archive = sdist_archive(server)
    with install_lock(directory):
        if _ready(directory):  # another process installed it while this one waited
            return python
        _start_afresh(directory)
        subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
        # Without --ignore-requires-python: it would let pip pick dependencies too new for this Python.
        _pip(python, "install", str(archive), *server.pins)
        (directory / ".ready").write_text("\n".join((server.requirement, *server.pins)) + "\n", encoding="utf-8")
    return python


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
