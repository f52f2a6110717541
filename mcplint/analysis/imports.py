"""Which qualified name a local name stands for, from the module's imports.

A cheap stand-in for LibCST's ``QualifiedNameProvider`` (which costs several
parses per file): one table filled during the single walk, consulted after it.
Relative imports keep their leading dots (``from .server import mcp`` gives
``.server.mcp``) so that they never collide with installed packages.
"""

from __future__ import annotations

import libcst as cst


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _module_path(module: cst.BaseExpression | None, relative_dots: int) -> str:
    name = dotted_name(module) if module is not None else ""
    return "." * relative_dots + (name or "")


class ImportTable:
    """Maps names bound by import statements to the qualified names they import."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            imported = dotted_name(alias.name)
            if imported is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._names[alias.asname.name.value] = imported
            else:
                # `import a.b.c` binds `a`, which stands for the package `a`.
                root = imported.split(".", 1)[0]
                self._names[root] = root

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        module = _module_path(node.module, len(node.relative))
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            imported = alias.name.value
            bound = imported
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound = alias.asname.name.value
            separator = "" if module.endswith(".") else "."
            self._names[bound] = f"{module}{separator}{imported}"

    def qualified_name(self, expression: cst.BaseExpression) -> str | None:
        """The qualified name of ``expression`` if its root name was imported."""
        dotted = dotted_name(expression)
        if dotted is None:
            return None
        return self.qualify(dotted)

    def qualify(self, dotted: str) -> str | None:
        root, _, rest = dotted.partition(".")
        imported = self._names.get(root)
        if imported is None:
            return None
        return f"{imported}.{rest}" if rest else imported

    def is_imported(self, name: str) -> bool:
        return name in self._names
