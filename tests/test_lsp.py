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

SERVER = """from mcp.server.fastmcp import FastMCP

from app.store import load

mcp = FastMCP("notes")


@mcp.tool()
def read_note(note_id: str) -> str:
    return load(note_id)
"""

STORE = """NOTES = {}


def load(note_id):
    if note_id not in NOTES:
        raise KeyError(note_id)
    return NOTES[note_id]
"""

TIMEOUT = 30  # seconds: the first analysis imports LibCST in the server
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(
    scope="module", config=ClientServerConfig(server_command=[sys.executable, "-m", "mcplint", "server"])
)
async def client(lsp_client: LanguageClient):
    """One server for the module (its start is most of a test's time); each test adds its
    own project as a workspace folder."""
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), workspace_folders=[])
    )
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def project(client: LanguageClient, tmp_path: Path) -> Path:
    """A two-module server: a tool in app/server.py, the callee it reaches in app/store.py;
    a workspace folder of its own."""
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'notes'\n\n[tool.mcplint]\n", encoding="utf-8")
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "server.py").write_text(SERVER, encoding="utf-8")
    (root / "app" / "store.py").write_text(STORE, encoding="utf-8")
    folder = types.WorkspaceFolder(uri=root.as_uri(), name=root.parent.name)
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(event=types.WorkspaceFoldersChangeEvent(added=[folder], removed=[]))
    )
    return root


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


async def test_diagnostics_of_an_unsaved_buffer(client: LanguageClient, project: Path):
    """The buffer's text is analysed, not the file: a raise typed but not saved is reported."""
    path = project / "app" / "server.py"
    unsaved = SERVER.replace(
        "    return load(note_id)",
        '    if not note_id:\n        raise ValueError("empty id")\n    return load(note_id)',
    )
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


async def test_a_callee_edit_updates_the_handler_module(client: LanguageClient, project: Path):
    """The project model: app/store.py is edited (unsaved) so that load() returns an error
    dict; the tool in app/server.py that returns it now has an MCP001 finding, and loses it
    when the edit is undone."""
    server_uri = open_document(client, project / "app" / "server.py")
    store_uri = open_document(client, project / "app" / "store.py")
    assert await diagnostics_for(client, server_uri) == []
    await diagnostics_for(client, store_uri, lambda found: len(found) == 1)
    change_document(client, store_uri, 'def load(note_id):\n    return {"error": f"no note {note_id}"}\n', version=2)
    found = await diagnostics_for(client, server_uri, lambda found: len(found) == 1)
    assert found[0].code == "MCP001" and "error helper" in found[0].message
    assert found[0].range.start == types.Position(line=9, character=11)  # `load(note_id)`
    change_document(client, store_uri, STORE, version=3)
    assert await diagnostics_for(client, server_uri, lambda found: len(found) == 0) == []


async def test_the_workspace_config_applies(client: LanguageClient, project: Path):
    """The folder's [tool.mcplint] is read, wherever the server was started."""
    (project / "pyproject.toml").write_text('[tool.mcplint]\nignore = ["MCP002"]\n', encoding="utf-8")
    unsaved = SERVER.replace(
        "    return load(note_id)", "    raise ValueError(note_id)\n    if note_id:\n        return {'error': 'x'}"
    )
    uri = open_document(client, project / "app" / "server.py", unsaved)
    found = await diagnostics_for(client, uri, lambda found: len(found) > 0)
    assert [d.code for d in found] == ["MCP001"]


