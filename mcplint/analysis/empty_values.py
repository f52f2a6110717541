"""Empty-looking values, and the ones an ``except`` clause hands back.

An ``except`` clause that swallows an error ends in a ``return``: one inside
the clause, or the first one after it when the clause falls through (after
``pass``, ``continue``, ``break`` or only logging), or the end of the function
(an implicit ``None``). MCP005 asks whether that value looks like an empty
success: ``[]``, ``{}``, ``()``, ``set()``, ``None``, ``""``, ``0``, ``False``, a
dict whose values are all empty (``{"items": [], "total": 0}``), a model built
from nothing (``SearchResults()``, ``Page(items=[])``). A returned local counts by
the value it holds on the exception's path (``results = []`` before the
``try``, when nothing in between may have filled it).

Only the statements of one function are read (nested functions are their own
functions), so the analysis works the same wherever the function is defined.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import cast

import libcst as cst

from mcplint.analysis.imports import dotted_name
from mcplint.analysis.walk import own_nodes as _own_nodes  # reads the fields directly: `CSTNode.children` is slow

EMPTY_CONSTRUCTORS = frozenset({"list", "dict", "set", "tuple", "frozenset", "str"})
EMPTY_TEXTS = frozenset({"", "[]", "{}", "null"})
RESULT_SUFFIXES = ("Result", "Results", "Response", "List", "Page")
JSON_SERIALISERS = frozenset({"json.dumps", "orjson.dumps", "ujson.dumps", "simplejson.dumps"})
# Methods that fill a container in place: a local they are called on may not be empty any more.
MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "appendleft", "extendleft"})
# Statements between an `except` and the `return` it falls through to that change nothing.
_LOG_WORDS = ("log", "logger", "logging", "print", "traceback", "warnings", "ctx", "context")

LocalValue = Callable[[str], "cst.BaseExpression | None"]


@dataclass(frozen=True)
class Known:
    """What the function around a value tells about it.

    ``echoes`` are its parameters: a dict that only repeats the request around an
    empty payload (``{"path": path, "offset": offset, "data": ""}``) says "nothing
    there" as much as ``{"data": ""}`` does. ``builders`` name the module's functions
    that build an empty answer (``def _empty_response(reason): return {"items": [],
    "message": reason}``): a call of one is that empty answer."""

    echoes: frozenset[str] = frozenset()
    builders: frozenset[str] = frozenset()


NOTHING_KNOWN = Known()


def is_empty_value(
    expression: cst.BaseExpression | None,
    local_value: LocalValue = lambda name: None,
    known: Known = NOTHING_KNOWN,
) -> bool:
    """Whether a returned value looks like an empty success (``None`` for a bare ``return``)."""
    if expression is None:
        return True
    if isinstance(expression, cst.Name):
        if expression.value in ("None", "False"):
            return True
        value = local_value(expression.value)
        return value is not None and is_empty_value(value)
    if isinstance(expression, (cst.Integer, cst.Float)):
        return expression.evaluated_value == 0
    if isinstance(expression, (cst.SimpleString, cst.ConcatenatedString)):
        text = expression.evaluated_value
        return isinstance(text, str) and text in EMPTY_TEXTS
    if isinstance(expression, (cst.List, cst.Set)):
        return not expression.elements
    if isinstance(expression, cst.Tuple):
        # `()`, `[], None` (rows and their count): empty when every part is and one is an empty
        # collection or text; `None, None` says "unknown", not "nothing there".
        parts = [element.value for element in expression.elements]
        return not parts or (
            all(is_empty_value(part, local_value, known) for part in parts)
            and any(isinstance(part, (cst.List, cst.Dict, cst.Set, cst.SimpleString)) for part in parts)
        )
    if isinstance(expression, cst.Dict):
        return _is_empty_dict(expression, local_value, known.echoes)
    if isinstance(expression, cst.Call):
        return _is_empty_call(expression, local_value, known)
    return False


def _is_empty_dict(dictionary: cst.Dict, local_value: LocalValue, echoes: frozenset[str]) -> bool:
    payload = []
    for element in dictionary.elements:
        if not isinstance(element, cst.DictElement):
            return False  # `**other`
        value = element.value
        if isinstance(value, cst.Name) and value.value in echoes:
            continue
        payload.append(value)
    if len(payload) < len(dictionary.elements) and not payload:
        return False  # only the request, repeated: nothing claims to be a result
    return all(is_empty_value(value, local_value) for value in payload)


def _is_empty_call(call: cst.Call, local_value: LocalValue, known: Known) -> bool:
    name = dotted_name(call.func) or ""
    arguments = [arg for arg in call.args if not arg.star]
    if len(arguments) != len(call.args):
        return False
    if name in EMPTY_CONSTRUCTORS:
        return not arguments
    if name == "len" and len(arguments) == 1:  # `len(results)` of an empty local
        return is_empty_value(arguments[0].value, local_value) and isinstance(arguments[0].value, cst.Name)
    if name.rpartition(".")[2] in known.builders and (name.count(".") == 0 or name.startswith(("self.", "cls."))):
        return True  # `return self._empty_response(str(e))`
    if name in JSON_SERIALISERS and arguments:
        return is_empty_value(arguments[0].value, local_value, known)
    # A model built from nothing: `SearchResults()`, `Page(items=[], total=0)`. Other classes
    # called without arguments (`boto3.Session()`) are objects, not results.
    tail = name.rpartition(".")[2]
    if not tail[:1].isupper() or tail.endswith(("Error", "Exception")):
        return False
    if not arguments:
        return tail.endswith(RESULT_SUFFIXES)
    return all(arg.keyword is not None and is_empty_value(arg.value, local_value) for arg in arguments)


def emptiness_tested(test: cst.BaseExpression) -> str | None:
    """The local a test asks "is it empty?" of: `not x`, `x is None`, `len(x) == 0`, `x == []`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        if isinstance(inner, cst.Call) and dotted_name(inner.func) == "len" and len(inner.args) == 1:
            inner = inner.args[0].value
        return inner.value if isinstance(inner, cst.Name) else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left, target = test.left, test.comparisons[0]
        if isinstance(left, cst.Call) and dotted_name(left.func) == "len" and len(left.args) == 1:
            left = left.args[0].value
            empty = isinstance(target.comparator, cst.Integer) and target.comparator.value == "0"
        else:
            empty = is_empty_value(target.comparator) and not isinstance(target.comparator, cst.Integer)
        if isinstance(left, cst.Name) and isinstance(target.operator, (cst.Is, cst.Equal)) and empty:
            return left.value
    return None


