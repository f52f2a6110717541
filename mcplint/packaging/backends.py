"""Each build backend's file selection, read from its configuration as the backend reads it.

`read_layout(root)` returns the `WheelLayout` of the project at ``root``, None
when the project builds no wheel (no `[build-system]`, no `[project]`, no
`setup.py`/`setup.cfg`), and raises `Unreadable` when its configuration
cannot be read without running code (a `setup.py` that computes its
packages, a backend mcplint does not know). Each reader follows its backend's
documented defaults (hatch's wheel heuristics, poetry's package named after
the project, flit's module, pdm's top-level packages of `package-dir`,
uv_build's `src/<module>`, setuptools' `find` and automatic discovery).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path, PurePosixPath
from typing import Any

from mcplint.packaging.layout import Tree, Unreadable, WheelLayout, has_magic, posix
from mcplint.packaging.setuptools_config import setuptools_layout
from mcplint.toml_depth import MAX_NESTING, too_deep

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

_BACKENDS = {
    "setuptools.build_meta": "setuptools",
    "setuptools.build_meta:__legacy__": "setuptools",
    "hatchling.build": "hatchling",
    "poetry.core.masonry.api": "poetry-core",
    "poetry.masonry.api": "poetry-core",
    "flit_core.buildapi": "flit-core",
    "flit.buildapi": "flit-core",
    "pdm.backend": "pdm-backend",
    "uv_build": "uv_build",
}


def read_layout(root: Path) -> WheelLayout | None:
    document = _pyproject(root)
    build_system = document.get("build-system")
    backend_name = build_system.get("build-backend") if isinstance(build_system, dict) else None
    if backend_name is None:
        # No backend named: pip builds with setuptools' legacy backend, if there is a project at all.
        has_setup = (root / "setup.py").is_file() or (root / "setup.cfg").is_file()
        if not has_setup and "project" not in document and not isinstance(build_system, dict):
            return None
        backend_name = "setuptools.build_meta:__legacy__"
    if not isinstance(backend_name, str) or backend_name not in _BACKENDS:
        raise Unreadable(f"pyproject.toml: build backend {backend_name!r} is not one mcplint reads")
    backend = _BACKENDS[backend_name]
    reader = {
        "setuptools": setuptools_layout,
        "hatchling": _hatch,
        "poetry-core": _poetry,
        "flit-core": _flit,
        "pdm-backend": _pdm,
        "uv_build": _uv,
    }[backend]
    try:
        layout = reader(root, document)
    except (TypeError, ValueError, AttributeError, KeyError, OSError) as error:  # a value of an unexpected shape
        raise Unreadable(f"pyproject.toml: {backend}'s configuration is not what it accepts ({error})") from error
    return WheelLayout(layout.backend, layout.config, layout.trees, layout.include, layout.exclude,
                       layout.gitignore_style, layout.needs_init, root)  # fmt: skip


def _pyproject(root: Path) -> dict[str, Any]:
    path = root / "pyproject.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise Unreadable(f"{path}: cannot read: {error}") from error

    deep = too_deep(text)
    if deep is not None:
        raise Unreadable(f"{path}:{deep}: arrays or inline tables nested more than {MAX_NESTING} deep")
    try:
        return tomllib.loads(text)
    except ValueError as error:
        raise Unreadable(f"{path}: invalid TOML: {error}") from error


def _table(document: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        document = document.get(key) if isinstance(document, dict) else None
    return document if isinstance(document, dict) else {}


def _strings(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Unreadable(f"pyproject.toml: {where} is not a list of strings")
    return list(value)


def _project_name(document: dict[str, Any], *fallbacks: tuple[str, ...]) -> str:
    name = _table(document, "project").get("name")
    for keys in fallbacks:
        name = name or _table(document, *keys).get("name")
    if not isinstance(name, str) or not name.strip():
        raise Unreadable("pyproject.toml: the project has no name to find its package by")
    return name.strip()


def _normalise(name: str) -> str:
    """A distribution name as a module name: `Acme-Notes.mcp` → `acme_notes_mcp`."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


