"""``[tool.mcplint]`` discovery, validation and the settings each file gets.

For each file the closest ``mcplint.toml`` (keys at the top level) or
``pyproject.toml`` with a ``[tool.mcplint]`` table wins, as in ruff; files are
merged only through ``extend = "../pyproject.toml"`` (relative to the file that
says it): the extended file is read first, then every key the extending file
sets replaces its value, except ``extend-exclude``, which adds to it; rule
selection applies in layers (the extended file's outcome, then this file's
``select`` / ``extend-select`` / ``ignore``), as in ruff. ``--config FILE``
applies one file to everything.
Paths (``registry``, ``cache-dir``) are relative to the file that sets them;
globs (excludes, per-file-ignores) to the directory of the file that was found
for the linted file, the project root; without a config the working directory
is the root. Every value remembers where it came from (``Config.sources``), for
``--show-settings``.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from mcplint.catalogue import known_codes
from mcplint.settings import FileSettings
from mcplint.toml_depth import MAX_NESTING, too_deep

# Imports inside functions: the rules (to validate `[tool.mcplint.rules]` options) and pathspec are imported
# only by a config that uses them.

if sys.version_info >= (3, 11):
    import tomllib as tomllib  # re-exported: what every TOML reader of mcplint uses
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # re-exported

DEFAULT_EXCLUDE = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".mypy_cache",
    ".nox",
    ".pytest_cache",
    ".ruff_cache",
    ".mcplint_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "_build",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)
LIST_KEYS = (
    "select",
    "extend-select",
    "ignore",
    "exclude",
    "extend-exclude",
    "handler-decorators",
    "handler-functions",
)
TABLE_KEYS = ("per-file-ignores", "rules")
STRING_KEYS = ("cache-dir", "registry", "default-symbol", "extend")
# Keys whose value adds to the extended file's instead of replacing it.
ACCUMULATING_KEYS = ("extend-exclude",)
SELECTION_KEYS = ("select", "extend-select", "ignore")
DEFAULT_REGISTRY = "mcp-errors.toml"
DEFAULT_LINE_LENGTH = 88  # ruff's and black's default
RUFF_CONFIG_FILES = (".ruff.toml", "ruff.toml")  # before pyproject.toml, in ruff's order
KNOWN_KEYS = LIST_KEYS + TABLE_KEYS + STRING_KEYS


class ConfigError(Exception):
    """A problem in a config file or on the command line; exit code 2."""

    def __init__(self, message: str, path: Path | None = None, line: int | None = None) -> None:
        super().__init__(f"{_location(path, line)}{message}")


def _location(path: Path | None, line: int | None) -> str:
    if path is None:
        return ""
    return f"{path}:{line}: " if line else f"{path}: "


class ConfigErrors(ConfigError):
    """Every problem of a config file at once, one per line (fixing one typo at a time is slow)."""

    def __init__(self, errors: list[ConfigError]) -> None:
        Exception.__init__(self, "\n".join(str(error) for error in errors))
        self.errors = errors


@dataclass
class Config:
    root: Path
    path: Path | None = None
    select: list[str] = field(default_factory=lambda: ["ALL"])
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: list[str] = field(default_factory=list)
    handler_decorators: list[str] = field(default_factory=list)
    handler_functions: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    cache_dir: Path | None = None
    default_symbol: str | None = None  # the registry symbol MCP005's fix raises
    registry_path: Path | None = None  # as configured; see `registry`
    # key -> where its value came from ("pyproject.toml:7", "--exclude"); absent: the default.
    sources: dict[str, str] = field(default_factory=dict)
    extends: list[Path] = field(default_factory=list)  # the chain of `extend`ed files, nearest first
    # --exclude / --extend-exclude: matched relative to the working directory, not the config's root.
    command_line_excludes: tuple[str, ...] = ()
    command_line_root: Path | None = None

    @property
    def registry(self) -> Path | None:
        """The error registry: `registry = "..."`, else mcp-errors.toml beside the config."""
        if self.registry_path is not None:
            return self.registry_path
        default = self.root / DEFAULT_REGISTRY
        return default if default.is_file() else None

    def source_of(self, key: str, cwd: Path | None = None) -> str:
        """Where ``key``'s value came from ("default" when no file set it), paths relative to ``cwd``."""
        source = self.sources.get(key)
        if source is None:
            return "default"
        return " + ".join(_relative_source(piece, cwd) for piece in source.split(" + ")) if cwd else source

    def is_excluded(self, path: Path, *, is_dir: bool) -> bool:
        return self.excluded_by(path, is_dir=is_dir) is not None

    def excluded_by(self, path: Path, *, is_dir: bool) -> str | None:
        """The setting whose pattern excludes ``path`` (`exclude`, `extend-exclude`, `--exclude`), or None."""
        if _exclude_spec(tuple(self.exclude)).matches(path, self.root, is_dir=is_dir):
            return "exclude"
        if _exclude_spec(tuple(self.extend_exclude)).matches(path, self.root, is_dir=is_dir):
            return "extend-exclude"
        if self.command_line_excludes and _exclude_spec(self.command_line_excludes).matches(
            path, self.command_line_root or self.root, is_dir=is_dir
        ):
            return "--exclude/--extend-exclude"
        return None


