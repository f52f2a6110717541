"""`mcplint server` end to end: a real LSP client (pytest-lsp) starts `python -m mcplint
server` as a subprocess and speaks the protocol to it, as an editor would."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = '''from mcp.server.fastmcp import FastMCP

from app.store import load

mcp = FastMCP("notes")


@mcp.tool()
def read_note(note_id: str) -> str:
    return load(note_id)
'''

STORE = '''NOTES = {}


def load(note_id):
    if note_id not in NOTES:
        raise KeyError(note_id)
    return NOTES[note_id]
'''

TIMEOUT = 30  # seconds: the first analysis imports LibCST in the server


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A two-module server: a tool in app/server.py, the callee it reaches in app/store.py."""
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'notes'\n\n[tool.mcplint]\n", encoding="utf-8")
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "server.py").write_text(SERVER, encoding="utf-8")
    (root / "app" / "store.py").write_text(STORE, encoding="utf-8")
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "mcplint", "server"]))
async def client(lsp_client: LanguageClient, project: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=project.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="proj")],
        )
    )
    yield
    await lsp_client.shutdown_session()


def uri_of(path: Path) -> str:
    return path.as_uri()


def open_document(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = uri_of(path)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=version,
                text=path.read_text(encoding="utf-8") if text is None else text,
            )
        )
    )  # fmt: skip
    return uri


def change_document(client: LanguageClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def diagnostics_for(client: LanguageClient, uri: str, predicate=lambda found: True) -> list[types.Diagnostic]:
    """The diagnostics published for ``uri`` once ``predicate`` holds for them."""

    async def wait() -> list[types.Diagnostic]:
        while True:
            if uri in client.diagnostics and predicate(client.diagnostics[uri]):
                return list(client.diagnostics[uri])
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), TIMEOUT)


@pytest.mark.asyncio
async def test_diagnostics_of_an_unsaved_buffer(client: LanguageClient, project: Path):
    """The buffer's text is analysed, not the file: a raise typed but not saved is reported."""
    path = project / "app" / "server.py"
    unsaved = SERVER.replace("    return load(note_id)", '    if not note_id:\n        raise ValueError("empty id")\n    return load(note_id)')
    uri = open_document(client, path, unsaved)
    found = await diagnostics_for(client, uri, lambda found: len(found) > 0)
    assert len(found) == 1
    diagnostic = found[0]
    assert diagnostic.code == "MCP002"
    assert diagnostic.source == "mcplint"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.code_description.href == "https://github.com/mcplint/mcplint/blob/main/rules/MCP002.md"
    assert diagnostic.range == types.Range(
        start=types.Position(line=10, character=8), end=types.Position(line=10, character=36)
    )
    assert "Raw `ValueError`" in diagnostic.message
    assert diagnostic.related_information is None  # in the handler itself


@pytest.mark.asyncio
async def test_a_callee_finding_names_and_points_at_its_handler(client: LanguageClient, project: Path):
    """The finding is in app/store.py; the message names the tool in app/server.py, as the CLI
    does, and relatedInformation points at that tool's definition."""
    uri = open_document(client, project / "app" / "store.py")
    found = await diagnostics_for(client, uri, lambda found: len(found) > 0)
    assert [d.code for d in found] == ["MCP002"]
    assert found[0].message.endswith("(in `load`, reached from tool `app.server.read_note`)")
    assert found[0].range.start == types.Position(line=5, character=8)
    related = found[0].related_information
    assert related is not None and len(related) == 1
    assert related[0].location.uri == uri_of(project / "app" / "server.py")
    assert related[0].location.range.start == types.Position(line=8, character=0)  # `def read_note`
    assert "app.server.read_note" in related[0].message


@pytest.mark.asyncio
async def test_a_change_is_analysed_after_the_debounce(client: LanguageClient, project: Path):
    path = project / "app" / "server.py"
    uri = open_document(client, path)
    assert await diagnostics_for(client, uri) == []
    edited = SERVER.replace("    return load(note_id)", '    raise RuntimeError("not yet")')
    change_document(client, uri, edited, version=2)
    found = await diagnostics_for(client, uri, lambda found: len(found) == 1)
    assert found[0].code == "MCP002" and "RuntimeError" in found[0].message
    change_document(client, uri, SERVER, version=3)
    assert await diagnostics_for(client, uri, lambda found: len(found) == 0) == []


def test_without_the_extra_server_says_what_to_install():
    """pygls not installed: one line naming the extra, exit 2, no traceback."""
    import subprocess

    script = "import sys; sys.modules['pygls'] = None; from mcplint.cli import main; main(['server'])"
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [
        "mcplint: error: the language server needs pygls and lsprotocol: pip install 'mcplint[lsp]'"
    ]
    assert completed.stdout == ""


def test_the_cli_does_not_import_pygls():
    """`mcplint --version` and every other command start without the server's dependencies."""
    import subprocess

    script = "import sys; from mcplint.cli import main; import mcplint.check; print('pygls' in sys.modules)"
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert completed.stdout.strip() == "False"
