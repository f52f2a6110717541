"""A finding: what the engine reports and every output format renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# Whether a fix may be applied by `--fix` alone, or needs `--unsafe-fixes` (ruff's model).
Applicability = Literal["safe", "unsafe"]
SAFE: Applicability = "safe"
UNSAFE: Applicability = "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (1-based, end exclusive, code points)."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]
    # (module, name) pairs the fixed code imports; added with LibCST's AddImportsVisitor.
    imports: tuple[tuple[str, str], ...] = ()


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
    fix: Fix | None = field(default=None, compare=False)
    # The error's message as a registry template (`Note {note_id} does not exist.`),
    # when a rule could read one: what `mcplint migrate` makes registry entries of.
    error_template: str | None = field(default=None, compare=False)
    # Why the rule's fix was not offered here, when it had one (`mcplint migrate` lists the
    # sites it leaves for a human with it): "handlers of different kinds reach it", ...
    unfixed_reason: str | None = field(default=None, compare=False)

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> Finding:
        """The inverse of ``to_dict`` (the cache stores findings as JSON)."""
        fix = fields.get("fix")
        if fix is not None:
            edits = tuple(Edit(**edit) for edit in fix["edits"])
            imports = tuple((module, name) for module, name in fix.get("imports", ()))
            fields = {**fields, "fix": Fix(fix["applicability"], fix["message"], edits, imports)}
        return cls(**fields)