# -- hatchling -------------------------------------------------------------------------------
def _hatch(root: Path, document: dict[str, Any]) -> WheelLayout:
    build = _table(document, "tool", "hatch", "build")
    target = _table(build, "targets", "wheel")
    config = "pyproject.toml [tool.hatch.build.targets.wheel]"

    def option(key: str, default: object) -> object:
        return target[key] if key in target else build.get(key, default)

    packages = [str(posix(p)) for p in _strings(option("packages", []), "hatch `packages`")]
    only_include = [str(posix(p)) for p in _strings(option("only-include", []), "hatch `only-include`")]
    include = _strings(option("include", []), "hatch `include`")
    exclude = _strings(option("exclude", []), "hatch `exclude`")
    if not (packages or only_include or include):
        packages, only_include = _hatch_default(root, document)
    sources = _hatch_sources(option("sources", []), packages)
    trees: list[Tree] = []
    for path in only_include or packages:
        source = posix(path)
        trees.append(Tree(source, _hatch_destination(source, sources), is_file=(root / source).is_file()))
    if not trees:  # `include` patterns alone: any file of the project that matches
        trees.append(Tree(PurePosixPath("."), _hatch_destination(PurePosixPath("."), sources)))
    force = option("force-include", {})
    if isinstance(force, dict):
        for source, destination in force.items():
            if isinstance(source, str) and isinstance(destination, str):
                trees.append(Tree(posix(source), posix(destination), is_file=(root / posix(source)).is_file()))
    only_packages = option("only-packages", False) is True
    # With `packages`/`only-include` hatch walks those paths and ships every file there (bar the
    # excluded): `include` patterns select files only when neither is set.
    selecting = tuple(include) if include and not (only_include or packages) else None
    return WheelLayout(
        "hatchling", config, tuple(trees), selecting, tuple(exclude), gitignore_style=True, needs_init=only_packages
    )


def _hatch_default(root: Path, document: dict[str, Any]) -> tuple[list[str], list[str]]:
    """hatch's wheel heuristics: `<name>/`, `src/<name>/`, `<name>.py`, `*/<name>/` (a namespace)."""
    raw = _project_name(document)
    for name in dict.fromkeys((re.sub(r"[^\w\d.]+", "_", raw), _normalise(raw))):
        if (root / name / "__init__.py").is_file():
            return [name], []
        if (root / "src" / name / "__init__.py").is_file():
            return [f"src/{name}"], []
        if (root / f"{name}.py").is_file():
            return [], [f"{name}.py"]
        namespaces = list(root.glob(f"*/{name}/__init__.py"))
        if len(namespaces) == 1:
            return [namespaces[0].relative_to(root).parts[0]], []
    raise Unreadable(f"hatchling: no `{_normalise(raw)}` package or module and no `packages` in pyproject.toml")


def _hatch_sources(raw: object, packages: list[str]) -> dict[str, str]:
    """hatch's `sources` (prefixes rewritten in the wheel), with each package's parent stripped."""
    sources: dict[str, str] = {}
    if isinstance(raw, list):
        sources.update({str(posix(source)): "" for source in raw if isinstance(source, str)})
    elif isinstance(raw, dict):
        sources.update({str(posix(k)) if k else "": str(posix(v)) for k, v in raw.items() if isinstance(v, str)})
    for package in packages:
        parent = str(PurePosixPath(package).parent)
        if parent != "." and package not in sources:
            sources.setdefault(parent, "")
    return dict(sorted(sources.items()))


def _hatch_destination(source: PurePosixPath, sources: dict[str, str]) -> PurePosixPath:
    text = str(source)
    for prefix, replacement in sources.items():
        if prefix in ("", "."):
            return posix(f"{replacement}/{text}")
        if text == prefix or text.startswith(prefix + "/"):
            return posix(replacement + text[len(prefix) :])
    return source


# -- poetry-core -----------------------------------------------------------------------------
def _poetry(root: Path, document: dict[str, Any]) -> WheelLayout:
    poetry = _table(document, "tool", "poetry")
    config = "pyproject.toml [tool.poetry]"
    packages = poetry.get("packages")
    trees: list[Tree] = []
    if packages is None:
        name = _normalise(_project_name(document, ("tool", "poetry")))
        for base in (PurePosixPath("."), PurePosixPath("src")):
            if (root / base / name).is_dir():
                trees.append(Tree(base / name, PurePosixPath(name)))
                break
            if (root / base / f"{name}.py").is_file():
                trees.append(Tree(base / f"{name}.py", PurePosixPath(f"{name}.py"), is_file=True))
                break
        else:
            raise Unreadable(f"poetry-core: no `{name}` package or module and no `packages` in pyproject.toml")
    elif not isinstance(packages, list):
        raise Unreadable("pyproject.toml: poetry `packages` is not a list")
    for entry in packages or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("include"), str):
            raise Unreadable("pyproject.toml: a poetry `packages` entry without an `include` string")
        formats = entry.get("format", ["sdist", "wheel"])
        if "wheel" not in ([formats] if isinstance(formats, str) else formats):
            continue
        if has_magic(entry["include"]):
            raise Unreadable(f"pyproject.toml: poetry package `{entry['include']}` is a glob mcplint does not read")
        base = posix(entry.get("from", "."))
        include = posix(entry["include"])
        destination = posix(entry.get("to", ".")) / include
        trees.append(Tree(base / include, destination, is_file=(root / base / include).is_file()))
    exclude = _strings(poetry.get("exclude", []), "poetry `exclude`")
    return WheelLayout("poetry-core", config, tuple(trees), exclude=tuple(exclude))


