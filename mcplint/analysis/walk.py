"""One traversal of a LibCST tree that feeds every visitor at once.

``CSTNode.visit`` rebuilds each node it passes (it is a transformer at heart),
which costs about as much as the parse. Reading the dataclass fields directly
and skipping pure-whitespace fields is several times cheaper and gives the same
nodes. Visitors are plain objects with ``visit_<Node>`` / ``leave_<Node>``
methods; leave methods run in reverse registration order, so a visitor that
maintains context (the scope tracker) is registered first and sees its own
``leave`` last.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Literal, get_args, get_origin

import libcst as cst

from mcplint.analysis.walk_ast import visitor_methods

# Fields that only hold whitespace, comments or punctuation: no rule needs them.
_SKIPPED_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "newline",
        "trailing_whitespace",
        "colon",
        "equal",
        "dot",
        "operator",
        "asynchronous",
        "star_tok",
    }
)

# Decorators, defaults and annotations are evaluated outside the function or
# class body, so they are walked before it (the scope tracker relies on this).
_FIELD_ORDER: dict[type, tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "name", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "bases", "keywords", "body"),
}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes the walk visits, in walk order."""
    found: list[cst.CSTNode] = []
    for name in _CHILD_FIELDS[type(node)]:
        value = getattr(node, name)
        kind = type(value)
        if kind is list or kind is tuple:
            for child in value:
                if _NODE_TYPES[type(child)]:
                    found.append(child)
        elif _NODE_TYPES[kind]:
            found.append(value)
    return found


class _NodeTypes(dict[type, bool]):
    """Whether a class is a LibCST node class, by subscript: `isinstance(value, cst.CSTNode)`
    goes through ABCMeta (CSTNode is an ABC), where a dict of the classes seen answers about
    ten times faster, and the walks ask it for every field of every node."""

    def __missing__(self, kind: type) -> bool:
        known = self[kind] = issubclass(kind, cst.CSTNode)
        return known


_NODE_TYPES = _NodeTypes()


class _Descends(dict[type, bool]):
    """A walker's answer, by subscript, to whether a value of a class is worth walking into: a
    node with handlers (in ``visit`` or ``leave``, the walker's tables) or with nodes inside."""

    def __init__(self, visit: Mapping[type, object], leave: Mapping[type, object]) -> None:
        super().__init__()
        self._visit = visit
        self._leave = leave

    def __missing__(self, kind: type) -> bool:
        known = self[kind] = _NODE_TYPES[kind] and bool(
            self._visit.get(kind) or self._leave.get(kind) or _CHILD_FIELDS[kind]
        )
        return known


# Nodes that open a scope of their own (concrete classes: LibCST has no subclasses of them).
_NESTED_SCOPES = frozenset({cst.FunctionDef, cst.ClassDef, cst.Lambda})


