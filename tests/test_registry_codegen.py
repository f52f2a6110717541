"""`mcplint registry generate`: the helper module's source, where it goes, and the command.

These tests run without any MCP SDK. Where the generated module has to be
imported, a few stand-in classes take the place of the SDK's names (the
``stub_mcp1`` fixture); tests/sdk/ proves the module against the real SDKs.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import json
import sys
import textwrap
import types
from pathlib import Path

import pytest

from mcplint.registry import RegistryError, load_registry, parse_registry
from mcplint.registry.codegen import (
    FRAMEWORK_CHOICES,
    detect_framework,
    generate_helpers,
    helpers_path,
    registry_hash,
    run_generate,
)
from mcplint.registry.codegen_python import string_literal

REGISTRIES = Path(__file__).parent / "fixtures" / "registry"
VALID = REGISTRIES / "valid.toml"
HOSTILE = REGISTRIES / "codegen" / "hostile.toml"
FRAMEWORKS = ("mcp1", "mcp2", "fastmcp", "lowlevel")


def registry(source: str, path: str = "mcp-errors.toml"):
    return parse_registry(textwrap.dedent(source).lstrip("\n"), path)


def valid_source(framework: str = "mcp1") -> str:
    return generate_helpers(load_registry(str(VALID)), framework)


# -- determinism and header ------------------------------------------------------------
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_same_registry_gives_the_same_bytes(framework):
    assert valid_source(framework) == valid_source(framework)


def test_comments_and_formatting_of_the_registry_do_not_change_the_module(tmp_path):
    text = VALID.read_text()
    reformatted = "# a new comment\n" + text.replace("code = 2001", "code   =   2001  # spaced")
    (tmp_path / "errors.toml").write_text(reformatted)
    assert generate_helpers(load_registry(str(tmp_path / "errors.toml")), "mcp1") == valid_source()


def test_header_says_generated_and_carries_the_registry_hash():
    loaded = load_registry(str(VALID))
    lines = generate_helpers(loaded, "mcp2").splitlines()
    assert "@generated" in lines[0]  # mcplint skips files with @generated in the first lines
    assert lines[2] == f"# registry-sha256: {registry_hash(loaded)}"
    assert lines[3].startswith("# framework: mcp2")
    assert f'REGISTRY_SHA256 = "{registry_hash(loaded)}"' in lines


def test_the_hash_follows_content():
    base = registry_hash(load_registry(str(VALID)))
    changed = VALID.read_text().replace("Provider {provider} is unavailable.", "Provider {provider} is down.")
    assert registry_hash(parse_registry(changed, "mcp-errors.toml")) != base
    assert len(base) == 64


@pytest.mark.parametrize(
    "added",
    ['hints = ["Try another provider."]', 'recovery = "retry-later"', "retry-after-ms = 500", 'user-message = "Down."'],
)
def test_the_hash_follows_the_envelope(added):
    # So REG016 reports helpers generated before a hint or a recovery was added.
    base = registry_hash(load_registry(str(VALID)))
    text = VALID.read_text().replace('metadata = ["provider"]\n', f'metadata = ["provider"]\n{added}\n', 1)
    assert text != VALID.read_text()
    assert registry_hash(parse_registry(text, "mcp-errors.toml")) != base


# -- the module's content -----------------------------------------------------------------
def test_literal_types_offer_active_and_deprecated_symbols_only():
    source = valid_source()
    assert 'AuthSymbol = Literal[\n    "AUTH_TOKEN_INVALID",\n    "AUTH_TOKEN_EXPIRED",\n' in source
    assert '    "AUTH_API_KEY_REJECTED",  # deprecated\n]' in source
    assert 'UpstreamSymbol = Literal[\n    "UPSTREAM_UNAVAILABLE",\n    "UPSTREAM_RATE_LIMITED",\n]' in source
    assert 'ProtocolSymbol = Literal["UNKNOWN_TOOL"]' in source
    assert "def upstream_error(\n    symbol: UpstreamSymbol," in source
    # The retired entry is no symbol, but its number stays listed as taken.
    assert '"UPSTREAM_BAD_PAYLOAD"' not in source.split("RETIRED_CODES")[0]
    assert 'RETIRED_CODES: dict[str, int] = {\n    "UPSTREAM_BAD_PAYLOAD": 2003,\n}' in source


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_each_framework_compiles(framework):
    compile(valid_source(framework), f"errors_{framework}.py", "exec")


@pytest.mark.parametrize(
    ("framework", "imports", "absent"),
    [
        (
            "mcp1",
            ["from mcp.server.fastmcp.exceptions import ToolError", "from mcp.shared.exceptions import McpError"],
            "MCPError",
        ),
        (
            "mcp2",
            ["from mcp.server.mcpserver.exceptions import ToolError", "from mcp.shared.exceptions import MCPError"],
            "McpError",
        ),
        (
            "fastmcp",
            [
                "from fastmcp.exceptions import PromptError, ResourceError, ToolError",
                "from fastmcp.tools import ToolResult",
            ],
            "MCPError",
        ),
    ],
)
def test_imports_only_the_framework(framework, imports, absent):
    source = valid_source(framework)
    for line in imports:
        assert line in source
    assert absent not in source
    imported = {
        (node.module or "").split(".")[0] for node in ast.parse(source).body if isinstance(node, ast.ImportFrom)
    } | {
        alias.name.split(".")[0]
        for node in ast.parse(source).body
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    stdlib = {"__future__", "copy", "json", "os", "re", "threading", "traceback", "collections", "typing"}
    assert imported - stdlib == ({"fastmcp", "mcp"} if framework == "fastmcp" else {"mcp"})


def test_tool_errors_never_subclass_the_sdk_error_on_mcp2():
    tree = ast.parse(valid_source("mcp2"))
    bases = {
        node.name: [ast.unparse(base) for base in node.bases] for node in tree.body if isinstance(node, ast.ClassDef)
    }
    assert bases["RegisteredToolError"] == ["RegisteredError", "ToolError"]
    assert bases["RegisteredResourceError"] == ["RegisteredError", "MCPError"]
    assert bases["RegisteredPromptError"] == ["RegisteredError", "MCPError"]


def test_tool_results_use_camel_case_keywords_on_mcp1_and_is_error_on_fastmcp():
    assert "structuredContent=payload,\n        isError=is_error," in valid_source("mcp1")
    assert "structured_content=payload,\n        is_error=is_error," in valid_source("fastmcp")


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("path", [VALID, HOSTILE, REGISTRIES / "seed_001.toml", REGISTRIES / "seed_004.toml"])
def test_black_leaves_the_module_unchanged(framework, path):
    black = pytest.importorskip("black")
    source = generate_helpers(load_registry(str(path)), framework)
    assert black.format_str(source, mode=black.Mode()) == source


# -- names ---------------------------------------------------------------------------------
def test_default_helper_names_come_from_the_domain():
    source = generate_helpers(
        registry(
            """
            schema_version = 1
            namespace = "n"
            [domains.memory-bank]
            range = [2300, 2399]
            [domains.memory-bank.errors.MB_NOT_FOUND]
            code = 2300
            message = "m"
            retryable = false
            """
        ),
        "mcp1",
    )
    assert "def memory_bank_error(\n    symbol: MemoryBankSymbol," in source
    assert '        "memory-bank",\n        symbol,' in source


@pytest.mark.parametrize(
    ("helper", "problem"),
    [
        ("error_stats", "helper name `error_stats` of domain `b` is already taken"),
        ("a_error", "helper name `a_error` of domain `b` is already taken"),
        ("str", "helper name `str` of domain `b` is already taken"),
        ("json", "helper name `json` of domain `b` is already taken"),
    ],
)
def test_a_helper_name_that_is_taken_is_an_error_with_its_line(helper, problem):
    loaded = registry(
        f"""
        schema_version = 1
        namespace = "n"
        [domains.a]
        range = [1, 9]
        [domains.a.errors.A_ONE]
        code = 1
        message = "m"
        retryable = false
        [domains.b]
        range = [10, 19]
        helper = "{helper}"
        [domains.b.errors.B_ONE]
        code = 10
        message = "m"
        retryable = false
        """
    )
    with pytest.raises(RegistryError) as raised:
        generate_helpers(loaded, "mcp1")
    assert raised.value.line == 11
    assert problem in raised.value.message


def test_an_offered_entry_without_a_code_is_an_error():
    loaded = registry(
        """
        schema_version = 1
        namespace = "n"
        [domains.a]
        range = [1, 9]
        [domains.a.errors.A_ONE]
        message = "m"
        retryable = false
        """
    )
    with pytest.raises(RegistryError, match=r"error `A_ONE` has no valid `code`") as raised:
        generate_helpers(loaded, "mcp1")
    assert raised.value.line == 5


def test_a_domain_without_offered_symbols_gets_no_helper():
    source = generate_helpers(
        registry(
            """
            schema_version = 1
            namespace = "n"
            [domains.gone]
            range = [1, 9]
            [domains.gone.errors.GONE_ONE]
            code = 1
            message = "m"
            retryable = false
            status = "retired"
            retired_since = "1.0"
            """
        ),
        "mcp1",
    )
    assert "gone_error" not in source
    assert '"GONE_ONE": 1,' in source
    compile(source, "errors.py", "exec")


def test_unknown_framework_is_rejected():
    with pytest.raises(ValueError, match="unknown framework"):
        generate_helpers(load_registry(str(VALID)), "flask")
    assert FRAMEWORK_CHOICES == ("mcp1", "mcp2", "fastmcp", "lowlevel", "auto")


# -- string literals -----------------------------------------------------------------------
NASTY_STRINGS = [
    "",
    "plain",
    'say "hi"',
    "it's",
    "both ' and \"",
    '"""',
    "'''",
    "\\",
    "ends with \\",
    "{x} {{y}} }",
    "line\nbreak\r\n\ttab",
    "\x00\x07\x7f\x9f",
    "\u2028\u2029\xa0\u200b",
    "\ud800 lone surrogate",
    "é 😀 \U0010ffff",
    "\\N{BULLET} \\x41 \\u0041",
]


