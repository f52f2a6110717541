"""docs/configuration.md names every config key, every option of every command, every
rule option with its default, and every environment variable mcplint reads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import click
import pytest

from mcplint import config
from mcplint.cli import main
from mcplint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")


def _commands(command: click.Command, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    if isinstance(command, click.Group):
        found = []
        for name, sub in command.commands.items():
            found.extend(_commands(sub, (*path, name)))
        return found
    return [(path, command)]


def _section(heading: str) -> str:
    """The text under a `### ...` heading that starts with ``heading``, up to the next heading."""
    match = re.search(rf"^### `{re.escape(heading)}[^\n]*\n(.*?)(?=^##)", DOC, re.MULTILINE | re.DOTALL)
    assert match is not None, f"docs/configuration.md has no section for `{heading}`"
    return match.group(1)


COMMANDS = _commands(main)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(path) for path, _ in COMMANDS])
def test_every_option_of_every_command_is_documented(path, command):
    if path in (("rule",), ("rules",), ("clean",)):
        text = _section("mcplint rule CODE")
    elif path == ("server",):
        text = _section("mcplint server")
    else:
        text = _section("mcplint " + " ".join(path))
    for parameter in command.params:
        if not isinstance(parameter, click.Option) or parameter.hidden:
            continue
        for name in (*parameter.opts, *parameter.secondary_opts):
            if name.startswith("--"):
                assert f"`{name}" in text, f"`mcplint {' '.join(path)} {name}` is not in docs/configuration.md"


def test_every_config_key_is_documented():
    keys = re.findall(r"^\| `([a-z-]+)` \|", DOC, re.MULTILINE)
    assert set(config.KNOWN_KEYS) <= set(keys), set(config.KNOWN_KEYS) - set(keys)


def test_the_default_excludes_are_listed():
    row = next(line for line in DOC.splitlines() if line.startswith("| `exclude` |"))
    assert re.findall(r"`([^`]+)`", row)[1:] == list(config.DEFAULT_EXCLUDE)


def test_every_rule_option_is_documented_with_its_default():
    rows = {
        (code, option): default
        for code, option, default in re.findall(r"^\| (MCP\d{3}) \| `([\w-]+)` \| (.+?) \|$", DOC, re.MULTILINE)
    }
    expected = {(rule.code, option): default for rule in ALL_RULES for option, default in rule.options.items()}
    assert set(rows) == set(expected)
    for key, default in expected.items():
        if key == ("MCP002", "builtins"):
            continue  # "every builtin exception class": the list is too long for a table
        shown = f'"{default}"' if isinstance(default, str) else "[" + ", ".join(f'"{item}"' for item in default) + "]"
        assert rows[key] == f"`{shown}`", key


def _environment_reads(tree: ast.AST) -> set[str]:
    """`os.environ.get("X")`, `os.getenv("X")`, `environ["X"]`, click's `envvar="X"`, and a
    constant named like `ENVIRONMENT_VARIABLE = "X"`."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name.endswith(("environ.get", "getenv")) and node.args and isinstance(node.args[0], ast.Constant):
                found.add(node.args[0].value)
            found.update(
                keyword.value.value for keyword in node.keywords
                if keyword.arg == "envvar" and isinstance(keyword.value, ast.Constant)
            )  # fmt: skip
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("environ"):
            if isinstance(node.slice, ast.Constant):
                found.add(node.slice.value)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            if any(isinstance(target, ast.Name) and target.id.endswith("ENVIRONMENT_VARIABLE") for target in node.targets):
                found.add(node.value.value)
    return {name for name in found if isinstance(name, str)}


def test_every_environment_variable_read_is_documented():
    read: set[str] = set()
    for source in (ROOT / "mcplint").rglob("*.py"):
        read |= _environment_reads(ast.parse(source.read_text(encoding="utf-8")))
    read.discard("FASTMCP_MASK_ERROR_DETAILS")  # FastMCP's own setting: whether a server masks details
    assert {"MCPLINT_CACHE_DIR", "NO_COLOR", "MCPLINT_OUTPUT_FORMAT"} <= read  # the scan sees what it must
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", DOC, re.MULTILINE))
    assert read <= documented, read - documented
