"""What LibCST may be given: text within bounds its parser survives.

LibCST's native parser recurses once per level of the tree it builds and has no
depth check of its own: 1,200 nested brackets, a 6,000-link attribute chain or a
7,000-term ``1+1+…`` kill the process with a segfault (measured with LibCST 1.8
on an 8 MiB stack), taking every other file's findings with it. So:

1. Files over ``MAX_PARSED_BYTES`` are not analysed: LibCST's time and memory
   grow with the size (1.4 MB: 3 s and 470 MB; a 9 MB file took minutes and
   gigabytes). An MCP000 finding names the limit.
2. Before LibCST sees a file, one regular-expression pass over its tokens
   (``depth_refusal``) bounds the depth of the tree LibCST would build: brackets
   at most ``MAX_BRACKET_DEPTH`` deep (CPython's own limit, so CPython's words:
   "too many nested parentheses") and at most ``MAX_EXPRESSION_DEPTH``
   operators, dots, calls and brackets chained in one expression, summed along
   the open brackets. ``a or b or …`` counts too: one flat node for CPython,
   10,000 nested ones for LibCST. Measured crash depths: brackets 1,200,
   lambdas 3,400, attributes 5,900, ``+`` 6,900, ``or`` 7,000, unary minus
   8,200; so the worst a bounded file can do (200 brackets around a 1,000-deep
   chain of lambdas) uses under half the stack. The pass costs about 2% of LibCST's parse (0.96 s against
   48 s for the 1,434 files, 17.9 MB, of the pinned corpus). Where CPython has parsed the file
   (the `ast` pipeline parses before it scans), only the statements long enough to exceed the
   bound are scanned (``parsed_depth_refusal``: 0.38x the time on the corpus and held-out files).
3. Files no handler can be in get CPython's parser only (``cpython_parse``),
   under its default recursion limit so that it refuses what ``python`` refuses
   ("too complex" for trees deeper than it builds). A refusal for one of
   CPython's limits is final; a grammar error is not (a file in syntax newer
   than this interpreter, PEP 695 or PEP 701, is LibCST's to judge, after the
   bound above).

A crash these bounds do not foresee still costs only its file when a worker
process analyses it (``engine/pool.py``: an MCP000 finding naming the signal);
every run on Linux is analysed in worker processes (``--jobs 1`` and small runs
in one). Where ``fork`` is missing, a small run is in-process and the bounds are
all there is.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

from mcplint.analysis.source_text import STRING_TOKEN, SourceText
from mcplint.analysis.walk_ast import first_line

# Imports inside functions: LibCST's positions are imported only to place a refusal, so the token scan stays
# light on the `ast`-only path.

MAX_PARSED_BYTES = 2 * 1024 * 1024
MAX_BRACKET_DEPTH = 200  # CPython's tokenizer refuses more ("too many nested parentheses")
MAX_EXPRESSION_DEPTH = 1_000

# CPython's messages for input it refuses because of its own limits, not its grammar.
_CPYTHON_LIMIT_MESSAGES = (
    "too many nested parentheses",
    "too many levels of indentation",
    "too many statically nested blocks",
    "too many nested f-strings",
    "f-string: expressions nested too deeply",
    "too complex",
)


@dataclass(frozen=True)
class Refusal:
    """Why a file is not given to LibCST: the MCP000 message and where."""

    message: str
    line: int = 1
    column: int = 1


def size_refusal(size: int) -> Refusal | None:
    if size <= MAX_PARSED_BYTES:
        return None
    limit = f"{MAX_PARSED_BYTES // 2**20} MiB" if MAX_PARSED_BYTES % 2**20 == 0 else f"{MAX_PARSED_BYTES:,} bytes"
    return Refusal(f"file too large to analyse: {size:,} bytes (limit {limit})")


def cpython_parse(text: str) -> ast.Module:
    """``ast.parse`` as ``python`` itself would judge the file: a tree too deep for CPython
    raises a ``SyntaxError`` naming its limit, whatever recursion limit the engine set."""
    # CPython 3.11 checks the depth of the tree it builds against the recursion limit, which
    # the engine raises for its own walks: parse under the default, as `python` would.
    limit = sys.getrecursionlimit()
    try:
        if limit <= _DEFAULT_RECURSION_LIMIT:
            return ast.parse(text)
        sys.setrecursionlimit(_DEFAULT_RECURSION_LIMIT)
        try:
            return ast.parse(text)
        finally:
            sys.setrecursionlimit(limit)
    except (RecursionError, MemoryError):
        raise SyntaxError("too complex: nested too deeply for Python's parser") from None


def is_cpython_limit(error: SyntaxError) -> bool:
    """CPython refused the text for one of its own limits, not for its grammar: no Python
    accepts it, so LibCST is not asked (and not put at risk)."""
    return any(limit in (error.msg or "") for limit in _CPYTHON_LIMIT_MESSAGES)


_DEFAULT_RECURSION_LIMIT = 1000

# One pass of one regular expression, one match per token that counts: each match first skips
# (possessively, so never twice) what is not code or chains nothing: blanks, names other than the
# chaining keywords, strings and comments matched whole (their text is not code), line
# continuations, a `:` or `!` not before `=`, any other character; then takes the token: a
# bracket, a separator, a line break, an operator or keyword that chains an expression (or the
# text's end). Strings as ``STRING_TOKEN`` matches them, a step per run of characters (a third
# of the scan's time went to docstrings matched a character at a time).
_TOKENS = re.compile(
    rf"""
    (?: [ \t\f]+ | (?!(?:and|or|not|if|else|lambda|await)\b)\w+ | {STRING_TOKEN}
      | \#[^\r\n]* | \\(?:\r\n|\r|\n) | [:!](?!=) | [^\w\-+*/%@&|^~<>.(\[{{)\]}},;=\r\n:!]
    )*+
    ( == | != | <= | >= | := | -> | \*\* | // | << | >> | \r\n
    | [-+*/%@&|^~<>.(\[{{)\]}},;=\r\n]
    | \b(?:and|or|not|if|else|lambda|await)\b | \Z )
    """,
    re.VERBOSE | re.DOTALL,
)
_OPEN, _CLOSE, _SEPARATOR, _LINE_BREAK, _CHAIN = range(5)
_KINDS = {
    **dict.fromkeys("([{", _OPEN),
    **dict.fromkeys(")]}", _CLOSE),
    **dict.fromkeys(",;=", _SEPARATOR),
    **dict.fromkeys(("\r\n", "\r", "\n"), _LINE_BREAK),
}


def depth_refusal(text: str) -> Refusal | None:
    """An upper estimate of the depth of LibCST's tree, refused past the bounds.

    Per open bracket, the chaining tokens since its last separator (``,`` ``;`` ``=``);
    the estimate is their sum along the open brackets, each bracket counting one where it
    opens. A line break outside brackets ends the statement. (``findall`` and a table:
    a Python-level branch per token is most of the cost, and this runs on every file.)"""
    excess = _excess(_TOKENS.findall(text))
    if excess is None:
        return None
    # Rare: scan again, this time keeping positions, for the line to point at.
    starts = [match.start(1) for match in _TOKENS.finditer(text)]
    what, index = excess
    from mcplint.engine.positions import LineIndex

    line, column = LineIndex(text).position(starts[index])
    return Refusal(what, line, column)


def parsed_depth_refusal(text: str, tree: ast.Module) -> Refusal | None:
    """``depth_refusal`` of a text CPython parsed into ``tree``, scanning only the statements
    long enough to exceed a bound.

    The scan's count starts again at every line break outside brackets and grows by one per
    token, so it never exceeds the characters of the logical line it is in; each logical line
    lies within the lines of one statement (a compound one's header, with its decorators), or
    is a lone `else:`, `try:` or `finally:`, or a comment. Where the lines of overlapping
    statements hold at most ``MAX_EXPRESSION_DEPTH`` characters in all, nothing there can be
    refused, and CPython refused brackets nested deeper than ``MAX_BRACKET_DEPTH`` already.
    Longer ones (a tool's JSON schema written as one literal) each start a logical line, where
    the scan starts from nothing: they are scanned alone, and the whole text once one of them
    is refused (for the refusal's place)."""
    if len(text) <= _SHORT:
        return None
    starts = SourceText.of(text).line_starts()  # the analysis's, listed once
    for first, last in _statement_lines(tree):
        start = starts[first - 1]
        end = starts[last] if last < len(starts) else len(text)
        if end - start > _SHORT and _excess(_TOKENS.findall(text, start, end)) is not None:
            return depth_refusal(text)
    return None


# Below the bound by more than the tokens a lone `else:` line adds to the logical line it
# continues (`else: \`).
_SHORT = MAX_EXPRESSION_DEPTH - 8


def _statement_lines(tree: ast.Module) -> list[tuple[int, int]]:
    """The (first, last) lines of the module's statements, those that share a line merged: a
    simple statement's lines, a compound one's from its first decorator to its body's first line
    (an `except` clause's and a `case`'s the same way)."""
    spans: list[tuple[int, int]] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        body = getattr(node, "body", None)
        if type(node) is ast.Match:
            cases = node.cases
            spans.append((node.lineno, cases[0].pattern.lineno))
            for case in cases:
                spans.append((case.pattern.lineno, case.body[0].lineno))
                pending.extend(case.body)
        elif isinstance(body, list):
            spans.append((first_line(node), body[0].lineno))
            pending.extend(body)
            for block in ("orelse", "finalbody"):
                pending.extend(getattr(node, block, ()))
            for handler in getattr(node, "handlers", ()):
                spans.append((handler.lineno, handler.body[0].lineno))
                pending.extend(handler.body)
        else:
            spans.append((node.lineno, node.end_lineno or node.lineno))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for first, last in spans:
        if merged and first <= merged[-1][1]:
            if last > merged[-1][1]:
                merged[-1] = (merged[-1][0], last)
        else:
            merged.append((first, last))
    return merged


def _excess(tokens: list[str]) -> tuple[str, int] | None:
    """What bound the tokens exceed, and at which token; None within bounds."""
    chain = [0]  # per open bracket (and the statement level): chaining tokens so far
    depth = 0  # sum(chain), kept as we go
    kinds = _KINDS
    for index, token in enumerate(tokens):
        if not token:  # the text's end
            break
        kind = kinds.get(token, _CHAIN)
        if kind is _CHAIN or kind is _OPEN:
            chain[-1] += 1
            depth += 1
            if kind is _OPEN:
                chain.append(0)
                if len(chain) > MAX_BRACKET_DEPTH + 1:
                    return f"SyntaxError: too many nested parentheses (more than {MAX_BRACKET_DEPTH})", index
            if depth > MAX_EXPRESSION_DEPTH:
                return (
                    f"too deeply nested to analyse: an expression nested or chained more than "
                    f"{MAX_EXPRESSION_DEPTH:,} deep (mcplint's limit; LibCST's parser would crash)",
                    index,
                )
        elif kind is _CLOSE:
            if len(chain) > 1:
                depth -= chain.pop()
        elif kind is _SEPARATOR:
            depth -= chain[-1]
            chain[-1] = 0
        elif len(chain) == 1:  # a line break that ends a statement
            chain[0] = depth = 0
    return None
