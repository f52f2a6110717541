"""``ast_cst.NodeSpans`` against the spans ``build`` records: where a finding on an `ast`
node is placed."""

from __future__ import annotations

import ast

import libcst as cst

from mcplint.analysis.ast_cst import NodeSpans
from mcplint.engine.ast_pairs import PairedTree


def node_spans(paired: PairedTree) -> list[str]:
    """Every paired node the builder gave a span has that span, found from its `ast` node
    alone (a parameter's with its default: it ends where the default does)."""
    spans = NodeSpans(paired.text, paired.tree)
    problems = []
    shared = _sole_generator_arguments(paired.tree, spans)
    for node, made_from in paired.paired_nodes:
        expected = paired.spans.get(id(node))
        if expected is None:
            continue
        if isinstance(node, cst.Param) and node.default is not None:
            expected = (expected[0], paired.spans[id(node.default)][0])  # the name's end is asked
            found = spans.span(made_from)
            if found[0] != expected[0]:
                problems.append(f"{_at(made_from)} parameter starts at {found[0]}, not {expected[0]}")
            continue
        found = spans.span(made_from, shared.get(id(made_from), -1))
        if found != expected:
            problems.append(f"{_at(made_from)} {type(made_from).__name__}: span {found} != {expected}")
    return problems


def formatted_value_spans(paired: PairedTree) -> list[str]:
    """Every f-string's ``{...}`` part (``ast.FormattedValue``, which the builder does not make
    a node from: ``PairedTree.libcst_of`` gives its ``FormattedStringExpression``) is placed
    where the builder put that part, a format spec's too."""
    spans = NodeSpans(paired.text, paired.tree)
    problems = []
    built = {id(made_from) for _, made_from in paired.paired_nodes}  # (not those of an expression parsed alone)
    pending = [node for node in ast.walk(paired.tree) if type(node) is ast.JoinedStr and id(node) in built]
    while pending:
        joined = pending.pop()
        for value in joined.values:
            if type(value) is not ast.FormattedValue:
                continue
            part = paired.libcst_of(value)
            if not isinstance(part, cst.FormattedStringExpression):
                problems.append(f"{_at(joined)}: a formatted value without its part ({type(part).__name__})")
                continue
            expected = paired.spans[id(part)]
            found = spans.span(value)
            if found != expected:
                problems.append(f"{_at(value.value)} FormattedValue: span {found} != {expected}")
            if type(value.format_spec) is ast.JoinedStr:
                pending.append(value.format_spec)
    return problems


def _sole_generator_arguments(tree: ast.Module, spans: NodeSpans) -> dict[int, int]:
    """The generator expressions written as a call's sole argument, with the call's '('."""
    found = {}
    for node in ast.walk(tree):
        if type(node) is ast.Call and len(node.args) == 1 and not node.keywords and type(node.args[0]) is ast.GeneratorExp:
            found[id(node.args[0])] = spans._builder.span_of(node.args[0])[0]
    return found


def _at(node: ast.AST) -> str:
    return f"{getattr(node, 'lineno', '?')}:{getattr(node, 'col_offset', '?')}"


CHECKS = [node_spans, formatted_value_spans]
