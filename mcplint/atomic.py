"""Replacing a file so that it is always the old content or the new, never half of one.

Readers (and concurrent mcplint runs) see the old file or the new one; a failed
write leaves the original and no temporary behind. The fixer, the cache, the
registry and the generated helpers all write this way:

- through a symlink, the link stays and its target is replaced;
- a file with several hard links is rewritten in place (replacing it would
  split the links); space for the new content is reserved before the first
  byte changes, and a write that fails anyway puts the old bytes back;
- otherwise a temporary file in the same directory, then ``os.replace``;
- with ``expected``, the file is read again just before it is replaced and left
  alone (``FileChanged``) when it no longer holds what the new content was
  computed from: an edit made meanwhile is never lost;
- a file without write permission is not replaced (``PermissionError``), as an
  editor or ``open(path, "w")`` would refuse it.
"""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from pathlib import Path


class FileChanged(Exception):
    """The file no longer holds the content the replacement was computed from."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: changed since it was read; not written")
        self.path = path


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomically(
    path: str | Path, data: bytes, mode: int | None = None, *, expected: str | None = None
) -> None:
    """Replace the content of ``path`` with ``data``.

    ``mode`` sets the permission bits of a replaced or new file (None: mkstemp's 0600);
    ``expected`` is the SHA-256 (``content_digest``) of the bytes the caller read: when
    the file holds anything else now, nothing is written and ``FileChanged`` is raised.
    Raises ``OSError`` when the file cannot be written; it is then as it was.
    """
    target = os.path.realpath(path)  # a symlink stays a symlink: its target is what changes
    try:
        status = os.stat(target)
    except FileNotFoundError:
        status = None
    if status is not None:
        _require_writable(target)
    if status is not None and status.st_nlink > 1:
        _write_in_place(target, data, expected, str(path))
        return
    directory = os.path.dirname(target)
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        try:
            _write_all(descriptor, data)
        finally:
            os.close(descriptor)
        if mode is not None:
            os.chmod(temporary, mode & 0o7777)
        if expected is not None:
            _require_unchanged(target, expected, str(path))
        os.replace(temporary, target)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise


def _require_writable(target: str) -> None:
    """Raise what opening the file for writing raises (read-only: EACCES, immutable: EPERM);
    replacing the directory entry would otherwise succeed where the file itself refuses.
    Opening without O_TRUNC changes nothing."""
    os.close(os.open(target, os.O_WRONLY))


def _write_in_place(target: str, data: bytes, expected: str | None, shown: str) -> None:
    """Overwrite a hard-linked file without replacing its inode (every link sees the change)."""
    descriptor = os.open(target, os.O_RDWR)
    try:
        old = _read_all(descriptor)
        if expected is not None and content_digest(old) != expected:
            raise FileChanged(shown)
        _reserve(descriptor, len(old), len(data))
        try:
            os.lseek(descriptor, 0, os.SEEK_SET)
            _write_all(descriptor, data)
            os.ftruncate(descriptor, len(data))
        except OSError:
            os.lseek(descriptor, 0, os.SEEK_SET)
            _write_all(descriptor, old)  # the reserved blocks are still there: the old bytes fit
            os.ftruncate(descriptor, len(old))
            raise
    finally:
        os.close(descriptor)


def _reserve(descriptor: int, old_size: int, new_size: int) -> None:
    """Allocate the blocks a longer content needs before anything is overwritten: a full disk
    then fails here, with the file unchanged."""
    if new_size <= old_size:
        return
    try:
        os.posix_fallocate(descriptor, 0, new_size)
    except AttributeError:  # pragma: no cover - not POSIX
        return
    except OSError as error:
        if error.errno in (errno.EINVAL, errno.EOPNOTSUPP, errno.ENOSYS):
            return  # a file system without allocation: the write's own failure is handled
        os.ftruncate(descriptor, old_size)
        raise


def _require_unchanged(target: str, expected: str, shown: str) -> None:
    try:
        with open(target, "rb") as handle:
            current = handle.read()
    except FileNotFoundError:
        raise FileChanged(shown) from None
    if content_digest(current) != expected:
        raise FileChanged(shown)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def _read_all(descriptor: int) -> bytes:
    chunks = []
    while chunk := os.read(descriptor, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def mode_for(path: Path) -> int:
    """The mode a rewritten file keeps, or what a new file gets under the umask."""
    if path.exists():
        return path.stat().st_mode
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
