"""Recall and false alarms of mcplint on hand-labelled real code.

Usage:
    python benchmarks/evaluate.py [--labels benchmarks/labels.tsv] [--corpus DIR]
                                  [--findings FILE] [--misses RULE] [--json FILE]

The labels (``labels.tsv``) were written by reviewers who read the servers of the
pinned corpus (``fetch_corpus.py``) without running mcplint: each row is a site
(package, path, first and last line of the statement), a rule, ``pos`` (a defect
a client request reaches) or ``neg`` (a look-alike that is not one), and why.

mcplint runs over the labelled packages (or ``--findings`` reads a JSON report made
in the corpus directory), and each finding is matched to at most one label of its
file and rule whose lines hold the finding's first line (one line of slack either
side, for a finding placed on a sub-expression). A finding left unmatched then
matches a label of its file and rule in the same ``except`` clause (the innermost
one holding both lines): the clause is one error path, and a rule may place its
finding where the error enters it (``kind, text = categorize(e)``) while the
reviewer labelled where it leaves (``return {"text": text}``). ``--strict`` turns
that off. Per rule:

- recall: labelled positives that a finding matches / labelled positives;
- false alarms: labelled negatives that a finding matches / labelled sites that a
  finding matches (the share of flagged labelled sites that are wrong);
- negatives flagged: labelled negatives that a finding matches / labelled negatives.

Findings on unlabelled lines are counted but not judged (the labels are a sample).
Stdlib only.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_LABELS = HERE / "labels.tsv"
DEFAULT_CORPUS = Path(os.environ.get("MCPLINT_CORPUS_DIR", Path.home() / ".cache" / "mcplint" / "corpus")) / "src"
SLACK = 1
# MCP009 (stale suppressions) is the engine's, not labelled.
RULES = [*(f"MCP00{n}" for n in range(1, 9)), "MCP010"]


@dataclass(frozen=True)
class Label:
    package: str
    path: str
    line: int
    end_line: int
    rule: str
    positive: bool
    reason: str

    @property
    def filename(self) -> str:
        return f"{self.package}/{self.path}"


def read_labels(path: Path) -> list[Label]:
    labels = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            verdict = row["verdict"].strip()
            if verdict not in ("pos", "neg"):
                raise SystemExit(f"{path}: bad verdict {verdict!r} in {row}")
            labels.append(
                Label(
                    row["package"].strip(),
                    row["path"].strip(),
                    int(row["line"]),
                    int(row["end_line"] or row["line"]),
                    row["rule"].strip(),
                    verdict == "pos",
                    row["reason"].strip(),
                )
            )
    return labels


def run_mcplint(corpus: Path, packages: list[str]) -> list[dict]:
    command = [sys.executable, "-m", "mcplint", "check", "--format", "json", "--no-cache", "--exit-zero", *packages]
    completed = subprocess.run(command, cwd=corpus, capture_output=True, text=True)
    if completed.returncode != 0:
        raise SystemExit(f"mcplint failed ({completed.returncode}): {completed.stderr.strip()[-500:]}")
    return json.loads(completed.stdout)


def match(labels: list[Label], findings: list[dict], corpus: Path | None = None) -> dict[Label, dict]:
    """Label -> the finding matched to it (each finding matches one label at most); with the
    corpus, a finding no label's lines hold may match a label in its `except` clause."""
    by_site: dict[tuple[str, str], list[Label]] = defaultdict(list)
    for label in labels:
        by_site[(label.filename, label.rule)].append(label)
    matched: dict[Label, dict] = {}
    for finding in sorted(findings, key=lambda f: (f["filename"], f["location"]["row"])):
        row = finding["location"]["row"]
        candidates = [
            label
            for label in by_site.get((finding["filename"], finding["code"]), ())
            if label not in matched and label.line - SLACK <= row <= label.end_line + SLACK
        ]
        if candidates:  # the label whose span holds the line best
            best = min(candidates, key=lambda label: (not label.line <= row <= label.end_line, abs(label.line - row)))
            matched[best] = finding
    if corpus is not None:
        _match_in_clauses(by_site, findings, matched, corpus)
    return matched


