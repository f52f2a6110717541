"""Which functions are registration decorators: the LibCST analysis and the CPython-`ast`
facts of a module the run did not analyse agree (the join uses either)."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest
from fixture_expectations import FIXTURES

from mcplint.analysis.project import ProjectContext
from mcplint.engine.lint import lint_text
from mcplint.engine.syntax import _add_last_name, applied_names, syntax_check_only
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

STORES_IN_ONE_OF_TWO_NAMESAKES = """
_hooks = []
def hooked():
    def decorator(func):
        if DEBUG:
            def keep():
                return func()
        else:
            def keep():
                return ping()
        _hooks.append(keep)
        return func
    return decorator
"""


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
        (STORES_IN_ONE_OF_TWO_NAMESAKES, ["hooked"]),
        (STORES_IN_ONE_OF_TWO_NAMESAKES.replace("func()", "FUNC()").replace("ping()", "func()"), ["hooked"]),
    ],
    ids=["fixture", "name-only", "function", "wrapper", "unrelated-nested", "namesake-first", "namesake-last"],
)
def test_libcst_and_ast_agree(text: str, expected: list[str]) -> None:
    assert _both(text) == (expected, expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("def register(fn):\n    REGISTRY . append(fn)\n    return fn\n", ["register"]),
        ("def register(fn):\n    (REGISTRY.  # kept\n        append(fn))\n    return fn\n", ["register"]),
        ("def register(fn):\n    REGISTRY.\\\n        append(fn)\n    return fn\n", ["register"]),
        ("def register(fn):\n    return ToolDefinition(fn=fn)\n", ["register"]),
        ("def register(fn):\n    TOOLS[fn.__name__] = fn\n    return fn\n", ["register"]),
        (
            "def tool(name):\n    def deco(fn):\n        if name:\n            return Definition(fn)\n    return deco\n",
            ["tool"],
        ),
        (
            "def register(fn):\n    try:\n        check(fn)\n    except ValueError:\n        return Definition(fn)\n",
            ["register"],
        ),
        ("def address(fn):\n    padding = fn.added\n    return Wrapped(padding)\n", []),
        ("def describe(fn):\n    return Summary(fn.__doc__)\n", []),
    ],
    ids=[
        "spaced",
        "comment",
        "continued",
        "definition",
        "subscript",
        "nested-definition",
        "in-handler",
        "named-alike",
        "no-store",
    ],
)
def test_the_ast_facts_find_a_container_method_however_it_is_written(text: str, expected: list[str]) -> None:
    """Functions whose text names no container method skip the walk of every expression: the
    text test must see the method through spaces, comments and line continuations."""
    assert _both(text) == (expected, expected)


def test_an_identifier_python_normalises_is_a_container_method_to_the_ast_facts() -> None:
    """`REGISTRY.ａｐｐｅｎｄ(fn)` is `REGISTRY.append(fn)` to Python (NFKC), though the text does not say `append`."""
    text = "def register(fn):\n    REGISTRY.\uff41\uff50\uff50\uff45\uff4e\uff44(fn)\n    return fn\n"
    _, facts = syntax_check_only(text, "pkg/utils.py", SETTINGS, ProjectContext(module="pkg.utils"))
    assert facts.registry_decorators == ["register"]


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


IMPORTS_THE_DECORATOR = ProjectContext(module="pkg.tools", registry_decorators=(("pkg.deco.register", "tool"),))
APPLIED = {
    "decorator": "from pkg.deco import register\n\n@register\ndef t():\n    raise ValueError('x')\n",
    "called decorator": "from pkg.deco import register\n\n@register(name='t')\ndef t():\n    raise ValueError('x')\n",
    "as name": "from pkg.deco import register as reg\n\n@reg\ndef t():\n    raise ValueError('x')\n",
    "result called": "from pkg.deco import register\n\ndef t():\n    raise ValueError('x')\n\nt = register('t')(t)\n",
    "module attribute": "import pkg.deco\n\n@pkg.deco.register\ndef t():\n    raise ValueError('x')\n",
}
NOT_APPLIED = {
    "called only": "from pkg.deco import register\n\ndef test_t():\n    assert register(len) is len\n",
    "named only": "from pkg.deco import register\n\nDOC = register.__doc__\n",
    "other decorator": "from pkg.deco import register\nimport functools\n\n@functools.cache\ndef t():\n    return register\n",
}


@pytest.mark.parametrize("text", APPLIED.values(), ids=APPLIED.keys())
def test_a_module_applying_an_imported_registry_decorator_is_analysed(text: str) -> None:
    assert lint_text(text, "pkg/tools.py", SETTINGS, project=IMPORTS_THE_DECORATOR).analysed


@pytest.mark.parametrize("text", NOT_APPLIED.values(), ids=NOT_APPLIED.keys())
def test_a_module_only_importing_a_registry_decorator_gets_the_syntax_check(text: str) -> None:
    """A test calling the decorated functions imports the decorator's module too: no reason for
    the whole analysis (what it gives the join is the same as any syntax-checked module's)."""
    result = lint_text(text, "pkg/tools.py", SETTINGS, project=IMPORTS_THE_DECORATOR)
    assert not result.analysed
    assert result.exports["register"] == "pkg.deco.register"


def test_a_module_that_does_not_parse_is_judged_as_before() -> None:
    """Nothing is known of what a broken module applies: it is analysed, and LibCST judges it."""
    text = "from pkg.deco import register\n\ndef t(:\n    pass\n"
    result = lint_text(text, "pkg/tools.py", SETTINGS, project=IMPORTS_THE_DECORATOR)
    assert [finding.code for finding in result.findings] == ["MCP000"]
    assert result.findings == lint_text(text, "pkg/tools.py", SETTINGS, project=ProjectContext(module="pkg.tools")).findings


def test_what_a_module_applies_is_asked_again_of_a_text_checked_before() -> None:
    """Round 0 checks a module before the join names any decorator; a later round asks what it
    applies, from the same remembered facts."""
    text = APPLIED["as name"]
    first = lint_text(text, "pkg/again.py", SETTINGS, project=ProjectContext(module="pkg.again"))
    later = lint_text(text, "pkg/again.py", SETTINGS, project=replace(IMPORTS_THE_DECORATOR, module="pkg.again"))
    assert (first.analysed, later.analysed) == (False, True)
    assert [finding.code for finding in later.findings] == ["MCP002"]  # `t` is a tool there


def test_applied_names_are_the_last_names_and_what_as_names_stand_for() -> None:
    text = (
        "import a.b as m\nfrom c import d as e\n@m.f\ndef g(): pass\n@e(1)\nasync def h(): pass\n"
        "x = i(2)(g)\ny = j(3)\n@k[0]\ndef n(): pass\n"
    )
    assert applied_names(ast.parse(text), text) == {"f", "e", "d", "i"}


def _applied_in_every_node(tree: ast.Module) -> frozenset[str]:
    """What ``applied_names`` finds, as written before it skipped expressions: every node walked."""
    applied: set[str] = set()
    aliases: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Call):
            _add_last_name(applied, node.func.func)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                _add_last_name(applied, decorator.func if isinstance(decorator, ast.Call) else decorator)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.asname:
                    aliases.setdefault(alias.asname, set()).add(alias.name.rpartition(".")[2])
    for name in list(applied):
        applied.update(aliases.get(name, ()))
    return frozenset(applied)


