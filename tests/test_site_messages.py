"""What registry message a site stands for (`registry.match.site_message`): the words a fix
matches against the registry and `mcplint migrate` makes entries of."""

from __future__ import annotations

import libcst as cst
import pytest

from mcplint.registry.match import failure_text, site_message, template_of


@pytest.mark.parametrize(
    ("written", "function", "caught", "template"),
    [
        # The text as written, without an `Error:` prefix; f-string expressions become placeholders.
        ('"Note not found"', "get_note", None, "Note not found"),
        ('"Error: Note not found."', "get_note", None, "Note not found."),
        ('f"Note {note_id} does not exist."', "get_note", None, "Note {note_id} does not exist."),
        ('f"Unknown tool: {name}"', "call_tool", None, "Unknown tool: {name}"),
        # The caught exception's text, and anything read from it, is dropped.
        ('f"Error: could not save note: {e}"', "update_note", "e", "could not save note"),
        ('f"Failed to get logs: {e.stderr}"', "logs", "e", "Failed to get logs"),
        ('f"Could not access the webpage ({kind}: {str(e)})"', "fetch", "e", "Could not access the webpage ({kind})"),
        ('f"Error in {tool}: {err}. Try again"', "run", "err", "Error in {tool}. Try again"),
        ('f"failed: {exc!r}"', "sync_notes", "exc", "Sync notes failed"),
        # Only the exception, or nothing but "error"/"failed" left: what failed, from the function.
        ("str(e)", "create_note", "e", "Create note failed"),
        ('f"Error: {e}"', "handle_purge", "e", "Purge failed"),
        ("repr(error)", "notes.search_notes", "error", "Search notes failed"),
        ("str(e)", "handle_errors.<locals>.wrapper", "e", "Unexpected error"),
        ("type(e).__name__", "read_note", "e", "Read note failed"),
        # Conversions and format specs: the helper shows what the f-string showed.
        ('f"Invalid address: could not parse {value!r}."', "parse", None, "Invalid address: could not parse {value}."),
        ('f"{count:>5} notes"', "count", None, "{count} notes"),
        # Concatenation, implicit and with `+`.
        ('("Unknown mode. " f"Use one of {modes}")', "parse", None, "Unknown mode. Use one of {modes}"),
        ('"Cannot resolve teams: " + ", ".join(sorted(teams))', "resolve", None, "Cannot resolve teams: {teams}"),
    ],
)
def test_site_message(written, function, caught, template):
    message = site_message(cst.parse_expression(written), function, caught)
    assert message is not None and template_of(message) == template


@pytest.mark.parametrize("written", ["message", "build_message(e)", "b'bytes'", 'f"{value=}"', 'f"{size:{width}}"'])
def test_no_message_where_nothing_constant_can_be_read(written):
    assert site_message(cst.parse_expression(written), "f", None) is None


def test_an_empty_fallback_says_what_failed_only_inside_an_except_clause():
    assert template_of(site_message(None, "load_all", "exception")) == "Load all failed"  # type: ignore[arg-type]
    assert site_message(None, "load_all", None) is None


@pytest.mark.parametrize(
    ("function", "text"),
    [("search_notes", "Search notes failed"), ("Store._do_load", "Load failed"), ("call_tool", "Unexpected error"), (None, "Unexpected error")],
)
def test_failure_text(function, text):
    assert failure_text(function) == text
