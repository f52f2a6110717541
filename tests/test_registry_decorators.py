"""Which functions are registration decorators: the LibCST analysis and the CPython-`ast`
facts of a module the run did not analyse agree (the join uses either)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcplint.analysis.project import ProjectContext
from mcplint.engine.lint import lint_text
from mcplint.engine.syntax import syntax_check_only
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

SETTINGS = FileSettings(codes=frozenset(RULES_BY_CODE))
UTILS = Path(__file__).parent / "fixtures/projects/model/wrapping_registry_decorator/notes/tools/_utils.py"

STORES_NAME_ONLY = '''
_names = []
def named():
    def decorator(func):
        _names.append(func.__name__)
        return func
    return decorator
'''
STORES_THE_FUNCTION = '''
_tools = {}
def tool(name):
    def decorator(func):
        _tools[name] = func
        return func
    return decorator
'''
STORES_A_WRAPPER = '''
_tools = []
def logged():
    def decorator(func):
        run = func
        def wrapper(*args):
            return run(*args)
        _tools.append(wrapper)
        return wrapper
    return decorator
'''
STORES_AN_UNRELATED_FUNCTION = '''
_hooks = []
def hooked():
    def decorator(func):
        def ping():
            return "pong"
        _hooks.append(ping)
        return func
    return decorator
'''


def _both(text: str) -> tuple[list[str], list[str]]:
    # A module that imports an MCP framework is analysed with LibCST; the same text without
    # the import gets only the `ast` facts.
    analysed = lint_text("import mcp.server\n" + text, "pkg/utils.py", SETTINGS, project=ProjectContext(module="pkg.utils"))
    _, facts = syntax_check_only(text, "pkg/utils.py", SETTINGS, ProjectContext(module="pkg.utils"))
    return sorted(analysed.registry_decorators), sorted(facts.registry_decorators)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (UTILS.read_text(encoding="utf-8"), ["logged_tool"]),
        (STORES_NAME_ONLY, []),
        (STORES_THE_FUNCTION, ["tool"]),
        (STORES_A_WRAPPER, ["logged"]),
        (STORES_AN_UNRELATED_FUNCTION, []),
    ],
    ids=["fixture", "name-only", "function", "wrapper", "unrelated-nested"],
)
def test_libcst_and_ast_agree(text: str, expected: list[str]) -> None:
    assert _both(text) == (expected, expected)


def test_the_facts_of_a_text_checked_again_are_its_own() -> None:
    """A later round asks again for the same file: the facts come back the same, for the
    package asked (relative imports), and a caller changing them changes nothing remembered."""
    text = "from .store import load\nfrom . import helpers\n"
    _, first = syntax_check_only(text, "pkg/api.py", SETTINGS, ProjectContext(module="pkg.api"))
    first.exports["load"] = "changed"
    _, again = syntax_check_only(text, "pkg/api.py", SETTINGS, ProjectContext(module="pkg.api"))
    _, elsewhere = syntax_check_only(text, "pkg/api.py", SETTINGS, ProjectContext(module="other.api"))
    _, edited = syntax_check_only(text + "import json\n", "pkg/api.py", SETTINGS, ProjectContext(module="pkg.api"))
    assert again.exports == {"load": "pkg.store.load", "helpers": "pkg.helpers"}
    assert elsewhere.exports == {"load": "other.store.load", "helpers": "other.helpers"}
    assert edited.exports == {**again.exports, "json": "json"}
