"""``imports_ast`` against ``imports``."""

from __future__ import annotations

import libcst as cst

from mcplint.analysis import imports, imports_ast, walk, walk_ast
from mcplint.engine.ast_pairs import PairedTree

PACKAGES = (None, "", "pkg", "pkg.sub.inner")  # unknown, top level, nested (relative imports)


def import_table(paired: PairedTree) -> list[str]:
    """The names each import binds, the star imports, and every expression's qualified name."""
    problems = []
    for package in PACKAGES:
        table = imports.ImportTable(package)
        walk.Walker([table]).walk(paired.module)
        twin = imports_ast.AstImportTable(package)
        walk_ast.AstWalker([twin]).walk(paired.tree)
        if table.imported() != twin.imported():
            problems.append(f"package {package!r}: imported {table.imported()} != {twin.imported()}")
        if table.star_modules != twin.star_modules:
            problems.append(f"package {package!r}: star imports {table.star_modules} != {twin.star_modules}")
    table = imports.ImportTable("pkg.sub")
    walk.Walker([table]).walk(paired.module)
    twin = imports_ast.AstImportTable("pkg.sub")
    walk_ast.AstWalker([twin]).walk(paired.tree)
    for node, made_from in paired.paired_nodes:
        if isinstance(node, cst.BaseExpression):
            expected, found = table.qualified_name(node), twin.qualified_name(made_from)
            if expected != found:
                problems.append(f"{made_from.lineno}:{made_from.col_offset}: qualified {expected!r} != {found!r}")  # type: ignore[attr-defined]
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            if imports.imported_package(node) != imports_ast.imported_package(made_from):  # type: ignore[arg-type]
                problems.append(f"{made_from.lineno}: imported packages differ")  # type: ignore[attr-defined]
    return problems


CHECKS = [import_table]
