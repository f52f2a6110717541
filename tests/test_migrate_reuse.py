"""A migration's later runs take the earlier runs' analyses of the files nothing changes for
(`migrate._unchanged`): the outcome must be exactly that of analysing every file again."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from test_cli import run_cli

import mcplint.migrate as migrate
from mcplint.analysis.project import ProjectContext
from mcplint.engine.result import FileResult
from mcplint.engine.runner import FileTask, RunResult, run, shared_workers
from mcplint.finding import UNSAFE, Edit, Finding, Fix
from mcplint.registry.load import parse_registry
from mcplint.settings import FileSettings

ROOT = Path(__file__).resolve().parent.parent
PROJECTS = {
    "notes_server": ROOT / "examples" / "notes_server",
    "billing_server": ROOT / "examples" / "billing_server",
    "docs_server": ROOT / "tests" / "migrate_demo",
}

# A library module's site (its placeholder only the library fills: left, its entry unused) takes
# the symbol first; the tool's own message, a second entry of the same words, gets `_2` in the
# trial run and the plain symbol once the unused entry is dropped.
LIBRARY = """\
NOTES = {}


def load(note_id: str) -> str:
    key = note_id.strip().lower()
    if key not in NOTES:
        raise ValueError(f"Note {key} not found")
    return NOTES[key]
"""
TOOLS = """\
from mcp.server.fastmcp import FastMCP

from srv.a import load

mcp = FastMCP("notes")


@mcp.tool()
def fetch(note_id: str) -> dict:
    if note_id == "x":
        return {"error": "Note not found"}
    return {"text": load(note_id)}
"""


# The tool returns what `check` returns (a return entry point of `srv.b.check`), and `check`
# and `again` return each other's values: a cycle across modules. The migration's rewrite of
# the tool's `return` drops the flow, so no handler reaches `check` any more and its site is
# no finding; the contexts of the run before still hold the entry point, which the cycle
# keeps alive in rounds started from them (`migrate._warm_then_cold` must run cold then).
CYCLE = {
    "a.py": """\
from mcp.server.fastmcp import FastMCP

from srv.b import check

mcp = FastMCP("notes")


@mcp.tool()
def fetch(note_id: str) -> str:
    message = check(note_id)
    if message:
        return f"Error: {message}"
    return "fine"
""",
    "b.py": """\
from srv import c


def check(note_id: str) -> str:
    if not note_id:
        return c.again(note_id)
    try:
        int(note_id)
    except ValueError as e:
        return f"Error: bad id {e}"
    return ""
""",
    "c.py": """\
from srv import b


def again(note_id: str) -> str:
    return b.check(note_id + "0")
""",
}


def _return_cycle_project(root: Path) -> Path:
    (root / "srv").mkdir()
    (root / "srv" / "__init__.py").write_text("")
    for name, text in CYCLE.items():
        (root / "srv" / name).write_text(text)
    (root / "pyproject.toml").write_text('[project]\nname = "srv"\nversion = "0.1"\n')
    return root


# The same without the cycle: the rewrite of the tool's `return` still takes `check` out of
# every handler's reach, and the warm rounds see it (the library module is analysed again in
# the context the join gives it once the tool module lost the flow).
FLOW_CHECK = """\
def check(note_id: str) -> str:
    try:
        int(note_id)
    except ValueError as e:
        return f"Error: bad id {e}"
    return ""
"""


def _return_flow_project(root: Path) -> Path:
    _return_cycle_project(root)
    (root / "srv" / "c.py").unlink()
    (root / "srv" / "b.py").write_text(FLOW_CHECK)
    return root


# A tool module with one site rewritten and one left (a prompt and a tool reach `lookup`): the
# final registry drops the left site's entry, and the final run takes the trial's analysis of
# the module (`_dropped_fixes_kept`), whose left site has no fix and the trial's reason.
LEFT_SITE = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")
NOTES = {}


def lookup(note_id: str) -> str:
    if note_id not in NOTES:
        return f"Error: note {note_id} is missing"
    return NOTES[note_id]


@mcp.tool()
def fetch(note_id: str) -> dict:
    if note_id == "x":
        return {"error": "Note not found"}
    return {"text": lookup(note_id)}


@mcp.prompt()
def summarise(note_id: str) -> str:
    return lookup(note_id)
"""


