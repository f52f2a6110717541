"""`--show-files` and `--show-settings`: what a run would lint, and with which settings.

Both answer "why did mcplint (not) look at this?" without linting anything, as
ruff's flags of the same names do. `--show-files` lists the files to lint, then
every file or directory left out with the setting, pattern and config line (or
the .gitignore) that left it out; a file that would be linted but is skipped
when read (`@generated`, too large) says so too. `--show-settings` prints the
resolved config of one file: each key's value and where it came from (a config
file and line, a file it extends, the command line, or the default).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from mcplint.config import Config, ConfigResolver, PathPatterns, resolve_selectors
from mcplint.engine.cache import ENVIRONMENT_VARIABLE, cache_directory
from mcplint.engine.discovery import DiscoveredFile, SkippedPath, discover, display_path, project_root
from mcplint.source import GENERATED_HEADER_LINES, GENERATED_MARKER, is_generated


def show_files(paths: Sequence[str], resolver: ConfigResolver, *, force_exclude: bool) -> str:
    skipped: list[SkippedPath] = []
    files = discover(paths, resolver, force_exclude=force_exclude, skipped=skipped)
    lines = []
    for file in files:
        reason = _read_time_skip(file)
        if reason is None:
            lines.append(file.display)
        else:
            skipped.append(SkippedPath(file.display, False, reason))
    for entry in sorted(skipped, key=lambda entry: entry.display):
        shown = entry.display + ("/" if entry.is_dir else "")
        lines.append(f"skipped: {shown}  ({entry.reason})")
    return "".join(line + "\n" for line in lines)


def _read_time_skip(file: DiscoveredFile) -> str | None:
    """Why lint skips a discovered file once it reads it (as `mcplint.engine.lint` does)."""
    # (A file too large to analyse is not skipped: it becomes an MCP000 finding.)
    try:
        if file.explicit:
            return None  # a file named on the command line is linted even when generated
        with open(file.path, encoding="utf-8", errors="replace") as handle:
            head = "".join(handle.readline() for _ in range(GENERATED_HEADER_LINES))
    except OSError as error:
        return f"unreadable: {error.strerror}"
    return f"{GENERATED_MARKER} in its first lines" if is_generated(head) else None


SOURCE_COLUMN = 48
_ROW_KEYS = (
    ("select", "select"),
    ("extend-select", "extend_select"),
    ("ignore", "ignore"),
    ("exclude", "exclude"),
    ("extend-exclude", "extend_exclude"),
    ("per-file-ignores", "per_file_ignores"),
    ("handler-decorators", "handler_decorators"),
    ("handler-functions", "handler_functions"),
    ("rules", "rules"),
    ("registry", "registry"),
    ("default-symbol", "default_symbol"),
    ("cache-dir", "cache_dir"),
)


def show_settings(path: Path, resolver: ConfigResolver) -> str:
    config = resolver.config_for(path)
    cwd = resolver.cwd
    lines = [f"Resolved settings for: {display_path(path, cwd)}"]
    if config.path is None:
        lines.append("Config file: none (defaults; the working directory is the root)")
    else:
        chain = " -> ".join(_shown_path(step, cwd) for step in (config.path, *config.extends))
        lines.append(f"Config file: {chain}" + (" (each extends the next)" if config.extends else ""))
    lines.append(f"Project root: {_shown_path(config.root, cwd)}")
    lines.append("")
    rows = [(key, _value(config, attribute, key, resolver), _source(config, key, cwd)) for key, attribute in _ROW_KEYS]
    cli = _command_line(resolver)
    # Sources line up in a column; a long value (the default excludes) just pushes its own.
    width = min(max(len(f"{key} = {value}") for key, value, _ in rows), SOURCE_COLUMN)
    for key, value, source in rows:
        lines.append(f"{f'{key} = {value}':<{width}}  # {source}")
    if cli:
        lines.append("")
        lines.append("Command line: " + " ".join(cli))
    settings = resolver.settings_for(path)
    ignored = sorted(_per_file_ignored(config, path))
    lines.append("")
    lines.append(f"Enabled codes ({len(settings.codes)}): {', '.join(sorted(settings.codes))}")
    if ignored:
        lines.append(f"Ignored here by per-file-ignores: {', '.join(ignored)}")
    return "\n".join(lines) + "\n"


def _value(config: Config, attribute: str, key: str, resolver: ConfigResolver) -> str:
    value = getattr(config, attribute)
    if key == "registry":
        return _toml(_shown_path(value, resolver.cwd) if value is not None else None)
    if key == "cache-dir":
        return _toml(_shown_path(cache_directory(resolver, project_root(resolver.cwd)), resolver.cwd))
    return _toml(value)


def _source(config: Config, key: str, cwd: Path) -> str:
    if key in config.sources:
        return config.source_of(key, cwd)
    if key == "registry" and config.registry is not None:
        return f"default: {Path(config.registry).name} beside the config"
    if key == "cache-dir":
        return f"${ENVIRONMENT_VARIABLE}" if os.environ.get(ENVIRONMENT_VARIABLE) else "default"
    return "default"


def _command_line(resolver: ConfigResolver) -> list[str]:
    cli = resolver.cli
    parts = []
    if cli.select is not None:
        parts.append("--select " + ",".join(cli.select))
    if cli.extend_select:
        parts.append("--extend-select " + ",".join(cli.extend_select))
    if cli.ignore:
        parts.append("--ignore " + ",".join(cli.ignore))
    if cli.exclude is not None:
        parts.append("--exclude " + ",".join(cli.exclude))
    if cli.extend_exclude:
        parts.append("--extend-exclude " + ",".join(cli.extend_exclude))
    return parts


def _per_file_ignored(config: Config, path: Path) -> set[str]:
    return {
        code
        for glob, codes in config.per_file_ignores.items()
        if PathPatterns((glob,)).matches(path, config.root, is_dir=False)
        for code in resolve_selectors(codes)
    }


def _shown_path(path: Path | str, cwd: Path) -> str:
    """Relative to the working directory (`../pyproject.toml` too), as a user would type it."""
    absolute = Path(path).absolute()
    try:
        return absolute.relative_to(cwd).as_posix() or "."
    except ValueError:
        return os.path.relpath(absolute, cwd) if absolute.anchor == cwd.anchor else absolute.as_posix()


def _toml(value: object) -> str:
    """A value as it would be written in the config."""
    if value is None:
        return "(unset)"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml(str(key))} = {_toml(item)}" for key, item in value.items()) + "}"
    return str(value)


def show(paths: Sequence[str], resolver: ConfigResolver, *, files: bool, force_exclude: bool) -> str:
    """`--show-files` (``files``) or `--show-settings` for the first file the paths name."""
    paths = paths or (".",)
    if files:
        return show_files(paths, resolver, force_exclude=force_exclude)
    found = discover(paths, resolver, force_exclude=force_exclude)
    if found:
        return show_settings(found[0].path, resolver)
    first = Path(paths[0])
    return show_settings(first if first.is_file() else first / "__init__.py", resolver)
