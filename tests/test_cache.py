"""The result cache: hits, misses, invalidation, robustness."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_cli import BAD_TOOL, json_findings, run_cli

from mcplint.engine import runner as engine_runner


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "server.py").write_text(BAD_TOOL)
    (tmp_path / "src" / "clean.py").write_text("VALUE = 1\n")
    return tmp_path


def check(project, *extra):
    return run_cli("check", "--format", "json", *extra, "src", cwd=project)


def count_lint_calls(monkeypatch) -> list[str]:
    """The files given to the workers (which are other processes: counted here, in the parent);
    "(join)" where a round analyses one for the join alone (a check judges it once afterwards)."""
    calls: list[str] = []
    original = engine_runner.Workers.lint

    def counting(self, tasks):
        calls.extend(task.display if task.judge else f"{task.display} (join)" for task in tasks)
        return original(self, tasks)

    monkeypatch.setattr(engine_runner.Workers, "lint", counting)
    return calls


def test_warm_run_reads_no_file_and_gives_the_same_output(project, monkeypatch):
    cold = check(project)
    calls = count_lint_calls(monkeypatch)
    warm = check(project)
    assert calls == []
    assert warm.stdout == cold.stdout
    assert warm.exit_code == cold.exit_code == 1


def test_a_changed_file_is_linted_again(project, monkeypatch):
    check(project)
    calls = count_lint_calls(monkeypatch)
    (project / "src" / "server.py").write_text(BAD_TOOL.replace('raise ValueError("note id is empty")', "pass"))
    findings = json_findings(check(project))
    assert calls == ["src/server.py (join)", "src/server.py"]
    assert [f["code"] for f in findings] == ["MCP001"]


def test_touching_a_file_without_changing_it_is_still_a_hit(project, monkeypatch):
    check(project)
    calls = count_lint_calls(monkeypatch)
    path = project / "src" / "server.py"
    os.utime(path, ns=(1, 1))
    assert len(json_findings(check(project))) == 2
    assert calls == []


def test_settings_are_part_of_the_key(project):
    check(project)
    assert [f["code"] for f in json_findings(check(project, "--select", "MCP001"))] == ["MCP001"]


def test_cache_directory_is_tagged_and_ignored(project):
    check(project)
    cache = project / "cache"
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"


def test_corrupt_index_is_ignored_and_rewritten(project):
    cold = check(project)
    for index in (project / "cache").rglob("*.json"):
        index.write_text("{ torn")
    again = check(project)
    assert again.stdout == cold.stdout
    for index in (project / "cache").rglob("*.json"):
        json.loads(index.read_text())


def test_no_cache_writes_nothing(project):
    check(project, "--no-cache")
    assert not (project / "cache").exists()


def test_config_cache_dir_wins(project):
    (project / "mcplint.toml").write_text('cache-dir = "custom-cache"\n')
    check(project)
    assert (project / "custom-cache" / "CACHEDIR.TAG").exists()
    assert not (project / "cache").exists()


def test_clean_removes_the_cache(project):
    check(project)
    result = run_cli("clean", cwd=project)
    assert result.exit_code == 0
    assert not (project / "cache").exists()


def test_concurrent_runs_never_corrupt_the_cache(project):
    for index in range(30):
        (project / "src" / f"tool_{index}.py").write_text(BAD_TOOL.replace("get_note", f"get_note_{index}"))
    command = [sys.executable, "-m", "mcplint", "check", "--exit-zero", "--jobs", "1", "--format", "json", "src"]
    environment = {**os.environ, "MCPLINT_CACHE_DIR": str(project / "cache")}
    runs = [subprocess.Popen(command, cwd=project, env=environment, stdout=subprocess.PIPE) for _ in range(4)]
    outputs = [run.communicate()[0] for run in runs]
    assert all(run.returncode == 0 for run in runs)
    assert len({output for output in outputs}) == 1
    for index in (project / "cache").rglob("*.json"):
        json.loads(index.read_text())
    assert not list((project / "cache").rglob("*.tmp"))
    warm = subprocess.run(command, cwd=project, env=environment, stdout=subprocess.PIPE, check=True)
    assert warm.stdout == outputs[0]


# A check in a fresh interpreter that says, last, whether LibCST was imported.
_CHECK_AND_SAY_IF_LIBCST = """
import sys
from mcplint.cli import main
try:
    main(["check", "--exit-zero", "--format", "json", "src"])
