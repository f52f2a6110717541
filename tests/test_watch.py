"""--watch: check again on change; a clear usage error without the optional watchfiles."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import types

import pytest
from test_cli import BAD_TOOL, run_cli
from test_interrupt import default_sigint

from mcplint.watch import relevant


def test_without_watchfiles_it_is_a_one_line_usage_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # import fails as if not installed
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--watch", ".", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == "mcplint: error: --watch needs the watchfiles package: pip install 'mcplint[watch]'\n"


def test_each_change_runs_the_check_again(tmp_path, monkeypatch):
    watched = []

    def fake_watch(*paths, watch_filter):
        watched.append((paths, watch_filter(None, "x/server.py"), watch_filter(None, "x/notes.txt")))
        (tmp_path / "server.py").write_text("x = 1\n")  # the user fixes the file
        yield {(1, str(tmp_path / "server.py"))}

    monkeypatch.setitem(sys.modules, "watchfiles", types.SimpleNamespace(watch=fake_watch))
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--watch", "--no-show-source", ".", cwd=tmp_path)
    assert result.exit_code == 0
    assert watched == [((".",), True, False)]
    assert result.stdout.count("Found 2 errors.") == 1 and result.stdout.endswith("All checks passed!\n")
    assert "File change detected (1 file); checking again..." in result.stderr


def test_relevant_files():
    assert relevant("a/b.py") and relevant("a/b.pyi") and relevant("pyproject.toml") and relevant("x/mcp-errors.toml")
    assert not relevant("a/b.json") and not relevant(".mcplint_cache/0.1.0/x.json") and not relevant("README.md")


def test_watch_with_the_real_watchfiles(tmp_path):
    pytest.importorskip("watchfiles")
    (tmp_path / "server.py").write_text(BAD_TOOL)
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "mcplint", "check", "--watch", "--format", "concise", "."],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment, start_new_session=True,
        preexec_fn=default_sigint,
    )  # fmt: skip
    output = b""

    def wait_for(text: bytes, seconds: float = 30) -> None:
        nonlocal output
        deadline = time.monotonic() + seconds
        while text not in output and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.1)[0]:
                output += os.read(process.stdout.fileno(), 65536)
        assert text in output, output.decode()

    try:
        wait_for(b"Found 2 errors.")
        time.sleep(0.5)
        (tmp_path / "server.py").write_text("x = 1\n")
        wait_for(b"All checks passed!")
        os.killpg(process.pid, signal.SIGINT)
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.1)[0]:
                output += os.read(process.stdout.fileno(), 65536)
        assert process.poll() == 130, output.decode()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
