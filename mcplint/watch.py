"""`mcplint check --watch`: check, then check again whenever a Python file or a config changes.

File events come from watchfiles (Rust `notify`: inotify, FSEvents, ...), an optional
extra (`pip install 'mcplint[watch]'`) so a plain install stays light. Without it,
--watch is a usage error naming the extra. Each run goes through the result cache,
so a change re-lints the changed files and what the project model says they affect.
Ctrl-C ends the watch (exit 130, as any interrupted run).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import PurePath

import click

from mcplint.check import fail

# Imports inside functions: watchfiles is the optional `watch` extra: imported, and missed, only by --watch.

WATCHED_SUFFIXES = (".py", ".pyi")
WATCHED_NAMES = ("pyproject.toml", "mcplint.toml", "mcp-errors.toml")
MISSING = "--watch needs the watchfiles package: pip install 'mcplint[watch]'"


def relevant(path: str) -> bool:
    """Whether a changed path can change the findings: Python sources and the configs."""
    name = PurePath(path).name
    return name.endswith(WATCHED_SUFFIXES) or name in WATCHED_NAMES


def watch(paths: Sequence[str], check_once: Callable[[], int]) -> int:
    """Run ``check_once`` now and after every relevant change; returns when the watch ends."""
    try:
        import watchfiles
    except ImportError:
        return fail(MISSING)
    _banner("Starting mcplint in watch mode...")
    check_once()
    for changes in watchfiles.watch(*(paths or (".",)), watch_filter=lambda _change, path: relevant(path)):
        count = len({path for _change, path in changes})
        _banner(f"File change detected ({count} file{'s' if count != 1 else ''}); checking again...")
        check_once()
    return 0


def _banner(message: str) -> None:
    click.echo(f"[{time.strftime('%H:%M:%S')}] {message}", err=True)