def empty_builders(functions: Iterable[cst.FunctionDef]) -> frozenset[str]:
    """Functions whose every ``return`` builds an empty answer: a dict, list or model of
    empty values, its own parameters echoed (``{"warnings": [], "message": reason}``)."""
    found = set()
    for function in functions:
        values = [node.value for node in own_nodes(function.body) if type(node) is cst.Return]
        if not values or any(not isinstance(value, (cst.Dict, cst.List, cst.Call)) for value in values):
            continue
        known = Known(_parameters(function))
        if all(is_empty_value(value, known=known) for value in values):
            found.add(function.name.value)
    return frozenset(found)


def returns_values(function: cst.FunctionDef) -> bool:
    """Whether some ``return`` of the function hands back something other than ``None``."""
    return any(
        type(node) is cst.Return
        and node.value is not None
        and not is_none_literal(node.value)
        for node in own_nodes(function.body)
    )


def is_generator(function: cst.FunctionDef) -> bool:
    return any(type(node) is cst.Yield for node in own_nodes(function.body))


def added_to(node: cst.CSTNode) -> cst.Name | None:
    """The local a call adds to with a container's adder (`rows` in `rows.append(x)`)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in MUTATORS:
        receiver = node.func.value
        return receiver if isinstance(receiver, cst.Name) else None
    return None


def is_none_literal(expression: cst.BaseExpression) -> bool:
    """`None` written out."""
    return isinstance(expression, cst.Name) and expression.value == "None"


def own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under ``root`` that belongs to the same function (nested scopes skipped)."""
    return _own_nodes(root)


