"""Every code mcplint reports, with its docs: source rules (MCP), registry checks (REG)
and registry breaking changes (BRK).

Selection (`--select REG`), config validation, `mcplint rule CODE`, `mcplint rules`,
the generated `rules/<CODE>.md` and SARIF's rule descriptors all read this one list.
Each check is described once: a rule by its class and docstring, a registry check or
breaking change by its entry in `registry/checks.py` or `registry/diff.py` and its
`registry/docs/<CODE>.md`.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mcplint.doc_sections import parse_sections
from mcplint.registry.docs import codes as check_codes

# Imports inside functions: the rules and the registry checks are imported when their documentation is asked
# for; `known_codes` reads file names only, so selection never imports the rules.


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
    from mcplint.registry.docs import DocumentedCheck
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
    checks: list[DocumentedCheck] = [*CHECKS, *BREAKING_CHECKS]
    documents += [
        CodeDoc(check.code, check.name, check.summary, parse_sections(check.doc), f"mcplint/registry/docs/{check.code}.md")
        for check in checks
    ]
    return tuple(documents)


_RULE_MODULE = re.compile(r"mcp(\d{3})_\w+\.py")


@lru_cache(maxsize=1)
def known_codes() -> frozenset[str]:
    """Every code, from file names alone (`rules/mcpNNN_<name>.py`, `registry/docs/<CODE>.md`):
    selection runs before anything is linted, and a warm run never imports the rules."""

    rules = Path(__file__).resolve().parent / "rules"
    rule_codes = (f"MCP{match.group(1)}" for path in rules.iterdir() if (match := _RULE_MODULE.fullmatch(path.name)))
    return frozenset((*rule_codes, *check_codes()))


@lru_cache(maxsize=1)
def _by_code() -> dict[str, CodeDoc]:
    return {document.code: document for document in catalogue()}


def code_doc(code: str) -> CodeDoc | None:
    return _by_code().get(code.upper())

