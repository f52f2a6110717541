"""A literal written as several tokens (`"a" "b"`, LibCST's ``ConcatenatedString``) is marked on
CPython's one constant (``mark_concatenated_strings``), after a screen of the text that must
never miss one (``_MAY_CONCATENATE``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcplint.analysis.source_text import _MAY_CONCATENATE, SourceText, mark_concatenated_strings, token_end
from mcplint.analysis.walk_ast import constants

FIXTURES = Path(__file__).parent / "fixtures"

SCREENED = {
    "adjacent": ('x = "a" "b"\n', True),
    "across lines": ('x = ("a"\n     "b")\n', True),
    "comment between, prefix": ('x = (b"a"  # why\n     rb"b")\n', True),
    "line continuation": ("x = 'a' \\\n    'b'\n", True),
    "f-strings": ('x = f"{a}" f"{b}"\n', True),
    "string then f-string": ('x = "a" f"b"\n', True),
    "raw f-string first": ('x = rf"a" "b"\n', True),
    "a string inside an f-string": ("x = f\"{d['k']}\"\n", True),
    "added": ('x = "a" + "b"\n', False),
    "quote in a comment": ("x = 'it'  # don't\n", False),
    "plain f-string": ('x = f"{a}"\n', False),
    "quotes in a docstring": ('x = """say "hi" """\n', False),
    "two statements": ('x = "a"; y = "b"\n', False),
    "empty string": ("x = ''\n", False),
    "conditional": ('def f():\n    """d"""\n    return "a" if x else "b"\n', False),
}


@pytest.mark.parametrize(("text", "may"), SCREENED.values(), ids=SCREENED.keys())
def test_the_screen_says_may_where_a_literal_has_several_tokens(text: str, may: bool) -> None:
    assert (_MAY_CONCATENATE.match(text) is not None) is may


def _marked(text: str) -> list[bool]:
    tree = ast.parse(text)
    mark_concatenated_strings(tree, SourceText(text))
    return [getattr(node, "concatenated", False) for node in constants(tree)]


def _every_mark(text: str) -> list[bool]:
    """The marks as every constant's own tokens say, unscreened."""
    source = SourceText(text)
    return [
        type(node.value) in (str, bytes) and token_end(text, source.start(node)) != source.end(node)
        for node in constants(ast.parse(text))
    ]


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.py")), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_screened_marks_of_every_fixture_are_every_constants_own(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        ast.parse(text)
    except SyntaxError:
        pytest.skip("not Python this interpreter parses")
    assert _marked(text) == _every_mark(text)


@pytest.mark.parametrize("text", [text for text, _ in SCREENED.values()], ids=SCREENED.keys())
def test_the_screened_marks_are_every_constants_own(text: str) -> None:
    assert _marked(text) == _every_mark(text)


# Only the statements on the lines where the screen stops are looked into, the screen going on
# past each string token it stops at: every literal of several tokens is still marked.
MARKED = {
    "several in a text": 'a = "x" "y"\nb = 1\nc = ("p"\n     "q")\nd = "lone"\n',
    "after a triple-quoted f-string with quotes inside": 'a = f"""{x} \'q\'\n"""\nb = "later" "on"\n',
    "after an f-string with quotes inside": "a = f\"{d['k']}\" \"tail\"\nb = 'x' 'y'\n",
    "in a decorator": '@mark(\n    "one "\n    "two"\n)\ndef f():\n    return "x"\n',
    "in a nested block": 'def f():\n    if x:\n        return ("a"\n                "b")\n    return "c"\n',
    "bytes and a prefix": 'a = rb"x" b"y"\nb = Rb"z"\n',
    "none at all": 'a = "x"\nb = f"{y}"\n',
}


@pytest.mark.parametrize("text", MARKED.values(), ids=MARKED.keys())
def test_the_marks_on_the_screens_lines_are_every_constants_own(text: str) -> None:
    assert _marked(text) == _every_mark(text)
