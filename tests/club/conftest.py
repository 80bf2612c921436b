"""A real PostgreSQL for the club's tests (and the competition layer's: reuse
these fixtures from any tests/ folder with ``pytest_plugins`` or by importing them).

- ``pg_cluster`` (session): one PostgreSQL cluster per test process, started
  from Debian's ``postgresql`` when it is installed (``/usr/lib/postgresql/N/bin``,
  as CI installs it) or else from the ``pgserver`` wheel (``TT_PG=debian`` or
  ``TT_PG=pgserver`` picks one); as root it runs as the ``postgres`` user.
- ``club_db`` (function): the URL of a fresh database in it with every
  migration applied, dropped after the test.
- ``club_token`` (function): ``(club_db, token)``, a token made in it.

No SQLite stand-in and no mock: a test that needs the club's database gets a real one.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tractor_table.club import db, tokens
from tractor_table.club.pg import Cluster

# the helpers beside this file (clubproc, clubcheck, faultproxy), also when
# tests/competition loads this file by its path
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    # not under pytest's tmp_path: as root, every pytest session on the machine
    # resets /tmp/pytest-of-root to 0700, which locks the postgres user out
    folder = Path(tempfile.mkdtemp(prefix="tt-pg-"))
    cluster = Cluster(folder, fsync=False)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(cluster: Cluster) -> str:
    """A new empty database in ``cluster`` with the club's migrations; its URL."""
    name = "t_" + uuid.uuid4().hex[:12]
    with db.connect(cluster.url) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    url = cluster.url.rsplit("/", 1)[0] + "/" + name
    with db.connect(url) as c:
        db.migrate(c)
    return url


def drop_database(cluster: Cluster, url: str) -> None:
    name = url.rsplit("/", 1)[1]
    with db.connect(cluster.url) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def club_db(pg_cluster: Cluster) -> Iterator[str]:
    url = fresh_database(pg_cluster)
    try:
        yield url
    finally:
        drop_database(pg_cluster, url)


@pytest.fixture
def club_token(club_db: str) -> tuple[str, str]:
    with db.connect(club_db) as c:
        return club_db, tokens.add(c, "test host")


@pytest.fixture
def club_server(club_token: tuple[str, str]) -> Iterator[tuple[Any, str]]:
    from clubproc import ServerProc

    s = ServerProc(club_token[0]).start()
    try:
        yield s, club_token[1]
    finally:
        s.stop()