# -- where an except clause ends ------------------------------------------------------
@dataclass(frozen=True)
class Frame:
    """One statement position: ``units[index]`` in a block of kind ``kind`` of ``owner``."""

    units: Sequence[cst.CSTNode]
    index: int
    kind: str  # "function", "loop" (a loop body), "try" (a try body), "handler", "finally", "block"
    owner: cst.CSTNode  # the compound statement the block belongs to (the Try for a handler)


Path = tuple[Frame, ...]
_END = "end"  # falls off the end of the function


@dataclass(frozen=True)
class ClauseReturn:
    """A ``return`` an except clause ends in, and whether its value looks empty."""

    handler: cst.ExceptHandler
    try_node: cst.Try
    in_loop: bool  # the try sits in a loop of the same function
    return_node: cst.Return | None  # None: the clause falls off the end of the function
    falls_through: bool  # the return follows the clause instead of being inside it
    empty: bool
    left_empty: str | None = None  # what the clause leaves empty (`rows`, `refs["shared"]`), carried by that return


def clause_returns(
    function: cst.FunctionDef, exits: frozenset[str] = frozenset(), builders: frozenset[str] = frozenset()
) -> Iterator[ClauseReturn]:
    """For each ``except`` clause of the function: the returns it ends in.

    ``exits`` names functions that never return (they always raise): a clause
    ending in a call of one does not fall through. A ``try`` around logging
    only (``try: await ctx.warning(...) except: pass``) is not a fallback.
    """
    tries = [
        (unit, path)
        for unit, path in _units_with_paths(units_of(function.body), (), "function", function)
        if isinstance(unit, cst.Try) and not all(_changes_nothing(u) for u in units_of(unit.body))
    ]
    direct = [
        (unit, path, handler, list(_returns_in(unit, handler, path)))
        for unit, path in tries
        for handler in unit.handlers
    ]
    # A clause nested in another clause falls into that one's own `return`: it is that clause's outcome.
    own_returns = {returned for *_, returns in direct for returned, _ in returns}
    known = Known(_parameters(function), builders)
    for unit, path, handler, returns in direct:
        base = ClauseReturn(handler, unit, any(frame.kind == "loop" for frame in path), None, False, False)
        for returned, return_path in returns:
            yield replace(base, return_node=returned, empty=is_empty_value(returned.value, _local_values(return_path), known))
        body = units_of(handler.body)
        exit_path = _fallthrough_return(_ending(body, exits), path, _gives_up(path, unit, handler))
        if exit_path == _END:
            yield replace(base, falls_through=True, empty=True)
        elif isinstance(exit_path, tuple):
            fallen_into = exit_path[-1].units[exit_path[-1].index]
            assert isinstance(fallen_into, cst.Return)
            returned = fallen_into
            if returned not in own_returns:
                end_of_clause = (*path, Frame(body, len(body), "handler", unit))
                empty = is_empty_value(returned.value, _local_values(end_of_clause), known)
                yield replace(base, return_node=returned, falls_through=True, empty=empty)


