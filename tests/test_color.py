"""Colour: --color, NO_COLOR, FORCE_COLOR and the terminal (mcplint.terminal)."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys

import pytest
from test_cli import BAD_TOOL, run_cli

from mcplint.terminal import color_enabled

ESCAPE = "\x1b["


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("choice", "environ", "terminal", "expected"),
    [
        ("auto", {}, True, True),
        ("auto", {}, False, False),
        ("auto", {"NO_COLOR": "1"}, True, False),
        ("auto", {"NO_COLOR": ""}, True, True),  # empty means unset (no-color.org)
        ("auto", {"FORCE_COLOR": "1"}, False, True),
        ("auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False),
        ("always", {"NO_COLOR": "1"}, False, True),
        ("never", {"FORCE_COLOR": "1"}, True, False),
    ],
)
def test_color_decision(choice, environ, terminal, expected):
    stream = _Terminal() if terminal else io.StringIO()
    assert color_enabled(choice, stream, environ) is expected


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    (tmp_path / "server.py").write_text(BAD_TOOL)
    return tmp_path


def test_color_always_colours_a_pipe(server):
    assert ESCAPE in run_cli("check", "--color", "always", "server.py", cwd=server).stdout
    assert ESCAPE not in run_cli("check", "server.py", cwd=server).stdout


def test_force_color_colours_a_pipe_and_no_color_wins(server, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert ESCAPE in run_cli("check", "server.py", cwd=server).stdout
    monkeypatch.setenv("NO_COLOR", "1")
    assert ESCAPE not in run_cli("check", "server.py", cwd=server).stdout
    assert ESCAPE in run_cli("check", "--color", "always", "server.py", cwd=server).stdout


def test_color_never_on_a_report_file(server):
    run_cli("check", "--color", "always", "-o", "report.txt", "server.py", cwd=server)
    assert ESCAPE not in (server / "report.txt").read_text()


def _on_a_terminal(cwd, *args, **environment) -> str:
    """stdout and stderr of `mcplint check` run on a pseudo-terminal, as a user's shell runs it."""
    controller, terminal = pty.openpty()
    env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR", "CI")}
    process = subprocess.Popen(
        [sys.executable, "-m", "mcplint", "check", *args],
        cwd=cwd, stdout=terminal, stderr=terminal, env={**env, **environment},
    )  # fmt: skip
    os.close(terminal)
    output = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: the process is gone
            break
        if not chunk:
            break
        output += chunk
    process.wait(timeout=60)
    os.close(controller)
    return output.decode("utf-8", "replace")


def test_no_color_on_a_real_terminal(server):
    assert ESCAPE in _on_a_terminal(server, "server.py")  # the test can see colour...
    assert ESCAPE not in _on_a_terminal(server, "server.py", NO_COLOR="1")  # ...and NO_COLOR removes it


def test_output_format_is_an_alias_of_format(server):
    result = run_cli("check", "--output-format", "concise", "server.py", cwd=server)
    assert result.stdout.startswith("server.py:9:9: MCP002")
    assert result.exit_code == 1


def test_registry_check_takes_color_too(tmp_path, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / "mcp-errors.toml").write_text("schema_version = 1\nbogus = 1\n")
    coloured = run_cli("registry", "check", "--color", "always", cwd=tmp_path)
    assert coloured.exit_code == 1 and ESCAPE in coloured.stdout
    assert ESCAPE not in run_cli("registry", "check", cwd=tmp_path).stdout
