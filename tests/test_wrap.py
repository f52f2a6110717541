"""Rewritten lines respect the project's line length: `mcplint.engine.wrap` lays out the
statements a fix wrote as black would, and the fixer applies it (`check --fix`, `migrate`).

Black (the test extra) is the oracle: each layout is compared with what black makes of the same
statement, strings left as they are (`string_normalization=False`, as black's `-S`)."""

from __future__ import annotations

import ast
import textwrap

import black
import pytest
from test_cli import run_cli

from mcplint.config import CliOverrides, ConfigResolver, line_length_in
from mcplint.engine.wrap import _written_lines, layout_statement, python36_or_later, relayout


def black_statement(source: str, line_length: int) -> str:
    """What black makes of one statement (its indentation kept: nested in `if x:` blocks)."""
    indent = source[: len(source) - len(source.lstrip())]
    levels = len(indent) // 4
    head = "".join("    " * level + "if x:\n" for level in range(levels))
    mode = black.Mode(line_length=line_length, string_normalization=False)
    formatted = black.format_str(head + source + "\n", mode=mode).rstrip("\n")
    return formatted.split("\n", levels)[levels] if levels else formatted


# Statements as fixes write them (and some shapes around them), on one line.
STATEMENTS = [
    'raise pkg_error("SOME_SYMBOL", note_identifier=note_identifier, collection_name=collection_name, revision=revision).caught_as(ValueError) from error',
    'raise pkg_error("SOME_SYMBOL", key=key).caught_as(ValueError) from error_with_a_long_enough_name_to_wrap',
    'raise gcalendar_error("EVENT_NOT_FOUND_DURING_VERIFICATION", event_id=event_id, calendar_id=calendar_id) from get_error',
    'raise core_error("ACCESS_NOT_ALLOWED", resolved=resolved_str, allowed=", ".join(str(d) for d in allowed_dirs_of_the_server)).caught_as(ValueError)',
    'raise ToolError(pkg_error("SYMBOL", message=f"lookup failed for {key} in {collection_name_long}", x=1)) from e',
    'return pkg_error("UNKNOWN_TOOL_WITH_A_LONG_SYMBOL_NAME", name=name, arguments=arguments).tool_result()',
    'return json.dumps({"error": "something went wrong here", "code": "SOME_SYMBOL_THAT_IS_LONG", "x": 1})',
    'return some_function(first_argument_value, second_argument_value, third_argument, fourth)',
    'logger.exception("Failed to do the thing for %s with a fairly long message text", identifier, extra)',
    'result = some_module.some_function(argument_one, argument_two, argument_three, argument_four_long)',
    'result: dict[str, str] = some_module.some_function(argument_one, argument_two, argument_three_x)',
    'value = [element_number_one, element_number_two, element_number_three, element_number_four_x]',
    'total = a_very_long_function_name_here(1) + another_very_long_function_name(2) + third_function(3)',
    'raise pkg_error("SYM", outer_function(inner_function(first_value, second_value), other_inner(third_value, fourth_value), fifth))',
    'from notes_server.errors import core_error, gdrive_error, gmail_error, gcalendar_error, gchat_error',
    'send(f"a message that is long enough on its own to need the whole line and a bit {more}")',
    'error_text = f"OAuth client credentials not found: {type(e).__name__}. Please either set the environment"',
    'raise pkg_error("SYMBOL_NAME", items=[item.name for item in collection_of_items if item.enabled and item.x])',
    'raise pkg_error("SYMBOL_NAME", *positional_arguments, **keyword_arguments_of_the_call_site_x).caught_as(X)',
    'raise pkg_error(f"SYMBOL_NAME", *positional_arguments, **keyword_arguments_of_the_call_site_x).caught_as(X)',
    'return a_long_condition_name and another_long_condition_name or yet_another_condition_name_here',
]


@pytest.mark.parametrize("line_length", [88, 100, 60])
@pytest.mark.parametrize("indent", ["", "        "])
@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_statement_is_laid_out_as_black_lays_it_out(statement, indent, line_length):
    source = indent + statement
    modern = python36_or_later(source)
    assert layout_statement(source, line_length, trailing_comma_in_call=modern) == black_statement(source, line_length)


def test_call_arguments_go_one_a_line_with_a_trailing_comma_indented_four_more():
    source = '    raise pkg_error("SOME_SYMBOL", note_identifier=note_identifier, collection_name=collection_name, revision=revision).caught_as(ValueError) from error'
    assert layout_statement(source, 88) == textwrap.indent(
        textwrap.dedent(
            """\
            raise pkg_error(
                "SOME_SYMBOL",
                note_identifier=note_identifier,
                collection_name=collection_name,
                revision=revision,
            ).caught_as(ValueError) from error"""
        ),
        "    ",
    )


def test_the_arguments_stay_on_one_line_when_they_fit_there():
    source = 'raise pkg_error("SOME_SYMBOL", key=key).caught_as(ValueError) from error_with_a_long_name_x'
    assert layout_statement(source, 88) == (
        'raise pkg_error("SOME_SYMBOL", key=key).caught_as(\n    ValueError\n) from error_with_a_long_name_x'
    )


