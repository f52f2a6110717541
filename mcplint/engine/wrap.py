"""Laying out the statements a fix wrote to fit the project's line length, as black would.

A fix rewrites a statement on one line (`raise pkg_error("SYMBOL", key=value).caught_as(ValueError)
from error` can run to 150 characters). ``relayout`` re-lays out each statement the fixes wrote
(every line of it absent from the file before) that has a line longer than the limit, and
nothing else: it splits at the outermost bracket pair that makes the first line fit, the
contents on the next lines indented 4 more, one argument a line with a trailing comma when
they do not fit on one, and recurses into a line still too long. Strings are never split; a
statement that cannot be made to fit keeps what black would make of it, possibly a line too long.

The splitting is black's (``linegen.py``: ``transform_line``, ``right_hand_split``,
``delimiter_split``; ``brackets.py``: the delimiter priorities; ``lines.py``:
``can_omit_invisible_parens``), ported to work on tokens instead of blib2to3's tree: what black
reads from the tree (a call's parentheses or a tuple's, a unary minus, a comprehension's `for`
and `if`, `*args`) is read from the neighbouring tokens. The spacing inside a line is kept as
the fix wrote it (black normalises it; a fix writes it black's way). Left as they are: a
statement with a comment, a backslash continuation or a multi-line string, several statements
on one line, a compound statement's header, and one whose re-laid out form does not parse.
``tests/test_wrap.py`` runs black on the same statements and compares.
"""

from __future__ import annotations

import ast
import difflib
import io
import keyword
import re
import tokenize
import unicodedata
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field

DEFAULT_LINE_LENGTH = 88
INDENT = "    "

