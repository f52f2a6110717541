"""Library code stays library code (issue 12, item 3).

A module that imports no MCP framework and defines no handler keeps raising its
own exception class; where the raise reaches a tool uncaught, the migration
maps it in the tool, around the call (`except ValueError as error: raise
<helper>(...).caught_as(ValueError) from error`), or leaves the site with the
reason when that is not clearly right.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_cli import run_cli

from mcplint.migrate_boundary import LIBRARY

CONFIG = '''\
"""Configuration helpers: no MCP here."""


def parse_port(text: str) -> int:
    if not text.isdigit():
        raise ValueError("The port must be a number")
    return int(text)


class Client:
    def fetch(self, url: str) -> str:
        if not url.startswith("https://"):
            raise ValueError("Only https URLs are allowed")
        return url

    def post(self, url: str) -> str:
        if not url:
            raise ValueError(f"Cannot post to {url!r}")
        return url

    def delete(self, url: str, force: bool = False) -> str:
        if not force and url.endswith("/"):
            raise ValueError(f"Cannot delete the collection {url}")
        return url
'''

SERVER = """\
from mcp.server.fastmcp import FastMCP

from app.config import Client, parse_port

mcp = FastMCP("app")
client = Client()


@mcp.tool()
def serve(port: str) -> str:
    number = parse_port(port)
    return f"serving on {number}"


@mcp.tool()
def get(url: str) -> str:
    return client.fetch(url)


@mcp.tool()
def post(url: str) -> str:
    return client.post(url)


@mcp.tool()
def remove(target: str) -> str:
    done = client.delete(target)
    return f"removed {done}"
"""


def project(root: Path, files: dict[str, str]) -> Path:
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text("")
    for name, text in files.items():
        (root / "app" / name).write_text(text)
    return root


def left_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("app/")]


def test_a_library_raise_keeps_its_class_and_is_mapped_in_the_tool_that_calls_it(tmp_path):
    root = project(tmp_path, {"config.py": CONFIG, "server.py": SERVER})
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert result.exit_code == 0, result.stderr
    assert (root / "app" / "config.py").read_text() == CONFIG  # the library is untouched
    server = (root / "app" / "server.py").read_text()
    assert (
        "    try:\n"
        "        number = parse_port(port)\n"
        "    except ValueError as error:\n"
        '        raise app_error("THE_PORT_MUST_BE_A_NUMBER").caught_as(ValueError) from error\n'
    ) in server
    assert (
        "    try:\n"
        "        return client.fetch(url)\n"
        "    except ValueError as error:\n"
        '        raise app_error("ONLY_HTTPS_URLS_ARE_ALLOWED").caught_as(ValueError) from error\n'
    ) in server
    assert "from app.errors import app_error" in server
    ast.parse(server)
    registry = (root / "mcp-errors.toml").read_text()
    assert 'message = "The port must be a number"' in registry and 'message = "Only https URLs are allowed"' in registry
    # A placeholder that is the library function's parameter: the tool passes its own local for it.
    assert (
        "    try:\n"
        "        done = client.delete(target)\n"
        "    except ValueError as error:\n"
        '        raise app_error("CANNOT_DELETE_THE_COLLECTION", url=target).caught_as(\n'
        "            ValueError\n"
        "        ) from error\n"
    ) in server  # laid out to 88 columns by black, as every rewrite is
    assert 'message = "Cannot delete the collection {url}"' in registry
    # The f-string's placeholder is known only inside the library: left, with that reason.
    assert left_lines(result.stderr) == [
        f"app/config.py:18: MCP002 {LIBRARY}; its message has placeholders ({{url}}) only the library fills: "
        "map it in the tool by hand"
    ]
    assert "return client.post(url)\n" in server and "raise" not in server.split("def post")[1].split("def remove")[0]
    again = run_cli("migrate", ".", cwd=root)
    assert "nothing to migrate" in again.stderr


def test_the_dry_run_shows_the_mapping_in_the_tool_s_one_diff(tmp_path):
    root = project(tmp_path, {"config.py": CONFIG, "server.py": SERVER})
    result = run_cli("migrate", ".", cwd=root)
    assert result.exit_code == 1
    assert result.stdout.count("--- app/server.py") == 1
    assert '+        raise app_error("THE_PORT_MUST_BE_A_NUMBER").caught_as(ValueError) from error' in result.stdout
    assert "app/config.py" not in result.stdout


CAUGHT_SERVER = """\
from mcp.server.fastmcp import FastMCP

