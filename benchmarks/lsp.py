"""The language server's latency: diagnostics of a 1,000-line handler module after a
one-line change, with a 50-module project open (the README reports the median).

    python benchmarks/lsp.py              # 25 changes, prints the median and the spread
    python benchmarks/lsp.py --changes 50

A generated project (``pkg/server.py`` builds the server; ``pkg/tools.py``, 1,000 lines,
registers 50 tools, each calling a function of one of 48 service modules, some of which
raise) is opened in `mcplint server`, started as an editor starts it (a subprocess over
stdio, driven by pygls's client). The server's first analysis fills the result cache; then
each change edits one line of ``tools.py`` (a message string, so the findings stay the
same) and the clock runs from sending the change until the diagnostics of that version
arrive. The change is sent with a save (didChange, then didSave), which analyses at once:
what is measured is the server's work, not the debounce an editor's keystrokes wait for
(``mcplint.lsp.core.DEBOUNCE_SECONDS``, 200 ms, comes on top while typing). That first
answer is the edit's warm analysis; the exact one follows once the edits pause
(``SETTLE_SECONDS``), so the next change waits for it to finish. On Linux the
server's CPU time per change is reported too (from /proc): on a busy machine the wall
time includes waiting for a core, the CPU time does not.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from mcplint.lsp.core import SETTLE_SECONDS

SERVICES = 46  # + services/__init__.py, pkg/__init__.py, pkg/server.py and pkg/tools.py: 50 modules
TOOLS = 50
TOOL_LINES = 20  # 50 tools x 20 lines = 1,000 lines


def service_module(number: int) -> str:
    return f'''"""Service {number}."""

import json

CACHE = {{}}


def fetch_{number}(key: str) -> dict:
    if not key:
        raise ValueError("key is required")
    if key in CACHE:
        return CACHE[key]
    record = {{"key": key, "service": {number}}}
    CACHE[key] = record
    return record


def render_{number}(record: dict) -> str:
    return json.dumps(record, sort_keys=True)
'''


def tool_function(number: int) -> str:
    service = number % SERVICES
    lines = [
        "",
        "",
        "@mcp.tool()",
        f"def tool_{number}(key: str, verbose: bool = False) -> str:",
        f'    """Tool {number}: look up a record of service {service}."""',
        "    if verbose:",
        f'        label = "tool {number} (verbose)"',
        "    else:",
        f'        label = "tool {number}"',
        f"    record = services.svc_{service}.fetch_{service}(key)",
        f"    text = services.svc_{service}.render_{service}(record)",
        "    if not text:",
        '        raise RuntimeError(label + " found nothing")',
        "    try:",
        "        size = len(text)",
        "    except TypeError:",
        "        size = 0",
        "    if size > 10_000:",
        "        text = text[:10_000]",
        "    return label + ': ' + text",
    ]
    assert len(lines) == TOOL_LINES
    return "\n".join(lines)


def make_project(root: Path) -> Path:
    package = root / "pkg"
    (package / "services").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'bench'\n\n[tool.mcplint]\n", encoding="utf-8")
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "server.py").write_text('from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("bench")\n')
    (package / "services" / "__init__.py").write_text(
        "".join(f"from pkg.services import svc_{n}\n" for n in range(SERVICES)), encoding="utf-8"
    )
    for number in range(SERVICES):
        (package / "services" / f"svc_{number}.py").write_text(service_module(number), encoding="utf-8")
    header = "from pkg import services\nfrom pkg.server import mcp\n"
    body = "\n".join(tool_function(number) for number in range(TOOLS))
    tools = package / "tools.py"
    tools.write_text(header + body + "\n", encoding="utf-8")
    return tools


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux), None elsewhere."""
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(changes: int) -> tuple[list[float], list[float]]:
    with tempfile.TemporaryDirectory(prefix="mcplint-lsp-bench-") as directory:
        root = Path(directory)
        tools = make_project(root)
        modules = sum(1 for _ in root.rglob("*.py"))
        text = tools.read_text(encoding="utf-8")
        print(f"project: {modules} modules; pkg/tools.py: {text.count(chr(10))} lines", file=sys.stderr)
        client = LanguageClient("mcplint-benchmark", "1")
        arrived: dict[int | None, asyncio.Event] = {}
        findings: dict[int | None, int] = {}

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            if params.uri == uri:
                findings[params.version] = len(params.diagnostics)
                arrived.setdefault(params.version, asyncio.Event()).set()

        uri = tools.as_uri()
        await client.start_io(
            sys.executable, "-m", "mcplint", "server", env={"MCPLINT_CACHE_DIR": str(root / ".cache")}
        )
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
            )
        )
        client.initialized(types.InitializedParams())
        arrived[1] = asyncio.Event()
        started = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        await asyncio.wait_for(arrived[1].wait(), 120)
        print(
            f"first analysis (cold cache): {time.perf_counter() - started:.2f} s, {findings[1]} findings",
            file=sys.stderr,
        )
        timings, cpu = [], []
        pid = client._server.pid  # type: ignore[union-attr]
        lines = text.split("\n")
        changed = lines.index('        label = "tool 0"')
        for version in range(2, changes + 2):
            lines[changed] = f'        label = "tool 0 (edit {version})"'  # one line, a new string each time
            text = "\n".join(lines)
            arrived[version] = asyncio.Event()
            cpu_before = cpu_seconds(pid)
            started = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
            client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
            await asyncio.wait_for(arrived[version].wait(), 60)
            timings.append(time.perf_counter() - started)
            cpu_after = cpu_seconds(pid)
            if cpu_before is not None and cpu_after is not None:
                cpu.append(cpu_after - cpu_before)
            assert findings[version] == findings[1], (findings[version], findings[1])
            await asyncio.sleep(SETTLE_SECONDS + 1.0)  # the exact analysis after the pause, then idle
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return timings, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=25, help="one-line changes to time (default: 25)")
    arguments = parser.parse_args()
    timings, cpu = asyncio.run(measure(arguments.changes))
    milliseconds = sorted(1000 * timing for timing in timings)
    print(
        f"diagnostics after a one-line change: median {statistics.median(milliseconds):.0f} ms "
        f"(min {milliseconds[0]:.0f}, max {milliseconds[-1]:.0f}, {len(milliseconds)} changes)"
    )
    if cpu:
        print(f"server CPU time per change: median {1000 * statistics.median(cpu):.0f} ms")


if __name__ == "__main__":
    main()
