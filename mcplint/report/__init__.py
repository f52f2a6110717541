"""Output formats. Each renders the sorted findings to one string."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mcplint.finding import Finding

FORMATS = ("full", "concise", "json")


def render(format_name: str, findings: Sequence[Finding], *, color: bool, root: Path) -> str:
    """``root`` is the project root (the git work tree, else the working directory):
    formats that need stable paths (SARIF, baselines) make them relative to it."""
    if format_name == "json":
        from mcplint.report.json_format import render_json

        return render_json(findings)
    if format_name == "concise":
        from mcplint.report.text import render_concise

        return render_concise(findings, color=color)
    from mcplint.report.text import render_full

    return render_full(findings, color=color)


def render_statistics(findings: Sequence[Finding]) -> str:
    counts: dict[tuple[str, str], int] = {}
    for finding in findings:
        counts[(finding.code, finding.name)] = counts.get((finding.code, finding.name), 0) + 1
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    width = max((len(str(count)) for _, count in rows), default=1)
    return "".join(f"{count:>{width}}\t{code}\t{name}\n" for (code, name), count in rows)
