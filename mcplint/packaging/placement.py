"""Where the generated helpers module goes so that the built wheel ships it.

Next to the server's own modules: in the shipped package that holds most of
the migrated sites (through a namespace directory that holds nothing but
one subdirectory with them), as `errors.py`, else `mcp_errors.py`, ...,
imported by the name the package has in the wheel (`pkg.errors` for
`src/pkg/errors.py` that hatch ships as `pkg/`). Each candidate is checked
against the backend's own selection (includes, excludes, `only-packages`):
a module the wheel would not contain is never chosen, and where none fits
the migration stops with the reason, before anything is written.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mcplint.packaging.backends import read_layout
from mcplint.packaging.layout import Unreadable, WheelLayout

NAMES = ("errors", "mcp_errors", *(f"mcp_errors_{number}" for number in range(2, 100)))


class NoPlace(Exception):
    """No module the wheel ships can hold the helpers: one line why."""


@dataclass(frozen=True)
class Placement:
    module: str  # the import name: `pkg.errors`
    path: Path  # the file: `<root>/src/pkg/errors.py`


def place_helpers(root: Path, site_files: Iterable[Path], usable: Callable[[Path], bool]) -> Placement | None:
    """The helpers module's place; None when the project builds no wheel: any importable
    place will do then. Without a site (a migration whose rewrites need no entry still writes
    the registry, and its `helpers-module` must be one the wheel ships, or the next run refuses
    it), the package the wheel ships that holds most modules. Raises `NoPlace`."""
    files = list(site_files)
    try:
        layout = read_layout(root)
    except Unreadable as error:
        if not files:
            return None
        raise NoPlace(f"cannot tell what the wheel ships: {error}") from error
    if layout is None:
        return None
    if not files:
        files = list(_shipped_modules(root, layout))
        if not files:
            return None
    shipped = [(source, wheel) for source, wheel in _shipped(root, layout, files) if len(wheel.parts) >= 2]
    if not shipped:
        raise NoPlace(f"no migrated module is inside a package the wheel ships ({layout.describe()}): "
                      "the helpers would have no importable place in the installed server")  # fmt: skip
    counts = Counter(wheel.parts[0] for _, wheel in shipped)
    top = min(counts, key=lambda name: (-counts[name], name))
    group = [(source, wheel) for source, wheel in shipped if wheel.parts[0] == top]
    source_dir, wheel_dir = _package_of(root, group)
    left_out = None
    for name in NAMES:
        candidate = source_dir / f"{name}.py"
        if (root / source_dir / name).exists() or not usable(root / candidate):
            continue
        if layout.wheel_path(candidate) == wheel_dir / f"{name}.py":
            return Placement(".".join((*wheel_dir.parts, name)), root / candidate)
        left_out = left_out or candidate
    if left_out is not None:
        raise NoPlace(f"{left_out} would not be in the wheel ({layout.describe()}; its include/exclude "
                      "patterns leave it out): set `helpers-module` in the registry to a module it ships")  # fmt: skip
    raise NoPlace(f"every helpers module name in {source_dir} is taken by the project's own modules")


def _layout_and_source(root: Path, module: str) -> tuple[WheelLayout, PurePosixPath | None] | None:
    """The build configuration's wheel layout, and the source file it ships as ``module``
    (None when it does not ship it); None when the configuration does not say."""
    try:
        layout = read_layout(root)
    except Unreadable:
        return None
    if layout is None:
        return None
    return layout, layout.source_path(PurePosixPath(*module.split(".")).with_suffix(".py"))


def unshipped_reason(root: Path, module: str) -> str | None:
    """Why an existing `helpers-module` would not be in the wheel; None when it would be, or
    when the configuration does not say (the registry's explicit choice stands then)."""
    found = _layout_and_source(root, module)
    if found is None or found[1] is not None:
        return None
    return (
        f"helpers-module `{module}` would not be in the wheel ({found[0].describe()}): "
        "set it to a module of a shipped package"
    )


def shipped_module_file(module: str, root: Path) -> Path | None:
    """The source file the wheel would ship as ``module`` (`pkg.errors` → `<root>/src/pkg/errors.py`);
    None when the configuration does not say."""
    found = _layout_and_source(root, module)
    return root / found[1] if found is not None and found[1] is not None else None


def _shipped_modules(root: Path, layout: WheelLayout) -> Iterable[Path]:
    """The project's modules the wheel ships (what `_shipped` keeps of them)."""
    for tree in layout.trees:
        source = root / tree.source
        if tree.is_file:
            yield source
        elif source.is_dir():
            yield from sorted(source.rglob("*.py") if tree.whole else source.glob("*.py"))


def _shipped(root: Path, layout: WheelLayout, files: list[Path]) -> list[tuple[PurePosixPath, PurePosixPath]]:
    resolved_root = Path(os.path.abspath(root))
    found = []
    for file in files:
        try:
            relative = PurePosixPath(Path(os.path.abspath(file)).relative_to(resolved_root).as_posix())
        except ValueError:
            continue  # outside the project
        wheel = layout.wheel_path(relative)
        if wheel is not None:
            found.append((relative, wheel))
    return found


def _package_of(root: Path, group: list[tuple[PurePosixPath, PurePosixPath]]) -> tuple[PurePosixPath, PurePosixPath]:
    """(source directory, wheel directory) of the package the helpers join: the group's top
    package, or below it while that is a bare namespace directory holding one subdirectory
    with all of the sites (`ns/` of `ns/pkg/`: a module there would be shared by every
    distribution of the namespace)."""
    depth = 1
    while True:
        source, wheel = group[0]
        source_dir = PurePosixPath(*source.parts[: len(source.parts) - len(wheel.parts) + depth])
        wheel_dir = PurePosixPath(*wheel.parts[:depth])
        below = {w.parts[depth] for _, w in group if len(w.parts) > depth + 1}
        bare = not any(path.suffix == ".py" for path in (root / source_dir).iterdir() if path.is_file())
        if len(below) == 1 and all(len(w.parts) > depth + 1 for _, w in group) and bare:
            depth += 1
            continue
        return source_dir, wheel_dir