# -- code actions, hover, the registry ------------------------------------------------------
ACTIONS = """from fastmcp import FastMCP

mcp = FastMCP("notes")
LIMIT = 10  # mcplint: ignore[MCP002]


@mcp.tool()
def read_note(note_id: str) -> str:
    if not note_id:
        raise ValueError("empty id")
    return note_id
"""


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """What the client does with a WorkspaceEdit's TextEdits (ASCII text: characters are code points)."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[: position.line]) + position.character

    for edit in sorted(edits, key=lambda edit: offset(edit.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def actions_at(
    client: LanguageClient, uri: str, diagnostic: types.Diagnostic, only=None
) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic], only=only),
        )
    )
    return list(found or [])


async def opened_with_actions(client: LanguageClient, project: Path) -> tuple[str, dict[str, types.Diagnostic]]:
    path = project / "app" / "server.py"
    path.write_text(ACTIONS, encoding="utf-8")
    uri = open_document(client, path)
    found = await diagnostics_for(client, uri, lambda found: len(found) == 3)
    return uri, {diagnostic.code: diagnostic for diagnostic in found}


async def test_a_fix_action_says_unsafe_and_its_edit_removes_the_finding(client: LanguageClient, project: Path):
    uri, by_code = await opened_with_actions(client, project)
    actions = await actions_at(client, uri, by_code["MCP008"])
    titles = [action.title for action in actions]
    assert titles == [
        "Fix MCP008: Add `mask_error_details=True` (unsafe fix)",
        "Suppress MCP008 on this line",
        "mcplint: apply every safe fix",  # no `only` asked: the source action too
    ]
    fix = actions[0]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.diagnostics[0].code == "MCP008"
    fixed = apply_edits(ACTIONS, fix.edit.changes[uri])
    assert 'FastMCP("notes", mask_error_details=True)' in fixed
    change_document(client, uri, fixed, version=2)
    found = await diagnostics_for(client, uri, lambda found: "MCP008" not in [d.code for d in found])
    assert sorted(d.code for d in found) == ["MCP002", "MCP009"]


async def test_a_safe_fix_says_safe(client: LanguageClient, project: Path):
    uri, by_code = await opened_with_actions(client, project)
    actions = await actions_at(client, uri, by_code["MCP009"])
    actions = [action for action in actions if action.kind == types.CodeActionKind.QuickFix]
    assert [action.title.endswith("(safe fix)") for action in actions] == [True]  # a stale directive: no suppression
    assert actions[0].is_preferred


async def test_suppress_on_this_line(client: LanguageClient, project: Path):
    uri, by_code = await opened_with_actions(client, project)
    actions = await actions_at(client, uri, by_code["MCP002"])
    [suppress] = [action for action in actions if action.title == "Suppress MCP002 on this line"]
    suppressed = apply_edits(ACTIONS, suppress.edit.changes[uri])
    assert '        raise ValueError("empty id")  # mcplint: ignore[MCP002]\n' in suppressed
    change_document(client, uri, suppressed, version=2)
    found = await diagnostics_for(client, uri, lambda found: "MCP002" not in [d.code for d in found])
    assert sorted(d.code for d in found) == ["MCP008", "MCP009"]


async def test_fix_all_applies_the_safe_fixes_only(client: LanguageClient, project: Path):
    uri, by_code = await opened_with_actions(client, project)
    actions = await actions_at(client, uri, by_code["MCP002"], only=[types.CodeActionKind.SourceFixAll])
    assert [(action.title, action.kind) for action in actions] == [
        ("mcplint: apply every safe fix", "source.fixAll.mcplint")
    ]
    fixed = apply_edits(ACTIONS, actions[0].edit.changes[uri])
    assert "LIMIT = 10\n" in fixed and 'FastMCP("notes")' in fixed  # MCP009 fixed; MCP008's fix is unsafe
    change_document(client, uri, fixed, version=2)
    found = await diagnostics_for(client, uri, lambda found: len(found) == 2)
    assert sorted(d.code for d in found) == ["MCP002", "MCP008"]


async def test_hover_on_a_finding_shows_the_rule(client: LanguageClient, project: Path):
    uri, by_code = await opened_with_actions(client, project)
    start = by_code["MCP002"].range.start
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=start.line, character=start.character + 3),
        )
    )
    assert found is not None and found.contents.kind == types.MarkupKind.Markdown
    assert found.contents.value.startswith("**MCP002** `raw-exception-raise`: Finds handlers that raise a builtin")
    assert "rules/MCP002.md" in found.contents.value
    assert found.range == by_code["MCP002"].range
    nothing = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)
        )
    )
    assert nothing is None


REGISTRY = """schema_version = 1
namespace = "notes"

[domains.notes]
title = "Notes"
range = [1000, 1099]

