"""`mcplint registry diff OLD NEW`: the breaking changes between two registries, reported."""

from __future__ import annotations

import sys
from pathlib import Path

from mcplint.registry.diff import diff_registries, is_breaking, load_revision
from mcplint.registry.model import RegistryError
from mcplint.report import render
from mcplint.terminal import printable


def run_diff(
    old_spec: str,
    new_spec: str,
    output_format: str,
    *,
    default_path: str = "mcp-errors.toml",
    output: str | None = None,
) -> int:
    """`mcplint registry diff OLD NEW`: 1 on a breaking change, 0 otherwise (BRK100 alone), 2 on errors."""
    try:
        old = load_revision(old_spec, default_path)
        new = load_revision(new_spec, default_path)
    except RegistryError as error:
        print(f"mcplint: error: {printable(str(error))}", file=sys.stderr)
        return 2
    findings = diff_registries(old, new)
    text = render(output_format, findings, color=False, root=Path.cwd())
    if output is None:
        sys.stdout.write(text)
    else:
        try:
            with open(output, "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as error:
            print(f"mcplint: error: {output}: cannot write: {error.strerror}", file=sys.stderr)
            return 2
    return 1 if any(is_breaking(finding) for finding in findings) else 0
