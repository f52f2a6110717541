"""The TOML position index: which line and column each path of a document starts at."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from mcplint.registry.positions import PositionIndex

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


def index(source: str) -> PositionIndex:
    text = textwrap.dedent(source).lstrip("\n")
    tomllib.loads(text)  # the index only ever sees valid TOML
    return PositionIndex(text)


def where(positions: PositionIndex, path, part="entry"):
    span = positions.span(path, part)
    return span.line, span.column, span.end_line, span.end_column, span.text


def test_table_headers_and_their_keys():
    positions = index(
        """
        title = "top"
        [domains.auth]
        range = [1000, 1099]
        [domains.auth.errors.AUTH_EXPIRED]
          code   =  1002
        """
    )
    assert where(positions, ("title",)) == (1, 1, 1, 14, 'title = "top"')
    assert where(positions, ("domains", "auth")) == (2, 1, 2, 15, "[domains.auth]")
    assert where(positions, ("domains", "auth", "errors", "AUTH_EXPIRED")) == (
        4,
        1,
        4,
        35,
        "[domains.auth.errors.AUTH_EXPIRED]",
    )
    code = ("domains", "auth", "errors", "AUTH_EXPIRED", "code")
    assert where(positions, code) == (5, 3, 5, 17, "code   =  1002")
    assert where(positions, code, "key") == (5, 3, 5, 7, "code")
    assert where(positions, code, "value") == (5, 13, 5, 17, "1002")


def test_a_table_only_implied_by_a_header_gets_that_header():
    positions = index(
        """
        [domains.auth.errors.AUTH_EXPIRED]
        code = 1
        [domains.auth]
        range = [1, 2]
        """
    )
    assert where(positions, ("domains", "auth", "errors"))[0] == 1
    # An explicit header wins over the first header that implied the table.
    assert where(positions, ("domains", "auth"))[0] == 3


def test_dotted_keys_at_top_level_and_inside_a_table():
    positions = index(
        """
        domains.auth.range = [1000, 1099]
        [domains.files]
        errors.FILES_DENIED.code = 2001
        errors.FILES_DENIED."message" = "Denied."
        """
    )
    assert where(positions, ("domains", "auth", "range"))[:2] == (1, 1)
    assert where(positions, ("domains", "auth"))[:2] == (1, 1)
    entry = ("domains", "files", "errors", "FILES_DENIED")
    assert where(positions, entry)[:2] == (3, 1)  # implied by the first dotted key
    assert where(positions, (*entry, "code"), "key")[4] == "errors.FILES_DENIED.code"
    assert where(positions, (*entry, "message"), "value")[:2] == (4, 33)


def test_inline_tables_nest():
    positions = index(
        """
        [domains.billing]
        errors = { BILLING_DECLINED = { code = 1101, retryable = false } }
        """
    )
    errors = ("domains", "billing", "errors")
    assert where(positions, errors)[:2] == (2, 1)
    assert where(positions, (*errors, "BILLING_DECLINED"), "key")[:2] == (2, 12)
    assert where(positions, (*errors, "BILLING_DECLINED", "code")) == (2, 33, 2, 44, "code = 1101")
    assert where(positions, (*errors, "BILLING_DECLINED", "retryable"), "value")[4] == "false"


def test_arrays_of_tables_count_their_elements():
    positions = index(
        """
        [[reserved]]
        range = [1, 1]
        [[reserved]]
        symbols = ["A"]
        [[fruits]]
        name = "apple"
        [[fruits.varieties]]
        name = "red"
        [[fruits.varieties]]
        name = "green"
        [[fruits]]
        name = "banana"
        [[fruits.varieties]]
        name = "plantain"
        """
    )
    assert where(positions, ("reserved", 0))[:2] == (1, 1)
    assert where(positions, ("reserved", 1, "symbols"))[:2] == (4, 1)
    assert where(positions, ("reserved",))[:2] == (1, 1)
    assert where(positions, ("fruits", 0, "varieties", 1, "name"))[4] == 'name = "green"'
    assert where(positions, ("fruits", 1, "varieties", 0, "name"))[4] == 'name = "plantain"'
    assert where(positions, ("fruits", 1, "name"))[0] == 12


def test_array_elements_and_multi_line_arrays_with_comments():
    positions = index(
        """
        metadata = [
            "provider",  # the upstream's name
            # a comment line, then a nested array
            [1, 2],
            { key = "x" },
        ]
        after = 1
        """
    )
    assert where(positions, ("metadata",))[:4] == (1, 1, 6, 2)
    assert where(positions, ("metadata", 0)) == (2, 5, 2, 15, '"provider"')
    assert where(positions, ("metadata", 1, 1)) == (4, 9, 4, 10, "2")
    assert where(positions, ("metadata", 2, "key"))[:2] == (5, 7)
    assert where(positions, ("after",))[0] == 7


def test_strings_that_look_like_syntax_are_skipped():
    positions = index(
        '''
        a = "not # a comment, not a ] bracket, \\" still inside"
        b = 'C:\\path\\'
        c = """
        [not.a.header]
        x = "y" ""\"
        d = 1
        e = \'\'\'
        literal ' '' \'\'\'
        [real]
        "quoted key" = 1
        'literal key'.inner = 2
        "esc\\u0041ped" = 3
        '''
    )
    assert where(positions, ("d",))[0] == 6
    assert where(positions, ("real",))[0] == 9
    assert where(positions, ("real", "quoted key"))[0] == 10
    assert where(positions, ("real", "literal key", "inner"))[0] == 11
    assert where(positions, ("real", "escAped"))[0] == 12
    assert ("not", "a", "header") not in positions.paths()


def test_dates_numbers_and_booleans_end_at_their_delimiters():
    positions = index(
        """
        when = 1979-05-27 07:32:00Z  # space-separated date-time
        day = 1979-05-27
        values = [+inf, -32_768, 0x1F, true]
        """
    )
    assert where(positions, ("when",), "value")[4] == "1979-05-27 07:32:00Z"
    assert where(positions, ("day",), "value")[4] == "1979-05-27"
    assert where(positions, ("values", 1), "value")[4] == "-32_768"
    assert where(positions, ("values", 3), "value")[4] == "true"


def test_columns_count_code_points_and_crlf_is_handled():
    positions = PositionIndex('name = "héllo wörld"\r\n[t]\r\nkey = 1\r\n')
    assert where(positions, ("name",))[:4] == (1, 1, 1, 21)
    assert where(positions, ("t", "key")) == (3, 1, 3, 8, "key = 1")


@pytest.mark.parametrize(
    ("path", "expected_line"),
    [
        (("domains", "auth", "errors", "MISSING", "code"), 2),  # nearest located ancestor
        (("nowhere",), 1),  # nothing located: the top of the file
        ((), 1),
    ],
)
def test_unknown_paths_fall_back_to_the_closest_ancestor(path, expected_line):
    positions = index(
        """
        x = 1
        [domains.auth]
        """
    )
    assert positions.span(path).line == expected_line


def _document_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _document_paths(item, (*path, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            yield from _document_paths(item, (*path, position))


REGISTRY_FIXTURES = sorted((Path(__file__).parent / "fixtures" / "registry").rglob("*.toml"))


@pytest.mark.parametrize("fixture", REGISTRY_FIXTURES, ids=lambda path: path.name)
def test_every_path_of_every_registry_fixture_is_located(fixture):
    text = fixture.read_text(encoding="utf-8")
    positions = PositionIndex(text)
    paths = [path for path in _document_paths(tomllib.loads(text)) if path]
    assert [path for path in paths if positions.get(path) is None] == []
    # A key's span starts with the key as written (bare or quoted).
    for path in paths:
        located = positions.get(path)
        if isinstance(path[-1], str) and not located.key.text.startswith("["):
            assert path[-1] in located.key.text
