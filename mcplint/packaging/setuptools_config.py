"""What setuptools ships: `[tool.setuptools]`, `setup.cfg` `[options]`, and a `setup.py` read statically.

`packages`, `package-dir` and `py-modules` come from whichever of the three
sets them (two that set one differently: unreadable); a `find` directive and
`find_packages()`/`find_namespace_packages()` calls with literal arguments
are run over the directory tree as setuptools runs them; with none of them,
setuptools' automatic discovery (`package_dir[""]`, else `src/`, else a flat
layout that must hold exactly one top-level package or module). A `setup.py`
is parsed, never run: a value that is not a literal (or a module-level name
bound to one, or a find call) makes the layout unreadable.
"""

from __future__ import annotations

import ast
import configparser
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

from mcplint.packaging.layout import Tree, Unreadable, WheelLayout, posix

_FLAT_EXCLUDE = (
    "ci", "bin", "doc", "docs", "documentation", "manpages", "news", "changelog", "test", "tests",
    "unit_test", "unit_tests", "example", "examples", "scripts", "tools", "util", "utils", "python",
    "build", "dist", "venv", "env", "requirements", "tasks", "fabfile", "site_scons", "benchmark",
    "benchmarks", "exercise", "exercises", "[._]*",
)  # fmt: skip
_FLAT_MODULE_EXCLUDE = (
    "setup", "conftest", "test", "tests", "example", "examples", "build", "toxfile", "noxfile", "pavement",
    "dodo", "tasks", "fabfile", "[Ss][Cc]onstruct", "conanfile", "manage", "benchmark", "benchmarks",
    "exercise", "exercises", "[._]*",
)  # fmt: skip


@dataclass(frozen=True)
class Find:
    where: tuple[str, ...] = (".",)
    include: tuple[str, ...] = ("*",)
    exclude: tuple[str, ...] = ()
    namespaces: bool = True
    fills_package_dir: bool = True  # a config file's `find` maps the packages to where it found them


@dataclass
class _Options:
    packages: list[str] | Find | None = None
    package_dir: dict[str, str] = field(default_factory=dict)
    py_modules: list[str] | None = None
    said_by: dict[str, str] = field(default_factory=dict)  # option → the file that set it

    def set(self, key: str, value: object, source: str) -> None:
        if value is None or (key == "package_dir" and not value):
            return
        current = getattr(self, key)
        if key in self.said_by and current != value:
            raise Unreadable(f"setuptools `{key}` is set in both {self.said_by[key]} and {source}, differently")
        setattr(self, key, value)
        self.said_by[key] = source


def setuptools_layout(root: Path, document: dict[str, Any]) -> WheelLayout:
    options = _Options()
    _from_pyproject(document, options)
    _from_setup_cfg(root, options)
    _from_setup_py(root, options)
    config = ", ".join(dict.fromkeys(options.said_by.values())) or "automatic discovery"
    packages, modules = _discover(root, options)
    trees = [Tree(directory, PurePosixPath(*name.split(".")), whole=False) for name, directory in packages]
    trees += [Tree(path, PurePosixPath(f"{name.replace('.', '/')}.py"), is_file=True) for name, path in modules]
    return WheelLayout("setuptools", config, tuple(trees))


# -- reading the three sources ------------------------------------------------------------
def _from_pyproject(document: dict[str, Any], options: _Options) -> None:
    table = document.get("tool", {}).get("setuptools", {}) if isinstance(document.get("tool"), dict) else {}
    if not isinstance(table, dict):
        return
    where = "pyproject.toml [tool.setuptools]"
    packages = table.get("packages")
    if isinstance(packages, dict):
        find = packages.get("find", {})
        if not isinstance(find, dict):
            raise Unreadable(f"{where}: `packages` is neither a list nor a `find` table")
        packages = Find(
            tuple(_listed(find.get("where", ["."]))),
            tuple(_listed(find.get("include", ["*"]))),
            tuple(_listed(find.get("exclude", []))),
            find.get("namespaces", True) is not False,
        )
    elif packages is not None:
        packages = _listed(packages)
    options.set("packages", packages, where)
    package_dir = table.get("package-dir")
    if package_dir is not None and not isinstance(package_dir, dict):
        raise Unreadable(f"{where}: `package-dir` is not a table")
    options.set("package_dir", {str(k): str(v) for k, v in (package_dir or {}).items()}, where)
    modules = table.get("py-modules")
    options.set("py_modules", _listed(modules) if modules is not None else None, where)