def _left_site_project(root: Path) -> Path:
    (root / "srv").mkdir()
    (root / "srv" / "__init__.py").write_text("")
    (root / "srv" / "b.py").write_text(LEFT_SITE)
    (root / "pyproject.toml").write_text('[project]\nname = "srv"\nversion = "0.1"\n')
    return root


BUILT = {
    "left_site": _left_site_project,
    "renamed_symbol": lambda root: _renamed_symbol_project(root),
    "return_cycle": _return_cycle_project,
    "return_flow": _return_flow_project,
}


def _renamed_symbol_project(root: Path) -> Path:
    (root / "srv").mkdir()
    (root / "srv" / "__init__.py").write_text("")
    (root / "srv" / "a.py").write_text(LIBRARY)
    (root / "srv" / "b.py").write_text(TOOLS)
    (root / "pyproject.toml").write_text('[project]\nname = "srv"\nversion = "0.1"\n')
    return root


def _analysing_every_file(monkeypatch) -> None:
    """The oracle: every run of the migration analyses every file (no ``previous`` run)."""
    fix_with = migrate._fix_with

    def without_previous(*args, previous=None, **options):
        return fix_with(*args, **options)

    monkeypatch.setattr(migrate, "_fix_with", without_previous)


def _snapshot(root: Path) -> dict[str, str]:
    return {str(path.relative_to(root)): path.read_text() for path in sorted(root.rglob("*")) if path.is_file()}


def test_a_symbol_the_final_registry_renames_is_the_one_the_rewrite_calls(tmp_path):
    """The final run drops the library site's unused entry, so the tool's entry becomes
    `NOTE_NOT_FOUND`: the tool module is analysed again (its message matches an entry that
    changed), not taken from the trial run, whose fix called `NOTE_NOT_FOUND_2`."""
    root = _renamed_symbol_project(tmp_path)
    result = run_cli("migrate", ".", cwd=root)
    assert result.exit_code == 1
    assert "+[domains.srv.errors.NOTE_NOT_FOUND]" in result.stdout
    assert "NOTE_NOT_FOUND_2" not in result.stdout
    assert '+        return srv_error("NOTE_NOT_FOUND").tool_result()' in result.stdout


def _outcome(root: Path, build, *, write: bool = True) -> tuple:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    build(root)
    dry = run_cli("migrate", ".", cwd=root)
    if not write:
        return dry.exit_code, dry.stdout, dry.stderr
    stat = run_cli("migrate", "--stat", ".", cwd=root)
    written = run_cli("migrate", "--write", ".", cwd=root)
    assert written.exit_code == 0, written.stderr
    return dry.exit_code, dry.stdout, dry.stderr, stat.stderr, written.exit_code, written.stderr, _snapshot(root)


def test_a_fact_a_call_cycle_keeps_alive_is_not_reused(tmp_path, monkeypatch):
    """The trial's rewrite of the tool drops its flow from `srv.b.check`: no handler reaches the
    library site in `check` any more, so it is no finding (a run from the empty contexts does
    not derive the entry point). Rounds started from the first run's contexts keep it, held by
    the `check` <-> `again` cycle, and so would report the site as left for a human; the tool
    module's analysis lost a fact the join reads, so the project runs cold."""
    root = tmp_path / "cycle"
    outcome = _outcome(root, _return_cycle_project)
    assert "srv/b.py:10" not in outcome[2]
    _analysing_every_file(monkeypatch)
    assert _outcome(root, _return_cycle_project) == outcome


