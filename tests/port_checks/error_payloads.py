"""``error_payloads_ast`` against ``error_payloads``.

Each public function runs on the nodes its callers give it, and more: every expression
(`string_value`, `leading_text`, `is_error_text`, `is_failure_answer`, `builds_error`,
`text_put_in_content`, `error_tested`, `answer_checked`, `error_payloads`), every dict
(`is_error_dict`), every call (`call_argument`), every expression of an `except E as e:`
clause's body (`caught_texts`), every assignment's target with its value
(`error_item_set`). LibCST's answers are mapped to `ast` by ``paired.pairs``.

The callbacks are the original's mapped: a local's values are ``LocalAssignments``'
(LibCST walk, scope tracker; all of a function's assignments), each mapped to the `ast`
node it was made from, and the element ``locals.element_of`` makes for `a, b = value`
(no node of the source) to an `ast.Subscript` of the mapped value made once for it. The
helper kinds are one function of the called name (an error helper, a pass-through, a
helper handing back a later argument, by the words of the name); the twin's is the
original's on the LibCST call its `ast` call was made from.

Nodes inside an f-string's field that the builder parsed apart (Python 3.11's positions
of them missed) pair with a tree of that field alone, not the module's: left out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

import libcst as cst

from mcplint.analysis import error_payloads as original
from mcplint.analysis import error_payloads_ast as twin
from mcplint.analysis import imports, imports_ast, walk, walk_ast
from mcplint.analysis.exception_flow import bound_name
from mcplint.analysis.locals import LocalAssignments, element_index
from mcplint.analysis.scopes import ScopeTracker
from mcplint.engine.ast_pairs import PairedTree

PACKAGE = "pkg.sub"
# (position, keyword) pairs `call_argument` is asked for on every call.
ARGUMENT_SLOTS = ((0, "text"), (1, "data"), (2, "content"), (-1, "self"), (0, ""))


class _ScopedWalker(walk.Walker):
    """The LibCST walk that also notes the function (the scope tracker's) each node is in."""

    def __init__(self, visitors: Sequence[object], scopes: ScopeTracker) -> None:
        super().__init__(visitors)
        self._scopes = scopes
        self.function_of: dict[int, str | None] = {}

    def walk(self, node: cst.CSTNode) -> None:
        function = self._scopes.current_function
        self.function_of[id(node)] = function
        for child in walk.children(node):  # a leaf the walk does not enter is in its parent's
            self.function_of.setdefault(id(child), function)
        super().walk(node)


class _Side:
    """What both sides need on one source: import tables, locals, the node mapping."""

    def __init__(self, paired: PairedTree) -> None:
        self.paired = paired
        self.table = imports.ImportTable(PACKAGE)
        scopes = ScopeTracker()
        self.locals = LocalAssignments(scopes)
        walker = _ScopedWalker([scopes, self.table, self.locals], scopes)
        walker.walk(paired.module)
        self.function_of = walker.function_of
        self.ast_table = imports_ast.AstImportTable(PACKAGE)
        walk_ast.AstWalker([self.ast_table]).walk(paired.tree)
        self.source = twin.SourceText(paired.text)
        in_tree = {id(node) for node in ast.walk(paired.tree)}
        self.expressions = [
            (node, made_from) for node, made_from in paired.paired_nodes
            if isinstance(node, cst.BaseExpression) and isinstance(made_from, ast.expr) and id(made_from) in in_tree
        ]  # fmt: skip
        self._made: dict[int, ast.expr] = {}  # id(element_of's subscript) -> its `ast` stand-in
        self._libcst_of: dict[int, cst.CSTNode] = {id(made_from): node for node, made_from in paired.paired_nodes}
        self.problems: list[str] = []

    def to_ast(self, node: cst.CSTNode | None) -> Any:
        if node is None:
            return None
        found = self.paired.pairs.get(id(node))
        if found is not None:
            return found
        made = self._made.get(id(node))
        if made is None:
            element = element_index(node) if isinstance(node, cst.BaseExpression) else None
            if element is None:
                return f"<unpaired {type(node).__name__}>"
            value = self.to_ast(element[0])
            made = ast.Subscript(value=value, slice=ast.Constant(element[1]), ctx=ast.Load())
            if isinstance(value, ast.AST):
                ast.copy_location(made, value)
            self._made[id(node)] = made
            self._libcst_of[id(made)] = node
        return made

    def libcst_of(self, node: ast.AST) -> cst.CSTNode | None:
        return self._libcst_of.get(id(node))

    def local_values(self, function: str | None) -> tuple[original.LocalValues, twin.LocalValues]:
        def libcst_values(name: str) -> Sequence[cst.BaseExpression]:
            return self.locals.values(function, name)

        def ast_values(name: str) -> Sequence[ast.expr]:
            return [self.to_ast(value) for value in self.locals.values(function, name)]

        return libcst_values, ast_values

    def helper_kinds(self) -> tuple[original.HelperKind, twin.HelperKind]:
        def libcst_kind(call: cst.Call) -> str | None:
            return _kind_by_name(imports.dotted_name(call.func) or "")

        def ast_kind(call: ast.Call) -> str | None:
            made_from = self.libcst_of(call)
            if not isinstance(made_from, cst.Call):
                self.problems.append(f"{_at(call)}: the twin asks the helper kind of a call not of the tree")
                return None
            return libcst_kind(made_from)

        return libcst_kind, ast_kind


def _kind_by_name(name: str) -> str | None:
    """A helper's kind by the words of its name: every branch of ``_call_payloads``'s."""
    last = name.rpartition(".")[2].lower()
    if "fail" in last:
        return "dict"
    if "error" in last:
        return "text"
    if "dump" in last or "json" in last or "serial" in last:
        return original.PASS_THROUGH
    if "wrap" in last or "envelope" in last:
        return original.through_kind(1, "data")
    if "format" in last or "respon" in last:
        return original.through_kind(0, "text")
    if "with" in last or "add" in last:
        return original.through_kind(2, "content")
    return None


_last: tuple[PairedTree, _Side] | None = None


def _side(paired: PairedTree) -> _Side:
    global _last
    if _last is None or _last[0] is not paired:
        _last = (paired, _Side(paired))
    _last[1].problems = []
    return _last[1]


def _answer(call: Callable[[], Any]) -> Any:
    """The answer, a generator's listed, or the exception's class where the function raised."""
    try:
        found = call()
        return list(found) if isinstance(found, Iterator) else found
    except Exception as error:  # noqa: BLE001 - a twin must raise where its original does
        return f"raises {type(error).__name__}"


def _at(node: object) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}"