def _relative_source(source: str, cwd: Path) -> str:
    """`/project/pyproject.toml:3` as `pyproject.toml:3` when the working directory is /project."""
    path, separator, line = source.rpartition(":")
    if not separator or not line.isdigit():
        path, line = source, ""
    if not os.path.isabs(path):
        return source
    try:
        shown = Path(path).relative_to(cwd).as_posix()
    except ValueError:
        shown = os.path.relpath(path, cwd) if Path(path).anchor == cwd.anchor else path
    return f"{shown}:{line}" if line else shown


@dataclass(frozen=True)
class CliOverrides:
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] | None = None  # replaces every config's `exclude`
    extend_exclude: tuple[str, ...] = ()


# -- loading -----------------------------------------------------------------
def load_config(path: Path, _extended_by: tuple[Path, ...] = ()) -> Config:
    """The config in ``path``, over the files it extends; ``_extended_by``: the files that
    led here through `extend`, to report a cycle instead of recursing forever."""
    text, table, section = _read_table(path)
    base = None
    extend = table.get("extend")
    if extend is not None:
        line = _line_of_key(text, "extend")
        if not isinstance(extend, str):
            raise ConfigError("'extend' must be a string (a path to another config file)", path, line)
        target = (path.parent / os.path.expanduser(extend)).resolve()
        chain = (*_extended_by, path.resolve())
        if target in chain:
            cycle = " -> ".join(str(step) for step in (*chain[chain.index(target) :], target))
            raise ConfigError(f"'extend' makes a cycle: {cycle}", path, line)
        if not target.is_file():
            raise ConfigError(f"'extend': {extend}: no such config file", path, line)
        base = load_config(target, chain)
    return _parse_table(table, path, text, section, base)


def _read_table(path: Path) -> tuple[str, Mapping[str, Any], str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"cannot read config: {error.strerror}", path) from None
    except UnicodeDecodeError as error:
        line = error.object[: error.start].count(b"\n") + 1
        raise ConfigError("config is not valid UTF-8", path, line) from None
    deep = too_deep(text)
    if deep is not None:
        raise ConfigError(f"arrays or inline tables nested more than {MAX_NESTING} deep", path, deep)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        lineno = getattr(error, "lineno", None)  # Python 3.14+ and recent tomli
        found = lineno if isinstance(lineno, int) and lineno else _line_from_message(str(error), text)
        raise ConfigError(f"invalid TOML: {str(error).split(' (at')[0]}", path, found) from None
    if path.name == "pyproject.toml":
        return text, document.get("tool", {}).get("mcplint", {}), "[tool.mcplint]"
    return text, document, path.name


