"""A real PostgreSQL the club can start itself: Debian's server if it is installed
(``/usr/lib/postgresql/N/bin``), else the one the ``pgserver`` wheel ships.

:class:`Cluster` runs ``initdb`` once in a data folder, then ``pg_ctl start`` with
a Unix socket in that folder and TCP on 127.0.0.1 only, trust authentication for
the local user ``tt`` (nobody else can reach a loopback port that only this
machine's processes can: the club's hosts talk HTTP to the server, never to
PostgreSQL). ``initdb`` and ``postgres`` refuse to run as root: as root the
cluster runs as the ``postgres`` system user (Debian's package makes it), or as
a ``tt-postgres`` user made for it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

MIN_VERSION = 15


class PgError(RuntimeError):
    """PostgreSQL could not be found or started (the message says what to do)."""


@dataclass(frozen=True)
class Binaries:
    bin: Path
    version: int
    origin: str  # "debian" or "pgserver"

    def tool(self, name: str) -> str:
        return str(self.bin / name)


def _version_of(bindir: Path) -> int:
    out = subprocess.run([str(bindir / "pg_ctl"), "--version"], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"(\d+)", out)
    return int(m.group(1)) if m else 0


def find_binaries(prefer: str = "") -> Binaries:
    """The PostgreSQL to run: ``prefer`` "debian" or "pgserver" (or the
    ``TT_PG`` environment variable), else Debian's newest, else pgserver's."""
    prefer = prefer or os.environ.get("TT_PG", "")
    found: list[Binaries] = []
    if prefer != "pgserver":
        for d in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
            if (d / "pg_ctl").exists() and (d / "initdb").exists():
                try:
                    v = _version_of(d)
                except (OSError, subprocess.CalledProcessError):
                    continue
                if v >= MIN_VERSION:
                    found.append(Binaries(d, v, "debian"))
    if prefer != "debian" or not found:
        try:
            import pgserver

            d = Path(pgserver.__file__).parent / "pginstall" / "bin"
            if (d / "pg_ctl").exists():
                found.append(Binaries(d, _version_of(d), "pgserver"))
        except ImportError:
            pass
    if not found:
        raise PgError(
            "no PostgreSQL found: install Debian's (apt-get install postgresql) or the pgserver "
            "wheel (make setup installs it), or give a server with --db postgresql://..."
        )
    return sorted(found, key=lambda b: (b.origin != prefer, b.origin != "debian", -b.version))[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run_as() -> str | None:
    """The system user to run PostgreSQL as (None: ourselves)."""
    if os.geteuid() != 0:
        return None
    import pwd

    for name in ("postgres", "tt-postgres"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    subprocess.run(["useradd", "--system", "--no-create-home", "tt-postgres"], check=True,
                   capture_output=True)
    return "tt-postgres"


class Cluster:
    """One PostgreSQL cluster in ``data`` (made on first start)."""

    def __init__(self, data: Path, *, port: int | None = None, prefer: str = "",
                 fsync: bool = True) -> None:
        self.data = Path(data).resolve()
        self.pgdata = self.data / "pg"
        self.bins = find_binaries(prefer)
        self.user = _run_as()
        self.port = port
        self.fsync = fsync
        self.logfile = self.data / "postgresql.log"
        self.started_here = False

    # --- running commands as the cluster's owner

    def _cmd(self, *argv: str) -> list[str]:
        if self.user is None:
            return list(argv)
        return ["runuser", "-u", self.user, "--", *argv]

    def _chown(self, path: Path) -> None:
        if self.user is None:
            return
        shutil.chown(path, self.user, self.user)

    def _prepare_dirs(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        if self.user is not None:
            # the owner must reach the folder: open the parents for traversal
            p = self.data
            while p != p.parent:
                mode = p.stat().st_mode
                if mode & 0o005 != 0o005:
                    p.chmod(mode | 0o005)
                p = p.parent
            self._chown(self.data)
            if not self.logfile.exists():
                self.logfile.touch()
            self._chown(self.logfile)

    @property
    def url(self) -> str:
        assert self.port is not None
        return f"postgresql://tt@127.0.0.1:{self.port}/tt"

    def initialised(self) -> bool:
        return (self.pgdata / "PG_VERSION").exists()

    def init(self) -> None:
        self._prepare_dirs()
        if self.initialised():
            return
        r = subprocess.run(
            self._cmd(self.bins.tool("initdb"), "-A", "trust", "-U", "tt", "-E", "UTF8",
                      "--locale=C", "-D", str(self.pgdata)),
            capture_output=True, text=True,
        )
        if r.returncode != 0:
            raise PgError(f"initdb in {self.pgdata} failed: {r.stderr.strip() or r.stdout.strip()}")

    def start(self) -> str:
        """Start the server (initialising it first) and make database ``tt``; the URL."""
        self.init()
        if self.port is None:
            saved = self.data / "port"
            self.port = int(saved.read_text()) if saved.exists() else free_port()
        (self.data / "port").write_text(str(self.port))
        if self.running():  # a server (club serve) already runs on this folder: share it
            self.started_here = False
            self._ensure_db()
            return self.url
        self.started_here = True
        opts = (f"-k {self.data} -p {self.port} -c listen_addresses=127.0.0.1 "
                f"-c max_connections=200 -c fsync={'on' if self.fsync else 'off'}")
        if not self.fsync:
            opts += " -c synchronous_commit=off -c full_page_writes=off"
        r = subprocess.run(
            self._cmd(self.bins.tool("pg_ctl"), "-D", str(self.pgdata), "-l", str(self.logfile),
                      "-o", opts, "-w", "-t", "60", "start"),
            capture_output=True, text=True,
        )
        if r.returncode != 0 and not self.running():
            tail = self.logfile.read_text(errors="replace")[-800:] if self.logfile.exists() else ""
            raise PgError(f"PostgreSQL in {self.pgdata} did not start: {r.stdout.strip()} "
                          f"{r.stderr.strip()} {tail}")
        self._ensure_db()
        return self.url

    def _ensure_db(self) -> None:
        import psycopg

        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(f"postgresql://tt@127.0.0.1:{self.port}/postgres",
                                     autocommit=True, connect_timeout=5) as c:
                    if c.execute("SELECT 1 FROM pg_database WHERE datname = 'tt'").fetchone() is None:
                        c.execute("CREATE DATABASE tt")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self, mode: str = "fast") -> None:
        if not self.initialised():
            return
        subprocess.run(
            self._cmd(self.bins.tool("pg_ctl"), "-D", str(self.pgdata), "-m", mode, "-w", "stop"),
            capture_output=True, text=True,
        )

    def restart_immediate(self) -> None:
        """Crash-stop (``-m immediate``: no checkpoint, recovery at start) and start again."""
        self.stop("immediate")
        self.start()

    def running(self) -> bool:
        r = subprocess.run(self._cmd(self.bins.tool("pg_ctl"), "-D", str(self.pgdata), "status"),
                           capture_output=True, text=True)
        return r.returncode == 0