def test_a_fix_in_one_file_changes_what_another_files_rule_sees(tmp_path, monkeypatch):
    """`srv/b.py`'s sites are findings only while the tool returns what `check` returns: the
    trial's rewrite of the tool ends that, its rounds start warm from the first run's contexts,
    and they see it (the fact the tool module lost gave `check` its return entry point, which
    is gone from the context the warm rounds end with, so they are taken: no cold run)."""
    starts = []
    original = migrate.run

    def recording(tasks, *args, start=None, **options):
        starts.append(start is not None)
        return original(tasks, *args, start=start, **options)

    monkeypatch.setattr(migrate, "run", recording)
    root = tmp_path / "flow"
    first = run_cli("check", "--no-cache", ".", cwd=_return_flow_project(_fresh(root)))
    assert "srv/b.py:5:16: MCP001" in first.stdout  # reached from the tool before the migration
    outcome = _outcome(root, _return_flow_project)
    assert "MCP001  2      2         0" in outcome[2]  # b's site is no finding after the rewrite
    assert "srv/b.py" not in outcome[1]
    assert starts[:2] == [False, True] and False not in starts[2:3]  # the trial's warm rounds taken
    _analysing_every_file(monkeypatch)
    assert _outcome(root, _return_flow_project) == outcome


def _fresh(root: Path) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    return root


def test_without_the_lost_fact_test_the_cycle_keeps_a_stale_fact(tmp_path, monkeypatch):
    """What the test above guards against happens: taking the warm rounds whatever their
    analyses lost reports the stale site."""
    monkeypatch.setattr(migrate, "_lost_facts", lambda warm, previous, project_of=None: set())
    dry = _outcome(tmp_path / "cycle", _return_cycle_project, write=False)
    assert "srv/b.py:10: MCP001 library code" in dry[2]


def test_the_final_run_takes_the_trial_s_fix_of_a_file_whose_left_site_lost_its_entry(tmp_path, monkeypatch):
    """The left site's entry is the only difference between the trial's registry and the final
    one: the final run analyses nothing again, and the report gives the trial's reason."""
    taken: list[list[bool]] = []  # per later run: whether each task's analysis was taken
    original = migrate._unchanged

    def counting(previous, registry):
        reuse = original(previous, registry)
        taken.append([])

        def counted(task):
            found = reuse(task)
            taken[-1].append(found is not None)
            return found

        return counted

    monkeypatch.setattr(migrate, "_unchanged", counting)
    dry = _outcome(tmp_path / "left", _left_site_project, write=False)
    assert "srv/b.py:10: MCP001 handlers of different kinds reach it (prompt, tool)" in dry[2]
    trial, final = taken
    assert False in trial and final and all(final)


def test_warm_rounds_are_taken_where_nothing_was_lost(tmp_path, monkeypatch):
    """The final run of the renamed-symbol project starts from the trial's settled contexts and
    keeps them: its warm rounds are the result (one round, no run from the empty contexts)."""
    runs = []
    original = migrate.run

    def recording(tasks, *args, start=None, **options):
        runs.append(start is not None)
        return original(tasks, *args, start=start, **options)

    monkeypatch.setattr(migrate, "run", recording)
    _outcome(tmp_path / "renamed", _renamed_symbol_project, write=False)
    assert runs[0] is False  # the first run: from the empty contexts
    assert runs[-1] is True  # the final run: warm, and taken (no cold run after it)