def _nodes(side: _Side, found: Any) -> Any:
    """A LibCST answer as `ast` nodes (lists and payloads element by element)."""
    if isinstance(found, str | set | bool) or found is None:
        return found
    if isinstance(found, list):
        return [_nodes(side, item) for item in found]
    if isinstance(found, original.ErrorPayload):
        return (side.to_ast(found.node), found.kind)
    return side.to_ast(found)


def _same(expected: Any, found: Any) -> bool:
    if isinstance(found, twin.ErrorPayload):
        found = (found.node, found.kind)
    if isinstance(expected, tuple | list) and type(found) is type(expected):
        return len(expected) == len(found) and all(_same(a, b) for a, b in zip(expected, found, strict=True))
    if isinstance(expected, ast.AST) or isinstance(found, ast.AST):
        return expected is found
    return bool(expected == found)


# (what is compared, the original's call, the twin's): each a call of no arguments.
Pair = tuple[str, Callable[[], Any], Callable[[], Any]]


def _differences(side: _Side, at: ast.AST, pairs: list[Pair]) -> list[str]:
    problems = []
    for name, libcst_call, ast_call in pairs:
        expected = _nodes(side, _answer(libcst_call))
        found = _answer(ast_call)
        if not _same(expected, found):
            problems.append(f"{_at(at)}: {name}: {_shown(expected)} != {_shown(found)}")
    return problems


def _shown(answer: Any) -> str:
    if isinstance(answer, ast.AST):
        return f"{type(answer).__name__}@{_at(answer)}"
    if isinstance(answer, twin.ErrorPayload):
        return f"({_shown(answer.node)}, {answer.kind})"
    if isinstance(answer, list | tuple):
        return "[" + ", ".join(_shown(item) for item in answer) + "]"
    return repr(answer)


