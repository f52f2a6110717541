"""Every rule has a unique code and name, a module, a current doc and fixtures;
the examples in each doc behave as the doc says."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from fixture_expectations import fixture_files

from mcplint.engine.lint import lint_text
from mcplint.rule_docs import SECTIONS, code_examples, render_rule_doc, rule_sections, stale_docs
from mcplint.rules import ALL_RULES, RULES_BY_CODE
from mcplint.settings import FileSettings

RULE_IDS = [rule.code for rule in ALL_RULES]
DOCS = Path(__file__).resolve().parent.parent / "rules"


def test_codes_and_names_are_unique_and_well_formed():
    assert len({rule.code for rule in ALL_RULES}) == len(ALL_RULES)
    assert len({rule.name for rule in ALL_RULES}) == len(ALL_RULES)
    for rule in ALL_RULES:
        assert re.fullmatch(r"MCP\d{3}", rule.code)
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.name)


@pytest.mark.parametrize("rule", ALL_RULES, ids=RULE_IDS)
def test_rule_module_is_named_after_its_code_and_name(rule):
    module = Path(inspect.getfile(rule)).stem
    assert module == f"{rule.code.lower()}_{rule.name.replace('-', '_')}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=RULE_IDS)
def test_doc_has_every_section(rule):
    assert list(rule_sections(rule)) == list(SECTIONS)


def test_generated_docs_are_current():
    assert stale_docs(DOCS) == [], "run `python -m mcplint.rule_docs`"


@pytest.mark.parametrize("rule", ALL_RULES, ids=RULE_IDS)
def test_doc_file_is_rendered_from_the_docstring(rule):
    assert (DOCS / f"{rule.code}.md").read_text(encoding="utf-8") == render_rule_doc(rule)


@pytest.mark.parametrize("rule", ALL_RULES, ids=RULE_IDS)
def test_rule_has_fixtures(rule):
    assert fixture_files(rule.code), f"no tests/fixtures/{rule.code}/*.py"


def _codes_found(rule, source: str, registry: str | None = None) -> list[str]:
    """Every rule runs (MCP009 judges the others); only this rule's findings count."""
    settings = FileSettings(codes=frozenset(RULES_BY_CODE), registry=registry)
    result = lint_text(source, "example.py", settings)
    return [finding.code for finding in result.findings if finding.code == rule.code]


def _doc_registry(rule, directory: Path) -> str | None:
    """A doc's ```toml block is the registry (mcp-errors.toml) its examples are checked against."""
    match = re.search(r"```toml\n(.*?)```", rule.__doc__ or "", re.DOTALL)
    if match is None:
        return None
    path = directory / "mcp-errors.toml"
    path.write_text(match.group(1), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("rule", ALL_RULES, ids=RULE_IDS)
def test_doc_example_triggers_the_rule(rule, tmp_path):
    examples = code_examples(rule, "Example")
    assert examples, "the Example section needs a python code block"
    for source in examples:
        assert rule.code in _codes_found(rule, source, _doc_registry(rule, tmp_path))


@pytest.mark.parametrize("rule", ALL_RULES, ids=RULE_IDS)
def test_doc_use_instead_is_clean(rule, tmp_path):
    examples = code_examples(rule, "Use instead")
    assert examples, "the Use instead section needs a python code block"
    for source in examples:
        assert _codes_found(rule, source, _doc_registry(rule, tmp_path)) == []


def test_the_codes_known_from_file_names_are_the_catalogue():
    from mcplint.catalogue import catalogue, known_codes

    assert known_codes() == {document.code for document in catalogue()}