@pytest.mark.parametrize(
    "name",
    [
        *(pytest.param(name, marks=pytest.mark.slow) for name in PROJECTS),
        "left_site",
        "renamed_symbol",
        "return_cycle",
        "return_flow",
    ],
)
def test_reusing_analyses_changes_nothing(tmp_path, monkeypatch, name):
    """Dry run and --write give byte for byte what they give when every run analyses every
    file again, and the runs did reuse analyses (the comparison is not empty)."""
    outcomes = []
    reused = []
    original = migrate._unchanged

    def counting(previous, registry):
        reuse = original(previous, registry)

        def counted(task):
            found = reuse(task)
            reused.append(found is not None)
            return found

        return counted

    monkeypatch.setattr(migrate, "_unchanged", counting)
    for oracle in (False, True):
        if oracle:
            _analysing_every_file(monkeypatch)
        root = tmp_path / name  # the same path both times: the output shows it
        shutil.rmtree(root, ignore_errors=True)
        if name in BUILT:
            root.mkdir(parents=True)
            BUILT[name](root)
        else:
            shutil.copytree(PROJECTS[name], root)
        dry = run_cli("migrate", ".", cwd=root)
        stat = run_cli("migrate", "--stat", ".", cwd=root)
        write = run_cli("migrate", "--write", ".", cwd=root)
        assert write.exit_code == 0, write.stderr
        outcomes.append(
            (dry.exit_code, dry.stdout, dry.stderr, stat.stderr, write.exit_code, write.stderr, _snapshot(root))
        )
    assert any(reused)
    assert outcomes[0] == outcomes[1]


# -- the reuse test itself -----------------------------------------------------------------------
REGISTRY = """\
schema_version = 1
namespace = "srv"
helpers-module = "srv.errors"

[domains.srv]
range = [1000, 1099]
{entries}
"""
ENTRY = """
[domains.srv.errors.{symbol}]
code = {code}
message = "{message}"
retryable = false
"""


def _registry(*entries: tuple[str, str], helpers: str = "srv.errors"):
    text = REGISTRY.format(
        entries="".join(
            ENTRY.format(symbol=symbol, code=1000 + index, message=message)
            for index, (symbol, message) in enumerate(entries)
        )
    ).replace('"srv.errors"', f'"{helpers}"')
    return parse_registry(text, "mcp-errors.toml")


CONTEXT = ProjectContext(module="srv.b", root="/")


FIX = Fix(UNSAFE, "Raise the registry's error", (Edit(3, 1, 3, 2, "x"),))


def _finding(code: str, template: str | None, *, fix: Fix | None = None) -> Finding:
    return Finding(
        path="srv/b.py",
        line=3,
        column=1,
        code=code,
        end_line=3,
        end_column=2,
        name="n",
        message="m",
        context="fetch",
        error_template=template,
        fix=fix,
    )


def _previous(path: Path, result: FileResult, registry, *, mode: str | None = "diff", first: FileResult | None = None):
    data = path.read_bytes()
    analyses = {str(path): {CONTEXT: result}}
    first_run = RunResult([], [], 0, 1, analyses={str(path): {CONTEXT: first or result}})
    return migrate._Previous(
        RunResult([], [], 0, 1, analyses=analyses),
        (registry,),
        {str(path): mode},
        first_run,
        {str(path): hashlib.sha256(data).hexdigest()},
    )


def _task(path: Path, *, mode: str | None = "diff", context: ProjectContext = CONTEXT) -> FileTask:
    return FileTask(
        str(path),
        "srv/b.py",
        FileSettings(codes=frozenset({"MCP001"})),
        True,
        fix_mode=mode,
        unsafe_fixes=True,
        project=context,
    )


@pytest.fixture
def source(tmp_path) -> Path:
    path = tmp_path / "b.py"
    path.write_text("def fetch():\n    return {'error': 'Note not found'}\n")
    return path


def test_an_analysis_without_findings_is_taken_again(source):
    result = FileResult(content_hash="x")
    reuse = migrate._unchanged(_previous(source, result, _registry()), _registry(("NOTE_NOT_FOUND", "Note not found")))
    assert reuse(_task(source)) is result
    assert reuse(_task(source, context=ProjectContext(module="srv.b", root="/other"))) is None  # another context


def test_a_file_changed_since_the_first_run_is_analysed_again(source):
    result = FileResult(content_hash="x")
    previous = _previous(source, result, _registry())
    source.write_text(source.read_text() + "# edited\n")
    assert migrate._unchanged(previous, _registry())(_task(source)) is None


