"""Whether output gets colour: ``--color``, then ``NO_COLOR``, then ``FORCE_COLOR``, then the stream.

The order follows the conventions ruff users know: an explicit ``--color`` always
wins; ``NO_COLOR`` (https://no-color.org) set to anything non-empty turns colour off;
``FORCE_COLOR`` (https://force-color.org) non-empty turns it on where the stream is
not a terminal (a CI log that renders ANSI); otherwise only a terminal gets colour.
``NO_COLOR`` beats ``FORCE_COLOR``: a user who asks for no colour should not have to
hunt for what forced it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO

COLOR_CHOICES = ("auto", "always", "never")


def color_enabled(
    choice: str = "auto", stream: IO[str] | None = None, environ: Mapping[str, str] | None = None
) -> bool:
    """Whether to write ANSI colour to ``stream`` under ``--color choice``."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