CALLED_RESULTS = {
    "nested scopes": "class A:\n    def m(self):\n        def inner():\n            @deco.reg(1)\n            def t(): pass\n",
    "comment between": "x = (make(1)  # a comment (with a paren\n     # another\n     (fn))\n",
    "continuation": "x = make(1) \\\n    (fn)\n",
    "parenthesised": "x = (make(1))(fn)\n",
    "in a condition": "if make(1)(fn):\n    pass\nelif other(2)(fn):\n    pass\n",
    "except clause": "try:\n    pass\nexcept pick(1)(E):\n    pass\n",
    "decorated in an except clause": "try:\n    pass\nexcept E:\n    @reg\n    def t(): pass\n",
    "decorated in a case": "match x:\n    case 1:\n        @reg\n        def t(): pass\n",
    "match guard": "match x:\n    case 1 if check(1)(x):\n        pass\n",
    "decorator called twice": "@outer(1)(2)\ndef t(): pass\n",
    "default argument": "def t(x=make(1)(2)):\n    pass\n",
    "lambda and comprehension": "f = lambda: [make(i)(i) for i in range(3)]\n",
    "string with parens": "x = ')('\ny = make(')')(fn)\n",
    "carriage returns": "x = 1\ry = make(1)(fn)\r",
    "crlf": "x = 1\r\ny = make(1)(fn)\r\n",
    "as names": "from p import make as mk\nimport q.reg as r\ny = mk(1)(fn)\n@r\ndef t(): pass\n",
    "none": "x = make(1)\ny = (fn)\n",
}


@pytest.mark.parametrize("text", CALLED_RESULTS.values(), ids=CALLED_RESULTS.keys())
def test_applied_names_find_what_a_walk_of_every_node_finds(text: str) -> None:
    tree = ast.parse(text)
    assert applied_names(tree, text) == _applied_in_every_node(tree)


@pytest.mark.parametrize("path", sorted(FIXTURES.rglob("*.py")), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_applied_names_of_every_fixture_are_what_a_walk_of_every_node_finds(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        pytest.skip("not Python this interpreter parses")
    assert applied_names(tree, text) == _applied_in_every_node(tree)