def literals(paired: PairedTree) -> list[str]:
    """The functions of one expression (and `is_error_dict` of every dict, `call_argument` of
    every call) on every expression."""
    side = _side(paired)
    source, table, ast_table = side.source, side.table, side.ast_table
    problems: list[str] = []
    for node, made_from in side.expressions:
        expression: Any = made_from
        pairs: list[Pair] = [
            ("string_value", partial(original.string_value, node), partial(twin.string_value, expression, source)),
            ("leading_text", partial(original.leading_text, node), partial(twin.leading_text, expression, source)),
            ("is_error_text", partial(original.is_error_text, node), partial(twin.is_error_text, expression, source)),
            (
                "is_failure_answer",
                partial(original.is_failure_answer, node),
                partial(twin.is_failure_answer, expression, source),
            ),
            ("builds_error", partial(original.builds_error, node), partial(twin.builds_error, expression)),
            ("error_tested", partial(original.error_tested, node), partial(twin.error_tested, expression, source)),
            (
                "answer_checked",
                partial(original.answer_checked, node),
                partial(twin.answer_checked, expression, source),
            ),
            (
                "text_put_in_content",
                partial(original.text_put_in_content, node, table),
                partial(twin.text_put_in_content, expression, ast_table),
            ),
        ]
        if isinstance(node, cst.Dict):
            pairs.append(
                (
                    "is_error_dict",
                    partial(original.is_error_dict, node),
                    partial(twin.is_error_dict, expression, source),
                )
            )
        if isinstance(node, cst.Call):
            pairs.extend(
                (
                    f"call_argument({position}, {keyword!r})",
                    partial(original.call_argument, node, position, keyword),
                    partial(twin.call_argument, expression, position, keyword),
                )
                for position, keyword in ARGUMENT_SLOTS
            )
        problems.extend(_differences(side, made_from, pairs))
    return problems + side.problems


def payloads(paired: PairedTree) -> list[str]:
    """`error_payloads` on every expression with its function's locals and the helper kinds,
    and on every returned value without helper kinds (as a `return` is judged in the walk)."""
    side = _side(paired)
    source, table, ast_table = side.source, side.table, side.ast_table
    libcst_kind, ast_kind = side.helper_kinds()
    returned = {
        id(node.value) for node, _ in paired.paired_nodes if isinstance(node, cst.Return) and node.value is not None
    }
    problems: list[str] = []
    for node, made_from in side.expressions:
        libcst_values, ast_values = side.local_values(side.function_of.get(id(node)))
        expression: Any = made_from
        pairs: list[Pair] = [
            (
                "error_payloads",
                partial(original.error_payloads, node, table, libcst_values, helper_kind=libcst_kind),
                partial(twin.error_payloads, expression, source, ast_table, ast_values, helper_kind=ast_kind),
            )
        ]
        if id(node) in returned:
            pairs.append(
                (
                    "error_payloads (no helper kinds)",
                    partial(original.error_payloads, node, table, libcst_values),
                    partial(twin.error_payloads, expression, source, ast_table, ast_values),
                )
            )
        problems.extend(_differences(side, made_from, pairs))
    walk.forget_own_nodes()
    walk_ast.forget_own_nodes()
    return problems + side.problems


def caught(paired: PairedTree) -> list[str]:
    """`caught_texts` on every expression of each `except E as e:` clause's body (its own
    nodes: not of a function defined there), and `error_item_set` on every assignment target."""
    side = _side(paired)
    source, table, ast_table = side.source, side.table, side.ast_table
    problems: list[str] = []
    expressions = {id(node): made_from for node, made_from in side.expressions}
    for node, made_from in paired.paired_nodes:
        if isinstance(node, cst.ExceptHandler):
            name = bound_name(node)
            if name is None:
                continue
            libcst_values, ast_values = side.local_values(side.function_of.get(id(node)))
            for inner in walk.own_nodes(node.body):
                inner_ast: Any = expressions.get(id(inner))
                if inner_ast is not None:
                    libcst_call = partial(original.caught_texts, inner, name, table, libcst_values)
                    ast_call = partial(twin.caught_texts, inner_ast, source, name, ast_table, ast_values)
                    problems.extend(_differences(side, inner_ast, [(f"caught_texts({name!r})", libcst_call, ast_call)]))
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                libcst_call = partial(original.error_item_set, target.target, node.value)
                ast_call = partial(twin.error_item_set, side.to_ast(target.target), side.to_ast(node.value), source)
                problems.extend(_differences(side, made_from, [("error_item_set", libcst_call, ast_call)]))
    walk.forget_own_nodes()
    walk_ast.forget_own_nodes()
    return problems + side.problems


CHECKS = [literals, payloads, caught]
