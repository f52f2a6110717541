from __future__ import annotations

from collections.abc import Iterator

from mcplint.engine.suppressions import Directive, Suppressions
from mcplint.rules.base import Rule


class UnusedSuppression(Rule):
    """
    ## What it does
    Finds suppression comments that suppress nothing: a code in
    `# mcplint: ignore[...]`, `# mcplint: ignore-file[...]` or `# noqa: ...` with
    no finding of that code where the comment applies, a blanket
    `# mcplint: ignore` with no finding at all, and codes that are not mcplint
    rules (`MCP123`). Only mcplint's own codes are judged: other tools' codes in
    a `# noqa` are left alone, and so are codes of rules that are not enabled
    for the file (nothing can be said about them).

    ## Why is this bad?
    A suppression outlives the finding it was written for: after a fix, it
    silently hides the next real problem on that line. Removing stale ones
    keeps every remaining suppression meaningful (ruff's RUF100).

    ## Example
    ```python
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("notes")

    @mcp.tool()
    def get_note(note_id: str) -> str:
        return NOTES[note_id]  # mcplint: ignore[MCP001]
    ```

    ## Use instead
    ```python
    from mcp.server.fastmcp import FastMCP

    mcp = FastMCP("notes")

    @mcp.tool()
    def get_note(note_id: str) -> str:
        return NOTES[note_id]
    ```

    ## Fix safety
    No fix yet: removing the code (or the whole comment) arrives with the fix
    machinery. It will be safe: a suppression that suppresses nothing changes
    no finding.

    ## Options
    None.
    """

    code = "MCP009"
    name = "unused-suppression"
    handler_scope = False
    engine_reported = True


def unused_suppressions(
    suppressions: Suppressions, enabled: frozenset[str], known: frozenset[str]
) -> Iterator[tuple[Directive, str]]:
    """(directive, message) for every stale part of a suppression comment."""
    for directive, code in suppressions.unused():
        if code == UnusedSuppression.code:
            continue  # it may suppress this very rule's findings
        if code is None:
            yield directive, f"Unused blanket suppression `{directive.text}`: it suppresses nothing"
        elif code not in known:
            yield directive, f"Unknown rule code `{code}` in `{directive.text}`"
        elif code in enabled:
            yield directive, f"Unused suppression: no {code} finding here (`{directive.text}`)"