def _line_from_message(message: str, text: str) -> int | None:
    match = re.search(r"line (\d+)", message)
    if match:
        return int(match.group(1))
    if "end of document" in message:
        return text.count("\n") + 1
    return None


def _parse_table(
    table: Mapping[str, Any], path: Path, text: str, section: str, base: Config | None = None
) -> Config:
    config = Config(root=path.parent.absolute(), path=path)
    if base is not None:
        config = replace(
            base,
            root=config.root,
            path=path,
            sources=dict(base.sources),
            extends=[base.path, *base.extends] if base.path is not None else list(base.extends),
        )
    errors: list[ConfigError] = []

    def fail(key: str, message: str) -> ConfigError:
        return ConfigError(message, path, _line_of_key(text, key))

    if base is not None and any(key in table for key in SELECTION_KEYS):
        # As in ruff, selection applies in layers: the extended file's outcome first, then this
        # file's select / extend-select / ignore (an `extend-select` here re-enables what it ignored).
        # (The extended file's selectors were validated when it loaded.)
        inherited = resolve_selectors(base.select) | resolve_selectors(base.extend_select)
        config.select = sorted(inherited - resolve_selectors(base.ignore))
        config.extend_select, config.ignore = [], []
        origin = " + ".join(base.sources[key] for key in SELECTION_KEYS if key in base.sources)
        config.sources = {key: value for key, value in config.sources.items() if key not in SELECTION_KEYS}
        if origin:
            config.sources["select"] = f"{origin} (resolved)"

    for key, value in table.items():
        try:
            _set_key(config, key, value, fail, section)
        except ConfigErrors as several:
            errors.extend(several.errors)
            continue
        except ConfigError as error:
            errors.append(error)
            continue
        line = _line_of_key(text, key)
        here = f"{path}:{line}" if line else str(path)
        if key in ACCUMULATING_KEYS and key in config.sources:
            config.sources[key] = f"{config.sources[key]} + {here}"
        else:
            config.sources[key] = here
    for key in ("select", "extend-select", "ignore"):
        try:
            resolve_selectors(getattr(config, key.replace("-", "_")))
        except ConfigError as error:
            errors.append(fail(key, f"'{key}': {error}"))
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise ConfigErrors(errors)
    return config


def _set_key(config: Config, key: str, value: Any, fail: Any, section: str) -> None:
    if key not in KNOWN_KEYS:
        hint = difflib.get_close_matches(key, KNOWN_KEYS, n=1)
        suggestion = f" (did you mean '{hint[0]}'?)" if hint else ""
        raise fail(key, f"unknown key '{key}' in {section}{suggestion}")
    if key in LIST_KEYS:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise fail(key, f"'{key}' must be a list of strings")
        attribute = key.replace("-", "_")
        inherited = getattr(config, attribute) if key in ACCUMULATING_KEYS else []
        setattr(config, attribute, [*inherited, *value])
    elif key == "extend":
        pass  # read by load_config, before the rest
    elif key in STRING_KEYS:
        if not isinstance(value, str):
            raise fail(key, f"'{key}' must be a string")
        if key == "default-symbol":
            config.default_symbol = value
        else:
            directory = config.path.parent.absolute() if config.path is not None else config.root
            setattr(config, "cache_dir" if key == "cache-dir" else "registry_path", directory / value)
    elif key == "per-file-ignores":
        config.per_file_ignores = _parse_per_file_ignores(value, fail)
    else:
        config.rules = _parse_rule_options(value, fail)


def _parse_per_file_ignores(value: Any, fail: Any) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise fail("per-file-ignores", "'per-file-ignores' must be a table of glob = [codes]")
    for glob, codes in value.items():
        if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
            raise fail(glob, f"per-file-ignores '{glob}' must be a list of codes")
        try:
            resolve_selectors(codes)
        except ConfigError as error:
            raise fail(glob, f"per-file-ignores '{glob}': {error}") from None
    return {glob: list(codes) for glob, codes in value.items()}


