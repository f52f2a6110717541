"""Suppression comments: ``# mcplint: ignore[...]``, ``ignore-file[...]``, ``# noqa: ...``.

A directive at the end of a line covers findings that start or end on that
line (so the last line of a multi-line statement works too). A directive on a
line of its own covers the next line of code. Without codes, ``# mcplint:
ignore`` covers every code; a bare ``# noqa`` is left to the tools it was
written for, because it would silence mcplint by accident.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mcplint.finding import Finding

_MCPLINT = re.compile(r"#\s*mcplint:\s*(ignore-file|ignore)\b(?:\[([^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa:\s*([A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*)", re.IGNORECASE)
ALL_CODES = None  # a directive without codes


@dataclass
class Suppressions:
    file_codes: set[str] | None = field(default_factory=set)  # None: every code
    line_codes: dict[int, set[str] | None] = field(default_factory=dict)

    def suppresses(self, finding: Finding) -> bool:
        if self.file_codes is ALL_CODES or finding.code in self.file_codes:
            return True
        for line in {finding.line, finding.end_line}:
            if line in self.line_codes:
                codes = self.line_codes[line]
                if codes is ALL_CODES or finding.code in codes:
                    return True
        return False


def _codes(text: str | None) -> set[str] | None:
    if text is None:
        return ALL_CODES
    return {code.strip().upper() for code in text.split(",") if code.strip()}


def _merge(existing: set[str] | None, new: set[str] | None) -> set[str] | None:
    if existing is ALL_CODES or new is ALL_CODES:
        return ALL_CODES
    return existing | new


def parse_suppressions(text: str) -> Suppressions:
    suppressions = Suppressions()
    pending_own_line: set[str] | None | bool = False  # False: nothing pending
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if "#" not in line:
            if pending_own_line is not False and stripped:
                suppressions.line_codes[number] = _merge(suppressions.line_codes.get(number, set()), pending_own_line)
                pending_own_line = False
            continue
        codes = _line_directive(line, suppressions)
        if stripped.startswith("#"):
            if codes is not False:
                pending_own_line = codes if pending_own_line is False else _merge(pending_own_line, codes)
            continue
        if pending_own_line is not False:
            codes = pending_own_line if codes is False else _merge(pending_own_line, codes)
            pending_own_line = False
        if codes is not False:
            suppressions.line_codes[number] = _merge(suppressions.line_codes.get(number, set()), codes)
    return suppressions


def _line_directive(line: str, suppressions: Suppressions) -> set[str] | None | bool:
    """The codes a line's directives cover (False: none); records ignore-file."""
    found: set[str] | None | bool = False
    for match in _MCPLINT.finditer(line):
        codes = _codes(match.group(2))
        if match.group(1).lower() == "ignore-file":
            suppressions.file_codes = _merge(suppressions.file_codes, codes)
        else:
            found = codes if found is False else _merge(found, codes)
    noqa = _NOQA.search(line)
    if noqa:
        codes = _codes(noqa.group(1))
        found = codes if found is False else _merge(found, codes)
    return found
