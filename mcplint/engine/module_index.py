"""Which file a dotted module name stands for, as the importing project sees it.

A file's module name comes from its package layout (``pkg/services/notes.py``
under ``pkg/__init__.py`` is ``pkg.services.notes``). Real projects also import
through directories without ``__init__.py``: namespace packages and ``src/``
layouts run with ``src`` on the path (``from app.storage import save_rows`` with
no ``app/__init__.py``). So a file is also known by the names its enclosing
directories give it, up to its project's root (the nearest directory holding
``pyproject.toml``, ``setup.py``, ``setup.cfg`` or ``.git``): ``storage``,
``app.storage``, ``src.app.storage``. A name only resolves within the importer's
project, and where several files answer to it, the one closest to the importer
wins.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import PurePath

from mcplint.analysis.project import ProjectContext

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
MAX_EXTRA_LEVELS = 3  # directories above the import root a name may include


class ModuleIndex:
    def __init__(self, contexts: Mapping[str, ProjectContext]) -> None:
        self._project_of_dir: dict[str, str] = {}
        self._files_by_name: dict[str, list[str]] = {}
        self._project: dict[str, str] = {}
        self._path_parts: dict[str, tuple[str, ...]] = {}  # path -> the components of its absolute path
        # The join resolves the same names from the same files in every round: each is located once.
        self._located: dict[tuple[str, str], tuple[str, str] | None] = {}
        self._heads: dict[str, tuple[str, ...]] = {}  # project root -> the first parts of its names
        for path, context in contexts.items():
            absolute = os.path.abspath(path)
            if context.module is None or context.root is None:
                continue
            self._path_parts[path] = tuple(absolute.split(os.sep))
            self._project[path] = project = self._project_root(os.path.dirname(absolute))
            for name in _names(context.module, context.root, project):
                self._files_by_name.setdefault(name, []).append(path)
        heads: dict[str, set[str]] = {}
        for name, named in self._files_by_name.items():
            for path in named:
                heads.setdefault(self._project[path], set()).add(name.partition(".")[0])
        self._heads = {project: tuple(sorted(names)) for project, names in heads.items()}

    def project_of(self, path: str) -> str | None:
        """The root of the project a file belongs to (None: a file without a module name)."""
        return self._project.get(path)

    def heads_of(self, path: str) -> tuple[str, ...] | None:
        """The first parts of the module names of the file's project (``locate`` finds nothing
        else from it: a name must begin with one); None for a file without a module name."""
        project = self._project.get(path)
        return self._heads.get(project, ()) if project is not None else None

    def locate(self, qualified: str, importer: str) -> tuple[str, str] | None:
        """(file, the rest of the name) for the longest module prefix of ``qualified``."""
        key = (qualified, importer)
        if key in self._located:
            return self._located[key]
        found = self._locate(qualified, importer)
        self._located[key] = found
        return found

    def _locate(self, qualified: str, importer: str) -> tuple[str, str] | None:
        project = self._project.get(importer)
        if project is None:
            return None
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            candidates = [
                path for path in self._files_by_name.get(".".join(parts[:cut]), ()) if self._project[path] == project
            ]
            if candidates:
                if len(candidates) == 1:
                    return candidates[0], ".".join(parts[cut:])
                directory = self._path_parts[importer][:-1]
                closest = max(candidates, key=lambda path: (_shared_parts(directory, self._path_parts[path]), path))
                return closest, ".".join(parts[cut:])
        return None

    def _project_root(self, directory: str) -> str:
        if directory in self._project_of_dir:
            return self._project_of_dir[directory]
        parent = os.path.dirname(directory)
        if any(os.path.exists(os.path.join(directory, marker)) for marker in PROJECT_MARKERS) or parent == directory:
            root = directory
        else:
            root = self._project_root(parent)
        self._project_of_dir[directory] = root
        return root


def _names(module: str, root: str, project: str) -> list[str]:
    """``storage``, ``app.storage``, ...: the module's name under each directory above its
    import root, while that directory is inside the project."""
    names = [module]
    directory = root
    for _ in range(MAX_EXTRA_LEVELS):
        if not directory.startswith(project) or directory == project or not os.path.basename(directory):
            break
        module = f"{os.path.basename(directory)}.{module}"
        names.append(module)
        directory = os.path.dirname(directory)
    return names


def _shared_parts(directory: tuple[str, ...], path: tuple[str, ...]) -> int:
    """How many leading components a directory and a path share (their common path)."""
    shared = 0
    for mine, theirs in zip(directory, path, strict=False):
        if mine != theirs:
            break
        shared += 1
    return shared


@functools.lru_cache(maxsize=8192)  # each syntax check and each join asks again for the same paths
def is_test_module(path: str) -> bool:
    """A test suite's file: under a `tests`/`test` directory, or named `test_*.py`,
    `*_test.py`, `conftest.py`."""
    parts = PurePath(path).parts
    name = parts[-1] if parts else ""
    return (
        any(part in ("tests", "test") for part in parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )
