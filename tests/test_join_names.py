"""The join's name resolution kept from one join of a run to the next (``join.NameMemory``): an
answer stands while the files it read keep their names, and goes when one of them changes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mcplint.engine.join import NameMemory, NameResolver, initial_contexts
from mcplint.engine.module_index import ModuleIndex
from mcplint.engine.result import FileResult


def _project(root: Path) -> dict[str, str]:
    """`app/__init__.py` re-exports `handle` from `app.lookup`; `app.tools` imports it from `app`."""
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    paths = {}
    for name in ("app/__init__.py", "app/lookup.py", "app/search.py", "app/everything.py", "app/tools.py"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        paths[name] = str(path)
    return paths


def _results(paths: dict[str, str]) -> dict[str, FileResult]:
    return {
        paths["app/__init__.py"]: FileResult(exports={"handle": "app.lookup.handle"}, star_imports=["app.everything"]),
        paths["app/lookup.py"]: FileResult(defined_names=["handle"]),
        paths["app/search.py"]: FileResult(defined_names=["handle", "find"]),
        paths["app/everything.py"]: FileResult(defined_names=["every"]),
        paths["app/tools.py"]: FileResult(),
    }


QUESTIONS = ["app.handle", "app.every", "app.find", "app.lookup.handle", "app.search.find"]


def _answers(results: dict[str, FileResult], index: ModuleIndex, memory: NameMemory | None, importer: str) -> list[object]:
    contexts = initial_contexts(list(results))
    names = NameResolver(results, contexts, index, memory)
    return [names.resolve(question, importer) for question in QUESTIONS]


def test_kept_answers_follow_each_change_of_the_files_they_read(tmp_path: Path) -> None:
    paths = _project(tmp_path)
    index = ModuleIndex(initial_contexts(list(paths.values())))
    tools = paths["app/tools.py"]
    memory = NameMemory()
    results = _results(paths)
    first = _answers(results, index, memory, tools)
    assert first[:2] == [(paths["app/lookup.py"], "handle"), (paths["app/everything.py"], "every")]
    assert first[2] == (paths["app/__init__.py"], "find")  # not re-exported: the package's own name

    init, everything = paths["app/__init__.py"], paths["app/everything.py"]
    changes = [
        # The re-export now names another module.
        {init: replace(results[init], exports={"handle": "app.search.handle"})},
        # The star-imported module no longer defines the name; then the package defines it itself.
        {everything: FileResult(defined_names=[])},
        {init: FileResult(exports={"handle": "app.search.handle"}, star_imports=["app.everything"], defined_names=["every"])},
        # A new result object with the same names: the answers stand.
        {paths["app/lookup.py"]: FileResult(defined_names=["handle"])},
    ]
    for change in changes:
        results = {**results, **change}
        kept = _answers(results, index, memory, tools)
        assert kept == _answers(results, ModuleIndex(initial_contexts(list(paths.values()))), None, tools)
    assert kept[0] == (paths["app/search.py"], "handle")
    assert kept[1] == (init, "every")


def test_a_file_whose_names_did_not_change_keeps_its_answers(tmp_path: Path) -> None:
    paths = _project(tmp_path)
    index = ModuleIndex(initial_contexts(list(paths.values())))
    memory = NameMemory()
    results = _results(paths)
    _answers(results, index, memory, paths["app/tools.py"])
    kept = dict(memory.resolved)
    search = paths["app/search.py"]
    memory.take({**results, search: FileResult(defined_names=["handle", "find"], findings=[])})
    assert memory.resolved == kept
    memory.take({**results, search: FileResult(defined_names=["handle"])})
    assert ("app.search.find", paths["app/tools.py"]) not in memory.resolved
    assert ("app.handle", paths["app/tools.py"]) in memory.resolved  # it never read `app/search.py`
