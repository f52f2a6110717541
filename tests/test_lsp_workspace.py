"""The language server's project model without the protocol: unsaved buffers analysed in
place of their files (``FileTask.text``), against the other files' cached results."""

from __future__ import annotations

import sys
from pathlib import Path

from test_lsp import SERVER, STORE

from mcplint.engine import runner as engine_runner
from mcplint.lsp.workspace import ProjectModel, definition_line


def make_project(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.mcplint]\n", encoding="utf-8")
    (root / "app" / "__init__.py").write_text("", encoding="utf-8")
    (root / "app" / "server.py").write_text(SERVER, encoding="utf-8")
    (root / "app" / "store.py").write_text(STORE, encoding="utf-8")
    return root


def codes(findings) -> list[tuple[int, str]]:
    return [(finding.line, finding.code) for finding in findings]


def test_a_buffer_is_analysed_instead_of_its_file_and_the_file_stays_as_it_was(tmp_path):
    root = make_project(tmp_path / "proj")
    server, store = str(root / "app" / "server.py"), str(root / "app" / "store.py")
    model = ProjectModel(root)
    assert codes(model.analyse({}).findings[store]) == [(6, "MCP002")]
    # The buffer no longer calls load(): the raise in store.py reaches no handler.
    edited = SERVER.replace("    return load(note_id)", "    return note_id")
    analysis = model.analyse({server: edited})
    assert analysis.findings[store] == []
    assert (root / "app" / "server.py").read_text(encoding="utf-8") == SERVER
    # The buffer's result was not cached as the file's: without it, the file counts again.
    assert codes(model.analyse({}).findings[store]) == [(6, "MCP002")]


def test_files_not_open_come_from_the_cache(tmp_path, monkeypatch):
    root = make_project(tmp_path / "proj")
    server = str(root / "app" / "server.py")
    model = ProjectModel(root)
    model.analyse({server: SERVER})
    linted = []
    real = engine_runner._lint_task
    monkeypatch.setattr(engine_runner, "_lint_task", lambda task: linted.append(task.path) or real(task))
    model.analyse({server: SERVER + "\n"})
    assert set(linted) == {server}


def test_the_handler_of_a_callee_finding_is_located(tmp_path):
    root = make_project(tmp_path / "proj")
    store = str(root / "app" / "store.py")
    model = ProjectModel(root)
    [finding] = model.analyse({}).findings[store]
    assert model.handler_of(store, finding) == (str(root / "app" / "server.py"), "read_note")
    assert definition_line(SERVER, "read_note") == (9, 1)
    assert definition_line("class A:\n    if True:\n        def m(self): ...\n", "A.m") == (3, 9)
    assert definition_line(SERVER, "missing") is None


def test_an_excluded_file_gets_no_findings_a_new_one_does(tmp_path):
    root = make_project(tmp_path / "proj")
    (root / "pyproject.toml").write_text('[tool.mcplint]\nextend-exclude = ["app/store.py"]\n', encoding="utf-8")
    model = ProjectModel(root)
    store, new = str(root / "app" / "store.py"), str(root / "app" / "new.py")
    analysis = model.analyse({store: STORE, new: SERVER.replace("return load(note_id)", "raise OSError()")})
    assert store not in analysis.findings
    assert codes(analysis.findings[new]) == [(10, "MCP002")]


def test_positions_are_in_the_clients_code_units():
    """mcplint's columns count code points; LSP's count UTF-16 units unless the client
    chose another encoding: a character beyond the BMP is two of them."""
    from lsprotocol import types
    from pygls.workspace.position_codec import PositionCodec

    from mcplint.lsp.diagnostics import Positions

    text = 'note = "😋"; raise ValueError(note)\r\nx = 1\n'
    utf16 = Positions(text, PositionCodec(types.PositionEncodingKind.Utf16).client_num_units)
    utf32 = Positions(text, PositionCodec(types.PositionEncodingKind.Utf32).client_num_units)
    column = text.index("raise") + 1  # 1-based code points
    assert utf16.position(1, column) == types.Position(line=0, character=column)  # one more unit than points
    assert utf32.position(1, column) == types.Position(line=0, character=column - 1)
    assert utf16.position(2, 1) == types.Position(line=1, character=0)  # CRLF is one line break
    assert utf16.position(4, 1) == types.Position(line=2, character=0)  # past the end: the last line's end


def test_a_warm_analysis_of_an_edit_gives_the_cold_result(tmp_path, monkeypatch):
    """An edit's analysis starts from the last contexts: the same findings as from scratch,
    the buffer analysed once."""
    root = make_project(tmp_path / "proj")
    server, store = str(root / "app" / "server.py"), str(root / "app" / "store.py")
    model = ProjectModel(root)
    model.analyse({server: SERVER})
    edited = SERVER.replace("    return load(note_id)", '    raise RuntimeError("no")\n    return load(note_id)')
    linted = []
    real = engine_runner._lint_task
    monkeypatch.setattr(engine_runner, "_lint_task", lambda task: linted.append(task.path) or real(task))
    warm = model.analyse({server: edited}, warm=True)
    assert linted == [server]
    cold = model.analyse({server: edited})
    assert warm.findings == cold.findings
    assert codes(warm.findings[server]) == [(10, "MCP002")] and codes(warm.findings[store]) == [(6, "MCP002")]


def test_without_the_extra_server_says_what_to_install():
    """pygls not installed: one line naming the extra, exit 2, no traceback."""
    import subprocess

    script = "import sys; sys.modules['pygls'] = None; from mcplint.cli import main; main(['server'])"
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2
    assert completed.stderr.strip().splitlines() == [
        "mcplint: error: the language server needs pygls and lsprotocol: pip install 'mcplint[lsp]'"
    ]
    assert completed.stdout == ""


def test_the_cli_does_not_import_pygls():
    """`mcplint --version` and every other command start without the server's dependencies."""
    import subprocess

    script = "import sys; from mcplint.cli import main; import mcplint.check; print('pygls' in sys.modules)"
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert completed.stdout.strip() == "False"