def test_a_nested_call_still_too_long_is_split_in_turn():
    source = 'raise pkg_error("SYM", outer_function(inner_function(first_value, second_value), other_inner(third_value, fourth_value), fifth))'
    assert layout_statement(source, 60) == textwrap.dedent(
        """\
        raise pkg_error(
            "SYM",
            outer_function(
                inner_function(first_value, second_value),
                other_inner(third_value, fourth_value),
                fifth,
            ),
        )"""
    )


def test_return_of_a_call_splits_the_call_not_the_return():
    source = "return some_function(first_argument_value, second_argument_value, third_argument, fourth)"
    assert layout_statement(source, 88) == (
        "return some_function(\n    first_argument_value, second_argument_value, third_argument, fourth\n)"
    )


def test_a_short_statement_is_left_as_it_is():
    assert layout_statement('    raise pkg_error("SYM", key=key)', 88) == '    raise pkg_error("SYM", key=key)'
    before = "def f():\n    raise ValueError('x')\n"
    after = 'def f():\n    raise pkg_error("SYM", key=key)\n'
    assert relayout(before, after, 88) == after


def test_a_statement_that_cannot_fit_stays_as_it_is():
    source = '        error_text = f"OAuth client credentials not found: {type(e).__name__}. Please set the variables"'
    assert layout_statement(source, 88) == source


def test_shapes_left_alone():
    assert layout_statement('x = f(aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbb, cccccccccccccc)  # keep: a comment', 40) is None
    assert layout_statement('x = 1; y = f(aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbb, ccccccccc)', 40) is None
    assert layout_statement('x = """a\nb""" + f(aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbb, cccc)', 40) is None


MODULE_BEFORE = '''\
import json


def tool(key: str, collection: str) -> str:
    try:
        return lookup(key)
    except KeyError as error:
        raise ValueError(f"The key {key} was not found in the collection {collection} of the store") from error


def untouched() -> str:
    return json.dumps({"error": "a line the fix does not rewrite and that is longer than the limit"})
'''
MODULE_AFTER = MODULE_BEFORE.replace(
    'raise ValueError(f"The key {key} was not found in the collection {collection} of the store") from error',
    'raise pkg_error("KEY_NOT_FOUND_IN_COLLECTION", key=key, collection=collection).caught_as(KeyError) from error',
)


def test_only_the_statements_the_fix_wrote_are_laid_out():
    laid_out = relayout(MODULE_BEFORE, MODULE_AFTER, 88)
    assert laid_out == MODULE_AFTER.replace(
        'raise pkg_error("KEY_NOT_FOUND_IN_COLLECTION", key=key, collection=collection).caught_as(KeyError) from error',
        'raise pkg_error(\n            "KEY_NOT_FOUND_IN_COLLECTION", key=key, collection=collection\n'
        "        ).caught_as(KeyError) from error",
    )
    assert '    return json.dumps({"error": "a line the fix does not rewrite and that is longer than the limit"})\n' in laid_out
    assert relayout(MODULE_BEFORE, laid_out, 88) == laid_out  # idempotent
    ast.parse(laid_out)


def test_a_statement_the_fix_only_partly_wrote_is_left_as_it_is():
    before = 'def f(key):\n    raise ValueError(\n        "short"\n    )\n'
    long_line = '        pkg_error_message_text("SOME_SYMBOL", key=key, other=other, third=third, fourth=fourth)\n'
    after = before.replace('        "short"\n', long_line)
    assert relayout(before, after, 60) == after


def test_a_statement_after_a_compound_statement_s_colon_is_left_as_it_is():
    before = "def f(key):\n    if key: raise ValueError(key)\n"
    after = 'def f(key):\n    if key: raise pkg_error("SOME_SYMBOL_THAT_IS_LONG", key=key, other=other).caught_as(X)\n'
    assert relayout(before, after, 60) == after


def test_a_statement_the_fix_wrote_over_several_lines_is_joined_and_laid_out():
    before = "def f(key):\n    raise ValueError(key)\n"
    after = (
        "def f(key):\n"
        '    raise pkg_error("SOME_SYMBOL_THAT_IS_LONG", key=key, other_argument=other_argument, third=third,\n'
        "        fourth=fourth)\n"
    )
    statement = after.split("\n", 1)[1].rstrip("\n")
    joined = '    raise pkg_error("SOME_SYMBOL_THAT_IS_LONG", key=key, other_argument=other_argument, third=third, fourth=fourth)'
    assert relayout(before, after, 88) == "def f(key):\n" + black_statement(joined, 88) + "\n"
    assert statement != black_statement(joined, 88)


def test_line_endings_are_kept():
    laid_out = relayout(MODULE_BEFORE.replace("\n", "\r\n"), MODULE_AFTER.replace("\n", "\r\n"), 88)
    assert "\n" not in laid_out.replace("\r\n", "")
    assert laid_out == relayout(MODULE_BEFORE, MODULE_AFTER, 88).replace("\n", "\r\n")


