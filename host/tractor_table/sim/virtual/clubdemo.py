"""``make club-demo`` / ``tractor-table club demo``: a club night on one machine.

An embedded PostgreSQL in a fresh folder (Debian's server when it is installed,
else the ``pgserver`` wheel's), the club server on it, a token, and ``tables``
simulated tables (:class:`~.clubtable.SimTable`: the firmware's table core, the
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
                 pace_s: float = 0.75, hands: int = 2, competition: bool = False,
                 virtual: bool = False) -> None:
        self.tables = tables
        #: the tables play only the competition's rounds, started from the director's pages
        self.competition = competition
        #: the competition's tables are real virtual tables (competition.demo.VirtualTables)
        self.virtual = virtual
        self.comp_tables: Any = None
        self.director_password = ""
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
        from ...club import db, tokens
        from ...club.pg import Cluster

        self.cluster = Cluster(self.folder / "pg")
        self.url = self.cluster.start()
        with db.connect(self.url) as conn:
            db.migrate(conn)
            self.token = tokens.add(conn, "demo")
        return self.url

    def make_server(self) -> Any:
        import uvicorn

        from ...club.app import create_app
        from ...competition import web

        app = create_app(self.url, extra_routes=web.ROUTES, offline_s=10.0)
        config = uvicorn.Config(app, host=self.host, port=self.port, log_level="warning",
                                access_log=False, timeout_graceful_shutdown=3)
        self.server = uvicorn.Server(config)
        return self.server

    def _play(self, n: int) -> None:
        from .clubtable import SimTable, attach

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
        if self.competition:
            from ...competition import demo

            self.director_password = demo.add_director(self.url)
            csv = self.folder / "players.csv"
            csv.write_text(demo.player_csv(2 * self.tables), encoding="utf-8")
            if self.virtual:
                self.comp_tables = demo.VirtualTables(
                    self.folder / "tables", self.base, self.token, self.tables,
                    pace_s=self.pace_s / 3, hands=self.hands).start()
                how = (f"The {self.tables} virtual tables' bots play when a round starts, up to "
                       f"{self.hands} deals a round, no new deal once time is called (draw with a "
                       f"deal limit of {self.hands}, or call time); each host's records and output "
                       f"in {self.folder / 'tables'}")
            else:
                self.comp_tables = demo.Tables(self.folder / "tables", self.base, self.token,
                                               self.tables, pace_s=self.pace_s / 5).start()
                how = "The tables play when a round starts"
            print(f"club demo (competition): director {demo.DIRECTOR}, password "
                  f"{self.director_password} at http://{self.host}:{self.port}/director; "
                  f"the player list to import: {csv}. {how} (create the competition with the "
                  "ladder 2 3 4 … A: the tables climb every level)", flush=True)
            return
        for n in range(1, self.tables + 1):
            t = threading.Thread(target=self._play, args=(n,), name=f"demo-table-{n}", daemon=True)
            t.start()
            self.threads.append(t)

    def stop(self) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(20)
        if self.comp_tables is not None:
            self.comp_tables.stop()
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
