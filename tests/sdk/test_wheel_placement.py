"""The generated helpers module ships in the wheel, per build backend (issue 12, item 4).

For each backend a small FastMCP server project (mcp 1.x) is migrated with
`migrate --write`, then its wheel is built with pip from a cached venv holding
the pinned backends (`pip wheel --no-deps --no-build-isolation`: no download
once the venv exists), installed into a fresh venv (the mcp 1.x SDK venv's
site-packages added by a `.pth`, the project's own files nowhere on the path),
and the helpers module and the migrated server module are imported from the
installed wheel, the helper raising its registry error. Before placement
followed the build configuration, the hatch case got `src/mcp_errors.py`,
which its wheel does not contain: the installed server failed on import.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sdk_venvs import STACKS_BY_NAME, install_lock, venv_python, venvs_root
from test_cli import run_cli

pytestmark = pytest.mark.slow

BACKEND_PINS = (
    "setuptools==84.2.1",
    "wheel==0.48.0",
    "hatchling==1.33.0",
    "poetry-core==2.5.0",
    "flit_core==4.2.0",
    "pdm-backend==2.5.0",
    "uv_build==0.13.6",
)
TIMEOUT = 600

SERVER = '''\
"""A tool of the fixture project."""

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("notes")


@mcp.tool()
def lookup(key: str) -> str:
    if not key:
        raise ValueError("the key must not be empty")
    return key
'''
PROJECT = '[project]\nname = "acme-notes"\nversion = "1.0"\ndescription = "fixture"\n'

# backend → (pyproject.toml, the server module's file, its import name in the wheel)
BACKENDS = {
    # The real server's layout: a package without __init__.py, hatch `packages = ["src/pkg"]`.
    "hatchling": (
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        + PROJECT
        + '[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\n',
        {"src/pkg/server.py": SERVER},
        "pkg.server",
    ),
    # `include` patterns beside `packages` select nothing more (hatch ships every file of the packages).
    "hatchling-include": (
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        + PROJECT
        + '[tool.hatch.build.targets.wheel]\npackages = ["src/pkg"]\ninclude = ["src/pkg/config/*"]\n',
        {"src/pkg/__init__.py": "", "src/pkg/server.py": SERVER, "src/pkg/config/settings.toml": ""},
        "pkg.server",
    ),
    "setuptools": (
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        + PROJECT
        + '[tool.setuptools]\npackages = ["notes"]\npackage-dir = {"" = "lib"}\n',
        {"lib/notes/__init__.py": "", "lib/notes/server.py": SERVER},
        "notes.server",
    ),
    "setuptools-setup.py": (
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
        {
            "setup.py": 'from setuptools import find_packages, setup\n\nsetup(name="acme-notes", version="1.0", '
            'packages=find_packages("src"), package_dir={"": "src"})\n',
            "src/notes/__init__.py": "",
            "src/notes/server.py": SERVER,
        },
        "notes.server",
    ),
    "poetry-core": (
        '[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n'
        + PROJECT
        + '[tool.poetry]\npackages = [{ include = "notes", from = "src" }]\n',
        {"src/notes/__init__.py": "", "src/notes/server.py": SERVER},
        "notes.server",
    ),
    "flit-core": (
        '[build-system]\nrequires = ["flit_core"]\nbuild-backend = "flit_core.buildapi"\n'
        + PROJECT
        + '[tool.flit.module]\nname = "notes"\n',
        {"notes/__init__.py": "", "notes/server.py": SERVER},
        "notes.server",
    ),
    "pdm-backend": (
        '[build-system]\nrequires = ["pdm-backend"]\nbuild-backend = "pdm.backend"\n' + PROJECT,
        {"src/notes/__init__.py": "", "src/notes/server.py": SERVER},
        "notes.server",
    ),
    "uv_build": (
        '[build-system]\nrequires = ["uv_build"]\nbuild-backend = "uv_build"\n' + PROJECT,
        {"src/acme_notes/__init__.py": "", "src/acme_notes/server.py": SERVER},
        "acme_notes.server",
    ),
}


def build_python() -> Path:
    """A venv with the pinned build backends, cached like the SDK venvs (keyed by pins and Python)."""
    key = hashlib.sha256(f"{sys.version_info[:2]}\n{sorted(BACKEND_PINS)}".encode()).hexdigest()[:12]
    directory = venvs_root() / f"build-backends-{key}"
    python = directory / "bin" / "python"
    if (directory / ".ready").exists():
        return python
    with install_lock(directory):
        if (directory / ".ready").exists():
            return python
        if directory.exists():
            shutil.rmtree(directory)
        subprocess.run([sys.executable, "-m", "venv", str(directory)], check=True, timeout=TIMEOUT)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *BACKEND_PINS],
            check=True,
            timeout=TIMEOUT,
        )
        (directory / ".ready").write_text("\n".join(BACKEND_PINS) + "\n", encoding="utf-8")
    return python


def site_packages(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip


def clean_environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PIP_"))}


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_the_installed_wheel_imports_the_helpers_and_the_migrated_server(tmp_path, backend):
    pyproject, files, server_module = BACKENDS[backend]
    root = tmp_path / "project"
    for name, text in {"pyproject.toml": pyproject, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    migrated = run_cli("migrate", "--write", ".", cwd=root)
    assert migrated.exit_code == 0, migrated.stderr
    helpers_module = next(
        line.split('"')[1]
        for line in (root / "mcp-errors.toml").read_text().splitlines()
        if line.startswith("helpers-module")
    )
    server_file = next(name for name in files if name.endswith("server.py"))
    assert f"from {helpers_module} import " in (root / server_file).read_text()

    builder = build_python()
    dist = tmp_path / "dist"
    built = subprocess.run(
        [
            str(builder),
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(dist),
            str(root),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**clean_environment(), "PATH": f"{builder.parent}{os.pathsep}{os.environ.get('PATH', '')}"},
    )  # fmt: skip  (uv_build runs its `uv-build` binary from the venv's bin)
    assert built.returncode == 0, built.stderr[-4000:]
    (wheel,) = dist.glob("*.whl")

    fresh = tmp_path / "fresh"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True, timeout=TIMEOUT)
    fresh_python = fresh / "bin" / "python"
    installed = subprocess.run(
        [str(builder), "-m", "pip", "--python", str(fresh_python), "install", "--no-deps", "--no-index", "-q",
         str(wheel)],
        capture_output=True, text=True, timeout=TIMEOUT, env=clean_environment(),
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-4000:]
    fresh_site = Path(site_packages(fresh_python))
    (fresh_site / "mcp_sdk.pth").write_text(site_packages(venv_python(STACKS_BY_NAME["mcp1"])) + "\n")

    probe = textwrap.dedent(f"""
        import importlib, json, sys
        helpers = importlib.import_module({helpers_module!r})
        server = importlib.import_module({server_module!r})
        try:
            server.lookup("")
        except Exception as error:
            raised = type(error).__name__, isinstance(error, ValueError), getattr(error, "symbol", None)
        print(json.dumps({{"helpers": helpers.__file__, "server": server.__file__, "raised": raised}}))
        """)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = subprocess.run(
        [str(fresh_python), "-I", "-c", probe], cwd=elsewhere, capture_output=True, text=True, timeout=TIMEOUT,
        env=clean_environment(),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-4000:]
    report = json.loads(ran.stdout)
    for module_file in (report["helpers"], report["server"]):
        assert Path(module_file).is_relative_to(fresh_site), module_file  # from the wheel, not the checkout
    assert report["raised"][1] is True and report["raised"][2] is not None  # a registry error, still a ValueError
