from __future__ import annotations

from mcplint.finding import Finding
from mcplint.fingerprint import snippet_digest
from mcplint.rules.base import Rule
from mcplint.settings import FileSettings


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that mcplint cannot analyse: a syntax error, bytes that are
    not valid in the file's encoding, a NUL byte, or a file past mcplint's
    bounds (brackets nested more than 200 deep, CPython's own limit; an
    expression chained or nested more than 1,000 deep; more than 2 MiB), which
    the message names. The finding sits at the error's position; the rest of
    the run goes on.

    ## Why is this bad?
    A file that does not parse cannot be checked, so none of its handlers are
    either. Python would refuse to import it as well.

    ## Example
    ```python
    def get_note(note_id: str:
        return NOTES[note_id]
    ```

    ## Use instead
    ```python
    def get_note(note_id: str):
        return NOTES[note_id]
    ```

    ## Fix safety
    No fix.

    ## Options
    None.
    """

    code = "MCP000"
    name = "syntax-error"
    handler_scope = False
    engine_reported = True


def syntax_findings(display: str, settings: FileSettings, message: str, line: int, column: int) -> list[Finding]:
    """The MCP000 finding of a file the engine could not analyse (it parses, decodes and
    bounds the file; this is what it reports when one of those fails), if selected."""
    if SyntaxErrorRule.code not in settings.codes:
        return []
    finding = Finding(
        path=display,
        line=line,
        column=column,
        code=SyntaxErrorRule.code,
        end_line=line,
        end_column=column,
        name=SyntaxErrorRule.name,
        message=message,
        snippet_digest=snippet_digest(message),
    )
    return [finding]
