"""The progress bar of a long run: transient, on stderr, only on a terminal and never in CI.

It is an object, not a closure, so that whoever started it can stop it however the
run ends: on Ctrl-C the bar must be erased before the process exits, or rich's
refresh thread draws it again under the shell's prompt.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from mcplint.terminal import color_enabled

# Imports inside functions: rich is imported only when a bar is drawn (a terminal, a long run).

PROGRESS_BAR_MINIMUM = 50  # files to lint (cache misses) before a bar is worth showing


class ProgressBar:
    def __init__(self, color: str = "auto") -> None:
        self._color = color
        self._bar: Any = None

    def __call__(self, total: int) -> Callable[[], None] | None:
        """Start a bar for ``total`` files; returns the callback to call per file (None: no bar)."""
        if total < PROGRESS_BAR_MINIMUM:
            return None
        from rich.console import Console
        from rich.progress import Progress


        self.stop()
        console = Console(stderr=True, no_color=not color_enabled(self._color, sys.stderr))
        bar = self._bar = Progress(console=console, transient=True)
        bar.start()
        task = bar.add_task("Linting", total=total)

        def advance() -> None:
            bar.advance(task)
            if bar.tasks[0].finished:
                self.stop()

        return advance

    def stop(self) -> None:
        """Erase the bar (if one is shown) and stop its refresh thread."""
        if self._bar is not None:
            bar, self._bar = self._bar, None
            bar.stop()


def progress_bar(*, quiet: bool, color: str = "auto") -> ProgressBar | None:
    """A bar for long runs on a terminal; None in pipes, in CI and with --quiet."""
    if quiet or os.environ.get("CI") or not sys.stderr.isatty():
        return None
    return ProgressBar(color)
