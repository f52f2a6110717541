"""A finding: what the engine reports and every output format renders."""

from __future__ import annotations

from dataclasses import asdict, dataclass
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
    handler: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
