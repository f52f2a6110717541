from __future__ import annotations

from mcplint.rules.base import Rule


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that mcplint cannot analyse: a syntax error, bytes that are
    not valid in the file's encoding, or a NUL byte. The finding sits at the
    error's position; the rest of the run goes on.

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