def clauses_leaving_empty(function: cst.FunctionDef, exits: frozenset[str] = frozenset()) -> Iterator[ClauseReturn]:
    """``except`` clauses that only log (or set a local to an empty value) and go on, where a
    local the ``try`` was to fill is still empty (``rows = []`` before it, or emptied by the
    clause) and a later ``return`` carries it into the answer (``{"rows": rows, ...}``).

    The answer then reports the failed part as "nothing there" (one result per clause)."""
    returns = [node for node in own_nodes(function.body) if type(node) is cst.Return and node.value is not None]
    if not returns:
        return
    coalesced = _coalesced_locals(function)
    carriers: dict[str, list[str]] = {}  # per local: asked again for each clause that empties it

    def carriers_of(name: str) -> list[str]:
        if name not in carriers:
            carriers[name] = _carriers(function, name)
        return carriers[name]

    for unit, path in _units_with_paths(units_of(function.body), (), "function", function):
        if not isinstance(unit, cst.Try):
            continue
        inside = {id(node) for node in own_nodes(unit)}
        later = [node for node in returns if id(node) not in inside]
        if not later:
            continue
        if not _calls_out(unit.body):
            continue  # a defensive read of what is at hand (`(response.text or "")[:600]`)
        filled = _filled_locals(units_of(unit.body))
        for handler in unit.handlers:
            body = units_of(handler.body)
            emptied = _emptied_locals(body, coalesced)
            if emptied is None or _ending(body, exits) is not None:
                continue  # the clause does something, or leaves by a jump of its own
            candidates: dict[str, str] = dict(emptied)  # local: what is shown as left empty
            for name in filled:
                before = _value_before(name, path)
                if not isinstance(before, cst.BaseExpression) or not _says_none_exist(before):
                    continue
                # Failed before it was filled: assigned once, last (`rows = fetch()`), or only
                # added to (`rows.append(...)` over what was fetched).
                if _try_body_keeps(units_of(unit.body), name) or _only_added_to(unit.body, name):
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
                yield ClauseReturn(handler, unit, in_loop, carried[1], True, True, candidates[carried[0]])


# Calls that only reshape a value at hand: a `try` making no other call depends on nothing.
_RESHAPING = frozenset(
    {"str", "int", "float", "bool", "len", "getattr", "get", "strip", "lower", "upper", "split", "join", "replace", "items", "keys", "values"}
)


def _calls_out(root: cst.CSTNode) -> bool:
    for node in own_nodes(root):
        if isinstance(node, cst.Await):
            return True
        if isinstance(node, cst.Call):
            func = node.func
            name = func.attr.value if isinstance(func, cst.Attribute) else dotted_name(func)
            if name not in _RESHAPING:
                return True
    return False


def _filled_locals(units: Sequence[cst.CSTNode]) -> list[str]:
    """Locals a ``try`` body assigns or fills (``rows = fetch()``, ``rows.append(...)``)."""
    names: list[str] = []
    for unit in units:
        for node in own_nodes(unit):
            if isinstance(node, cst.Assign):
                names.extend(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
            elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
                names.append(node.target.value)
            elif (receiver := added_to(node)) is not None:
                names.append(receiver.value)
    return list(dict.fromkeys(names))


def _coalesced_locals(function: cst.FunctionDef) -> frozenset[str]:
    """Locals the function reads as an empty value when they are None (`(commit or {}).get(...)`)."""
    return frozenset(
        node.left.value
        for node in own_nodes(function.body)
        if type(node) is cst.BooleanOperation
        and type(node.operator) is cst.Or
        and type(node.left) is cst.Name
        and _says_none_exist(node.right)
    )


def _emptied_locals(units: Sequence[cst.CSTNode], coalesced: frozenset[str] = frozenset()) -> list[tuple[str, str]] | None:
    """The locals a clause sets to an empty value (``rows = []``, ``refs["shared"] = []``,
    ``text = text or ""``) when that and logging is all it does; None when it does more.
    A local set to None counts where the function reads its None as empty (``coalesced``)."""
    names = []
    for unit in units:
        if _changes_nothing(unit):
            continue
        if not isinstance(unit, cst.Assign) or len(unit.targets) != 1:
            return None
        value = unit.value
        if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
            value = value.right  # `contents = contents or ""`
        name = _root_name(unit.targets[0].target)
        if name is None or not is_empty_value(value):
            return None
        # `None`, `0`, `False` in a field say "unknown", not "none" (unless read as "none" later).
        if _says_none_exist(value) or (name in coalesced and is_none_literal(value)):
            names.append((name, cst.Module(body=[]).code_for_node(unit.targets[0].target)))
    return names


def _says_none_exist(value: cst.BaseExpression) -> bool:
    """An empty collection or text (`[]`, `{}`, `""`, `list()`): "there are none"."""
    if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.Tuple, cst.SimpleString, cst.Call)):
        return is_empty_value(value)
    return False


