"""Lint many files, in a process pool or in-process, with a deterministic result."""

from __future__ import annotations

import gc
import hashlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from mcplint.analysis.project import NO_PROJECT, ProjectContext
from mcplint.engine import pool
from mcplint.engine.cache import ResultCache, settings_digest
from mcplint.engine.module_index import ModuleIndex
from mcplint.engine.result import FileResult
from mcplint.settings import FileSettings

if TYPE_CHECKING:
    from mcplint.engine.join import NameMemory
    from mcplint.engine.pool import PinnedPool
    from mcplint.engine.result import FileResult
    from mcplint.finding import Finding

# Imports inside functions: the join, the pool, LibCST's lint and fix paths are imported where they are used:
# a run replayed from the cache needs none of them.

# Below this much source more than one worker costs more to start than it saves
# (a pre-commit run on a handful of files gets one).
MIN_BYTES_FOR_POOL = 256 * 1024
# A worker analysing one file (one round) longer than this is stopped and the file gets an
# MCP000 finding. The bounds of engine/limits.py keep files far below it: a 1.4 MB module
# with a handler takes 20 s (the 2 MiB they allow, about 30 s).
FILE_TIME_BUDGET_SECONDS = 300.0


@dataclass(frozen=True)
class FileTask:
    path: str
    display: str
    settings: FileSettings
    skip_generated: bool
    fix_mode: str | None = None  # None, "apply" (--fix) or "diff" (--diff)
    unsafe_fixes: bool = False
    project: ProjectContext = NO_PROJECT
    # An editor's unsaved buffer of ``path``: analysed instead of the file on disk, never
    # looked up in or stored to the cache (`mcplint server`).
    text: str | None = None
    # False: what the join reads alone, no findings (``run``'s ``judge_once``).
    judge: bool = True
    # False: the findings may come without ``error_template`` (``lint_text``), which only
    # `mcplint migrate` reads; ``run``'s ``judge_once`` sets it. The cache keeps such results
    # under the same key: the runs that read the cache (check, the language server) never read
    # a template, and migrate's runs do not read the cache.
    templates: bool = True


@dataclass
class RunResult:
    findings: list[Finding]
    warnings: list[str]
    internal_errors: int
    files: int
    fixed: list[Finding] = field(default_factory=list)  # findings whose fixes were applied (or would be)
    diffs: list[str] = field(default_factory=list)
    # Modules that import an MCP server framework, when no handler was found anywhere.
    unseen_framework_modules: list[str] = field(default_factory=list)
    results: dict[str, FileResult] = field(default_factory=dict)  # path -> FileResult, for `mcplint handlers`
    # With --fix: one line per file whose fixes were not written (FileResult.write_error).
    write_errors: list[str] = field(default_factory=list)
    # path -> the ProjectContext of its last analysis (empty when the run was replayed from the cache)
    contexts: dict[str, ProjectContext] = field(default_factory=dict)
    # path -> every analysis of the run, by the ProjectContext it was made in (each round's, not
    # only the last): what a later run over the same files may reuse (see ``run``'s ``reuse``)
    analyses: dict[str, dict[ProjectContext, FileResult]] = field(default_factory=dict)
    # The rounds reached contexts the join does not change (not cut off by MAX_ROUNDS): each
    # file's last analysis (``contexts``) is one its project's final facts agree with.
    settled: bool = True


def _lint_task(task: FileTask) -> FileResult:
    # Imported here, not at the top: with a pool, the workers import LibCST in
    # parallel instead of the parent importing it before they start.
    if task.text is not None:
        from mcplint.engine.lint import lint_text

        return lint_text(
            task.text, task.display, task.settings, skip_generated=task.skip_generated, project=task.project
        )
    if task.fix_mode is not None:
        from mcplint.engine.fixer import fix_path

        write = task.fix_mode == "apply"
        return fix_path(
            task.path, task.display, task.settings,
            unsafe=task.unsafe_fixes, write=write, skip_generated=task.skip_generated, project=task.project,
        )  # fmt: skip
    from mcplint.engine.lint import lint_path

    return lint_path(
        task.path, task.display, task.settings, task.skip_generated, task.project, task.judge, task.templates,
        reread=False,
    )  # fmt: skip


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# Cross-module rounds: most projects settle in two or three, large ones in up to twelve (the
# later rounds analyse a few files each); a run cut off here says so (check's warning).
MAX_ROUNDS = 20

