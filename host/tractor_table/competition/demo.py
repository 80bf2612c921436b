"""A competition on the club demo's tables: simulated tables that play only when the
director's round sends them a new match (:class:`~.simevent.CompTable`), a director's login
and a player list to import, so a whole event runs from the director's pages.

``tractor-table club demo --competition`` (``make club-demo``) uses :class:`Tables` in place
of the free-playing tables; the test of the demo drives it through the pages
(tests/competition/test_competition_demo.py).

With ``--virtual`` it uses :class:`VirtualTables`: real virtual tables, each its own
``tractor-table virtual --bots --club-rounds`` process (the firmware on the MicroPython unix
port, its host recording in its own SQLite file and uploading with the demo's token), taking
the round's new match and the time call over the link
(tests/competition/test_competition_virtual.py).
"""

from __future__ import annotations

import os
import random
import secrets
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from .simevent import CompTable

#: the demo's director (the password is made at the start and printed)
DIRECTOR = "td"


def player_csv(pairs: int) -> str:
    """A player list for ``pairs`` pairs (the demo writes it beside its tables)."""
    first = ["Li", "Wang", "Zhang", "Liu", "Chen", "Yang", "Zhao", "Huang", "Zhou", "Wu",
             "Xu", "Sun", "Hu", "Zhu", "Gao", "Lin"]
    given = ["Wei", "Fang", "Min", "Jing", "Lei", "Yan", "Jun", "Hua", "Ping", "Hong"]
    out = ["entry,name,member_no,club"]
    for i in range(pairs):
        for k in range(2):
            n = 2 * i + k
            out.append(f"Pair {i + 1},{first[n % len(first)]} {given[(n * 7 + i) % len(given)]}"
                       f" {n + 1},{1000 + n + 1},Riverside")
    return "\n".join(out) + "\n"


def add_director(url: str, password: str | None = None) -> str:
    """The demo's director login; its password."""
    from ..club import db
    from .web import add_director as add

    password = password or secrets.token_urlsafe(9)
    with db.connect(url) as conn:
        add(conn, DIRECTOR, password)
    return password


class Tables:
    """``n`` simulated tables, each in its own thread at about a person's pace, playing
    each round's match when the club server sends it."""

    def __init__(self, folder: Path, base: str, token: str, n: int = 4, *, pace_s: float = 0.1,
                 hands: int = 1, heartbeat_s: float = 1.0) -> None:
        self.folder, self.base, self.token, self.n = Path(folder), base, token, n
        self.pace_s, self.hands, self.heartbeat_s = pace_s, hands, heartbeat_s
        self.stop_event = threading.Event()
        self.threads: list[threading.Thread] = []
        self.tables: list[CompTable] = []
        self.errors: list[str] = []

    def start(self) -> Tables:
        ready = threading.Barrier(self.n + 1)
        for k in range(1, self.n + 1):
            t = threading.Thread(target=self._run, args=(k, ready), name=f"comp-table-{k}",
                                 daemon=True)
            t.start()
            self.threads.append(t)
        ready.wait(60)
        return self

    def _run(self, k: int, ready: threading.Barrier) -> None:
        rng = random.Random(k)
        d = self.folder / f"table{k}"
        d.mkdir(parents=True, exist_ok=True)
        table = CompTable(d, f"{0xC0A70000 + k:016x}", self.base, self.token,
                          seed=rng.getrandbits(20), hands=self.hands,
                          heartbeat_s=self.heartbeat_s, name=f"demo host {k}")
        self.tables.append(table)
        ready.wait(60)
        try:
            while not self.stop_event.is_set():
                busy = table.pump()
                self.stop_event.wait(rng.uniform(0.5, 1.5) * self.pace_s if busy else 0.2)
        except Exception as exc:  # shown by the demo, never a silent stop
            self.errors.append(f"table {k}: {exc}")
        finally:
            table.close()

    def stop(self) -> None:
        self.stop_event.set()
        for t in self.threads:
            t.join(30)

    def __enter__(self) -> Tables:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def _default_sigint() -> None:
    # In a table's process, before exec: SIGINT at its default. A demo started in
    # the background (nohup, `&` in a script) has SIGINT ignored, which a child
    # inherits across exec; the tables are stopped by SIGINT (stop() below).
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class VirtualTables:
    """``n`` real virtual tables, each a ``tractor-table virtual --bots --club-rounds``
    process recording to ``folder/tableK/records.sqlite`` and uploading to ``base`` with
    ``token``; its output in ``folder/tableK/host.log``. The bots play each round's match
    (``hands`` hands at most, at ``pace_s`` seconds between the table's events) when the
    director starts the round, and no new deal once time is called."""

    def __init__(self, folder: Path, base: str, token: str, n: int = 4, *, pace_s: float = 0.25,
                 hands: int = 1, decks: int = 1, readers: str = "direct",
                 heartbeat_s: float | None = None) -> None:
        self.folder, self.base, self.token, self.n = Path(folder), base, token, n
        self.pace_s, self.hands, self.decks, self.readers = pace_s, hands, decks, readers
        #: the uploaders' heartbeat (TT_CLUB_HEARTBEAT_S; None: the uploader's 10 s): an idle
        #: table is offered the round's new match in the reply to its next heartbeat
        self.heartbeat_s = heartbeat_s
        self.procs: list[subprocess.Popen[bytes]] = []
        self.stopping = False

    def path(self, k: int) -> Path:
        """Table ``k``'s records (1 to n)."""
        return self.folder / f"table{k}" / "records.sqlite"

    def log(self, k: int) -> Path:
        return self.folder / f"table{k}" / "host.log"

    def start(self) -> VirtualTables:
        for k in range(1, self.n + 1):
            self.path(k).parent.mkdir(parents=True, exist_ok=True)
            cmd = [sys.executable, "-m", "tractor_table.cli", "virtual", "--bots", "--club-rounds",
                   "--club", self.base, "--db", str(self.path(k)), "--hands", str(self.hands),
                   "--decks", str(self.decks), "--readers", self.readers,
                   "--pace", f"{self.pace_s:g}", "--seed", str(1000 + k)]
            with open(self.log(k), "wb") as out:
                # a session of its own: the terminal's Ctrl-C reaches the demo, which stops
                # each table in turn (its records closed, its uploads flushed)
                self.procs.append(subprocess.Popen(
                    cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    env={**os.environ, "TT_CLUB_TOKEN": self.token,
                         **({} if self.heartbeat_s is None else {"TT_CLUB_HEARTBEAT_S": f"{self.heartbeat_s:g}"})},
                    start_new_session=True, preexec_fn=_default_sigint))
        return self

    @property
    def errors(self) -> list[str]:
        """A table that stopped by itself, with the end of its output."""
        out = []
        for k, p in enumerate(self.procs, 1):
            rc = p.poll()
            if rc is not None and not (self.stopping and rc in (0, 130)):
                tail = self.log(k).read_text(errors="replace").strip().splitlines()[-3:]
                out.append(f"table {k} stopped (exit status {rc}): {' | '.join(tail)}")
        return out

    def stop(self) -> None:
        self.stopping = True
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in self.procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(10)

    def __enter__(self) -> VirtualTables:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
