"""The club's migrations and tokens, on a real PostgreSQL (tests/club/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tractor_table.club import db, tokens


def test_migrations_apply_once_and_are_recorded(club_db: str) -> None:
    with db.connect(club_db) as c:
        assert db.migrate(c) == []  # the fixture applied them all: nothing more to do
        names = [r[0] for r in c.execute("SELECT name FROM schema_version ORDER BY version")]
    assert names == [m.name for m in db.migrations()]
    assert names[0] == "001_core.sql"


def test_a_newer_schema_is_refused(club_db: str) -> None:
    with db.connect(club_db) as c:
        c.execute("INSERT INTO schema_version (version, name) VALUES (999, '999_future.sql')")
        with pytest.raises(db.SchemaError, match="newer than this tractor-table"):
            db.migrate(c)


def test_misnamed_or_doubled_migrations_are_refused(tmp_path: Path) -> None:
    (tmp_path / "1_x.sql").write_text("SELECT 1")
    with pytest.raises(db.SchemaError, match="NNN_words.sql"):
        db.migrations(tmp_path)
    (tmp_path / "1_x.sql").unlink()
    (tmp_path / "002_a.sql").write_text("SELECT 1")
    (tmp_path / "002_b.sql").write_text("SELECT 1")
    with pytest.raises(db.SchemaError, match="share the number 002"):
        db.migrations(tmp_path)


def test_a_failing_migration_changes_nothing(club_db: str, tmp_path: Path) -> None:
    have = db.migrations()
    for m in have:
        (tmp_path / m.name).write_text(m.sql)
    last = have[-1].version  # the competition layer's migrations come after the club's
    (tmp_path / f"{last + 1:03d}_broken.sql").write_text(
        "CREATE TABLE half(x int); SELECT no_such_function();")
    with db.connect(club_db) as c:
        with pytest.raises(Exception, match="no_such_function"):
            db.migrate(c, tmp_path)
        assert c.execute("SELECT to_regclass('half')").fetchone() == (None,)
        assert c.execute("SELECT max(version) FROM schema_version").fetchone() == (last,)


def test_tokens_are_stored_hashed_and_names_unique(club_db: str) -> None:
    with db.connect(club_db) as c:
        tok = tokens.add(c, "table laptop 3")
        assert tok.startswith("tt_") and len(tok) > 40
        stored = c.execute("SELECT token_sha256 FROM tokens").fetchone()[0]
        assert bytes(stored) == tokens.digest(tok) and tok.encode() not in bytes(stored)
        with pytest.raises(ValueError, match="exists"):
            tokens.add(c, "table laptop 3")
        with pytest.raises(ValueError, match="1 to 100"):
            tokens.add(c, " ")
        assert tokens.revoke(c, "table laptop 3") and not tokens.revoke(c, "table laptop 3")
