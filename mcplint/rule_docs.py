"""Rule documentation: the rule class docstring (or the registry check's doc) is the
source, ``rules/<CODE>.md`` the output.

``python -m mcplint.rule_docs`` (run from the repository root) rewrites
``rules/*.md``; ``--check`` exits 1 when a committed file is stale (the tests
run the same comparison).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mcplint.catalogue import CodeDoc, catalogue, code_doc
from mcplint.doc_sections import parse_sections
from mcplint.rules.base import Rule

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety", "Options")
_CODE_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def rule_sections(rule: type[Rule]) -> dict[str, str]:
    return parse_sections(rule.__doc__ or "")


def code_examples(rule: type[Rule], section: str) -> list[str]:
    return _CODE_BLOCK.findall(rule_sections(rule).get(section, ""))


def render_rule_doc(rule: type[Rule]) -> str:
    document = code_doc(rule.code)
    assert document is not None
    return render_doc(document)


def render_doc(document: CodeDoc) -> str:
    lines = [
        f"# {document.code} {document.name}",
        "",
        f"<!-- Generated from {document.source} by `python -m mcplint.rule_docs`; "
        f"edit {'the docstring' if document.source.endswith('.py') else 'that file'}, not this one. -->",
        "",
    ]
    for title in SECTIONS:
        if title in document.sections:
            lines += [f"## {title}", document.sections[title], ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def stale_docs(directory: Path) -> list[Path]:
    stale = []
    for document in catalogue():
        path = directory / f"{document.code}.md"
        if not path.is_file() or path.read_text(encoding="utf-8") != render_doc(document):
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
    for document in catalogue():
        (directory / f"{document.code}.md").write_text(render_doc(document), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
