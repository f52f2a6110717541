"""A finding: what the engine reports and every output format renders."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Finding:
    # Field order is the sort order: path, line, column, code.
    path: str
    line: int
    column: int
    code: str
    end_line: int
    end_column: int
    name: str
    message: str
    # Not compared: None and a name do not order, and position already decides.
    handler: str | None = field(default=None, compare=False)
    # What a baseline fingerprint is made of, besides code and path (no line numbers):
    context: str = "<module>"  # the enclosing function's qualified name
    snippet_digest: str = ""  # the flagged code's shape, names and layout ignored

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
