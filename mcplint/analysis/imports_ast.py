"""The import table read from CPython's `ast` (the port's twin of ``imports.py``).

The table itself (``ImportTable``: qualify a dotted name, list the imported names) does
not depend on the tree; only reading the import statements and an expression's dotted
name do.
"""

from __future__ import annotations

import ast

from mcplint.analysis.imports import ImportTable, module_path


def name_text(node: ast.AST) -> str | None:
    """The name LibCST's tree has for the node: a name's, or ``None``/``True``/``False``'s (names
    there, constants here)."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Constant:
        value = node.value
        if value is None or value is True or value is False:
            return repr(value)
    return None


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None: as ``imports.dotted_name`` reads LibCST's
    tree, where ``None``, ``True`` and ``False`` are names (`while True:`, `None.append`)."""
    kind = type(node)
    if kind is ast.Name:
        return node.id  # type: ignore[attr-defined,no-any-return]
    if kind is not ast.Attribute:
        return name_text(node)
    try:  # the resolution asks again for the same calls' names, round after round
        return node._mcplint_dotted  # type: ignore[attr-defined,no-any-return]
    except AttributeError:
        pass
    chain = node
    parts: list[str] = []
    while type(chain) is ast.Attribute:
        parts.append(chain.attr)
        chain = chain.value
    root = name_text(chain)
    if root is None:
        found = None
    else:
        parts.append(root)
        found = ".".join(reversed(parts))
    node._mcplint_dotted = found  # type: ignore[attr-defined]
    return found


def imported_package(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The top-level packages an absolute import names (`import a.b, c` → a, c)."""
    if isinstance(node, ast.ImportFrom):
        if node.level or node.module is None:
            return []
        return [node.module.split(".", 1)[0]]
    return [alias.name.split(".", 1)[0] for alias in node.names]


class AstImportTable(ImportTable):
    """``ImportTable`` filled by the `ast` walk."""

    def visit_Import(self, node: ast.Import) -> None:  # type: ignore[override]
        self._qualified.clear()
        for alias in node.names:
            if alias.asname is not None:
                self._names[alias.asname] = alias.name
            else:
                # `import a.b.c` binds `a`, which stands for the package `a`.
                root = alias.name.split(".", 1)[0]
                self._names[root] = root

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # type: ignore[override]
        self._qualified.clear()
        module = module_path(node.module or "", node.level, self._package)
        if node.names[0].name == "*":
            if module and not module.startswith("."):
                self.star_modules.append(module)
            return
        separator = "" if module.endswith(".") or not module else "."
        for alias in node.names:
            self._names[alias.asname or alias.name] = f"{module}{separator}{alias.name}"

    def qualified_name(self, expression: ast.AST) -> str | None:  # type: ignore[override]
        """The qualified name of ``expression`` if its root name was imported."""
        dotted = dotted_name(expression)
        if dotted is None:
            return None
        return self.qualify(dotted)
