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
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tractor_table.club import db, tokens
from tractor_table.club.pg import Cluster


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


class ServerProc:
    """``tractor-table club serve --db URL`` as its own process (kill -9 is real)."""

    def __init__(self, url: str, port: int | None = None, offline_s: float = 30.0) -> None:
        from tractor_table.club.pg import free_port

        self.db = url
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.offline_s = offline_s

    def start(self) -> ServerProc:
        import httpx

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tractor_table.cli", "club", "serve", "--db", self.db,
             "--port", str(self.port), "--offline-after", str(self.offline_s)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"club serve exited: {err}")
            try:
                if httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("club serve did not answer within 60 s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def club_server(club_token: tuple[str, str]) -> Iterator[tuple[ServerProc, str]]:
    s = ServerProc(club_token[0]).start()
    try:
        yield s, club_token[1]
    finally:
        s.stop()
