"""The ``mcplint check`` workflow: discover, lint, filter, report, exit code.

The CLI only parses options into ``CheckOptions``; everything a run does, in
order, is here.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcplint import __version__
from mcplint.config import CliOverrides, ConfigError, ConfigResolver
from mcplint.finding import Finding
from mcplint.progress import ProgressBar, progress_bar
from mcplint.registry.model import RegistryError
from mcplint.report import render
from mcplint.report.statistics import render_statistics
from mcplint.report.text import Summary
from mcplint.terminal import color_enabled, printable

if TYPE_CHECKING:
    from mcplint.engine.cache import ResultCache
    from mcplint.engine.runner import FileTask

# Imports inside functions: the engine, the registry checks, the report formats, fixes, baselines and the progress bar are
# imported where they are used: a warm run replays its results from the cache without LibCST,
# rich or worker processes (0.3 s for a pre-commit run).

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
# `--statistics` replaces these; machine formats (json, sarif, github, junit) stay whole.
TEXT_FORMATS = ("full", "concise", "grouped")
# What a cache file of valid JSON but the wrong shape raises where its values are used (an
# index that is a list, a count that is a string, nesting too deep to load). The run then
# goes again without the cache: a cache only ever costs speed, and an error of mcplint's own
# is raised again by the run without it.
CACHE_SHAPE_ERRORS = (KeyError, TypeError, AttributeError, ValueError, IndexError, RecursionError)


@dataclass(frozen=True)
class CheckOptions:
    paths: tuple[str, ...]
    overrides: CliOverrides
    output_format: str = "full"
    output_file: str | None = None
    exit_zero: bool = False
    color: str = "auto"  # --color: auto, always or never (see mcplint.terminal)
    statistics: bool = False
    jobs: int | None = None
    config_file: str | None = None
    force_exclude: bool = False
    baseline: str | None = None
    write_baseline: str | None = None
    no_cache: bool = False
    quiet: bool = False
    show_source: bool | None = None
    stdin_filename: str | None = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    show_fixes: bool = False
    exit_non_zero_on_fix: bool = False
    show_settings: bool = False
    show_files: bool = False
    add_noqa: bool = False

    @property
    def fix_mode(self) -> str | None:
        if self.diff:
            return "diff"
        return "apply" if self.fix else None

def run_check(options: CheckOptions) -> int:
    from mcplint.engine.cache import ResultCache, cache_directory
    from mcplint.engine.discovery import PathNotFound, discover, project_root
    from mcplint.engine.result import SKIPPED_NESTED
    from mcplint.engine.runner import MAX_ROUNDS, FileTask, default_jobs, run

    try:
        if options.config_file is not None and not Path(options.config_file).is_file():
            raise ConfigError(f"{options.config_file}: config file not found")
        resolver = ConfigResolver(options.overrides, Path(options.config_file) if options.config_file else None)
        if options.add_noqa and (options.fix or options.diff or "-" in options.paths):
            raise ConfigError("--add-noqa cannot be combined with --fix, --diff or standard input")
        if options.show_settings and options.paths == ("-",):
            from mcplint.show import show_settings

            click.echo(show_settings(Path(options.stdin_filename or "stdin.py"), resolver), nl=False)
            return EXIT_CLEAN
        if options.paths == ("-",):
            return _check_stdin(options, resolver, _load_baseline(options.baseline))
        if "-" in options.paths:
            raise ConfigError("'-' (standard input) cannot be combined with other paths")
        if options.show_settings or options.show_files:
            from mcplint.show import show

            text = show(options.paths, resolver, files=options.show_files, force_exclude=options.force_exclude)
            click.echo(text, nl=False)
            return EXIT_CLEAN
        files = discover(options.paths or (".",), resolver, force_exclude=options.force_exclude)
        tasks = [
            FileTask(
                str(file.path),
                file.display,
                resolver.settings_for(file.path),
                skip_generated=not file.explicit,
                fix_mode=options.fix_mode,
                unsafe_fixes=options.unsafe_fixes,
            )
            for file in files
        ]
        root = project_root(resolver.cwd)
        baseline = _load_baseline(options.baseline)
        if not tasks:
            _warn("no Python files found", options)
        registry_findings = _registry_findings(resolver, [file.path for file in files])
    except (ConfigError, PathNotFound, RegistryError) as error:
        return fail(str(error))
    cache = None if options.no_cache else ResultCache(cache_directory(resolver, root))
    bar = _progress_bar(options)
    try:
        try:
            result = run(tasks, options.jobs or default_jobs(), cache, bar, judge_once=True)
        except CACHE_SHAPE_ERRORS as error:
            if cache is None:
                raise  # a bug of mcplint's own, not of a cache file
            _warn(f"the cache in {cache.directory} was damaged ({type(error).__name__}); rebuilt it", options)
            cache = _emptied(cache)
            result = run(tasks, options.jobs or default_jobs(), cache, bar, judge_once=True)
    finally:  # Ctrl-C included: the bar is erased before anything else is printed
        if bar is not None:
            bar.stop()
    for warning in result.warnings:
        _warn(warning, options)
    if not result.settled:
        _warn(
            f"the cross-module analysis stopped after {MAX_ROUNDS} rounds before it settled: findings a "
            "handler of another module reaches may be missing",
            options,
        )
    if result.unseen_framework_modules:
        shown = ", ".join(result.unseen_framework_modules[:3])
        more = len(result.unseen_framework_modules) - 3
        _warn(
            f"no MCP handler found, yet {len(result.unseen_framework_modules)} module(s) import an MCP "
            f"server framework ({shown}{f', and {more} more' if more > 0 else ''}): the handler-scope rules "
            "(MCP001, MCP002, MCP005, MCP006, MCP007) checked nothing; `mcplint handlers` shows what mcplint "
            "sees, and `handler-decorators` / `handler-functions` name handlers it cannot find",
            options,
        )
    findings = sorted(result.findings + registry_findings)
    if options.add_noqa:
        return _add_noqa(options, result.findings, tasks, baseline, root, result.internal_errors)
    if options.diff:
        return _report_diff(options, result.diffs, result.fixed, internal_errors=result.internal_errors)
    if options.show_fixes and result.fixed:
        _show_fixes(result.fixed)
    code = _finish(
        options, findings, root, baseline, internal_errors=result.internal_errors, fixed=len(result.fixed),
        no_handlers=bool(result.unseen_framework_modules),
        unanalysed=sum(warning.endswith(SKIPPED_NESTED) for warning in result.warnings),
    )  # fmt: skip
    # After the report: what was found is printed even when some fixes could not be written.
    for write_error in result.write_errors:
        fail(write_error)
    if result.write_errors:
        return EXIT_ERROR
    if code == EXIT_CLEAN and options.exit_non_zero_on_fix and result.fixed:
        return EXIT_FINDINGS
    return code


def _emptied(cache: ResultCache) -> ResultCache | None:
    """A new cache in the same place, without the files of this version (only mcplint writes
    them); None (no cache) when they cannot be removed."""
    from mcplint.engine.cache import ResultCache

    try:
        for stored in (cache.directory / __version__).glob("*.json"):
            stored.unlink()
    except OSError:
        return None
    return ResultCache(cache.directory)


def _add_noqa(
    options: CheckOptions, findings: list[Finding], tasks: list[FileTask], baseline: set[str] | None, root: Path, internal_errors: int
) -> int:
    """`--add-noqa`: suppress every current finding in place (those a --baseline holds stay as they are)."""
    from mcplint.add_noqa import add_noqa

    if baseline is not None:
        from mcplint.engine.baseline import apply_baseline

        findings = apply_baseline(findings, baseline, root).findings
    outcome = add_noqa(findings, {task.display: task.path for task in tasks})
    for warning in outcome.warnings:
        _warn(warning, options)
    if not options.quiet:
        comments = "comment" if outcome.comments == 1 else "comments"
        click.echo(
            f"Added {outcome.comments} `# mcplint: ignore` {comments} "
            f"({outcome.findings} findings) to {outcome.files} file(s).",
            err=True,
        )
    # As ruff's --add-noqa: the run's purpose is the edit, so it exits 0 unless something broke.
    return EXIT_ERROR if internal_errors else EXIT_CLEAN


def _report_diff(options: CheckOptions, diffs: list[str], fixed: list[Finding], *, internal_errors: int) -> int:
    """`--diff`: what `--fix` would change, as a unified diff; nothing is written."""
    click.echo("".join(diffs), nl=False)
    if not options.quiet:
        noun = "error" if len(fixed) == 1 else "errors"
        click.echo(f"Would fix {len(fixed)} {noun}.", err=True)
    if internal_errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if diffs else EXIT_CLEAN


def _show_fixes(fixed: list[Finding]) -> None:
    """`--show-fixes`: per file, how many findings of each code were fixed."""
    by_path: dict[str, Counter[tuple[str, str]]] = {}
    for finding in fixed:
        by_path.setdefault(finding.path, Counter())[(finding.code, finding.name)] += 1
    click.echo(f"Fixed {len(fixed)} {'error' if len(fixed) == 1 else 'errors'}:", err=True)
    for path, counts in sorted(by_path.items()):
        click.echo(f"- {printable(path)}:", err=True)
        for (code, name), count in sorted(counts.items()):
            click.echo(f"    {count} × {code} ({name})", err=True)


def _registry_findings(resolver: ConfigResolver, paths: list[Path]) -> list[Finding]:
    """The REG findings of every registry that a linted file's config names (each once)."""
    from mcplint.engine.discovery import display_path

    registries = {resolver.config_for(resolver.cwd / "__init__.py").registry}
    registries |= {resolver.config_for(path).registry for path in paths}
    configured = sorted(path for path in registries if path is not None)
    if not configured:
        return []
    from mcplint.registry import check_registry

    findings: list[Finding] = []
    for registry in configured:
        enabled = resolver.settings_for(registry).codes
        display = display_path(registry, resolver.cwd)
        findings += [finding for finding in check_registry(display) if finding.code in enabled]
    return findings


