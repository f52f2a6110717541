"""`--statistics`: one row per code, most frequent first, then the summary (ruff's layout).

A row is `count<TAB>code<TAB>[*] name`: `[*]` when some finding of the code has a fix
that `--fix` would apply (with `--unsafe-fixes`, unsafe ones count too), `[ ]` when
none has; when no finding at all is fixable the marker column is left out, as ruff
does. The closing lines are the text formats' summary (total, fixable counts).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from mcplint.finding import SAFE, Finding
from mcplint.report.text import Summary


def _applicable(finding: Finding, unsafe_fixes: bool) -> bool:
    return finding.fix is not None and (unsafe_fixes or finding.fix.applicability == SAFE)


def render_statistics(
    findings: Sequence[Finding], *, summary: Summary | None = None, unsafe_fixes: bool = False, color: bool = False
) -> str:
    counts = Counter((finding.code, finding.name) for finding in findings)
    fixable = {finding.code for finding in findings if _applicable(finding, unsafe_fixes)}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    count_width = max((len(str(count)) for _, count in rows), default=1)
    code_width = max((len(code) for (code, _), _ in rows), default=1)
    lines = []
    for (code, name), count in rows:
        marker = ("[*] " if code in fixable else "[ ] ") if fixable else ""
        lines.append(f"{count:>{count_width}}\t{code:<{code_width}}\t{marker}{name}\n")
    if summary is not None:
        lines.append(summary.render(findings, color))
    return "".join(lines)
