"""Worker processes that keep a file for the whole run.

The cross-module rounds analyse a file again when the run's join gives it
another project context. A worker keeps the modules it parsed and walked (see
``lint._WALKED``), so each file goes to the same worker in every round and is
parsed once. Files are spread by size in the round that first sees them.
Linux only (``fork`` shares the imported engine with the workers); elsewhere
the runner uses a plain process pool per round.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

Task = TypeVar("Task")

_POLL_SECONDS = 1.0


class PinnedPool(Generic[Task]):
    def __init__(self, jobs: int, work: Callable[[Task], Any], key: Callable[[Task], str]) -> None:
        self._jobs = jobs
        self._work = work
        self._key = key
        self._owner: dict[str, int] = {}
        self._context = multiprocessing.get_context("fork")
        self._results = self._context.Queue()
        self._inboxes = [self._context.Queue() for _ in range(jobs)]
        self._workers = [
            self._context.Process(target=_serve, args=(inbox, self._results, work), daemon=True)
            for inbox in self._inboxes
        ]
        for worker in self._workers:
            worker.start()

    def map(self, tasks: Sequence[Task], size: Callable[[Task], int]) -> Iterator[tuple[Task, Any]]:
        """(task, result) as results arrive."""
        load = [0] * self._jobs
        for task in tasks:  # the files a worker already holds add to its load first
            owner = self._owner.get(self._key(task))
            if owner is not None:
                load[owner] += size(task)
        for index, task in sorted(enumerate(tasks), key=lambda item: -size(item[1])):
            owner = self._owner.get(self._key(task))
            if owner is None:
                owner = self._owner[self._key(task)] = load.index(min(load))
                load[owner] += size(task)
            self._inboxes[owner].put((index, task))
        for _ in range(len(tasks)):
            index, result = self._next_result()
            if isinstance(result, _Failed):
                raise result.error
            yield tasks[index], result

    def _next_result(self) -> tuple[int, Any]:
        while True:
            try:
                return self._results.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                dead = [worker for worker in self._workers if not worker.is_alive()]
                if dead:
                    raise RuntimeError(f"a worker process died (exit code {dead[0].exitcode})") from None

    def close(self) -> None:
        for inbox in self._inboxes:
            inbox.put(None)
        for worker in self._workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()

    def terminate(self) -> None:
        """Stop every worker now (Ctrl-C, an error) and wait for them: none outlives the run.
        The queues' feeder threads may hold tasks no worker will read: they must not keep
        the interpreter from exiting."""
        for queue_ in (*self._inboxes, self._results):
            queue_.cancel_join_thread()
        for worker in self._workers:
            worker.terminate()
        for worker in self._workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.kill()
                worker.join()


def _serve(inbox: Any, results: Any, work: Callable[[Any], Any]) -> None:
    # A Ctrl-C reaches the whole process group: the parent decides, the workers just stop.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        item = inbox.get()
        if item is None:
            return
        index, task = item
        try:
            results.put((index, work(task)))
        except Exception as error:  # the parent raises it, as a process pool would
            results.put((index, _Failed(error)))


class _Failed:
    """An exception a task raised in a worker, carried back to be raised in the parent."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def available() -> bool:
    return hasattr(os, "fork") and "fork" in multiprocessing.get_all_start_methods()
