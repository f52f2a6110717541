"""Download and unpack the pinned corpus of real-world MCP servers from PyPI.

Usage:
    python benchmarks/fetch_corpus.py [--list FILE] [--dest DIR]

Each `name==version` line of the list is fetched with pip (sdist first, wheel as
a fallback, since some projects only publish a wheel) and unpacked into
`<dest>/src/<name>-<version>/`. Already unpacked packages are skipped, so the
script can be re-run after a partial failure. Stdlib only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

DEFAULT_LIST = Path(__file__).resolve().parent / "corpus.txt"
DEFAULT_DEST = Path.home() / ".cache" / "mcplint" / "corpus"
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".zip", ".whl")


def read_pins(list_path: Path) -> list[tuple[str, str]]:
    """Return (name, version) pairs from a `name==version` list, skipping comments."""
    pins = []
    for raw in list_path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name or not version:
            raise SystemExit(f"{list_path}: cannot parse line {raw!r}")
        pins.append((name.strip(), version.strip()))
    return pins


def pip_download(spec: str, into: Path, sdist: bool) -> Path | None:
    """Download one artifact of `spec` into `into`; return its path, or None."""
    cmd = [
        sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
        "--ignore-requires-python", "--dest", str(into), spec,
    ]
    cmd += ["--no-binary", ":all:"] if sdist else ["--only-binary", ":all:"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        return None
    artifacts = [p for p in into.iterdir() if p.name.endswith(ARCHIVE_SUFFIXES)]
    return artifacts[0] if len(artifacts) == 1 else None


def download(name: str, version: str, dist_dir: Path) -> Path:
    """Fetch the sdist (the full source tree) or, failing that, the wheel."""
    target = dist_dir / f"{name}-{version}"
    existing = [p for p in target.glob("*") if p.name.endswith(ARCHIVE_SUFFIXES)]
    if len(existing) == 1:
        return existing[0]
    for sdist in (True, False):
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        artifact = pip_download(f"{name}=={version}", target, sdist)
        if artifact is not None:
            return artifact
    raise RuntimeError(f"pip could not download {name}=={version} (sdist or wheel)")


def is_inside(root: Path, member: str) -> bool:
    """Guard against archive members escaping the extraction directory."""
    resolved = (root / member).resolve()
    return resolved == root.resolve() or root.resolve() in resolved.parents


def extract(archive: Path, into: Path) -> None:
    name = archive.name
    if name.endswith((".zip", ".whl")):
        with zipfile.ZipFile(archive) as zf:
            members = [m for m in zf.namelist() if is_inside(into, m)]
            zf.extractall(into, members=members)
    else:
        with tarfile.open(archive) as tf:
            members = [
                m for m in tf.getmembers()
                if (m.isfile() or m.isdir()) and is_inside(into, m.name)
            ]
            tf.extractall(into, members=members)


def unpack(archive: Path, final_dir: Path) -> None:
    """Unpack atomically: extract to a temp dir, then rename into place.

    A crash mid-extraction therefore never leaves a half-filled directory that a
    re-run would mistake for a finished one. An sdist's single top-level
    `name-version/` directory is stripped so every package has the same layout.
    """
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=final_dir.parent))
    try:
        extract(archive, staging)
        entries = list(staging.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else staging
        root.rename(final_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def count_python(tree: Path) -> tuple[int, int]:
    """Return (number of *.py files, number of lines) under `tree`."""
    files = lines = 0
    for path in tree.rglob("*.py"):
        if path.is_file():
            files += 1
            lines += len(path.read_bytes().splitlines())
    return files, lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", type=Path, default=DEFAULT_LIST,
                        help=f"pinned package list (default: {DEFAULT_LIST})")
    parser.add_argument("--dest", type=Path,
                        default=Path(os.environ.get("MCPLINT_CORPUS_DIR", DEFAULT_DEST)),
                        help="cache directory (default: $MCPLINT_CORPUS_DIR or "
                             f"{DEFAULT_DEST})")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    dest = args.dest.expanduser()
    dist_dir, src_dir = dest / "dist", dest / "src"
    src_dir.mkdir(parents=True, exist_ok=True)

    failures = []
    total_files = total_lines = 0
    for name, version in read_pins(args.list):
        final_dir = src_dir / f"{name}-{version}"
        status = "cached"
        if not final_dir.is_dir():
            try:
                archive = download(name, version, dist_dir)
                unpack(archive, final_dir)
                status = archive.name
            except Exception as exc:  # report and carry on with the others
                failures.append(f"{name}=={version}: {exc}")
                print(f"{name}=={version}: FAILED: {exc}", file=sys.stderr)
                continue
        files, lines = count_python(final_dir)
        total_files += files
        total_lines += lines
        spec = f"{name}=={version}"
        print(f"{spec:<36} {files:5d} .py {lines:8d} lines  ({status})")

    print(f"\ncorpus: {src_dir}")
    print(f"total: {total_files} .py files, {total_lines} lines")
    if failures:
        print(f"{len(failures)} package(s) failed:", *failures, sep="\n  ", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
