"""The language server's state: the open documents' published diagnostics, the project model
of each workspace folder, and the analyses that keep them current.

Analyses run one at a time in one worker thread (the engine keeps per-process state),
never on the event loop, so requests are answered while a project is analysed. An edit
waits ``DEBOUNCE_SECONDS`` for the next keystroke; opening and saving analyse at once.
After each analysis every open module of the folder whose findings changed is published
again: an edit in a callee module updates the diagnostics of the handler module it
affects. stdout is the protocol: nothing else may write to it (``serve`` hands the
engine a stdout that is stderr), and logs go to stderr and window/logMessage.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from mcplint import __version__
from mcplint.finding import Finding
from mcplint.lsp.diagnostics import Positions, to_diagnostics
from mcplint.lsp.workspace import ProjectModel, definition_line

# Imports inside functions: the config is read on the first document, not at start-up.

DEBOUNCE_SECONDS = 0.2
SETTLE_SECONDS = 1.5  # edits paused this long: the exact (cold) analysis follows the warm one
PYTHON_SUFFIXES = (".py", ".pyi")
# Saving one of these changes what is linted or how: the folder is read again.
PROJECT_FILES = frozenset({"pyproject.toml", "mcplint.toml", ".gitignore"})
logger = logging.getLogger("mcplint.lsp")
T = TypeVar("T")


@dataclass(frozen=True)
class Published:
    """What a document's diagnostics were computed from: code actions must match it."""

    version: int | None
    text: str
    findings: list[Finding]
    model: ProjectModel | None  # None: a registry (its findings are REG codes, no project)
    path: str  # absolute


class McplintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("mcplint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.models: dict[Path, ProjectModel] = {}
        self.published: dict[str, Published] = {}
        self._analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcplint-analysis")
        self._timers: dict[Path, asyncio.Task[None]] = {}
        self._shown_errors: set[str] = set()
        self._logged_warnings: set[tuple[Path, str]] = set()

    # -- documents -------------------------------------------------------------------
    def model_for(self, path: Path) -> ProjectModel:
        """The model of the workspace folder holding ``path`` (the innermost), else of its directory."""
        folders = [Path(fs_path) for folder in self.workspace.folders.values() if (fs_path := to_fs_path(folder.uri))]
        if not folders and self.workspace.root_path:
            folders = [Path(self.workspace.root_path)]
        holding = [folder.absolute() for folder in folders if path.absolute().is_relative_to(folder.absolute())]
        root = max(holding, key=lambda folder: len(folder.parts)) if holding else path.absolute().parent
        if root not in self.models:
            self.models[root] = ProjectModel(root, scan=bool(holding))
        return self.models[root]

    def open_python_documents(self, model: ProjectModel) -> dict[str, tuple[str, str, int | None]]:
        """absolute path -> (uri, text, version) of the model's open Python buffers."""
        found = {}
        for uri, document in self.workspace.text_documents.items():
            path = _path_of(uri)
            if path is not None and path.suffix in PYTHON_SUFFIXES and self.model_for(path) is model:
                found[str(path.absolute())] = (uri, document.source, document.version)
        return found

    async def in_analysis_thread(self, function: Callable[..., T], *arguments: object) -> T:
        """``function(*arguments)`` in the analysis thread, after the analyses queued before it."""
        return await asyncio.get_running_loop().run_in_executor(self._analysis, function, *arguments)

    def schedule(self, model: ProjectModel, delay: float = 0.0, *, warm: bool = True) -> None:
        """Analyse the model's folder after ``delay`` (a newer call replaces a waiting one);
        ``warm``: an edit, analysed from the last analysis's contexts (see ``_analyse``)."""
        waiting = self._timers.pop(model.root, None)
        if waiting is not None:
            waiting.cancel()
        self._timers[model.root] = asyncio.get_running_loop().create_task(self._analyse(model, delay, warm))

    async def _analyse(self, model: ProjectModel, delay: float, warm: bool) -> None:
        """An edit is analysed warm (its cross-module rounds start from the last contexts: one
        round instead of several on a real project), and once the edits pause for
        ``SETTLE_SECONDS``, cold: exact where a stale fact sustained itself through a call
        cycle across modules (``engine.runner.run``). A newer edit cancels both."""
        if delay:
            await asyncio.sleep(delay)
        warm = warm and bool(model.last.contexts)
        if not await self._analyse_once(model, warm=warm) or not warm:
            return
        await asyncio.sleep(SETTLE_SECONDS)
        await self._analyse_once(model, warm=False)

    async def _analyse_once(self, model: ProjectModel, *, warm: bool) -> bool:
        """Analyse and publish what changed; False if the analysis failed."""
        documents = self.open_python_documents(model)
        buffers = {path: text for path, (_uri, text, _version) in documents.items()}
        try:
            analysis = await self.in_analysis_thread(partial(model.analyse, buffers, warm=warm))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a broken config, or a bug: said once, the server stays up
            self.report(error)
            return False
        for warning in analysis.warnings:
            if (model.root, warning) not in self._logged_warnings:  # once, not on every keystroke
                self._logged_warnings.add((model.root, warning))
                self.log(warning)
        for path, (uri, text, version) in documents.items():
            current = self.workspace.text_documents.get(uri)
            if current is None or current.source != text:  # closed, or edited since: its own analysis follows
                continue
            findings = analysis.findings.get(path, [])
            before = self.published.get(uri)
            if before is not None and before.text == text and _same(before.findings, findings):
                continue
            self.published[uri] = Published(version, text, findings, model, path)
            self.publish(uri, version, text, findings, model)
        return True

    def publish(
        self, uri: str, version: int | None, text: str, findings: list[Finding], model: ProjectModel | None
    ) -> None:
        document = self.workspace.get_text_document(uri)
        positions = Positions(text, document.position_codec.client_num_units)
        path = _path_of(uri)

        def locate_handler(finding: Finding) -> types.Location | None:
            if model is None or path is None:
                return None
            found = model.handler_of(str(path.absolute()), finding)
            return self.location(*found) if found is not None else None

        diagnostics = to_diagnostics(findings, positions, locate_handler)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def location(self, path: str, key: str) -> types.Location | None:
        """Where the function ``key`` of ``path`` is defined (its open buffer, else the file)."""
        uri = from_fs_path(path)
        document = self.workspace.text_documents.get(uri)
        try:
            text = document.source if document is not None else Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        found = definition_line(text, key)
        if found is None:
            return None
        positions = Positions(text, self.workspace.position_codec.client_num_units)
        position = positions.position(*found)
        return types.Location(uri=uri, range=types.Range(start=position, end=position))

    # -- the client's windows -----------------------------------------------------------
    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        logger.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=f"mcplint: {message}"))

    def report(self, error: Exception) -> None:
        """An analysis that failed: a config error is shown once; anything else is logged."""
        from mcplint.config import ConfigError

        if isinstance(error, ConfigError):
            message = f"mcplint: {error}"
            if message not in self._shown_errors:
                self._shown_errors.add(message)
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
            return
        logger.exception("analysis failed")
        self.log(f"internal error: {type(error).__name__}: {error}", types.MessageType.Error)


def _same(before: list[Finding], after: list[Finding]) -> bool:
    """The same findings, with the same fixes and handlers (which equality leaves out)."""
    return [(f, f.fix, f.handler) for f in before] == [(f, f.fix, f.handler) for f in after]


def _path_of(uri: str) -> Path | None:
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return Path(path) if path else None