def _only_added_to(root: cst.CSTNode, name: str) -> bool:
    touching = [node for node in own_nodes(root) if _mutates(node, name)]
    return bool(touching) and all(isinstance(node, cst.Call) for node in touching) and not any(
        isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and _touches(node, name) for node in own_nodes(root)
    )


_NOT_CARRYING = frozenset({"len", "bool", "isinstance", "type", "id"})


_CONTAINERS = (cst.Dict, cst.List, cst.Tuple, cst.Set)


def _carriers(function: cst.FunctionDef, name: str) -> list[str]:
    """The local and the collections that take it in (`files.append({"last_commit": commit})`,
    `entry = {"commit": commit}`; `files.append(entry)`): an answer carrying one carries it."""
    found = [name]
    for carried in found:
        if len(found) > 8:
            break
        for node in own_nodes(function.body):
            targets: list[str] = []
            receiver = added_to(node)
            if receiver is not None:
                if any(_carries(arg.value, carried) for arg in cast(cst.Call, node).args):
                    targets.append(receiver.value)
            elif isinstance(node, cst.Assign) and len(node.targets) == 1 and _carries(node.value, carried):
                assigned: cst.BaseExpression = node.targets[0].target
                if isinstance(assigned, cst.Subscript):
                    assigned = assigned.value  # `by_path[path] = commit`
                elif not isinstance(node.value, _CONTAINERS) and not _library_transform(node.value):
                    continue  # `parsed = parse(payload)`: the project's function may answer the emptiness
                if isinstance(assigned, cst.Name):
                    targets.append(assigned.value)
            elif isinstance(node, cst.For) and _carries(node.iter, carried):
                # `for m in found: results.append(...)`: what the loop fills comes from it.
                targets.extend(adder.value for inner in own_nodes(node.body) if (adder := added_to(inner)) is not None)
            found.extend(target for target in dict.fromkeys(targets) if target not in found)
    return found


# Builtins that hand a value on reshaped: `list(regex.finditer(contents))` is still its content.
_RESHAPING_BUILTINS = frozenset({"list", "tuple", "set", "sorted", "reversed", "enumerate", "zip", "dict", "filter", "map"})


def _library_transform(value: cst.BaseExpression) -> bool:
    """A builtin or a method of a value at hand (`list(...)`, `regex.finditer(text)`,
    `text.splitlines()`), not a function of the project's that may check what it is given."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    if isinstance(func, cst.Name):
        return func.value in _RESHAPING_BUILTINS
    return isinstance(func, cst.Attribute) and not (isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"))


def _carries(expression: cst.BaseExpression, name: str) -> bool:
    """The expression hands the local on as a value of the answer: itself, a dict value, an
    argument (`json.dumps({"rows": rows})`, `Page(rows=rows)`), an element, a branch of an `if`
    expression, a slice (`rows[:limit]`); not a projection of it (`rows[0]`, `len(rows)`,
    `rows.get(...)`)."""
    pending = [expression]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Name):
            if node.value == name:
                return True
        elif isinstance(node, cst.Await):
            pending.append(node.expression)
        elif isinstance(node, cst.Dict):
            pending.extend(e.value for e in node.elements if isinstance(e, (cst.DictElement, cst.StarredDictElement)))
        elif isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            pending.extend(e.value for e in node.elements)
        elif isinstance(node, cst.IfExp):
            pending.extend((node.body, node.orelse))
        elif isinstance(node, cst.Subscript) and all(isinstance(e.slice, cst.Slice) for e in node.slice):
            pending.append(node.value)  # `rows[:limit]`: still the rows
        elif isinstance(node, cst.Call):
            if (dotted_name(node.func) or "") not in _NOT_CARRYING:
                pending.extend(arg.value for arg in node.args)
    return False


def _parameters(function: cst.FunctionDef) -> frozenset[str]:
    params = function.params
    every = (*params.posonly_params, *params.params, *params.kwonly_params)
    return frozenset(param.name.value for param in every if param.name.value not in ("self", "cls"))


def never_returns(function: cst.FunctionDef) -> bool:
    """Annotated ``NoReturn``/``Never``, or every path of the body raises."""
    returns = dotted_name(function.returns.annotation) if function.returns is not None else None
    if returns is not None and returns.rpartition(".")[2] in ("NoReturn", "Never"):
        return True
    return _ending(units_of(function.body), frozenset()) == "raise"


def units_of(suite: cst.BaseSuite) -> list[cst.CSTNode]:
    """A block's statements, with simple statements split (``a = 1; return a`` is two)."""
    if type(suite) is cst.SimpleStatementSuite:
        return list(suite.body)
    units: list[cst.CSTNode] = []
    for statement in suite.body:
        units.extend(statement.body if type(statement) is cst.SimpleStatementLine else (statement,))
    return units


