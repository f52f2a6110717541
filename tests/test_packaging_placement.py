"""Where migration puts the helpers module, per build backend's configuration (issue 12, item 4).

Each case is a small project: its build configuration, its files, the migrated
sites' files; the answer is the helpers module's import name and file, or the
refusal. tests/sdk/test_wheel_placement.py builds real wheels of such projects.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli import run_cli

from mcplint.packaging.placement import NoPlace, place_helpers, shipped_module_file, unshipped_reason
from mcplint.registry.codegen import module_path

SERVER = """\
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")


@mcp.tool()
def do(x: str) -> str:
    raise ValueError("bad thing")
"""


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def place(root: Path, *sites: str):
    return place_helpers(root, [root / site for site in sites], lambda path: not path.exists())


def placed(root: Path, *sites: str) -> tuple[str, str]:
    result = place(root, *sites)
    assert result is not None
    return result.module, result.path.relative_to(root).as_posix()


HATCH = '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n[project]\nname = "acme-notes"\nversion = "1"\n'
SETUPTOOLS = '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "acme-notes"\nversion = "1"\n'
POETRY = '[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n[project]\nname = "acme-notes"\nversion = "1"\n'
FLIT = '[build-system]\nrequires = ["flit_core"]\nbuild-backend = "flit_core.buildapi"\n[project]\nname = "acme-notes"\nversion = "1"\ndescription = "x"\n'
PDM = '[build-system]\nrequires = ["pdm-backend"]\nbuild-backend = "pdm.backend"\n[project]\nname = "acme-notes"\nversion = "1"\n'
UV = '[build-system]\nrequires = ["uv_build"]\nbuild-backend = "uv_build"\n[project]\nname = "acme-notes"\nversion = "1"\n'

CASES = {
    # The failure seen on a real server: a package without __init__.py that hatch ships as `pkg`.
    "hatch packages, no __init__": (
        {
            "pyproject.toml": HATCH + '[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n',
            "src/pkg/server.py": SERVER,
            "src/pkg/tools.py": SERVER,
        },
        ["src/pkg/server.py", "src/pkg/tools.py"],
        ("pkg.errors", "src/pkg/errors.py"),
    ),
    "hatch default": (
        {"pyproject.toml": HATCH, "src/acme_notes/__init__.py": "", "src/acme_notes/server.py": SERVER},
        ["src/acme_notes/server.py"],
        ("acme_notes.errors", "src/acme_notes/errors.py"),
    ),
    "hatch only-include with sources": (
        {
            "pyproject.toml": HATCH
            + '[tool.hatch.build.targets.wheel]\nonly-include = ["lib/pkg"]\nsources = ["lib"]\n',
            "lib/pkg/__init__.py": "",
            "lib/pkg/api/server.py": SERVER,
        },
        ["lib/pkg/api/server.py"],
        ("pkg.errors", "lib/pkg/errors.py"),
    ),
    "hatch exclude takes errors.py": (
        {
            "pyproject.toml": HATCH
            + '[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\nexclude = ["errors.py"]\n',
            "src/pkg/__init__.py": "",
            "src/pkg/server.py": SERVER,
        },
        ["src/pkg/server.py"],
        ("pkg.mcp_errors", "src/pkg/mcp_errors.py"),
    ),
    "hatch packages with include patterns (they select nothing then)": (
        {
            "pyproject.toml": HATCH
            + '[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\ninclude = ["src/pkg/config/*"]\n',
            "src/pkg/__init__.py": "",
            "src/pkg/server.py": SERVER,
        },
        ["src/pkg/server.py"],
        ("pkg.errors", "src/pkg/errors.py"),
    ),
    "hatch build-level packages": (
        {
            "pyproject.toml": HATCH + '[tool.hatch.build]\npackages = ["app"]\n',
            "app/__init__.py": "",
            "app/server.py": SERVER,
        },
        ["app/server.py"],
        ("app.errors", "app/errors.py"),
    ),
    "setuptools packages list": (
        {
            "pyproject.toml": SETUPTOOLS + '[tool.setuptools]\npackages = ["app", "app.tools"]\n',
            "app/__init__.py": "",
            "app/tools/__init__.py": "",
            "app/tools/notes.py": SERVER,
        },
        ["app/tools/notes.py"],
        ("app.errors", "app/errors.py"),
    ),
    "setuptools package-dir": (
        {
            "pyproject.toml": SETUPTOOLS + '[tool.setuptools]\npackages = ["app"]\npackage-dir = {"" = "lib"}\n',
            "lib/app/__init__.py": "",
            "lib/app/server.py": SERVER,
        },
        ["lib/app/server.py"],
        ("app.errors", "lib/app/errors.py"),
    ),
    "setuptools find in src": (
        {
            "pyproject.toml": SETUPTOOLS + '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
            "src/app/__init__.py": "",
            "src/app/server.py": SERVER,
        },
        ["src/app/server.py"],
        ("app.errors", "src/app/errors.py"),
    ),
    "setuptools automatic src layout, namespace package": (
        {"pyproject.toml": SETUPTOOLS, "src/app/server.py": SERVER},
        ["src/app/server.py"],
        ("app.errors", "src/app/errors.py"),
    ),
    "setuptools automatic flat layout": (
        {"pyproject.toml": SETUPTOOLS, "app/__init__.py": "", "app/server.py": SERVER, "tests/test_x.py": ""},
        ["app/server.py"],
        ("app.errors", "app/errors.py"),
    ),
    "setup.cfg find in src": (
        {
            "setup.cfg": "[metadata]\nname = x\n[options]\npackages = find:\npackage_dir =\n    =src\n"
            "[options.packages.find]\nwhere = src\n",
            "setup.py": "from setuptools import setup\nsetup()\n",
            "src/app/__init__.py": "",
            "src/app/server.py": SERVER,
        },
        ["src/app/server.py"],
        ("app.errors", "src/app/errors.py"),
    ),
    "setup.py find_packages": (
        {
            "setup.py": 'from setuptools import find_packages, setup\nPACKAGES = find_packages("src")\n'
            'setup(name="x", packages=PACKAGES, package_dir={"": "src"})\n',
            "src/app/__init__.py": "",
            "src/app/server.py": SERVER,
        },
        ["src/app/server.py"],
        ("app.errors", "src/app/errors.py"),
    ),
    "poetry packages from src": (
        {
            "pyproject.toml": POETRY + '[tool.poetry]\npackages = [{ include = "pkg", from = "src" }]\n',
            "src/pkg/__init__.py": "",
            "src/pkg/server.py": SERVER,
        },
        ["src/pkg/server.py"],
        ("pkg.errors", "src/pkg/errors.py"),
    ),
    "poetry default": (
        {"pyproject.toml": POETRY, "acme_notes/__init__.py": "", "acme_notes/server.py": SERVER},
        ["acme_notes/server.py"],
        ("acme_notes.errors", "acme_notes/errors.py"),
    ),
    "flit module name": (
        {
            "pyproject.toml": FLIT + '[tool.flit.module]\nname = "notes"\n',
            "src/notes/__init__.py": "",
            "src/notes/server.py": SERVER,
        },
        ["src/notes/server.py"],
        ("notes.errors", "src/notes/errors.py"),
    ),
    "pdm default src": (
        {"pyproject.toml": PDM, "src/notes/__init__.py": "", "src/notes/server.py": SERVER},
        ["src/notes/server.py"],
        ("notes.errors", "src/notes/errors.py"),
    ),
    "pdm package-dir": (
        {
            "pyproject.toml": PDM + '[tool.pdm.build]\npackage-dir = "lib"\nincludes = ["lib/notes"]\n',
            "lib/notes/__init__.py": "",
            "lib/notes/server.py": SERVER,
        },
        ["lib/notes/server.py"],
        ("notes.errors", "lib/notes/errors.py"),
    ),
    "uv default": (
        {"pyproject.toml": UV, "src/acme_notes/__init__.py": "", "src/acme_notes/server.py": SERVER},
        ["src/acme_notes/server.py"],
        ("acme_notes.errors", "src/acme_notes/errors.py"),
    ),
    "uv namespace module": (
        {
            "pyproject.toml": UV + '[tool.uv.build-backend]\nmodule-name = "acme.notes"\nmodule-root = ""\n',
            "acme/notes/__init__.py": "",
            "acme/notes/server.py": SERVER,
        },
        ["acme/notes/server.py"],
        ("acme.notes.errors", "acme/notes/errors.py"),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_helpers_go_into_the_package_the_wheel_ships(tmp_path, case):
    files, sites, expected = CASES[case]
    root = project(tmp_path, files)
    assert placed(root, *sites) == expected
    # The registry's name for it leads back to the same file (`registry generate`, REG016).
    assert module_path(expected[0], root) == root / expected[1]


REFUSALS = {
    "setuptools lone top-level module": (
        {"pyproject.toml": SETUPTOOLS, "server.py": SERVER},
        ["server.py"],
        "no migrated module is inside a package",
    ),
    "flit single module": (
        {"pyproject.toml": FLIT, "acme_notes.py": SERVER},
        ["acme_notes.py"],
        "no migrated module is inside a package",
    ),
    "setup.py computes its packages": (
        {
            "setup.py": "from setuptools import setup\nsetup(name='x', packages=discover())\n",
            "app/__init__.py": "",
            "app/server.py": SERVER,
        },
        ["app/server.py"],
        "setup.py:2: `packages` is not a literal list",
    ),
    "setup.py passes a dict": (
        {"setup.py": "from setuptools import setup\nsetup(**CONFIG)\n", "app/server.py": SERVER},
        ["app/server.py"],
        "setup.py:2: setup(**...) is not read statically",
    ),
    "find without namespaces skips a package without __init__": (
        {
            "pyproject.toml": SETUPTOOLS + "[tool.setuptools.packages.find]\nnamespaces = false\n",
            "app/server.py": SERVER,
        },
        ["app/server.py"],
        "no migrated module is inside a package",
    ),
    "hatch only-packages without __init__": (
        {
            "pyproject.toml": HATCH
            + '[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\nonly-packages = true\n',
            "src/pkg/server.py": SERVER,
        },
        ["src/pkg/server.py"],
        "no migrated module is inside a package",
    ),
    "hatch include patterns list the files": (
        {
            "pyproject.toml": HATCH
            + '[tool.hatch.build.targets.wheel]\ninclude = ["pkg/__init__.py", "pkg/server.py"]\n',
            "pkg/__init__.py": "",
            "pkg/server.py": SERVER,
        },
        ["pkg/server.py"],
        "pkg/errors.py would not be in the wheel",
    ),
    "poetry glob": (
        {"pyproject.toml": POETRY + '[tool.poetry]\npackages = [{ include = "pkg/*.py" }]\n', "pkg/server.py": SERVER},
        ["pkg/server.py"],
        "is a glob mcplint does not read",
    ),
    "unknown backend": (
        {"pyproject.toml": '[build-system]\nbuild-backend = "maturin"\n', "pkg/server.py": SERVER},
        ["pkg/server.py"],
        "build backend 'maturin' is not one mcplint reads",
    ),
    "setuptools flat layout with two packages": (
        {"pyproject.toml": SETUPTOOLS, "a/__init__.py": "", "a/server.py": SERVER, "b/__init__.py": ""},
        ["a/server.py"],
        "finds several top-level packages (a, b)",
    ),
    "a value of the wrong type": (
        {
            "pyproject.toml": POETRY + '[tool.poetry]\npackages = [{ include = "pkg", from = 5 }]\n',
            "pkg/server.py": SERVER,
        },
        ["pkg/server.py"],
        "poetry-core's configuration is not what it accepts",
    ),
    "pdm package-dir that does not exist": (
        {"pyproject.toml": PDM + '[tool.pdm.build]\npackage-dir = "lib"\n', "pkg/server.py": SERVER},
        ["pkg/server.py"],
        "pdm-backend's configuration is not what it accepts",
    ),
    "invalid pyproject": ({"pyproject.toml": "[project\n", "pkg/server.py": SERVER}, ["pkg/server.py"], "invalid TOML"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_no_safe_place_is_a_refusal_with_the_reason(tmp_path, case):
    files, sites, reason = REFUSALS[case]
    root = project(tmp_path, files)
    with pytest.raises(NoPlace, match=None) as refused:
        place(root, *sites)
    assert reason in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_project_that_builds_no_wheel_leaves_the_choice_to_migrate(tmp_path):
    root = project(tmp_path, {"server.py": SERVER, "pyproject.toml": "[tool.black]\nline-length = 100\n"})
    assert place(root, "server.py") is None
    assert shipped_module_file("mcp_errors", root) is None
    assert module_path("mcp_errors", root) == root / "mcp_errors.py"


def test_a_namespace_directory_is_passed_through_to_the_package_holding_the_sites(tmp_path):
    """`acme/` of `acme/notes/` holds no module: `acme.errors` would be shared by every `acme.*` distribution."""
    root = project(tmp_path, {"pyproject.toml": SETUPTOOLS, "src/acme/notes/__init__.py": "",
                              "src/acme/notes/server.py": SERVER, "src/acme/notes/tools/a.py": SERVER})  # fmt: skip
    assert placed(root, "src/acme/notes/server.py", "src/acme/notes/tools/a.py") == (
        "acme.notes.errors",
        "src/acme/notes/errors.py",
    )


def test_an_existing_helpers_module_the_wheel_would_not_ship_is_named(tmp_path):
    root = project(tmp_path, {"pyproject.toml": HATCH + '[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n',
                              "src/pkg/server.py": SERVER})  # fmt: skip
    assert "helpers-module `mcp_errors` would not be in the wheel (hatchling" in unshipped_reason(root, "mcp_errors")
    assert unshipped_reason(root, "pkg.errors") is None


# -- through the command ---------------------------------------------------------------------
def test_migrate_writes_the_helpers_into_the_package_hatch_ships(tmp_path):
    files, _, _ = CASES["hatch packages, no __init__"]
    root = project(tmp_path, files)
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert result.exit_code == 0, result.stderr
    assert not (root / "src" / "mcp_errors.py").exists()
    assert (root / "src" / "pkg" / "errors.py").read_text().startswith("# @generated by mcplint")
    assert "from pkg.errors import " in (root / "src" / "pkg" / "server.py").read_text()
    assert 'helpers-module = "pkg.errors"' in (root / "mcp-errors.toml").read_text()
    assert run_cli("registry", "generate", "--check", cwd=root).exit_code == 0  # the same file, found again


def test_migrate_refuses_before_writing_anything(tmp_path):
    files, _, _ = REFUSALS["setuptools lone top-level module"]
    root = project(tmp_path, files)
    for write in ([], ["--write"]):
        result = run_cli("migrate", *write, ".", cwd=root)
        assert result.exit_code == 2
        (line,) = [line for line in result.stderr.splitlines() if line.startswith("mcplint: error")]
        assert line.startswith("mcplint: error: cannot place the helpers module: no migrated module is inside")
        assert sorted(path.name for path in root.iterdir()) == ["pyproject.toml", "server.py"]
        assert (root / "server.py").read_text() == SERVER


def test_migrate_refuses_an_existing_helpers_module_the_wheel_would_not_ship(tmp_path):
    files, _, _ = CASES["hatch packages, no __init__"]
    root = project(
        tmp_path, {**files, "mcp-errors.toml": 'schema_version = 1\nnamespace = "x"\nhelpers-module = "mcp_errors"\n'}
    )
    result = run_cli("migrate", "--write", ".", cwd=root)
    assert result.exit_code == 2
    assert "helpers-module `mcp_errors` would not be in the wheel" in result.stderr
    assert not (root / "src" / "mcp_errors.py").exists() and (root / "src" / "pkg" / "server.py").read_text() == SERVER