except SystemExit:
    pass
print("libcst imported:", "libcst" in sys.modules, "registry checks:", "mcplint.registry.checks" in sys.modules)
"""


def test_a_run_replayed_from_the_cache_does_not_import_libcst(project):
    """Pre-commit runs on every commit: a warm run over unchanged files replays the cache,
    and importing LibCST (most of its start-up) would be for nothing. A cold run analyses in a
    worker process: its parent joins the rounds without LibCST too (a second import of it)."""
    environment = {**os.environ, "MCPLINT_CACHE_DIR": str(project / "cache")}

    def said() -> list[str]:
        command = [sys.executable, "-c", _CHECK_AND_SAY_IF_LIBCST]
        done = subprocess.run(command, cwd=project, env=environment, capture_output=True, text=True, check=True)
        return done.stdout.strip().splitlines()

    cold = said()
    assert '"code": "MCP002"' in "\n".join(cold)  # the cold run analysed the files
    assert cold[-1] == "libcst imported: False registry checks: False"
    assert said()[-1] == "libcst imported: False registry checks: False"  # no registry configured


def test_a_changed_registry_invalidates_results(tmp_path, monkeypatch):
    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path / "cache"))
    registry = tmp_path / "mcp-errors.toml"
    registry.write_text(
        'schema_version = 1\nnamespace = "n"\n[domains.notes]\nrange = [1000, 1099]\n'
        '[domains.notes.errors.NOTE_NOT_FOUND]\ncode = 1001\nmessage = "Note not found."\nretryable = false\n'
    )
    (tmp_path / "mcplint.toml").write_text('select = ["MCP004"]\n')
    (tmp_path / "tool.py").write_text('from errors import notes_error\n\n\ndef f():\n    raise notes_error("NOTE_MISSING")\n')
    first = json_findings(run_cli("check", "--format", "json", "tool.py", cwd=tmp_path))
    assert [f["code"] for f in first] == ["MCP004"]
    registry.write_text(registry.read_text().replace("NOTE_NOT_FOUND", "NOTE_MISSING"))
    assert json_findings(run_cli("check", "--format", "json", "tool.py", cwd=tmp_path)) == []


def test_an_edit_with_its_size_and_mtime_put_back_is_not_served_stale(project, monkeypatch):
    server = project / "src" / "server.py"
    check(project)
    before = os.stat(server)
    # KeyError is two characters shorter than ValueError: two spaces keep the size.
    edited = BAD_TOOL.replace('raise ValueError("note id is empty")', 'raise KeyError("note id is empty")  ')
    assert len(edited) == len(BAD_TOOL)
    server.write_text(edited)
    os.utime(server, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (os.stat(server).st_size, os.stat(server).st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    calls = count_lint_calls(monkeypatch)
    findings = json_findings(check(project))
    assert calls == ["src/server.py (join)", "src/server.py"]
    assert "KeyError" in " ".join(finding["message"] for finding in findings)


def test_a_warm_run_after_a_stamp_only_change_hashes_once_then_stats(project, monkeypatch):
    server = project / "src" / "server.py"
    check(project)
    os.chmod(server, 0o644 if os.stat(server).st_mode & 0o777 != 0o644 else 0o600)  # moves the ctime only
    calls = count_lint_calls(monkeypatch)
    check(project)
    check(project)
    assert calls == []


CROSS_MODULE = {
    "server.py": (
        "from mcp.server.fastmcp import FastMCP\n\nfrom helper import load\n\nmcp = FastMCP('x')\n\n\n"
        "@mcp.tool()\ndef get(name: str) -> str:\n    return load(name)\n"
    ),
    "helper.py": "def load(name):\n    if not name:\n        raise ValueError('name is required')\n    return name\n",
    "clean.py": "VALUE = 1\n",
}


@pytest.fixture
def cross_module(tmp_path, monkeypatch):
    """A tool whose helper module is analysed only once the join says the tool reaches it: the
    helper has two analyses, its first round's and its last."""
    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src").mkdir()
    for name, text in CROSS_MODULE.items():
        (tmp_path / "src" / name).write_text(text)
    return tmp_path


def _indexes(project) -> tuple[dict, dict]:
    (rounds,) = (project / "cache").rglob("*.rounds.json")
    (index,) = (path for path in (project / "cache").rglob("*.json") if path != rounds and path.name != "runs.json")
    return json.loads(index.read_text()), json.loads(rounds.read_text())