def _child_blocks(unit: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode, list[cst.CSTNode]]]:
    """(kind, owner, units) of the blocks directly inside a compound statement."""
    if isinstance(unit, cst.If):
        yield "block", unit, units_of(unit.body)
        if isinstance(unit.orelse, cst.If):  # `elif`: finishing it finishes the outer `if`
            yield "block", unit, [unit.orelse]
        elif unit.orelse is not None:
            yield "block", unit, units_of(unit.orelse.body)
    elif isinstance(unit, (cst.For, cst.While)):
        yield "loop", unit, units_of(unit.body)
        if unit.orelse is not None:
            yield "block", unit, units_of(unit.orelse.body)
    elif isinstance(unit, (cst.Try, cst.TryStar)):
        yield "try", unit, units_of(unit.body)
        for handler in unit.handlers:
            yield "handler", unit, units_of(handler.body)
        if unit.orelse is not None:
            yield "block", unit, units_of(unit.orelse.body)
        if unit.finalbody is not None:
            yield "finally", unit, units_of(unit.finalbody.body)
    elif isinstance(unit, cst.With):
        yield "block", unit, units_of(unit.body)
    elif isinstance(unit, cst.Match):
        for case in unit.cases:
            yield "block", unit, units_of(case.body)


def _units_with_paths(
    units: Sequence[cst.CSTNode], path: Path, kind: str, owner: cst.CSTNode
) -> Iterator[tuple[cst.CSTNode, Path]]:
    for index, unit in enumerate(units):
        unit_path = (*path, Frame(units, index, kind, owner))
        yield unit, unit_path
        for child_kind, child_owner, child_units in _child_blocks(unit):
            yield from _units_with_paths(child_units, unit_path, child_kind, child_owner)


def _returns_in(try_node: cst.Try, handler: cst.ExceptHandler, try_path: Path) -> list[tuple[cst.Return, Path]]:
    """The clause's own returns; those of a nested clause belong to that clause."""
    found = []
    for unit, path in _units_with_paths(units_of(handler.body), try_path, "handler", try_node):
        nested_clause = any(frame.kind == "handler" for frame in path[len(try_path) + 1 :])
        if isinstance(unit, cst.Return) and not nested_clause:
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
        if isinstance(unit, cst.Return):
            return successor
        if not _changes_nothing(unit):
            return None
        successor = _successor(successor)
    return successor


