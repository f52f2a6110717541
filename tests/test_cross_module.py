"""Handler scope across modules: servers imported from another module, service
modules reached from tools, imported wrapper decorators, module-level instances."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest
from fixture_expectations import FIXTURES, silent_cases
from fixture_expectations import project_expectations as expected
from test_cli import BAD_TOOL, json_findings, run_cli
from test_judge_once import _tasks, _whole

from mcplint.engine import runner as engine_runner
from mcplint.rules import RULES_BY_CODE
from mcplint.settings import FileSettings

PROJECT = FIXTURES / "projects" / "crossmodule"


@pytest.fixture
def project(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "project")
    return tmp_path / "project"



def found(result) -> set[tuple[str, int, str]]:
    return {(f["filename"], f["location"]["row"], f["code"]) for f in json_findings(result)}


def check(root, *options):
    return run_cli("check", "--format", "json", "--select", "MCP001,MCP002", *options, ".", cwd=root)


def test_findings_across_modules_match_the_markers(project):
    assert found(check(project, "--no-cache")) == expected(project)
    silent = sum(len(silent_cases(path.read_text())) for path in project.rglob("*.py"))
    assert silent >= 5


def test_a_service_finding_names_the_tool_that_reaches_it(project):
    findings = {(f["filename"], f["location"]["row"]): f for f in json_findings(check(project, "--no-cache"))}
    load = findings[("pkg/services/notes.py", 3)]
    assert load["handler"] == "pkg.tools.load_raw"  # get_note's wrapper stops the raise
    assert "(in `load`, reached from tool `pkg.tools.load_raw`)" in load["message"]
    assert findings[("pkg/util.py", 13)]["handler"] == "pkg.tools.get_note"


def test_warm_cache_and_pool_agree(project, monkeypatch):
    cold = check(project).stdout
    assert check(project).stdout == cold
    monkeypatch.setattr(engine_runner, "MIN_BYTES_FOR_POOL", 0)
    assert check(project, "--no-cache", "--jobs", "2").stdout == cold


def test_editing_a_service_module_keeps_the_join_right(project):
    check(project)
    notes = project / "pkg" / "services" / "notes.py"
    notes.write_text(notes.read_text().replace('raise ValueError("note id is empty")  # expect: MCP002', "return None"))
    assert found(check(project)) == expected(project)


def test_a_single_file_run_keeps_module_local_scope(project):
    result = run_cli("check", "--format", "json", "--no-cache", "pkg/services/notes.py", cwd=project)
    assert json_findings(result) == []  # the tools that reach it are not part of the run


def _fails_on_b(task):
    if task.endswith("b"):
        raise OSError(f"cannot read {task}")
    return task.upper()


def test_the_pinned_pool_returns_results_and_raises_a_task_error_in_the_parent():
    from mcplint.engine.pool import PinnedPool, available

    if not available():
        pytest.skip("fork is not available here")
    pool = PinnedPool(2, _fails_on_b, key=lambda task: task)
    try:
        assert sorted(result for _, result in pool.map(["x", "y"], size=len)) == ["X", "Y"]
        with pytest.raises(OSError, match="cannot read b"):
            list(pool.map(["b"], size=len))
    finally:
        pool.terminate()


def _worker_pid(task):
    import os

    return os.getpid()


def test_the_pinned_pool_sends_a_file_to_the_same_worker_every_round(monkeypatch):
    from mcplint.engine import pool as pool_module
    from mcplint.engine.pool import PinnedPool, available

    if not available():
        pytest.skip("fork is not available here")
    monkeypatch.setattr(pool_module, "TASKS_PER_MESSAGE", 3)  # a worker's queue in two messages
    pool = PinnedPool(2, _worker_pid, key=lambda task: task)
    try:
        tasks = [f"{name}.py" for name in "abcdefghij"]
        first = dict(pool.map(tasks, size=len))
        again = dict(pool.map(list(reversed(tasks)), size=len))
        assert first == again
        assert len(set(first.values())) == 2
    finally:
        pool.close()


def _started_at(task):
    import time

    return time.monotonic()  # one clock for every process of the machine (Linux)


def test_a_worker_goes_on_with_its_queue_while_the_parent_reads_nothing():
    """The worker gets many of its tasks in one message: it does not wait for the parent to read
    an answer and send the next task (that round trip per file cost it a fifth more CPU)."""
    import time

    from mcplint.engine.pool import PinnedPool, available

    if not available():
        pytest.skip("fork is not available here")
    pool = PinnedPool(1, _started_at, key=lambda task: task)
    try:
        results = pool.map(["a", "b", "c"], size=lambda task: 1)
        next(results)
        time.sleep(0.5)  # the parent is busy: the worker is not
        reading = time.monotonic()
        next(results)
        _, third_started = next(results)
        assert third_started < reading - 0.4
    finally:
        pool.close()


def test_a_message_holds_at_most_its_share_of_tasks(monkeypatch):
    """Past ``TASKS_PER_MESSAGE``, the next tasks wait for the parent to read the answers so far
    (a run's tasks are not one message, whatever its size)."""
    from mcplint.engine import pool as pool_module
    from mcplint.engine.pool import PinnedPool, available

    if not available():
        pytest.skip("fork is not available here")
    monkeypatch.setattr(pool_module, "TASKS_PER_MESSAGE", 2)
    pool = PinnedPool(1, _started_at, key=lambda task: task)
    connection = pool._workers[0].connection
    sent_sizes = []
    send = connection.send
    connection.send = lambda message: (message and sent_sizes.append(len(message)), send(message))[1]
    try:
        answers = dict(pool.map(["a", "b", "c"], size=lambda task: 1))
        assert sent_sizes == [2, 1]
        assert answers["c"] > max(answers["a"], answers["b"])
    finally:
        pool.close()


def _answer_pid(task):
    import os

    return os.getpid()


@pytest.mark.parametrize(("answers_per_message", "messages"), [(1, 5), (2, 3), (32, 1)])
def test_a_worker_answers_many_tasks_a_message(monkeypatch, answers_per_message, messages):
    """Each answer woke the parent (on one core: a switch to it and back per file): a worker
    sends up to ``ANSWERS_PER_MESSAGE`` at once, and what is left when its tasks are done."""
    from mcplint.engine import pool as pool_module
    from mcplint.engine.pool import PinnedPool, available

    if not available():
        pytest.skip("fork is not available here")
    monkeypatch.setattr(pool_module, "ANSWERS_PER_MESSAGE", answers_per_message)
    pool = PinnedPool(1, _answer_pid, key=lambda task: task)
    connection = pool._workers[0].connection
    received = []
    recv = connection.recv
    connection.recv = lambda: received.append(recv()) or received[-1]
    try:
        answers = dict(pool.map(list("abcde"), size=lambda task: 1))
        assert sorted(answers) == list("abcde")
        assert len(received) == messages
        assert [len(message) for message in received] == [answers_per_message] * (5 // answers_per_message) + (
            [5 % answers_per_message] if 5 % answers_per_message else []
        )
    finally:
        pool.close()


def _crashes_on_b(task):
    import os
    import signal

    if task == "b":
        os.kill(os.getpid(), signal.SIGSEGV)  # what LibCST's parser does on a stack overflow
    return task.upper()


@pytest.mark.parametrize("answers", [1, 32])
@pytest.mark.parametrize("per_message", [1, 2, 128])
def test_a_worker_that_dies_costs_its_task_only(monkeypatch, per_message, answers):
    from mcplint.engine import pool as pool_module
    from mcplint.engine.pool import PinnedPool, available

    if not available():
        pytest.skip("fork is not available here")
    monkeypatch.setattr(pool_module, "TASKS_PER_MESSAGE", per_message)  # b first, last or amid a message
    monkeypatch.setattr(pool_module, "ANSWERS_PER_MESSAGE", answers)  # a answered, or done and kept
    pool = PinnedPool(1, _crashes_on_b, key=lambda task: task, lost=lambda task, why: f"{task} {why}")
    try:
        results = dict(pool.map(["a", "b", "c", "d"], size=lambda task: 1))
        assert results == {"a": "A", "b": "b crashed (signal SIGSEGV)", "c": "C", "d": "D"}
        again = dict(pool.map(["e", "b", "f"], size=lambda task: 1))
        assert again == {"e": "E", "b": "b crashed (signal SIGSEGV)", "f": "F"}
    finally:
        pool.close()


@pytest.mark.parametrize(
    ("jobs", "crash_lines"),
    [("1", 50_000), ("2", 50_000), ("1", 1), ("2", 1)],
    ids=["big-jobs-1", "big-jobs-2", "pre-commit-jobs-1", "pre-commit-jobs-2"],
)
def test_a_crashed_worker_is_an_mcp000_finding_and_the_run_goes_on(tmp_path, monkeypatch, jobs, crash_lines):
    from mcplint.engine import runner

    original = runner._lint_task

    def crashing(task):
        if task.display.endswith("crash.py"):
            import os
            import signal

            os.kill(os.getpid(), signal.SIGSEGV)
        return original(task)

    monkeypatch.setattr(runner, "_lint_task", crashing)
    # 50,000 lines: over MIN_BYTES_FOR_POOL (--jobs workers); one line: a pre-commit run (one worker)
    (tmp_path / "crash.py").write_text("x = 1\n" * crash_lines)
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--no-cache", "--jobs", jobs, "--format", "concise", str(tmp_path))
    assert result.exit_code == 1
    assert "crash.py:1:1: MCP000 the process analysing this file crashed (signal SIGSEGV)" in result.output
    assert "server.py:9:9: MCP002" in result.output


def test_a_crash_in_a_one_file_run_is_an_mcp000_finding(tmp_path, monkeypatch):
    from mcplint.engine import runner

    def crashing(task):
        import os
        import signal

        os.kill(os.getpid(), signal.SIGSEGV)

    monkeypatch.setattr(runner, "_lint_task", crashing)
    (tmp_path / "crash.py").write_text("x = 1\n")
    result = run_cli("check", "--no-cache", "--format", "concise", str(tmp_path / "crash.py"))
    assert result.exit_code == 1
    assert "crash.py:1:1: MCP000 the process analysing this file crashed (signal SIGSEGV)" in result.output


def _sleeps_on_slow(task):
    import time

    if task == "slow":
        time.sleep(60)
    return task.upper()


@pytest.mark.parametrize("answers", [1, 32])
@pytest.mark.parametrize("per_message", [2, 128])
def test_a_task_past_the_time_budget_is_stopped_and_costs_only_itself(monkeypatch, per_message, answers):
    from mcplint.engine import pool as pool_module
    from mcplint.engine.pool import PinnedPool, available

    if not available():
        pytest.skip("fork is not available here")
    monkeypatch.setattr(pool_module, "TASKS_PER_MESSAGE", per_message)
    monkeypatch.setattr(pool_module, "ANSWERS_PER_MESSAGE", answers)
    pool = PinnedPool(1, _sleeps_on_slow, key=lambda task: task, lost=lambda task, why: why, budget=1.0)
    try:
        results = dict(pool.map(["a", "slow", "b"], size=lambda task: 1))
        assert results == {"a": "A", "slow": "ran longer than 1 s and was stopped", "b": "B"}
    finally:
        pool.close()


def _helper_chain(root):
    app = root / "app"
    app.mkdir()
    (app / "__init__.py").write_text("")
    (app / "errors.py").write_text("def error_response(message):\n    return {'error': message}\n")
    (app / "util.py").write_text(
        "from app.errors import error_response\n\n\ndef missing(name):\n    return error_response(f'no {name}')\n"
    )
    # Imports a helper, but no module analysed in full imports from it: nothing reads its summary.
    (app / "cli.py").write_text(
        "from app.errors import error_response\n\n\ndef fail(message):\n    return error_response(message)\n"
    )
    (app / "server.py").write_text(
        "from mcp.server.fastmcp import FastMCP\n\nfrom app.util import missing\n\nmcp = FastMCP('x')\n\n\n"
        "@mcp.tool()\ndef lookup(name: str) -> dict:\n    return missing(name)\n"
    )
    return app


def test_a_module_importing_helpers_is_parsed_only_when_a_module_reads_its_own(tmp_path):
    """Another module's error or text helpers are a reason to analyse a module only when a
    module analysed in full imports from it: its own helpers' summaries are then read."""
    app = _helper_chain(tmp_path)
    settings = FileSettings(codes=frozenset(RULES_BY_CODE))
    tasks = [engine_runner.FileTask(str(path), path.name, settings, True) for path in sorted(app.glob("*.py"))]
    results = engine_runner.run(tasks, 1).results
    assert results[str(app / "util.py")].analysed
    assert not results[str(app / "cli.py")].analysed
    assert results[str(app / "server.py")].analysed


def test_a_run_cut_off_before_it_settles_says_so(tmp_path, monkeypatch):
    _helper_chain(tmp_path)
    assert "stopped after" not in run_cli("check", "--no-cache", ".", cwd=tmp_path).stderr
    monkeypatch.setattr(engine_runner, "MAX_ROUNDS", 1)
    result = run_cli("check", "--no-cache", ".", cwd=tmp_path)
    assert "the cross-module analysis stopped after 1 rounds before it settled" in result.stderr


def test_the_join_tables_leave_out_what_no_module_of_the_project_can_be(project, monkeypatch):
    """A module's outgoing calls and local reach name only targets that begin with one of the
    project's module names (`json.dumps` is located nowhere): the same findings and contexts as
    tables that keep every target."""
    from mcplint.engine.module_index import ModuleIndex

    tasks = _tasks(project)
    narrowed = engine_runner.run(tasks, 1, judge_once=True)
    monkeypatch.setattr(ModuleIndex, "heads_of", lambda self, path: None)
    kept = engine_runner.run(tasks, 1, judge_once=True)

    assert narrowed.findings and _whole(narrowed.findings) == _whole(kept.findings)
    assert {path: replace(context, module_heads=None) for path, context in narrowed.contexts.items()} == kept.contexts
    for path, result in narrowed.results.items():
        heads = set(narrowed.contexts[path].module_heads or ())
        targets = [*result.outgoing_calls, *result.outgoing_returns]
        targets += [target for reached in result.local_reach_calls.values() for target in reached]
        assert all(target.partition(".")[0] in heads for target in targets), path
    left_out = {
        target
        for result in kept.results.values()
        for target in (*result.outgoing_calls, *result.outgoing_returns)
        if not target.startswith("pkg.")
    }
    assert left_out  # the fixture's handlers do call outside the project
