"""The ``mcplint`` command line: click commands that wire the packages together."""

from __future__ import annotations

import gc
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import click

from mcplint import __version__
from mcplint.report import FORMATS

# Imports inside functions: each command imports its module inside its body: `mcplint --version` and `--help` load
# click alone (about 50 ms), and each command only what it runs.


class _Commands(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        """Ctrl-C ends any command with 130 and nothing else (click would print "Aborted!" and
        exit 1); whoever started workers or a progress bar stops them on the way out. A caller
        that outlives the command (a test) gets the collector back (``_runs_once``)."""
        collecting = gc.isenabled()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            sys.exit(130)  # 128 + SIGINT, what shells report for a Ctrl-C
        finally:
            if collecting and not gc.isenabled():
                gc.freeze()  # what the command kept is not traversed again on the way out
                gc.enable()


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="mcplint", message="%(prog)s %(version)s")
def main() -> None:
    """Find and fix the error handling of Python MCP servers."""


def _runs_once() -> None:
    """The command analyses once and the process ends: no cyclic garbage collection from here on.
    A run pauses the collector (``engine.runner``); switched on after it, the collector's first
    pass traversed every object the run kept (about a quarter of a second after a corpus check)
    to find the few cycles the run left behind (7,797 objects over the corpus)."""
    gc.disable()


def _report_options(command: Callable[..., None]) -> Callable[..., None]:
    """--format, --output and --exit-zero: the same on every command that reports findings."""
    command = click.option("--exit-zero", is_flag=True, help="Exit with 0 even when there are findings.")(command)
    command = click.option(
        "-o", "--output", "output_file", type=click.Path(dir_okay=False), help="Write the report to FILE."
    )(command)
    return click.option(
        "--format",
        "--output-format",  # the name ruff users type
        "output_format",
        type=click.Choice(FORMATS),
        default="full",
        show_default=True,
        envvar="MCPLINT_OUTPUT_FORMAT",
        help="Output format (environment: MCPLINT_OUTPUT_FORMAT).",
    )(command)


def _color_option(command: Callable[..., None]) -> Callable[..., None]:
    from mcplint.terminal import COLOR_CHOICES

    return click.option(
        "--color",
        type=click.Choice(COLOR_CHOICES),
        default="auto",
        show_default=True,
        help="Colour the output: auto (a terminal, unless NO_COLOR is set; FORCE_COLOR forces it), always, never.",
    )(command)


def _split_codes(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(code for value in values for code in value.split(",") if code.strip())


def _split_patterns(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--exclude a,b --exclude c`: comma-separated or repeated, as ruff takes them."""
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (replaces the config's).")
@click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable in addition.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option(
    "--exclude", multiple=True, help="Patterns to skip (gitignore style), replacing the config's `exclude`."
)
@click.option("--extend-exclude", multiple=True, help="Patterns to skip in addition to the config's excludes.")
@_report_options
@_color_option
@click.option("--statistics", is_flag=True, help="Print the findings per rule ([*]: fixable), then the total.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: all CPUs).")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="Use this config file for every file (paths relative to the working directory).",
)
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too.")
@click.option(
    "--baseline",
    type=click.Path(dir_okay=False),
    help="Report only findings that are not recorded in this baseline file.",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False),
    help="Record the current findings in this baseline file (and exit 0).",
)
@click.option("-n", "--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option("--fix", is_flag=True, help="Apply safe fixes (verified before any file is written).")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (with --fix) or show unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing (exit 1 if any).")
@click.option("--show-fixes", is_flag=True, help="List the fixed findings per file.")
@click.option(
    "--add-noqa", is_flag=True, help="Add a `# mcplint: ignore[CODE]` comment for every current finding."
)
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit with 1 when a fix was applied.")
@click.option("-q", "--quiet", is_flag=True, help="Print the findings and nothing else.")
@click.option(
    "-w", "--watch", is_flag=True, help="Check again whenever a file changes (needs `pip install 'mcplint[watch]'`)."
)
@click.option("--show-settings", is_flag=True, help="Print the resolved settings of the first file and their sources.")
@click.option("--show-files", is_flag=True, help="Print the files that would be linted, and why others are skipped.")
@click.option(
    "--show-source/--no-show-source",
    default=None,
    help="Show the source line under each finding (default: yes for full, no for concise).",
)
@click.option(
    "--stdin-filename",
    help="With PATH '-': the name of the file whose contents arrive on standard input.",
)
def check(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    watch: bool,
    **options: object,
) -> None:
    """Lint PATHS (default: the current directory; '-' reads standard input)."""
    from mcplint.check import CheckOptions, run_check
    from mcplint.config import CliOverrides

    overrides = CliOverrides(
        select=_split_codes(select) if select else None,
        extend_select=_split_codes(extend_select),
        ignore=_split_codes(ignore),
        exclude=_split_patterns(exclude) if exclude else None,
        extend_exclude=_split_patterns(extend_exclude),
    )
    # click hands the options over by name, untyped; CheckOptions names and types each one.
    check_options = CheckOptions(paths=paths, overrides=overrides, **options)  # type: ignore[arg-type]
    if watch:
        from mcplint.check import fail
        from mcplint.watch import watch as watch_paths

        if "-" in paths:
            sys.exit(fail("--watch cannot read standard input"))
        sys.exit(watch_paths(paths, lambda: run_check(check_options)))
    _runs_once()
    sys.exit(run_check(check_options))


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--reach", is_flag=True, help="Also list the functions each handler reaches, across modules.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: all CPUs).")
def handlers(paths: tuple[str, ...], reach: bool, jobs: int | None) -> None:
    """List the servers and handlers mcplint finds (what handler scope starts from)."""
    from mcplint.handlers_command import list_handlers

    _runs_once()
    sys.exit(list_handlers(paths, reach, jobs))


