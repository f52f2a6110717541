"""Runtime settings for the notes servers, read from environment variables."""

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    db_path: Path = Path(os.environ.get("NOTES_DB", "notes.db")).expanduser()
    read_only: bool = os.environ.get("NOTES_READ_ONLY", "").lower() in {"1", "true", "yes"}
    log_level: str = os.environ.get("NOTES_LOG_LEVEL", "INFO").upper()
    max_title_length: int = int(os.environ.get("NOTES_MAX_TITLE_LENGTH", "200"))
    max_tags: int = 10
    max_search_results: int = 100


settings = Settings()
