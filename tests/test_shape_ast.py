"""``shape_ast`` where the differential check (tests/port_checks/shape.py) cannot compare it: on
modules the builder does not make (LibCST parses them) or makes otherwise than LibCST (an
f-string's backslash before a brace), against the original on LibCST's own parse."""

from __future__ import annotations

import ast
import sys

import libcst as cst
import pytest

from mcplint.analysis import shape, shape_ast
from mcplint.analysis.source_text import SourceText, mark_concatenated_strings

SOURCES = [
    # The builder's scan reads `\{`, `\N` as escapes: fields that are not Python's
    'x = f"\\N{BULLET} {y}"\n',
    'x = f"\\{{y}}" f"a\\{{b}} {c}"\n',
    'x = f"\\{6}" rf"\\N{b}" f"\\\\{c}" Rf"\\{{a}}\\{b}"\n',
    'x = f"\\}}{x:>3}" f"{y:\\\\>3}"\n',
    # What the builder leaves to LibCST
    'x = f"{a=}" f"{b = !r:>10}"\n',
    'x = f"""{\n    a\n}"""\n',
]
if sys.version_info >= (3, 11):
    SOURCES.append("try:\n    a()\nexcept* E as group:\n    b(group)\nexcept* (F, G):\n    pass\n")


@pytest.mark.filterwarnings("ignore:invalid escape sequence")  # `\{` in an f-string: what is read
@pytest.mark.parametrize("text", SOURCES)
def test_the_shape_is_libcst_s_own(text: str) -> None:
    tree = ast.parse(text)
    source = SourceText(text)
    mark_concatenated_strings(tree, source)
    module = cst.parse_module(text)
    for statement, parsed in zip(tree.body, module.body, strict=True):
        if isinstance(parsed, cst.SimpleStatementLine):
            parsed = parsed.body[0]
        assert shape_ast.node_shape(statement, source) == shape.node_shape(parsed)