def test_a_finding_whose_message_matches_a_changed_entry_is_analysed_again(source):
    fixed = FileResult(fixed=[_finding("MCP001", "note not found.")], diff="-\n+\n")
    trial = _registry(("NOTE_NOT_FOUND", "Note {key} not found"), ("NOTE_NOT_FOUND_2", "Note not found"))
    final = _registry(("NOTE_NOT_FOUND", "Note not found"))
    assert migrate._unchanged(_previous(source, fixed, trial), final)(_task(source)) is None
    # the same entries, renumbered only: the fix names the symbol, not the code
    kept = _registry(("OTHER", "Something else"), ("NOTE_NOT_FOUND", "Note not found"))
    renumbered = _registry(("NOTE_NOT_FOUND", "Note not found"))
    assert migrate._unchanged(_previous(source, fixed, kept), renumbered)(_task(source)) is fixed


def test_a_finding_of_the_first_run_counts_too(source):
    """A finding that a fix made moot in the trial (gone from its result) still looked its message up."""
    fixed = FileResult(fixed=[_finding("MCP001", "Something else")], diff="-\n+\n")
    first = FileResult(findings=[_finding("MCP006", "Note not found")], content_hash="x")
    trial = _registry(("NOTE_NOT_FOUND", "Note not found"), ("SOMETHING_ELSE", "Something else"))
    final = _registry(("SOMETHING_ELSE", "Something else"))
    assert migrate._unchanged(_previous(source, fixed, trial, first=first), final)(_task(source)) is None
    assert migrate._unchanged(_previous(source, fixed, trial, first=fixed), final)(_task(source)) is fixed


def test_a_library_module_s_findings_are_taken_again_whatever_entries_changed(source):
    """A module the migration analyses but never fixes (library code: fix mode None) differs
    between the registries only in the fixes its findings are offered, which nothing applies."""
    found = FileResult(findings=[_finding("MCP002", "Note not found")], content_hash="x")
    trial = _registry(("NOTE_NOT_FOUND", "Note not found"), ("OTHER", "Something else"))
    final = _registry(("OTHER", "Something else"))
    previous = _previous(source, found, trial, mode=None)
    assert migrate._unchanged(previous, final)(_task(source, mode=None)) is found
    offered = FileResult(findings=[_finding("MCP002", "Note not found", fix=FIX)], content_hash="x")
    fixed = _previous(source, offered, trial)  # a module the run fixes: its fix would differ
    assert migrate._unchanged(fixed, final)(_task(source)) is None


# The trial's registry has an entry for every site's message; the final one drops those no
# rewrite used. A file the trial fixed, with such a site left, is taken again only where the
# final run's analysis would be the trial's.
TRIAL = (("NOTE_NOT_FOUND", "Note not found"), ("SOMETHING_ELSE", "Something else"))
FINAL = (("SOMETHING_ELSE", "Something else"),)


def _fixed_with_a_site_left(left: Finding, **result) -> tuple[FileResult, FileResult]:
    """(the first run's analysis, the trial's) of a file with a site fixed and ``left`` left."""
    first = FileResult(findings=[_finding("MCP001", "Something else"), left], content_hash="x")
    fixed = [_finding("MCP001", "Something else")]
    return first, FileResult(findings=[left], fixed=fixed, diff="-\n+\n", **result)


def test_a_site_left_without_a_fix_is_taken_again_when_its_entry_is_dropped(source):
    """No entry of the final registry matches the left site, so its rule offers it no registry
    fix there, as the trial offered it none that suited: the same analysis."""
    first, trial = _fixed_with_a_site_left(_finding("MCP001", "Note not found"))
    previous = _previous(source, trial, _registry(*TRIAL), first=first)
    assert migrate._unchanged(previous, _registry(*FINAL))(_task(source)) is trial