def _from_setup_cfg(root: Path, options: _Options) -> None:
    path = root / "setup.cfg"
    if not path.is_file():
        return
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError, OSError) as error:
        raise Unreadable(f"{path}: cannot read: {str(error).splitlines()[0]}") from error
    if not parser.has_section("options"):
        return
    section = parser["options"]
    raw = section.get("packages")
    packages: list[str] | Find | None = None
    if raw is not None:
        value = raw.strip()
        if value in ("find:", "find_namespace:"):
            found = parser["options.packages.find"] if parser.has_section("options.packages.find") else {}
            packages = Find(
                tuple(_cfg_list(found.get("where", ".")) or ["."]),
                tuple(_cfg_list(found.get("include", "")) or ["*"]),
                tuple(_cfg_list(found.get("exclude", ""))),
                value == "find_namespace:",
            )
        elif value.startswith(("attr:", "file:")):
            raise Unreadable(f"{path}: `packages = {value}` is not read statically")
        else:
            packages = _cfg_list(value)
    options.set("packages", packages, "setup.cfg [options]")
    package_dir = {}
    for line in _cfg_list(section.get("package_dir", "")):
        key, _, value = line.partition("=")
        package_dir[key.strip()] = value.strip()
    options.set("package_dir", package_dir, "setup.cfg [options]")
    modules = section.get("py_modules")
    options.set("py_modules", _cfg_list(modules) if modules is not None else None, "setup.cfg [options]")


def _from_setup_py(root: Path, options: _Options) -> None:
    path = root / "setup.py"
    if not path.is_file():
        return
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except (SyntaxError, ValueError, OSError) as error:
        raise Unreadable(f"{path}: cannot parse: {error}") from error
    names = _module_literals(tree)
    calls = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _callee(node.func) == "setup"
    ]  # fmt: skip
    if len(calls) > 1:
        raise Unreadable(f"{path}:{calls[1].lineno}: more than one setup() call")
    if not calls:
        return
    call = calls[0]
    if any(keyword.arg is None for keyword in call.keywords):
        raise Unreadable(f"{path}:{call.lineno}: setup(**...) is not read statically")
    where = "setup.py"
    for keyword in call.keywords:
        value = _static(keyword.value, names, path)
        if keyword.arg == "packages":
            if not (isinstance(value, Find) or _is_strings(value)):
                raise Unreadable(f"{path}:{keyword.value.lineno}: `packages` is not a literal list")
            options.set("packages", value, where)
        elif keyword.arg == "package_dir":
            if not isinstance(value, dict):
                raise Unreadable(f"{path}:{keyword.value.lineno}: `package_dir` is not a literal dict")
            options.set("package_dir", {str(k): str(v) for k, v in value.items()}, where)
        elif keyword.arg == "py_modules":
            if not _is_strings(value):
                raise Unreadable(f"{path}:{keyword.value.lineno}: `py_modules` is not a literal list")
            options.set("py_modules", _listed(value), where)


_UNKNOWN = object()


def _static(node: ast.expr, names: dict[str, ast.expr], path: Path) -> object:
    """A literal, a module-level name bound once to one, or a find call with literal arguments;
    `_UNKNOWN` for anything else (read only where it matters)."""
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, ast.Call) and _callee(node.func) in ("find_packages", "find_namespace_packages"):
        if any(isinstance(arg, ast.Starred) for arg in node.args) or any(k.arg is None for k in node.keywords):
            return _UNKNOWN
        values = {}
        for index, arg in enumerate(node.args):
            values[("where", "exclude", "include")[index] if index < 3 else "?"] = arg
        values.update({keyword.arg: keyword.value for keyword in node.keywords if keyword.arg is not None})
        try:
            literal = {key: ast.literal_eval(value) for key, value in values.items()}
        except ValueError:
            return _UNKNOWN
        return Find(
            (str(literal.get("where", ".")),),
            tuple(literal.get("include", ("*",))),
            tuple(literal.get("exclude", ())),
            _callee(node.func) == "find_namespace_packages",
            fills_package_dir=False,
        )
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _UNKNOWN


