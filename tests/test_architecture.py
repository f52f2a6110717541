"""The layers of docs/architecture.md hold: each imports only from those below it.

The contract is `[tool.importlinter]` in pyproject.toml; import-linter reads every
import, those inside functions and under `TYPE_CHECKING` included.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_layers_only_point_down():
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "Contracts: 1 kept, 0 broken." in result.stdout


def test_no_module_imports_itself_through_others():
    """No import cycle among mcplint's modules (the layers contract leaves a layer's own
    modules free to import each other; this closes that gap)."""
    import grimp

    graph = grimp.build_graph("mcplint", cache_dir=None)
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    assert cycles == []