def test_the_index_keeps_each_files_last_analysis_and_the_rounds_apart(cross_module, monkeypatch):
    cold = check(cross_module)
    assert [finding["code"] for finding in json_findings(cold)] == ["MCP002"]
    index, rounds = _indexes(cross_module)
    assert {os.path.basename(path): len(entry["analyses"]) for path, entry in index.items()} == {
        "server.py": 1, "helper.py": 1, "clean.py": 1,
    }  # fmt: skip
    assert "helper.py" in {os.path.basename(path) for path in rounds}
    assert all(not set(rounds[path]["analyses"]) & set(index[path]["analyses"]) for path in rounds)
    # A warm run over unchanged files reads the last analyses only.
    (rounds_path,) = (cross_module / "cache").rglob("*.rounds.json")
    rounds_path.write_text("{ torn")
    calls = count_lint_calls(monkeypatch)
    assert check(cross_module).stdout == cold.stdout
    assert calls == []


def test_a_run_with_a_changed_file_replays_the_others_rounds(cross_module, monkeypatch):
    cold = check(cross_module)
    (cross_module / "src" / "clean.py").write_text("VALUE = 2\n")
    calls = count_lint_calls(monkeypatch)
    assert check(cross_module).stdout == cold.stdout
    # The helper's first round comes from the rounds index; clean.py, only syntax-checked, is
    # done in its round (nothing to judge afterwards).
    assert calls == ["src/clean.py (join)"]
    index, rounds = _indexes(cross_module)
    assert all(len(entry["analyses"]) == 1 for entry in index.values())
    assert "helper.py" in {os.path.basename(path) for path in rounds}


def test_an_analysis_for_the_join_alone_is_not_served_as_the_findings(cross_module, monkeypatch):
    """A check's rounds store what they analysed for the join (``judged`` false): a later run
    takes those for its rounds, never for a file's findings (replayed or looked up)."""
    cold = check(cross_module)
    index, _ = _indexes(cross_module)
    (helper,) = (path for path in index if path.endswith("helper.py"))
    analyses = index[helper]["analyses"]
    assert all(analysis["judged"] for analysis in analyses.values())  # the last one is the judged one
    for analysis in analyses.values():
        analysis["judged"] = False
        analysis["findings"] = []
    (index_path,) = (
        path for path in (cross_module / "cache").rglob("*.json") if not path.name.endswith(("rounds.json", "runs.json"))
    )
    index_path.write_text(json.dumps(index))
    calls = count_lint_calls(monkeypatch)
    assert check(cross_module).stdout == cold.stdout
    assert calls == ["src/helper.py"]  # judged again: its rounds' analyses served the join


SERVICE_TOOL = """\
from mcp.server.fastmcp import FastMCP

import service
from helpers import tidy

mcp = FastMCP("demo")


@mcp.tool()
def run(name: str) -> str:
    return service.lookup(tidy(name))
"""


def test_a_new_module_a_cached_file_called_reaches_its_findings(tmp_path, monkeypatch):
    """A file's analysis leaves out of its join tables the calls no module of the project can
    answer (`service.lookup` before `service.py` exists); a module of that name added later
    makes the cached analysis stale, and only the analyses that left such a call out."""
    monkeypatch.setenv("MCPLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "server.py").write_text(SERVICE_TOOL)
    (tmp_path / "src" / "helpers.py").write_text("def tidy(name):\n    return name.strip()\n")
    other = 'import json\n\nfrom mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("other")\n\n\n@mcp.tool()\ndef dump(value: str) -> str:\n    return json.dumps(value)\n'
    (tmp_path / "src" / "other.py").write_text(other)
    assert check(tmp_path).exit_code == 0
    (tmp_path / "src" / "service.py").write_text('def lookup(name):\n    raise ValueError("no such name")\n')
    calls = count_lint_calls(monkeypatch)
    warm = check(tmp_path)
    analysed = set(calls)
    cold = check(tmp_path, "--no-cache")
    assert warm.stdout == cold.stdout
    assert [(f["filename"], f["code"]) for f in json_findings(warm)] == [("src/service.py", "MCP002")]
    assert "src/server.py" in analysed
    assert not {"src/other.py", "src/other.py (join)"} & analysed  # `json` is no module of it
