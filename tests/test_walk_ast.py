"""``walk_ast.own_statements``: the statements ``body_nodes`` lists, in its order, from a walk of
the blocks alone (the rules that only want statements, a `return` or a `raise`, ask it)."""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

from mcplint.analysis.walk_ast import body_nodes, own_statements

BLOCKS = '''
def handler(items, flag):
    rows = []
    for item in items:
        try:
            rows.append(fetch(item))
        except KeyError:
            continue
        except (ValueError, TypeError) as error:
            if flag:
                raise
            return {"error": str(error)}
        else:
            log("ok")
        finally:
            close()
    else:
        pass
    while flag:
        with lock, other() as value:
            flag = value
    match rows:
        case []:
            return None
        case [first, *_] if first:
            return first
        case _:
            pass

    def inner():
        return "inner's own"

    class Inner:
        def method(self):
            return "method's own"

    answer = lambda: rows
    async def later():
        async for row in source():
            async with row:
                return row
    return rows if flag else answer()
'''

TRY_STAR = '''
def grouped():
    try:
        run()
    except* ValueError:
        return "value"
    except* TypeError:
        raise
'''


def _statements_of_body_nodes(statements: list[ast.stmt]) -> list[ast.AST]:
    return [node for node in body_nodes(statements) if isinstance(node, ast.stmt)]


def _blocks(tree: ast.Module) -> list[list[ast.stmt]]:
    found = [tree.body]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node.body)
        elif isinstance(node, (ast.Try, ast.If, ast.For, ast.While, ast.With)):
            found.append([node])
    return found


@pytest.mark.parametrize("text", [BLOCKS, *([TRY_STAR] if sys.version_info >= (3, 11) else [])])
def test_own_statements_are_body_nodes_statements_in_the_same_order(text: str) -> None:
    tree = ast.parse(text)
    for block in _blocks(tree):
        assert own_statements(block) == _statements_of_body_nodes(block)


def test_a_nested_scope_s_statements_are_not_the_function_s() -> None:
    function = ast.parse(BLOCKS).body[0]
    assert isinstance(function, ast.FunctionDef)
    returned = [ast.unparse(node) for node in own_statements(function.body) if isinstance(node, ast.Return)]
    assert not any("own" in text for text in returned)
    assert "return rows if flag else answer()" in returned
    assert "return None" in returned and "return first" in returned


def test_own_statements_agree_with_body_nodes_on_mcplint_s_own_source() -> None:
    package = pathlib.Path(__file__).resolve().parents[1] / "mcplint"
    checked = 0
    for path in sorted(package.rglob("*.py")):
        for block in _blocks(ast.parse(path.read_text(encoding="utf-8"))):
            assert own_statements(block) == _statements_of_body_nodes(block), path
            checked += 1
    assert checked > 1000


def test_an_import_met_after_a_name_was_qualified_changes_its_answer() -> None:
    """``ImportTable.qualify`` remembers its answers; an import the walk meets later clears them."""
    import libcst as cst

    from mcplint.analysis.imports import ImportTable
    from mcplint.analysis.imports_ast import AstImportTable

    tree = ast.parse("import json\nfrom .store import save as keep\n")
    table = AstImportTable("pkg")
    assert table.qualify("json.dumps") is None and table.qualify("keep") is None
    table.visit_Import(tree.body[0])  # type: ignore[arg-type]
    assert table.qualify("json.dumps") == "json.dumps" and table.qualify("keep") is None
    table.visit_ImportFrom(tree.body[1])  # type: ignore[arg-type]
    assert table.qualify("keep") == "pkg.store.save"

    module = cst.parse_module("import json\nfrom .store import save as keep\n")
    original = ImportTable("pkg")
    assert original.qualify("json.loads") is None
    first, second = (statement.body[0] for statement in module.body if isinstance(statement, cst.SimpleStatementLine))
    assert isinstance(first, cst.Import) and isinstance(second, cst.ImportFrom)
    original.visit_Import(first)
    original.visit_ImportFrom(second)
    assert original.qualify("json.loads") == "json.loads" and original.qualify("keep.x") == "pkg.store.save.x"
