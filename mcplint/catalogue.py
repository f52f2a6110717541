"""Every code mcplint reports, with its docs: source rules (MCP), registry checks (REG)
and registry breaking changes (BRK).

Selection (`--select REG`), `mcplint rule CODE`, `mcplint rules`, the generated
`rules/<CODE>.md` and SARIF's rule descriptors all read this one list.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mcplint.doc_sections import parse_sections


@dataclass(frozen=True)
class CodeDoc:
    code: str
    name: str
    summary: str
    sections: dict[str, str]  # "What it does" -> markdown, in the doc's order
    source: str  # the file the documentation is written in
    fix_safety: str = ""  # "safe", "unsafe", "safe/unsafe" or "" (no fix)




@lru_cache(maxsize=1)
def catalogue() -> tuple[CodeDoc, ...]:
    from mcplint.registry.checks import CHECKS
    from mcplint.registry.diff import BREAKING_CHECKS
    from mcplint.rules import ALL_RULES

    package_parent = Path(__file__).resolve().parent.parent
    documents = [
        CodeDoc(
            rule.code,
            rule.name,
            rule.summary(),
            parse_sections(rule.__doc__ or ""),
            Path(inspect.getfile(rule)).resolve().relative_to(package_parent).as_posix(),
            rule.fix_safety,
        )
        for rule in ALL_RULES
    ]
    documents += [
        CodeDoc(check.code, check.name, check.summary, parse_sections(check.doc), "mcplint/registry/checks.py")
        for check in CHECKS
    ]
    documents += [
        CodeDoc(check.code, check.name, check.summary, parse_sections(check.doc), "mcplint/registry/diff.py")
        for check in BREAKING_CHECKS
    ]
    return tuple(documents)


@lru_cache(maxsize=1)
def _by_code() -> dict[str, CodeDoc]:
    return {document.code: document for document in catalogue()}


def code_doc(code: str) -> CodeDoc | None:
    return _by_code().get(code.upper())


def all_codes() -> frozenset[str]:
    return frozenset(_by_code())
