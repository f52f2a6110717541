"""--add-noqa: a suppression for every current finding, existing comments kept, the file still parsing."""

from __future__ import annotations

import os
import textwrap

import libcst as cst
from test_cli import BAD_TOOL, json_findings, run_cli

from mcplint import add_noqa as add_noqa_module

HEADER = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("demo")\n\n\n@mcp.tool()\n'


def _tool(body: str) -> str:
    return HEADER + "def get_note(note_id: str) -> dict:\n" + textwrap.indent(textwrap.dedent(body), "    ")


def test_every_finding_is_suppressed_and_the_next_run_is_clean(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--add-noqa", ".", cwd=tmp_path)
    assert result.exit_code == 0
    assert result.stderr == "Added 2 `# mcplint: ignore` comments (2 findings) to 1 file(s).\n"
    text = (tmp_path / "server.py").read_text()
    assert '        raise ValueError("note id is empty")  # mcplint: ignore[MCP002]\n' in text
    assert '    return {"error": "Note not found"}  # mcplint: ignore[MCP001]\n' in text
    again = run_cli("check", ".", cwd=tmp_path)
    assert (again.exit_code, again.stdout) == (0, "All checks passed!\n")


def test_existing_comments_stay_and_an_ignore_comment_is_merged(tmp_path):
    source = _tool(
        """\
        if not note_id:
            raise ValueError("empty")  # type: ignore[misc]
        raise KeyError(note_id)  # mcplint: ignore[MCP001] -- reviewed in #12
        """
    )
    (tmp_path / "server.py").write_text(source)
    assert run_cli("check", "--select", "MCP002", "--add-noqa", ".", cwd=tmp_path).exit_code == 0
    lines = (tmp_path / "server.py").read_text().splitlines()
    assert lines[-2] == '        raise ValueError("empty")  # type: ignore[misc]  # mcplint: ignore[MCP002]'
    assert lines[-1] == "    raise KeyError(note_id)  # mcplint: ignore[MCP001, MCP002] -- reviewed in #12"
    assert json_findings(run_cli("check", "--select", "MCP002", "--format", "json", ".", cwd=tmp_path)) == []


def test_a_line_that_continues_in_a_string_or_a_backslash_gets_the_comment_on_the_last_line(tmp_path):
    source = _tool(
        '''\
        if not note_id:
            raise ValueError("""no
        note""")
        raise KeyError("a" \\
            "b")
        '''
    )
    (tmp_path / "server.py").write_text(source)
    assert run_cli("check", "--add-noqa", ".", cwd=tmp_path).exit_code == 0
    text = (tmp_path / "server.py").read_text()
    cst.parse_module(text)
    assert 'raise ValueError("""no\n    note""")  # mcplint: ignore[MCP002]\n' in text
    assert 'raise KeyError("a" \\\n        "b")  # mcplint: ignore[MCP002]\n' in text
    assert run_cli("check", ".", cwd=tmp_path).exit_code == 0


def test_line_endings_and_encoding_are_kept_and_the_write_is_atomic(tmp_path, monkeypatch):
    written = []
    atomic = add_noqa_module.write_atomically
    monkeypatch.setattr(add_noqa_module, "write_atomically", lambda *args: written.append(args[0]) or atomic(*args))
    data = ("# -*- coding: latin-1 -*-\n" + BAD_TOOL.replace("Note not found", "Note introuvable \xe9")).replace(
        "\n", "\r\n"
    )
    (tmp_path / "server.py").write_bytes(data.encode("latin-1"))
    assert run_cli("check", "--add-noqa", ".", cwd=tmp_path).exit_code == 0
    after = (tmp_path / "server.py").read_bytes()
    assert [os.path.realpath(tmp_path / path) for path in written] == [os.path.realpath(tmp_path / "server.py")]
    assert after.count(b"\r\n") == data.count("\r\n") and b"\n" not in after.replace(b"\r\n", b"")
    assert 'introuvable \xe9"}  # mcplint: ignore[MCP001]\r\n'.encode("latin-1") in after


def test_syntax_errors_and_stale_suppressions_are_left_alone(tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n")
    (tmp_path / "stale.py").write_text("x = 1  # mcplint: ignore[MCP001]\n")
    result = run_cli("check", "--add-noqa", ".", cwd=tmp_path)
    assert result.exit_code == 0
    assert (tmp_path / "broken.py").read_text() == "def f(:\n"
    assert (tmp_path / "stale.py").read_text() == "x = 1  # mcplint: ignore[MCP001]\n"


def test_add_noqa_does_not_combine_with_fix(tmp_path):
    (tmp_path / "server.py").write_text(BAD_TOOL)
    result = run_cli("check", "--add-noqa", "--fix", ".", cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr == "mcplint: error: --add-noqa cannot be combined with --fix, --diff or standard input\n"
