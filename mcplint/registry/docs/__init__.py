"""The documentation of the registry checks (REG) and breaking changes (BRK): one markdown file
per code, ``<CODE>.md`` in this directory, with the sections of a rule docstring.

The file names are also the list of these codes (``codes()``), so that selection knows
every code without importing the checks.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_DIRECTORY = Path(__file__).resolve().parent


@cache
def check_doc(code: str) -> str:
    return (_DIRECTORY / f"{code}.md").read_text(encoding="utf-8")


def codes() -> tuple[str, ...]:
    return tuple(sorted(path.stem for path in _DIRECTORY.glob("*.md")))
