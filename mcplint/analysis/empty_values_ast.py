"""Empty-looking values, and the ones an ``except`` clause hands back, read from CPython's
`ast` (the port's twin of ``empty_values.py``, which says what is judged and why).

Where the trees differ:

- ``None``, ``True`` and ``False`` are names in LibCST's tree and constants in `ast`'s: every
  test of a name here takes them as the original takes their names (``_name_text``,
  ``dotted_name``), so ``while True:``, ``x is None``, ``len(None)`` answer as there.
- A block is a flat list of statements: ``units_of`` is the block itself, and what
  ``own_nodes(block)`` listed there is ``body_nodes(statements)`` here (same order).
- Implicitly concatenated strings are one constant in `ast`: where the original tells a
  lone string token (``SimpleString``) from a concatenation, a string constant counts as a
  lone token (``_is_string_token``), the one place the answers may part (a tuple of empty
  values whose only text is ``"" ""``, a clause setting a local to one).
- The text a clause shows as left empty (``refs["shared"]``) is the code LibCST prints for
  that target in the tree built from `ast`: ``clauses_leaving_empty`` needs the module's
  text for it.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from mcplint.analysis.empty_values import (  # tree-independent: shared with the LibCST original
    _ABSENT_OR_MALFORMED,
    _LOG_WORDS,
    _NOT_CARRYING,
    _RESHAPING,
    _RESHAPING_BUILTINS,
    EMPTY_CONSTRUCTORS,
    EMPTY_TEXTS,
    EXIT_CALLS,
    JSON_SERIALISERS,
    MUTATORS,
    NOTHING_KNOWN,
    RESULT_SUFFIXES,
    Known,
)
from mcplint.analysis.imports_ast import dotted_name, name_text
from mcplint.analysis.source_text import is_one_token
from mcplint.analysis.walk_ast import body_nodes, own_statements
from mcplint.analysis.walk_ast import own_nodes as _own_nodes

__all__ = [
    "EMPTY_CONSTRUCTORS", "EMPTY_TEXTS", "EXIT_CALLS", "JSON_SERIALISERS", "MUTATORS", "NOTHING_KNOWN",
    "RESULT_SUFFIXES", "ClauseReturn", "Frame", "Known", "LocalValue", "added_to", "body_nodes", "caught_names",
    "clause_returns", "clauses_leaving_empty", "dotted_name", "emptiness_tested", "empty_builders", "is_empty_value",
    "is_generator", "is_none_literal", "never_returns", "own_nodes", "returns_values", "units_of",
]  # fmt: skip

Function = ast.FunctionDef | ast.AsyncFunctionDef
LocalValue = Callable[[str], "ast.expr | None"]

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FORS = (ast.For, ast.AsyncFor)
_WITHS = (ast.With, ast.AsyncWith)
_TRIES = (ast.Try, *((ast.TryStar,) if sys.version_info >= (3, 11) else ()))  # `except*`: 3.11 on


def _is_integer(node: ast.AST) -> bool:
    """LibCST's ``Integer`` (not ``True``/``False``, names there)."""
    return type(node) is ast.Constant and type(node.value) is int


def _unstarred(node: ast.expr) -> ast.expr:
    """A starred element's value: LibCST's ``StarredElement.value``, ``Arg.value`` of ``*x``."""
    return node.value if type(node) is ast.Starred else node


def is_empty_value(
    expression: ast.expr | None,
    local_value: LocalValue = lambda name: None,
    known: Known = NOTHING_KNOWN,
) -> bool:
    """Whether a returned value looks like an empty success (``None`` for a bare ``return``)."""
    if expression is None:
        return True
    if isinstance(expression, ast.Name):
        value = local_value(expression.id)
        return value is not None and is_empty_value(value)
    if isinstance(expression, ast.Constant):
        constant = expression.value
        if constant is None or constant is False:
            return True
        if constant is True:  # a name in LibCST's tree: asked of the locals like any other
            value = local_value("True")
            return value is not None and is_empty_value(value)
        constant_type = type(constant)
        if constant_type is int or constant_type is float:
            return bool(constant == 0)
        return constant_type is str and constant in EMPTY_TEXTS
    if isinstance(expression, (ast.List, ast.Set)):
        return not expression.elts
    if isinstance(expression, ast.Tuple):
        # `()`, `[], None` (rows and their count): empty when every part is and one is an empty
        # collection or text; `None, None` says "unknown", not "nothing there".
        parts = [_unstarred(element) for element in expression.elts]
        return not parts or (
            all(is_empty_value(part, local_value, known) for part in parts)
            and any(type(part) in (ast.List, ast.Dict, ast.Set) or is_one_token(part) for part in parts)
        )
    if isinstance(expression, ast.Dict):
        return _is_empty_dict(expression, local_value, known.echoes)
    if isinstance(expression, ast.Call):
        return _is_empty_call(expression, local_value, known)
    return False


