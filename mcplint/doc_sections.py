"""The sections of a check's documentation (`## What it does`, `## Example`, ...)."""

from __future__ import annotations

import inspect
import re


def parse_sections(doc: str) -> dict[str, str]:
    sections: dict[str, str] = {}
    for block in re.split(r"^## ", inspect.cleandoc(doc), flags=re.MULTILINE)[1:]:
        title, _, body = block.partition("\n")
        sections[title.strip()] = body.strip()
    return sections