# Delimiter priorities (black's brackets.py): a line inside brackets splits at its highest.
COMPREHENSION_PRIORITY = 20
COMMA_PRIORITY = 18
TERNARY_PRIORITY = 16
LOGIC_PRIORITY = 14
STRING_PRIORITY = 12
COMPARATOR_PRIORITY = 10
MATH_PRIORITIES = {
    "|": 9,
    "^": 8,
    "&": 7,
    "<<": 6,
    ">>": 6,
    "+": 5,
    "-": 5,
    "*": 4,
    "/": 4,
    "//": 4,
    "%": 4,
    "@": 4,
    "~": 3,
    "**": 2,
}
DOT_PRIORITY = 1
COMPARATORS = frozenset({"<", ">", "==", "!=", "<=", ">=", "<>"})
ASSIGNMENTS = frozenset({"=", "+=", "-=", "*=", "@=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "**=", "//="})
OPENING = {"(": ")", "[": "]", "{": "}"}
CLOSING = {")": "(", "]": "[", "}": "{"}
_OPERAND_KEYWORDS = frozenset({"None", "True", "False"})
_SIMPLE_STATEMENTS = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Assert,
    ast.Delete,
    ast.ImportFrom,
)
_FSTRING_TOKENS = {
    getattr(tokenize, name): getattr(tokenize, name.replace("START", "END"))
    for name in ("FSTRING_START", "TSTRING_START")
    if hasattr(tokenize, name)
}


class CannotSplit(Exception):
    """This way of splitting the line does not apply (black's CannotSplit / CannotTransform)."""


@dataclass(eq=False)
class Leaf:
    """One token of the statement, with what black reads from the syntax tree around it."""

    kind: str  # "(" ")" "[" "]" "{" "}" "," "." "=" NAME NUMBER STRING OP
    value: str
    prefix: str = ""
    original_prefix: str = ""  # black's whitespace before it; a split sets `prefix` to ""
    invisible: bool = False  # an optional pair of parentheses black may show or not
    opening_bracket: Leaf | None = None
    bracket_depth: int = 0
    trailer: bool = False  # a bracket of a call or subscript (not of a tuple, list, set, dict)
    vararg: bool = False  # `*` / `**` unpacking
    call_vararg: bool = False  # ... among a call's arguments
    unary: bool = False
    comprehension: bool = False  # `for` / `if` of a comprehension, `in` ending its targets
    in_import: bool = False

    def __str__(self) -> str:
        return self.prefix + self.value


def _is_opening(leaf: Leaf) -> bool:
    return leaf.kind in OPENING


def _is_closing(leaf: Leaf) -> bool:
    return leaf.kind in CLOSING


@dataclass
class Tracker:
    """Black's BracketTracker: bracket depths, pairs and the delimiters at depth 0."""

    depth: int = 0
    bracket_match: dict[tuple[int, str], Leaf] = field(default_factory=dict)
    delimiters: dict[int, int] = field(default_factory=dict)
    previous: Leaf | None = None
    for_loop_depths: list[int] = field(default_factory=list)
    lambda_argument_depths: list[int] = field(default_factory=list)
    invisible: list[Leaf] = field(default_factory=list)

    def mark(self, leaf: Leaf) -> None:
        if self.depth == 0 and _is_closing(leaf) and (0, leaf.kind) not in self.bracket_match:
            return
        if self.for_loop_depths and self.for_loop_depths[-1] == self.depth and leaf.kind == "NAME" and leaf.value == "in":
            self.depth -= 1
            self.for_loop_depths.pop()
        if self.lambda_argument_depths and self.lambda_argument_depths[-1] == self.depth and leaf.value == ":":
            self.depth -= 1
            self.lambda_argument_depths.pop()
        if _is_closing(leaf):
            self.depth -= 1
            leaf.opening_bracket = self.bracket_match.pop((self.depth, leaf.kind))
            if leaf.invisible:
                self.invisible.append(leaf)
        leaf.bracket_depth = self.depth
        if self.depth == 0:
            priority = _split_before_priority(leaf, self.previous)
            if priority and self.previous is not None:
                self.delimiters[id(self.previous)] = priority
            elif leaf.kind == ",":
                self.delimiters[id(leaf)] = COMMA_PRIORITY
        if _is_opening(leaf):
            self.bracket_match[self.depth, OPENING[leaf.kind]] = leaf
            self.depth += 1
            if leaf.invisible:
                self.invisible.append(leaf)
        self.previous = leaf
        if leaf.kind == "NAME" and leaf.value == "lambda":
            self.depth += 1
            self.lambda_argument_depths.append(self.depth)
        if leaf.kind == "NAME" and leaf.value == "for":
            self.depth += 1
            self.for_loop_depths.append(self.depth)

    def max_priority(self, exclude: Collection[int] = ()) -> int:
        return max(priority for leaf_id, priority in self.delimiters.items() if leaf_id not in exclude)

    def count_with_priority(self, priority: int = 0) -> int:
        if not self.delimiters:
            return 0
        priority = priority or self.max_priority()
        return sum(1 for value in self.delimiters.values() if value == priority)


def _split_before_priority(leaf: Leaf, previous: Leaf | None) -> int:
    """Black's ``is_split_before_delimiter``."""
    if leaf.vararg:
        return 0
    if leaf.kind == "." and not leaf.in_import and (previous is None or _is_closing(previous)):
        return DOT_PRIORITY
    if leaf.kind == "OP" and leaf.value in MATH_PRIORITIES and not leaf.unary:
        return MATH_PRIORITIES[leaf.value]
    if leaf.kind == "OP" and leaf.value in COMPARATORS:
        return COMPARATOR_PRIORITY
    if leaf.kind == "STRING" and previous is not None and previous.kind == "STRING":
        return STRING_PRIORITY
    if leaf.kind != "NAME":
        return 0
    value = leaf.value
    if value == "for" and leaf.comprehension:
        return 0 if previous is not None and previous.value == "async" else COMPREHENSION_PRIORITY
    if value == "async" and leaf.comprehension:
        return COMPREHENSION_PRIORITY
    if value == "if" and leaf.comprehension:
        return COMPREHENSION_PRIORITY
    if value in ("if", "else"):
        return TERNARY_PRIORITY
    if value == "is":
        return COMPARATOR_PRIORITY
    if value == "in" and not leaf.comprehension and not (previous is not None and previous.value == "not"):
        return COMPARATOR_PRIORITY
    if value == "not" and leaf.comprehension and not (previous is not None and previous.value == "is"):
        return COMPARATOR_PRIORITY  # `not in` (`comprehension` marks a `not` followed by `in`)
    if value in ("and", "or"):
        return LOGIC_PRIORITY
    return 0


@dataclass
class Line:
    indent: str  # the statement's own indentation
    depth: int = 0  # levels of 4 spaces below it
    inside_brackets: bool = False
    is_import: bool = False
    leaves: list[Leaf] = field(default_factory=list)
    tracker: Tracker = field(default_factory=Tracker)
    should_split_rhs: bool = False
    magic_trailing_comma: Leaf | None = None

    def append(self, leaf: Leaf, preformatted: bool = False, track_bracket: bool = False) -> None:
        if self.inside_brackets or not preformatted or track_bracket:
            self.tracker.mark(leaf)
            if self._has_magic_trailing_comma(leaf):
                self.magic_trailing_comma = leaf
        self.leaves.append(leaf)

    def _has_magic_trailing_comma(self, closing: Leaf) -> bool:
        if not (_is_closing(closing) and self.leaves and self.leaves[-1].kind == ","):
            return False
        if closing.kind == "}":
            return True
        if closing.kind == "]":
            opening = closing.opening_bracket
            return not (
                opening is not None
                and opening.trailer
                and _is_one_sequence_between(opening, closing, self.leaves, ("[", "]"))
            )
        if self.is_import:
            return True
        return closing.opening_bracket is not None and not _is_one_sequence_between(
            closing.opening_bracket, closing, self.leaves
        )

    def __bool__(self) -> bool:
        return bool(self.leaves)

    def indent_width(self) -> int:
        return _width(self.indent.expandtabs(4)) + len(INDENT) * self.depth

    def render(self) -> str:
        if not self.leaves:
            return ""
        first, *rest = self.leaves
        return self.indent + INDENT * self.depth + first.value + "".join(str(leaf) for leaf in rest)

    def width(self) -> int:
        return self.indent_width() + _width(self.render().lstrip(" \t"))

    @property
    def is_chained_assignment(self) -> bool:
        return sum(1 for leaf in self.leaves if leaf.kind == "=") > 1

    def clone(self) -> Line:
        return Line(
            self.indent,
            self.depth,
            self.inside_brackets,
            self.is_import,
            should_split_rhs=self.should_split_rhs,
            magic_trailing_comma=self.magic_trailing_comma,
        )

    def lengths(self, reverse: bool = False) -> Iterator[tuple[int, Leaf, int]]:
        indexed = list(enumerate(self.leaves))
        for index, leaf in reversed(indexed) if reverse else indexed:
            yield index, leaf, len(leaf.prefix) + len(leaf.value)


def _is_one_sequence_between(
    opening: Leaf, closing: Leaf, leaves: Sequence[Leaf], brackets: tuple[str, str] = ("(", ")")
) -> bool:
    if (opening.kind, closing.kind) != brackets:
        return False
    depth = closing.bracket_depth + 1
    try:
        start = next(index for index, leaf in enumerate(leaves) if leaf is opening)
    except StopIteration:
        return False
    commas = 0
    for leaf in leaves[start + 1 :]:
        if leaf is closing:
            break
        if leaf.bracket_depth == depth and leaf.kind == ",":
            commas += 1
            if opening.trailer and opening.kind == "(":  # a call's arguments (black: arglist)
                commas += 1
                break
    return commas < 2


def _width(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
        for char in text
    )


@dataclass
class _Mode:
    line_length: int
    trailing_comma_in_call: bool = True
    force_optional_parentheses: bool = False

    def short(self, line: Line, line_length: int | None = None) -> bool:
        return line.width() <= (self.line_length if line_length is None else line_length)


# -- black's transform_line and its transformers ---------------------------------------------
Transformer = Callable[["Line", "_Mode"], Iterator["Line"]]


def _transform_line(line: Line, mode: _Mode) -> list[Line]:
    line_str = line.render()
    if not line.should_split_rhs and not line.magic_trailing_comma and mode.short(line):
        return [line]
    transformers = [_delimiter_split, _rhs] if line.inside_brackets else [_rhs]
    for transform in transformers:
        try:
            return _run_transformer(line, transform, mode, line_str)
        except CannotSplit:
            continue
    return [line]


def _run_transformer(line: Line, transform: Transformer, mode: _Mode, line_str: str) -> list[Line]:
    optional_parens = [bracket for bracket in line.tracker.invisible if bracket.bracket_depth == 0]
    result: list[Line] = []
    for transformed in transform(line, mode):
        if transformed.render() == line_str:
            raise CannotSplit("the transform returned the line unchanged")
        result.extend(_transform_line(transformed, mode))
    if (
        mode.force_optional_parentheses
        or transform is not _rhs
        or not line.tracker.invisible
        or any(bracket.value for bracket in optional_parens)
        or mode.short(result[0])
    ):
        return result
    # A second opinion: keep the optional parentheses; taken when every line then fits.
    line_copy = line.clone()
    for leaf in line.leaves:
        copied = Leaf(**{name: getattr(leaf, name) for name in _LEAF_FIELDS})
        copied.prefix = copied.original_prefix if line_copy.leaves else ""
        line_copy.append(copied)
    forced = _Mode(mode.line_length, mode.trailing_comma_in_call, force_optional_parentheses=True)
    second_opinion = _run_transformer(line_copy, transform, forced, line_str)
    if all(mode.short(each) for each in second_opinion):
        result = second_opinion
    return result


# What a copied leaf keeps; the tracker of the line it joins sets the rest.
_LEAF_FIELDS = ("kind", "value", "original_prefix", "invisible", "trailer", "vararg", "call_vararg", "unary", "comprehension", "in_import")


def _rhs(line: Line, mode: _Mode) -> Iterator[Line]:
    """Black's ``right_hand_split_with_omits``: split at the last opening bracket, or at an
    earlier one when the trailers after it fit on the first line."""
    first_lines: list[Line] | None = None
    prefix_lengths: dict[int, int] = {}
    length = line.indent_width()
    for leaf in line.leaves:
        prefix_lengths[id(leaf)] = length
        length += len(leaf.prefix) + len(leaf.value)
    for omit in _trailers_to_omit(line, mode.line_length):
        if omit:
            target = next((leaf for leaf in reversed(line.leaves) if _is_closing(leaf) and id(leaf) not in omit), None)
            opening = target.opening_bracket if target is not None else None
            if opening is not None and opening.value and prefix_lengths.get(id(opening), 0) > mode.line_length:
                continue
        lines = _right_hand_split(line, mode, omit)
        if first_lines is None and not omit:
            first_lines = lines
        if mode.short(lines[0]):
            yield from lines
            return
    yield from first_lines if first_lines is not None else _right_hand_split(line, mode, ())


def _right_hand_split(line: Line, mode: _Mode, omit: Sequence[int] | set[int]) -> list[Line]:
    return _maybe_split_omitting_optional_parens(_first_right_hand_split(line, omit), line, mode, omit)


@dataclass
class _Split:
    head: Line
    body: Line
    tail: Line
    opening_bracket: Leaf
    closing_bracket: Leaf


def _first_right_hand_split(line: Line, omit: Sequence[int] | set[int] = ()) -> _Split:
    tail_leaves: list[Leaf] = []
    body_leaves: list[Leaf] = []
    head_leaves: list[Leaf] = []
    current = tail_leaves
    opening_bracket: Leaf | None = None
    closing_bracket: Leaf | None = None
    for leaf in reversed(line.leaves):
        if current is body_leaves and leaf is opening_bracket:
            current = head_leaves if body_leaves else tail_leaves
        current.append(leaf)
        if current is tail_leaves and _is_closing(leaf) and id(leaf) not in omit:
            opening_bracket = leaf.opening_bracket
            closing_bracket = leaf
            current = body_leaves
    if not (opening_bracket and closing_bracket and head_leaves):
        raise CannotSplit("no brackets found")
    tail_leaves.reverse()
    body_leaves.reverse()
    head_leaves.reverse()
    head = _bracket_split_build_line(head_leaves, line, opening_bracket, "head")
    body = _bracket_split_build_line(body_leaves, line, opening_bracket, "body")
    tail = _bracket_split_build_line(tail_leaves, line, opening_bracket, "tail")
    tail_length = len(tail.render().strip())
    if not body and (tail_length == 0 or tail_length < 3):
        raise CannotSplit("splitting brackets on an empty body is not worth it")
    return _Split(head, body, tail, opening_bracket, closing_bracket)


def _maybe_split_omitting_optional_parens(
    split: _Split, line: Line, mode: _Mode, omit: Sequence[int] | set[int]
) -> list[Line]:
    if (
        not mode.force_optional_parentheses
        and split.opening_bracket.kind == "("
        and split.opening_bracket.invisible
        and not split.opening_bracket.value
        and split.closing_bracket.kind == ")"
        and not split.closing_bracket.value
        and not line.is_import
        and _can_omit_invisible_parens(split, mode.line_length)
    ):
        omit = {id(split.closing_bracket), *omit}
        try:
            without_parens = _first_right_hand_split(line, omit)
            if _prefer_split_without_parens(without_parens, split, mode):
                return _maybe_split_omitting_optional_parens(without_parens, line, mode, omit)
        except CannotSplit as error:
            if line.is_chained_assignment:
                pass
            elif not _can_be_split(split.body) and not mode.short(split.body):
                raise CannotSplit("the body is still too long and cannot be split") from error
    for bracket, value in ((split.opening_bracket, "("), (split.closing_bracket, ")")):
        if not bracket.value:
            bracket.value = value  # black's ensure_visible
    return [part for part in (split.head, split.body, split.tail) if part]


def _prefer_split_without_parens(without_parens: _Split, split: _Split, mode: _Mode) -> bool:
    """Black's ``_prefer_split_rhs_oop_over_rhs`` (without its preview and comment cases)."""
    head = split.head.leaves
    if not (len(head) >= 2 and head[-2].kind == "="):
        return True
    if not any(_is_opening(leaf) or _is_closing(leaf) for leaf in head[:-1]):
        return True
    if not mode.short(split.head, mode.line_length - 1):
        return True
    if split.head.magic_trailing_comma is not None:
        return True
    equals = sum(1 for leaf in head if leaf.kind == "=")
    equals_without = sum(1 for leaf in without_parens.head.leaves if leaf.kind == "=")
    if equals > 1 and equals > equals_without:
        return False
    closing_after_assign = False
    for leaf in reversed(without_parens.head.leaves):
        if leaf.kind == "=":
            break
        if _is_closing(leaf):
            closing_after_assign = True
            break
    return closing_after_assign or (
        any(leaf.kind == "=" for leaf in without_parens.head.leaves) and mode.short(without_parens.head)
    )


def _can_omit_invisible_parens(split: _Split, line_length: int) -> bool:
    """Black's ``can_omit_invisible_parens``: the body reads well without the parentheses."""
    line = split.body
    tracker = line.tracker
    if not tracker.delimiters:
        return True
    max_priority = tracker.max_priority()
    if tracker.count_with_priority(max_priority) > 1:
        return False
    if max_priority == DOT_PRIORITY:
        return True
    first, second = line.leaves[0], line.leaves[1]
    if _is_opening(first) and not _is_closing(second):
        if _can_omit_opening_paren(line, first, line_length):
            return True
    penultimate, last = line.leaves[-2], line.leaves[-1]
    if last.kind in (")", "}") or (last.kind == "]" and not (last.opening_bracket and last.opening_bracket.trailer)):
        if _is_opening(penultimate):
            return False
        if _can_omit_closing_paren(line, last, line_length):
            return True
    return False


def _can_omit_opening_paren(line: Line, first: Leaf, line_length: int) -> bool:
    remainder = False
    length = line.indent_width()
    for _index, leaf, leaf_length in line.lengths():
        if _is_closing(leaf) and leaf.opening_bracket is first:
            remainder = True
        if remainder:
            length += leaf_length
            if length > line_length:
                return False
            if _is_opening(leaf):
                remainder = False
    return True  # every leaf seen, the line length never exceeded


def _can_omit_closing_paren(line: Line, last: Leaf, line_length: int) -> bool:
    length = line.indent_width()
    seen_other_brackets = False
    for _index, leaf, leaf_length in line.lengths():
        length += leaf_length
        if leaf is last.opening_bracket:
            if seen_other_brackets or length <= line_length:
                return True
        elif _is_opening(leaf):
            seen_other_brackets = True
    return False


def _can_be_split(line: Line) -> bool:
    """Black's ``can_be_split``: False when the line surely cannot be split."""
    leaves = line.leaves
    if len(leaves) < 2:
        return False
    if leaves[0].kind == "STRING" and leaves[1].kind == ".":
        call_count = dot_count = 0
        following = leaves[-1]
        for leaf in leaves[-2::-1]:
            if _is_opening(leaf):
                if not _is_closing(following):
                    return False
                call_count += 1
            elif leaf.kind == ".":
                dot_count += 1
            elif leaf.kind == "NAME":
                if not (following.kind == "." or _is_opening(following)):
                    return False
            elif not _is_closing(leaf):
                return False
            if dot_count > 1 and call_count > 1:
                return False
            following = leaf
    return True


def _bracket_split_build_line(leaves: list[Leaf], original: Line, opening_bracket: Leaf, component: str) -> Line:
    result = Line(original.indent, original.depth, is_import=original.is_import and component == "head")
    if component == "body":
        result.inside_brackets = True
        result.depth += 1
        if leaves and original.is_import and leaves[-1].kind != ",":
            leaves = [*leaves, Leaf(",", ",")]
    tracked = _leaves_inside_matching_brackets(leaves) if component == "head" else set()
    for leaf in leaves:
        result.append(leaf, preformatted=True, track_bracket=id(leaf) in tracked)
    if component == "body" and _should_split_line(result, opening_bracket, original):
        result.should_split_rhs = True
    return result


def _leaves_inside_matching_brackets(leaves: Sequence[Leaf]) -> set[int]:
    ids: set[int] = set()
    stack: list[int] = []
    for index, leaf in enumerate(leaves):
        if _is_opening(leaf):
            stack.append(index)
        elif _is_closing(leaf) and stack:
            start = stack.pop()
            ids.update(id(each) for each in leaves[start : index + 1])
    return ids


def _should_split_line(line: Line, opening_bracket: Leaf, original: Line) -> bool:
    """Black's ``should_split_line``: a collection's (or an import's) comma-separated body is
    exploded one element a line; a call's only when it ends with a comma."""
    if opening_bracket.value not in ("", "(", "[", "{"):
        return False
    exclude: set[int] = set()
    trailing_comma = False
    if not line.leaves:
        return False
    if line.leaves[-1].kind == ",":
        trailing_comma = True
        exclude.add(id(line.leaves[-1]))
    try:
        max_priority = line.tracker.max_priority(exclude)
    except ValueError:
        return False
    return max_priority == COMMA_PRIORITY and (trailing_comma or not opening_bracket.trailer)


def _trailers_to_omit(line: Line, line_length: int) -> Iterator[set[int]]:
    """Black's ``generate_trailers_to_omit``: ever larger sets of closing brackets to skip."""
    omit: set[int] = set()
    if not line.magic_trailing_comma:
        yield omit
    length = line.indent_width()
    opening_bracket: Leaf | None = None
    closing_bracket: Leaf | None = None
    inner_brackets: set[int] = set()
    for index, leaf, leaf_length in line.lengths(reverse=True):
        length += leaf_length
        if length > line_length:
            break
        if opening_bracket:
            if leaf is opening_bracket:
                opening_bracket = None
            elif _is_closing(leaf):
                previous = line.leaves[index - 1] if index > 0 else None
                if (
                    previous is not None
                    and previous.kind == ","
                    and leaf.opening_bracket is not None
                    and not _is_one_sequence_between(leaf.opening_bracket, leaf, line.leaves)
                ):
                    break
                inner_brackets.add(id(leaf))
        elif _is_closing(leaf):
            previous = line.leaves[index - 1] if index > 0 else None
            if previous is not None and _is_opening(previous):
                inner_brackets.add(id(leaf))
                continue
            if closing_bracket:
                omit.add(id(closing_bracket))
                omit.update(inner_brackets)
                inner_brackets.clear()
                yield omit
            if (
                previous is not None
                and previous.kind == ","
                and leaf.opening_bracket is not None
                and not _is_one_sequence_between(leaf.opening_bracket, leaf, line.leaves)
            ):
                break
            if leaf.value:
                opening_bracket = leaf.opening_bracket
                closing_bracket = leaf


def _delimiter_split(line: Line, mode: _Mode) -> Iterator[Line]:
    """Black's ``delimiter_split``: one line per delimiter of the highest priority (commas:
    one argument a line, with a trailing comma)."""
    if not line.leaves:
        raise CannotSplit("empty line")
    last_leaf = line.leaves[-1]
    try:
        priority = line.tracker.max_priority(exclude={id(last_leaf)})
    except ValueError:
        raise CannotSplit("no delimiters") from None
    if priority == DOT_PRIORITY and line.tracker.count_with_priority(priority) == 1:
        raise CannotSplit("splitting a single attribute from its owner looks wrong")
    current = Line(line.indent, line.depth, inside_brackets=line.inside_brackets)
    lowest_depth = 1 << 30
    trailing_comma_safe = True
    for leaf in line.leaves:
        current.append(leaf, preformatted=True)
        lowest_depth = min(lowest_depth, leaf.bracket_depth)
        if trailing_comma_safe and leaf.bracket_depth == lowest_depth and leaf.call_vararg:
            trailing_comma_safe = mode.trailing_comma_in_call
        if line.tracker.delimiters.get(id(leaf)) == priority:
            current.leaves[0].prefix = ""
            yield current
            current = Line(line.indent, line.depth, inside_brackets=line.inside_brackets)
    if current:
        if trailing_comma_safe and priority == COMMA_PRIORITY and current.leaves[-1].kind != ",":
            current.append(Leaf(",", ","))
        current.leaves[0].prefix = ""
        yield current


# -- from source to black's line and back -------------------------------------------------------
def layout_statement(source: str, line_length: int = DEFAULT_LINE_LENGTH, *, trailing_comma_in_call: bool = True) -> str | None:
    """``source`` (one statement, its first line's indentation included, no line break at the
    end) laid out to fit ``line_length``; None when it is a shape left alone (see the module)."""
    indent = source[: len(source) - len(source.lstrip(" \t"))]
    leaves = _leaves(source.lstrip(" \t"))
    if leaves is None:
        return None
    line = Line(indent, is_import=bool(leaves) and leaves[0].value == "from")
    for leaf in leaves:
        line.append(leaf)
    if line.tracker.bracket_match or line.tracker.depth:
        return None
    mode = _Mode(line_length, trailing_comma_in_call)
    return "\n".join(each.render() for each in _transform_line(line, mode))


def _leaves(source: str) -> list[Leaf] | None:
    """The statement's tokens as leaves, with the optional parentheses black adds; None for a
    shape left alone."""
    raw = _tokens(source)
    if raw is None or not raw:
        return None
    leaves = [Leaf(_kind(value, token_type), value, prefix) for token_type, value, prefix in raw]
    leaves[0].prefix = ""
    for index, leaf in enumerate(leaves):
        if index and (_is_opening(leaves[index - 1]) or _is_closing(leaf)):
            leaf.prefix = ""
    _annotate(leaves)
    result = _with_optional_parens(leaves)
    if result is not None:
        result = _with_parenthesized_ternaries(result)
    for leaf in result or ():
        leaf.original_prefix = leaf.prefix
    return result


def _tokens(source: str) -> list[tuple[int, str, str]] | None:
    """(type, text, whitespace before) of each token; None with a comment, a backslash, a
    multi-line string or more than one statement."""
    found: list[tuple[int, str, str]] = []
    lines = source.splitlines(keepends=True)
    previous_end: tuple[int, int] | None = None
    previous_text = ""
    fstring_depth = 0
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    for token in tokens:
        if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        if token.type == tokenize.COMMENT or token.type == tokenize.ERRORTOKEN:
            return None
        if token.type == tokenize.OP and token.string == ";":
            return None
        if fstring_depth:  # the rest of an f-string: one leaf, as black has it
            if token.type in _FSTRING_TOKENS:
                fstring_depth += 1
            elif token.type in _FSTRING_TOKENS.values():
                fstring_depth -= 1
            kind, text, prefix = found[-1]
            text += _between(lines, previous_end, token.start) + token.string
            if "\n" in text:
                return None
            found[-1] = (kind, text, prefix)
            previous_end = token.end
            continue
        if token.type == tokenize.STRING and "\n" in token.string:
            return None
        if previous_end is None:
            prefix = ""
        elif previous_end[0] == token.start[0]:
            prefix = lines[token.start[0] - 1][previous_end[1] : token.start[1]]
        else:
            if lines[previous_end[0] - 1][previous_end[1] :].strip():
                return None  # a backslash continuation
            prefix = "" if previous_text in OPENING or previous_text == "." or token.string in (",", ".", *CLOSING) else " "
        if token.type in _FSTRING_TOKENS:
            fstring_depth = 1
            found.append((tokenize.STRING, token.string, prefix))
        else:
            found.append((token.type, token.string, prefix))
        previous_end, previous_text = token.end, token.string
    return found


def _between(lines: list[str], start: tuple[int, int] | None, end: tuple[int, int]) -> str:
    if start is None:
        return ""
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    return "".join([lines[start[0] - 1][start[1] :], *lines[start[0] : end[0] - 1], lines[end[0] - 1][: end[1]]])


def _kind(value: str, token_type: int) -> str:
    if value in OPENING or value in CLOSING or value in (",", ".", "="):
        return value
    if token_type == tokenize.NAME:
        return "NAME"
    if token_type == tokenize.NUMBER:
        return "NUMBER"
    if token_type == tokenize.STRING:
        return "STRING"
    return "OP"


def _ends_operand(leaf: Leaf | None) -> bool:
    """Whether ``leaf`` ends an operand: what follows is a binary operator or a trailer."""
    if leaf is None:
        return False
    if leaf.kind == "NAME":
        return leaf.value in _OPERAND_KEYWORDS or not keyword.iskeyword(leaf.value)
    return leaf.kind in ("NUMBER", "STRING") or _is_closing(leaf)


def _annotate(leaves: list[Leaf]) -> None:
    """What black reads from the tree, read from the neighbouring tokens."""
    stack: list[Leaf] = []  # open brackets
    comprehension_at: set[int] = set()  # bracket levels where a comprehension's `for` was seen
    open_for: list[int] = []  # levels of `for`s whose `in` is pending
    importing = bool(leaves) and leaves[0].value in ("from", "import")
    for index, leaf in enumerate(leaves):
        previous = leaves[index - 1] if index else None
        following = leaves[index + 1] if index + 1 < len(leaves) else None
        leaf.in_import = importing
        level = len(stack)
        if _is_opening(leaf):
            leaf.trailer = leaf.kind in ("(", "[") and _ends_operand(previous)
            stack.append(leaf)
            continue
        if _is_closing(leaf):
            opening = stack.pop() if stack else None
            leaf.trailer = opening is not None and opening.trailer
            comprehension_at.discard(len(stack) + 1)
            continue
        if leaf.kind == "OP" and leaf.value in ("*", "**") and not _ends_operand(previous):
            leaf.vararg = True
            leaf.call_vararg = bool(stack) and stack[-1].kind == "(" and stack[-1].trailer
        elif leaf.kind == "OP" and leaf.value in ("-", "+", "~") and not _ends_operand(previous):
            leaf.unary = True
        elif leaf.kind == "NAME" and leaf.value in ("for", "async") and level > 0 and previous is not None:
            if leaf.value == "for":
                leaf.comprehension = True
                comprehension_at.add(level)
                open_for.append(level)
            elif following is not None and following.value == "for":
                leaf.comprehension = True
        elif leaf.kind == "NAME" and leaf.value == "in" and open_for and open_for[-1] == level:
            open_for.pop()
            leaf.comprehension = True
        elif leaf.kind == "NAME" and leaf.value == "if" and level in comprehension_at:
            leaf.comprehension = True
        elif leaf.kind == "NAME" and leaf.value == "not" and following is not None and following.value == "in":
            leaf.comprehension = True  # `not in`: a comparison (see `_split_before_priority`)


def _with_optional_parens(leaves: list[Leaf]) -> list[Leaf] | None:
    """Black's ``normalize_invisible_parens`` for the statements a fix writes: the value of a
    `return`, `del` or assignment, the names an import takes, an assertion's parts."""
    first = leaves[0].value
    if first == "from":
        names = next((index + 1 for index, leaf in enumerate(leaves) if leaf.value == "import"), None)
        if names is None or names >= len(leaves):
            return None
        if leaves[names].kind == "(" and leaves[-1].kind == ")":  # black hides them, shows them to split
            leaves[names].value = leaves[-1].value = ""
            leaves[names].invisible = leaves[-1].invisible = True
            return leaves
        return _wrapped(leaves, [(names, len(leaves))])
    if first in ("return", "del"):
        return _wrapped(leaves, [(1, len(leaves))]) if len(leaves) > 1 else leaves
    if first == "assert":
        comma = _top_level(leaves, lambda leaf: leaf.kind == ",")[:1]
        starts = [1, *(index + 1 for index in comma)]
        return _wrapped(leaves, list(zip(starts, [*comma, len(leaves)], strict=True)))
    if keyword.iskeyword(first) and first not in _OPERAND_KEYWORDS and first != "await" and first != "lambda":
        return leaves  # raise, pass, global, ...: no optional parentheses
    equals = _top_level(leaves, lambda leaf: leaf.value in ASSIGNMENTS)
    annotation = _top_level(leaves[: equals[0] if equals else len(leaves)], lambda leaf: leaf.value == ":")
    if not equals:  # `name: Annotation`, or no assignment at all (a lambda's colon is not one)
        if annotation and not _top_level(leaves[: annotation[0]], lambda leaf: leaf.value == "lambda"):
            return _wrapped(leaves, [(annotation[0] + 1, len(leaves))])
        return leaves
    if annotation:
        equals = [*annotation, *equals]
    starts = [index + 1 for index in equals]
    ends = [*equals[1:], len(leaves)]
    spans = list(zip(starts, ends, strict=True))
    if _top_level(leaves[: equals[0]], lambda leaf: leaf.kind == ","):
        spans.insert(0, (0, equals[0]))  # a tuple target
    return _wrapped(leaves, spans)


# Where a conditional expression can begin (after) and end (before), at its own bracket depth.
_TERNARY_STARTS_AFTER = frozenset({",", "=", ":", ":=", "else", "return", "yield", "lambda", "from", "assert", "del", "*", "**"})
_TERNARY_ENDS_BEFORE = frozenset({",", "=", ":", "from"})


def _with_parenthesized_ternaries(leaves: list[Leaf]) -> list[Leaf]:
    """Black's ``visit_test``: a conditional expression that is not all a pair of parentheses
    holds gets optional parentheses of its own (split, it is shown in them: `(\n    a\n    if b\n    else c\n)`)."""
    spans: list[tuple[Leaf, Leaf]] = []
    for index, leaf in enumerate(leaves):
        if leaf.kind != "NAME" or leaf.value != "if" or leaf.comprehension:
            continue
        start = _ternary_start(leaves, index)
        end = _ternary_end(leaves, index)
        if start is None or end is None:
            continue
        if 0 < start and end + 1 < len(leaves) and leaves[start - 1].kind == "(" and leaves[end + 1].kind == ")":
            continue  # all that a pair of parentheses holds (black: right after the `(`)
        spans.append((leaves[start], leaves[end]))
    if not spans:
        return leaves
    result = list(leaves)
    for first, last in spans:
        start = next(index for index, leaf in enumerate(result) if leaf is first)
        end = next(index for index, leaf in enumerate(result) if leaf is last)
        opening = Leaf("(", "", first.prefix, invisible=True)
        first.prefix = ""
        result[start : end + 1] = [opening, *result[start : end + 1], Leaf(")", "", "", invisible=True)]
    return result


def _ternary_start(leaves: Sequence[Leaf], index: int) -> int | None:
    depth = 0
    for position in range(index - 1, -1, -1):
        leaf = leaves[position]
        if _is_closing(leaf):
            depth += 1
        elif _is_opening(leaf):
            if depth == 0:
                return position + 1
            depth -= 1
        elif depth == 0 and (leaf.value in _TERNARY_STARTS_AFTER or leaf.value in ASSIGNMENTS) and not (
            leaf.kind == "OP" and leaf.value in ("*", "**") and not leaf.vararg
        ):
            return position + 1
        elif depth == 0 and leaf.comprehension and leaf.value in ("for", "if", "async"):
            return None  # a comprehension's condition: parenthesized or not a ternary
    return 0


def _ternary_end(leaves: Sequence[Leaf], index: int) -> int | None:
    depth = 0
    seen_else = False
    for position in range(index + 1, len(leaves)):
        leaf = leaves[position]
        if _is_opening(leaf):
            depth += 1
        elif _is_closing(leaf):
            if depth == 0:
                return position - 1 if seen_else else None
            depth -= 1
        elif depth == 0 and leaf.value == "else":
            seen_else = True
        elif depth == 0 and seen_else and (
            leaf.value in _TERNARY_ENDS_BEFORE or leaf.value in ASSIGNMENTS or (leaf.comprehension and leaf.value != "in")
        ):
            return position - 1
    return len(leaves) - 1 if seen_else else None


def _top_level(leaves: Sequence[Leaf], test: Callable[[Leaf], bool]) -> list[int]:
    depth = 0
    found = []
    for index, leaf in enumerate(leaves):
        if _is_opening(leaf):
            depth += 1
        elif _is_closing(leaf):
            depth -= 1
        elif depth == 0 and test(leaf):
            found.append(index)
    return found


def _wrapped(leaves: list[Leaf], spans: list[tuple[int, int]]) -> list[Leaf] | None:
    """``leaves`` with invisible parentheses around each span (a parenthesised expression's own
    become invisible instead, unless they make a tuple or a generator)."""
    result = list(leaves)
    for start, end in sorted(spans, reverse=True):
        if start >= end:
            return None
        inner = leaves[start:end]
        if inner[0].kind == "(" and _matching(inner, 0) == len(inner) - 1:
            content = inner[1:-1]
            keeps = not content or _top_level(
                content, lambda leaf: leaf.kind == "," or leaf.value in ("for", "yield", ":=") or leaf.vararg
            )
            if not keeps:
                inner[0].value = inner[-1].value = ""
                inner[0].invisible = inner[-1].invisible = True
            continue
        opening = Leaf("(", "", inner[0].prefix, invisible=True)
        inner[0].prefix = ""
        closing = Leaf(")", "", "", invisible=True)
        result[start:end] = [opening, *inner, closing]
    return result


def _matching(leaves: Sequence[Leaf], start: int) -> int | None:
    depth = 0
    for index in range(start, len(leaves)):
        if _is_opening(leaves[index]):
            depth += 1
        elif _is_closing(leaves[index]):
            depth -= 1
            if depth == 0:
                return index
    return None


# -- the fixer's hook ----------------------------------------------------------------------------
_FSTRING = re.compile(r"(?<![\w.])[rRbB]?[fF][rR]?['\"]")


def python36_or_later(source: str) -> bool:
    """Whether black would take ``source`` for Python 3.6+ code, where a trailing comma may follow
    `*args` in a call: black infers it from the syntax used; an f-string is what tells here."""
    return bool(_FSTRING.search(source))


def relayout(before: str, after: str, line_length: int) -> str:
    """``after`` (``before`` with fixes applied) with every statement the fixes wrote that has
    a line longer than ``line_length`` laid out to fit, as black would; lines the fixes did not
    write are never touched."""
    lines = after.splitlines(keepends=True)
    long_lines = [index for index, text in enumerate(lines) if _width(text.rstrip("\r\n").expandtabs(4)) > line_length]
    if not long_lines:
        return after
    old_lines = before.splitlines(keepends=True)
    known = set(old_lines)
    candidates = [index for index in long_lines if lines[index] not in known]  # cheap first cut
    if not candidates:
        return after
    written = _written_lines(old_lines, lines)
    candidates = [index for index in candidates if index in written]
    if not candidates:
        return after
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return after
    modern = python36_or_later(after)
    replacements: dict[int, tuple[int, str]] = {}
    for start, end in _statements_over(tree, lines, candidates):
        if not all(index in written for index in range(start, end + 1)):
            continue
        newline = lines[end][len(lines[end].rstrip("\r\n")) :]
        source = "".join(lines[start : end + 1]).rstrip("\r\n")
        laid_out = layout_statement(source, line_length, trailing_comma_in_call=modern)
        if laid_out is None or laid_out == source or not _same_code(source, laid_out):
            continue
        replacements[start] = (end, laid_out.replace("\n", newline or "\n") + newline)
    if not replacements:
        return after
    result: list[str] = []
    index = 0
    while index < len(lines):
        if index in replacements:
            end, text = replacements[index]
            result.append(text)
            index = end + 1
        else:
            result.append(lines[index])
            index += 1
    return "".join(result)


def _written_lines(before: list[str], after: list[str]) -> set[int]:
    """Indexes of the lines of ``after`` that ``before`` does not have in the same place."""
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    matcher = difflib.SequenceMatcher(None, before[head : len(before) - tail], after[head : len(after) - tail], autojunk=False)
    written: set[int] = set()
    for tag, _start, _end, start, end in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            written.update(range(head + start, head + end))
    return written


def _statements_over(tree: ast.Module, lines: Sequence[str], indexes: Sequence[int]) -> list[tuple[int, int]]:
    """(first, last) line index of each simple statement, alone on its lines, holding one of
    the ``indexes``; only the blocks around those lines are walked."""
    wanted = set(indexes)
    found: list[tuple[int, int]] = []

    def visit(body: list[ast.stmt]) -> None:
        for position, statement in enumerate(body):
            start, end = statement.lineno - 1, (statement.end_lineno or statement.lineno) - 1
            if not wanted.intersection(range(start, end + 1)):
                continue
            if not isinstance(statement, _SIMPLE_STATEMENTS):
                for block in _blocks(statement):
                    visit(block)
                continue
            if lines[start].encode("utf-8", "surrogatepass")[: statement.col_offset].strip():
                continue  # after a compound statement's colon: `if x: return f(...)`
            alone = all(
                other is statement or other.lineno - 1 > end or (other.end_lineno or other.lineno) - 1 < start
                for other in body[max(position - 1, 0) : position + 2]
            )
            if alone:
                found.append((start, end))

    visit(tree.body)
    return sorted(set(found))


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists inside a compound statement (an `except`'s and a `case`'s too)."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if isinstance(block, list):
            yield block
    for clause in [*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]:
        yield clause.body


def _same_code(before: str, after: str) -> bool:
    """Whether the laid out statement parses to the same tree as the one it replaces."""
    try:
        return ast.dump(ast.parse(_dedented(before))) == ast.dump(ast.parse(_dedented(after)))
    except (SyntaxError, ValueError):
        return False


def _dedented(source: str) -> str:
    indent = source[: len(source) - len(source.lstrip(" \t"))]
    return "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in source.split("\n"))
