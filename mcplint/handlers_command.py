"""`mcplint handlers`: the project model as mcplint sees it — every server, server class
and handler per module and, with ``--reach``, the functions each handler reaches — so a
user can check what the rules look at (and a bug report can show it)."""

from __future__ import annotations

import click

from mcplint.check import fail
from mcplint.config import CliOverrides, ConfigError, ConfigResolver
from mcplint.engine.discovery import PathNotFound, discover
from mcplint.engine.runner import FileTask, default_jobs, run
from mcplint.terminal import printable


def list_handlers(paths: tuple[str, ...], reach: bool, jobs: int | None) -> int:
    try:
        resolver = ConfigResolver(CliOverrides(), None)
        files = discover(paths or (".",), resolver, force_exclude=False)
    except (ConfigError, PathNotFound) as error:
        return fail(str(error))
    tasks = [FileTask(str(file.path), file.display, resolver.settings_for(file.path), not file.explicit) for file in files]
    result = run(tasks, jobs or default_jobs(), cache=None)
    displays = {task.path: task.display for task in tasks}
    handler_count = 0
    for path in sorted(result.results, key=lambda path: displays[path]):
        found = result.results[path]
        servers, classes = _described(found.module_servers), _described(found.server_classes)
        if not (servers or classes or found.handlers or (reach and found.reached)):
            continue
        # Paths and the names made from them come from the files: printed as escapes.
        click.echo(printable(displays[path]))
        for line in servers:
            click.echo(printable(f"  server        {line}"))
        for line in classes:
            click.echo(printable(f"  server class  {line}"))
        for key, kind in found.handlers:
            handler_count += 1
            click.echo(printable(f"  {kind:<13} {key}"))
        if reach:
            for function, handlers in sorted(found.reached.items()):
                if [function] != handlers and not (function in dict(found.handlers) and len(handlers) == 1):
                    click.echo(printable(f"  reached       {function}  <- {', '.join(handlers)}"))
    click.echo(f"{handler_count} handler(s) in {len(tasks)} file(s).")
    if result.unseen_framework_modules:
        click.echo(
            "mcplint: warning: these modules import an MCP server framework, but no handler was found: "
            + printable(", ".join(result.unseen_framework_modules[:10]))
            + (f", and {len(result.unseen_framework_modules) - 10} more" if len(result.unseen_framework_modules) > 10 else ""),
            err=True,
        )
    return 0


def _described(bindings: dict[str, tuple[str, str]]) -> list[str]:
    """`billing (high-level, mcp1)` for each name bound to a server (or a server class)."""
    return [f"{name} ({level}-level, {framework})" for name, (level, framework) in sorted(bindings.items())]
