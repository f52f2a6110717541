"""Suppression comments: ``# mcplint: ignore[...]``, ``ignore-file[...]``, ``# noqa: ...``.

A directive at the end of a line covers findings that start or end on that
line (so the last line of a multi-line statement works too). A directive on a
line of its own covers the next line of code. Without codes, ``# mcplint:
ignore`` covers every code; a bare ``# noqa`` is left to the tools it was
written for, because it would silence mcplint by accident. Each directive
remembers which of its codes suppressed something, for MCP009.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from mcplint.finding import Finding

_MCPLINT = re.compile(r"#\s*mcplint:\s*(ignore-file|ignore)\b(?:\[([^\]]*)\])?", re.IGNORECASE)
MCPLINT_DIRECTIVE = _MCPLINT  # for `--add-noqa`, which merges codes into an existing directive
_NOQA = re.compile(r"#\s*noqa:\s*([A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*)", re.IGNORECASE)
# What every directive holds (both patterns above): a text without it has none to parse.
DIRECTIVE_HINT = re.compile(r"#\s*(?:mcplint:|noqa:)", re.IGNORECASE)


@dataclass
class Directive:
    line: int
    column: int  # 1-based, where the comment's directive starts
    end_column: int
    text: str
    kind: str  # "ignore", "ignore-file" or "noqa"
    written_codes: tuple[str, ...] | None  # as written, upper-cased; None: every code (blanket)

    @property
    def codes(self) -> frozenset[str] | None:
        return None if self.written_codes is None else frozenset(self.written_codes)

    @property
    def whole_file(self) -> bool:
        return self.kind == "ignore-file"
    covered_lines: set[int] = field(default_factory=set)
    used: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        if self.codes is not None and finding.code not in self.codes:
            return False
        return self.whole_file or finding.line in self.covered_lines or finding.end_line in self.covered_lines


@dataclass
class Suppressions:
    directives: list[Directive] = field(default_factory=list)

    def suppresses(self, finding: Finding) -> bool:
        """True when a directive covers the finding; marks the directives used."""
        covering = [directive for directive in self.directives if directive.covers(finding)]
        for directive in covering:
            directive.used.add(finding.code)
        return bool(covering)


def parse_suppressions(lines: Sequence[str]) -> Suppressions:
    """The directives of a text's ``source_lines``."""
    suppressions = Suppressions()
    waiting_for_code: list[Directive] = []  # own-line directives cover the next line of code
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        found = list(_directives(line, number)) if "#" in line else []
        suppressions.directives.extend(found)
        is_comment_only = stripped.startswith("#")
        if stripped and not is_comment_only:
            for directive in waiting_for_code:
                directive.covered_lines.add(number)
            waiting_for_code = []
        for directive in found:
            if directive.whole_file:
                continue
            if is_comment_only:
                waiting_for_code.append(directive)
            else:
                directive.covered_lines.add(number)
    return suppressions


def _directives(line: str, number: int) -> Iterator[Directive]:
    for match in _MCPLINT.finditer(line):
        codes = None if match.group(2) is None else _codes(match.group(2))
        yield Directive(number, match.start() + 1, match.end() + 1, match.group(0), match.group(1).lower(), codes)
    noqa = _NOQA.search(line)
    if noqa:
        yield Directive(number, noqa.start() + 1, noqa.end() + 1, noqa.group(0), "noqa", _codes(noqa.group(1)))


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip().upper() for code in text.split(",") if code.strip())


def rewritten(directive: Directive, kept: tuple[str, ...]) -> str:
    """The directive with only ``kept`` codes (empty string when none is left)."""
    if not kept:
        return ""
    if directive.kind == "noqa":
        return f"# noqa: {', '.join(kept)}"
    return f"# mcplint: {directive.kind}[{', '.join(kept)}]"