def _module_literals(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names assigned exactly once: `PACKAGES = find_packages("src")`."""
    assigned: dict[str, list[ast.expr]] = {}
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            assigned.setdefault(statement.targets[0].id, []).append(statement.value)
    return {name: values[0] for name, values in assigned.items() if len(values) == 1}


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _is_strings(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)


def _listed(value: object) -> list[str]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise Unreadable("setuptools: a value that should be a list of strings is not")
    return [str(item) for item in value]


def _cfg_list(value: str) -> list[str]:
    return [item.strip() for line in value.splitlines() for item in line.split(",") if item.strip()]


# -- what they add up to --------------------------------------------------------------------
def _discover(root: Path, options: _Options) -> tuple[list[tuple[str, PurePosixPath]], list[tuple[str, PurePosixPath]]]:
    """(package, its directory) and (module, its file), both relative to ``root``."""
    package_dir = dict(options.package_dir)
    packages: list[tuple[str, PurePosixPath]] = []
    if isinstance(options.packages, Find):
        packages = _run_find(root, options.packages, package_dir)
    elif options.packages is not None:
        packages = [(name, _directory_of(name, package_dir)) for name in options.packages]
    modules = [(name, _directory_of(name, package_dir).with_suffix(".py")) for name in options.py_modules or []]
    if options.packages is not None or options.py_modules is not None:
        return packages, modules
    return _automatic(root, package_dir)


def _run_find(root: Path, find: Find, package_dir: dict[str, str]) -> list[tuple[str, PurePosixPath]]:
    found = []
    for where in find.where:
        base = posix(where)
        for name in _find_packages(root / base, find.include, find.exclude, find.namespaces):
            if find.fills_package_dir or not package_dir:
                found.append((name, base / PurePosixPath(*name.split("."))))
            else:
                found.append((name, _directory_of(name, package_dir)))
    return found


def _find_packages(where: Path, include: tuple[str, ...], exclude: tuple[str, ...], namespaces: bool,
                   looks_valid: Callable[[str], bool] = lambda name: True) -> list[str]:  # fmt: skip
    """setuptools' PackageFinder: directories (with `__init__.py` unless ``namespaces``), dotted."""
    found = []
    for directory, subdirectories, _ in os.walk(where, followlinks=True):
        kept = []
        for name in sorted(subdirectories):
            full = Path(directory, name)
            package = ".".join(full.relative_to(where).parts)
            if "." in name or name == "__pycache__" or not looks_valid(package):
                continue
            if not namespaces and not (full / "__init__.py").is_file():
                continue
            excluded = any(fnmatchcase(package, p) for p in exclude)
            if any(fnmatchcase(package, p) for p in include) and not excluded:
                found.append(package)
            if excluded and any(fnmatchcase(f"{package}.sub.module", p) for p in exclude):
                continue  # everything below is excluded too (`venv`, `venv.*`): not walked
            kept.append(name)
        subdirectories[:] = kept
    return found


_Found = list[tuple[str, PurePosixPath]]  # (package or module, its directory or file)


def _automatic(root: Path, package_dir: dict[str, str]) -> tuple[_Found, _Found]:
    """setuptools' automatic discovery, when nothing lists packages or modules."""
    explicit = {name: directory for name, directory in package_dir.items() if name}
    if explicit:
        packages = []
        for name, directory in explicit.items():
            packages.append((name, posix(directory)))
            for nested in _find_packages(root / directory, ("*",), (), True):
                packages.append((f"{name}.{nested}", posix(directory) / PurePosixPath(*nested.split("."))))
        return packages, []
    source = posix(package_dir.get("", "src"))
    if (root / source).is_dir():
        names = _find_packages(root / source, ("*",), (), True)
        modules = [
            (path.stem, source / path.name) for path in sorted((root / source).glob("*.py")) if path.stem.isidentifier()
        ]
        return [(name, source / PurePosixPath(*name.split("."))) for name in names], modules
    exclude = tuple(pattern for name in _FLAT_EXCLUDE for pattern in (name, f"{name}.*"))
    names = _find_packages(root, ("*",), exclude, True, looks_valid=_valid_flat_name)
    top = sorted({name.split(".")[0] for name in names})
    if len(top) > 1:
        raise Unreadable(f"setuptools' automatic discovery finds several top-level packages ({', '.join(top)}): "
                         "its build fails; list `packages`")  # fmt: skip
    if names:
        return [(name, PurePosixPath(*name.split("."))) for name in names], []
    flat_modules = [
        path.stem for path in sorted(root.glob("*.py"))
        if path.stem.isidentifier() and not any(fnmatchcase(path.stem, p) for p in _FLAT_MODULE_EXCLUDE)
    ]  # fmt: skip
    if len(flat_modules) > 1:
        raise Unreadable(f"setuptools' automatic discovery finds several top-level modules ({', '.join(flat_modules)}): "
                         "its build fails; list `py-modules`")  # fmt: skip
    return [], [(name, PurePosixPath(f"{name}.py")) for name in flat_modules]


def _valid_flat_name(package: str) -> bool:
    names = package.split(".")
    return (names[0].isidentifier() or names[0].endswith("-stubs")) and all(name.isidentifier() for name in names[1:])


def _directory_of(package: str, package_dir: dict[str, str]) -> PurePosixPath:
    """setuptools' `build_py.get_package_dir`: the longest `package_dir` prefix, else `""`'s."""
    parts = package.split(".")
    tail: list[str] = []
    while parts:
        key = ".".join(parts)
        if key in package_dir:
            return posix(package_dir[key]) / PurePosixPath(*tail) if tail else posix(package_dir[key])
        tail.insert(0, parts.pop())
    return posix(package_dir.get("", ".")) / PurePosixPath(*tail)
