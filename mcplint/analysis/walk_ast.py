"""One traversal of CPython's `ast` tree that feeds every visitor at once.

The `ast` twin of ``walk.py`` for the port of the analyses from LibCST's trees to
CPython's (issue 11; docs/architecture.md): the same walk order where the two trees
have the same nodes. Decorators, defaults and annotations are walked before the
body they belong to; a call's positional and keyword arguments, a dictionary's keys
and values and a signature's parameters and defaults in the order they are written
(`ast` lists them apart). Expression contexts and operators are not nodes here.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

# Node classes that carry no code: what LibCST makes punctuation (operators) or has no node
# for (a name's load or store).
_NOT_WALKED: frozenset[type] = frozenset(
    cls
    for base in (ast.expr_context, ast.operator, ast.boolop, ast.cmpop, ast.unaryop)
    for cls in base.__subclasses__()
)
# Fields that never hold a node.
_SCALAR_FIELDS = frozenset(
    {"ctx", "op", "ops", "type_comment", "kind", "id", "attr", "arg", "name", "module", "level", "is_async", "conversion"}
)

# Decorators, bases, defaults and annotations are evaluated outside the function or class
# body: they are walked before it (the scope tracker relies on this).
_FIELD_ORDER: dict[type, tuple[str, ...]] = {
    ast.FunctionDef: ("decorator_list", "args", "returns", "body"),
    ast.AsyncFunctionDef: ("decorator_list", "args", "returns", "body"),
    ast.ClassDef: ("decorator_list", "bases", "keywords", "body"),
    # LibCST's field order, where it differs from the written one.
    ast.ExceptHandler: ("body", "type"),
    ast.match_case: ("pattern", "body", "guard"),
    ast.Constant: (),  # its value is never a node
}


def children(node: ast.AST) -> list[ast.AST]:
    """The child nodes the walk visits, in walk order (written order)."""
    kind = type(node)
    special = _IN_WRITTEN_ORDER.get(kind)
    if special is not None:
        return special(node)
    found: list[ast.AST] = []
    for name in _child_fields(kind):
        value = getattr(node, name)
        if type(value) is list:
            for child in value:  # None: a dictionary's `**`; text: `global`'s names
                if isinstance(child, ast.AST) and type(child) not in _NOT_WALKED:
                    found.append(child)
        elif value is not None and isinstance(value, ast.AST) and type(value) not in _NOT_WALKED:
            found.append(value)
    return found


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def written_arguments(call: ast.Call) -> list[ast.expr | ast.keyword]:
    """A call's arguments in the order they are written (LibCST's ``Call.args``): `ast` lists the
    keywords apart, also one written before a starred argument (`f(key=1, *rest)`)."""
    arguments: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    if call.args and call.keywords and _position(call.keywords[0]) < _position(call.args[-1]):
        arguments.sort(key=_position)
    return arguments


def argument_value(argument: ast.expr | ast.keyword) -> ast.expr:
    """LibCST's ``Arg.value``: what follows `*`, `**` or `name=`."""
    if type(argument) is ast.Starred or type(argument) is ast.keyword:
        return argument.value
    return argument  # type: ignore[return-value]


def argument_values(call: ast.Call) -> list[ast.expr]:
    """The values of a call's arguments in written order (LibCST's ``Arg.value``s)."""
    if not call.keywords and not any(type(argument) is ast.Starred for argument in call.args):
        return call.args
    return [argument_value(argument) for argument in written_arguments(call)]


def _call_children(node: ast.Call) -> list[ast.AST]:
    return [node.func, *written_arguments(node)]


def _dict_children(node: ast.Dict) -> list[ast.AST]:
    found: list[ast.AST] = []
    for key, value in zip(node.keys, node.values, strict=True):
        if key is not None:  # None: `**value`
            found.append(key)
        found.append(value)
    return found


def _arguments_children(node: ast.arguments) -> list[ast.AST]:
    """Parameters with their defaults, the positional-only ones last (LibCST's field order)."""
    positional = [*node.posonlyargs, *node.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(node.defaults)) + list(node.defaults)
    with_defaults: list[ast.AST] = []
    for argument, default in zip(positional, defaults, strict=True):
        with_defaults.append(argument)
        if default is not None:
            with_defaults.append(default)
    only = sum(1 + (default is not None) for default in defaults[: len(node.posonlyargs)])
    found = with_defaults[only:]
    if node.vararg is not None:
        found.append(node.vararg)
    for argument, kw_default in zip(node.kwonlyargs, node.kw_defaults, strict=True):
        found.append(argument)
        if kw_default is not None:
            found.append(kw_default)
    if node.kwarg is not None:
        found.append(node.kwarg)
    return found + with_defaults[:only]


def _compare_children(node: ast.Compare) -> list[ast.AST]:
    return [node.left, *node.comparators]


def _mapping_pattern_children(node: ast.MatchMapping) -> list[ast.AST]:
    return [child for pair in zip(node.keys, node.patterns, strict=True) for child in pair]


