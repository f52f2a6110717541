"""Which qualified name a local name stands for, from the module's imports.

A cheap stand-in for LibCST's ``QualifiedNameProvider`` (which costs several
parses per file): one table filled during the single walk, consulted after it.
Relative imports are made absolute from the module's package when it is known
(``from .server import mcp`` in ``pkg.tools`` gives ``pkg.server.mcp``), and
keep their leading dots otherwise, so they never collide with installed packages.
"""

from __future__ import annotations

import libcst as cst

# A module importing one of these is a test module: the servers it builds are never deployed,
# and its payloads are a test's data (an upstream API's answer mocked), not what a server sends.
TEST_FRAMEWORKS = frozenset({"pytest", "unittest"})


def imported_package(node: cst.Import | cst.ImportFrom) -> list[str]:
    """The top-level packages an absolute import names (`import a.b, c` → a, c)."""
    if isinstance(node, cst.ImportFrom):
        if node.relative or node.module is None:
            return []
        return [(dotted_name(node.module) or "").split(".", 1)[0]]
    return [(dotted_name(alias.name) or "").split(".", 1)[0] for alias in node.names]


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    # `type(...) is`, not isinstance: LibCST's node classes are ABCs, whose isinstance is slow,
    # and this runs for nearly every call and attribute of every module.
    if type(node) is cst.Name:  # the commonest, without a list to join
        return node.value
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _module_path(module: cst.BaseExpression | None, relative_dots: int, package: str | None) -> str:
    """The imported module's absolute name when the importing package is known."""
    return module_path((dotted_name(module) if module is not None else "") or "", relative_dots, package)


def module_path(name: str, relative_dots: int, package: str | None) -> str:
    """``_module_path`` of the module's name as written (empty in ``from . import x``)."""
    if not relative_dots:
        return name
    if package is not None:
        parts = package.split(".") if package else []
        if relative_dots - 1 <= len(parts):
            base = parts[: len(parts) - (relative_dots - 1)]
            return ".".join([*base, name] if name else base)
    return "." * relative_dots + name


_NOT_ASKED = object()


class ImportTable:
    """Maps names bound by import statements to the qualified names they import."""

    def __init__(self, package: str | None = None) -> None:
        # The package of the module being read ("" for a top-level module), so
        # that `from .server import mcp` becomes `pkg.server.mcp`.
        self._package = package
        self._names: dict[str, str] = {}
        # ``qualify``'s answers (each flow asks again for every call, round after round): an
        # import the walk meets after them clears them.
        self._qualified: dict[str, str | None] = {}
        self.star_modules: list[str] = []  # `from .impl import *`: where unknown names may come from

    def visit_Import(self, node: cst.Import) -> None:
        self._qualified.clear()
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
        self._qualified.clear()
        module = _module_path(node.module, len(node.relative), self._package)
        if isinstance(node.names, cst.ImportStar):
            if module and not module.startswith("."):
                self.star_modules.append(module)
            return
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            imported = alias.name.value
            bound = imported
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                bound = alias.asname.name.value
            separator = "" if module.endswith(".") or not module else "."
            self._names[bound] = f"{module}{separator}{imported}"

    def qualified_name(self, expression: cst.BaseExpression) -> str | None:
        """The qualified name of ``expression`` if its root name was imported."""
        dotted = dotted_name(expression)
        if dotted is None:
            return None
        return self.qualify(dotted)

    def qualify(self, dotted: str) -> str | None:
        found = self._qualified.get(dotted, _NOT_ASKED)
        if found is not _NOT_ASKED:
            return found  # type: ignore[return-value]
        root, _, rest = dotted.partition(".")
        imported = self._names.get(root)
        if imported is None:
            found = None
        else:
            found = f"{imported}.{rest}" if rest else imported
        self._qualified[dotted] = found
        return found

    def is_imported(self, name: str) -> bool:
        return name in self._names

    def imported(self) -> dict[str, str]:
        """Local name to qualified name, for every name the module imports."""
        return dict(self._names)
