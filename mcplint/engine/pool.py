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
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

Task = TypeVar("Task")

# Tasks sent to a worker in one message: between two messages it waits for the parent once.
TASKS_PER_MESSAGE = 128
# Answers a worker sends in one message (and the rest of a message's when its tasks are done).
ANSWERS_PER_MESSAGE = 32

# Where a worker is in its message, in memory the parent shares (``_Worker.progress``).
_RUNNING, _STARTED = 0, 1  # the position in the message of the task it runs; when that task started


@dataclass
class _Worker:
    process: Any
    connection: Connection
    # Written by the worker as it goes (``_RUNNING``, ``_STARTED``: time.monotonic, one clock for
    # every process of the machine), read by the parent when the worker dies or runs late.
    progress: Any
    queued: deque[tuple[int, Any]] = field(default_factory=deque)  # (index, task) not yet sent, in order
    # (index, task) sent and not answered, in order: the worker runs one of them, past those it has
    # done and not yet sent the answers of.
    sent: deque[tuple[int, Any]] = field(default_factory=deque)
    answered: int = 0  # of the last message sent

    def running(self) -> int:
        """Where in ``sent`` the task the worker runs is (``len(sent)``: it has run them all and
        is sending the last answers)."""
        return min(int(self.progress[_RUNNING]) - self.answered, len(self.sent))


class PinnedPool(Generic[Task]):
    """Each worker gets its queue of a map in messages of up to ``TASKS_PER_MESSAGE`` tasks
    over its own pipe and answers in order, up to ``ANSWERS_PER_MESSAGE`` answers a message; it
    writes where it is into memory it shares with the parent (``_Worker.progress``), so the
    task it is running is known: when a worker dies (a native crash in a parser) or runs one
    task longer than ``budget`` seconds (it is then stopped), ``lost(task, why)`` stands for
    that task's result, and a new worker takes the slot and the rest of its queue (the tasks
    it had done and not yet answered first).

    Many tasks a message, not one: a worker waiting for its next task between two files sat
    idle while the parent read the last answer, and on a machine where the two run on
    different cores that round trip, 3,000 times a corpus check, cost the worker a fifth more
    CPU for the same files. Many answers a message, not one: each answer woke the parent, and
    where the two share a core (`--jobs 1` on one processor) each of those 3,700 wake-ups of a
    corpus check switched the core to the parent and back (3,783 involuntary switches of the
    worker; 261 with answers 32 a message). The parent sends the next message only once the
    worker has answered the last one, so neither can block the other writing into a full pipe,
    and a message stays small whatever the size of the run."""

    def __init__(
        self,
        jobs: int,
        work: Callable[[Task], Any],
        key: Callable[[Task], str],
        lost: Callable[[Task, str], Any] | None = None,
        budget: float | None = None,
    ) -> None:
        self._jobs = jobs
        self._work = work
        self._key = key
        self._lost = lost
        self._budget = budget
        self._owner: dict[str, int] = {}
        self._context = multiprocessing.get_context("fork")
        self._workers = [self._start() for _ in range(jobs)]
        self._answers: deque[tuple[int, Any]] = deque()  # received in a message, not yet handed out

    def _start(self) -> _Worker:
        parent_end, child_end = self._context.Pipe()
        progress = self._context.RawArray("d", 2)
        process = self._context.Process(target=_serve, args=(child_end, self._work, progress), daemon=True)
        process.start()
        child_end.close()
        return _Worker(process, parent_end, progress)

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
            self._workers[owner].queued.append((index, task))
        self._answers.clear()
        for slot in range(self._jobs):
            self._feed(slot)
        for _ in range(len(tasks)):
            index, result = self._answers.popleft() if self._answers else self._next_result()
            if isinstance(result, _Failed):
                raise result.error
            yield tasks[index], result

    def _feed(self, slot: int) -> None:
        worker = self._workers[slot]
        if not worker.sent and worker.queued:
            count = min(len(worker.queued), TASKS_PER_MESSAGE)
            worker.sent.extend(worker.queued.popleft() for _ in range(count))
            worker.answered = 0
            # The worker writes both as it starts each task; until then, the message's first waits.
            worker.progress[_RUNNING] = 0
            worker.progress[_STARTED] = time.monotonic()
            try:
                worker.connection.send(list(worker.sent))
            except OSError:  # the worker is gone: the wait sees it and replaces it
                pass

    def _next_result(self) -> tuple[int, Any]:
        while True:
            busy = [slot for slot, worker in enumerate(self._workers) if worker.sent]
            if not busy:
                raise RuntimeError("no task is running")  # pragma: no cover - map's count is exact
            waiting: dict[Any, int] = {}  # a connection or a process sentinel -> its slot
            for slot in busy:
                waiting[self._workers[slot].connection] = slot
                waiting[self._workers[slot].process.sentinel] = slot
            timeout = None
            running = [self._workers[slot] for slot in busy]
            running = [worker for worker in running if worker.running() < len(worker.sent)]
            if self._budget is not None and running:  # (a worker sending its last answers runs nothing)
                deadline = min(worker.progress[_STARTED] for worker in running) + self._budget
                timeout = max(0.0, deadline - time.monotonic())
            ready_list = wait(list(waiting), timeout)
            if not ready_list and self._budget is not None:  # a task ran out of time: stop it
                now = time.monotonic()
                for slot in busy:
                    worker = self._workers[slot]
                    if worker.running() < len(worker.sent) and now - worker.progress[_STARTED] >= self._budget:
                        worker.process.kill()
                        return self._replace(slot, f"ran longer than {self._budget:g} s and was stopped")
                continue
            for ready in ready_list:
                slot = waiting[ready]
                worker = self._workers[slot]
                if not worker.sent:
                    continue
                try:
                    if worker.connection.poll():  # answers sent before any death are read first
                        answers = worker.connection.recv()
                        for _ in answers:
                            worker.sent.popleft()
                        worker.answered += len(answers)
                        self._feed(slot)
                        self._answers.extend(answers[1:])
                        return answers[0]  # type: ignore[no-any-return]
                except (EOFError, OSError):
                    pass
                if worker.process.is_alive():
                    continue
                return self._replace(slot, _death(worker.process.exitcode))

    def _replace(self, slot: int, why: str) -> tuple[int, Any]:
        """The worker in ``slot`` is lost with the task it was running: that task's result says
        why, and a new worker takes over the slot's other tasks (those sent and not answered
        first, then those not sent yet). Lost while sending answers after its last task, it is
        lost with the first task not answered."""
        dead = self._workers[slot]
        dead.process.join()
        assert dead.sent  # only a busy slot is replaced
        running = dead.running()
        if running == len(dead.sent):
            running = 0
        index, task = dead.sent[running]
        del dead.sent[running]
        dead.connection.close()
        if self._lost is None:
            raise RuntimeError(f"a worker process {why}")
        replacement = self._start()
        replacement.queued = dead.sent + dead.queued
        self._workers[slot] = replacement
        self._feed(slot)
        return index, self._lost(task, why)

    def call_everywhere(self, function: Callable[[], object]) -> None:
        """Call ``function`` in every worker, between two maps (no task is running); a worker
        found gone meanwhile is replaced."""
        for slot, worker in enumerate(self._workers):
            try:
                worker.connection.send(_Call(function))
                worker.connection.recv()
            except (EOFError, OSError):
                worker.process.join()
                worker.connection.close()
                self._workers[slot] = self._start()

    def close(self) -> None:
        for worker in self._workers:
            try:
                worker.connection.send(None)
            except OSError:
                pass
        for worker in self._workers:
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.terminate()

    def terminate(self) -> None:
        """Stop every worker now (Ctrl-C, an error) and wait for them: none outlives the run."""
        for worker in self._workers:
            worker.process.terminate()
        for worker in self._workers:
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()


