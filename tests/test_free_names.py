"""A call of a bare name the module does not bind (`len(...)`, `print(...)`) is not resolved:
the resolver's answers must be the ones its full resolution gives (``_Resolver.is_free_name``)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from mcplint.analysis.handlers import _call_externals, _external_calls
from mcplint.analysis.project import ProjectContext
from mcplint.engine import lint_ast
from mcplint.engine.lint import ALL_RULES

ROOT = Path(__file__).parent.parent
SOURCES = sorted([*ROOT.glob("tests/fixtures/**/*.py"), *ROOT.glob("examples/**/*.py")])

BINDINGS = textwrap.dedent("""
    import helpers
    from app.tools import lookup as find
    from app import *

    TABLE = {"a": helpers.run}

    def own(x):
        return x

    class Store:
        def save(self):
            return len(self.items)

    def caller(name, callback):
        def inner():
            return own(1)
        alias = own
        handler = TABLE.get(name)
        handler(1)
        alias(2)
        inner()
        find(3)
        Store()
        callback()
        print(len([]), sorted([]))
        save()
        return helpers.run(name)
    """)


def _resolver(text: str):
    tree = ast.parse(text)
    twins = lint_ast.twins_of([rule for rule in ALL_RULES if not rule.engine_reported])
    assert twins is not None
    context, _, _ = lint_ast.walk(
        tree, text, twins, {}, registry_path=None, package="app", default_symbol=None, assigned_codes=frozenset()
    )
    project = ProjectContext(module="app.server")
    return lint_ast.resolve_local_scope(
        context.facts, context.imports, handler_decorators=(), handler_functions=(), project=project
    ).resolver


def _answers(text: str, free: bool) -> dict:
    resolver = _resolver(text)
    if not free:
        resolver.is_free_name = lambda callee: False  # type: ignore[method-assign]
    answers = {}
    for key, info in resolver.facts.functions.items():
        for callee in dict.fromkeys(info.calls):
            answers[(key, callee)] = (
                resolver.resolve_callee(callee, key, info.class_key),
                _call_externals(resolver, callee, key, info.class_key),
            )
        answers[key] = (_external_calls(resolver, key, False), _external_calls(resolver, key, True))
    return answers


def test_the_bare_names_a_module_binds_are_not_free():
    resolver = _resolver(BINDINGS)
    for bound in ("own", "inner", "alias", "handler", "find", "Store", "save", "helpers"):
        assert not resolver.is_free_name(bound), bound
    for free in ("len", "print", "sorted", "callback", "name"):
        assert resolver.is_free_name(free), free
    assert not resolver.is_free_name("helpers.run")  # only bare names
    assert not resolver.is_free_name("TABLE[]")


@pytest.mark.parametrize("path", [None, *SOURCES], ids=lambda path: "bindings" if path is None else str(path.relative_to(ROOT)))
def test_a_free_name_is_answered_as_its_resolution_would(path):
    text = BINDINGS if path is None else path.read_text(encoding="utf-8")
    try:
        ast.parse(text)
    except SyntaxError:
        pytest.skip("not Python 3.11")
    assert _answers(text, free=True) == _answers(text, free=False)