def _ending(units: Sequence[cst.CSTNode], exits: frozenset[str]) -> str | None:
    """How a block ends for sure: "return", "raise", "continue", "break", or None (it may go on)."""
    if not units:
        return None
    last = units[-1]
    for node_type, ending in _ENDINGS:
        if isinstance(last, node_type):
            return ending
    if isinstance(last, cst.Expr) and _exits(last.value, exits):
        return "raise"
    if isinstance(last, cst.With):
        return _ending(units_of(last.body), exits)
    branches: list[Sequence[cst.CSTNode]] = []
    if isinstance(last, cst.If) and last.orelse is not None:
        otherwise = [last.orelse] if isinstance(last.orelse, cst.If) else units_of(last.orelse.body)
        branches = [units_of(last.body), otherwise]
    elif isinstance(last, cst.Try) and last.handlers:
        if last.finalbody is not None and _ending(units_of(last.finalbody.body), exits) is not None:
            return _ending(units_of(last.finalbody.body), exits)
        completed = last.orelse.body if last.orelse is not None else last.body
        branches = [units_of(completed), *(units_of(handler.body) for handler in last.handlers)]
    if not branches:
        return None
    endings = {_ending(branch, exits) for branch in branches}
    if None in endings:
        return None
    # Some branches go on with the loop: that is where the clause may lead.
    return next((e for e in ("continue", "break") if e in endings), "return" if "return" in endings else "raise")


_ENDINGS = ((cst.Return, "return"), (cst.Raise, "raise"), (cst.Continue, "continue"), (cst.Break, "break"))
EXIT_CALLS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})


def _exits(expression: cst.BaseExpression, exits: frozenset[str]) -> bool:
    call = expression.expression if isinstance(expression, cst.Await) else expression
    if not isinstance(call, cst.Call):
        return False
    name = dotted_name(call.func) or ""
    return name in EXIT_CALLS or name.rpartition(".")[2] in exits


def _loop_can_end(loop: cst.CSTNode) -> bool:
    """A loop that ends by running out, not only by ``break`` (``while True`` does not)."""
    if isinstance(loop, (cst.For, cst.While)) and loop.orelse is not None:
        return False  # the `else` block runs first; not followed
    return not (isinstance(loop, cst.While) and isinstance(loop.test, cst.Name) and loop.test.value == "True")


# What a candidate that is not there, or not in the expected form, raises (a config file in the
# next directory, a date in the next format): the loop goes on searching, nothing failed.
_ABSENT_OR_MALFORMED = frozenset(
    {
        "FileNotFoundError", "NotADirectoryError", "IsADirectoryError", "PermissionError", "KeyError", "IndexError",
        "LookupError", "ImportError", "ModuleNotFoundError", "AttributeError", "StopIteration", "ValueError",
        "TypeError", "JSONDecodeError", "UnicodeDecodeError", "UnicodeError", "NotImplementedError",
    }
)


def _gives_up(try_path: Path, try_node: cst.Try, handler: cst.ExceptHandler) -> bool:
    """A loop over candidates (`for endpoint in ENDPOINTS:`) whose `try` returns the first
    answer, the clause catching a failure (a request error, any exception), not a candidate's
    absence or form: what follows the loop runs only when every candidate failed."""
    loops = [frame.owner for frame in try_path if frame.kind == "loop"]
    if not loops or not isinstance(loops[-1], cst.For) or loops[-1].orelse is not None:
        return False
    caught = {"BaseException"} if handler.type is None else caught_names(handler.type)
    if caught & _ABSENT_OR_MALFORMED:
        return False
    return any(isinstance(node, cst.Return) for node in own_nodes(try_node.body))


