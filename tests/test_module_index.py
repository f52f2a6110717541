"""Which file a dotted name stands for: the closest of several that answer to it, within the
importer's project only."""

from __future__ import annotations

from pathlib import Path

from mcplint.engine.join import initial_contexts
from mcplint.engine.module_index import ModuleIndex


def _project(root: Path, files: list[str]) -> list[str]:
    (root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    paths = []
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        paths.append(str(path))
    return paths


def test_the_closest_of_two_files_with_the_name_wins(tmp_path: Path) -> None:
    # Two namespace directories each hold a `storage.py`; each service imports its own.
    paths = _project(tmp_path, ["billing/storage.py", "billing/tools.py", "notes/storage.py", "notes/deep/tools.py"])
    index = ModuleIndex(initial_contexts(paths))
    billing_storage, billing_tools, notes_storage, notes_tools = paths

    assert index.locate("storage.save_rows", billing_tools) == (billing_storage, "save_rows")
    assert index.locate("storage.save_rows", notes_tools) == (notes_storage, "save_rows")
    # Asked again (every round of the join asks): the same answer.
    assert index.locate("storage.save_rows", notes_tools) == (notes_storage, "save_rows")


def test_a_tie_goes_to_the_path_that_sorts_last(tmp_path: Path) -> None:
    paths = _project(tmp_path, ["a/storage.py", "b/storage.py", "tools.py"])
    index = ModuleIndex(initial_contexts(paths))

    assert index.locate("storage.save_rows", paths[2]) == (paths[1], "save_rows")


def test_a_name_resolves_only_within_the_importers_project(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (storage,) = _project(first, ["app/storage.py"])
    (tools,) = _project(second, ["tools.py"])
    index = ModuleIndex(initial_contexts([storage, tools]))

    assert index.locate("app.storage.save_rows", storage) == (storage, "save_rows")
    assert index.locate("app.storage.save_rows", tools) is None
    assert index.locate("app.storage.save_rows", str(tmp_path / "unknown.py")) is None


def test_the_heads_are_the_first_parts_of_every_name_in_the_project(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    storage, server = _project(first, ["src/app/storage.py", "server.py"])
    (tools,) = _project(second, ["tools.py"])
    index = ModuleIndex(initial_contexts([storage, server, tools]))

    # `src/app/storage.py` without `__init__.py` answers to `storage`, `app.storage`, `src.app.storage`.
    assert index.heads_of(server) == ("app", "server", "src", "storage")
    assert index.heads_of(tools) == ("tools",)
    assert index.heads_of(str(tmp_path / "unknown.py")) is None
    # What does not begin with a head is found nowhere: the tables the join reads leave it out.
    assert index.locate("json.dumps", server) is None
