"""The README's commands and examples work as written (what a newcomer copies first)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mcplint.cli import check as check_command

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
REPOSITORY = "https://github.com/mcplint/mcplint"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_ci_runs_the_first_two_sh_blocks_and_there_are_no_others():
    example, tests = _blocks("sh")  # .ci/run takes blocks 0 and 1; any other shell block is not `sh`
    assert example.strip().endswith("mcplint check examples/notes_server")
    assert tests.strip().endswith("pip install '.[test]' && pytest -n auto")


def test_every_check_option_the_readme_shows_exists():
    options = {name for parameter in check_command.params for name in parameter.opts + parameter.secondary_opts}
    shown = set()
    for block in _blocks("console") + _blocks("text") + _blocks("yaml"):
        for line in block.splitlines():
            if "mcplint check" in line:
                command = line.split("#")[0]
                shown |= set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", command))
    assert shown and shown <= options, shown - options


def test_the_install_and_pre_commit_examples_name_the_repository_and_real_hooks():
    assert f"pip install git+{REPOSITORY}" in README
    (pre_commit,) = [block for block in _blocks("yaml") if "repos:" in block]
    assert f"repo: {REPOSITORY}" in pre_commit
    hooks = set(re.findall(r"^- id: (\S+)", (ROOT / ".pre-commit-hooks.yaml").read_text(), re.M))
    used = set(re.findall(r"^\s+(?:# )?- id: (\S+)", pre_commit, re.M))
    assert used and used <= hooks
    assert "<you>" not in README and "../shared" not in README


def test_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert any(requirement.startswith("pytest-xdist") for requirement in extras["test"])
    assert [requirement.split(">")[0] for requirement in extras["watch"]] == ["watchfiles"]
    assert not any("watchfiles" in requirement for requirement in project["dependencies"])