def test_written_lines_are_those_the_file_did_not_have():
    before = ["a\n", "b\n", "c\n", "d\n"]
    after = ["a\n", "x\n", "y\n", "c\n", "d\n", "e\n"]
    assert _written_lines(before, after) == {1, 2, 5}


# -- where the line length comes from ------------------------------------------------------------
@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, None),
        ({"pyproject.toml": '[project]\nname = "x"\n'}, None),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, 120),
        ({"pyproject.toml": "[tool.ruff.lint]\nselect = ['E']\n"}, 88),
        ({"pyproject.toml": "[tool.black]\nline-length = 100\n"}, 100),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 110\n[tool.black]\nline-length = 100\n"}, 110),
        ({"pyproject.toml": "[tool.ruff]\ntarget-version = 'py311'\n[tool.black]\nline-length = 100\n"}, 100),
        ({"ruff.toml": "line-length = 79\n"}, 79),
        ({".ruff.toml": "line-length = 99\n", "ruff.toml": "line-length = 79\n"}, 99),
        ({"ruff.toml": "line-length = 79\n", "pyproject.toml": "[tool.black]\nline-length = 100\n"}, 79),
        ({"ruff.toml": 'extend = "base.toml"\n', "base.toml": "line-length = 101\n"}, 101),
        ({"ruff.toml": 'extend = "ruff.toml"\n'}, 88),
        ({"pyproject.toml": "[tool.ruff]\nline-length = 'long'\n"}, 88),
        ({"pyproject.toml": "[tool.ruff\nline-length = 120\n"}, None),
    ],
)
def test_line_length_of_a_directory(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert line_length_in(tmp_path) == expected


def test_each_file_gets_the_closest_formatter_config_above_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "ruff.toml").write_text("line-length = 120\n")
    resolver = ConfigResolver(CliOverrides(), cwd=tmp_path)
    assert resolver.settings_for(tmp_path / "pkg" / "sub" / "a.py").line_length == 100
    assert resolver.settings_for(tmp_path / "other" / "b.py").line_length == 120


# -- end to end: `mcplint migrate --write` -------------------------------------------------------
SERVER = '''\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")
NOTES: dict[str, str] = {}


@mcp.tool()
def fetch(note_identifier: str, collection_name: str, revision_number: int) -> str:
    if note_identifier not in NOTES:
        raise ValueError(f"Note {note_identifier} was not found in collection {collection_name} at revision {revision_number}")
    return NOTES[note_identifier]


@mcp.tool()
def store(key: str, text: str) -> dict:
    try:
        NOTES[key] = text.encode("ascii").decode("ascii")
    except UnicodeError as error:
        raise ValueError(f"The note {key} holds characters that the store cannot keep, only ASCII: {error}") from error
    return {"stored": key}


@mcp.tool()
def remove(key: str) -> dict:
    if key not in NOTES:
        return {"error": f"There is no note {key} in the store: list the notes first to see which keys exist"}
    del NOTES[key]
    return {"removed": key}
'''


@pytest.mark.parametrize(("config", "limit"), [("", 88), ("\n[tool.ruff]\nline-length = 100\n", 100), ("\n[tool.black]\nline-length = 60\n", 60)])
def test_migrate_writes_no_line_longer_than_the_project_s_line_length(tmp_path, config, limit):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "notes-server"\nversion = "0.1.0"\n' + config)
    (tmp_path / "notes_server").mkdir()
    (tmp_path / "notes_server" / "__init__.py").write_text("")
    server = tmp_path / "notes_server" / "server.py"
    server.write_text(SERVER)
    assert run_cli("migrate", "--write", ".", cwd=tmp_path).exit_code == 0
    migrated = server.read_text()
    lines = migrated.splitlines(keepends=True)
    written = sorted(_written_lines(SERVER.splitlines(keepends=True), lines))
    assert written, "the migration rewrote nothing"
    assert all(len(lines[index].rstrip("\n")) <= limit for index in written), migrated
    assert any(len(line.rstrip("\n")) > limit for line in SERVER.splitlines())  # the rewrite needed wrapping
    # Every statement the migration wrote is as black lays it out.
    tree = ast.parse(migrated)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not hasattr(node, "body") and node.lineno - 1 in written:
            source = "".join(lines[node.lineno - 1 : node.end_lineno]).rstrip("\n")
            assert source == black_statement(source, limit)
    # Idempotent: a second migration (and fixing the fixed output) changes nothing.
    assert run_cli("migrate", "--write", ".", cwd=tmp_path).exit_code == 0
    assert server.read_text() == migrated
    assert run_cli("check", "--fix", "--unsafe-fixes", "--exit-zero", ".", cwd=tmp_path).exit_code == 0
    assert server.read_text() == migrated


def test_a_project_with_no_formatter_config_gets_88(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.mcplint]\nselect = ["MCP"]\n')
    assert ConfigResolver(CliOverrides(), cwd=tmp_path).settings_for(tmp_path / "a.py").line_length == 88