@pytest.mark.parametrize("value", NASTY_STRINGS)
def test_string_literals_round_trip_on_one_line(value):
    literal = string_literal(value)
    assert "\n" not in literal and "\r" not in literal
    assert ast.literal_eval(literal) == value


@pytest.mark.parametrize("value", [value for value in NASTY_STRINGS if "\ud800" not in value])
def test_string_literals_are_what_black_writes(value):
    black = pytest.importorskip("black")
    line = f"x = {string_literal(value)}\n"
    assert black.format_str(line, mode=black.Mode()) == line


@pytest.mark.parametrize(
    "text", ["n" * count for count in (70, 75, 79, 90)] + ["漢" * count for count in (37, 38, 41, 42)]
)
def test_a_long_namespace_is_wrapped_where_black_wraps_it(text):
    black = pytest.importorskip("black")
    source = generate_helpers(registry(f'schema_version = 1\nnamespace = "{text}"\n'), "mcp1")
    assert black.format_str(source, mode=black.Mode()) == source


# -- importing the module (with stand-ins for the SDK) ---------------------------------------
class _Model:
    """Stand-in for the SDK's pydantic models: keeps its keyword arguments."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


@pytest.fixture
def stub_mcp1(monkeypatch):
    """The names the mcp1 module imports, as plain classes (not the SDK's behaviour:
    tests/sdk/ checks that)."""

    class McpError(Exception):
        def __init__(self, error):
            super().__init__(error.message)
            self.error = error

    class ErrorData(_Model):
        pass

    names = {
        "mcp.server.fastmcp.exceptions": {"ToolError": type("ToolError", (Exception,), {})},
        "mcp.shared.exceptions": {"McpError": McpError},
        "mcp.types": {
            "CallToolResult": type("CallToolResult", (_Model,), {}),
            "ErrorData": ErrorData,
            "TextContent": type("TextContent", (_Model,), {}),
        },
    }
    for dotted in ("mcp", "mcp.server", "mcp.server.fastmcp", "mcp.shared", *names):
        module = types.ModuleType(dotted)
        module.__dict__.update(names.get(dotted, {}))
        monkeypatch.setitem(sys.modules, dotted, module)
    return names


def import_generated(tmp_path: Path, registry_path: Path, monkeypatch, name: str = "generated_errors"):
    path = tmp_path / f"{name}.py"
    path.write_text(generate_helpers(load_registry(str(registry_path)), "mcp1"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def errors(tmp_path, monkeypatch, stub_mcp1):
    for variable in ("MCP_ERRORS_VERBOSE", "MCP_ERROR_METRICS"):
        monkeypatch.delenv(variable, raising=False)
    return import_generated(tmp_path, VALID, monkeypatch)


def test_helper_returns_the_error_with_its_fields(errors):
    error = errors.upstream_error("UPSTREAM_RATE_LIMITED", details="quota", provider="met", retryAfterS=30)
    assert isinstance(error, errors.RegisteredToolError)
    assert isinstance(error, sys.modules["mcp.server.fastmcp.exceptions"].ToolError)
    assert (error.code, error.symbol, error.domain, error.retryable, error.details) == (
        2002,
        "UPSTREAM_RATE_LIMITED",
        "upstream",
        True,
        "quota",
    )
    assert error.message == "Provider met rate limit hit; retry after 30s."
    # A tool error's text is what the framework sends the model: the text form.
    assert str(error) == error.text() == (
        "UPSTREAM_RATE_LIMITED (2002): Provider met rate limit hit; retry after 30s.\nRecovery: retry-later."
    )
    assert error.to_wire() == {
        "code": 2002,
        "message": "Provider met rate limit hit; retry after 30s.",
        "data": {
            "domain": "upstream",
            "symbol": "UPSTREAM_RATE_LIMITED",
            "retryable": True,
            "details": "quota",
            "metadata": {"provider": "met", "retryAfterS": 30},
        },
    }


def test_without_metadata_the_wire_form_has_exactly_its_four_data_keys(errors):
    wire = errors.auth_error("AUTH_TOKEN_INVALID").to_wire()
    assert wire == {
        "code": 1001,
        "message": "The access token is not valid.",
        "data": {"domain": "auth", "symbol": "AUTH_TOKEN_INVALID", "retryable": False, "details": None},
    }


def test_a_missing_placeholder_value_stays_visible(errors):
    assert errors.upstream_error("UPSTREAM_UNAVAILABLE").message == "Provider {provider} is unavailable."


def test_deprecated_symbols_still_work(errors):
    assert errors.auth_error("AUTH_API_KEY_REJECTED").code == 1005


def test_unknown_and_retired_symbols_fail_loudly(errors):
    with pytest.raises(ValueError, match="no error symbol 'NOPE' in domain 'auth'"):
        errors.auth_error("NOPE")
    with pytest.raises(ValueError, match="'UPSTREAM_BAD_PAYLOAD' is retired"):
        errors.upstream_error("UPSTREAM_BAD_PAYLOAD")


def test_tool_result_carries_the_error_as_structured_content(errors):
    result = errors.upstream_error("UPSTREAM_UNAVAILABLE", provider="met").tool_result()
    expected = {
        "error": {
            "code": 2001,
            "message": "Provider met is unavailable.",
            "domain": "upstream",
            "symbol": "UPSTREAM_UNAVAILABLE",
            "retryable": True,
            "details": None,
            "metadata": {"provider": "met"},
        }
    }
    assert result.isError is True
    assert result.structuredContent == expected
    assert [block.type for block in result.content] == ["text", "text"]
    assert result.content[0].text == "UPSTREAM_UNAVAILABLE (2001): Provider met is unavailable.\nRecovery: retry-later."
    assert json.loads(result.content[1].text) == expected


def test_resource_and_prompt_errors_carry_the_sdk_error_data(errors):
    McpError = sys.modules["mcp.shared.exceptions"].McpError
    for error in (
        errors.auth_error("AUTH_TOKEN_EXPIRED", expiresAt="noon").for_resource(),
        errors.auth_error("AUTH_TOKEN_EXPIRED", expiresAt="noon").for_prompt(),
    ):
        assert isinstance(error, McpError) and isinstance(error, errors.RegisteredError)
        assert (error.error.code, error.error.message) == (
            1002,
            "The access token expired at noon. Refresh it and retry.",
        )
        assert error.error.data["symbol"] == "AUTH_TOKEN_EXPIRED"
        assert str(error) == "The access token expired at noon. Refresh it and retry."
    assert isinstance(errors.auth_error("AUTH_TOKEN_INVALID").for_resource().for_tool(), errors.RegisteredToolError)


CAUGHT_AS_CLASSES = sorted(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException) and not issubclass(value, getattr(builtins, "BaseExceptionGroup", ()))
)


@pytest.mark.parametrize("original", CAUGHT_AS_CLASSES)
def test_caught_as_keeps_every_builtin_catcher_and_the_wire_form(errors, original):
    """What `migrate` writes in place of `raise ValueError(...)`: still a ValueError for every
    `except ValueError` and `pytest.raises(ValueError)`, still the same registry error."""
    builtin = getattr(builtins, original)
    plain = errors.upstream_error("UPSTREAM_UNAVAILABLE", provider="met")
    for family in (plain, plain.for_resource(), plain.for_prompt()):
        error = family.caught_as(builtin)
        assert isinstance(error, builtin) and isinstance(error, type(family))
        assert error.to_wire() == family.to_wire() and str(error) == str(family)
        with pytest.raises(builtin):
            raise error
        assert type(family.caught_as(builtin)) is type(error)  # one class per (family, original)


def test_caught_as_a_class_the_error_already_is_returns_it(errors):
    error = errors.auth_error("AUTH_TOKEN_INVALID")
    assert error.caught_as(Exception) is error
    McpError = sys.modules["mcp.shared.exceptions"].McpError
    resource = error.for_resource()
    assert resource.caught_as(McpError) is resource


def test_no_stack_by_default_and_sanitized_frames_when_verbose(errors, monkeypatch):
    assert "stack" not in errors.auth_error("AUTH_TOKEN_INVALID").to_wire()["data"]
    monkeypatch.setenv("MCP_ERRORS_VERBOSE", "1")
    (frame,) = errors.auth_error("AUTH_TOKEN_INVALID").to_wire()["data"]["stack"]
    assert frame.startswith("test_no_stack_by_default_and_sanitized_frames_when_verbose (")
    assert "test_registry_codegen.py:" in frame and "/work" not in frame and "generated_errors" not in frame
    monkeypatch.setenv("MCP_ERRORS_VERBOSE", "full")
    assert len(errors.auth_error("AUTH_TOKEN_INVALID").to_wire()["data"]["stack"]) > 3
    monkeypatch.setenv("MCP_ERRORS_VERBOSE", "lots")
    assert "stack" not in errors.auth_error("AUTH_TOKEN_INVALID").to_wire()["data"]


def test_metrics_count_only_when_enabled(errors, monkeypatch):
    errors.auth_error("AUTH_TOKEN_INVALID")
    assert errors.error_stats() == {"total": 0, "byCode": {}, "byDomain": {}, "bySymbol": {}}
    monkeypatch.setenv("MCP_ERROR_METRICS", "1")
    errors.auth_error("AUTH_TOKEN_INVALID")
    errors.auth_error("AUTH_TOKEN_INVALID").for_resource()  # a conversion is not a new error
    errors.upstream_error("UPSTREAM_UNAVAILABLE", provider="p")
    assert errors.error_stats() == {
        "total": 3,
        "byCode": {"1001": 2, "2001": 1},
        "byDomain": {"auth": 2, "upstream": 1},
        "bySymbol": {"AUTH_TOKEN_INVALID": 2, "UPSTREAM_UNAVAILABLE": 1},
    }
    errors.reset_error_stats()
    assert errors.error_stats()["total"] == 0


# -- a hostile registry ----------------------------------------------------------------------
def test_a_hostile_registry_cannot_inject_code(tmp_path, monkeypatch, stub_mcp1):
    monkeypatch.chdir(tmp_path)
    loaded = load_registry(str(HOSTILE))
    module = import_generated(tmp_path, HOSTILE, monkeypatch, "hostile_errors")
    assert not list(tmp_path.glob("PWNED*"))  # none of the injected commands ran
    assert loaded.namespace == module.NAMESPACE
    offered = {
        domain.name: {
            entry.symbol: (entry.code, entry.message, bool(entry.retryable))
            for entry in domain.errors
            if entry.status != "retired"
        }
        for domain in loaded.domains
    }
    assert {
        domain: {symbol: tuple(entry)[:3] for symbol, entry in table.items()}
        for domain, table in module._ENTRIES.items()
    } == offered
    assert module.RETIRED_CODES == {"RETIRED_ONE": 3004}
    # Only the declared names exist: nothing else was bound at the top level.
    bound = {name for name in vars(module) if not name.startswith("__")}
    assert bound == {name for name in _top_level_names(tmp_path / "hostile_errors.py") if not name.startswith("__")}
    evil = module.evil___import___os_system_touch_pwned_domain_error
    quoted = evil("QUOTES", value="V")
    assert (
        quoted.message
        == "\"\"\" ''' \" ' \\\" \\' {literal} V {value.__class__} {0} {__import__('os').system('touch PWNED_FORMAT')}"
    )
    assert evil("LINES").message == offered[loaded.domains[0].name]["LINES"][1]
    # The envelope's strings round-trip too; hints and the user message are filled like the message.
    [quotes_entry] = [entry for entry in loaded.errors if entry.symbol == "QUOTES"]
    assert module._ENTRIES[loaded.domains[0].name]["QUOTES"].hints == quotes_entry.hints
    assert quoted.hints == [
        "\"\"\" ''' \" ' \\\" \\' {literal} V {value.__class__} {0}",
        "line\nimport os; os.system('touch PWNED_HINT')\u2028\u0000",
    ]
    assert quoted.user_message == "'''); __import__('os').system('touch PWNED_USER') #V"
    assert quoted.retry_after_ms == 2147483647
    assert quoted.text().startswith("QUOTES (3002): ")
    assert evil("QUOTES", value="V", hint="{value} stays", retry_after_ms=5).hints[-1] == "{value} stays"
    assert module.domain_9_lives_error("CAT_NINE").code == 3101
    assert not list(tmp_path.glob("PWNED*"))


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        else:  # the docstring is the only other statement
            assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant), ast.dump(node)
    return names


# -- where the module goes -------------------------------------------------------------------
def test_helpers_path_follows_the_module_name(tmp_path):
    loaded = load_registry(str(VALID))
    assert helpers_path(loaded, tmp_path) == tmp_path / "acme_weather" / "errors.py"
    (tmp_path / "src").mkdir()
    assert helpers_path(loaded, tmp_path) == tmp_path / "src" / "acme_weather" / "errors.py"
    (tmp_path / "acme_weather").mkdir()  # the package sits at the root after all
    assert helpers_path(loaded, tmp_path) == tmp_path / "acme_weather" / "errors.py"


def test_helpers_path_needs_a_helpers_module(tmp_path):
    loaded = registry('schema_version = 1\nnamespace = "n"\n')
    with pytest.raises(RegistryError, match="no `helpers-module`"):
        helpers_path(loaded, tmp_path)


# -- which framework ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"server.py": "from fastmcp import FastMCP\nfrom mcp.types import TextContent\n"}, "fastmcp"),
        ({"a.py": "import mcp.server.fastmcp\n", "b.py": "import fastmcp.exceptions\n"}, "fastmcp"),
        ({"server.py": "from mcp.server.mcpserver import MCPServer\n"}, "mcp2"),
        ({"server.py": "from mcp.server import (\n    Server,\n    MCPServer,\n)\n"}, "mcp2"),
        ({"server.py": "from mcp import MCPError\n"}, "mcp2"),
        ({"server.py": "from mcp.server.fastmcp import FastMCP\n"}, "mcp1"),
        # A low-level server only: a module that imports on mcp 1.x and 2.x, never FastMCP's.
        ({"server.py": "from mcp.server import Server\n"}, "lowlevel"),
        ({"server.py": "from mcp.server import Server\n\n# not MCPServer (yet)\nx = (1)\n"}, "lowlevel"),
        ({"server.py": "from mcp.server.lowlevel import NotificationOptions, Server\n"}, "lowlevel"),
        ({"server.py": "from mcp.server.lowlevel import Server\n", "errors.py": "from mcp import MCPError\n"}, "lowlevel"),
        ({"server.py": "from mcp.server.lowlevel import Server\n", "app.py": "from mcp.server.fastmcp import FastMCP\n"}, "mcp1"),
        ({"README.md": "from fastmcp import FastMCP\n"}, "mcp1"),
        (
            {".venv/lib/x.py": "from fastmcp import FastMCP\n", "app.py": "from mcp.server.fastmcp import FastMCP\n"},
            "mcp1",
        ),
        ({"doc.py": '"""Not this: import fastmcpx."""\n'}, "mcp1"),
    ],
)
def test_detect_framework_from_imports(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert detect_framework(tmp_path) == expected


# -- the command -----------------------------------------------------------------------------
@pytest.fixture
def project(tmp_path):
    (tmp_path / "mcp-errors.toml").write_text(VALID.read_text())
    (tmp_path / "server.py").write_text("from mcp.server.mcpserver import MCPServer\n")
    return tmp_path


def test_run_generate_writes_the_module(project, capsys):
    assert run_generate(str(project / "mcp-errors.toml"), None, "auto", check=False) == 0
    target = project / "acme_weather" / "errors.py"
    assert target.read_text(encoding="utf-8") == generate_helpers(load_registry(str(VALID)), "mcp2")
    assert capsys.readouterr().err == f"mcplint: wrote {target} (mcp2)\n"
    assert [path.name for path in target.parent.iterdir()] == ["errors.py"]  # no temp file left


def test_run_generate_check_tells_current_stale_and_missing(project, capsys):
    registry_path = str(project / "mcp-errors.toml")
    target = project / "acme_weather" / "errors.py"
    assert run_generate(registry_path, None, "mcp1", check=True) == 1
    assert capsys.readouterr().err == f"mcplint: {target} is missing: run `mcplint registry generate`\n"
    run_generate(registry_path, None, "mcp1", check=False)
    capsys.readouterr()
    assert run_generate(registry_path, None, "mcp1", check=True) == 0
    assert capsys.readouterr().err == f"mcplint: {target} is up to date\n"
    (project / "mcp-errors.toml").write_text(VALID.read_text().replace("is unavailable.", "is down."))
    assert run_generate(registry_path, None, "mcp1", check=True) == 1
    assert capsys.readouterr().err == f"mcplint: {target} is stale: run `mcplint registry generate`\n"
    assert run_generate(registry_path, None, "mcp2", check=True) == 1  # another framework is stale too


def test_run_generate_to_an_output_path_keeps_the_file_mode(project, capsys):
    output = project / "out" / "errs.py"
    assert run_generate(str(project / "mcp-errors.toml"), str(output), "fastmcp", check=False) == 0
    assert "from fastmcp.tools import ToolResult" in output.read_text()
    output.chmod(0o640)
    assert run_generate(str(project / "mcp-errors.toml"), str(output), "mcp1", check=False) == 0
    assert output.stat().st_mode & 0o777 == 0o640
    assert "from mcp.shared.exceptions import McpError" in output.read_text()


@pytest.mark.parametrize(
    ("content", "framework", "message"),
    [
        ("schema_version = [", "mcp1", "invalid TOML"),
        (
            VALID.read_text().replace("code = 2001\n", ""),
            "mcp1",
            "cannot generate helpers: error `UPSTREAM_UNAVAILABLE` has no valid `code`",
        ),
        ('schema_version = 1\nnamespace = "n"\n', "mcp1", "no `helpers-module`"),
        (VALID.read_text(), "flask", "unknown framework 'flask'"),
    ],
)
def test_run_generate_errors_exit_2_with_one_line(tmp_path, capsys, content, framework, message):
    (tmp_path / "mcp-errors.toml").write_text(content)
    assert run_generate(str(tmp_path / "mcp-errors.toml"), None, framework, check=False) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcplint: error: ") and message in err and err.count("\n") == 1


def test_run_generate_missing_registry_exits_2(tmp_path, capsys):
    assert run_generate(str(tmp_path / "nope.toml"), None, "mcp1", check=True) == 2
    assert "cannot read registry" in capsys.readouterr().err


def test_stale_helper_module_is_a_registry_finding(tmp_path):
    from mcplint.registry import check_registry
    from mcplint.registry.codegen import run_generate

    registry = tmp_path / "mcp-errors.toml"
    registry.write_text(VALID.read_text(encoding="utf-8"), encoding="utf-8")
    assert [f for f in check_registry(str(registry)) if f.code == "REG016"] == []  # never generated
    assert run_generate(str(registry), None, "mcp1", check=False) == 0
    assert [f for f in check_registry(str(registry)) if f.code == "REG016"] == []  # current
    registry.write_text(registry.read_text().replace("The access token is not valid.", "Token rejected."))
    stale = [f for f in check_registry(str(registry)) if f.code == "REG016"]
    assert [(f.line, f.name) for f in stale] == [(4, "stale-helpers")]
    assert run_generate(str(registry), None, "mcp1", check=False) == 0
    assert [f for f in check_registry(str(registry)) if f.code == "REG016"] == []


# -- the error envelope on the wire ------------------------------------------------------------
PROBE = REGISTRIES / "codegen" / "probe.toml"
VALID_HASH_BEFORE_THE_ENVELOPE = "40949c3ec0b9e79038338bf904222a047f43a102b532baea794e20a03ed75b2f"


@pytest.fixture
def probe_errors(tmp_path, monkeypatch, stub_mcp1):
    for variable in ("MCP_ERRORS_VERBOSE", "MCP_ERROR_METRICS"):
        monkeypatch.delenv(variable, raising=False)
    return import_generated(tmp_path, PROBE, monkeypatch, "probe_errors")


def test_the_envelope_is_in_data_filled_from_metadata(probe_errors):
    error = probe_errors.widget_error("WIDGETS_LOCKED", widgetId="w-7")
    assert error.to_wire()["data"] == {
        "domain": "widgets",
        "symbol": "WIDGETS_LOCKED",
        "retryable": False,
        "details": None,
        "metadata": {"widgetId": "w-7"},
        "recovery": "try-alternative",
        "hints": ["Unpin widget w-7 first, or work on a copy."],
        "userMessage": "Widget w-7 is pinned; unpin it in the app.",
    }
    assert (error.recovery, error.hints, error.retry_after_ms, error.user_message) == (
        "try-alternative",
        ["Unpin widget w-7 first, or work on a copy."],
        None,
        "Widget w-7 is pinned; unpin it in the app.",
    )


def test_the_text_form_carries_code_hints_recovery_and_user_message(probe_errors):
    assert probe_errors.widget_error("WIDGETS_LOCKED", widgetId="w-7").text() == (
        "WIDGETS_LOCKED (4004): Widget w-7 is pinned.\n"
        "Hint: Unpin widget w-7 first, or work on a copy.\n"
        "Recovery: try-alternative.\n"
        "User message: Widget w-7 is pinned; unpin it in the app."
    )
    assert probe_errors.widget_error("WIDGETS_BUSY").text() == (
        "WIDGETS_BUSY (4005): The widget store is busy.\nRecovery: retry-later, after 1500 ms."
    )


def test_a_call_adds_a_hint_and_replaces_the_delay(probe_errors):
    error = probe_errors.widget_error("WIDGETS_BUSY", hint="The nightly sync runs until 02:00.", retry_after_ms=250)
    assert error.to_wire()["data"]["hints"] == ["The nightly sync runs until 02:00."]
    assert error.to_wire()["data"]["retryAfterMs"] == 250
    assert error.text() == (
        "WIDGETS_BUSY (4005): The widget store is busy.\n"
        "Hint: The nightly sync runs until 02:00.\n"
        "Recovery: retry-later, after 250 ms."
    )
    locked = probe_errors.widget_error("WIDGETS_LOCKED", widgetId="w-1", hint="A copy keeps the history.")
    assert locked.hints == ["Unpin widget w-1 first, or work on a copy.", "A copy keeps the history."]


def test_a_derived_recovery_is_in_the_text_only(probe_errors):
    error = probe_errors.widget_error("WIDGETS_NOT_FOUND", widgetId="w-1")
    assert "recovery" not in error.to_wire()["data"]  # the registry does not declare one: data as before
    assert error.recovery == "check-input"  # NOT_FOUND
    assert error.text() == "WIDGETS_NOT_FOUND (4001): Widget w-1 not found.\nRecovery: check-input."


def test_every_family_keeps_the_envelope(probe_errors):
    error = probe_errors.widget_error("WIDGETS_LOCKED", widgetId="w-7")
    for converted in (error.for_resource(), error.for_prompt(), error.for_resource().for_tool()):
        assert converted.to_wire() == error.to_wire()
    assert error.for_resource().error.data["hints"] == ["Unpin widget w-7 first, or work on a copy."]
    # Resource and prompt errors keep the message as the JSON-RPC message; the data has the rest.
    assert str(error.for_resource()) == "Widget w-7 is pinned."
    assert str(error) == error.text()


def test_tool_result_text_then_json(probe_errors):
    error = probe_errors.widget_error("WIDGETS_LOCKED", widgetId="w-7")
    result = error.tool_result()
    assert [block.text for block in result.content] == [error.text(), json.dumps(error.tool_payload())]
    assert result.structuredContent["error"]["recovery"] == "try-alternative"
    assert result.structuredContent["error"]["userMessage"] == "Widget w-7 is pinned; unpin it in the app."


def test_domain_defaults_reach_the_generated_entries(tmp_path, monkeypatch, stub_mcp1):
    registry = tmp_path / "mcp-errors.toml"
    registry.write_text(
        'schema_version = 1\nnamespace = "demo"\n[domains.d]\nrange = [1, 99]\nhelper = "d_error"\n'
        'recovery = "try-alternative"\nhints = ["Look the id up first."]\nretry-after-ms = 700\n'
        '[domains.d.errors.D_GONE]\ncode = 1\nmessage = "Gone."\nretryable = false\n'
        '[domains.d.errors.D_BUSY]\ncode = 2\nmessage = "Busy."\nretryable = true\nrecovery = "retry-later"\n',
        encoding="utf-8",
    )
    module = import_generated(tmp_path, registry, monkeypatch, "defaults_errors")
    assert module.d_error("D_GONE").text() == "D_GONE (1): Gone.\nHint: Look the id up first.\nRecovery: try-alternative."
    assert module.d_error("D_BUSY").text() == (
        "D_BUSY (2): Busy.\nHint: Look the id up first.\nRecovery: retry-later, after 700 ms."
    )


def test_the_hash_of_a_registry_without_the_envelope_is_unchanged():
    # Pinned before the envelope existed: helpers generated then are stale only by the template.
    assert registry_hash(load_registry(str(VALID))) == VALID_HASH_BEFORE_THE_ENVELOPE


# -- the partial-failure result of a batch tool ---------------------------------------------------
def test_a_batch_result_lists_every_item_and_the_failures_in_its_text(probe_errors):
    batch = probe_errors.BatchResult()
    batch.applied(0, {"id": "w-1"})
    batch.failed(1, probe_errors.widget_error("WIDGETS_LOCKED", widgetId="w-7"))
    batch.skipped(2, "Not attempted after item 1 failed.")
    assert batch.text() == (
        "3 items: 1 applied, 1 failed, 1 skipped.\n"
        "[1] failed: WIDGETS_LOCKED (4004): Widget w-7 is pinned.\n"
        "  Hint: Unpin widget w-7 first, or work on a copy.\n"
        "  Recovery: try-alternative.\n"
        "  User message: Widget w-7 is pinned; unpin it in the app.\n"
        "[2] skipped: Not attempted after item 1 failed."
    )
    assert batch.payload({"saved": 1}) == {
        "total": 3,
        "applied": 1,
        "failed": 1,
        "skipped": 1,
        "items": [
            {"index": 0, "status": "applied", "result": {"id": "w-1"}},
            {
                "index": 1,
                "status": "failed",
                "symbol": "WIDGETS_LOCKED",
                "code": 4004,
                "message": "Widget w-7 is pinned.",
                "retryable": False,
                "recovery": "try-alternative",
                "hints": ["Unpin widget w-7 first, or work on a copy."],
            },
            {"index": 2, "status": "skipped", "message": "Not attempted after item 1 failed."},
        ],
        "result": {"saved": 1},
    }
    result = batch.tool_result({"saved": 1})
    assert result.isError is False  # one item succeeded
    assert [block.text for block in result.content] == [batch.text(), json.dumps(batch.payload({"saved": 1}))]
    assert result.structuredContent == batch.payload({"saved": 1})


def test_a_batch_is_an_error_only_when_there_were_items_and_none_was_applied(probe_errors):
    batch = probe_errors.BatchResult()
    assert batch.tool_result().isError is False
    assert batch.text() == "0 items: 0 applied, 0 failed, 0 skipped."
    batch.failed("a.txt", probe_errors.widget_error("WIDGETS_BUSY"))
    batch.skipped("b\ntxt")
    assert batch.tool_result().isError is True
    assert batch.text() == (
        "2 items: 0 applied, 1 failed, 1 skipped.\n"
        '["a.txt"] failed: WIDGETS_BUSY (4005): The widget store is busy.\n'
        "  Recovery: retry-later, after 1500 ms.\n"
        '["b\\ntxt"] skipped.'
    )
    assert batch.items[0] == {
        "key": "a.txt",
        "status": "failed",
        "symbol": "WIDGETS_BUSY",
        "code": 4005,
        "message": "The widget store is busy.",
        "retryable": True,
        "recovery": "retry-later",
        "retryAfterMs": 1500,
    }


def test_a_failed_item_stays_failed(probe_errors):
    batch = probe_errors.BatchResult()
    batch.failed(0, probe_errors.widget_error("WIDGETS_NOT_FOUND", widgetId="w-1"))
    batch.applied(0)  # a later step's `else:` of the same item
    batch.applied(1)
    assert [(item["index"], item["status"]) for item in batch.items] == [(0, "failed"), (1, "applied")]
    assert batch.text() == (
        "2 items: 1 applied, 1 failed, 0 skipped.\n"
        "[0] failed: WIDGETS_NOT_FOUND (4001): Widget w-1 not found.\n  Recovery: check-input."
    )
