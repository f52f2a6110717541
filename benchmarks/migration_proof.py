"""The migration proof: real MCP servers' own test suites, before and after `mcplint migrate --write`.

Usage:
    python benchmarks/migration_proof.py [--only NAME ...]

Each server of ``benchmarks/proof_servers.toml`` is fetched from PyPI as an
sdist (``name==version``), installed with its test dependencies into a venv of
its own, held to the exact set in ``benchmarks/proof_constraints/<name>.txt``
(cached beside the SDK venvs, ``tests/sdk/sdk_venvs.py``: keyed by the pins and
the Python version, ready only once its ``.ready`` marker exists). Then, on a
copy of the unpacked sdist: its tests run (the copy's source directory first on
``PYTHONPATH``, so they import the copy, never the installed original), `mcplint
migrate --write .` runs with this checkout's mcplint, and the tests run again.
The proof holds when the tests that passed after are exactly those that passed
before, less the ones the server's entry excepts, each with its old and new
text. Prints one row per server; ``tests/sdk/test_migration_proof.py`` (slow)
asserts the same per server.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVERS_FILE = ROOT / "benchmarks" / "proof_servers.toml"
CONSTRAINTS = ROOT / "benchmarks" / "proof_constraints"
sys.path.insert(0, str(ROOT / "tests" / "sdk"))

from sdk_venvs import built_once, new_venv, venvs_root  # noqa: E402
from sdk_venvs import sdist_archive as sdk_sdist_archive  # noqa: E402
from sdk_venvs import sdist_tree as sdk_sdist_tree  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

TIMEOUT = 900  # seconds per subprocess; a cold install of the largest takes about a minute


EXCEPTED_KINDS = ("message", "error-value")


@dataclass(frozen=True)
class Excepted:
    """A test that passes before and not after, for a reason the proof accepts: it asserts
    the old message text (``kind = "message"``) or the old in-band error value that the
    migration turns into a registry error (``kind = "error-value"``)."""

    test: str
    kind: str
    old: str
    new: str


@dataclass(frozen=True)
class ProofServer:
    name: str
    version: str
    kind: str  # what the server is built on, as the README's table says it
    source: str  # where its import packages live in the sdist ("src" or "."): first on PYTHONPATH
    package: str  # an import package of the server: the tests must import it from the copy
    test_requirements: tuple[str, ...]  # installed with the sdist (pinned by the constraints)
    pytest_args: tuple[str, ...]
    deselect: tuple[tuple[str, str], ...]  # (node id or path, why it cannot run here)
    passed_before: int  # what its suite passes unmigrated, here: a drift is an error, not a weaker proof
    excepted: tuple[Excepted, ...] = ()
    xfail: str | None = None  # why the proof does not hold yet (the slow test is a strict xfail)

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def constraints(self) -> Path:
        return CONSTRAINTS / f"{self.name}.txt"


def load_servers(path: Path = SERVERS_FILE) -> list[ProofServer]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    servers = []
    for entry in data["server"]:
        for item in entry.get("excepted", ()):
            if item["kind"] not in EXCEPTED_KINDS:
                raise ValueError(f"{path}: {entry['name']}: excepted {item['test']}: kind {item['kind']!r}")
        servers.append(
            ProofServer(
                name=entry["name"],
                version=entry["version"],
                kind=entry["kind"],
                source=entry.get("source", "."),
                package=entry["package"],
                test_requirements=tuple(entry.get("test-requirements", ())),
                pytest_args=tuple(entry.get("pytest-args", ())),
                deselect=tuple((item["test"], item["reason"]) for item in entry.get("deselect", ())),
                passed_before=entry["passed-before"],
                excepted=tuple(
                    Excepted(item["test"], item["kind"], item["old"], item["new"]) for item in entry.get("excepted", ())
                ),
                xfail=entry.get("xfail"),
            )
        )
    return servers


# -- the server's venv and sdist ------------------------------------------------------------


def sdist_tree(server: ProofServer) -> Path:
    """The unpacked sdist's root directory (cached; never changed: copy it first)."""
    return sdk_sdist_tree(server.requirement)


def venv_dir(server: ProofServer) -> Path:
    pins = server.constraints.read_text(encoding="utf-8")
    requirements = "\n".join((server.requirement, *sorted(server.test_requirements), pins))
    key = hashlib.sha256(f"{sys.version_info[:2]}\n{requirements}".encode()).hexdigest()[:12]
    return venvs_root() / f"proof-{server.name}-{key}"


def venv_python(server: ProofServer) -> Path:
    """The server's venv: the sdist with its dependencies and its test dependencies, as pinned."""
    archive = sdk_sdist_archive(server.requirement)  # the archive: an install never writes into the cached tree
    requirements = ("-c", str(server.constraints), str(archive), *server.test_requirements)
    directory = built_once(venv_dir(server), lambda target: new_venv(target, *requirements), server.requirement)
    return directory / "bin" / "python"


# -- one proof -----------------------------------------------------------------------------

_PASSED = re.compile(r"^PASSED (\S.*)$")
_SUBTEST_FAILED = re.compile(r"^SUBFAILED(?:\(.*?\))? (\S.*?)(?: - .*)?$")


@dataclass
class Run:
    passed: set[str]
    summary: str  # pytest's last line
    output: str


