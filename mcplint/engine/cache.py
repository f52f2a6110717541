"""The result cache: a warm run re-lints only the files that changed.

Layout: ``<cache dir>/<mcplint version>/<settings digest>.json``, one index per
effective per-file configuration and registry content, mapping each
file's absolute path to its stamp (size, mtime, ctime, inode), content hash and its analyses,
one per project context a run needed (findings, and the facts the cross-module join
needs), so a warm run replays every round of the join without reading a file. A file whose
stamp is unchanged is a hit without being read; one whose stamp changed but whose content
hash did not (a ``touch``, a checkout) is a hit after hashing. Size and mtime alone are not
enough: an edit whose mtime is put back (``os.utime``, tools that preserve it) keeps them,
but the kernel moves the ctime on every write and every ``utime``, and a file replaced by
a rename has a new inode.

A warm run over unchanged files needs only each file's last analysis (the context the
last run ended with, ``final_contexts``): the others, which only a run whose files changed
may replay, are kept apart in ``<settings digest>.rounds.json`` and read only then (most of
a project's analyses are its rounds', and reading them was most of a warm run).

Indexes are written whole to a temporary file and renamed into place, so two
runs at once never leave a torn file (the last one wins); an index that does not
load is ignored and rewritten. The directory carries ``CACHEDIR.TAG`` and a
``.gitignore`` so backups and git leave it alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from mcplint import __version__
from mcplint.analysis.project import ProjectContext
from mcplint.atomic import write_atomically
from mcplint.config import ConfigResolver
from mcplint.engine.result import JOIN_FIELDS, FileResult
from mcplint.finding import Finding
from mcplint.settings import FileSettings

DEFAULT_DIRECTORY = ".mcplint_cache"
ENVIRONMENT_VARIABLE = "MCPLINT_CACHE_DIR"
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by mcplint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


def settings_digest(settings: FileSettings, skip_generated: bool) -> str:
    description = json.dumps(
        {
            "codes": sorted(settings.codes),
            "rule_options": {code: dict(options) for code, options in sorted(settings.rule_options.items())},
            "handler_decorators": list(settings.handler_decorators),
            "handler_functions": list(settings.handler_functions),
            "skip_generated": skip_generated,
            # MCP003/MCP004 judge code against the registry: a changed registry is a new key.
            "registry": _registry_hash(settings.registry),
            "default_symbol": settings.default_symbol,
            "assigned_codes": sorted(settings.assigned_codes),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(description.encode("utf-8")).hexdigest()[:20]


def _registry_hash(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            return content_hash(handle.read())
    except OSError:
        return "unreadable"


def file_stamp(status: os.stat_result) -> tuple[int, int, int, int]:
    """What says a file is unchanged without reading it: size, mtime, ctime, inode."""
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def context_key(project: ProjectContext) -> str:
    """The context's key, its module heads aside: a project's first file of a new name would
    change the key of every file's analysis; the analyses it makes stale are those that left out
    targets beginning with the name (``lookup``)."""
    if project.module_heads is not None:
        project = dataclasses.replace(project, module_heads=None)
    return hashlib.sha256(repr(project).encode("utf-8")).hexdigest()[:20]


# A file's entry in an index, as JSON: its stamp and its analyses per project context.
Entry = dict[str, Any]


class ResultCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._indexes: dict[str, dict[str, Entry]] = {}
        # Per index: by file, the analyses of the contexts no run ended with (``save``).
        self._rounds: dict[str, dict[str, Entry]] = {}
        self._dirty: set[str] = set()
        self._stored: set[str] = set()  # the indexes given new analyses (``store``)
        self._last_run: dict[str, str] | None = None  # each file's final context in this run
        self._remembered_runs: dict[str, dict[str, str]] | None = None
        self._runs_dirty = False

    # -- lookups -------------------------------------------------------------------
    def lookup(self, path: str, display: str, digest: str, project: ProjectContext) -> FileResult | None:
        """The cached analysis of the file with this project context, if the file is unchanged."""
        found = self.lookup_key(path, display, digest, context_key(project))
        if found is not None and project.module_heads and not set(found.left_out_heads).isdisjoint(project.module_heads):
            return None  # a module of the project now answers to a target it left out
        return found

    def lookup_key(self, path: str, display: str, digest: str, key: str) -> FileResult | None:
        entry = self._index(digest).get(os.path.abspath(path))
        if entry is None:
            return None
        analysis = entry["analyses"].get(key)
        if analysis is None:
            rounds = self._rounds_index(digest).get(os.path.abspath(path))
            if rounds is not None and rounds["sha256"] == entry["sha256"]:
                analysis = rounds["analyses"].get(key)
        if analysis is None or not self._unchanged(path, entry, digest):
            return None
        if any(name not in analysis for name in (*STORED_FIELDS, *PACKED_FIELDS)):
            return None  # written by an older mcplint
        return FileResult(
            findings=[Finding.from_dict({**fields, "path": display}) for fields in analysis["findings"]],
            warnings=[warning.replace("{path}", display) for warning in analysis["warnings"]],
            **{name: analysis[name] for name in STORED_FIELDS},
            **_unpacked_outgoing(analysis),
        )

    def _unchanged(self, path: str, entry: Entry, digest: str) -> bool:
        try:
            status = os.stat(path)
        except OSError:
            return False
        stamp = list(file_stamp(status))
        if stamp == entry.get("stamp"):
            return True
        try:
            with open(path, "rb") as handle:
                if content_hash(handle.read()) != entry["sha256"]:
                    return False
        except OSError:
            return False
        entry["stamp"] = stamp
        self._dirty.add(digest)
        return True

    def store(self, path: str, display: str, digest: str, project: ProjectContext, result: FileResult) -> None:
        """Keep the analysis beside the file's others (one per project context the run
        needed), so a warm run replays the cross-module rounds from the cache."""
        assert result.stat_key is not None
        index = self._index(digest)
        key = os.path.abspath(path)
        entry = index.get(key)
        if entry is None or entry["sha256"] != result.content_hash:
            entry = index[key] = {"sha256": result.content_hash, "analyses": {}}
        self._stored.add(digest)
        # A result that carries only size and mtime (the fixer's) is checked by its hash next time.
        entry["stamp"] = list(result.stat_key) if len(result.stat_key) == 4 else None
        entry["analyses"][context_key(project)] = {
            "findings": [{k: v for k, v in dataclasses.asdict(f).items() if k != "path"} for f in result.findings],
            "warnings": [warning.replace(display, "{path}") for warning in result.warnings],
            **{name: getattr(result, name) for name in (*JOIN_FIELDS, "judged")},
            **_packed_outgoing(result),
        }
        self._dirty.add(digest)

    # -- whole runs ------------------------------------------------------------------
    # A run over files none of which changed ends where the last one ended: the cache keeps,
    # per set of files (paths, sizes, mtimes, settings), the context each file ended with, so
    # that run is replayed without its cross-module rounds.
    def final_contexts(self, run_key: str) -> dict[str, str] | None:
        found = self._runs().get(run_key)
        return found if isinstance(found, dict) else None

    def remember_run(self, run_key: str, contexts: dict[str, str]) -> None:
        runs = self._runs()
        runs.pop(run_key, None)
        runs[run_key] = contexts
        self._last_run = contexts
        while len(runs) > MAX_REMEMBERED_RUNS:
            runs.pop(next(iter(runs)))
        self._runs_dirty = True

    def _runs(self) -> dict[str, dict[str, str]]:
        if self._remembered_runs is None:
            try:
                loaded = json.loads((self.directory / __version__ / "runs.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                loaded = {}
            self._remembered_runs = loaded if isinstance(loaded, dict) else {}
        return self._remembered_runs

    # -- storage ---------------------------------------------------------------------
    def _index_path(self, digest: str) -> Path:
        return self.directory / __version__ / f"{digest}.json"

    def _rounds_path(self, digest: str) -> Path:
        return self.directory / __version__ / f"{digest}.rounds.json"

    def _index(self, digest: str) -> dict[str, Entry]:
        if digest not in self._indexes:
            self._indexes[digest] = _loaded(self._index_path(digest))
        return self._indexes[digest]

    def _rounds_index(self, digest: str) -> dict[str, Entry]:
        if digest not in self._rounds:
            self._rounds[digest] = _loaded(self._rounds_path(digest))
        return self._rounds[digest]

    def _set_rounds_apart(self, digest: str) -> None:
        """Each file of this run keeps in the index the analysis of the context the run ended
        with; its other analyses (this run's rounds, earlier runs') go to the rounds index."""
        assert self._last_run is not None
        index, rounds = self._index(digest), self._rounds_index(digest)
        for path, final in self._last_run.items():
            entry = index.get(path)
            if entry is None:
                continue
            kept = rounds.pop(path, None)
            analyses = entry["analyses"]
            if kept is not None and kept["sha256"] == entry["sha256"]:
                analyses = {**kept["analyses"], **analyses}
            entry["analyses"] = {final: analyses[final]} if final in analyses else {}
            apart = {key: analysis for key, analysis in analyses.items() if key != final}
            if apart:
                rounds[path] = {"sha256": entry["sha256"], "analyses": apart}

    def save(self) -> None:
        if not self._dirty and not self._runs_dirty:
            return
        try:
            self._prepare_directory()
            for digest in sorted(self._dirty):
                if digest in self._stored and self._last_run is not None:
                    self._set_rounds_apart(digest)
                    _write_text(self._rounds_path(digest), json.dumps(self._rounds[digest]))
                _write_text(self._index_path(digest), json.dumps(self._indexes[digest]))
            if self._runs_dirty:
                _write_text(self.directory / __version__ / "runs.json", json.dumps(self._runs()))
        except OSError:
            return  # a cache that cannot be written only costs speed
        self._dirty.clear()
        self._stored.clear()
        self._runs_dirty = False

    def _prepare_directory(self) -> None:
        (self.directory / __version__).mkdir(parents=True, exist_ok=True)
        tag = self.directory / "CACHEDIR.TAG"
        if not tag.exists():
            _write_text(tag, _CACHEDIR_TAG)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            _write_text(ignore, "# Created by mcplint.\n*\n")


MAX_REMEMBERED_RUNS = 8

# The outgoing calls name every handler that reaches each target: in a project whose many tools
# share helpers that is most of the cache. They are kept grouped, with each label once.
PACKED_FIELDS = ("outgoing_calls", "outgoing_returns")
# ``judged``: whether the findings are there (an analysis that only fed the join's rounds has none).
STORED_FIELDS = (*(name for name in JOIN_FIELDS if name not in PACKED_FIELDS), "judged")


def _packed_outgoing(result: FileResult) -> dict[str, object]:
    labels: dict[str, int] = {}
    packed: dict[str, object] = {"labels": []}
    for name in PACKED_FIELDS:
        table: dict[str, dict[str, list[int]]] = {}
        for target, handlers in getattr(result, name).items():
            groups = table[target] = {}
            for label, kind, state in handlers:
                number = labels.setdefault(label, len(labels))
                groups.setdefault("\t".join((kind, *state)), []).append(number)
        packed[name] = table
    packed["labels"] = list(labels)
    return packed


def _unpacked_outgoing(analysis: Entry) -> dict[str, Any]:
    labels = analysis["labels"]
    unpacked: dict[str, dict[str, list[tuple[str, str, tuple[str, ...]]]]] = {}
    for name in PACKED_FIELDS:
        table = unpacked[name] = {}
        for target, groups in analysis[name].items():
            found = table[target] = []
            for group, numbers in groups.items():
                kind, *rest = group.split("\t")
                state = tuple(rest)
                found.extend([(labels[number], kind, state) for number in numbers])
    return unpacked


def _loaded(path: Path) -> dict[str, Entry]:
    """An index as written, or empty when it is missing or does not load."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _write_text(path: Path, text: str) -> None:
    write_atomically(path, text.encode("utf-8"))  # mkstemp's 0600: the cache is the user's alone


def clean(directory: Path) -> bool:
    if not directory.is_dir():
        return False
    shutil.rmtree(directory)
    return True


def cache_directory(resolver: ConfigResolver, root: Path) -> Path:
    """The working directory's config `cache-dir`, else $MCPLINT_CACHE_DIR, else <root>/.mcplint_cache."""
    configured = resolver.config_for(resolver.cwd / "__init__.py").cache_dir
    if configured is not None:
        return configured
    if os.environ.get(ENVIRONMENT_VARIABLE):
        return Path(os.environ[ENVIRONMENT_VARIABLE])
    return root / DEFAULT_DIRECTORY
