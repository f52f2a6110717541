"""`mcplint rule CODE` and `mcplint rules`: a code's documentation for a reader, not a file.

`rules/<CODE>.md` carries an HTML comment for maintainers ("generated from ...; edit the
docstring"); a reader of `mcplint rule` has no use for it, so HTML comments are dropped
here, whatever their origin. On a colour terminal the markdown is rendered with rich
(headings, emphasis, highlighted code); in a pipe it stays markdown, as ruff prints it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import IO

from mcplint.catalogue import CodeDoc
from mcplint.rule_docs import render_doc

# Imports inside functions: rich is imported only to render on a colour terminal.

_HTML_COMMENT = re.compile(r"[ \t]*<!--.*?-->[ \t]*\n?", re.DOTALL)
_BLANK_RUNS = re.compile(r"\n{3,}")


def reader_markdown(document: CodeDoc) -> str:
    """The documentation's markdown without internal (HTML) comments."""
    text = _HTML_COMMENT.sub("", render_doc(document))
    return _BLANK_RUNS.sub("\n\n", text)


def print_rule(document: CodeDoc, stream: IO[str], *, color: bool) -> None:
    markdown = reader_markdown(document)
    if not color:
        stream.write(markdown)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console(file=stream, force_terminal=True).print(Markdown(markdown))


FIX_LABELS = {"": "-"}  # a rule without fixes


def rules_table(documents: Iterable[CodeDoc]) -> str:
    """One line per code: code, name, what its fixes are (ruff's fix column), summary."""
    lines = [f"{'code':<7} {'name':<28} {'fix':<11} summary"]
    for document in documents:
        fix = FIX_LABELS.get(document.fix_safety, document.fix_safety)
        lines.append(f"{document.code:<7} {document.name:<28} {fix:<11} {document.summary}")
    return "\n".join(lines) + "\n"
