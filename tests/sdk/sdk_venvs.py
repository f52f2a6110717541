"""Virtual environments with the real MCP SDKs, for the slow proof tests.

Each stack is pinned to exact versions (the newest of its line when this was
written; bump them here) and lives under
``~/.cache/mcplint/sdk-venvs/<name>-<key>``, where the key hashes the pins and
the Python version: a changed pin gets a fresh venv, an unchanged one is reused.
A venv counts as ready only once its ``.ready`` marker exists, so an install
that died halfway is redone rather than trusted.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

MYPY_PIN = "mypy==2.4.1"
PIP_TIMEOUT = 900  # seconds; a cold install of the largest real server takes about a minute


@dataclass(frozen=True)
class Stack:
    name: str  # also the probe's --stack argument
    framework: str  # the generator's framework: mcp1, mcp2 or fastmcp
    pins: tuple[str, ...]


STACKS = (
    # latest mcp 1.x (mcp>=1.30,<2)
    Stack("mcp1", "mcp1", ("mcp==1.30.0",)),
    # latest mcp 2.x (mcp>=2,<3)
    Stack("mcp2", "mcp2", ("mcp==2.3.0",)),
    # fastmcp>=3.4,<4 runs on mcp 1.x
    Stack("fastmcp3", "fastmcp", ("fastmcp==3.4.11", "mcp==1.30.0")),
    # fastmcp>=4 runs on mcp 2.x
    Stack("fastmcp4", "fastmcp", ("fastmcp==4.2.3", "mcp==2.3.0")),
)
STACKS_BY_NAME = {stack.name: stack for stack in STACKS}


def venvs_root() -> Path:
    return Path(os.environ.get("MCPLINT_SDK_VENVS", Path.home() / ".cache" / "mcplint" / "sdk-venvs"))


def venv_dir(stack: Stack) -> Path:
    requirements = "\n".join(sorted((*stack.pins, MYPY_PIN)))
    key = hashlib.sha256(f"{sys.version_info[:2]}\n{requirements}".encode()).hexdigest()[:12]
    return venvs_root() / f"{stack.name}-{key}"


@contextmanager
def install_lock(directory: Path) -> Iterator[None]:
    """One installer per venv across processes (pytest-xdist workers, concurrent runs):
    the others wait for it, then find the venv ready instead of deleting it mid-install."""
    import fcntl

    directory.parent.mkdir(parents=True, exist_ok=True)
    with open(directory.parent / f".{directory.name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def built_once(directory: Path, build: Callable[[Path], object], marker: str) -> Path:
    """``directory``, made by ``build(directory)`` unless a finished build is there: one builder
    across processes (the others wait, then find it ready); what a build that did not finish
    left behind is removed first; ``.ready`` (holding ``marker``) says it finished."""
    ready = directory / ".ready"
    if ready.exists():
        return directory
    with install_lock(directory):
        if ready.exists():  # another process built it while this one waited
            return directory
        if directory.exists():
            shutil.rmtree(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        build(directory)
        ready.write_text(marker + "\n", encoding="utf-8")
    return directory


def pip(python: Path | str, *args: str, timeout: float = PIP_TIMEOUT) -> None:
    """pip, quiet; what it said only when it fails."""
    command = [str(python), "-m", "pip", "--disable-pip-version-check", "-q", *args]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {completed.returncode}:\n{completed.stderr[-4000:]}")


def new_venv(directory: Path, *requirements: str) -> Path:
    """A venv at ``directory`` with ``requirements`` installed (pip's arguments); its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
    python = directory / "bin" / "python"
    pip(python, "install", *requirements)
    return python


def sdist_archive(requirement: str) -> Path:
    """The sdist of ``name==version``, downloaded once (cached beside the venvs)."""

    def download(target: Path) -> None:
        # As the corpus header says: some packages declare a newer Python than they need.
        pip(
            sys.executable, "download", "--no-deps", "--no-binary", ":all:", "--ignore-requires-python",
            "--dest", str(target), requirement,
        )  # fmt: skip

    downloaded = built_once(_sdist_directory(requirement) / "download", download, requirement)
    (archive,) = (path for path in downloaded.iterdir() if not path.name.startswith("."))
    return archive


def sdist_tree(requirement: str) -> Path:
    """The unpacked sdist of ``name==version`` (unpacked once); never changed: copy it first."""
    import tarfile
    import zipfile

    archive = sdist_archive(requirement)

    def unpack(target: Path) -> None:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as sdist:
                sdist.extractall(target)
        else:
            with tarfile.open(archive) as sdist:
                # The "data" filter refuses absolute paths and links out of the tree (Python >= 3.10.12).
                sdist.extractall(target, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))

    unpacked = built_once(_sdist_directory(requirement) / "unpacked", unpack, archive.name)
    (root,) = (path for path in unpacked.iterdir() if path.is_dir())
    return root


def _sdist_directory(requirement: str) -> Path:
    return venvs_root() / "sdists" / requirement.replace("==", "-")


def venv_python(stack: Stack) -> Path:
    """The venv's interpreter, creating and installing the venv first when needed."""
    directory = built_once(venv_dir(stack), lambda target: new_venv(target, *stack.pins, MYPY_PIN), "\n".join(stack.pins))
    return directory / "bin" / "python"


if __name__ == "__main__":  # python tests/sdk/sdk_venvs.py [NAME...]: prepare venvs ahead of the tests
    for name in sys.argv[1:] or list(STACKS_BY_NAME):
        print(name, venv_python(STACKS_BY_NAME[name]))
