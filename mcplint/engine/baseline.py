"""Baselines: adopt mcplint on a legacy codebase without fixing everything first.

``--write-baseline FILE`` records the current findings by fingerprint (no line
numbers, see ``mcplint.fingerprint``); ``--baseline FILE`` hides the findings
recorded there and counts the entries that no longer match anything, so the
file can shrink as findings are fixed. Growing it is always an explicit
``--write-baseline``. The file is sorted, indented JSON: a reviewable diff.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcplint.atomic import mode_for, write_atomically
from mcplint.config import ConfigError
from mcplint.finding import Finding
from mcplint.fingerprint import fingerprints, relative_path

FORMAT_VERSION = 1


@dataclass(frozen=True)
class BaselineResult:
    findings: list[Finding]  # not in the baseline
    matched: int
    stale: int  # baseline entries that matched no finding


def write_baseline(path: Path, findings: Sequence[Finding], root: Path) -> int:
    entries = [
        {
            "code": finding.code,
            "path": relative_path(finding.path, root),
            "context": finding.context,
            "fingerprint": fingerprint,
            "message": finding.message,
        }
        for finding, fingerprint in zip(findings, fingerprints(findings, root), strict=True)
    ]
    entries.sort(key=lambda entry: (entry["path"], entry["code"], entry["context"], entry["fingerprint"]))
    document = {"mcplint-baseline": FORMAT_VERSION, "findings": entries}
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    write_atomically(path, text.encode("utf-8"), mode_for(path))
    return len(entries)


def load_baseline(path: Path) -> set[str]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"{path}: cannot read baseline: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}:{error.lineno}: baseline is not valid JSON: {error.msg}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: baseline is not valid UTF-8") from None
    except RecursionError:
        raise ConfigError(f"{path}: baseline is nested too deeply to read") from None
    if not isinstance(document, dict) or document.get("mcplint-baseline") != FORMAT_VERSION:
        raise ConfigError(f"{path}: not an mcplint baseline (version {FORMAT_VERSION})")
    try:
        return {entry["fingerprint"] for entry in document["findings"]}
    except (KeyError, TypeError):
        raise ConfigError(f"{path}: baseline entries need a 'fingerprint'") from None


def apply_baseline(findings: Sequence[Finding], baseline: set[str], root: Path) -> BaselineResult:
    new: list[Finding] = []
    matched: set[str] = set()
    for finding, fingerprint in zip(findings, fingerprints(findings, root), strict=True):
        if fingerprint in baseline:
            matched.add(fingerprint)
        else:
            new.append(finding)
    return BaselineResult(new, len(matched), len(baseline - matched))
