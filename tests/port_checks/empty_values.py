"""``empty_values_ast`` against ``empty_values``.

Nodes the original answers with (a ``ClauseReturn``'s clause, `try` and `return`, the name
``added_to`` finds, a value a local holds, the statements of a block and the owners of a path's
frames) are mapped to the `ast` nodes they were built from. A block has no node of its own in
`ast` (LibCST's ``IndentedBlock``, ``Else``, ``Finally``): a block is compared as the statements
it holds, a frame as (its statements, index, kind, owner). ``local_value`` callbacks answer,
in LibCST's tree, the value last assigned to a name anywhere in the module; the twin's, the
`ast` expression that value was built from.

Where the trees cannot answer alike (each documented in ``empty_values_ast``): ``added_to`` of
``None.append(x)`` (a name in LibCST's tree, no local in `ast`'s) is expected to be None in
the twin. Not exempted, reported if met: an implicitly concatenated empty text (``"" ""``, one
constant in `ast`) passes for a lone string token where the original tells them apart (a tuple
``(None, "" "")``, a local set to one in a clause).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

import libcst as cst

from mcplint.analysis import empty_values as original
from mcplint.analysis import empty_values_ast as twin
from mcplint.engine.ast_pairs import PairedTree
from port_checks import where

Functions = list[tuple[cst.FunctionDef, ast.FunctionDef | ast.AsyncFunctionDef]]


def values(paired: PairedTree) -> list[str]:
    """Every expression: ``is_empty_value`` (alone, with the module's locals and with every
    parameter echoed and every function a builder), ``emptiness_tested``, ``is_none_literal``;
    every call: ``added_to``, ``_exits``; every clause: ``caught_names`` of its classes; every
    value of an assignment, a return or an expression statement: ``_says_none_exist``,
    ``_library_transform``, ``_carries``."""
    problems = []
    assigned: dict[str, cst.BaseExpression] = {}
    held: set[int] = set()  # values of assignments, returns and expression statements
    functions = _functions(paired)
    for node, _ in paired.paired_nodes:
        if isinstance(node, (cst.Assign, cst.Return, cst.Expr)) and node.value is not None:
            held.add(id(node.value))
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    assigned[target.target.value] = node.value

    def local_value(name: str) -> cst.BaseExpression | None:
        return assigned.get(name)

    def twin_local_value(name: str) -> ast.expr | None:
        value = assigned.get(name)
        return None if value is None else paired.pairs[id(value)]  # type: ignore[return-value]

    parameters = frozenset(
        param.name.value
        for function, _ in functions
        for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)
    )
    known = original.Known(parameters, frozenset(function.name.value for function, _ in functions))
    twin_known = twin.Known(known.echoes, known.builders)
    exits = frozenset(function.name.value for function, _ in functions)
    for node, made_from in paired.paired_nodes:
        if isinstance(node, cst.ExceptHandler) and node.type is not None:
            assert isinstance(made_from, ast.ExceptHandler) and made_from.type is not None
            if original.caught_names(node.type) != twin.caught_names(made_from.type):
                problems.append(f"{where(paired, made_from)}: caught_names differ")
        if not isinstance(node, cst.BaseExpression):
            continue
        assert isinstance(made_from, ast.expr)
        answers = [
            ("is_empty_value", original.is_empty_value(node), twin.is_empty_value(made_from)),
            (
                "is_empty_value with locals",
                original.is_empty_value(node, local_value, known),
                twin.is_empty_value(made_from, twin_local_value, twin_known),
            ),
            ("emptiness_tested", original.emptiness_tested(node), twin.emptiness_tested(made_from)),
            ("is_none_literal", original.is_none_literal(node), twin.is_none_literal(made_from)),
        ]
        if id(node) in held:
            answers += [
                ("_says_none_exist", original._says_none_exist(node), twin._says_none_exist(made_from)),
                ("_carries rows", original._carries(node, "rows"), twin._carries(made_from, "rows")),
                ("_carries None", original._carries(node, "None"), twin._carries(made_from, "None")),
                ("_library_transform", original._library_transform(node), twin._library_transform(made_from)),
            ]
        if isinstance(node, cst.Call):
            expected_added = original.added_to(node)
            if expected_added is not None and expected_added.value in ("None", "True", "False"):
                expected_added = None  # no local in `ast`'s tree (documented)
            answers.append(("added_to", _mapped(paired, expected_added), twin.added_to(made_from)))
            answers.append(("_exits", original._exits(node, exits), twin._exits(made_from, exits)))
        for name, expected, found in answers:
            if expected is not found and expected != found:
                problems.append(f"{where(paired, made_from)}: {name} {_shown(paired, expected)} != {_shown(paired, found)}")
    return problems


def functions(paired: PairedTree) -> list[str]:
    """Every function: ``returns_values``, ``is_generator``, ``never_returns``; the module's
    ``empty_builders``; ``clause_returns`` (with and without the module's never-returning
    functions and builders) and ``clauses_leaving_empty``, each result mapped."""
    problems = []
    functions = _functions(paired)
    expected_builders = original.empty_builders(function for function, _ in functions)
    found_builders = twin.empty_builders(
        (made_from, [node for node in twin.body_nodes(made_from.body) if type(node) is ast.Return])
        for _, made_from in functions
    )
    if expected_builders != found_builders:
        problems.append(f"empty_builders {sorted(expected_builders)} != {sorted(found_builders)}")
    expected_exits = frozenset(function.name.value for function, _ in functions if original.never_returns(function))
    found_exits = frozenset(made_from.name for _, made_from in functions if twin.never_returns(made_from))
    for function, made_from in functions:
        at = where(paired, made_from)
        for name, expected, found in (
            ("returns_values", original.returns_values(function), twin.returns_values(made_from)),
            ("is_generator", original.is_generator(function), twin.is_generator(made_from)),
            ("never_returns", original.never_returns(function), twin.never_returns(made_from)),
            ("_coalesced_locals", original._coalesced_locals(function), twin._coalesced_locals(made_from)),
        ):
            if expected != found:
                problems.append(f"{at}: {name} {expected} != {found}")
        for arguments, twin_arguments in (
            ((), ()),
            ((expected_exits, expected_builders), (found_exits, found_builders)),
        ):
            expected_returns = [_clause_return(paired, r) for r in original.clause_returns(function, *arguments)]
            found_returns = [_twin_clause_return(paired, r) for r in twin.clause_returns(made_from, *twin_arguments)]
            if expected_returns != found_returns:
                problems.append(f"{at}: clause_returns {expected_returns} != {found_returns}")
        expected_left = [_clause_return(paired, r) for r in original.clauses_leaving_empty(function, expected_exits)]
        found_left = [
            _twin_clause_return(paired, r)
            for r in twin.clauses_leaving_empty(made_from, found_exits, text=paired.text)
        ]
        if expected_left != found_left:
            problems.append(f"{at}: clauses_leaving_empty {expected_left} != {found_left}")
    return problems


def blocks(paired: PairedTree) -> list[str]:
    """Every block: ``units_of`` and ``_ending`` (with the module's functions as exits)."""
    problems = []
    exits = frozenset(function.name.value for function, _ in _functions(paired))
    for node, made_from in paired.paired_nodes:
        for suite, statements in _blocks(node, made_from):
            units = original.units_of(suite)
            at = where(paired, statements[0])
            if [id(paired.pairs.get(id(unit))) for unit in units] != [id(unit) for unit in twin.units_of(statements)]:
                problems.append(f"{at}: units_of differ")
            for ending_exits in (frozenset(), exits):
                expected, found = original._ending(units, ending_exits), twin._ending(statements, ending_exits)
                if expected != found:
                    problems.append(f"{at}: _ending {expected} != {found}")
    return problems


def paths(paired: PairedTree) -> list[str]:
    """Per function: the statements with their paths (``_units_with_paths``); at each
    `return`, the value each name it reads holds (``_value_before``); per `try` and clause:
    the locals its body fills, whether the body keeps each (``_try_body_keeps``), only adds to
    it (``_only_added_to``), what carries it (``_carriers``), whether it calls out, the locals
    the clause empties (with the target that shows each)."""
    problems = []
    for function, made_from in _functions(paired):
        at = where(paired, made_from)
        frames: dict[int, tuple[int, ...]] = {}
        carriers: set[str] = set()  # the locals whose carriers were compared (the same for every `try`)

        expected_paths = list(original._units_with_paths(original.units_of(function.body), (), "function", function))
        found_paths = list(twin._units_with_paths(made_from.body, (), "function", made_from))
        if len(expected_paths) != len(found_paths):
            problems.append(f"{at}: {len(expected_paths)} statements with paths != {len(found_paths)}")
            continue
        for (unit, path), (twin_unit, twin_path) in zip(expected_paths, found_paths, strict=True):
            if paired.pairs.get(id(unit)) is not twin_unit or [_frame(paired, frames, f) for f in path] != [
                _twin_frame(f) for f in twin_path
            ]:
                problems.append(f"{where(paired, twin_unit)}: other statement or path")
                break
            # The returns a clause may end in: its own, or one after a `try` (the last of a block).
            in_clause = any(frame.kind == "handler" for frame in path)
            last = path[-1].index == len(path[-1].units) - 1
            if isinstance(unit, cst.Return) and unit.value is not None and (in_clause or last):
                for name in sorted({n.value for n in original.own_nodes(unit.value) if isinstance(n, cst.Name)}):
                    expected = _value(paired, original._value_before(name, path))
                    found = _value(paired, twin._value_before(name, twin_path), twin=True)
                    if expected != found:
                        problems.append(f"{where(paired, twin_unit)}: value of {name} {expected} != {found}")
            if isinstance(unit, cst.Try):
                assert isinstance(twin_unit, ast.Try)
                problems.extend(_try_facts(paired, function, made_from, unit, twin_unit, path, carriers))
    return problems


def _frame(paired: PairedTree, frames: dict[int, tuple[int, ...]], frame: original.Frame) -> tuple[object, ...]:
    """(the `ast` statements, index, kind, `ast` owner) of a LibCST frame (``frames``: the
    statements of each block met, by id of LibCST's list)."""
    units = frames.get(id(frame.units))
    if units is None:
        units = frames[id(frame.units)] = tuple(id(paired.pairs.get(id(unit))) for unit in frame.units)
    return units, frame.index, frame.kind, id(paired.pairs.get(id(frame.owner)))


def _twin_frame(frame: twin.Frame) -> tuple[object, ...]:
    return tuple(id(unit) for unit in frame.units), frame.index, frame.kind, id(frame.owner)


def _try_facts(
    paired: PairedTree, function: cst.FunctionDef, made_from: ast.FunctionDef | ast.AsyncFunctionDef,
    try_node: cst.Try, twin_try: ast.Try, path: original.Path, carriers: set[str],
) -> Iterator[str]:  # fmt: skip
    at = where(paired, twin_try)
    units = original.units_of(try_node.body)
    if original._calls_out(try_node.body) != twin._calls_out(twin_try.body):
        yield f"{at}: _calls_out differs"
    filled = original._filled_locals(units)
    if filled != twin._filled_locals(twin_try.body):
        yield f"{at}: _filled_locals {filled} != {twin._filled_locals(twin_try.body)}"
    for name in filled:
        for fact, expected, found in (
            ("_try_body_keeps", original._try_body_keeps(units, name), twin._try_body_keeps(twin_try.body, name)),
            ("_only_added_to", original._only_added_to(try_node.body, name), twin._only_added_to(twin_try.body, name)),
        ):
            if expected != found:
                yield f"{at}: {fact} of {name} {expected} != {found}"
        # What carries a local matters where it held a value before the `try` (the candidates).
        if name not in carriers and isinstance(original._value_before(name, path), cst.BaseExpression):
            carriers.add(name)
            expected_carriers, found_carriers = original._carriers(function, name), twin._carriers(made_from, name)
            if expected_carriers != found_carriers:
                yield f"{at}: _carriers of {name} {expected_carriers} != {found_carriers}"
    coalesced = original._coalesced_locals(function)
    for handler, twin_handler in zip(try_node.handlers, twin_try.handlers, strict=True):
        emptied = original._emptied_locals(original.units_of(handler.body), coalesced)
        twin_emptied = twin._emptied_locals(twin_handler.body, coalesced)
        expected = None if emptied is None else [name for name, _ in emptied]
        found = None if twin_emptied is None else [name for name, _ in twin_emptied]
        if expected != found:
            yield f"{where(paired, twin_handler)}: _emptied_locals {expected} != {found}"
        elif emptied is not None and twin_emptied is not None:
            shown = [shown for _, shown in emptied]
            twin_shown = [twin._code_of(target, paired.text) for _, target in twin_emptied]
            if shown != twin_shown:
                yield f"{where(paired, twin_handler)}: emptied targets shown {shown} != {twin_shown}"


def _functions(paired: PairedTree) -> Functions:
    return [(node, made_from) for node, made_from in paired.paired_nodes if isinstance(node, cst.FunctionDef)]  # type: ignore[misc]


def _blocks(node: cst.CSTNode, made_from: ast.AST) -> Iterator[tuple[cst.BaseSuite, Sequence[ast.stmt]]]:
    """(LibCST's block, the `ast` statements it holds) of a compound statement."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.With)):
        yield node.body, made_from.body  # type: ignore[attr-defined]
    elif isinstance(node, (cst.If, cst.For, cst.While)):
        yield node.body, made_from.body  # type: ignore[attr-defined]
        if isinstance(node.orelse, cst.Else):
            yield node.orelse.body, made_from.orelse  # type: ignore[attr-defined]
    elif isinstance(node, cst.Try):
        assert isinstance(made_from, ast.Try)
        yield node.body, made_from.body
        for handler, twin_handler in zip(node.handlers, made_from.handlers, strict=True):
            yield handler.body, twin_handler.body
        if node.orelse is not None:
            yield node.orelse.body, made_from.orelse
        if node.finalbody is not None:
            yield node.finalbody.body, made_from.finalbody
    elif isinstance(node, cst.Match):
        assert isinstance(made_from, ast.Match)
        for case, twin_case in zip(node.cases, made_from.cases, strict=True):
            yield case.body, twin_case.body


def _clause_return(paired: PairedTree, outcome: original.ClauseReturn) -> tuple[object, ...]:
    return_node = None if outcome.return_node is None else paired.pairs.get(id(outcome.return_node))
    return (
        _at(paired, paired.pairs.get(id(outcome.handler))), _at(paired, paired.pairs.get(id(outcome.try_node))),
        outcome.in_loop, _at(paired, return_node), outcome.falls_through, outcome.empty, outcome.left_empty,
    )  # fmt: skip


def _twin_clause_return(paired: PairedTree, outcome: twin.ClauseReturn) -> tuple[object, ...]:
    return (
        _at(paired, outcome.handler), _at(paired, outcome.try_node), outcome.in_loop, _at(paired, outcome.return_node),
        outcome.falls_through, outcome.empty, outcome.left_empty,
    )  # fmt: skip


def _at(paired: PairedTree, node: ast.AST | None) -> str | None:
    """The node's place and identity: two nodes at one place are told apart."""
    return None if node is None else f"{type(node).__name__}@{where(paired, node)}#{id(node)}"


def _value(paired: PairedTree, value: object, twin: bool = False) -> object:
    """A value ``_value_before`` found: its `ast` node, "unknown", or None (neither)."""
    if value is None:
        return None
    if isinstance(value, (cst.CSTNode, ast.AST)):
        return _at(paired, value if twin else paired.pairs.get(id(value)))  # type: ignore[arg-type]
    return "unknown"


def _mapped(paired: PairedTree, node: cst.CSTNode | None) -> ast.AST | None:
    return None if node is None else paired.pairs.get(id(node))


def _shown(paired: PairedTree, answer: object) -> str:
    return _at(paired, answer) or "None" if isinstance(answer, ast.AST) else repr(answer)



CHECKS = [values, functions, blocks, paths]
