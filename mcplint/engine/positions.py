"""Source ranges for the few nodes that became findings.

LibCST's ``PositionProvider`` tracks every node during a codegen pass and costs
about three parses. Findings need a handful of nodes, so one plain codegen pass
records only where those nodes' tokens start and end; the offsets are then
turned into 1-based lines and code-point columns.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

import libcst as cst
from libcst._nodes.internal import CodegenState

from mcplint.source import LINE_BREAK


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
    if shift < 0:
        raise ValueError("LibCST's code for the module is not part of its source: positions unknown")
    lines = LineIndex(source)
    ranges: dict[int, Range] = {}
    for node_id, (start_token, end_token) in recorder.token_spans.items():
        start, end = offsets[start_token] + shift, offsets[end_token] + shift
        while start < end and source[start].isspace():
            start += 1
        while end > start and source[end - 1].isspace():
            end -= 1
        ranges[node_id] = (*lines.position(start), *lines.position(end))
    return ranges


class LineIndex:
    """Offset to (line, column), both 1-based, columns in code points."""

    def __init__(self, text: str) -> None:
        self._length = len(text)
        self._starts = [0]
        if "\r" in text:  # Python's line breaks: CRLF, a lone CR, LF
            self._starts.extend(match.end() for match in LINE_BREAK.finditer(text))
            return
        index = text.find("\n")
        while index != -1:
            self._starts.append(index + 1)
            index = text.find("\n", index + 1)

    def offset(self, line: int, column: int) -> int:
        """The inverse of ``position``; a line past the end is the end of the text."""
        if line > len(self._starts):
            return self._length
        return min(self._starts[line - 1] + column - 1, self._length)

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1
