"""`--add-noqa`: a `# mcplint: ignore[CODE]` comment for every current finding.

The other way to adopt mcplint on a legacy codebase, beside the baseline: the
suppressions live next to the code, where a reviewer sees them. Per line, the
codes found there go into one comment at its end; an `# mcplint: ignore[...]`
comment already on the line gets the new codes merged in; any other comment
(`# type: ignore`, `# noqa: E501`) stays and the directive follows it.

A comment can only end a line that does not continue into the next one inside
a string or after a backslash, so a finding whose first line is such a line is
suppressed on its last line (a suppression covers a finding's first or last
line). The edited file must still parse, and it replaces the original
atomically, keeping its encoding, BOM and line endings; otherwise the file is
left alone with a warning.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from mcplint.atomic import write_atomically
from mcplint.finding import Finding
from mcplint.rules import SYNTAX_ERROR, UNUSED_SUPPRESSION
from mcplint.source import UndecodableSource, decode_with_encoding
from mcplint.suppressions import MCPLINT_DIRECTIVE

# Imports inside functions: the fixer (LibCST) is imported only when a file gets a comment to verify.

# A syntax error cannot take a comment that the parser will read; a stale suppression's
# remedy is removing it, not suppressing it.
NOT_SUPPRESSIBLE = frozenset({SYNTAX_ERROR, UNUSED_SUPPRESSION})
_LINE_END = re.compile(r"[ \t]*(\r\n|\r|\n)?\Z")


@dataclass
class AddNoqaOutcome:
    comments: int = 0  # lines that got a new or extended directive
    findings: int = 0  # findings those directives suppress
    files: int = 0
    warnings: list[str] = field(default_factory=list)


def add_noqa(findings: Iterable[Finding], paths: dict[str, str]) -> AddNoqaOutcome:
    """Suppress ``findings`` in place; ``paths`` maps a finding's display path to its file."""
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.code not in NOT_SUPPRESSIBLE and finding.path in paths:
            by_file.setdefault(finding.path, []).append(finding)
    outcome = AddNoqaOutcome()
    for display, found in sorted(by_file.items()):
        _add_to_file(paths[display], display, found, outcome)
    return outcome


def _add_to_file(path: str, display: str, findings: Sequence[Finding], outcome: AddNoqaOutcome) -> None:
    try:
        with open(path, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            data = handle.read()
        text, encoding = decode_with_encoding(data)
    except (OSError, UndecodableSource) as error:
        outcome.warnings.append(f"{display}: not changed: {getattr(error, 'strerror', None) or error}")
        return
    added = with_directives(text, display, findings)
    outcome.warnings += added.warnings
    if added.comments == 0 or added.text is None:
        return
    new_text = added.text
    try:
        new_data = new_text.encode(encoding)
    except UnicodeEncodeError:
        outcome.warnings.append(f"{display}: not changed: cannot write the comments in {encoding}")
        return
    write_atomically(path, new_data, mode)
    outcome.comments += added.comments
    outcome.findings += added.findings
    outcome.files += 1


@dataclass
class Directives:
    text: str | None  # the text with the directives; None: left as it was (see warnings)
    comments: int = 0
    findings: int = 0
    warnings: list[str] = field(default_factory=list)


def with_directives(text: str, display: str, findings: Sequence[Finding]) -> Directives:
    """``text`` with a `# mcplint: ignore[...]` directive for each finding (the editor's
    "Suppress on this line" is this with one finding)."""
    lines = text.splitlines(keepends=True)
    try:
        open_rows, comments = _line_facts(text)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return Directives(None, warnings=[f"{display}: not changed: the file does not tokenize"])
    added = Directives(None)
    codes_by_row: dict[int, set[str]] = {}
    for finding in findings:
        row = next((r for r in (finding.line, finding.end_line) if r not in open_rows and 0 < r <= len(lines)), None)
        if row is None:
            added.warnings.append(
                f"{display}:{finding.line}: {finding.code} not suppressed: its lines continue inside a string"
            )
            continue
        codes_by_row.setdefault(row, set()).add(finding.code)
        added.findings += 1
    if not codes_by_row:
        return added
    for row, codes in codes_by_row.items():
        lines[row - 1] = _with_directive(lines[row - 1], sorted(codes), comments.get(row))
    new_text = "".join(lines)
    from mcplint.engine.fixer import parses

    if not parses(new_text):
        added.warnings.append(f"{display}: not changed: the file would not parse with the comments")
        added.findings = 0
        return added
    added.text = new_text
    added.comments = len(codes_by_row)
    return added


def _line_facts(text: str) -> tuple[set[int], dict[int, int]]:
    """(rows whose end continues into the next row inside a string or after a backslash,
    the column of each row's trailing comment)."""
    ended: set[int] = set()  # rows that end with NEWLINE / NL: a comment may go there
    comments: dict[int, int] = {}
    rows = text.count("\n") + (0 if text.endswith("\n") else 1)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.NEWLINE, tokenize.NL):
            ended.add(token.start[0])
        elif token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.start[1]
        elif token.type == tokenize.ENDMARKER:
            ended.add(token.start[0])
    return {row for row in range(1, rows + 1) if row not in ended}, comments


def _with_directive(line: str, codes: list[str], comment_column: int | None) -> str:
    match = _LINE_END.search(line)
    assert match is not None
    code, ending = line[: match.start()], match.group(1) or ""
    if comment_column is not None:
        comment = code[comment_column:]
        for directive in MCPLINT_DIRECTIVE.finditer(comment):
            if directive.group(1).lower() == "ignore" and directive.group(2) is not None:
                written = [item.strip().upper() for item in directive.group(2).split(",") if item.strip()]
                merged = written + [item for item in codes if item not in written]
                start = comment_column + directive.start()
                end = comment_column + directive.end()
                return f"{code[:start]}# mcplint: ignore[{', '.join(merged)}]{code[end:]}{ending}"
    return f"{code}  # mcplint: ignore[{', '.join(codes)}]{ending}"