def _is_empty_dict(dictionary: ast.Dict, local_value: LocalValue, echoes: frozenset[str]) -> bool:
    if None in dictionary.keys:
        return False  # `**other`
    payload = [value for value in dictionary.values if not (type(value) is ast.Name and value.id in echoes)]
    if len(payload) < len(dictionary.values) and not payload:
        return False  # only the request, repeated: nothing claims to be a result
    return all(is_empty_value(value, local_value) for value in payload)


def _is_empty_call(call: ast.Call, local_value: LocalValue, known: Known) -> bool:
    if any(type(arg) is ast.Starred for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return False
    # Without a starred argument the positional ones come first, as written.
    values: list[ast.expr] = [*call.args, *(keyword.value for keyword in call.keywords)]
    name = dotted_name(call.func) or ""
    if name in EMPTY_CONSTRUCTORS:
        return not values
    if name == "len" and len(values) == 1:  # `len(results)` of an empty local
        return is_empty_value(values[0], local_value) and name_text(values[0]) is not None
    if name.rpartition(".")[2] in known.builders and (name.count(".") == 0 or name.startswith(("self.", "cls."))):
        return True  # `return self._empty_response(str(e))`
    if name in JSON_SERIALISERS and values:
        return is_empty_value(values[0], local_value, known)
    # A model built from nothing: `SearchResults()`, `Page(items=[], total=0)`. Other classes
    # called without arguments (`boto3.Session()`) are objects, not results.
    tail = name.rpartition(".")[2]
    if not tail[:1].isupper() or tail.endswith(("Error", "Exception")):
        return False
    if not values:
        return tail.endswith(RESULT_SUFFIXES)
    return not call.args and all(is_empty_value(keyword.value, local_value) for keyword in call.keywords)


def emptiness_tested(test: ast.expr) -> str | None:
    """The local a test asks "is it empty?" of: `not x`, `x is None`, `len(x) == 0`, `x == []`."""
    if type(test) is ast.UnaryOp and type(test.op) is ast.Not:
        inner = test.operand
        if type(inner) is ast.Call and (sole := _sole_argument(inner)) is not None and dotted_name(inner.func) == "len":
            inner = sole
        return name_text(inner)
    if type(test) is ast.Compare and len(test.ops) == 1:
        left, operator, comparator = test.left, test.ops[0], test.comparators[0]
        if type(left) is ast.Call and (sole := _sole_argument(left)) is not None and dotted_name(left.func) == "len":
            left = sole
            # `0` as written (LibCST compares the literal's text): one character long.
            empty = (
                isinstance(comparator, ast.Constant)
                and _is_integer(comparator)
                and comparator.value == 0
                and comparator.end_col_offset == comparator.col_offset + 1
            )
        else:
            empty = is_empty_value(comparator) and not _is_integer(comparator)
        if type(operator) in (ast.Is, ast.Eq) and empty:
            return name_text(left)
    return None


def _sole_argument(call: ast.Call) -> ast.expr | None:
    """The value of a call's only argument (starred or not, keyword or not)."""
    if len(call.args) + len(call.keywords) != 1:
        return None
    return _unstarred(call.args[0]) if call.args else call.keywords[0].value


def empty_builders(functions: Iterable[tuple[Function, Sequence[ast.Return]]]) -> frozenset[str]:
    """Functions whose every ``return`` builds an empty answer: a dict, list or model of
    empty values, its own parameters echoed (``{"warnings": [], "message": reason}``). Each
    function comes with its own ``return`` statements (not those of a function or class in it)."""
    found = set()
    for function, returns in functions:
        values = [node.value for node in returns]
        if not values or any(type(value) not in (ast.Dict, ast.List, ast.Call) for value in values):
            continue
        known = Known(_parameters(function))
        if all(is_empty_value(value, known=known) for value in values):
            found.add(function.name)
    return frozenset(found)


def returns_values(function: Function) -> bool:
    """Whether some ``return`` of the function hands back something other than ``None``."""
    return any(
        type(node) is ast.Return and node.value is not None and not is_none_literal(node.value)
        for node in own_statements(function.body)
    )


def is_generator(function: Function) -> bool:
    return any(type(node) is ast.Yield or type(node) is ast.YieldFrom for node in body_nodes(function.body))


def added_to(node: ast.AST) -> ast.Name | None:
    """The local a call adds to with a container's adder (`rows` in `rows.append(x)`).

    (`None.append(x)`: LibCST's tree has a name there, answered; no local here.)"""
    if type(node) is ast.Call:
        func = node.func
        if type(func) is ast.Attribute and func.attr in MUTATORS and type(func.value) is ast.Name:
            return func.value
    return None


def _receiver(node: ast.AST) -> str | None:
    """``added_to``'s name as the original reads it (``None`` in `None.append(x)` too)."""
    if type(node) is ast.Call:
        func = node.func
        if type(func) is ast.Attribute and func.attr in MUTATORS:
            return name_text(func.value)
    return None


def is_none_literal(expression: ast.expr) -> bool:
    """`None` written out."""
    return type(expression) is ast.Constant and expression.value is None


def own_nodes(root: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``root`` that belongs to the same function (nested scopes skipped)."""
    return _own_nodes(root)


# -- where an except clause ends ------------------------------------------------------
@dataclass(frozen=True)
class Frame:
    """One statement position: ``units[index]`` in a block of kind ``kind`` of ``owner``."""

    units: Sequence[ast.stmt]
    index: int
    kind: str  # "function", "loop" (a loop body), "try" (a try body), "handler", "finally", "block"
    owner: ast.AST  # the compound statement the block belongs to (the Try for a handler)


Path = tuple[Frame, ...]
_END = "end"  # falls off the end of the function


@dataclass(frozen=True)
class ClauseReturn:
    """A ``return`` an except clause ends in, and whether its value looks empty."""

    handler: ast.ExceptHandler
    try_node: ast.Try
    in_loop: bool  # the try sits in a loop of the same function
    return_node: ast.Return | None  # None: the clause falls off the end of the function
    falls_through: bool  # the return follows the clause instead of being inside it
    empty: bool
    left_empty: str | None = None  # what the clause leaves empty (`rows`, `refs["shared"]`), carried by that return


def clause_returns(
    function: Function, exits: frozenset[str] = frozenset(), builders: frozenset[str] = frozenset()
) -> Iterator[ClauseReturn]:
    """For each ``except`` clause of the function: the returns it ends in.

    ``exits`` names functions that never return (they always raise): a clause
    ending in a call of one does not fall through. A ``try`` around logging
    only (``try: await ctx.warning(...) except: pass``) is not a fallback.
    """
    tries = [
        (unit, path)
        for unit, path in _units_with_paths(function.body, (), "function", function)
        if type(unit) is ast.Try and not all(_changes_nothing(u) for u in unit.body)
    ]
    direct = [
        (unit, path, handler, _returns_in(unit, handler, path))
        for unit, path in tries
        for handler in unit.handlers
    ]
    # A clause nested in another clause falls into that one's own `return`: it is that clause's outcome.
    own_returns = {id(returned) for *_, returns in direct for returned, _ in returns}
    known = Known(_parameters(function), builders)
    for unit, path, handler, returns in direct:
        assert isinstance(unit, ast.Try)
        base = ClauseReturn(handler, unit, any(frame.kind == "loop" for frame in path), None, False, False)
        for returned, return_path in returns:
            yield replace(base, return_node=returned, empty=is_empty_value(returned.value, _local_values(return_path), known))
        body = handler.body
        exit_path = _fallthrough_return(_ending(body, exits), path, _gives_up(path, unit, handler))
        if exit_path == _END:
            yield replace(base, falls_through=True, empty=True)
        elif isinstance(exit_path, tuple):
            fallen_into = exit_path[-1].units[exit_path[-1].index]
            assert isinstance(fallen_into, ast.Return)
            if id(fallen_into) not in own_returns:
                end_of_clause = (*path, Frame(body, len(body), "handler", unit))
                empty = is_empty_value(fallen_into.value, _local_values(end_of_clause), known)
                yield replace(base, return_node=fallen_into, falls_through=True, empty=empty)


def clauses_leaving_empty(
    function: Function, exits: frozenset[str] = frozenset(), *, text: str
) -> Iterator[ClauseReturn]:
    """``except`` clauses that only log (or set a local to an empty value) and go on, where a
    local the ``try`` was to fill is still empty (``rows = []`` before it, or emptied by the
    clause) and a later ``return`` carries it into the answer (``{"rows": rows, ...}``).

    The answer then reports the failed part as "nothing there" (one result per clause).
    ``text``: the module's source, for the code of an emptied target (``refs["shared"]``)."""
    returns = [node for node in own_statements(function.body) if type(node) is ast.Return and node.value is not None]
    if not returns:
        return
    coalesced = _coalesced_locals(function)
    carriers: dict[str, list[str]] = {}  # per local: asked again for each clause that empties it

    def carriers_of(name: str) -> list[str]:
        if name not in carriers:
            carriers[name] = _carriers(function, name)
        return carriers[name]

    for unit, path in _units_with_paths(function.body, (), "function", function):
        if type(unit) is not ast.Try:
            continue
        assert isinstance(unit, ast.Try)
        inside = {id(node) for node in own_statements([unit])}
        later = [node for node in returns if id(node) not in inside]
        if not later:
            continue
        if not _calls_out(unit.body):
            continue  # a defensive read of what is at hand (`(response.text or "")[:600]`)
        filled = _filled_locals(unit.body)
        for handler in unit.handlers:
            body = handler.body
            emptied = _emptied_locals(body, coalesced)
            if emptied is None or _ending(body, exits) is not None:
                continue  # the clause does something, or leaves by a jump of its own
            candidates: dict[str, ast.expr | str] = dict(emptied)  # local: what is shown as left empty
            for name in filled:
                before = _value_before(name, path)
                if not isinstance(before, ast.expr) or not _says_none_exist(before):
                    continue
                # Failed before it was filled: assigned once, last (`rows = fetch()`), or only
                # added to (`rows.append(...)` over what was fetched).
                if _try_body_keeps(unit.body, name) or _only_added_to(unit.body, name):
                    candidates.setdefault(name, name)
            carried = next(
                (
                    (name, node)
                    for name in candidates
                    for carrier in carriers_of(name)
                    for node in later
                    if node.value is not None and _carries(node.value, carrier)
                ),
                None,
            )
            if carried is not None:
                in_loop = any(frame.kind == "loop" for frame in path)
                shown = candidates[carried[0]]
                shown_text = shown if isinstance(shown, str) else _code_of(shown, text)
                yield ClauseReturn(handler, unit, in_loop, carried[1], True, True, shown_text)


def _code_of(target: ast.expr, text: str) -> str:
    """The code LibCST prints for the target in the tree built from `ast` (its own
    parentheses, LibCST's default spacing, literals as written): what the original shows."""
    import libcst as cst  # only for a finding's text: a clause leaving a container's item empty

    from mcplint.analysis.ast_cst import Unsupported, _Builder

    try:
        return cst.Module(body=[]).code_for_node(_Builder(text).expr(target))
    except Unsupported:  # not reached for a tree the builder made: the source's own text then
        return ast.get_source_segment(text, target) or ""


def _calls_out(statements: Sequence[ast.stmt]) -> bool:
    for node in body_nodes(statements):
        if type(node) is ast.Await:
            return True
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if type(func) is ast.Attribute else dotted_name(func)
            if name not in _RESHAPING:
                return True
    return False


def _filled_locals(units: Sequence[ast.stmt]) -> list[str]:
    """Locals a ``try`` body assigns or fills (``rows = fetch()``, ``rows.append(...)``)."""
    names: list[str] = []
    for unit in units:
        for node in own_nodes(unit):
            if isinstance(node, ast.Assign):
                names.extend(target.id for target in node.targets if isinstance(target, ast.Name))
            elif isinstance(node, ast.AnnAssign):
                if isinstance(node.target, ast.Name) and node.value is not None:
                    names.append(node.target.id)
            elif (receiver := _receiver(node)) is not None:
                names.append(receiver)
    return list(dict.fromkeys(names))


def _coalesced_locals(function: Function) -> frozenset[str]:
    """Locals the function reads as an empty value when they are None (`(commit or {}).get(...)`)."""
    # LibCST's `a or b or c` is `(a or b) or c`: only its innermost `or` has a name on its left.
    return frozenset(
        name
        for node in body_nodes(function.body)
        if type(node) is ast.BoolOp
        and type(node.op) is ast.Or
        and (name := name_text(node.values[0])) is not None
        and _says_none_exist(node.values[1])
    )


def _emptied_locals(
    units: Sequence[ast.stmt], coalesced: frozenset[str] = frozenset()
) -> list[tuple[str, ast.expr]] | None:
    """The locals a clause sets to an empty value (``rows = []``, ``refs["shared"] = []``,
    ``text = text or ""``), with the target that shows them, when that and logging is all it
    does; None when it does more. A local set to None counts where the function reads its None
    as empty (``coalesced``)."""
    names = []
    for unit in units:
        if _changes_nothing(unit):
            continue
        if type(unit) is not ast.Assign or len(unit.targets) != 1:
            return None
        assert isinstance(unit, ast.Assign)
        value = unit.value
        if type(value) is ast.BoolOp and type(value.op) is ast.Or:
            value = value.values[-1]  # `contents = contents or ""`
        name = _root_name(unit.targets[0])
        if name is None or not is_empty_value(value):
            return None
        # `None`, `0`, `False` in a field say "unknown", not "none" (unless read as "none" later).
        if _says_none_exist(value) or (name in coalesced and is_none_literal(value)):
            names.append((name, unit.targets[0]))
    return names


def _says_none_exist(value: ast.expr) -> bool:
    """An empty collection or text (`[]`, `{}`, `""`, `list()`): "there are none"."""
    if type(value) in (ast.List, ast.Dict, ast.Set, ast.Tuple, ast.Call) or is_one_token(value):
        return is_empty_value(value)
    return False


def _only_added_to(statements: Sequence[ast.stmt], name: str) -> bool:
    nodes = body_nodes(statements)
    touching = [node for node in nodes if _mutates(node, name)]
    return bool(touching) and all(type(node) is ast.Call for node in touching) and not any(
        type(node) in (ast.Assign, ast.AugAssign, ast.AnnAssign) and _touches(node, name) for node in nodes
    )


_CONTAINERS = (ast.Dict, ast.List, ast.Tuple, ast.Set)


def _carriers(function: Function, name: str) -> list[str]:
    """The local and the collections that take it in (`files.append({"last_commit": commit})`,
    `entry = {"commit": commit}`; `files.append(entry)`): an answer carrying one carries it."""
    found = [name]
    nodes = body_nodes(function.body)
    for carried in found:
        if len(found) > 8:
            break
        for node in nodes:
            targets: list[str] = []
            receiver = _receiver(node)
            if receiver is not None:
                assert isinstance(node, ast.Call)
                if any(_carries(value, carried) for value in _argument_values(node)):
                    targets.append(receiver)
            elif type(node) is ast.Assign and len(node.targets) == 1 and _carries(node.value, carried):
                assert isinstance(node, ast.Assign)
                assigned: ast.expr = node.targets[0]
                if type(assigned) is ast.Subscript:
                    assigned = assigned.value  # `by_path[path] = commit`
                elif not isinstance(node.value, _CONTAINERS) and not _library_transform(node.value):
                    continue  # `parsed = parse(payload)`: the project's function may answer the emptiness
                if (assigned_name := name_text(assigned)) is not None:
                    targets.append(assigned_name)
            elif isinstance(node, _FORS) and _carries(node.iter, carried):
                # `for m in found: results.append(...)`: what the loop fills comes from it.
                targets.extend(adder for inner in body_nodes(node.body) if (adder := _receiver(inner)) is not None)
            found.extend(target for target in dict.fromkeys(targets) if target not in found)
    return found


def _argument_values(call: ast.Call) -> list[ast.expr]:
    """Every argument's value (LibCST's ``Arg.value``): positional, keyword, starred."""
    return [*(_unstarred(arg) for arg in call.args), *(keyword.value for keyword in call.keywords)]


def _library_transform(value: ast.expr) -> bool:
    """A builtin or a method of a value at hand (`list(...)`, `regex.finditer(text)`,
    `text.splitlines()`), not a function of the project's that may check what it is given."""
    if type(value) is not ast.Call:
        return False
    func = value.func
    name = name_text(func)
    if name is not None:
        return name in _RESHAPING_BUILTINS
    return type(func) is ast.Attribute and name_text(func.value) not in ("self", "cls")


def _carries(expression: ast.expr, name: str) -> bool:
    """The expression hands the local on as a value of the answer: itself, a dict value, an
    argument (`json.dumps({"rows": rows})`, `Page(rows=rows)`), an element, a branch of an `if`
    expression, a slice (`rows[:limit]`); not a projection of it (`rows[0]`, `len(rows)`,
    `rows.get(...)`)."""
    pending = [expression]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Name):
            if node.id == name:
                return True
        elif isinstance(node, ast.Constant):
            if name_text(node) == name:
                return True
        elif isinstance(node, ast.Await):
            pending.append(node.value)
        elif isinstance(node, ast.Dict):
            pending.extend(node.values)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            pending.extend(_unstarred(element) for element in node.elts)
        elif isinstance(node, ast.IfExp):
            pending.extend((node.body, node.orelse))
        elif isinstance(node, ast.Subscript):
            if _only_slices(node.slice):
                pending.append(node.value)  # `rows[:limit]`: still the rows
        elif isinstance(node, ast.Call):
            if (dotted_name(node.func) or "") not in _NOT_CARRYING:
                pending.extend(_argument_values(node))
    return False


def _only_slices(index: ast.expr) -> bool:
    """Every element of a subscript is a slice (`a[1:2]`, `a[1:2, ::3]`)."""
    if type(index) is ast.Slice:
        return True
    # `a[x, y]`: a tuple without parentheses, one element each in LibCST (a tuple of slices
    # cannot be written with them).
    return isinstance(index, ast.Tuple) and bool(index.elts) and all(type(e) is ast.Slice for e in index.elts)


def _parameters(function: Function) -> frozenset[str]:
    arguments = function.args
    every = (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)
    return frozenset(argument.arg for argument in every if argument.arg not in ("self", "cls"))


def never_returns(function: Function) -> bool:
    """Annotated ``NoReturn``/``Never``, or every path of the body raises."""
    returns = dotted_name(function.returns) if function.returns is not None else None
    if returns is not None and returns.rpartition(".")[2] in ("NoReturn", "Never"):
        return True
    return _ending(function.body, frozenset()) == "raise"


def units_of(suite: list[ast.stmt]) -> list[ast.stmt]:
    """A block's statements: the block itself (`ast` lists simple statements apart already)."""
    return suite


def _child_blocks(unit: ast.AST) -> Iterator[tuple[str, ast.AST, list[ast.stmt]]]:
    """(kind, owner, units) of the blocks directly inside a compound statement."""
    if isinstance(unit, ast.If):
        yield "block", unit, unit.body
        if unit.orelse:  # an `elif` is a lone `If` there, as in LibCST's `[orelse]`
            yield "block", unit, unit.orelse
    elif isinstance(unit, _LOOPS):
        yield "loop", unit, unit.body
        if unit.orelse:
            yield "block", unit, unit.orelse
    elif isinstance(unit, _TRIES):
        yield "try", unit, unit.body
        for handler in unit.handlers:
            yield "handler", unit, handler.body
        if unit.orelse:
            yield "block", unit, unit.orelse
        if unit.finalbody:
            yield "finally", unit, unit.finalbody
    elif isinstance(unit, _WITHS):
        yield "block", unit, unit.body
    elif isinstance(unit, ast.Match):
        for case in unit.cases:
            yield "block", unit, case.body


def _units_with_paths(units: Sequence[ast.stmt], path: Path, kind: str, owner: ast.AST) -> Iterator[tuple[ast.stmt, Path]]:
    for index, unit in enumerate(units):
        unit_path = (*path, Frame(units, index, kind, owner))
        yield unit, unit_path
        for child_kind, child_owner, child_units in _child_blocks(unit):
            yield from _units_with_paths(child_units, unit_path, child_kind, child_owner)


def _returns_in(try_node: ast.Try, handler: ast.ExceptHandler, try_path: Path) -> list[tuple[ast.Return, Path]]:
    """The clause's own returns; those of a nested clause belong to that clause."""
    found = []
    for unit, path in _units_with_paths(handler.body, try_path, "handler", try_node):
        if type(unit) is ast.Return and not any(frame.kind == "handler" for frame in path[len(try_path) + 1 :]):
            assert isinstance(unit, ast.Return)
            found.append((unit, path))
    return found


def _fallthrough_return(ending: str | None, try_path: Path, gives_up: bool = False) -> Path | str | None:
    """Where a clause that does not return or raise goes: a ``return``'s path, the end, or
    unknown. ``gives_up``: the clause moves on to the next candidate of a loop that answers
    with the first success (see ``_gives_up``), so past the loop every candidate failed."""
    if ending in ("return", "raise"):
        return None
    if ending in ("continue", "break"):
        loop_depth = max((depth for depth, frame in enumerate(try_path) if frame.kind == "loop"), default=None)
        if loop_depth is None:
            return None
        loop = try_path[loop_depth].owner
        if ending == "continue" and not _retries(loop) and not gives_up:
            return None
        successor = _successor(try_path[:loop_depth])
    else:
        successor = _successor(try_path)
    while isinstance(successor, tuple):
        unit = successor[-1].units[successor[-1].index]
        if type(unit) is ast.Return:
            return successor
        if not _changes_nothing(unit):
            return None
        successor = _successor(successor)
    return successor


_ENDINGS = {ast.Return: "return", ast.Raise: "raise", ast.Continue: "continue", ast.Break: "break"}


def _ending(units: Sequence[ast.stmt], exits: frozenset[str]) -> str | None:
    """How a block ends for sure: "return", "raise", "continue", "break", or None (it may go on)."""
    if not units:
        return None
    last = units[-1]
    ending = _ENDINGS.get(type(last))
    if ending is not None:
        return ending
    if isinstance(last, ast.Expr) and _exits(last.value, exits):
        return "raise"
    if isinstance(last, _WITHS):
        return _ending(last.body, exits)
    branches: list[Sequence[ast.stmt]] = []
    if isinstance(last, ast.If) and last.orelse:
        branches = [last.body, last.orelse]
    elif type(last) is ast.Try and last.handlers:
        if last.finalbody and _ending(last.finalbody, exits) is not None:
            return _ending(last.finalbody, exits)
        completed = last.orelse or last.body
        branches = [completed, *(handler.body for handler in last.handlers)]
    if not branches:
        return None
    endings = {_ending(branch, exits) for branch in branches}
    if None in endings:
        return None
    # Some branches go on with the loop: that is where the clause may lead.
    return next((e for e in ("continue", "break") if e in endings), "return" if "return" in endings else "raise")


def _exits(expression: ast.expr, exits: frozenset[str]) -> bool:
    call = expression.value if type(expression) is ast.Await else expression
    if type(call) is not ast.Call:
        return False
    name = dotted_name(call.func) or ""
    return name in EXIT_CALLS or name.rpartition(".")[2] in exits


def _loop_can_end(loop: ast.AST) -> bool:
    """A loop that ends by running out, not only by ``break`` (``while True`` does not)."""
    if isinstance(loop, _LOOPS) and loop.orelse:
        return False  # the `else` block runs first; not followed
    return not (type(loop) is ast.While and name_text(loop.test) == "True")


def _gives_up(try_path: Path, try_node: ast.Try, handler: ast.ExceptHandler) -> bool:
    """A loop over candidates (`for endpoint in ENDPOINTS:`) whose `try` returns the first
    answer, the clause catching a failure (a request error, any exception), not a candidate's
    absence or form: what follows the loop runs only when every candidate failed."""
    loops = [frame.owner for frame in try_path if frame.kind == "loop"]
    if not loops or not isinstance(loops[-1], _FORS) or loops[-1].orelse:
        return False
    caught = {"BaseException"} if handler.type is None else caught_names(handler.type)
    if caught & _ABSENT_OR_MALFORMED:
        return False
    return any(type(node) is ast.Return for node in own_statements(try_node.body))


def caught_names(caught: ast.expr) -> set[str]:
    """The classes an `except` names, by their last part."""
    elements = [_unstarred(element) for element in caught.elts] if type(caught) is ast.Tuple else [caught]
    return {(dotted_name(element) or "").rpartition(".")[2] for element in elements}


def _retries(loop: ast.AST) -> bool:
    """A retry loop (``for attempt in range(n)``, ``while``) that can run out.

    Moving on to the next candidate (``for url in mirrors: ... except: continue``)
    is a search, not a swallowed failure: only retries count.
    """
    if not _loop_can_end(loop):
        return False
    if isinstance(loop, _FORS):
        return type(loop.iter) is ast.Call and dotted_name(loop.iter.func) == "range"
    return True


def _successor(path: Path) -> Path | str | None:
    """The statement that runs after ``path``'s statement completes normally."""
    depth = len(path) - 1
    while depth >= 0:
        frame = path[depth]
        if frame.index + 1 < len(frame.units):
            return (*path[:depth], replace(frame, index=frame.index + 1))
        if frame.kind == "function":
            return _END
        if frame.kind == "loop" and not _retries(frame.owner):
            return None  # the next iteration runs: a retry, or the next candidate
        if frame.kind == "try" and type(frame.owner) is ast.Try and frame.owner.orelse:
            return None
        if frame.kind == "finally":
            return None  # what was pending (a return, an exception) resumes
        depth -= 1
    return None


def _changes_nothing(unit: ast.AST) -> bool:
    """``pass`` and logging calls: what may sit between a clause and its return."""
    if type(unit) is ast.Pass:
        return True
    if not isinstance(unit, ast.Expr):
        return False
    value = unit.value.value if isinstance(unit.value, ast.Await) else unit.value
    if not isinstance(value, ast.Call):
        return False
    name = (dotted_name(value.func) or "").lower()
    if name.rpartition(".")[2] in MUTATORS:
        return False  # `warnings.append(f"Failed to fetch ...: {exc}")`: recorded for the answer
    return any(word in _LOG_WORDS for word in name.split("."))


# -- the value a local holds on the exception's path ----------------------------------
_UNKNOWN = object()


def _local_values(path: Path) -> LocalValue:
    """The value a local holds at ``path`` (before its statement), if it can be told."""

    def local_value(name: str) -> ast.expr | None:
        found = _value_before(name, path)
        return found if isinstance(found, ast.expr) else None

    return local_value


def _value_before(name: str, path: Path) -> object:
    for depth in range(len(path) - 1, -1, -1):
        frame = path[depth]
        for unit in reversed(frame.units[: frame.index]):
            effect = _effect_on(unit, name)
            if effect is not None:
                return effect
        if frame.kind == "loop" and _touches(frame.owner, name):
            return _UNKNOWN  # a value carried over from an earlier iteration
        # Crossing from a clause to its `try`: the body failed somewhere, after filling the local?
        if frame.kind == "handler" and isinstance(frame.owner, _TRIES) and not _try_body_keeps(frame.owner.body, name):
            return _UNKNOWN
    return _UNKNOWN  # a parameter, a global, or bound where it cannot be told


def _effect_on(unit: ast.AST, name: str) -> object:
    """The value ``unit`` binds to ``name``, ``_UNKNOWN`` if it changes it otherwise, None if neither."""
    if isinstance(unit, ast.Assign) and not _mutates(unit, name):
        if any(name_text(target) == name for target in unit.targets):
            return unit.value
    if isinstance(unit, ast.AnnAssign) and name_text(unit.target) == name:
        return unit.value  # None for a bare annotation: neither
    return _UNKNOWN if _touches(unit, name) else None


def _try_body_keeps(units: Sequence[ast.stmt], name: str) -> bool:
    """Whether a local keeps its pre-``try`` value when the body fails.

    The body may assign it once, last (``results = search(q)``, also inside a
    ``with``), followed only by logging or a jump: the call failed, so the
    assignment never happened. Anything else may have filled it before the failure.
    """
    touching = [index for index, unit in enumerate(units) if _touches(unit, name)]
    if not touching:
        return True
    if len(touching) > 1:
        return False
    unit, rest = units[touching[0]], units[touching[0] + 1 :]
    if not all(_changes_nothing(u) or type(u) in (ast.Return, ast.Break, ast.Continue) for u in rest):
        return False
    if isinstance(unit, _WITHS):
        return _try_body_keeps(unit.body, name)
    return type(unit) in (ast.Assign, ast.AnnAssign) and not _mutates(unit, name)


def _touches(root: ast.AST, name: str) -> bool:
    """``root`` binds ``name`` or changes what it holds (an import binds it only with ``as``, as
    LibCST's ``AsName`` does)."""
    for node in own_nodes(root):
        if isinstance(node, ast.Call):
            if _receiver(node) == name:
                return True
        elif isinstance(node, ast.Assign):
            if _mutates(node, name) or any(_binds(target, name) for target in node.targets):
                return True
        elif isinstance(node, ast.AugAssign):
            if _root_name(node.target) == name or _binds(node.target, name):
                return True
        elif isinstance(node, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
            if _binds(node.target, name):
                return True
        elif isinstance(node, ast.withitem):
            if node.optional_vars is not None and _binds(node.optional_vars, name):
                return True
        elif isinstance(node, ast.ExceptHandler):
            if node.name == name and node.type is not None:
                return True
        elif isinstance(node, ast.alias):
            if node.asname == name:
                return True
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            if name in node.names:
                return True
        elif isinstance(node, ast.Delete):
            if any(_binds(target, name) for target in node.targets):
                return True
    return False


def _binds(target: ast.expr, name: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds(element, name) for element in target.elts)
    if isinstance(target, ast.Starred):
        return _binds(target.value, name)
    return False


def _mutates(node: ast.AST, name: str) -> bool:
    """``name.append(...)``, ``name[k] = v``, ``name.x = v``, ``name += ...``."""
    if isinstance(node, ast.Call):
        return _receiver(node) == name
    if isinstance(node, ast.AugAssign):
        return _root_name(node.target) == name
    if isinstance(node, ast.Assign):
        return any(isinstance(target, (ast.Subscript, ast.Attribute)) and _root_name(target) == name for target in node.targets)
    return False


def _root_name(expression: ast.expr) -> str | None:
    while isinstance(expression, (ast.Subscript, ast.Attribute)):
        expression = expression.value
    return name_text(expression)
