"""A migrated message reaches the wire exactly as the site wrote it (issue 12, item 6).

Property: any message text, written as a string or an f-string literal in a raise,
goes through `mcplint migrate --write` (site message → registry entry → generated
helper) and the helper's error carries exactly that text, newlines, quotes,
braces and backslashes included.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_cli import run_cli

from mcplint.registry.load import load_registry

SERVER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("widgets")


@mcp.tool()
def find(name: str) -> str:
    raise ValueError({literal})
"""
# The characters that broke messages on real servers, and a few ordinary ones.
TEXT = st.text(alphabet=st.sampled_from(list("ab Z.:!?,-\n\t\r\"'{}\\é漢\x00\x7f")), min_size=1, max_size=24)
PLACEHOLDER_MARK = "\x01NAME\x01"


def fstring_literal(text: str) -> str:
    """`text` as an f-string literal whose `{name}` is where PLACEHOLDER_MARK is."""
    body = text.replace("{", "{{").replace("}", "}}")
    return "f" + repr(body).replace(repr(PLACEHOLDER_MARK)[1:-1], "{name}")


class _Model:
    def __init__(self, **fields: object) -> None:
        self.__dict__.update(fields)


@contextmanager
def stub_mcp1():
    """The names the mcp1 helpers import, as plain classes (tests/sdk/ runs the real SDK)."""

    class McpError(Exception):
        def __init__(self, error: object) -> None:
            super().__init__(getattr(error, "message", ""))
            self.error = error

    names = {
        "mcp.server.fastmcp.exceptions": {"ToolError": type("ToolError", (Exception,), {})},
        "mcp.shared.exceptions": {"McpError": McpError},
        "mcp.types": {name: type(name, (_Model,), {}) for name in ("CallToolResult", "ErrorData", "TextContent")},
    }
    saved = {name: sys.modules.get(name) for name in ("mcp", "mcp.server", "mcp.server.fastmcp", "mcp.shared", *names)}
    try:
        for dotted in saved:
            module = types.ModuleType(dotted)
            module.__dict__.update(names.get(dotted, {}))
            sys.modules[dotted] = module
        yield
    finally:
        for dotted, module in saved.items():
            if module is None:
                sys.modules.pop(dotted, None)
            else:
                sys.modules[dotted] = module


def wire_message(root: Path, **metadata: str) -> str:
    (entry,) = load_registry(str(root / "mcp-errors.toml")).errors
    with stub_mcp1():
        spec = importlib.util.spec_from_file_location(f"helpers_{id(root)}", root / "mcp_errors.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.server_error(entry.symbol, **metadata).message


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, as_fstring=st.booleans())
@example(text="line one\nline two", as_fstring=True)  # became a literal `\n` on a real server
@example(text='say "hi" to {x} \\d: ', as_fstring=True)
def test_any_message_reaches_the_wire_exactly(tmp_path_factory, text, as_fstring):
    root = tmp_path_factory.mktemp("messages")
    if as_fstring:
        literal, expected = fstring_literal(f"Widget {PLACEHOLDER_MARK} {text}"), f"Widget w-1 {text}"
    else:
        literal, expected = repr(f"Widget {text}"), f"Widget {text}"
    (root / "server.py").write_text(SERVER.format(literal=literal))
    result = run_cli("migrate", "--write", "-j", "1", ".", cwd=root)
    assert result.exit_code == 0, result.stderr
    assert "caught_as(ValueError)" in (root / "server.py").read_text(), result.stderr
    assert wire_message(root, name="w-1") == expected
