"""The protocol wiring: documents in, diagnostics out, code actions and hover on request
(the state they act on is ``core.McplintServer``).
"""

from __future__ import annotations

import logging
import os
import sys

from lsprotocol import types

from mcplint.lsp import actions
from mcplint.lsp.core import DEBOUNCE_SECONDS, PROJECT_FILES, PYTHON_SUFFIXES, McplintServer, _path_of

SERVER = McplintServer()


@SERVER.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(server: McplintServer, params: types.DidOpenTextDocumentParams) -> None:
    _changed(server, params.text_document.uri, delay=0.0, warm=False)


@SERVER.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(server: McplintServer, params: types.DidChangeTextDocumentParams) -> None:
    _changed(server, params.text_document.uri, delay=DEBOUNCE_SECONDS)


@SERVER.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(server: McplintServer, params: types.DidSaveTextDocumentParams) -> None:
    path = _path_of(params.text_document.uri)
    if path is not None and path.name in PROJECT_FILES:
        for model in server.models.values():
            model.refresh()
            server.schedule(model, warm=False)
        return
    _changed(server, params.text_document.uri, delay=0.0)


@SERVER.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(server: McplintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    server.published.pop(uri, None)
    server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    path = _path_of(uri)
    if path is not None and path.suffix in PYTHON_SUFFIXES:
        server.schedule(server.model_for(path), warm=False)  # the file on disk now stands for the buffer


@SERVER.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(server: McplintServer, params: types.DidChangeWatchedFilesParams) -> None:
    for model in server.models.values():
        model.refresh()
        server.schedule(model, DEBOUNCE_SECONDS, warm=False)


def _changed(server: McplintServer, uri: str, *, delay: float, warm: bool = True) -> None:
    path = _path_of(uri)
    if path is None:
        return
    if path.suffix in PYTHON_SUFFIXES:
        server.schedule(server.model_for(path), delay, warm=warm)
    elif actions.is_registry(server, path):
        actions.publish_registry(server, uri, path)
        if delay == 0.0 and uri in server.workspace.text_documents:  # opened or saved: MCP003/MCP004 read it
            server.schedule(server.model_for(path), warm=False)


@SERVER.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL_KIND]),
)
async def code_action(server: McplintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return await actions.code_actions(server, params)


@SERVER.feature(types.TEXT_DOCUMENT_HOVER)
def hover(server: McplintServer, params: types.HoverParams) -> types.Hover | None:
    return actions.hover(server, params)


def serve() -> None:
    """Speak LSP on stdin/stdout until the client exits."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="mcplint server: %(message)s")
    protocol_in, protocol_out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the protocol stream
    # A worker process the engine forks closes sys.stdin first; the protocol's reader thread
    # holds the real stdin's lock (blocked in a read), so closing it would hang the worker.
    sys.stdin = open(os.devnull, encoding="utf-8")
    SERVER.start_io(protocol_in, protocol_out)
