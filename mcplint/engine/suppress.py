"""Applying suppression comments to a file's findings, and reporting the stale ones (MCP009)."""

from __future__ import annotations

from mcplint.catalogue import known_codes
from mcplint.finding import Finding
from mcplint.fingerprint import snippet_digest
from mcplint.rules import RULES_BY_CODE, SYNTAX_ERROR, UNUSED_SUPPRESSION
from mcplint.rules.mcp009_unused_suppression import unused_suppressions
from mcplint.settings import FileSettings
from mcplint.source import source_lines
from mcplint.suppressions import DIRECTIVE_HINT, parse_suppressions


def apply_suppressions(text: str, findings: list[Finding], display: str, settings: FileSettings) -> list[Finding]:
    if DIRECTIVE_HINT.search(text) is None:  # most files: no directive, no line to go through
        return list(findings)
    lines = source_lines(text)
    suppressions = parse_suppressions(lines)
    kept = [finding for finding in findings if not suppressions.suppresses(finding)]
    if UNUSED_SUPPRESSION not in settings.codes or not suppressions.directives:
        return kept
    if any(finding.code == SYNTAX_ERROR for finding in findings):
        # Nothing of the file was analysed: no directive can be known to be unused (and
        # removing one from a file that does not parse cannot be checked). Found by fuzzing.
        return kept
    known = known_codes()
    for directive, message, fix in unused_suppressions(suppressions, settings.codes, known, lines):
        finding = Finding(
            path=display,
            line=directive.line,
            column=directive.column,
            code=UNUSED_SUPPRESSION,
            end_line=directive.line,
            end_column=directive.end_column,
            name=RULES_BY_CODE[UNUSED_SUPPRESSION].name,
            message=message,
            snippet_digest=snippet_digest(directive.text),
            fix=fix,
        )
        if not any(d is not directive and d.covers(finding) for d in suppressions.directives) and not (
            directive.codes and UNUSED_SUPPRESSION in directive.codes
        ):
            kept.append(finding)
    return kept