[domains.notes.errors.NOTE_NOT_FOUND]
code = 1001
message = "Note {note_id} does not exist."
category = "NOT_FOUND"
retryable = false
metadata = ["note_id"]
"""


async def test_registry_diagnostics(client: LanguageClient, project: Path):
    path = project / "mcp-errors.toml"
    path.write_text(REGISTRY, encoding="utf-8")
    uri = uri_of(path)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="toml", version=1, text=REGISTRY)
        )
    )
    assert await diagnostics_for(client, uri) == []
    broken = REGISTRY.replace("code = 1001", "code = 2001")  # outside the domain's range
    change_document(client, uri, broken, version=2)
    found = await diagnostics_for(client, uri, lambda found: len(found) > 0)
    assert [d.code for d in found] == ["REG009"] and found[0].range.start.line == 8
    change_document(client, uri, "schema_version = [", version=3)
    found = await diagnostics_for(client, uri, lambda found: found and found[0].code is None)
    assert "invalid TOML" in found[0].message


async def test_saving_the_config_applies_it(client: LanguageClient, project: Path):
    uri = open_document(client, project / "app" / "store.py")
    assert [d.code for d in await diagnostics_for(client, uri, lambda found: len(found) > 0)] == ["MCP002"]
    config = project / "pyproject.toml"
    config.write_text('[tool.mcplint]\nignore = ["MCP002"]\n', encoding="utf-8")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri_of(config)))
    )
    assert await diagnostics_for(client, uri, lambda found: len(found) == 0) == []


async def test_a_project_big_enough_for_worker_processes(client: LanguageClient, project: Path):
    """Over 256 KiB to analyse, the engine forks workers from the server, whose protocol
    reader thread is blocked reading stdin: the workers must not wait for its lock."""
    from mcplint.engine.runner import MIN_BYTES_FOR_POOL

    lines = [f"VALUE_{number} = {number}\n" for number in range(MIN_BYTES_FOR_POOL // 12)]
    (project / "app" / "data.py").write_text("".join(lines), encoding="utf-8")
    assert (project / "app" / "data.py").stat().st_size > MIN_BYTES_FOR_POOL
    uri = open_document(client, project / "app" / "store.py")
    found = await diagnostics_for(client, uri, lambda found: len(found) > 0)
    assert [d.code for d in found] == ["MCP002"]


TREE = """from mcp.server.fastmcp import FastMCP

from app import walk

mcp = FastMCP("tree")


@mcp.tool()
def render(depth: int) -> str:
    return walk.down(depth)


def up(depth: int) -> str:
    return walk.down(depth - 1)
"""

WALK = """from app import server


def down(depth: int) -> str:
    if depth < 0:
        raise ValueError("negative depth")
    return server.up(depth)
"""


async def test_an_edit_settles_to_the_exact_result_through_a_call_cycle(client: LanguageClient, project: Path):
    """An edit is analysed from the last contexts (fast), where a call cycle across modules
    (down -> up -> down) keeps a removed tool reaching the raise; once the edits pause, the
    exact analysis drops the stale finding."""
    (project / "app" / "server.py").write_text(TREE, encoding="utf-8")
    (project / "app" / "walk.py").write_text(WALK, encoding="utf-8")
    server_uri = open_document(client, project / "app" / "server.py")
    walk_uri = open_document(client, project / "app" / "walk.py")
    found = await diagnostics_for(client, walk_uri, lambda found: len(found) == 1)
    assert found[0].message.endswith("reached from tool `app.server.render`)")
    change_document(client, server_uri, TREE.replace("@mcp.tool()\n", ""), version=2)
    assert await diagnostics_for(client, walk_uri, lambda found: len(found) == 0) == []


async def test_a_blind_spot_is_logged(client: LanguageClient, project: Path):
    """A framework imported but no handler found: the editor's log says so, as `check` does."""
    (project / "app" / "server.py").write_text('from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n')
    before = len(client.log_messages)  # the server is shared: only what this test's project logs
    uri = open_document(client, project / "app" / "server.py")
    await diagnostics_for(client, uri)

    async def logged() -> str:
        while True:
            for message in client.log_messages[before:]:
                if "no MCP handler found" in message.message and "app/server.py" in message.message:
                    return message.message
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)

    assert (await asyncio.wait_for(logged(), TIMEOUT)).startswith("mcplint: no MCP handler found, yet 1 module(s)")