# -- flit-core -------------------------------------------------------------------------------
def _flit(root: Path, document: dict[str, Any]) -> WheelLayout:
    module = _table(document, "tool", "flit", "module").get("name")
    if not isinstance(module, str):
        module = _project_name(document).replace("-", "_")
    config = "pyproject.toml [tool.flit.module]"
    relative = PurePosixPath(*module.split("."))
    for base in (PurePosixPath("."), PurePosixPath("src")):
        if (root / base / relative / "__init__.py").is_file():
            return WheelLayout("flit-core", config, (Tree(base / relative, relative),))
        single = base / relative.with_suffix(".py")
        if (root / single).is_file():
            return WheelLayout("flit-core", config, (Tree(single, relative.with_suffix(".py"), is_file=True),))
    raise Unreadable(f"flit-core: no module or package `{module}` (set [tool.flit.module] name)")


# -- pdm-backend -----------------------------------------------------------------------------
def _pdm(root: Path, document: dict[str, Any]) -> WheelLayout:
    build = _table(document, "tool", "pdm", "build")
    config = "pyproject.toml [tool.pdm.build]"
    includes = _strings(build.get("includes", []), "pdm `includes`")
    excludes = _strings(build.get("excludes", []), "pdm `excludes`")
    source_includes = _strings(build.get("source-includes", []), "pdm `source-includes`") or ["tests"]
    if "package-dir" in build:
        package_dir = str(posix(str(build["package-dir"])))
    elif ((root / "src").is_dir() and not includes) or (
        any(posix(p).parts[:1] == ("src",) for p in includes) and "src" not in excludes and "src/" not in excludes
    ):
        package_dir = "src"
    else:
        package_dir = "."
    strip = PurePosixPath(package_dir)
    trees: list[Tree] = []
    patterns: list[str] = []
    if not includes:
        tops = [path for path in sorted((root / package_dir).iterdir()) if _is_pdm_package(path)]
        includes = [str(PurePosixPath(package_dir) / path.name) for path in tops] or [f"{package_dir}/*.py"]
    for include in includes:
        if has_magic(include):
            patterns.append(include)
            continue
        source = posix(include)
        inside = (
            source.relative_to(strip)
            if str(strip) != "." and source.parts[: len(strip.parts)] == strip.parts
            else source
        )
        trees.append(Tree(source, inside, is_file=(root / source).is_file()))
    if patterns:  # globs: any file under the package dir that one matches (or a directory above it)
        trees.append(Tree(strip, PurePosixPath(".")))
    include_filter = (
        tuple([*patterns, *(str(tree.source) for tree in trees if tree.source != strip)]) if patterns else None
    )
    return WheelLayout("pdm-backend", config, tuple(trees), include_filter, tuple([*excludes, *source_includes]))


def _is_pdm_package(path: Path) -> bool:
    if not path.is_dir() or path.name in ("__pycache__", "__pypackages__"):
        return False
    return (path / "__init__.py").is_file() or (path.name.endswith("-stubs") and (path / "__init__.pyi").is_file())


# -- uv_build --------------------------------------------------------------------------------
def _uv(root: Path, document: dict[str, Any]) -> WheelLayout:
    backend = _table(document, "tool", "uv", "build-backend")
    config = "pyproject.toml [tool.uv.build-backend]"
    module_root = posix(str(backend.get("module-root", "src")))
    names = backend.get("module-name")
    modules = _strings(names, "uv `module-name`") if names is not None else [_normalise(_project_name(document))]
    trees = []
    for module in modules:
        relative = PurePosixPath(*module.split("."))
        if (root / module_root / relative).is_dir():
            trees.append(Tree(module_root / relative, relative))
        elif (root / module_root / relative.with_suffix(".py")).is_file():
            trees.append(Tree(module_root / relative.with_suffix(".py"), relative.with_suffix(".py"), is_file=True))
        else:
            raise Unreadable(f"uv_build: no module `{module}` under `{module_root}` (set module-name/module-root)")
    exclude = _strings(backend.get("wheel-exclude", []), "uv `wheel-exclude`")
    return WheelLayout("uv_build", config, tuple(trees), exclude=tuple(exclude), gitignore_style=True)