def _parse_rule_options(value: Any, fail: Any) -> dict[str, dict[str, Any]]:
    """The [rules.<CODE>] tables; every unknown rule or option is reported, not only the first."""
    from mcplint.rules import RULES_BY_CODE

    if not isinstance(value, dict):
        raise fail("rules", "'rules' must be a table of [rules.<CODE>] tables")
    parsed: dict[str, dict[str, Any]] = {}
    errors: list[ConfigError] = []
    for code, options in value.items():
        rule = RULES_BY_CODE.get(code.upper())
        if rule is None:
            errors.append(fail(code, f"unknown rule '{code}' in rules options"))
            continue
        if not isinstance(options, dict):
            errors.append(fail(code, f"rules.{code} must be a table"))
            continue
        for option, option_value in options.items():
            if option not in rule.options:
                known = ", ".join(rule.options) or "none"
                errors.append(fail(option, f"unknown option '{option}' for {rule.code} (known: {known})"))
            elif not isinstance(option_value, type(rule.options[option])):
                kind = type(rule.options[option]).__name__
                errors.append(fail(option, f"option '{option}' of {rule.code} must be a {kind}"))
        parsed[rule.code] = dict(options)
    if errors:
        raise errors[0] if len(errors) == 1 else ConfigErrors(errors)
    return parsed


def _line_of_key(text: str, key: str) -> int | None:
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", re.MULTILINE)
    match = pattern.search(text)
    if match is None:
        match = re.compile(rf"^\s*\[.*\b{re.escape(key)}\b.*\]", re.MULTILINE).search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


# -- rule selection ------------------------------------------------------------
def resolve_selectors(selectors: Iterable[str]) -> set[str]:
    """Codes named by selectors: ``ALL``, a full code, or a code prefix (``MCP00``, ``REG``)."""

    known = sorted(known_codes())
    codes: set[str] = set()
    for selector in selectors:
        wanted = selector.strip().upper()
        if wanted == "ALL":
            codes.update(known)
            continue
        matched = {code for code in known if code.startswith(wanted)} if wanted else set()
        if not matched:
            raise ConfigError(f"unknown rule selector '{selector}'")
        codes |= matched
    return codes


def selected_codes(config: Config, cli: CliOverrides) -> frozenset[str]:
    codes = resolve_selectors(config.select) | resolve_selectors(config.extend_select)
    codes -= resolve_selectors(config.ignore)
    if cli.select is not None:
        codes = resolve_selectors(cli.select)
    codes |= resolve_selectors(cli.extend_select)
    codes -= resolve_selectors(cli.ignore)
    return frozenset(codes)


# -- per-directory resolution ----------------------------------------------------
def config_file_in(directory: Path) -> Path | None:
    """The config file that lives in ``directory`` itself, if any."""
    mcplint_toml = directory / "mcplint.toml"
    if mcplint_toml.is_file():
        return mcplint_toml
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file() and _has_mcplint_table(pyproject):
        return pyproject
    return None


