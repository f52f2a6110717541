"""The ``mcplint`` command line: click commands that wire the packages together."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mcplint import __version__
from mcplint.report import FORMATS

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="mcplint", message="%(prog)s %(version)s")
def main() -> None:
    """Find and fix the error handling of Python MCP servers."""


def _split_codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(code for value in values for code in value.split(",") if code.strip())


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (replaces the config's).")
@click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable in addition.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="full",
    show_default=True,
    help="Output format.",
)
@click.option("-o", "--output", "output_file", type=click.Path(dir_okay=False), help="Write the report to FILE.")
@click.option("--exit-zero", is_flag=True, help="Exit with 0 even when there are findings.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: all CPUs).")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="Use this config file for every file (paths relative to the working directory).",
)
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too.")
def check(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    output_format: str,
    output_file: str | None,
    exit_zero: bool,
    statistics: bool,
    jobs: int | None,
    config_file: str | None,
    force_exclude: bool,
) -> None:
    """Lint PATHS (default: the current directory)."""
    from mcplint.config import CliOverrides, ConfigError, ConfigResolver
    from mcplint.engine.discovery import PathNotFound, discover, project_root
    from mcplint.engine.runner import FileTask, default_jobs, run
    from mcplint.report import render, render_statistics

    overrides = CliOverrides(
        select=_split_codes(select) if select else None,
        extend_select=_split_codes(extend_select),
        ignore=_split_codes(ignore),
    )
    try:
        if config_file is not None and not Path(config_file).is_file():
            raise ConfigError(f"{config_file}: config file not found")
        resolver = ConfigResolver(overrides, Path(config_file) if config_file else None)
        files = discover(paths or (".",), resolver, force_exclude=force_exclude)
        tasks = [
            FileTask(str(file.path), file.display, resolver.settings_for(file.path), not file.explicit)
            for file in files
        ]
    except (ConfigError, PathNotFound) as error:
        _fail(str(error))
    if not tasks:
        click.echo("mcplint: warning: no Python files found", err=True)
    result = run(tasks, jobs or default_jobs())
    for warning in result.warnings:
        click.echo(f"mcplint: warning: {warning}", err=True)

    stream_is_terminal = output_file is None and sys.stdout.isatty()
    report = render(output_format, result.findings, color=stream_is_terminal, root=project_root(resolver.cwd))
    if statistics and output_format != "json":
        report = render_statistics(result.findings)
    if output_file is not None:
        Path(output_file).write_text(report, encoding="utf-8")
    else:
        click.echo(report, nl=False)

    if result.internal_errors:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if result.findings and not exit_zero else EXIT_CLEAN)


@main.command()
@click.argument("code")
def rule(code: str) -> None:
    """Explain a rule: print its documentation."""
    from mcplint.rule_docs import render_rule_doc
    from mcplint.rules import RULES_BY_CODE

    found = RULES_BY_CODE.get(code.upper())
    if found is None:
        _fail(f"unknown rule code '{code}' (see `mcplint rules`)")
    click.echo(render_rule_doc(found), nl=False)


@main.command(name="rules")
def list_rules() -> None:
    """List every rule: code, name and what it does."""
    from mcplint.rules import ALL_RULES

    for found in ALL_RULES:
        click.echo(f"{found.code}  {found.name:<22} {found.summary()}")


def _fail(message: str) -> None:
    click.echo(f"mcplint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)