def _match_in_clauses(
    by_site: dict[tuple[str, str], list[Label]], findings: list[dict], matched: dict[Label, dict], corpus: Path
) -> None:
    used = {id(finding) for finding in matched.values()}
    clauses: dict[str, list[tuple[int, int]]] = {}
    for finding in sorted(findings, key=lambda f: (f["filename"], f["location"]["row"])):
        if id(finding) in used:
            continue
        labels = [label for label in by_site.get((finding["filename"], finding["code"]), ()) if label not in matched]
        if not labels:
            continue
        if finding["filename"] not in clauses:
            clauses[finding["filename"]] = _except_clauses(corpus / finding["filename"])
        clause = _innermost(clauses[finding["filename"]], finding["location"]["row"])
        if clause is None:
            continue
        same = [label for label in labels if _innermost(clauses[finding["filename"]], label.line) == clause]
        if same:
            matched[min(same, key=lambda label: abs(label.line - finding["location"]["row"]))] = finding


def _except_clauses(path: Path) -> list[tuple[int, int]]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return []
    return [(node.lineno, node.end_lineno or node.lineno) for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler)]


def _innermost(clauses: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    holding = [clause for clause in clauses if clause[0] <= line <= clause[1]]
    return min(holding, key=lambda clause: clause[1] - clause[0]) if holding else None


def table(labels: list[Label], matched: dict[Label, dict], findings: list[dict]) -> tuple[str, dict]:
    figures: dict[str, dict[str, float]] = {}
    lines = [
        "| rule | positives | found | recall | negatives | flagged | false alarms | findings (labelled packages) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    per_rule_findings = Counter(finding["code"] for finding in findings)
    for rule in [*RULES, "all"]:
        chosen = [label for label in labels if rule in ("all", label.rule)]
        positives = [label for label in chosen if label.positive]
        negatives = [label for label in chosen if not label.positive]
        found = sum(label in matched for label in positives)
        flagged = sum(label in matched for label in negatives)
        recall = found / len(positives) if positives else None
        false_alarms = flagged / (found + flagged) if found + flagged else 0.0
        total = sum(per_rule_findings.values()) if rule == "all" else per_rule_findings[rule]
        figures[rule] = {
            "positives": len(positives), "found": found, "recall": recall,
            "negatives": len(negatives), "flagged": flagged, "false_alarms": false_alarms, "findings": total,
        }  # fmt: skip
        recall_text = f"{recall:.0%}" if recall is not None else "–"
        name = "**all**" if rule == "all" else rule
        lines.append(
            f"| {name} | {len(positives)} | {found} | {recall_text} | {len(negatives)} | {flagged} "
            f"| {false_alarms:.0%} | {total} |"
        )
    return "\n".join(lines), figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--findings", type=Path, help="a JSON report made with the corpus directory as cwd")
    parser.add_argument("--misses", metavar="RULE", help="list the missed positives and flagged negatives of RULE")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--strict", action="store_true", help="match on the labels' lines only, not their except clause")
    options = parser.parse_args(argv)

    labels = read_labels(options.labels)
    packages = sorted({label.package for label in labels})
    if options.findings is not None:
        findings = json.loads(options.findings.read_text(encoding="utf-8"))
    else:
        missing = [package for package in packages if not (options.corpus / package).is_dir()]
        if missing:
            raise SystemExit(f"not in {options.corpus}: {', '.join(missing)} (run benchmarks/fetch_corpus.py)")
        findings = run_mcplint(options.corpus, packages)
    findings = [f for f in findings if f["filename"].split("/", 1)[0] in packages]
    matched = match(labels, findings, None if options.strict else options.corpus)
    text, figures = table(labels, matched, findings)
    print(f"{len(labels)} labels in {len(packages)} packages; {len(findings)} findings in those packages\n")
    print(text)
    if options.misses:
        print()
        for label in labels:
            if label.rule != options.misses:
                continue
            if label.positive and label not in matched:
                print(f"missed  {label.filename}:{label.line}  {label.reason}")
            elif not label.positive and label in matched:
                print(f"flagged {label.filename}:{label.line}  {label.reason}")
    if options.json is not None:
        options.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