def run_registry_check(options: CheckOptions) -> int:
    """`mcplint registry check [FILE]`: the REG findings of one registry."""
    from mcplint.engine.discovery import display_path, project_root
    from mcplint.registry import check_registry

    try:
        resolver = ConfigResolver(options.overrides, Path(options.config_file) if options.config_file else None)
        registry = Path(options.paths[0] if options.paths else configured_registry(options.config_file))
        if not registry.is_file():
            raise ConfigError(f"{registry}: no such registry file")
        enabled = resolver.settings_for(registry).codes
        display = display_path(registry, resolver.cwd)
        findings = [finding for finding in check_registry(display) if finding.code in enabled]
    except (ConfigError, RegistryError) as error:
        return fail(str(error))
    return _finish(options, findings, project_root(resolver.cwd), None, internal_errors=0)


def configured_registry(config_file: str | None) -> str:
    """The working directory's registry path (as a string for the registry commands); exits 2 if none."""
    from mcplint.engine.discovery import display_path

    try:  # the config files are read on first use: config_for raises too
        resolver = ConfigResolver(CliOverrides(), Path(config_file) if config_file else None)
        registry = resolver.config_for(resolver.cwd / "__init__.py").registry
    except ConfigError as error:
        sys.exit(fail(str(error)))
    if registry is None:
        sys.exit(fail("no registry: pass FILE, set `registry` in [tool.mcplint], or add mcp-errors.toml"))
    return display_path(registry, resolver.cwd)