_IN_WRITTEN_ORDER: dict[type, Callable[[Any], list[ast.AST]]] = {
    ast.Call: _call_children,
    ast.Dict: _dict_children,
    ast.arguments: _arguments_children,
    ast.Compare: _compare_children,
    ast.MatchMapping: _mapping_pattern_children,
}


class _ChildFields(dict[type, tuple[str, ...]]):
    def __missing__(self, kind: type) -> tuple[str, ...]:
        ordered: tuple[str, ...] = _FIELD_ORDER[kind] if kind in _FIELD_ORDER else kind._fields  # type: ignore[attr-defined]
        fields = self[kind] = tuple(name for name in ordered if name not in _SCALAR_FIELDS)
        return fields


_CHILD_FIELDS = _ChildFields()


def _child_fields(kind: type) -> tuple[str, ...]:
    return _CHILD_FIELDS[kind]


# Nodes that open a scope of their own.
_NESTED_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})


def own_nodes(root: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``root`` that belongs to the same function (nested scopes skipped),
    ``root`` first, then depth first, the last child first (``walk.own_nodes``'s order)."""
    known = _OWN.get(id(root))
    if known is not None and known[0] is root:
        return iter(known[1])
    found: list[ast.AST] = []
    pending = [root]
    while pending:
        node = pending.pop()
        found.append(node)
        pending.extend(child for child in children(node) if type(child) not in _NESTED_SCOPES)
    _OWN[id(root)] = (root, tuple(found))
    return iter(found)


def body_nodes(statements: Sequence[ast.stmt]) -> list[ast.AST]:
    """What LibCST's ``own_nodes(block)`` lists, the block aside, in the same order: each
    statement's own nodes, the last statement first, a nested definition skipped whole."""
    found: list[ast.AST] = []
    for statement in reversed(statements):
        if type(statement) not in _NESTED_SCOPES:
            found.extend(own_nodes(statement))
    return found


def own_statements(statements: Sequence[ast.stmt]) -> list[ast.stmt]:
    """The statements among ``body_nodes(statements)``, in the same order: only the blocks are
    walked (no expression holds a statement), a fraction of the nodes."""
    found: list[ast.stmt] = []
    block_fields = _BLOCK_FIELDS
    for statement in reversed(statements):
        if type(statement) in _NESTED_SCOPES:
            continue
        pending: list[ast.AST] = [statement]
        while pending:
            node = pending.pop()
            kind = type(node)
            if kind is not ast.ExceptHandler and kind is not ast.match_case:
                found.append(node)  # type: ignore[arg-type]
            for name in block_fields[kind]:
                pending.extend(child for child in getattr(node, name) if type(child) not in _NESTED_SCOPES)
    return found


class _BlockFields(dict[type, tuple[str, ...]]):
    """A node's fields that hold statements, or the clauses that hold them, in walk order."""

    def __missing__(self, kind: type) -> tuple[str, ...]:
        fields = self[kind] = tuple(name for name in _child_fields(kind) if name in _BLOCKS)
        return fields


_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
_BLOCK_FIELDS = _BlockFields()


def constants(tree: ast.AST) -> Iterator[ast.Constant]:
    """Every constant of the tree (``nodes_of``: `ast.walk` costs three times as much)."""
    return nodes_of(tree, _CONSTANT)  # type: ignore[return-value]


_CONSTANT: frozenset[type] = frozenset({ast.Constant})


def statement_blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists inside a compound statement (an `except`'s and a `case`'s too)."""
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if isinstance(block, list):
            yield block
    for clause in [*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())]:
        yield clause.body


def nodes_of(tree: ast.AST, kinds: frozenset[type], lines: Sequence[int] | None = None) -> Iterator[ast.AST]:
    """Every node of the tree whose class is one of ``kinds``, in no particular order: a stack over
    the walked fields (a node found is looked into too). With ``lines`` (sorted), only in the
    statements that span one of them (a definition's lines begin with its decorators)."""
    pending = [tree]
    pop, push = pending.pop, pending.append
    fields_of = _CHILD_FIELDS
    while pending:
        node = pop()
        if lines is not None and isinstance(node, ast.stmt) and not _spans_one_of(node, lines):
            continue
        kind = type(node)
        if kind in kinds:
            yield node
        for name in fields_of[kind]:
            value = getattr(node, name)
            if type(value) is list:
                for child in value:
                    if isinstance(child, ast.AST):
                        push(child)
            elif isinstance(value, ast.AST):
                push(value)


def _spans_one_of(statement: ast.stmt, lines: Sequence[int]) -> bool:
    at = bisect.bisect_left(lines, first_line(statement))
    return at < len(lines) and lines[at] <= statement.end_lineno  # type: ignore[operator]


def first_line(statement: ast.stmt) -> int:
    """Where a statement is written from: a definition's first decorator's line (`ast` places
    the definition at its `def` or `class`)."""
    decorators = getattr(statement, "decorator_list", None)
    return decorators[0].lineno if decorators else statement.lineno


# id(root) -> (root, its own nodes); the root is kept so that its id is not reused meanwhile.
_OWN: dict[int, tuple[ast.AST, tuple[ast.AST, ...]]] = {}


def forget_own_nodes() -> None:
    _OWN.clear()


Handler = Callable[[ast.AST], object]


class _Descends(dict[type, bool]):
    def __init__(self, visit: dict[type, list[Handler]], leave: dict[type, list[Handler]]) -> None:
        super().__init__()
        self._visit = visit
        self._leave = leave

    def __missing__(self, kind: type) -> bool:
        known = self[kind] = (
            issubclass(kind, ast.AST)
            and kind not in _NOT_WALKED
            and bool(self._visit.get(kind) or self._leave.get(kind) or kind in _IN_WRITTEN_ORDER or _child_fields(kind))
        )
        return known


# Definitions whose body opens a scope: the walk tells ``enter_body``/``leave_body`` visitors.
_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})


def visitor_methods(visitor_type: type, namespace: ModuleType, base: type) -> tuple[tuple[str, bool, type], ...]:
    """(method name, whether a visit, node class) of a visitor class's ``visit_<Node>`` and
    ``leave_<Node>`` methods, ``<Node>`` a class of ``namespace`` derived from ``base``
    (`ast`'s for ``AstWalker``, LibCST's for ``walk.Walker``): ``dir`` of each class once, not
    once per walk."""
    key = (visitor_type, namespace.__name__)
    known = _VISITOR_METHODS.get(key)
    if known is not None:
        return known
    found = []
    for attribute in dir(visitor_type):
        prefix, _, node_name = attribute.partition("_")
        if prefix not in ("visit", "leave") or not node_name:
            continue
        node_type = getattr(namespace, node_name, None)
        if isinstance(node_type, type) and issubclass(node_type, base):
            found.append((attribute, prefix == "visit", node_type))
    known = _VISITOR_METHODS[key] = tuple(found)
    return known


_VISITOR_METHODS: dict[tuple[type, str], tuple[tuple[str, bool, type], ...]] = {}  # a few dozen visitor classes


class AstWalker:
    """Dispatches each node of a tree to the visitors that asked for its class
    (``visit_<class>`` / ``leave_<class>`` with `ast`'s class names; leave methods in
    reverse registration order, as ``walk.Walker``). A visitor with ``enter_body`` and
    ``leave_body`` methods is told when the walk enters and leaves a function's or class's
    body, after its decorators, bases, defaults and annotations (LibCST's tree has a node
    there, the block, whose visit the scope tracker uses)."""

    def __init__(self, visitors: Sequence[object]) -> None:
        self._visit: dict[type, list[Handler]] = {}
        self._leave: dict[type, list[Handler]] = {}
        self._enter_body: list[Handler] = []
        self._leave_body: list[Handler] = []
        for visitor in visitors:
            for attribute, is_visit, node_type in visitor_methods(type(visitor), ast, ast.AST):
                table = self._visit if is_visit else self._leave
                table.setdefault(node_type, []).append(getattr(visitor, attribute))
            enter, leave = getattr(visitor, "enter_body", None), getattr(visitor, "leave_body", None)
            if enter is not None and leave is not None:
                self._enter_body.append(enter)
                self._leave_body.append(leave)
        for handlers in self._leave.values():
            handlers.reverse()
        self._leave_body.reverse()
        #: The nodes enclosing the one being visited, outermost first.
        self.ancestors: list[ast.AST] = []
        # Per node class: its visit handlers, how its children are listed, its leave handlers.
        self._plans: dict[type, tuple[tuple[Handler, ...], Callable[[Any], list[ast.AST]] | None, tuple[str, ...], tuple[Handler, ...]]] = {}
        # Per class of a field's value: whether walking it does anything (a node with handlers
        # or with nodes inside; not text, None, a context or an operator).
        self._descends = _Descends(self._visit, self._leave)

    def walk(self, node: ast.AST) -> None:
        kind = type(node)
        plan = self._plans.get(kind)
        if plan is None:
            plan = self._plans[kind] = (
                tuple(self._visit.get(kind, ())),
                _IN_WRITTEN_ORDER.get(kind),
                _child_fields(kind),
                tuple(self._leave.get(kind, ())),
            )
        visit, in_written_order, fields, leave = plan
        for handler in visit:
            handler(node)
        ancestors = self.ancestors
        ancestors.append(node)
        walk, descends = self.walk, self._descends
        if kind in _DEFINITIONS and self._enter_body:
            self._walk_definition(node)  # type: ignore[arg-type]
        elif in_written_order is not None:
            for child in in_written_order(node):
                if descends[type(child)]:
                    walk(child)
        else:
            for name in fields:
                value = getattr(node, name)
                if type(value) is list:
                    for child in value:
                        if descends[type(child)]:
                            walk(child)
                elif descends[type(value)]:
                    walk(value)
        ancestors.pop()
        for handler in leave:
            handler(node)

    def _walk_definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        found = children(node)
        header = len(found) - len(node.body)  # the body comes last (``_FIELD_ORDER``)
        for child in found[:header]:
            self.walk(child)
        for handler in self._enter_body:
            handler(node)
        for child in found[header:]:
            self.walk(child)
        for handler in self._leave_body:
            handler(node)