from app.config import parse_port

mcp = FastMCP("app")


@mcp.tool()
def serve(port: str) -> str:
    try:
        number = parse_port(port)
    except ValueError:
        return "serving on the default port"
    return f"serving on {number}"
"""


def test_a_library_error_every_caller_catches_is_left_alone(tmp_path):
    root = project(tmp_path, {"config.py": CONFIG, "server.py": CAUGHT_SERVER})
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert result.exit_code == 0
    assert (root / "app" / "config.py").read_text() == CONFIG
    assert (root / "app" / "server.py").read_text() == CAUGHT_SERVER
    assert "nothing to migrate" in result.stderr


MCP_AWARE = """\
from mcp.types import TextContent


def render(text: str) -> TextContent:
    if not text:
        raise ValueError("Nothing to render")
    return TextContent(type="text", text=text)
"""
MCP_AWARE_SERVER = """\
from mcp.server.fastmcp import FastMCP

from app.render import render

mcp = FastMCP("app")


@mcp.tool()
def show(text: str) -> str:
    return render(text).text
"""


def test_a_module_that_imports_mcp_is_rewritten_in_place(tmp_path):
    root = project(tmp_path, {"render.py": MCP_AWARE, "server.py": MCP_AWARE_SERVER})
    assert run_cli("migrate", "--write", ".", cwd=root).exit_code == 0
    assert 'raise app_error("NOTHING_TO_RENDER").caught_as(ValueError)' in (root / "app" / "render.py").read_text()
    assert (root / "app" / "server.py").read_text() == MCP_AWARE_SERVER


HEAD = """\
from mcp.server.fastmcp import FastMCP

from app.config import Client, parse_port

mcp = FastMCP("app")
client = Client()

"""
UNCLEAR = {
    "through a helper too": (
        "def _port_of(text: str) -> int:\n    return parse_port(text)\n\n\n@mcp.tool()\n"
        'def serve(port: str, spare: str) -> str:\n    return f"on {parse_port(port)} or {_port_of(spare)}"\n',
        "app/config.py:6: MCP002 {}; tool `app.server.serve` also reaches it through `_port_of`: map it by hand",
    ),
    "a prompt reaches it": (
        '@mcp.prompt()\ndef greet(port: str) -> str:\n    return f"port {parse_port(port)}"\n',
        "app/config.py:6: MCP002 {}; prompt `app.server.greet` reaches it: only a tool's call is mapped",
    ),
    "a receiver of unknown class": (
        "@mcp.tool()\ndef get(url: str, client: Client) -> str:\n    return client.fetch(url)\n",
        "app/config.py:13: MCP002 {}; tool `app.server.get` calls `.fetch` on an object of unknown class",
    ),
    "an expression for a placeholder": (
        "@mcp.tool()\ndef remove(target: str) -> str:\n    return client.delete(target.strip())\n",
        "app/config.py:23: MCP002 {}; tool `app.server.remove` does not pass a local for each placeholder ({{url}}): "
        "map it by hand",
    ),
    "a call in a statement header": (
        "@mcp.tool()\ndef serve(port: str) -> str:\n    if parse_port(port) > 80:\n        return 'high'\n    return 'low'\n",
        "app/config.py:6: MCP002 {}; tool `app.server.serve` calls it in a statement header or a `try`: map it by hand",
    ),
}


@pytest.mark.parametrize("case", list(UNCLEAR))
def test_a_mapping_that_is_not_clearly_right_is_left_with_the_reason(tmp_path, case):
    tools, reason = UNCLEAR[case]
    server = HEAD + "\n" + tools
    root = project(tmp_path, {"config.py": CONFIG, "server.py": server})
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert (root / "app" / "config.py").read_text() == CONFIG
    assert (root / "app" / "server.py").read_text() == server
    assert reason.format(LIBRARY) in left_lines(result.stderr)


TWO_ERRORS = """\
def parse_port(text: str) -> int:
    if not text:
        raise ValueError("The port is missing")
    if not text.isdigit():
        raise ValueError("The port must be a number")
    return int(text)
"""
TWO_ERRORS_SERVER = """\
from mcp.server.fastmcp import FastMCP