def _check_stdin(options: CheckOptions, resolver: ConfigResolver, baseline: set[str] | None) -> int:
    """`mcplint check - --stdin-filename path`: what editors run on an unsaved buffer."""
    from mcplint.engine.discovery import project_root
    from mcplint.engine.lint import lint_bytes

    display = options.stdin_filename or "-"
    settings = resolver.settings_for(Path(display if options.stdin_filename else "stdin.py"))
    result = lint_bytes(sys.stdin.buffer.read(), display, settings)
    for warning in result.warnings:
        _warn(warning, options)
    # The file on disk (if any) is not what was linted: no source excerpts.
    options = replace(options, show_source=False)
    root = project_root(resolver.cwd)
    return _finish(options, result.findings, root, baseline, internal_errors=int(result.internal_error))


def _finish(
    options: CheckOptions,
    findings: list[Finding],
    root: Path,
    baseline: set[str] | None,
    *,
    internal_errors: int,
    fixed: int = 0,
    no_handlers: bool = False,
    unanalysed: int = 0,
) -> int:
    """Baseline, report, exit code: the same for files and standard input."""
    if options.write_baseline is not None:
        from mcplint.engine.baseline import write_baseline

        try:
            count = write_baseline(Path(options.write_baseline), findings, root)
        except OSError as error:
            return fail(f"{options.write_baseline}: cannot write the baseline: {error.strerror or error}")
        click.echo(f"mcplint: wrote {count} findings to the baseline {options.write_baseline}", err=True)
        return EXIT_ERROR if internal_errors else EXIT_CLEAN
    baselined = 0
    if baseline is not None:
        from mcplint.engine.baseline import apply_baseline

        outcome = apply_baseline(findings, baseline, root)
        baselined = len(findings) - len(outcome.findings)
        findings = outcome.findings
        if outcome.stale:
            _warn(
                f"{outcome.stale} baseline entries no longer match a finding; "
                f"`--write-baseline {options.baseline}` shrinks the file",
                options,
            )

    try:
        _report(options, findings, root, fixed, no_handlers, baselined, unanalysed)
    except _ReportNotWritten as error:
        return fail(str(error))
    if internal_errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings and not options.exit_zero else EXIT_CLEAN


