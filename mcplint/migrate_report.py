"""What `mcplint migrate` tells a person: per rule, per domain, per file, and every site left.

One `MigrationReport` (data), two renderings: plain text after the diff (on stderr) and
markdown for `--report FILE.md`. The report says what was done and where a human is needed:
each site left as `path:line: CODE reason`, with the one reason that applied.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RuleCount:
    code: str
    before: int  # sites found
    after: int  # sites left for a human

    @property
    def resolved(self) -> int:
        return self.before - self.after


@dataclass(frozen=True)
class Symbol:
    symbol: str
    code: int
    message: str


@dataclass(frozen=True)
class Domain:
    name: str
    range: tuple[int, int] | None  # None: the domain was in the registry already
    symbols: list[Symbol]


@dataclass(frozen=True)
class FileChange:
    path: str
    sites: int  # sites rewritten
    added: int  # diff lines
    removed: int


@dataclass(frozen=True)
class LeftSite:
    path: str
    line: int
    code: str
    reason: str

    def line_text(self) -> str:
        return f"{self.path}:{self.line}: {self.code} {self.reason}"


@dataclass
class MigrationReport:
    rules: list[RuleCount]
    domains: list[Domain]
    files: list[FileChange]
    left: list[LeftSite]
    registry: str
    helpers: str
    notes: list[str] = field(default_factory=list)

    @property
    def symbols(self) -> int:
        return sum(len(domain.symbols) for domain in self.domains)


def file_changes(fixed_paths: list[str], diffs: list[str]) -> list[FileChange]:
    """Per changed file: the sites rewritten there and its diff's line counts."""
    sites = Counter(fixed_paths)
    counts: dict[str, tuple[int, int]] = {}
    for diff in diffs:
        lines = diff.splitlines()
        if not lines or not lines[0].startswith("--- "):
            continue
        body = [line for line in lines[2:] if not line.startswith(("---", "+++"))]
        added = sum(1 for line in body if line.startswith("+"))
        removed = sum(1 for line in body if line.startswith("-"))
        counts[lines[0][4:]] = (added, removed)
    paths = sorted(set(sites) | set(counts))
    return [FileChange(path, sites[path], *counts.get(path, (0, 0))) for path in paths]


# -- plain text (stderr, after the diff) -----------------------------------------------------
def text_lines(report: MigrationReport, *, stat: bool = False) -> list[str]:
    rows = [("rule", "sites", "resolved", "left for a human")]
    rows += [(r.code, str(r.before), str(r.resolved), str(r.after)) for r in report.rules]
    width = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = ["  ".join(cell.ljust(width[index]) for index, cell in enumerate(row)).rstrip() for row in rows]
    lines.append(
        f"symbols created: {report.symbols} in {len(report.domains)} domain(s); "
        f"files changed: {len(report.files)}; registry: {report.registry}; helpers: {report.helpers}"
    )
    for domain in report.domains:
        where = f"codes {domain.range[0]}-{domain.range[1]}" if domain.range else "existing domain"
        lines.append(f"  {domain.name}: {len(domain.symbols)} symbol(s), {where}")
    if stat:
        lines += [f"  {change.path}: {_file_figures(change)}" for change in report.files]
    if report.left:
        lines.append(f"left for a human ({len(report.left)}; lines of the migrated files):")
    lines += [site.line_text() for site in report.left]
    lines += [f"  note: {note}" for note in report.notes]
    return lines


def _file_figures(change: FileChange) -> str:
    return f"{change.sites} site(s) rewritten, +{change.added} -{change.removed}"


# -- markdown (--report FILE.md) -------------------------------------------------------------
def markdown(report: MigrationReport) -> str:
    lines = ["# mcplint migrate", ""]
    lines += [f"Registry: `{report.registry}`; helpers: `{report.helpers}`.", ""]
    lines += ["## Sites per rule", "", "| rule | before | resolved | after (left for a human) |", "|---|---:|---:|---:|"]
    lines += [f"| {r.code} | {r.before} | {r.resolved} | {r.after} |" for r in report.rules]
    lines += ["", f"## Symbols created: {report.symbols} in {len(report.domains)} domain(s)"]
    for domain in report.domains:
        where = f"codes {domain.range[0]}–{domain.range[1]}" if domain.range else "an existing domain"
        lines += ["", f"### {domain.name} ({len(domain.symbols)}, {where})", ""]
        lines += ["| symbol | code | message |", "|---|---:|---|"]
        lines += [f"| `{s.symbol}` | {s.code} | {_cell(s.message)} |" for s in domain.symbols]
    lines += ["", f"## Files changed: {len(report.files)}", ""]
    if report.files:
        lines += ["| file | sites rewritten | lines added | lines removed |", "|---|---:|---:|---:|"]
        lines += [f"| `{c.path}` | {c.sites} | {c.added} | {c.removed} |" for c in report.files]
        lines.append("")
    lines += [f"## Left for a human: {len(report.left)}", ""]
    if report.left:
        lines += ["Lines of the migrated files.", "", "```text", *(s.line_text() for s in report.left), "```", ""]
    if report.notes:
        lines += ["## Notes", "", *(f"- {note}" for note in report.notes), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _cell(text: str) -> str:
    """A message in a table cell: a pipe or a line break would end the cell or the row."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "\\r").replace("\n", "\\n")
