"""The project model of one workspace folder, with the editor's buffers in it.

A folder is read as `mcplint check` reads it from that directory: the same config
files (`[tool.mcplint]` in pyproject.toml, mcplint.toml, `extend`), the same
discovery (excludes, .gitignore) and the same cross-module run
(``engine.runner.run``). The open buffers are analysed with their unsaved text
(``FileTask.text``); every other file comes from the result cache, which `check`
shares, so an edit re-analyses the buffer and only the modules whose project
context the edit changes.

No protocol types here: this module is the engine's side of the server.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcplint.analysis.project import NO_PROJECT, ProjectContext
from mcplint.config import CliOverrides, ConfigResolver
from mcplint.finding import Finding
from mcplint.settings import FileSettings
from mcplint.source import source_lines

if TYPE_CHECKING:
    from mcplint.engine.cache import ResultCache

# Imports inside functions: the engine (LibCST, worker pool) is imported by the first analysis, so the server
# answers `initialize` at once.


@dataclass
class Analysis:
    """One run over a folder: the findings of each file, and what code actions need."""

    findings: dict[str, list[Finding]] = field(default_factory=dict)  # absolute path -> findings
    contexts: dict[str, ProjectContext] = field(default_factory=dict)
    # A handler's name as other modules' findings show it -> (absolute path, function key there).
    handlers: dict[str, tuple[str, str]] = field(default_factory=dict)
    local_handlers: dict[str, set[str]] = field(default_factory=dict)  # absolute path -> handler keys
    warnings: list[str] = field(default_factory=list)


class ProjectModel:
    """A workspace folder (or the directory of a file outside every folder: ``scan=False``
    analyses only the open buffers)."""

    def __init__(self, root: Path, *, scan: bool = True) -> None:
        self.root = root.absolute()
        self.scan = scan
        self._resolver: ConfigResolver | None = None
        self._files: dict[str, str] | None = None  # absolute path -> display
        self._left_out: set[str] = set()  # open files discovery leaves out (excluded)
        self._cache: ResultCache | None = None
        self.last = Analysis()

    def refresh(self) -> None:
        """A config file, a .gitignore or the set of files changed: read them again."""
        self._resolver = None
        self._files = None
        self._left_out = set()

    @property
    def resolver(self) -> ConfigResolver:
        """Raises ConfigError (a broken config file)."""
        if self._resolver is None:
            self._resolver = ConfigResolver(CliOverrides(), cwd=self.root)
            self._cache = None
        return self._resolver

    def settings_for(self, path: str) -> FileSettings:
        return self.resolver.settings_for(Path(path))

    def display(self, path: str) -> str:
        from mcplint.engine.discovery import display_path

        return display_path(Path(path), self.root)

    def files(self) -> dict[str, str]:
        """The folder's Python files, as `mcplint check` in it finds them: path -> display."""
        if self._files is None:
            from mcplint.engine.discovery import discover

            found = discover((str(self.root),), self.resolver, force_exclude=False) if self.scan else []
            self._files = {os.path.abspath(file.path): file.display for file in found}
        return self._files

    def analyse(self, buffers: dict[str, str], *, warm: bool = False) -> Analysis:
        """Every file of the folder, the ``buffers`` (absolute path -> unsaved text) in place
        of their files. A buffer of a file discovery leaves out (an excluded path) gets no
        findings, as with `mcplint check`; a new file not yet on disk is analysed.

        ``warm``: start the cross-module rounds from the last analysis's contexts (an edit
        then settles in a round instead of several); exact unless a stale fact sustains
        itself through a call cycle across modules, which the next cold analysis corrects
        (see ``engine.runner.run``)."""
        from mcplint.engine.cache import ResultCache, cache_directory
        from mcplint.engine.discovery import project_root
        from mcplint.engine.runner import FileTask, default_jobs, run

        resolver = self.resolver
        unknown = [p for p in buffers if p not in self.files() and p not in self._left_out and os.path.exists(p)]
        if unknown:  # created since the folder was read, or left out by discovery: look again
            self._files = None
            self._left_out.update(path for path in unknown if path not in self.files())
        files = dict(self.files())
        for path in buffers:
            if path not in files and (not self.scan or not os.path.exists(path)):
                files[path] = self.display(path)
        if self._cache is None and self.scan:
            self._cache = ResultCache(cache_directory(resolver, project_root(self.root)))
        tasks = [
            FileTask(path, display, resolver.settings_for(Path(path)), skip_generated=self.scan, text=buffers.get(path))
            for path, display in sorted(files.items())
        ]
        # Workers start only for a run with much to analyse (the first, or after a config
        # change); an edit's run analyses a few files in this process.
        result = run(
            tasks, default_jobs(), self._cache, start=self.last.contexts if warm else None, small_rounds_in_process=True
        )
        paths = {task.display: task.path for task in tasks}
        analysis = Analysis(contexts=result.contexts, warnings=list(result.warnings))
        if result.unseen_framework_modules:  # as `mcplint check` says it: nothing in scope is a blind spot
            shown = ", ".join(result.unseen_framework_modules[:3])
            analysis.warnings.append(
                f"no MCP handler found, yet {len(result.unseen_framework_modules)} module(s) import an MCP server "
                f"framework ({shown}): `mcplint handlers` shows what mcplint sees"
            )
        for task in tasks:
            analysis.findings[task.path] = []
        for finding in result.findings:
            analysis.findings[paths[finding.path]].append(finding)
        for path, file_result in result.results.items():
            context = result.contexts.get(path, NO_PROJECT)
            analysis.local_handlers[path] = {key for key, _kind in file_result.handlers}
            for key in analysis.local_handlers[path]:
                analysis.handlers[context.label(key)] = (path, key)
        self.last = analysis
        return analysis

    def handler_of(self, path: str, finding: Finding) -> tuple[str, str] | None:
        """(file, function key) of the handler a finding in ``path`` names, when it is not
        the function the finding is in (a finding in a callee)."""
        if finding.handler is None or finding.handler == finding.context:
            return None
        if finding.handler in self.last.local_handlers.get(path, ()):
            return path, finding.handler
        return self.last.handlers.get(finding.handler)


def definition_line(text: str, key: str) -> tuple[int, int] | None:
    """(line, column) of the `def` of the function ``key`` (`name`, `Class.method`,
    `outer.<locals>.inner`) in ``text``, 1-based; None when it is not found."""
    try:
        body: list[ast.stmt] = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    found: ast.stmt | None = None
    for part in key.replace(".<locals>", "").split("."):
        found = next(
            (
                node
                for node in _statements(body)
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part
            ),
            None,
        )
        if found is None:
            return None
        body = found.body
    if found is None:
        return None
    lines = source_lines(text)
    line = lines[found.lineno - 1] if found.lineno <= len(lines) else ""
    return found.lineno, len(line.encode("utf-8")[: found.col_offset].decode("utf-8", "replace")) + 1


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body, those in its `if` / `try` / `with` blocks included."""
    pending, found = list(body), []
    while pending:
        statement = pending.pop(0)
        found.append(statement)
        if isinstance(statement, (ast.If, ast.Try, ast.With, ast.AsyncWith)):
            pending.extend(statement.body)
            pending.extend(getattr(statement, "orelse", []))
    return found