from app.config import parse_port

mcp = FastMCP("app")


@mcp.tool()
def serve(port: str) -> str:
    return f"serving on {parse_port(port)}"
"""


def test_two_library_messages_through_one_call_are_left(tmp_path):
    root = project(tmp_path, {"config.py": TWO_ERRORS, "server.py": TWO_ERRORS_SERVER})
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert (root / "app" / "server.py").read_text() == TWO_ERRORS_SERVER
    assert [line.split(": MCP002 ")[1] for line in left_lines(result.stderr)] == [
        f"{LIBRARY}; several library errors pass through one statement of a tool: one `except` cannot tell them apart"
    ] * 2


def test_a_unified_diff_applied_gives_the_text_it_was_made_from():
    """The dry run maps library calls in the file as the rules' fixes leave it: their diff, applied."""
    import random

    from mcplint.engine.fixer import unified_diff
    from mcplint.migrate_boundary import patched

    generator = random.Random(12)
    for _ in range(500):
        before = [f"line {generator.randint(0, 9)}\n" for _ in range(generator.randint(0, 30))]
        after = list(before)
        for _ in range(generator.randint(0, 6)):
            if generator.random() < 0.5 or not after:
                after.insert(generator.randint(0, len(after)), f"new {generator.randint(0, 9)}\n")
            else:
                after.pop(generator.randint(0, len(after) - 1))
        old, new = "".join(before), "".join(after)
        assert patched(old, unified_diff(old, new, "x.py")) == new


def test_a_tool_registered_on_a_server_of_another_module_is_mapped(tmp_path):
    """The tool's module imports its server (`from app.core import server`): its level is the
    level of the server that module builds (a high-level one here), not guessed from a name."""
    core = 'from mcp.server.fastmcp import FastMCP\n\nserver = FastMCP("app")\n'
    tools = (
        "from app.config import parse_port\nfrom app.core import server\n\n\n@server.tool()\n"
        "def serve(port: str) -> str:\n    number = parse_port(port)\n    return str(number)\n"
    )
    root = project(tmp_path, {"config.py": CONFIG, "core.py": core, "tools.py": tools})
    assert run_cli("migrate", "--write", ".", cwd=root).exit_code == 0
    assert (
        'raise app_error("THE_PORT_MUST_BE_A_NUMBER").caught_as(ValueError) from error'
        in (root / "app" / "tools.py").read_text()
    )
    low = core.replace("from mcp.server.fastmcp import FastMCP", "from mcp.server.lowlevel import Server")
    low = low.replace('FastMCP("app")', 'Server("app")')
    low_tools = (
        "from app.config import parse_port\nfrom app.core import server\n\n\n@server.call_tool()\n"
        "async def call_tool(name: str, arguments: dict) -> list:\n    parse_port(arguments['port'])\n    return []\n"
    )
    other = tmp_path / "low"
    other.mkdir()
    root = project(other, {"config.py": CONFIG, "core.py": low, "tools.py": low_tools, "fast.py": SERVER})
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert (root / "app" / "tools.py").read_text() == low_tools
    assert (
        f"app/config.py:6: MCP002 {LIBRARY}; low-level `app.tools.call_tool` answers with a result, not a raise: "
        "map it in the handler by hand"
    ) in left_lines(result.stderr)


def test_two_library_functions_in_one_statement_are_left(tmp_path):
    lookup = 'def lookup(key: str) -> str:\n    if key != "a":\n        raise KeyError("No such key")\n    return key\n'
    server = (
        "from mcp.server.fastmcp import FastMCP\n\nfrom app.config import parse_port\nfrom app.keys import lookup\n\n"
        'mcp = FastMCP("app")\n\n\n@mcp.tool()\ndef both(port: str, key: str) -> str:\n'
        '    return f"{parse_port(port)} {lookup(key)}"\n'
    )
    root = project(tmp_path, {"config.py": CONFIG, "keys.py": lookup, "server.py": server})
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert (root / "app" / "server.py").read_text() == server
    reasons = {line.split(": ", 1)[0]: line.split("; ", 1)[1] for line in left_lines(result.stderr)}
    assert (
        reasons["app/config.py:6"]
        == reasons["app/keys.py:3"]
        == ("several library errors pass through one statement of a tool: one `except` cannot tell them apart")
    )
