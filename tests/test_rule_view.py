"""`mcplint rule CODE` for a reader and `mcplint rules` with its fix column."""

from __future__ import annotations

import pytest
from test_cli import run_cli

from mcplint.catalogue import catalogue, code_doc
from mcplint.rules import ALL_RULES


def test_rule_in_a_pipe_is_markdown_without_internal_comments():
    result = run_cli("rule", "MCP002")
    assert result.exit_code == 0
    assert result.stdout.startswith("# MCP002 raw-exception-raise\n\n## What it does\n")
    assert "<!--" not in result.stdout and "Generated from" not in result.stdout


def test_rule_on_a_colour_terminal_is_rendered_markdown():
    result = run_cli("rule", "--color", "always", "MCP002")
    assert result.exit_code == 0
    assert "\x1b[" in result.stdout
    assert "## " not in result.stdout  # headings are rendered, not shown as markdown
    assert "What it does" in result.stdout
    assert "<!--" not in result.stdout and "Generated from" not in result.stdout


def test_html_comments_inside_a_doc_are_dropped_too():
    from dataclasses import replace

    from mcplint.rule_view import reader_markdown

    document = code_doc("MCP001")
    sections = {**document.sections, "What it does": "Visible.\n<!-- internal:\nnote -->\nAlso visible."}
    text = reader_markdown(replace(document, sections=sections))
    assert "internal" not in text and "Visible.\nAlso visible." in text


def test_rules_has_a_fix_column():
    rows = {line.split()[0]: line.split()[2] for line in run_cli("rules").stdout.splitlines()[1:]}
    assert rows["MCP009"] == "safe"
    assert rows["MCP002"] == "safe/unsafe"
    assert rows["MCP001"] == "unsafe"
    assert rows["MCP003"] == "-" and rows["REG001"] == "-"
    assert len(rows) == len(catalogue())


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_fix_column_agrees_with_the_docs(rule):
    """The column is declared on the rule; its "Fix safety" section must say the same."""
    section = code_doc(rule.code).sections["Fix safety"]
    if rule.fix_safety == "":
        assert section.startswith("No fix")
    else:
        assert not section.startswith("No fix")
        for word in rule.fix_safety.split("/"):
            assert word in section.lower()
