"""Which source files a wheel ships, and where they land in it.

A build backend's file selection is modelled as *trees*: a source directory
(or single file) of the project and the path it gets in the wheel
(`src/pkg` → `pkg`), whole or only the files directly in it (setuptools
ships a listed package's own modules, not its subdirectories), filtered by
the backend's include and exclude patterns. That is enough to answer the one
question migration asks: would a new module at this source path be in the
wheel, and under which import name?
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

# Imports inside functions: pathspec is imported only for a build configuration with include or
# exclude patterns.

if TYPE_CHECKING:
    import pathspec


class Unreadable(Exception):
    """The build configuration does not say (statically) what the wheel ships: one line why."""


@dataclass(frozen=True)
class Tree:
    source: PurePosixPath  # relative to the project root; "." for the root itself
    wheel: PurePosixPath  # where it lands in the wheel; "." for the wheel's root
    whole: bool = True  # the tree below it too; False: only the files directly in the directory
    is_file: bool = False  # a single module (`server.py`)

    def wheel_path(self, relative: PurePosixPath) -> PurePosixPath | None:
        if self.is_file:
            return self.wheel if relative == self.source else None
        inside = _relative_to(relative, self.source)
        if inside is None or (not self.whole and len(inside.parts) != 1):
            return None
        return self.wheel / inside


@dataclass(frozen=True)
class WheelLayout:
    backend: str  # "setuptools", "hatchling", "poetry-core", "flit-core", "pdm-backend", "uv_build"
    config: str  # the file (and table) that says it, for messages
    trees: tuple[Tree, ...]
    # Patterns (relative to the project root, glob or gitignore style) a shipped file must match
    # one of, when given; and patterns that leave a file out.
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    gitignore_style: bool = False  # hatch's patterns are gitignore-style; the others are globs
    needs_init: bool = False  # only directories with `__init__.py` ship modules (hatch `only-packages`)
    root: Path | None = field(default=None, compare=False)

    def wheel_path(self, relative: PurePosixPath) -> PurePosixPath | None:
        """Where the project file ``relative`` (a new one too) would be in the wheel; None: not there."""
        found = None
        for tree in sorted(self.trees, key=lambda tree: len(tree.source.parts), reverse=True):
            found = tree.wheel_path(relative)
            if found is not None:
                break
        if found is None:
            return None
        if self.include is not None and not self._matches(self.include, relative):
            return None
        if self._matches(self.exclude, relative):
            return None
        if self.needs_init and self.root is not None and not (self.root / relative.parent / "__init__.py").is_file():
            return None
        return found

    def source_path(self, wheel: PurePosixPath) -> PurePosixPath | None:
        """The project file that would land at ``wheel``, checked both ways; None when none would."""
        for tree in self.trees:
            if tree.is_file:
                candidate = tree.source if wheel == tree.wheel else None
            else:
                inside = _relative_to(wheel, tree.wheel)
                candidate = tree.source / inside if inside is not None else None
            if candidate is not None and self.wheel_path(candidate) == wheel:
                return candidate
        return None

    def describe(self) -> str:
        shipped = ", ".join(str(tree.source) for tree in self.trees) or "nothing"
        return f"{self.backend} ({self.config}) ships {shipped}"

    def _matches(self, patterns: Iterable[str], relative: PurePosixPath) -> bool:
        patterns = tuple(patterns)
        if not patterns:
            return False
        if self.gitignore_style:
            return bool(_gitignore(patterns).match_file(str(relative)))
        candidates = [relative, *relative.parents][:-1]  # the file, then each directory above it
        return any(_glob(pattern).fullmatch(str(candidate)) for pattern in patterns for candidate in candidates)


def _relative_to(path: PurePosixPath, base: PurePosixPath) -> PurePosixPath | None:
    if str(base) == ".":
        return path
    try:
        return path.relative_to(base)
    except ValueError:
        return None


@lru_cache(maxsize=256)
def _gitignore(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


@lru_cache(maxsize=256)
def _glob(pattern: str) -> re.Pattern[str]:
    """A glob as `glob.glob(recursive=True)` reads it: `*` within a name, `**` across directories."""
    pattern = pattern.strip().removeprefix("./").rstrip("/")
    out, index = [], 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        elif pattern[index] == "[" and "]" in pattern[index + 1 :]:
            end = pattern.index("]", index + 1)
            body = pattern[index + 1 : end].replace("\\", "\\\\")
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            index = end + 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out))


def has_magic(pattern: str) -> bool:
    return any(char in pattern for char in "*?[")


def posix(path: str) -> PurePosixPath:
    """A configured path, normalised: `./src/`, `src\\pkg` → `src`, `src/pkg`."""
    return PurePosixPath(*[part for part in path.replace("\\", "/").split("/") if part not in ("", ".")])