def _death(exit_code: int | None) -> str:
    """How a worker process ended, in words: "crashed (signal SIGSEGV)"."""
    if exit_code is not None and exit_code < 0:
        try:
            return f"crashed (signal {signal.Signals(-exit_code).name})"
        except ValueError:
            pass
    return f"crashed (exit code {exit_code})"


def _serve(connection: Connection, work: Callable[[Any], Any], progress: Any) -> None:
    # A Ctrl-C reaches the whole process group: the parent decides, the workers just stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            item = connection.recv()
        except EOFError:  # the parent is gone
            return
        if item is None:
            return
        if isinstance(item, _Call):
            item.function()
            connection.send(None)
            continue
        answers: list[tuple[int, Any]] = []
        last = len(item) - 1
        for position, (index, task) in enumerate(item):
            progress[_STARTED] = time.monotonic()
            progress[_RUNNING] = position
            try:
                answers.append((index, work(task)))
            except Exception as error:  # the parent raises it, as a process pool would
                answers.append((index, _Failed(error)))
            if position == last:
                progress[_RUNNING] = len(item)  # all run: what is left is sending (before the parent's next message)
            if len(answers) == ANSWERS_PER_MESSAGE or position == last:
                connection.send(answers)
                answers = []


class _Call:
    """A function every worker calls between two maps (`PinnedPool.call_everywhere`)."""

    def __init__(self, function: Callable[[], object]) -> None:
        self.function = function


class _Failed:
    """An exception a task raised in a worker, carried back to be raised in the parent."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def available() -> bool:
    return hasattr(os, "fork") and "fork" in multiprocessing.get_all_start_methods()
