"""``--format github``: one GitHub Actions ``::error`` workflow command per finding.

Printed in a workflow step, each line becomes an annotation on the file and
lines of the pull request. The layout is ruff's::

    ::error title=mcplint (CODE),file=PATH,line=L,col=C,endLine=EL,endColumn=EC::PATH:L:C: CODE message

The runner parses these lines itself, so every value is escaped the way
actions/toolkit does (``escapeData`` / ``escapeProperty``); an unescaped
newline would end the command and a ``,`` or ``:`` in a path would end a
property early.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mcplint.finding import Finding
from mcplint.fingerprint import relative_path
from mcplint.terminal import printable


def escape_data(text: str) -> str:
    # "%" first, or the escapes added after it would be escaped again. The log that shows
    # the line is a terminal too: other control characters are shown as escapes.
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(finding: Finding, root: Path) -> str:
    # GitHub resolves ``file`` against the repository checkout, so it gets the
    # path relative to the project root; the message keeps the path as the
    # user gave it, like every other text format.
    line = max(1, finding.line)
    column = max(1, finding.column)
    end_line, end_column = max((finding.end_line, finding.end_column), (line, column))
    properties = {
        "title": f"mcplint ({finding.code})",
        "file": relative_path(finding.path, root),
        "line": line,
        "col": column,
        "endLine": end_line,
        "endColumn": end_column,
    }
    rendered = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    message = f"{finding.path}:{finding.line}:{finding.column}: {finding.code} {finding.message}"
    return f"::error {rendered}::{escape_data(message)}\n"


def render_github(findings: Sequence[Finding], *, root: Path) -> str:
    return "".join(github_line(finding, root) for finding in findings)