def own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under ``root`` that belongs to the same function (nested scopes skipped),
    ``root`` first, then depth first, the last child first.

    The rules ask it millions of times per run, most of them for a root some rule asked about
    already (a function's body, an `except` clause): the trees are immutable and kept for the
    run, so each root's nodes are listed once (``_OWN``)."""
    known = _OWN.get(id(root))
    if known is not None and known[0] is root:
        return iter(known[1])
    nodes = _list_own_nodes(root)
    global _own_listed
    if _own_listed + len(nodes) > MAX_OWN_LISTED:  # a long-lived process (the language server)
        forget_own_nodes()
    _OWN[id(root)] = (root, nodes)
    _own_listed += len(nodes)
    return iter(nodes)


# id(root) -> (root, its own nodes); the root is kept so that its id is not reused meanwhile.
_OWN: dict[int, tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = {}
_own_listed = 0
# Node references the lists may hold (about 8 bytes each); a corpus check lists about 1.2 million.
MAX_OWN_LISTED = 4_000_000


def forget_own_nodes() -> None:
    """The trees a run kept go: so do their lists."""
    global _own_listed
    _OWN.clear()
    _own_listed = 0


def _list_own_nodes(root: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    # Fields read inline and a child's class looked up in a set: `isinstance` on LibCST's ABCs
    # is several times slower.
    found: list[cst.CSTNode] = []
    add = found.append
    pending = [root]
    pop, push = pending.pop, pending.append
    nested = _NESTED_SCOPES
    fields_of, is_node = _CHILD_FIELDS, _NODE_TYPES
    while pending:
        node = pop()
        add(node)
        for name in fields_of[type(node)]:
            value = getattr(node, name)
            kind = type(value)
            if kind is list or kind is tuple:
                for child in value:
                    child_kind = type(child)
                    if child_kind not in nested and is_node[child_kind]:
                        push(child)
            elif kind not in nested and is_node[kind]:
                push(value)
    return tuple(found)


class _ChildFields(dict[type, tuple[str, ...]]):
    """A node class's fields that hold nodes, in walk order, by subscript (listed on first use)."""

    def __missing__(self, node_type: type) -> tuple[str, ...]:
        ordered = _FIELD_ORDER.get(node_type)
        if ordered is None:
            # A field declared to hold text only (`Name.value`, `Arg.star`) is not read at all:
            # names and strings are half the nodes of a tree.
            ordered = tuple(f.name for f in dataclasses.fields(node_type) if _may_hold_node(f.type))
        fields = self[node_type] = tuple(
            name for name in ordered if name not in _SKIPPED_FIELDS and not name.startswith("whitespace")
        )
        return fields


_CHILD_FIELDS = _ChildFields()


def _may_hold_node(declared: object) -> bool:
    """Whether a field of this declared type can hold a node (unknown: it can)."""
    if isinstance(declared, type):
        return issubclass(declared, cst.CSTNode)
    if get_origin(declared) is Literal:
        return False
    arguments = get_args(declared)
    return not arguments or any(_may_hold_node(argument) for argument in arguments)


Handler = Callable[[cst.CSTNode], object]


class Walker:
    """Dispatches each node of a tree to the visitors that asked for its type."""


    def __init__(self, visitors: Sequence[object]) -> None:
        self._visit: dict[type, list[Handler]] = {}
        self._leave: dict[type, list[Handler]] = {}
        for visitor in visitors:
            for attribute, is_visit, node_type in visitor_methods(type(visitor), cst, object):
                table = self._visit if is_visit else self._leave
                table.setdefault(node_type, []).append(getattr(visitor, attribute))
        for handlers in self._leave.values():
            handlers.reverse()
        #: The nodes enclosing the one being visited, outermost first.
        self.ancestors: list[cst.CSTNode] = []
        # Per node class: its visit handlers, the fields walked, its leave handlers (one lookup a node).
        self._plans: dict[type, tuple[tuple[Handler, ...], tuple[str, ...], tuple[Handler, ...]]] = {}
        # Per class of a field's value: whether walking it does anything (a node with handlers or
        # with nodes inside). Most names, strings and brackets do not: 40 % of a run's nodes.
        self._descends = _Descends(self._visit, self._leave)

    def walk(self, node: cst.CSTNode) -> None:
        node_type = type(node)
        plan = self._plans.get(node_type)
        if plan is None:
            plan = self._plans[node_type] = (
                tuple(self._visit.get(node_type, ())),
                _CHILD_FIELDS[node_type],
                tuple(self._leave.get(node_type, ())),
            )
        visit, fields, leave = plan
        for handler in visit:
            handler(node)
        ancestors = self.ancestors
        ancestors.append(node)
        walk, descends = self.walk, self._descends
        for name in fields:
            value = getattr(node, name)
            kind = type(value)
            if kind is list or kind is tuple:
                for child in value:
                    if descends[type(child)]:
                        walk(child)
            elif descends[kind]:
                walk(value)
        ancestors.pop()
        for handler in leave:
            handler(node)
