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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

MYPY_PIN = "mypy==2.4.1"


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


def venv_python(stack: Stack) -> Path:
    """The venv's interpreter, creating and installing the venv first when needed."""
    directory = venv_dir(stack)
    python = directory / "bin" / "python"
    if (directory / ".ready").exists():
        return python
    with install_lock(directory):
        if (directory / ".ready").exists():  # another process installed it while this one waited
            return python
        if directory.exists():  # a previous install that did not finish
            shutil.rmtree(directory)
        subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *stack.pins, MYPY_PIN],
            check=True,
        )
        (directory / ".ready").write_text("\n".join(stack.pins) + "\n", encoding="utf-8")
    return python


if __name__ == "__main__":  # python tests/sdk/sdk_venvs.py [NAME...]: prepare venvs ahead of the tests
    for name in sys.argv[1:] or list(STACKS_BY_NAME):
        print(name, venv_python(STACKS_BY_NAME[name]))
