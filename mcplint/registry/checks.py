"""The registry checks (REG001...): one table of code, name and summary.

Codes are stable and never reused. The loader reports the schema checks
(REG001-REG003, REG007 for malformed ranges, REG017), ``validate.py`` the rest; this
module turns both into ``Finding``s positioned on the TOML file.

Each check's documentation is ``docs/<CODE>.md`` beside this module, with the
sections of a rule docstring (What it does, Why is this bad?, Example, Use
instead); its TOML examples are fragments of a registry whose
``schema_version`` and ``namespace`` are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcplint.finding import Finding
from mcplint.fingerprint import snippet_digest
from mcplint.registry.codegen import stale_helpers
from mcplint.registry.docs import check_doc
from mcplint.registry.load import load_registry
from mcplint.registry.model import Problem, Registry
from mcplint.registry.validate import SEMANTIC_CHECKS

CONTEXT = "<registry>"


@dataclass(frozen=True)
class RegistryCheck:
    code: str
    name: str
    summary: str
    # Judges a file beside the registry (the generated module), not the TOML text alone.
    reads_generated_module: bool = False

    @property
    def doc(self) -> str:
        return check_doc(self.code)


CHECKS: tuple[RegistryCheck, ...] = (
    RegistryCheck("REG001", "unknown-key", "a key the registry schema does not define"),
    RegistryCheck("REG002", "missing-key", "a required key is absent"),
    RegistryCheck("REG003", "invalid-value", "a value of the wrong type or outside its allowed set"),
    RegistryCheck("REG004", "invalid-symbol", "a symbol that is not UPPER_SNAKE_CASE"),
    RegistryCheck("REG005", "duplicate-code", "two errors share a code (retired ones included)"),
    RegistryCheck("REG006", "duplicate-symbol", "the same symbol in two domains"),
    RegistryCheck("REG007", "invalid-range", "a range that is not [lo, hi] int32 integers with lo <= hi"),
    RegistryCheck("REG008", "overlapping-ranges", "two domain ranges share numbers"),
    RegistryCheck("REG009", "code-outside-range", "an error's code lies outside its domain's range"),
    RegistryCheck("REG010", "reserved-used", "an active or deprecated error uses a reserved number or symbol"),
    RegistryCheck("REG011", "protocol-reserved-code", "a code in JSON-RPC's reserved band -32768..-32000 (bar the spec's own codes), or 0"),
    RegistryCheck("REG012", "unknown-category", "`category` is not a google.rpc.Code name (or is OK)"),
    RegistryCheck("REG013", "retryable-mismatch", "`retryable` contradicts the category's retry advice (AIP-194)"),
    RegistryCheck("REG014", "undeclared-placeholder", "a `{placeholder}` in a message, hint or user message that `metadata` does not list"),
    RegistryCheck("REG015", "inconsistent-lifecycle", "status, deprecated_since, retired_since and replaced_by disagree"),
    RegistryCheck("REG016", "stale-helpers", "the generated helper module no longer matches the registry", reads_generated_module=True),
    RegistryCheck("REG017", "shadowing-helpers-module", "a helpers-module named like a standard library module, an MCP SDK or mcplint"),
    RegistryCheck("REG018", "retry-after-not-retryable", "a `retry-after-ms` on an error that is not retryable"),
    RegistryCheck("REG019", "retry-later-not-retryable", "`recovery = \"retry-later\"` on an error that is not retryable"),
    RegistryCheck("REG020", "prescriptive-hint", "a hint that quotes an argument value instead of giving general guidance"),
)
CHECKS_BY_CODE: dict[str, RegistryCheck] = {check.code: check for check in CHECKS}
CHECKS_BY_NAME: dict[str, RegistryCheck] = {check.name: check for check in CHECKS}


def check_registry(path: str) -> list[Finding]:
    """Every finding on the registry at ``path``, sorted; raises ``RegistryError`` if it cannot be checked."""
    return registry_findings(load_registry(path))


def registry_findings(registry: Registry) -> list[Finding]:
    problems = list(registry.problems)
    for check in SEMANTIC_CHECKS:
        problems.extend(check(registry))
    problems.extend(stale_helpers(registry))
    return sorted(_finding(registry, problem) for problem in problems)


def _finding(registry: Registry, problem: Problem) -> Finding:
    check = CHECKS_BY_NAME[problem.check]
    span = registry.positions.span(problem.path, problem.part)
    return Finding(
        path=registry.path,
        line=span.line,
        column=span.column,
        code=check.code,
        end_line=span.end_line,
        end_column=span.end_column,
        name=check.name,
        message=problem.message,
        handler=None,
        context=CONTEXT,
        snippet_digest=snippet_digest(span.text),
    )
