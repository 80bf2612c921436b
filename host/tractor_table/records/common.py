"""What the records' modules share: the error, the clock, the default file, the row helpers."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import CommandError

DEFAULT_NAME = "records.sqlite"

Note = list[Any]
Event = list[Any]


class RecordsError(CommandError):
    """The records database cannot be used; the message names the file and what to do."""


def default_path() -> Path:
    """``records.sqlite`` in the user's data directory (platformdirs; on Linux
    ``$XDG_DATA_HOME/tractor-table``, by default ``~/.local/share/tractor-table``)."""
    import platformdirs

    return platformdirs.user_data_path("tractor-table", appauthor=False) / DEFAULT_NAME


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def load_event(text: str) -> Event:
    ev = json.loads(text)
    if not isinstance(ev, list):
        raise ValueError("an event is a JSON array")
    return ev



def rowid(cur: sqlite3.Cursor) -> int:
    rid = cur.lastrowid
    assert rid is not None
    return rid



def damaged(path: Path, exc: sqlite3.Error) -> RecordsError:
    if isinstance(exc, sqlite3.OperationalError):
        # not the file's content: permissions, a full disk, a lock held too long
        return RecordsError(
            f"records {path}: cannot use it ({exc}); check the folder's permissions and free "
            "space, or give another file with --db"
        )
    return RecordsError(
        f"records {path}: the database is damaged ({exc}); it was left as it is: keep a copy, "
        "try 'sqlite3 FILE .recover', or move it away and start new records (--db another file)"
    )