def test_a_dropped_entry_s_site_is_analysed_again_where_the_final_run_may_differ(source):
    """Each of these fails if taken again: the trial still offered the left site a fix (it
    stopped with one unapplied), dropped the file's fixes (without that site's fix another
    outcome may verify), left a site of a rule with a fallback form of its own (MCP006: without
    the entry, that form alone, and maybe another reason none suits), fixed a site of those words at a line the first run did not find it
    at, or made one moot (the final run may not)."""
    registry, final = _registry(*TRIAL), _registry(*FINAL)
    left = _finding("MCP001", "Note not found")
    cases = [
        _fixed_with_a_site_left(_finding("MCP001", "Note not found", fix=FIX)),
        _fixed_with_a_site_left(left, warnings=["srv/b.py: a fix would introduce new findings; no fix applied"]),
    ]
    cases.append(_fixed_with_a_site_left(_finding("MCP006", "Note not found")))  # its own fallback form
    first, trial = _fixed_with_a_site_left(left)
    cases.append((first, replace(trial, findings=[], fixed=[*trial.fixed, left])))
    cases.append((first, replace(trial, findings=[])))
    for first, trial in cases:
        previous = _previous(source, trial, registry, first=first)
        assert migrate._unchanged(previous, final)(_task(source)) is None, trial


def test_a_dropped_entry_whose_words_another_entry_has_still_counts(source):
    """`Note {key} not found` stays: the left site may match it once `Note not found` is gone."""
    first, trial = _fixed_with_a_site_left(_finding("MCP001", "Note not found"))
    previous = _previous(source, trial, _registry(*TRIAL, ("NOTE_KEY", "Note {key} not found")), first=first)
    final = _registry(*FINAL, ("NOTE_KEY", "Note {key} not found"))
    assert migrate._unchanged(previous, final)(_task(source)) is None


def test_a_fix_is_never_taken_from_a_run_in_another_fix_mode(source):
    found = FileResult(findings=[_finding("MCP002", "Something else")], content_hash="x")
    registry = _registry(("NOTE_NOT_FOUND", "Note not found"))
    assert migrate._unchanged(_previous(source, found, registry, mode=None), registry)(_task(source)) is None
    assert migrate._unchanged(_previous(source, found, registry), registry)(_task(source)) is found


def test_a_helper_only_one_registry_has_is_analysed_again(source):
    """MCP006 takes a registry helper's call for safe text: the helpers decide what it sees."""
    result = FileResult(content_hash="x", imported_names=["srv.util.describe"])
    plain = _registry(("NOTE_NOT_FOUND", "Note not found"))
    assert migrate._unchanged(_previous(source, result, None), plain)(_task(source)) is result
    source.write_text(source.read_text() + "x = srv_error\n")
    assert migrate._unchanged(_previous(source, result, None), plain)(_task(source)) is None
    assert migrate._unchanged(_previous(source, result, plain), plain)(_task(source)) is result  # both have it


def test_a_file_importing_from_a_helpers_module_only_one_registry_has_is_analysed_again(source):
    result = FileResult(content_hash="x", imported_names=[".errors.describe"])
    registry = _registry(("NOTE_NOT_FOUND", "Note not found"))
    assert migrate._unchanged(_previous(source, result, None), registry)(_task(source)) is None
    elsewhere = _registry(("NOTE_NOT_FOUND", "Note not found"), helpers="srv.mcp_errors")
    assert migrate._unchanged(_previous(source, result, None), elsewhere)(_task(source)) is result


@pytest.mark.parametrize(
    ("qualified", "names"),
    [
        ("srv.errors.srv_error", True),
        (".errors.srv_error", True),
        ("..errors", True),
        ("srv.errors", True),
        ("srv", True),  # `import srv` then `srv.errors.srv_error(...)`
        ("srv.util.describe", False),
        ("errors_util.describe", False),
        ("other.errors2", False),
    ],
)
def test_may_name(qualified, names):
    assert migrate._may_name("srv.errors", qualified) is names