def caught_names(caught: cst.BaseExpression) -> set[str]:
    """The classes an `except` names, by their last part."""
    elements = [element.value for element in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return {(dotted_name(element) or "").rpartition(".")[2] for element in elements}


def _retries(loop: cst.CSTNode) -> bool:
    """A retry loop (``for attempt in range(n)``, ``while``) that can run out.

    Moving on to the next candidate (``for url in mirrors: ... except: continue``)
    is a search, not a swallowed failure: only retries count.
    """
    if not _loop_can_end(loop):
        return False
    if isinstance(loop, cst.For):
        return isinstance(loop.iter, cst.Call) and dotted_name(loop.iter.func) == "range"
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
        if frame.kind == "try" and isinstance(frame.owner, cst.Try) and frame.owner.orelse is not None:
            return None
        if frame.kind == "finally":
            return None  # what was pending (a return, an exception) resumes
        depth -= 1
    return None


def _changes_nothing(unit: cst.CSTNode) -> bool:
    """``pass`` and logging calls: what may sit between a clause and its return."""
    if isinstance(unit, cst.Pass):
        return True
    if not isinstance(unit, cst.Expr):
        return False
    value = unit.value.expression if isinstance(unit.value, cst.Await) else unit.value
    if not isinstance(value, cst.Call):
        return False
    name = (dotted_name(value.func) or "").lower()
    if name.rpartition(".")[2] in MUTATORS:
        return False  # `warnings.append(f"Failed to fetch ...: {exc}")`: recorded for the answer
    return any(word in _LOG_WORDS for word in name.split("."))


# -- the value a local holds on the exception's path ----------------------------------
_UNKNOWN = object()


def _local_values(path: Path) -> LocalValue:
    """The value a local holds at ``path`` (before its statement), if it can be told."""

    def local_value(name: str) -> cst.BaseExpression | None:
        found = _value_before(name, path)
        return found if isinstance(found, cst.BaseExpression) else None

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
        if frame.kind == "handler" and isinstance(frame.owner, (cst.Try, cst.TryStar)) and not _try_body_keeps(units_of(frame.owner.body), name):
            return _UNKNOWN
    return _UNKNOWN  # a parameter, a global, or bound where it cannot be told


def _effect_on(unit: cst.CSTNode, name: str) -> object:
    """The value ``unit`` binds to ``name``, ``_UNKNOWN`` if it changes it otherwise, None if neither."""
    if isinstance(unit, cst.Assign) and not _mutates(unit, name):
        targets = [target.target for target in unit.targets]
        if any(isinstance(target, cst.Name) and target.value == name for target in targets):
            return unit.value
    if isinstance(unit, cst.AnnAssign) and isinstance(unit.target, cst.Name) and unit.target.value == name:
        return unit.value if unit.value is not None else None
    return _UNKNOWN if _touches(unit, name) else None


def _try_body_keeps(units: Sequence[cst.CSTNode], name: str) -> bool:
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
    if not all(_changes_nothing(u) or isinstance(u, (cst.Return, cst.Break, cst.Continue)) for u in rest):
        return False
    if isinstance(unit, cst.With):
        return _try_body_keeps(units_of(unit.body), name)
    return isinstance(unit, (cst.Assign, cst.AnnAssign)) and not _mutates(unit, name)


_CONTAINER_PARTS = frozenset({cst.Subscript, cst.Attribute})
_BINDINGS = frozenset({cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr})


def _touches(root: cst.CSTNode, name: str) -> bool:
    """``root`` binds ``name`` or changes what it holds."""
    for node in own_nodes(root):
        if _mutates(node, name):
            return True
        if type(node) in _BINDINGS:
            assert isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr))
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(_binds(target, name) for target in targets):
                return True
        if isinstance(node, cst.AsName) and _binds(node.name, name):
            return True
        if isinstance(node, (cst.Global, cst.Nonlocal)) and any(item.name.value == name for item in node.names):
            return True
        if isinstance(node, cst.Del) and _binds(node.target, name):
            return True
    return False


def _binds(target: cst.BaseExpression, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(element.value, name) for element in target.elements)
    if isinstance(target, cst.StarredElement):
        return _binds(target.value, name)
    return False


def _mutates(node: cst.CSTNode, name: str) -> bool:
    """``name.append(...)``, ``name[k] = v``, ``name.x = v``, ``name += ...``."""
    # Asked of every node of a block (``_touches``): classes compared, not isinstance-checked.
    if type(node) is cst.Call:
        receiver = added_to(node)
        return receiver is not None and receiver.value == name
    if type(node) is cst.AugAssign:
        return _root_name(node.target) == name
    if type(node) is cst.Assign:
        return any(
            type(target.target) in _CONTAINER_PARTS and _root_name(target.target) == name
            for target in node.targets
        )
    return False


def _root_name(expression: cst.BaseExpression) -> str | None:
    while isinstance(expression, (cst.Subscript, cst.Attribute)):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else None