@dataclass
class Proof:
    server: ProofServer
    before: Run
    after: Run
    sites_rewritten: int
    migrate_output: str
    seconds: float
    files_changed: int = 0  # Python files of the copy that differ from the sdist's (new ones included)
    lost: set[str] = field(default_factory=set)  # passed before, not after
    gained: set[str] = field(default_factory=set)  # passed after, not before

    @property
    def unexplained(self) -> set[str]:
        """Tests lost that no entry excepts."""
        return self.lost - {item.test for item in self.server.excepted}

    @property
    def stale(self) -> set[str]:
        """Excepted tests that did not fail after all (or never passed): the list is out of date."""
        return {item.test for item in self.server.excepted} - self.lost

    @property
    def holds(self) -> bool:
        return not self.unexplained and not self.stale and not self.gained


def _environment(server: ProofServer, copy: Path) -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "PYTEST", "MCP_ERROR", "MCPLINT", "COV_CORE"))
    }
    environment["PYTHONPATH"] = str(copy / server.source)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return environment


def run_tests(server: ProofServer, copy: Path) -> Run:
    """The server's suite on ``copy``; the node ids of the tests that passed."""
    python = venv_python(server)
    arguments = [
        str(python), "-m", "pytest", "-q", "-rA", "--color=no", "-p", "no:cacheprovider",
        "-o", "addopts=",  # the project's own (coverage, verbosity) need plugins the proof does not install
        *(f"--deselect={test}" if "::" in test else f"--ignore={test}" for test, _ in server.deselect),
        *server.pytest_args,
    ]  # fmt: skip
    completed = subprocess.run(
        arguments, cwd=copy, env=_environment(server, copy), capture_output=True, text=True, timeout=TIMEOUT
    )
    output = completed.stdout + completed.stderr
    passed = {match.group(1) for line in output.splitlines() if (match := _PASSED.match(line))}
    # A test whose subtest failed is still reported PASSED itself (pytest's subtests): not here.
    passed -= {match.group(1) for line in output.splitlines() if (match := _SUBTEST_FAILED.match(line))}
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    return Run(passed, lines[-1] if lines else "", output)


def imported_from(server: ProofServer, copy: Path) -> str:
    """Where the tests' interpreter imports the server's package from (must be the copy)."""
    completed = subprocess.run(
        [str(venv_python(server)), "-c", f"import {server.package} as p; print(p.__file__)"],
        cwd=copy, env=_environment(server, copy), capture_output=True, text=True, timeout=TIMEOUT, check=True,
    )  # fmt: skip
    return completed.stdout.strip()


def migrate(copy: Path) -> tuple[int, str]:
    """`mcplint migrate --write .` on the copy: the sites it rewrote and what it printed."""
    report = copy.parent / "migration.md"
    completed = subprocess.run(
        [sys.executable, "-m", "mcplint", "migrate", "--write", "--report", str(report), "."],
        cwd=copy, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip
    output = completed.stdout + completed.stderr
    if completed.returncode != 0:
        raise RuntimeError(f"mcplint migrate exited {completed.returncode}:\n{output[-4000:]}")
    return sites_rewritten(report.read_text(encoding="utf-8")), output


def sites_rewritten(report: str) -> int:
    """The sum of the report's "resolved" column (sites per rule)."""
    section = report.split("## Sites per rule", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| MCP")]
    return sum(int(row[3]) for row in rows)


def changed_files(pristine: Path, copy: Path) -> int:
    """How many Python files of ``copy`` are new or differ from ``pristine``'s: what the
    migration wrote, seen on disk rather than in its own report."""
    changed = 0
    for path in copy.rglob("*.py"):
        original = pristine / path.relative_to(copy)
        if not original.is_file() or original.read_bytes() != path.read_bytes():
            changed += 1
    return changed


def prove(server: ProofServer, scratch: Path) -> Proof:
    copy = scratch / server.name / f"{server.name}-{server.version}"
    shutil.copytree(sdist_tree(server), copy)
    origin = imported_from(server, copy)
    if not Path(origin).resolve().is_relative_to(copy.resolve()):
        raise RuntimeError(f"{server.name}: the tests would import {origin}, not the copy under {copy}")
    started = time.perf_counter()
    before = run_tests(server, copy)
    count, output = migrate(copy)
    after = run_tests(server, copy)
    proof = Proof(server, before, after, count, output, time.perf_counter() - started)
    proof.files_changed = changed_files(sdist_tree(server), copy)
    proof.lost = before.passed - after.passed
    proof.gained = after.passed - before.passed
    return proof


def explain(proof: Proof) -> str:
    """What went wrong, for an assertion message."""
    parts = []
    if proof.unexplained:
        failures = proof.after.output.split("= FAILURES =", 1)[-1][-6000:]
        parts.append(f"passed before, not after (not excepted): {sorted(proof.unexplained)}\n{failures}")
    if proof.stale:
        parts.append(f"excepted but not lost (update proof_servers.toml): {sorted(proof.stale)}")
    if proof.gained:
        parts.append(f"passed after only: {sorted(proof.gained)}")
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="server names (prefixes)")
    arguments = parser.parse_args(argv)
    servers = [
        server
        for server in load_servers()
        if not arguments.only or any(server.name.startswith(name) for name in arguments.only)
    ]
    print("| server | built on | sites rewritten | tests passed before | after | excepted (message / error value) |")
    print("|---|---|---:|---:|---:|---|")
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for server in servers:
            proof = prove(server, Path(scratch))
            kinds = [item.kind for item in server.excepted]
            excepted = f"{kinds.count('message')} / {kinds.count('error-value')}"
            flag = "" if proof.holds else " **does not hold**"
            print(
                f"| {server.name} {server.version} | {server.kind} | {proof.sites_rewritten} "
                f"| {len(proof.before.passed)} | {len(proof.after.passed)} | {excepted}{flag} |"
            )
            if not proof.holds:
                failures += 1
                print(explain(proof), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
