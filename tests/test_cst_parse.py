"""The unvalidated parse gives LibCST's tree and leaves node validation on afterwards."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from mcplint.engine.cst_parse import parse_module

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").rglob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES[:20], ids=lambda path: path.name)
def test_same_tree_as_libcst(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tree = parse_module(text)
    assert tree.deep_equals(cst.parse_module(text))
    assert tree.code == text


def test_validation_is_back_after_a_parse() -> None:
    parse_module("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")  # Name validates its value


def test_validation_is_back_after_a_syntax_error() -> None:
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def (:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