def _load_baseline(path: str | None) -> set[str] | None:
    if path is None:
        return None
    from mcplint.engine.baseline import load_baseline

    return load_baseline(Path(path))


def _report(
    options: CheckOptions,
    findings: list[Finding],
    root: Path,
    fixed: int = 0,
    no_handlers: bool = False,
    baselined: int = 0,
    unanalysed: int = 0,
) -> None:
    # A report file never gets colour: it is read by tools and editors, not a terminal.
    color = options.output_file is None and color_enabled(options.color, sys.stdout)
    if options.statistics and options.output_format in TEXT_FORMATS:
        summary = Summary(fixed, options.unsafe_fixes, no_handlers, baselined, unanalysed) if not options.quiet else None
        report = render_statistics(findings, summary=summary, unsafe_fixes=options.unsafe_fixes, color=color)
    else:
        report = render(
            options.output_format,
            findings,
            color=color,
            root=root,
            show_source=options.show_source,
            with_summary=not options.quiet,
            fixed=fixed,
            unsafe_fixes=options.unsafe_fixes,
            no_handlers=no_handlers,
            baselined=baselined,
            unanalysed=unanalysed,
        )
    if options.output_file is not None:
        try:
            Path(options.output_file).write_text(report, encoding="utf-8")
        except OSError as error:
            raise _ReportNotWritten(f"{options.output_file}: cannot write the report: {error.strerror or error}") from error
    else:
        # click strips ANSI codes from a stream that is not a terminal unless told otherwise.
        click.echo(report, nl=False, color=color)


class _ReportNotWritten(Exception):
    """`-o FILE` could not be written (a missing directory, a full disk)."""


def _progress_bar(options: CheckOptions) -> ProgressBar | None:
    return progress_bar(quiet=options.quiet, color=options.color)


def _warn(message: str, options: CheckOptions | None = None) -> None:
    if options is None or not options.quiet:
        click.echo(f"mcplint: warning: {printable(message)}", err=True)


def fail(message: str) -> int:
    """One line per problem on stderr (a config with three typos gets three lines); exit 2."""
    for line in message.split("\n"):  # one problem per line; a stray \r is escaped, not a break
        click.echo(f"mcplint: error: {printable(line)}", err=True)
    return EXIT_ERROR
