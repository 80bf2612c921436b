"""``make club-demo`` / ``tractor-table club demo``: a club night on one machine.

An embedded PostgreSQL in a fresh folder (Debian's server when it is installed,
else the ``pgserver`` wheel's), the club server on it, a token, and ``tables``
simulated tables (:class:`~.simtable.SimTable`: the firmware's table core, the
bots' hands, the real recorder in its own SQLite file and the real uploader)
playing at about a person's pace, hand after hand, until stopped. Everything
it made is removed when it stops.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


class Demo:
    def __init__(self, *, tables: int = 4, host: str = "127.0.0.1", port: int = 8080,
                 pace_s: float = 0.75, hands: int = 2) -> None:
        self.tables = tables
        self.host, self.port = host, port
        self.pace_s = pace_s
        self.hands = hands
        self.folder = Path(tempfile.mkdtemp(prefix="tt-club-demo-"))
        self.stop_event = threading.Event()
        self.threads: list[threading.Thread] = []
        self.cluster: Any = None
        self.url = ""
        self.token = ""
        self.server: Any = None
        self.events = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start_database(self) -> str:
        """The embedded PostgreSQL started, migrated, a token made: its URL."""
        from . import db, tokens
        from .pg import Cluster

        self.cluster = Cluster(self.folder / "pg")
        self.url = self.cluster.start()
        with db.connect(self.url) as conn:
            db.migrate(conn)
            self.token = tokens.add(conn, "demo")
        return self.url

    def make_server(self) -> Any:
        import uvicorn

        from ..competition import web
        from .app import create_app

        app = create_app(self.url, extra_routes=web.ROUTES, offline_s=10.0)
        config = uvicorn.Config(app, host=self.host, port=self.port, log_level="warning",
                                access_log=False, timeout_graceful_shutdown=3)
        self.server = uvicorn.Server(config)
        return self.server

    def _play(self, n: int) -> None:
        from .simtable import SimTable, attach

        rng = random.Random(n)
        d = self.folder / f"table{n}"
        d.mkdir()
        sim = SimTable(d, f"{0xDE000000 + n:016x}", seed=rng.getrandbits(20), hands=self.hands)
        up = attach(sim, self.base, self.token, heartbeat_s=2.0, name=f"demo host {n}")
        try:
            while not self.stop_event.is_set():
                if sim.done:  # another match at the same table
                    sim.more(self.hands, rng.getrandbits(20))
                self.events += len(sim.step())
                self.stop_event.wait(rng.uniform(0.4, 1.6) * self.pace_s)
        finally:
            up.stop(flush_s=1.0)
            sim.close()

    def start_tables(self) -> None:
        for n in range(1, self.tables + 1):
            t = threading.Thread(target=self._play, args=(n,), name=f"demo-table-{n}", daemon=True)
            t.start()
            self.threads.append(t)

    def stop(self) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(20)
        if self.cluster is not None:
            self.cluster.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def run(self, seconds: float = 0.0) -> None:
        """Serve (in this thread, Ctrl-C stops) with the tables playing beside it."""
        server = self.make_server()

        def players() -> None:
            while not server.started and not self.stop_event.is_set():
                time.sleep(0.05)
            self.start_tables()
            print(f"club demo: {self.tables} tables playing; open http://{self.host}:{self.port}/ "
                  "(Ctrl-C stops)", flush=True)
            if seconds:
                self.stop_event.wait(seconds)
                server.should_exit = True

        threading.Thread(target=players, daemon=True).start()
        try:
            server.run()
        finally:
            self.stop()
