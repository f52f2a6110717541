"""Source ranges for the few nodes that became findings.

LibCST's ``PositionProvider`` tracks every node during a codegen pass and costs
about three parses. Findings need a handful of nodes, so one plain codegen pass
records only where those nodes' tokens start and end; the offsets are then
turned into 1-based lines and code-point columns.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

import libcst as cst
from libcst._nodes.internal import CodegenState

from mcplint.analysis.source_text import line_starts


class _AllRecorded(Exception):
    """Every target's tokens are written: the rest of the module is not needed."""


class _TargetRecorder(CodegenState):
    def __init__(self, module: cst.Module, targets: set[int]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.targets = targets
        self.token_spans: dict[int, list[int]] = {}
        self._unfinished = len(targets)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            self.token_spans[id(node)] = [len(self.tokens), len(self.tokens)]

    def after_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            self.token_spans[id(node)][1] = len(self.tokens)
            self._unfinished -= 1
            if self._unfinished == 0:
                raise _AllRecorded


Range = tuple[int, int, int, int]  # line, column, end line, end column (1-based, end exclusive)


def node_ranges(module: cst.Module, nodes: Iterable[cst.CSTNode], source: str) -> dict[int, Range]:
    """Ranges in ``source`` (the text ``module`` was parsed from) keyed by ``id(node)``,
    whitespace around each node excluded."""
    recorder = _TargetRecorder(module, {id(node) for node in nodes})
    try:
        module._codegen(recorder)
    except _AllRecorded:  # the text after the last target moves no offset before it
        pass
    tokens = recorder.tokens
    wanted = sorted({index for span in recorder.token_spans.values() for index in span})
    offsets: dict[int, int] = {}
    length = 0
    position = 0
    for index in wanted:
        length += sum(len(token) for token in tokens[position:index])
        position = index
        offsets[index] = length
    text = "".join(tokens)
    # LibCST's code is not always its source: it drops a backslash continuation that begins
    # the file (`\\` + newline, blanks before it too), which made every offset short by it
    # (found by fuzzing: fixes landed a character early), and the last line break of a file
    # whose line breaks are lone CRs. Offsets are counted from where its code sits in the source.
    shift = 0 if text == source else source.find(text)
    # ... and it drops a form feed that begins a line after a decorator (found by fuzzing): then
    # its code is not a slice of the source, and each offset is mapped through the two texts' match.
    locate = (lambda offset: offset + shift) if shift >= 0 else _aligned(text, source)
    lines = LineIndex(source)
    ranges: dict[int, Range] = {}
    for node_id, (start_token, end_token) in recorder.token_spans.items():
        start, end = locate(offsets[start_token]), locate(offsets[end_token])
        while start < end and source[start].isspace():
            start += 1
        while end > start and source[end - 1].isspace():
            end -= 1
        ranges[node_id] = (*lines.position(start), *lines.position(end))
    return ranges


def _aligned(text: str, source: str) -> Callable[[int], int]:
    """Offsets in ``text`` (LibCST's code) to offsets in ``source``, through the blocks the two
    have in common; an offset in text LibCST made up lands where the next common block starts."""
    import difflib

    blocks = difflib.SequenceMatcher(None, text, source, autojunk=False).get_matching_blocks()
    starts = [block.a for block in blocks]

    def locate(offset: int) -> int:
        index = bisect.bisect_right(starts, offset) - 1
        if index >= 0 and offset < blocks[index].a + blocks[index].size:
            return blocks[index].b + offset - blocks[index].a
        following = blocks[min(index + 1, len(blocks) - 1)]
        return min(following.b, len(source))

    return locate


class LineIndex:
    """Offset to (line, column), both 1-based, columns in code points."""

    def __init__(self, text: str, starts: list[int] | None = None) -> None:
        """``starts``: where the text's lines start, when already listed (``SourceText``'s)."""
        self._length = len(text)
        self._starts = starts if starts is not None else line_starts(text)

    def offset(self, line: int, column: int) -> int:
        """The inverse of ``position``; a line past the end is the end of the text."""
        if line > len(self._starts):
            return self._length
        return min(self._starts[line - 1] + column - 1, self._length)

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1