def run(
    tasks: Sequence[FileTask],
    jobs: int,
    cache: ResultCache | None = None,
    progress: Callable[[int], Callable[[], None] | None] | None = None,
    start: Mapping[str, ProjectContext] | None = None,
    small_rounds_in_process: bool = False,
    reuse: Callable[[FileTask], FileResult | None] | None = None,
    workers: Workers | None = None,
    judge_once: bool = False,
) -> RunResult:
    """Lint the tasks, then again those whose project context the join changed, until
    it settles; ``progress(total)`` may return a callback called per linted file.

    ``start``: the contexts to start the rounds from instead of the empty ones (the last
    run's, in the editor: a small change then settles in a round). The rounds reach the
    same result unless a stale fact sustains itself through a call cycle across modules
    (a removed tool still reaching f -> g -> f), so a caller that starts warm must run
    cold again to be exact (`mcplint server` does, once the edits pause).

    ``small_rounds_in_process``: a round too small for more than one worker runs in this
    process instead of a forked one (the language server's edits: no fork per keystroke;
    there only the token scan's bounds guard against a native crash).

    ``reuse(task)``: a result to take instead of analysing the task (in its round's project
    context), or None. The rounds stay those of a cold run; a caller answers only for what
    it knows the analysis would give again (`mcplint migrate`: a file its fixes leave alone,
    analysed by the run before in the same context, see ``RunResult.analyses``).

    ``workers``: those of ``shared_workers`` (``jobs`` is theirs then), which outlast the run.

    ``judge_once``: the rounds analyse only what the join reads (the handler scope, the rules'
    exports), and each file the rounds analysed in full is judged once, in the context they
    end with, however many rounds the project takes (a check's findings). Not with fixes,
    buffers or ``reuse``: each of those rounds is judged."""
    _forget_walked_modules()
    if workers is None:
        workers = Workers(jobs, small_rounds_in_process)
    else:
        workers.forget_walked()
    try:
        with _paused_collection():
            return _run(tasks, workers, cache, progress, start or {}, reuse, judge_once)
    finally:
        _forget_walked_modules()


