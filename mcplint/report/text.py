"""``full``, ``concise`` and ``grouped`` output: ``path:row:col: CODE message`` (ruff's layouts).

Colour comes from ANSI codes, and only when the caller says the stream is a
terminal; pipes and CI logs get plain text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from mcplint.finding import SAFE, Finding
from mcplint.terminal import printable

_STYLES = {"path": "1", "code": "1;31", "dim": "2", "caret": "1;31", "summary": "1"}


def _style(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_STYLES[style]}m{text}\x1b[0m" if color else text


def _header(finding: Finding, color: bool) -> str:
    location = f"{printable(finding.path)}:{finding.line}:{finding.column}:"
    marker = "[*] " if finding.fix is not None and finding.fix.applicability == SAFE else ""
    message = printable(finding.message)
    return f"{_style(location, 'path', color)} {_style(finding.code, 'code', color)} {marker}{message}"


def _plural(count: int) -> str:
    return f"{count} error" if count == 1 else f"{count} errors"


@dataclass(frozen=True)
class Summary:
    """The closing lines: counts, and what `--fix` / `--unsafe-fixes` would do (ruff's wording)."""

    fixed: int = 0
    unsafe_fixes: bool = False
    # Modules import an MCP framework but no handler was found: the handler-scope rules saw nothing.
    no_handlers: bool = False
    # Findings `--baseline` hid: "All checks passed!" would claim what was not checked clean.
    baselined: int = 0
    # Files the analysis skipped (nested too deeply to walk): not checked, so not passed either.
    unanalysed: int = 0

    def render(self, findings: Sequence[Finding], color: bool) -> str:
        remaining = len(findings)
        hidden = f"{self.baselined} more hidden by the baseline" if self.baselined else ""
        if remaining == 0 and self.fixed == 0:
            if hidden:
                return f"No new errors; {hidden}.\n"
            if self.no_handlers:
                return "No findings, but no MCP handler was found: the handler-scope rules checked nothing.\n"
            if self.unanalysed:
                files = "1 file was" if self.unanalysed == 1 else f"{self.unanalysed} files were"
                return f"No findings, but {files} not analysed (see the warnings above).\n"
            return "All checks passed!\n"
        if self.fixed:
            line = f"Found {_plural(remaining + self.fixed)} ({self.fixed} fixed, {remaining} remaining)"
        else:
            line = f"Found {_plural(remaining)}"
        line += f"; {hidden}." if hidden else "."
        lines = [_style(line, "summary", color)]
        fixes = [finding.fix for finding in findings if finding.fix is not None]
        safe = sum(fix.applicability == SAFE for fix in fixes)
        unsafe = len(fixes) - safe
        if self.unsafe_fixes and fixes:
            lines.append(f"[*] {len(fixes)} fixable with the `--fix` option.")
        else:
            if safe:
                lines.append(f"[*] {safe} fixable with the `--fix` option.")
            if unsafe:
                lines.append(f"{unsafe} hidden fixes can be enabled with the `--unsafe-fixes` option.")
        return "\n".join(lines) + "\n"


def render_full(
    findings: Sequence[Finding], *, color: bool, show_source: bool = True, summary: Summary | None = Summary()
) -> str:
    parts = []
    for finding in findings:
        parts.append(_header(finding, color) + "\n")
        if show_source:
            parts.append(_source_excerpt(finding, color))
    if summary is not None:
        parts.append(summary.render(findings, color))
    return "".join(parts)


def _source_excerpt(finding: Finding, color: bool) -> str:
    lines = _source_lines(finding.path)
    if not 0 < finding.line <= len(lines):
        return "\n"
    raw = lines[finding.line - 1].rstrip("\r\n").expandtabs(1)
    gutter = f"{finding.line} |"
    start = finding.column - 1
    end = finding.end_column - 1 if finding.end_line == finding.line else len(raw)
    # The caret spans the escapes that stand for the characters it spans.
    source = printable(raw)
    start, end = len(printable(raw[:start])), len(printable(raw[:end]))
    caret = " " * start + "^" * max(1, end - start)
    pad = " " * len(str(finding.line))
    return (
        f"{_style(gutter, 'dim', color)} {source}\n"
        f"{_style(pad + ' |', 'dim', color)} {_style(caret, 'caret', color)}\n\n"
    )


@lru_cache(maxsize=64)
def _source_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.readlines()
    except OSError:
        return []


def render_grouped(findings: Sequence[Finding], *, color: bool, summary: Summary | None = Summary()) -> str:
    """ruff's ``grouped`` layout: a ``path:`` header per file, then ``  row:col CODE message``.

    Rows are right-aligned and columns padded per file (as ruff does), so the
    codes of one file line up and the eye can run down them.
    """
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    parts = []
    for path, group in by_path.items():
        row_width = max(len(str(finding.line)) for finding in group)
        column_width = max(len(str(finding.column)) for finding in group)
        parts.append(_style(f"{printable(path)}:", "path", color) + "\n")
        for finding in group:
            row = str(finding.line).rjust(row_width)
            column = str(finding.column).ljust(column_width)
            parts.append(f"  {row}:{column} {_style(finding.code, 'code', color)} {printable(finding.message)}\n")
        parts.append("\n")
    if summary is not None:
        parts.append(summary.render(findings, color))
    return "".join(parts)
