"""Connections to the club's PostgreSQL and its schema migrations.

The schema is the numbered SQL files in ``migrations/`` (``001_core.sql``, ...;
the club server's own are 001-009, the competition layer's 010 on), applied in
order at start, each in one transaction with its row in ``schema_version``; an
advisory lock keeps two servers starting at once from applying one twice. A
database whose schema is newer than this program is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import psycopg

MIGRATIONS_DIR = Path(str(resources.files(__package__) / "migrations"))
_LOCK = 0x54547263  # pg_advisory_xact_lock key: "TTrc", as the records' application id
_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


class SchemaError(RuntimeError):
    """The database cannot be used by this program (the message says why)."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations(folder: Path = MIGRATIONS_DIR) -> list[Migration]:
    """The migrations in ``folder``, in order; a misnamed file or two with one number is an error."""
    out: dict[int, Migration] = {}
    for p in sorted(folder.iterdir()):
        if p.suffix != ".sql":
            continue
        m = _NAME.match(p.name)
        if m is None:
            raise SchemaError(f"migration {p.name}: name it NNN_words.sql (three digits, a-z 0-9 _)")
        v = int(m.group(1))
        if v in out:
            raise SchemaError(f"migrations {out[v].name} and {p.name} share the number {v:03d}")
        out[v] = Migration(v, p.name, p.read_text(encoding="utf-8"))
    return [out[v] for v in sorted(out)]


def migrate(conn: psycopg.Connection, folder: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply the migrations not yet applied; the names applied. ``conn`` must
    not be in a transaction (autocommit or idle)."""
    todo = migrations(folder)
    known = todo[-1].version if todo else 0
    applied: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version("
            "version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        have = int(row[0]) if row and row[0] is not None else 0
    if have > known:
        raise SchemaError(
            f"the club database's schema is version {have}, newer than this tractor-table knows "
            f"({known}): update tractor-table, or give another database with --db"
        )
    for m in todo:
        if m.version <= have:
            continue
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
            if conn.execute("SELECT 1 FROM schema_version WHERE version = %s",
                            (m.version,)).fetchone() is not None:
                continue  # another process applied it meanwhile
            conn.execute(m.sql.encode())
            conn.execute("INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                         (m.version, m.name))
        applied.append(m.name)
    return applied


def connect(url: str, **kw: object) -> psycopg.Connection:
    """A connection in autocommit mode (transactions are explicit)."""
    return psycopg.connect(url, autocommit=True, connect_timeout=10, **kw)  # type: ignore[arg-type]
