"""Output formats. Each renders the sorted findings to one string."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mcplint.finding import Finding
from mcplint.report.json_format import render_json
from mcplint.report.text import Summary, render_full, render_grouped

# Imports inside functions: each format's module is imported when that format is asked for: SARIF's and
# GitHub's import the rule catalogue (the rules, LibCST), which the text formats do not need.

FORMATS = ("full", "concise", "grouped", "json", "sarif", "github", "junit")


def render(
    format_name: str,
    findings: Sequence[Finding],
    *,
    color: bool,
    root: Path,
    show_source: bool | None = None,
    with_summary: bool = True,
    fixed: int = 0,
    unsafe_fixes: bool = False,
    no_handlers: bool = False,
    baselined: int = 0,
    unanalysed: int = 0,
) -> str:
    """``root`` is the project root (the git work tree, else the working directory):
    formats that need stable paths (SARIF, baselines) make them relative to it.
    ``show_source`` overrides the text formats' default (full: yes, concise: no);
    ``with_summary=False`` (``--quiet``) leaves out their closing summary line;
    ``fixed`` (with ``--fix``) and ``unsafe_fixes`` shape the summary's fix counts;
    ``baselined`` findings were hidden by ``--baseline`` (the summary says so), and
    ``unanalysed`` files were skipped (nor does it claim they passed)."""
    summary = (
        Summary(
            fixed=fixed, unsafe_fixes=unsafe_fixes, no_handlers=no_handlers, baselined=baselined, unanalysed=unanalysed
        )
        if with_summary
        else None
    )
    # Each format's module is imported only when chosen, so ``mcplint check``
    # pays for neither ``json`` nor ``xml`` unless it prints them.
    if format_name == "json":
        return render_json(findings)
    if format_name == "sarif":
        from mcplint.report.sarif import render_sarif

        return render_sarif(findings, root=root)
    if format_name == "github":
        from mcplint.report.github import render_github

        return render_github(findings, root=root)
    if format_name == "junit":
        from mcplint.report.junit import render_junit

        return render_junit(findings)
    if format_name == "grouped":
        return render_grouped(findings, color=color, summary=summary)
    if format_name in ("full", "concise"):
        if show_source is None:
            show_source = format_name == "full"
        return render_full(findings, color=color, show_source=show_source, summary=summary)
    # The CLI only offers FORMATS; a typo from another caller must not
    # silently become the full report.
    raise ValueError(f"unknown output format {format_name!r} (one of {', '.join(FORMATS)})")