def _has_mcplint_table(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False  # not mcplint's to judge: another tool's file
    return re.search(r"^\s*\[\s*tool\s*\.\s*mcplint\b", text, re.MULTILINE) is not None


# -- the project's line length ---------------------------------------------------
def line_length_in(directory: Path) -> int | None:
    """The line length set by the formatter config that lives in ``directory`` itself:
    ruff's (`.ruff.toml`, `ruff.toml`, `[tool.ruff]`; through its `extend`), else black's
    (`[tool.black]`), else 88 when one of those configs is there; None when none is.
    These files are other tools': one that does not read, or a value that is not a
    positive integer, counts as not setting the length (ruff or black report it)."""
    ruff: Path | None = next((directory / name for name in RUFF_CONFIG_FILES if (directory / name).is_file()), None)
    pyproject = directory / "pyproject.toml"
    tool: Mapping[str, Any] = {}
    if pyproject.is_file() and re.search(r"^\s*\[\s*tool\s*\.\s*(ruff|black)\b", _text_of(pyproject), re.MULTILINE):
        tool = _tool_tables(pyproject)
    if ruff is None and "ruff" in tool:
        ruff = pyproject
    if ruff is None and "black" not in tool:
        return None
    length = _ruff_line_length(ruff) if ruff is not None else None
    if length is None:
        length = _positive_int(tool.get("black", {}).get("line-length"))
    return length or DEFAULT_LINE_LENGTH


def _ruff_line_length(path: Path, seen: tuple[Path, ...] = ()) -> int | None:
    """`line-length` of a ruff config, or of the file its `extend` names (relative to it)."""
    tables = _tool_tables(path) if path.name == "pyproject.toml" else {"ruff": _toml_of(path)}
    table = tables.get("ruff", {})
    length = _positive_int(table.get("line-length"))
    extend = table.get("extend")
    if length is None and isinstance(extend, str) and len(seen) < 8:
        target = (path.parent / os.path.expanduser(extend)).resolve()
        if target.is_file() and target not in seen:
            return _ruff_line_length(target, (*seen, path.resolve()))
    return length


def _positive_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _text_of(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _toml_of(path: Path) -> Mapping[str, Any]:
    text = _text_of(path)
    if too_deep(text) is not None:
        return {}
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}
    return document


def _tool_tables(pyproject: Path) -> Mapping[str, Any]:
    tool = _toml_of(pyproject).get("tool", {})
    if not isinstance(tool, dict):
        return {}
    return {name: table for name, table in tool.items() if name in ("ruff", "black") and isinstance(table, dict)}


class ConfigResolver:
    """Finds, loads (once) and applies the config for each file."""

    def __init__(self, cli: CliOverrides, config_file: Path | None = None, cwd: Path | None = None) -> None:
        self.cli = cli
        self.cwd = (cwd or Path.cwd()).absolute()
        self._fixed = load_config(config_file) if config_file is not None else None
        if self._fixed is not None:
            self._fixed.root = self.cwd  # --config paths are relative to the working directory
            self._with_command_line(self._fixed)
        self._loaded: dict[Path | None, Config] = {}
        self._config_file_of: dict[Path, Path | None] = {}
        self._settings: dict[tuple[int, frozenset[str], int], FileSettings] = {}
        self._line_length_of: dict[Path, int] = {}
        # By a file's directory as given: the config and line length of its files (the process's
        # working directory is the same for a resolver's life, as the absolute paths assume).
        self._config_in: dict[Path, Config] = {}
        self._line_length_in: dict[Path, int] = {}
        selected_codes(Config(root=self.cwd), cli)  # reject bad CLI selectors up front

    def config_for(self, path: Path) -> Config:
        if self._fixed is not None:
            return self._fixed
        directory = path.parent
        config = self._config_in.get(directory)  # a run asks for every file of a directory
        if config is None:
            config = self._config_in[directory] = self._config_below(directory.absolute())
        return config

    def _config_below(self, directory: Path) -> Config:
        config_path = self._closest_config_file(directory)
        if config_path not in self._loaded:
            loaded = load_config(config_path) if config_path else Config(root=self.cwd)
            self._loaded[config_path] = self._with_command_line(loaded)
        return self._loaded[config_path]

    def _with_command_line(self, config: Config) -> Config:
        """--exclude replaces the config's `exclude`, --extend-exclude adds to the excludes;
        their patterns are relative to the working directory, where they were typed."""
        if self.cli.exclude is not None:
            config.exclude = []
            config.sources["exclude"] = "--exclude"
        config.command_line_excludes = (*(self.cli.exclude or ()), *self.cli.extend_exclude)
        config.command_line_root = self.cwd
        return config

    def config_path_for(self, path: Path) -> Path | None:
        """The config file that applies to ``path`` (None: defaults only)."""
        return self.config_for(path).path

    def _closest_config_file(self, directory: Path) -> Path | None:
        if directory not in self._config_file_of:
            found = config_file_in(directory)
            if found is None and directory.parent != directory:
                found = self._closest_config_file(directory.parent)
            self._config_file_of[directory] = found
        return self._config_file_of[directory]

    def settings_for(self, path: Path) -> FileSettings:
        config = self.config_for(path)
        ignored = frozenset(
            code
            for glob, codes in config.per_file_ignores.items()
            if _exclude_spec((glob,)).matches(path, config.root, is_dir=False)
            for code in resolve_selectors(codes)
        )
        line_length = self.line_length_for(path)
        key = (id(config), ignored, line_length)
        if key not in self._settings:
            self._settings[key] = FileSettings(
                codes=selected_codes(config, self.cli) - ignored,
                rule_options=config.rules,
                handler_decorators=tuple(config.handler_decorators),
                handler_functions=tuple(config.handler_functions),
                registry=str(config.registry) if config.registry is not None else None,
                default_symbol=config.default_symbol,
                line_length=line_length,
            )
        return self._settings[key]

    def line_length_for(self, path: Path) -> int:
        """The line length of the closest formatter config above ``path`` (see `line_length_in`),
        looked up once per directory."""
        directory = path.parent
        found = self._line_length_in.get(directory)
        if found is None:
            found = self._line_length_in[directory] = self._line_length_below(directory.absolute())
        return found

    def _line_length_below(self, directory: Path) -> int:
        if directory not in self._line_length_of:
            found = line_length_in(directory)
            if found is None:
                parent = directory.parent
                found = self._line_length_below(parent) if parent != directory else DEFAULT_LINE_LENGTH
            self._line_length_of[directory] = found
        return self._line_length_of[directory]


@lru_cache(maxsize=256)
def _exclude_spec(patterns: tuple[str, ...]) -> PathPatterns:
    return PathPatterns(patterns)


_GLOB_CHARACTERS = frozenset("*?[]!\\")


class PathPatterns:
    """Gitignore-style patterns, with a fast path for bare names (`build`, `.venv/`).

    Discovery tests every file and directory against the excludes; the default
    list is all bare names, which a set lookup on the path's components answers
    without running pathspec's regular expressions.
    """

    def __init__(self, patterns: tuple[str, ...]) -> None:
        plain = [p for p in patterns if "/" not in p.rstrip("/") and not _GLOB_CHARACTERS & set(p)]
        self.any_names = frozenset(p for p in plain if not p.endswith("/"))
        self.directory_names = frozenset(p.rstrip("/") for p in plain if p.endswith("/"))
        rest = [p for p in patterns if p not in plain]
        self.spec = None
        if rest:
            import pathspec

            self.spec = pathspec.GitIgnoreSpec.from_lines(rest)

    def matches(self, path: Path, root: Path, *, is_dir: bool) -> bool:
        """Match against the path relative to the root (or its bare name outside it)."""
        absolute = os.path.abspath(path)
        root_prefix = os.path.join(os.fspath(root), "")
        if absolute.startswith(root_prefix):
            relative = absolute[len(root_prefix) :].replace(os.sep, "/")
        else:
            relative = os.path.basename(absolute)
        parts = relative.split("/")
        if not self.any_names.isdisjoint(parts):
            return True
        directories = parts if is_dir else parts[:-1]
        if not self.directory_names.isdisjoint(directories):
            return True
        if self.spec is None:
            return False
        suffix = "/" if is_dir else ""
        return bool(self.spec.match_file(relative + suffix) or self.spec.match_file(parts[-1] + suffix))
