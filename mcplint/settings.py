"""What the per-file engine and the rules are told about a file: its resolved settings.

Built by ``mcplint.config`` from the config files and the command line; kept apart
from it so that the rules, which read it, do not import the config's loading (which
reads the rules to validate their options).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class FileSettings:
    """Everything the per-file engine needs; small and picklable for the pool."""

    codes: frozenset[str]
    rule_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    handler_decorators: tuple[str, ...] = ()
    handler_functions: tuple[str, ...] = ()
    registry: str | None = None  # the error registry's path (MCP003, MCP004 read it)
    default_symbol: str | None = None
    # Codes `mcplint migrate` is assigning to the entries it adds: numbers the project never
    # sent, so a raise's own code (`McpError(ErrorData(code=1001, ...))`) must not match them.
    assigned_codes: frozenset[int] = frozenset()
    # The project's line length (`[tool.ruff]`, else `[tool.black]`, else 88): lines a fix
    # writes are laid out to fit it (`mcplint.engine.wrap`).
    line_length: int = 88
