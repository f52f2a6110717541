"""The analysis tree built from CPython's `ast` is LibCST's tree, node for node, and places
each node where LibCST's codegen does (analysis/ast_cst.py)."""

from __future__ import annotations

import ast
import dataclasses
import io
import sys
import tokenize
from pathlib import Path

import libcst as cst
import pytest

from mcplint.analysis.ast_cst import Unsupported, _Builder, build, exact_span, render
from mcplint.engine.lint import lint_text
from mcplint.engine.positions import LineIndex, node_ranges
from mcplint.settings import FileSettings

ROOT = Path(__file__).resolve().parent.parent
# Sources written for this test alone: shapes of syntax the fixtures have few of (match statements'
# patterns), each of which the builder must make.
BUILDER_SOURCES = ROOT / "tests" / "ast_cst_sources"
SOURCES = sorted(
    path
    for directory in (ROOT / "tests" / "fixtures", ROOT / "examples", BUILDER_SOURCES)
    for path in directory.rglob("*.py")
    if "syntax" not in path.parts and "MCP000" not in path.parts
)
# Fields that hold whitespace, punctuation or comments: the tree does not copy the source's.
_LAYOUT = {
    "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "header", "footer",
    "newline", "trailing_whitespace", "colon", "equal", "dot", "operator", "asynchronous", "star_tok", "indent",
    "lbracket", "rbracket", "lbrace", "rbrace", "whitespace_between", "default_indent", "default_newline",
    "has_trailing_newline", "encoding", "second_colon",
}  # fmt: skip
_PRESENCE = {"comma", "asynchronous", "equal", "lpar", "rpar", "second_colon", "lbracket", "rbracket"}


def _absent(value: object) -> bool:
    return value is None or isinstance(value, cst.MaybeSentinel)


