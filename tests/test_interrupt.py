"""Ctrl-C: exit 130, the progress bar erased, no "Aborted!", no worker left behind.

A real Ctrl-C, as a terminal sends it: SIGINT to the whole foreground process
group of a `mcplint check` running on a pseudo-terminal with worker processes.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cli import BAD_TOOL

TOOLS = "".join(
    f"\n\n@mcp.tool()\ndef tool_{index}(x: str) -> dict:\n    if not x:\n        raise ValueError('bad')\n    return {{'ok': x}}\n"
    for index in range(40)
)


def default_sigint() -> None:
    """In the child before exec: Ctrl-C's default action, whatever the test runner set (an
    ignored signal stays ignored across exec, and Python keeps ignoring it)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir() or sys.platform != "linux", reason="reads /proc")
def test_ctrl_c_exits_130_clean(tmp_path):
    for index in range(400):  # about 3 MB: a pool of workers, a bar, and seconds of work to interrupt
        (tmp_path / f"server_{index}.py").write_text(BAD_TOOL + TOOLS)
    controller, terminal = pty.openpty()
    environment = {key: value for key, value in os.environ.items() if key not in ("CI", "NO_COLOR", "FORCE_COLOR")}
    process = subprocess.Popen(
        [sys.executable, "-m", "mcplint", "check", "--no-cache", "--jobs", "2", "."],
        cwd=tmp_path, stdin=terminal, stdout=terminal, stderr=terminal, env=environment,
        start_new_session=True,  # its own process group, as a shell's foreground job
        preexec_fn=default_sigint,
    )  # fmt: skip
    os.close(terminal)
    output = b""

    def read(seconds: float) -> None:
        nonlocal output
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.05)
            if ready:
                try:
                    output += os.read(controller, 65536)
                except OSError:
                    return

    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and (len(workers) < 2 or b"Linting" not in output):
        read(0.1)
        workers = _children(process.pid)
        assert process.poll() is None, output.decode(errors="replace")
    assert len(workers) >= 2 and b"Linting" in output, "the run never showed its workers and bar"
    read(0.2)
    assert process.poll() is None, "the run ended before it could be interrupted"
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C on a terminal does
    deadline = time.monotonic() + 30
    while process.poll() is None and time.monotonic() < deadline:
        read(0.1)  # keep draining the terminal: a full one would block the process's writes
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    code = process.wait()
    read(0.2)
    os.close(controller)
    text = output.decode("utf-8", "replace")
    after = text[text.rindex("Linting") :]
    assert code == 130, text[-2000:]
    assert "Aborted" not in text and "Traceback" not in text and "KeyboardInterrupt" not in text
    assert "\x1b[2K" in after  # rich erased the bar's line (the last "Linting" is the last draw)...
    assert "━" not in after[after.rindex("\x1b[2K") :]  # ...and nothing of a bar follows the erase
    time.sleep(0.2)
    assert [pid for pid in workers if _alive(pid)] == []


def test_every_command_exits_130_without_aborted(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from mcplint import check, handlers_command
    from mcplint.cli import main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(check, "run_check", interrupted)
    monkeypatch.setattr(handlers_command, "list_handlers", interrupted)
    for command in (["check", "."], ["handlers", "."]):
        result = CliRunner().invoke(main, command)
        assert (result.exit_code, result.output) == (130, ""), command
