"""SQLite-backed storage for notes. Knows nothing about MCP; the servers wrap it."""

import json
import sqlite3
from contextlib import closing
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

SCHEMA = """CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '[]', pinned INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL)"""
UPDATABLE_FIELDS = frozenset({"title", "body", "tags", "pinned", "archived"})


class NoteNotFound(Exception):
    """Raised when a note id does not exist in the store."""

    def __init__(self, note_id: int | str) -> None:
        super().__init__(f"Note {note_id} not found")
        self.note_id = note_id


@dataclass
class Note:
    id: int
    title: str
    body: str = ""
    tags: list[str] = field(default_factory=list)
    pinned: bool = False
    archived: bool = False
    updated_at: str = ""

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> "Note":
        data = dict(row)
        data.update(tags=json.loads(row["tags"]), pinned=bool(row["pinned"]), archived=bool(row["archived"]))
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_markdown(self) -> str:
        tags = " ".join(f"#{tag}" for tag in self.tags)
        return f"# {self.title}\n\n{self.body}\n\n{tags}".rstrip() + "\n"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class NoteStore:
    """Thin repository over a SQLite database file. Connects on first use."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @cached_property
    def conn(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute(SCHEMA)
        return conn

    def add(self, title: str, body: str = "", tags: list[str] | None = None) -> Note:
        if not title:
            raise ValueError("title is required")
        cur = self.conn.execute(
            "INSERT INTO notes (title, body, tags, updated_at) VALUES (?, ?, ?, ?)",
            (title, body, json.dumps(tags or []), _now()),
        )
        self.conn.commit()
        return self.get(cur.lastrowid)

    def find(self, note_id: int) -> Note | None:
        row = self.conn.execute("SELECT * FROM notes WHERE id = ?", (note_id,)).fetchone()
        return Note.from_row(row) if row else None

    def get(self, note_id: int) -> Note:
        note = self.find(note_id)
        if note is None:
            raise NoteNotFound(note_id)
        return note

    def search(self, query: str, limit: int = 20) -> list[Note]:
        pattern = f"%{query}%"
        sql = ("SELECT * FROM notes WHERE archived = 0 AND (title LIKE ? OR body LIKE ?)"
               " ORDER BY updated_at DESC LIMIT ?")
        rows = self.conn.execute(sql, (pattern, pattern, limit)).fetchall()
        return [Note.from_row(row) for row in rows]

    def update(self, note_id: int, **fields: Any) -> Note:
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise ValueError(f"cannot update fields: {', '.join(sorted(unknown))}")
        self.get(note_id)
        if "tags" in fields:
            fields["tags"] = json.dumps(fields["tags"])
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self.conn.execute(
            f"UPDATE notes SET {assignments}, updated_at = ? WHERE id = ?",
            (*fields.values(), _now(), note_id),
        )
        self.conn.commit()
        return self.get(note_id)

    def delete(self, note_id: int) -> bool:
        cur = self.conn.execute("DELETE FROM notes WHERE id = ?", (note_id,))
        self.conn.commit()
        return cur.rowcount > 0

    def purge_archived(self, older_than: str) -> int:
        cur = self.conn.execute("DELETE FROM notes WHERE archived = 1 AND updated_at < ?", (older_than,))
        self.conn.commit()
        return cur.rowcount


def load_all(path: str | Path) -> list[Note]:
    """Read every note from the database at *path* (exports and backups)."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            conn.row_factory = sqlite3.Row
            rows = conn.execute("SELECT * FROM notes ORDER BY id").fetchall()
    except Exception:
        return []
    return [Note.from_row(row) for row in rows]
