"""Command-line paths to the files to lint.

Directories recurse into ``*.py`` and ``*.pyi`` files, skipping what the
config excludes and what ``.gitignore`` files ignore (inside a git work tree,
as ruff does). A file named on the command line is always linted, unless
``--force-exclude`` applies the excludes to it too (pre-commit passes files
one by one, so its hook uses that flag).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mcplint.config import Config, ConfigResolver, PathPatterns

# Imports inside functions: pathspec is imported when a `.gitignore` or a pattern needs it.

PYTHON_SUFFIXES = (".py", ".pyi")


class PathNotFound(Exception):
    pass


@dataclass(frozen=True)
class DiscoveredFile:
    path: Path
    display: str
    explicit: bool


@dataclass(frozen=True)
class SkippedPath:
    """A file or directory discovery left out, and why (for `--show-files`)."""

    display: str
    is_dir: bool
    reason: str


def discover(
    paths: Sequence[str],
    resolver: ConfigResolver,
    *,
    force_exclude: bool,
    skipped: list[SkippedPath] | None = None,
) -> list[DiscoveredFile]:
    """The files to lint; ``skipped``, when given, collects what was left out and why."""
    found: dict[str, DiscoveredFile] = {}  # by _identity
    cwd = resolver.cwd
    repositories: _Repositories = {}
    for argument in paths:
        path = Path(argument)
        if not path.exists():
            raise PathNotFound(f"{argument}: no such file or directory")
        if path.is_dir():
            if force_exclude and _skip(path, resolver.config_for(path / "__init__.py"), True, cwd, skipped):
                continue
            for file in _walk(path, resolver, skipped, repositories):
                found.setdefault(_identity(file), DiscoveredFile(file, _display(file, cwd), explicit=False))
        elif not (force_exclude and _skip(path, resolver.config_for(path), False, cwd, skipped)):
            found.setdefault(_identity(path), DiscoveredFile(path, _display(path, cwd), explicit=True))
    return sorted(found.values(), key=lambda file: file.display)


def _walk(
    root: Path, resolver: ConfigResolver, skipped: list[SkippedPath] | None = None, repositories: _Repositories | None = None
) -> Iterator[Path]:
    cwd = resolver.cwd
    for directory, subdirectories, files in os.walk(root, followlinks=False):
        base = Path(directory)
        config = resolver.config_for(base / "__init__.py")
        subdirectories[:] = sorted(
            name for name in subdirectories if not _skip(base / name, config, True, cwd, skipped, repositories)
        )
        for name in sorted(files):
            if name.endswith(PYTHON_SUFFIXES):
                file = base / name
                if not _skip(file, config, False, cwd, skipped, repositories):
                    yield file


def _skip(
    path: Path,
    config: Config,
    is_dir: bool,
    cwd: Path,
    skipped: list[SkippedPath] | None,
    repositories: _Repositories | None = None,
) -> bool:
    if not _is_ignored(path, config, is_dir=is_dir, repositories=repositories):
        return False
    if skipped is not None:
        skipped.append(SkippedPath(_display(path, cwd), is_dir, skip_reason(path, config, is_dir=is_dir, cwd=cwd)))
    return True


def skip_reason(path: Path, config: Config, *, is_dir: bool, cwd: Path | None = None) -> str:
    """Which setting (and pattern) or which .gitignore leaves ``path`` out."""
    setting = config.excluded_by(path, is_dir=is_dir)
    if setting is None:
        return "ignored by .gitignore"
    if setting == "exclude":
        patterns: Sequence[str] = config.exclude
    elif setting == "extend-exclude":
        patterns = config.extend_exclude
    else:
        patterns = config.command_line_excludes
    root = config.command_line_root or config.root if setting.startswith("--") else config.root
    pattern = next(
        (candidate for candidate in patterns if PathPatterns((candidate,)).matches(path, root, is_dir=is_dir)), None
    )
    source = config.source_of(setting, cwd) if not setting.startswith("--") else "command line"
    return f"`{setting}` pattern {pattern!r} ({source})"


def _identity(path: Path) -> str:
    """The same file reached through two arguments is linted once."""
    return os.path.normcase(os.path.abspath(path))


def _is_ignored(path: Path, config: Config, *, is_dir: bool, repositories: _Repositories | None = None) -> bool:
    return config.is_excluded(path, is_dir=is_dir) or _gitignored(path, is_dir=is_dir, repositories=repositories)


def display_path(path: Path, cwd: Path) -> str:
    """As the user would type it: relative to the working directory when inside it."""
    return _display(path, cwd)


def _display(path: Path, cwd: Path) -> str:
    if not path.is_absolute() and str(cwd) == os.getcwd():  # relative to ``cwd``: as written
        return path.as_posix()
    absolute = path.absolute()
    try:
        return absolute.relative_to(cwd).as_posix()
    except ValueError:
        return path.as_posix()


# -- .gitignore -------------------------------------------------------------------
# Per directory as walked, the git work tree it is in (None: none): a walk asks for every
# file of a directory, and outside a work tree (most runs) that answers for them all.
_Repositories = dict[Path, "Path | None"]


def _gitignored(path: Path, *, is_dir: bool, repositories: _Repositories | None = None) -> bool:
    parent = path.parent
    if repositories is None:
        repository = _repository_root(parent.absolute())
    elif parent in repositories:
        repository = repositories[parent]
    else:
        repository = repositories[parent] = _repository_root(parent.absolute())
    if repository is None:
        return False
    absolute = path.absolute()
    directory = absolute.parent
    # Deeper .gitignore files override shallower ones, like git.
    chain = [directory, *directory.parents]
    ignored = False
    for base in reversed(chain[: chain.index(repository) + 1] if repository in chain else []):
        spec = _gitignore_spec(base)
        if spec is None:
            continue
        relative = absolute.relative_to(base).as_posix() + ("/" if is_dir else "")
        result = spec.check_file(relative)
        if result.include is not None:
            ignored = result.include
    return ignored


def project_root(cwd: Path) -> Path:
    """The git work tree around the working directory, else the working directory."""
    return _repository_root(cwd.absolute()) or cwd.absolute()


@cache
def _repository_root(directory: Path) -> Path | None:
    if (directory / ".git").exists():
        return directory
    parent = directory.parent
    return _repository_root(parent) if parent != directory else None  # the parent's answer, once


@cache
def _gitignore_spec(directory: Path) -> Any:
    lines: list[str] = []
    for name in (".gitignore", ".git/info/exclude"):
        try:
            lines.extend((directory / name).read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            continue
    if not lines:
        return None
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)