def _same(built: object, parsed: object, path: str, pairs: list[tuple[cst.CSTNode, cst.CSTNode]]) -> str | None:
    """Where ``built`` differs from LibCST's ``parsed`` (None: nowhere), pairing their nodes."""
    if isinstance(parsed, (list, tuple)):
        if not isinstance(built, (list, tuple)) or len(built) != len(parsed):
            return f"{path}: {built!r:.80} != {parsed!r:.80}"
        for index, (left, right) in enumerate(zip(built, parsed, strict=True)):
            found = _same(left, right, f"{path}[{index}]", pairs)
            if found:
                return found
        return None
    if type(built) is not type(parsed):
        return f"{path}: {type(built).__name__} != {type(parsed).__name__}"
    if not isinstance(parsed, cst.CSTNode):
        return None if built == parsed else f"{path}: {built!r} != {parsed!r}"
    assert isinstance(built, cst.CSTNode)
    pairs.append((built, parsed))
    for field in dataclasses.fields(parsed):
        left, right = getattr(built, field.name), getattr(parsed, field.name)
        name = f"{path}.{field.name}"
        if field.name in ("lpar", "rpar") and isinstance(right, (list, tuple)):
            if len(left) != len(right):
                return f"{name}: {len(left)} != {len(right)}"
        elif field.name in _PRESENCE:
            if _absent(left) != _absent(right):
                return f"{name}: {left!r:.40} != {right!r:.40}"
        elif field.name == "operator":
            if type(left) is not type(right):
                return f"{name}: {type(left).__name__} != {type(right).__name__}"
        elif not (field.name.startswith("whitespace") or field.name in _LAYOUT):
            found = _same(left, right, name, pairs)
            if found:
                return found
    return None


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_tree_is_libcst_s_and_its_nodes_sit_where_libcst_places_them(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        build(text)
    except Unsupported:
        if path.is_relative_to(BUILDER_SOURCES):
            raise
        pytest.skip("a construct the builder leaves to LibCST")
    _assert_like_libcst(text)


@pytest.mark.parametrize(
    "text",
    [
        "try:\n    a()\n# above\nexcept E as e:  # after\n    b(e)\n    # the block's own\n\n# the next\nc()\n",
        "def f():\n    try:\n        a()\n    except E: pass\n    # not the clause's\n",
        "x = 1; y = (2);\n",
        # the same expression twice, nested specs, an f-string in an f-string: from `ast`'s nodes
        # where they sit where the scan finds them, parsed alone where 3.11 misplaces them
        "s = f\"{x} {x} {d['k']!r:>{w}}\" f'{x}'\nt = (\n    f'a{b}'\n    f\"{f'{c}'}\"\n)\n",
    ],
)
def test_clauses_and_statements_span_their_comments_as_libcst_does(text: str) -> None:
    _assert_like_libcst(text)


def _assert_like_libcst(text: str) -> None:
    parsed = cst.parse_module(text)
    built, spans = build(text)
    pairs: list[tuple[cst.CSTNode, cst.CSTNode]] = []
    assert _same(built, parsed, "module", pairs) is None
    placed = [parsed_node for _, parsed_node in pairs if not isinstance(parsed_node, cst.Module)]
    ranges = node_ranges(parsed, placed, text)
    lines = LineIndex(text)
    for built_node, parsed_node in pairs:
        span = spans.get(id(built_node))
        if span is not None and exact_span(built_node) and id(parsed_node) in ranges:
            where = (*lines.position(span[0]), *lines.position(span[1]))
            assert where == ranges[id(parsed_node)], (type(parsed_node).__name__, where)


@pytest.mark.parametrize(
    "source",
    [
        "x = (a)\ny = ((a, b))\nprint((yield))\n(ROOT / name).unlink()\nf(x for x in y)\n",
        "s = 'a' \"b\" f'{c!r:>{w}}'\nr = rb'\\d'\nt = f'{d[\"k\"]}' f\"{ e }\"\n",
        "h = f\"{'#' * int(n[1])} {x.get('url', '#')}\" f'tab #{c.lstrip(\"#\").upper()}'\n",
        "def f(a, /, b=1, *c, d, e: int = 2, **g) -> None: pass\nlambda *, k: k\n",
        "if a: pass\nelif b:\n    pass\nelse:\n    if c: pass\n",
        "try:\n    pass\n# why\nexcept (A, B) as e:  # note\n    raise C from e\nelse: pass\nfinally: pass\n",
        "x[1:2, ::3]; y[(1, 2)]\ndel a, b\nglobal q\nassert x, 'm'\nwith (open(a) as f, open(b) as g,): pass\n",
        "from .. import (a, b as c,)\nimport os.path as p, sys\n@d.e(f=1)\nclass K(B, *m, metaclass=M, **k): x: int = 1\n",
        "async def f():\n    async with a as b: await c\n    async for i in j: yield [k async for k in l if m]\n",
        # where a string ends: a quote after an odd or an even run of backslashes, in each kind of string
        "a = 'x\\'y' 'z\\\\'\nb = \"\"\"q\\\"\"\"\"\ne = r'\\'' '\\\\\\''\nd = '''\\'''' \"\"\n",
    ],
)
def test_shapes_the_builder_makes(source: str) -> None:
    built, _ = build(source)
    assert _same(built, cst.parse_module(source), "module", []) is None


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Python 3.11's syntax")
def test_a_starred_subscript_is_libcst_s_starred_index() -> None:
    _assert_like_libcst("x = a[*b]\ny = a[*b, c][c, *(b), ]\nz = a[1:2, *b]\nw = a[(*b,)]\n")


@pytest.mark.parametrize(
    "source",
    [
        "try: pass\nexcept* E: pass\n",
        "f'{a\n}'\n",
        "s = f'{x=}'\n",
    ],
)
def test_what_the_builder_does_not_make_is_left_to_libcst(source: str) -> None:
    with pytest.raises((Unsupported, SyntaxError)):
        build(source)


@pytest.mark.parametrize(
    "source",
    [
        "x = (  # why\n    1 + 2\n)\n",
        "match x:\n    case (  # why\n        1 | 2\n    ): pass\n",
        "y = (\n    1 + 2  # why\n)\n",
    ],
)
def test_parentheses_a_comment_separates_from_their_expression_are_its_own(source: str) -> None:
    _assert_like_libcst(source)


# Lines whose comment only a reading that knows strings finds: a '#' in a string before it, the
# line starting inside a string (triple-quoted, continued by a backslash), a backslash ending
# the comment; and from Python 3.12 on (PEP 701), f-strings whose fields are code.
COMMENTED_LINES = [
    'x = ("#", (  # c\n    a\n))\n',
    "x = ('\\'#', r'\\'#', (  # c\n    a\n))\n",
    "x = (\"\"\"a\n# b\"\"\", (  # c\n    a\n))\n",
    'x = ("a \\\n# b", (  # c\n    a\n))\n',
    "x = 1 + \\\n    (  # c\n    a)\n",
    "x = (  # c \\\n    a\n)\n",
    'x = (f"{a}#{b!r:>{w}}" f"{{#}}", (  # c\n    a\n))\n',
    'def f():\n    """One quote: "#"""\n    x = (  # c\n        1)\n',
]
COMMENTED_LINES_312 = [
    'x = (f"{d["#"]}", (  # c\n    a\n))\n',
    'x = (fr"{d["#"]}", (  # c\n    a\n))\n',
    'x = (f"{ {\'}\': 1}["#"] }", (  # c\n    a\n))\n',
    'x = (f"{\n    a}#", (  # c\n    b\n))\n',
    'x = (f"{\n    {1: 2}[1]}#", (  # c\n    b\n))\n',
    'x = (f"{a  # c\n}#", (  # d\n    b\n))\n',
    'x = (f"""{a  # c\n}#""", (  # d\n    b\n))\n',
    "x = (f\"{x:'>3}#\", {'#': 1}, (  # c\n    a\n))\n",
]


@pytest.mark.parametrize(
    "text",
    COMMENTED_LINES
    + [pytest.param(text, marks=pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701")) for text in COMMENTED_LINES_312]
    + [pytest.param(path.read_text(encoding="utf-8"), id=path.name) for path in sorted(BUILDER_SOURCES.glob("*.py"))],
)
def test_the_scan_back_from_a_token_reaches_the_token_before_it(text: str) -> None:
    """Past blanks, line breaks, backslashes and comments, as Python's tokenizer reads them."""
    builder = _Builder(text)
    for start, before in _tokens_and_the_ends_before(text, builder.line_starts):
        assert builder._before(start) == before, text[:start]


def test_a_docstring_s_line_is_read_without_the_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its triple quote could close a string opened above, but a statement starts it: the line
    is read alone, where the tokenizer would read the whole module."""

    def refused(*_: object) -> None:
        raise AssertionError("tokenized")

    monkeypatch.setattr(tokenize, "generate_tokens", refused)
    text = 'def f():\n    """One quote: "#"""\n    x = 1\n'
    builder = _Builder(text)
    builder.block_body(ast.parse(text).body)
    assert builder._before(text.index("x = 1")) == text.index('"""\n') + 2


def _tokens_and_the_ends_before(text: str, line_starts: list[int]) -> list[tuple[int, int]]:
    """Per token outside f-strings, its start and the last character of the token before it
    (not a comment, a line break or an indentation; -1: none)."""
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    opening, closing = getattr(tokenize, "FSTRING_START", None), getattr(tokenize, "FSTRING_END", None)
    found, last_end, depth = [], -1, 0
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in skipped:
            continue
        start = line_starts[token.start[0] - 1] + token.start[1]
        if not depth:
            found.append((start, last_end))
        depth += (token.type == opening) - (token.type == closing)
        last_end = start + len(token.string) - 1  # (3.12.1 counts a string's end spanning lines in bytes)
    return found


TOOL = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

@mcp.tool()
def fetch(note_id: str) -> dict:
    if note_id == "x":
        print(f"{note_id=}")
        return {"error": "Note not found"}
    return {}
"""


def test_a_module_the_builder_leaves_is_linted_from_libcst_s_tree() -> None:
    with pytest.raises(Unsupported):
        build(TOOL)
    findings = lint_text(TOOL, "server.py", FileSettings(codes=frozenset({"MCP001"}))).findings
    assert [(finding.code, finding.line) for finding in findings] == [("MCP001", 9)]


def test_a_fix_keeps_the_source_s_text_of_what_it_keeps() -> None:
    text = "x = call( a ,  b )\n"
    built, spans = build(text)
    call = built.body[0].body[0].value
    assert render(cst.Return(value=call), text, spans) == "return call( a ,  b )"
    # A node derived from this tree's would print this tree's stand-in whitespace: refused.
    assert render(call.with_changes(args=call.args[:1]), text, spans) is None