@main.command()
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="The config that names cache-dir.")
def clean(config_file: str | None) -> None:
    """Remove the result cache of the project in the working directory."""
    from mcplint.config import CliOverrides, ConfigError, ConfigResolver
    from mcplint.engine.cache import cache_directory
    from mcplint.engine.cache import clean as remove_cache
    from mcplint.engine.discovery import project_root

    try:  # the config files are read on first use: cache_directory raises too
        resolver = ConfigResolver(CliOverrides(), Path(config_file) if config_file else None)
        directory = cache_directory(resolver, project_root(resolver.cwd))
    except ConfigError as error:
        _fail(str(error))
    removed = remove_cache(directory)
    click.echo(f"mcplint: {'removed' if removed else 'no cache at'} {directory}", err=True)


@main.command()
@click.argument("code")
@_color_option
def rule(code: str, color: str) -> None:
    """Explain a rule or registry check: print its documentation."""
    from mcplint.catalogue import code_doc
    from mcplint.rule_view import print_rule
    from mcplint.terminal import color_enabled

    document = code_doc(code)
    if document is None:
        _fail(f"unknown rule code '{code}' (see `mcplint rules`)")
    stream = sys.stdout
    print_rule(document, stream, color=color_enabled(color, stream))


@main.command()
def server() -> None:
    """Run the language server: diagnostics, fixes and hover in an editor (LSP over stdio).

    Start it from the editor's LSP client with the command `mcplint server`; it reads
    the workspace's own config ([tool.mcplint] or mcplint.toml) and needs no settings.
    The README's "Editors" section has the snippets for VS Code, Neovim, Helix and Zed.
    Needs the optional extra: pip install 'mcplint[lsp]'.
    """
    try:  # pygls is imported here only: the other commands start without it
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        _fail("the language server needs pygls and lsprotocol: pip install 'mcplint[lsp]'")
    from mcplint.lsp.server import serve

    serve()


@main.command(name="rules")
def list_rules() -> None:
    """List every rule and registry check: code, name, fix safety and what it does."""
    from mcplint.catalogue import catalogue
    from mcplint.rule_view import rules_table

    click.echo(rules_table(catalogue()), nl=False)


def _fail(message: str) -> NoReturn:
    from mcplint.check import fail

    sys.exit(fail(message))


@main.group()
def registry() -> None:
    """The error registry (mcp-errors.toml): check, generate helpers, export, diff."""


