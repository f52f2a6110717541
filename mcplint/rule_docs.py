"""Rule documentation: the rule class docstring is the source, ``rules/<CODE>.md`` the output.

``python -m mcplint.rule_docs`` (run from the repository root) rewrites
``rules/*.md``; ``--check`` exits 1 when a committed file is stale (the tests
run the same comparison).
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

from mcplint.rules import ALL_RULES
from mcplint.rules.base import Rule

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "Options")
_CODE_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def rule_sections(rule: type[Rule]) -> dict[str, str]:
    doc = inspect.cleandoc(rule.__doc__ or "")
    sections: dict[str, str] = {}
    for block in re.split(r"^## ", doc, flags=re.MULTILINE)[1:]:
        title, _, body = block.partition("\n")
        sections[title.strip()] = body.strip()
    return sections


def code_examples(rule: type[Rule], section: str) -> list[str]:
    return _CODE_BLOCK.findall(rule_sections(rule).get(section, ""))


def render_rule_doc(rule: type[Rule]) -> str:
    source = Path(inspect.getfile(rule)).relative_to(Path(__file__).resolve().parent.parent).as_posix()
    sections = rule_sections(rule)
    lines = [
        f"# {rule.code} {rule.name}",
        "",
        f"<!-- Generated from {source} by `python -m mcplint.rule_docs`; edit the docstring, not this file. -->",
        "",
    ]
    for title in SECTIONS:
        lines += [f"## {title}", sections.get(title, ""), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def stale_docs(directory: Path) -> list[Path]:
    stale = []
    for rule in ALL_RULES:
        path = directory / f"{rule.code}.md"
        if not path.is_file() or path.read_text(encoding="utf-8") != render_rule_doc(rule):
            stale.append(path)
    return stale


def main(argv: list[str]) -> int:
    directory = Path.cwd() / "rules"
    if "--check" in argv:
        stale = stale_docs(directory)
        for path in stale:
            print(f"stale: {path} (run `python -m mcplint.rule_docs`)")
        return 1 if stale else 0
    directory.mkdir(exist_ok=True)
    for rule in ALL_RULES:
        (directory / f"{rule.code}.md").write_text(render_rule_doc(rule), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
