"""Findings as LSP diagnostics: range, severity, code and its documentation, the handler.

mcplint's positions are 1-based lines and code-point columns (end exclusive); LSP's are
0-based lines and columns in the encoding the client negotiated (UTF-16 unless it said
otherwise), which ``Positions`` converts on the text the finding was computed from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lsprotocol import types

from mcplint.finding import Finding
from mcplint.source import source_lines

SOURCE = "mcplint"
RULE_DOCS = "https://github.com/mcplint/mcplint/blob/main/rules/{code}.md"
# A finding's severity: what would stop the code running is an error, the rest warnings
# (a finding is a defect of the error handling, not of the program).
ERROR_CODES = frozenset({"MCP000"})
UNNECESSARY_CODES = frozenset({"MCP009"})  # an unused suppression: the editor fades it


class Positions:
    """mcplint's positions in ``text`` as the client's."""

    def __init__(self, text: str, units: Callable[[str], int]) -> None:
        self.lines = source_lines(text)
        self._units = units  # the client's code units in a string (PositionCodec.client_num_units)

    def position(self, line: int, column: int) -> types.Position:
        if line > len(self.lines):  # past the end (a finding on the last line's break)
            return types.Position(line=len(self.lines) - 1, character=self._units(self.lines[-1]))
        text = self.lines[line - 1]
        return types.Position(line=line - 1, character=self._units(text[: column - 1]))

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(start=self.position(line, column), end=self.position(end_line, end_column))


def to_diagnostic(
    finding: Finding, positions: Positions, handler_location: types.Location | None = None
) -> types.Diagnostic:
    """``handler_location``: where the reaching handler is defined, when the finding is in a callee."""
    related = None
    if handler_location is not None and finding.handler is not None:
        related = [
            types.DiagnosticRelatedInformation(location=handler_location, message=f"handler `{finding.handler}`")
        ]
    return types.Diagnostic(
        range=positions.range(finding.line, finding.column, finding.end_line, finding.end_column),
        severity=types.DiagnosticSeverity.Error if finding.code in ERROR_CODES else types.DiagnosticSeverity.Warning,
        code=finding.code,
        code_description=types.CodeDescription(href=RULE_DOCS.format(code=finding.code)),
        source=SOURCE,
        message=finding.message,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code in UNNECESSARY_CODES else None,
        related_information=related,
    )


def to_diagnostics(
    findings: Sequence[Finding],
    positions: Positions,
    locate_handler: Callable[[Finding], types.Location | None] = lambda finding: None,
) -> list[types.Diagnostic]:
    return [to_diagnostic(finding, positions, locate_handler(finding)) for finding in findings]