@registry.command(name="check")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@_report_options
@_color_option
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="The config that names the registry.")
def registry_check(
    file: str | None,
    output_format: str,
    output_file: str | None,
    exit_zero: bool,
    color: str,
    config_file: str | None,
) -> None:
    """Check FILE (default: the registry the config names, or mcp-errors.toml beside it)."""
    from mcplint.check import CheckOptions, run_registry_check
    from mcplint.config import CliOverrides

    options = CheckOptions(
        paths=(file,) if file else (),
        overrides=CliOverrides(),
        output_format=output_format,
        output_file=output_file,
        exit_zero=exit_zero,
        color=color,
        config_file=config_file,
    )
    sys.exit(run_registry_check(options))


@registry.command(name="export")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option(
    "--format", "export_format", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True
)
@click.option("-o", "--output", "output_file", type=click.Path(dir_okay=False), help="Write the reference to FILE.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="The config that names the registry.")
def registry_export(file: str | None, export_format: str, output_file: str | None, config_file: str | None) -> None:
    """Write the error reference of FILE (default: the configured registry) as Markdown or JSON."""
    from mcplint.check import configured_registry
    from mcplint.registry.export import run_export

    sys.exit(run_export(file or configured_registry(config_file), export_format, output_file))


@registry.command(name="diff")
@click.argument("old")
@click.argument("new", required=False)
@_report_options
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="The config that names the registry.")
def registry_diff(
    old: str, new: str | None, output_format: str, output_file: str | None, exit_zero: bool, config_file: str | None
) -> None:
    """Breaking changes from OLD to NEW (default: the configured registry); either may be git:REF[:PATH]."""
    from mcplint.check import configured_registry
    from mcplint.registry_diff_command import run_diff

    default = configured_registry(config_file)
    code = run_diff(old, new or default, output_format, default_path=default, output=output_file)
    sys.exit(0 if exit_zero and code == 1 else code)


@registry.command(name="generate")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option(
    "-o", "--output", "output_file", type=click.Path(dir_okay=False), help="Write here, not to helpers-module's file."
)
@click.option(
    "--framework",
    type=click.Choice(["mcp1", "mcp2", "fastmcp", "auto"]),
    default="auto",
    show_default=True,
    help="The MCP framework the helpers build on (auto: from the project's imports).",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if the module on disk is missing or stale.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="The config that names the registry.")
def registry_generate(
    file: str | None, output_file: str | None, framework: str, check: bool, config_file: str | None
) -> None:
    """Generate the typed helper module from FILE (default: the configured registry)."""
    from mcplint.check import configured_registry
    from mcplint.registry.codegen import run_generate

    sys.exit(run_generate(file or configured_registry(config_file), output_file, framework, check))


def _domain_name(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    """A domain is a TOML bare key in the registry: letters, digits, `_` and `-`."""
    if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        raise click.BadParameter(f"{value!r}: use letters, digits, '_' and '-'")
    return value


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--write", is_flag=True, help="Apply: write the registry, the helpers and the rewritten files.")
@click.option(
    "--domain",
    callback=_domain_name,
    help="Put every new symbol in this domain (default: each site's top-level package).",
)
@click.option(
    "--base", type=click.IntRange(min=1), default=1000, show_default=True, help="Where new domains' code ranges start."
)
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes (default: all CPUs).")
@click.option(
    "--show-generated", is_flag=True, help="Dry run: diff the generated helpers module too (default: one summary line)."
)
@click.option("--stat", is_flag=True, help="Dry run: the summary, with a line per changed file, instead of the diff.")
@click.option(
    "--report", "report_file", type=click.Path(dir_okay=False), help="Also write the summary to this file, as markdown."
)
@click.option("--select", multiple=True, help="Migrate only these rules (codes or prefixes, as for check).")
@click.option("--ignore", multiple=True, help="Do not migrate these rules (codes or prefixes).")
def migrate(
    paths: tuple[str, ...],
    write: bool,
    domain: str | None,
    base: int,
    jobs: int | None,
    show_generated: bool,
    stat: bool,
    report_file: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
) -> None:
    """Turn ad-hoc errors into registry entries, helpers and rewritten sites (dry run by default)."""
    from mcplint.migrate import MigrateOptions, run_migrate

    options = MigrateOptions(stat, report_file, _split_codes(select), _split_codes(ignore))
    _runs_once()
    sys.exit(
        run_migrate(
            paths, write=write, domain=domain, base=base, jobs=jobs, show_generated=show_generated, options=options
        )
    )
