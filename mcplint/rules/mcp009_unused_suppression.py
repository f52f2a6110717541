from __future__ import annotations

import re
from collections.abc import Iterator

from mcplint.finding import SAFE, Edit, Fix
from mcplint.rules.base import Rule
from mcplint.suppressions import Directive, Suppressions, rewritten

_OWN_CODE = re.compile(r"MCP[0-9]+")


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
    Safe: the fix removes the stale codes from the comment (or the whole
    comment, or the comment's own line); a suppression that suppresses nothing
    changes no finding. Other tools' codes and other comments on the line stay.

    ## Options
    None.
    """

    code = "MCP009"
    name = "unused-suppression"
    fix_safety = "safe"
    handler_scope = False
    engine_reported = True


def unused_suppressions(
    suppressions: Suppressions, enabled: frozenset[str], known: frozenset[str], lines: list[str]
) -> Iterator[tuple[Directive, str, Fix]]:
    """(directive, message, fix) for every suppression comment with stale codes."""
    for directive in suppressions.directives:
        if directive.written_codes is None:
            if not directive.used:
                message = f"Unused blanket suppression `{directive.text}`: it suppresses nothing"
                yield directive, message, _fix(directive, lines[directive.line - 1], ())
            continue
        unknown = [code for code in directive.written_codes if _OWN_CODE.fullmatch(code) and code not in known]
        unused = [
            code
            for code in directive.written_codes
            if code in known and code in enabled and code not in directive.used and code != UnusedSuppression.code
        ]
        if not unknown and not unused:
            continue
        parts = [f"unused {', '.join(unused)}" if unused else "", f"unknown {', '.join(unknown)}" if unknown else ""]
        message = f"Stale suppression codes in `{directive.text}`: {'; '.join(part for part in parts if part)}"
        kept = tuple(code for code in directive.written_codes if code not in unused and code not in unknown)
        yield directive, message, _fix(directive, lines[directive.line - 1], kept)


def _fix(directive: Directive, line: str, kept: tuple[str, ...]) -> Fix:
    """Rewrite the directive with the codes that still work, or remove it cleanly."""
    start, end = directive.column - 1, directive.end_column - 1
    replacement = rewritten(directive, kept)
    number = directive.line
    if replacement:
        edit = Edit(number, start + 1, number, end + 1, replacement)
        return Fix(SAFE, "Remove the stale codes", (edit,))
    before, after = line[:start], line[end:]
    if not before.strip() and not after.strip():  # a comment line of its own
        edit = Edit(number, 1, number + 1, 1, "")
    elif after.lstrip().startswith("#"):  # another comment follows: keep it
        edit = Edit(number, start + 1, number, end + 1 + len(after) - len(after.lstrip()), "")
    elif not after.strip():  # code, then only this directive
        edit = Edit(number, len(before.rstrip()) + 1, number, len(line) + 1, "")
    else:  # more comment text follows the directive: it must stay a comment
        edit = Edit(number, start + 1, number, end + 1, "#")
    return Fix(SAFE, "Remove the unused suppression", (edit,))
