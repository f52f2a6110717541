"""Black's line splitting, on a statement's tokens: what `mcplint.engine.wrap` lays out with.

A port of black's (``linegen.py``: ``transform_line``, ``right_hand_split`` with its omitted
trailers and optional parentheses, ``delimiter_split``; ``brackets.py``: the delimiter
priorities; ``lines.py``: ``can_omit_invisible_parens``, ``can_be_split``), kept close to the
original, side effects included (a split shows optional parentheses for good, as
``ensure_visible`` does), so that its output is black's. Black reads some facts from its syntax
tree; here they are flags on each ``Leaf`` that ``wrap`` sets from the neighbouring tokens.
Comments, multi-line strings and black's preview features are not ported: ``wrap`` leaves
statements with the first two alone.
"""

from __future__ import annotations

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


def is_opening(leaf: Leaf) -> bool:
    return leaf.kind in OPENING


def is_closing(leaf: Leaf) -> bool:
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
        if self.depth == 0 and is_closing(leaf) and (0, leaf.kind) not in self.bracket_match:
            return
        if self.for_loop_depths and self.for_loop_depths[-1] == self.depth and leaf.kind == "NAME" and leaf.value == "in":
            self.depth -= 1
            self.for_loop_depths.pop()
        if self.lambda_argument_depths and self.lambda_argument_depths[-1] == self.depth and leaf.value == ":":
            self.depth -= 1
            self.lambda_argument_depths.pop()
        if is_closing(leaf):
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
        if is_opening(leaf):
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
    if leaf.kind == "." and not leaf.in_import and (previous is None or is_closing(previous)):
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
        if not (is_closing(closing) and self.leaves and self.leaves[-1].kind == ","):
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
        return text_width(self.indent.expandtabs(4)) + len(INDENT) * self.depth

    def render(self) -> str:
        if not self.leaves:
            return ""
        first, *rest = self.leaves
        return self.indent + INDENT * self.depth + first.value + "".join(str(leaf) for leaf in rest)

    def width(self) -> int:
        return self.indent_width() + text_width(self.render().lstrip(" \t"))

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


def text_width(text: str) -> int:
    if text.isascii():
        return len(text)
    return sum(
        0 if unicodedata.combining(char) else 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
        for char in text
    )


@dataclass
class Mode:
    line_length: int
    trailing_comma_in_call: bool = True
    force_optional_parentheses: bool = False

    def short(self, line: Line, line_length: int | None = None) -> bool:
        return line.width() <= (self.line_length if line_length is None else line_length)


# -- black's transform_line and its transformers ---------------------------------------------
Transformer = Callable[["Line", "Mode"], Iterator["Line"]]


def transform_line(line: Line, mode: Mode) -> list[Line]:
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


def _run_transformer(line: Line, transform: Transformer, mode: Mode, line_str: str) -> list[Line]:
    optional_parens = [bracket for bracket in line.tracker.invisible if bracket.bracket_depth == 0]
    result: list[Line] = []
    for transformed in transform(line, mode):
        if transformed.render() == line_str:
            raise CannotSplit("the transform returned the line unchanged")
        result.extend(transform_line(transformed, mode))
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
    forced = Mode(mode.line_length, mode.trailing_comma_in_call, force_optional_parentheses=True)
    second_opinion = _run_transformer(line_copy, transform, forced, line_str)
    if all(mode.short(each) for each in second_opinion):
        result = second_opinion
    return result


# What a copied leaf keeps; the tracker of the line it joins sets the rest.
_LEAF_FIELDS = ("kind", "value", "original_prefix", "invisible", "trailer", "vararg", "call_vararg", "unary", "comprehension", "in_import")


def _rhs(line: Line, mode: Mode) -> Iterator[Line]:
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
            target = next((leaf for leaf in reversed(line.leaves) if is_closing(leaf) and id(leaf) not in omit), None)
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


def _right_hand_split(line: Line, mode: Mode, omit: Sequence[int] | set[int]) -> list[Line]:
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
        if current is tail_leaves and is_closing(leaf) and id(leaf) not in omit:
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
    split: _Split, line: Line, mode: Mode, omit: Sequence[int] | set[int]
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


def _prefer_split_without_parens(without_parens: _Split, split: _Split, mode: Mode) -> bool:
    """Black's ``_prefer_split_rhs_oop_over_rhs`` (without its preview and comment cases)."""
    head = split.head.leaves
    if not (len(head) >= 2 and head[-2].kind == "="):
        return True
    if not any(is_opening(leaf) or is_closing(leaf) for leaf in head[:-1]):
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
        if is_closing(leaf):
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
    if is_opening(first) and not is_closing(second):
        if _can_omit_opening_paren(line, first, line_length):
            return True
    penultimate, last = line.leaves[-2], line.leaves[-1]
    if last.kind in (")", "}") or (last.kind == "]" and not (last.opening_bracket and last.opening_bracket.trailer)):
        if is_opening(penultimate):
            return False
        if _can_omit_closing_paren(line, last, line_length):
            return True
    return False


def _can_omit_opening_paren(line: Line, first: Leaf, line_length: int) -> bool:
    remainder = False
    length = line.indent_width()
    for _index, leaf, leaf_length in line.lengths():
        if is_closing(leaf) and leaf.opening_bracket is first:
            remainder = True
        if remainder:
            length += leaf_length
            if length > line_length:
                return False
            if is_opening(leaf):
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
        elif is_opening(leaf):
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
            if is_opening(leaf):
                if not is_closing(following):
                    return False
                call_count += 1
            elif leaf.kind == ".":
                dot_count += 1
            elif leaf.kind == "NAME":
                if not (following.kind == "." or is_opening(following)):
                    return False
            elif not is_closing(leaf):
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
        if is_opening(leaf):
            stack.append(index)
        elif is_closing(leaf) and stack:
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
            elif is_closing(leaf):
                previous = line.leaves[index - 1] if index > 0 else None
                if (
                    previous is not None
                    and previous.kind == ","
                    and leaf.opening_bracket is not None
                    and not _is_one_sequence_between(leaf.opening_bracket, leaf, line.leaves)
                ):
                    break
                inner_brackets.add(id(leaf))
        elif is_closing(leaf):
            previous = line.leaves[index - 1] if index > 0 else None
            if previous is not None and is_opening(previous):
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


def _delimiter_split(line: Line, mode: Mode) -> Iterator[Line]:
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