def test_the_runner_takes_a_known_result_instead_of_linting(tmp_path):
    path = tmp_path / "server.py"
    path.write_text("from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n")
    known = FileResult(findings=[_finding("MCP001", None)])
    tasks = [FileTask(str(path), "server.py", FileSettings(codes=frozenset({"MCP001"})), True)]
    taken = run(tasks, 1, reuse=lambda task: known)
    assert taken.findings == known.findings
    analysed = run(tasks, 1)
    assert analysed.findings == []
    (context,) = analysed.analyses[str(path)]
    assert analysed.analyses[str(path)][context] is analysed.results[str(path)]


# -- one worker pool for all of a migration's runs ----------------------------------------------
TOOL = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")


@mcp.tool()
def fetch(note_id: str) -> dict:
    if note_id == "x":
        return {"error": "Note not found"}
    return {"id": note_id}
"""


def _fix_run(root: Path, symbol: str, workers) -> str:
    """The diff of one dry fix run with a registry whose entry for the tool's message is ``symbol``."""
    registry = root / "mcp-errors.toml"
    registry.write_text(
        REGISTRY.format(entries=ENTRY.format(symbol=symbol, code=1000, message="Note not found")).replace(
            '"srv.errors"', '"errors"'
        )
    )
    settings = FileSettings(codes=frozenset({"MCP001"}), registry=str(registry))
    task = FileTask(str(root / "server.py"), "server.py", settings, True, fix_mode="diff", unsafe_fixes=True)
    return "".join(run([task], 1, workers=workers).diffs)


def test_shared_workers_build_the_fixes_again_for_another_registry(tmp_path):
    """The same file, the same settings, another registry at the same path: the second run's
    worker keeps the first run's walk, but must not take its fixes (made for the old entries)."""
    (tmp_path / "server.py").write_text(TOOL)
    with shared_workers(1) as workers:
        assert 'srv_error("NOTE_MISSING")' in _fix_run(tmp_path, "NOTE_MISSING", workers)
        assert workers._pool is not None  # a worker process served the run, and stays
        second = _fix_run(tmp_path, "NOTE_GONE", workers)
    assert 'srv_error("NOTE_GONE")' in second, second
    assert workers._pool is None


def test_parses_are_kept_across_runs_only_when_asked(monkeypatch):
    from mcplint.engine import lint, lint_ast

    parsed = []  # the analysis trees: CPython's (the `ast` pipeline), LibCST's or built from `ast`
    parse_module = lint.cst.parse_module
    build_tree = lint.build_tree
    analysis_tree = lint_ast.analysis_tree
    monkeypatch.setattr(lint.cst, "parse_module", lambda text: parsed.append(text) or parse_module(text))
    monkeypatch.setattr(lint, "build_tree", lambda text: parsed.append(text) or build_tree(text))
    monkeypatch.setattr(lint_ast, "analysis_tree", lambda text: parsed.append(text) or analysis_tree(text))
    settings = FileSettings(codes=frozenset({"MCP001"}))
    try:
        lint.keep_parsed_modules(True)
        for _ in range(2):
            lint.forget_walked_modules()  # a run starts
            lint.lint_text(TOOL, "server.py", settings)
        assert len(parsed) == 1
        lint.keep_parsed_modules(False)
        for _ in range(2):
            lint.forget_walked_modules()
            lint.lint_text(TOOL, "server.py", settings)
        assert len(parsed) == 3
    finally:
        lint.keep_parsed_modules(False)


@pytest.mark.parametrize("cold", [False, True])
def test_each_site_is_counted_once(tmp_path, monkeypatch, cold):
    """A dry run's rounds fix a file's original text again in every project context they
    analyse it in, and the run lists each round's fixes: the report counts a site once
    (server.py has 11 sites rewritten, not 22), whether the runs went warm or cold."""
    if cold:
        _analysing_every_file(monkeypatch)
    root = tmp_path / "notes_server"
    shutil.copytree(PROJECTS["notes_server"], root)
    result = run_cli("migrate", "--stat", ".", cwd=root)
    counts = [line.split(",")[0] for line in result.stderr.splitlines() if "site(s) rewritten" in line]
    assert counts == ["  lowlevel.py: 6 site(s) rewritten", "  server.py: 11 site(s) rewritten"]
