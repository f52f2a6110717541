"""Replacing a file atomically: a temporary file in the same directory, then `os.replace`.

Readers (and concurrent mcplint runs) see the old file or the new one, never
half of one; a failed write leaves the original and no temporary behind. The
fixer, the cache and the generated helpers all write this way.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data``; ``mode`` sets its permission bits (None: mkstemp's 0600)."""
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def mode_for(path: Path) -> int:
    """The mode a rewritten file keeps, or what a new file gets under the umask."""
    if path.exists():
        return path.stat().st_mode
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