@contextmanager
def _paused_collection() -> Iterator[None]:
    """The run without automatic collections of the cyclic garbage collector (switched on again
    after it, for a process that outlasts the run: the language server).

    A run allocates millions of container objects that live until their file is analysed (the
    trees, the walks' facts) or to its end, and each young collection traversed what had been
    allocated since the last: 77 collections, 0.5 s of a corpus check even with the young
    threshold raised to 50,000, which found 7,797 objects of cyclic garbage in all (the trees hold
    no cycles: reference counting frees them). Worker processes forked during the run inherit
    it, and those started without fork pause it themselves (``_pause_run_collection``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _pause_run_collection() -> None:
    gc.disable()


def _forget_checked_trees() -> None:
    """The trees this process's syntax checks kept go; a process that never checked a file
    (the parent of worker processes) does not import the syntax check for that."""
    syntax = sys.modules.get("mcplint.engine.syntax")
    if syntax is not None:
        syntax.forget_checked_trees()


def _forget_walked_modules() -> None:
    """What this process walked goes; a process that never imported the lint engine walked
    nothing (a run replayed from the cache does not import it, nor LibCST with it)."""
    lint = sys.modules.get("mcplint.engine.lint")
    if lint is not None:
        lint.forget_walked_modules()


@contextmanager
def shared_workers(jobs: int) -> Iterator[Workers]:
    """Worker processes for several runs over the same files (``run``'s ``workers``; `mcplint
    migrate`'s runs): each file stays with its worker from one run to the next, and the worker
    keeps its parse of the file's text (and the fixer its verified rewrites) instead of doing
    them again; what a run walked is forgotten when the next starts (it depends on the settings)."""
    from mcplint.engine.lint import keep_parsed_modules

    keep_parsed_modules(True)  # the workers, forked later, keep them too
    workers = Workers(jobs, shared=True)
    try:
        yield workers
    except BaseException:
        workers.terminate()
        raise
    finally:
        workers.close(for_good=True)
        keep_parsed_modules(False)


def _run(
    tasks: Sequence[FileTask],
    workers: Workers,
    cache: ResultCache | None,
    progress: Callable[[int], Callable[[], None] | None] | None,
    start: Mapping[str, ProjectContext],
    reuse: Callable[[FileTask], FileResult | None] | None = None,
    judge_once: bool = False,
) -> RunResult:
    results: dict[str, FileResult] = {}
    analyses: dict[str, dict[ProjectContext, FileResult]] = {}
    fixed: dict[str, list[Finding]] = {}
    digests: dict[tuple[int, bool], str] = {}
    replayable = all(task.fix_mode is None and task.text is None for task in tasks)
    run_key = _run_key(tasks, digests) if cache is not None and replayable else None
    replayed = _replay(tasks, cache, digests, run_key) if cache is not None and run_key is not None else None
    analysed_with: dict[str, ProjectContext] = {}
    settled = True
    if replayed is not None:
        results = replayed
    else:
        from mcplint.engine.join import NameMemory, initial_contexts

        contexts = initial_contexts([task.path for task in tasks])
        index = ModuleIndex(contexts)
        names = NameMemory()  # the joins' resolved names, the same index's
        contexts.update((path, start[path]) for path in contexts if path in start)
        for path, context in contexts.items():
            heads = index.heads_of(path)
            if context.module_heads != heads:  # a file added or removed since ``start`` was joined
                contexts[path] = replace(context, module_heads=heads)
        judge_once = judge_once and replayable and reuse is None
        if judge_once:  # a check's: nobody reads the findings' templates
            tasks = [replace(task, templates=False) for task in tasks]
        pending = [replace(task, project=contexts[task.path], judge=not judge_once) for task in tasks]
        settled = False
        try:
            for round_number in range(MAX_ROUNDS):
                rounds_progress = progress if round_number == 0 else None
                for task, result in _lint_round(pending, workers, cache, digests, rounds_progress, reuse):
                    _take(task, result, results, analysed_with, analyses, fixed)
                # A name resolves only within its importer's project (ModuleIndex): after the
                # first round only the projects of the files just analysed can join otherwise.
                changed = None if round_number == 0 else {index.project_of(task.path) for task in pending}
                wanted = _joined(results, contexts, index, changed, names)
                pending = [
                    replace(task, project=wanted[task.path], judge=not judge_once)
                    for task in tasks
                    if wanted[task.path] != contexts[task.path]
                ]
                contexts = wanted
                if not pending:
                    settled = True
                    break
            workers.forget_checked_trees()
            judged = [
                replace(task, project=analysed_with[task.path], judge=True)
                for task in tasks
                if not results[task.path].judged
            ]
            for task, result in _lint_round(judged, workers, cache, digests, None):
                _take(task, result, results, analysed_with, analyses, fixed)
        except BaseException:
            workers.terminate()
            raise
        workers.close()
        if cache is not None and run_key is not None:
            from mcplint.engine.cache import context_key

            cache.remember_run(
                run_key, {os.path.abspath(path): context_key(project) for path, project in analysed_with.items()}
            )
    if cache is not None:
        cache.save()
    return summarise(tasks, results, fixed, analysed_with, analyses, settled)


def _take(
    task: FileTask,
    result: FileResult,
    results: dict[str, FileResult],
    analysed_with: dict[str, ProjectContext],
    analyses: dict[str, dict[ProjectContext, FileResult]],
    fixed: dict[str, list[Finding]],
) -> None:
    """A round's result of ``task``: the file's last, and one a later run may reuse (judged)."""
    results[task.path] = result
    analysed_with[task.path] = task.project
    if result.judged:
        analyses.setdefault(task.path, {})[task.project] = result
    fixed.setdefault(task.path, []).extend(result.fixed)


def _joined(
    results: dict[str, FileResult],
    contexts: dict[str, ProjectContext],
    index: ModuleIndex,
    projects: set[str | None] | None,
    names: NameMemory | None = None,
) -> dict[str, ProjectContext]:
    """``join`` over every file (``projects`` None), or over the files of ``projects`` only,
    the others keeping their contexts (``names``: what the run's earlier joins resolved)."""
    from mcplint.engine.join import join

    if projects is None:
        return join(results, contexts, index, names)
    paths = [path for path in results if index.project_of(path) in projects]
    joined = join({path: results[path] for path in paths}, {path: contexts[path] for path in paths}, index, names)
    return {**contexts, **joined}


def summarise(
    tasks: Sequence[FileTask],
    results: dict[str, FileResult],
    fixed: Mapping[str, list[Finding]],
    analysed_with: dict[str, ProjectContext],
    analyses: dict[str, dict[ProjectContext, FileResult]],
    settled: bool,
) -> RunResult:
    """The run's result from each file's last analysis (``results``), the findings its rounds
    fixed (``fixed``: per path, every round's), its contexts and analyses."""
    findings = sorted(finding for result in results.values() for finding in result.findings)
    warnings = sorted({warning for result in results.values() for warning in result.warnings})
    internal_errors = sum(result.internal_error for result in results.values())
    all_fixed = sorted(finding for found in fixed.values() for finding in found)
    diffs = sorted(result.diff for result in results.values() if result.diff)
    unseen = []
    if not any(result.handlers for result in results.values()):
        displays = {task.path: task.display for task in tasks}
        unseen = sorted(displays[path] for path, result in results.items() if result.imports_server_framework)
    write_errors = sorted(result.write_error for result in results.values() if result.write_error)
    return RunResult(
        findings, warnings, internal_errors, len(tasks), all_fixed, diffs, unseen, results, write_errors, analysed_with,
        analyses, settled,
    )  # fmt: skip


def _lint_round(
    tasks: Sequence[FileTask],
    workers: Workers,
    cache: ResultCache | None,
    digests: dict[tuple[int, bool], str],
    progress: Callable[[int], Callable[[], None] | None] | None,
    reuse: Callable[[FileTask], FileResult | None] | None = None,
) -> Iterator[tuple[FileTask, FileResult]]:
    misses = []
    for task in tasks:
        known = reuse(task) if reuse is not None else None
        if known is not None:
            yield task, known
            continue
        cached = cache is not None and task.text is None
        hit = cache.lookup(task.path, task.display, _digest(task, digests), task.project) if cache and cached else None
        if hit is None or _has_applicable_fix(task, hit.findings) or (task.judge and not hit.judged):
            misses.append(task)
        else:
            yield task, hit
    advance = progress(len(misses)) if progress is not None and misses else None
    for task, result in workers.lint(misses):
        if cache is not None and result.content_hash is not None and result.stat_key is not None:
            cache.store(task.path, task.display, _digest(task, digests), task.project, result)
        if advance is not None:
            advance()
        yield task, result


def _run_key(tasks: Sequence[FileTask], digests: dict[tuple[int, bool], str]) -> str | None:
    """What a run's outcome depends on: the files (path, size, mtime) and their settings."""

    parts = []
    for task in tasks:
        try:
            status = os.stat(task.path)
        except OSError:
            return None
        parts.append(f"{os.path.abspath(task.path)}\0{status.st_size}\0{status.st_mtime_ns}\0{_digest(task, digests)}")
    return hashlib.sha256("\n".join(sorted(parts)).encode("utf-8", "surrogateescape")).hexdigest()


def _replay(
    tasks: Sequence[FileTask], cache: ResultCache, digests: dict[tuple[int, bool], str], run_key: str
) -> dict[str, FileResult] | None:
    """The results of the last run over exactly these unchanged files, from the cache alone."""
    final = cache.final_contexts(run_key)
    if final is None:
        return None
    results = {}
    for task in tasks:
        key = final.get(os.path.abspath(task.path))
        found = cache.lookup_key(task.path, task.display, _digest(task, digests), key) if key else None
        if found is None or not found.judged:  # a round's analysis for the join alone: no findings
            return None
        results[task.path] = found
    return results


def _has_applicable_fix(task: FileTask, findings: list[Finding]) -> bool:
    """With --fix/--diff, a cached result with something to fix must run again."""
    if task.fix_mode is None:
        return False
    from mcplint.engine.fixer import is_applicable

    return any(is_applicable(finding, task.unsafe_fixes) for finding in findings)


def _digest(task: FileTask, digests: dict[tuple[int, bool], str]) -> str:
    """The task's settings digest (what the cache keys results by), computed once per settings."""
    key = _digest_key(task)
    if key not in digests:
        digests[key] = settings_digest(task.settings, task.skip_generated)
    return digests[key]


def _digest_key(task: FileTask) -> tuple[int, bool]:
    return id(task.settings), task.skip_generated


def _workers_for(tasks: Sequence[FileTask], jobs: int) -> int:
    """How many worker processes a round gets: every run is analysed outside this process, so
    that a native crash in LibCST (a shape the token scan's bounds do not foresee) costs its
    file an MCP000 finding, not the run; a run too small to gain from more gets one worker
    (forking one costs ~50 ms of a 0.46 s run on the example server)."""
    total = 0
    for task in tasks:
        try:
            total += os.path.getsize(task.path)
        except OSError:
            continue
        if total >= MIN_BYTES_FOR_POOL and len(tasks) > 1:
            return jobs
    return 1


class Workers:
    """Where a round's files are linted: in this process, or in worker processes that the
    first round big enough starts and every later round of the run reuses (each file stays
    with its worker, which keeps what it walked); ``shared``: of several runs (``shared_workers``)."""

    def __init__(self, jobs: int, small_rounds_in_process: bool = False, shared: bool = False) -> None:
        self._jobs = jobs
        self._small_rounds_in_process = small_rounds_in_process
        self._shared = shared
        self._pool: PinnedPool[FileTask] | None = None

    def forget_walked(self) -> None:
        """A run of shared workers starts: what the last one walked is not valid for it."""
        if self._pool is not None:
            from mcplint.engine.lint import forget_walked_modules

            self._pool.call_everywhere(forget_walked_modules)

    def forget_checked_trees(self) -> None:
        """The rounds have settled: no file is analysed for the first time after them, so the
        trees the syntax checks kept for such analyses go (``syntax.checked_tree``)."""
        _forget_checked_trees()
        if self._pool is not None:
            self._pool.call_everywhere(_forget_checked_trees)

    def lint(self, tasks: Sequence[FileTask]) -> Iterator[tuple[FileTask, FileResult]]:
        """(task, result) as results arrive; the caller sorts the findings."""
        if self._pool is None and tasks:
            workers = _workers_for(tasks, self._jobs)
            # Without fork a worker re-imports the engine (~1 s): only a big run pays it.
            if workers == 1 and (self._small_rounds_in_process or not pool.available()):
                for task in tasks:
                    yield task, _lint_task(task)
                return
            if not pool.available():
                yield from _lint_all(tasks, self._jobs)
                return
            self._pool = pool.PinnedPool(
                workers, _lint_task, key=lambda task: task.path, lost=_lost, budget=FILE_TIME_BUDGET_SECONDS
            )
        if self._pool is None:
            return
        yield from self._pool.map(tasks, size=lambda task: _size(task.path))

    def close(self, for_good: bool = False) -> None:
        """The run ends: the workers stop, unless shared and more runs may come."""
        if self._pool is not None and (for_good or not self._shared):
            self._pool.close()
            self._pool = None

    def terminate(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool = None


def _lost(task: FileTask, why: str) -> FileResult:
    """The result of a file whose worker was lost analysing it (a native crash, or past the
    time budget): an MCP000 finding for that file; the run goes on."""
    from mcplint.rules.mcp000_syntax_error import syntax_findings

    message = f"the process analysing this file {why}; the file is not analysed"
    return FileResult(findings=syntax_findings(task.display, task.settings, message, 1, 1))


def _lint_all(tasks: Sequence[FileTask], jobs: int) -> Iterator[tuple[FileTask, FileResult]]:
    """A plain process pool for one round, where `fork` is not available."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork shares the already-imported engine with the workers (no re-import per
    # worker); elsewhere the platform default is the only safe choice.
    context = multiprocessing.get_context("fork") if sys.platform == "linux" else None
    # Biggest files first so one large file does not finish alone at the end.
    ordered = sorted(tasks, key=lambda task: -_size(task.path))
    with ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)), mp_context=context, initializer=_pause_run_collection
    ) as pool:
        yield from zip(ordered, pool.map(_lint_task, ordered, chunksize=1), strict=True)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
