"""The club server under a room's load (docs/club.md, "Capacity").

N simulated tables (``tractor_table.sim.virtual.clubtable.SimTable``: the firmware's
table core under CPython, fed the full engine's bots' hands, each table's
events recorded by the real Recorder in its own SQLite file and sent by the
real Uploader thread) against the real server (``tractor-table club serve``,
its own process) on a real PostgreSQL (Debian's when installed, else the
pgserver wheel's; fsync on, as a club night runs it), all on this one machine.

Two paces:
- human: each table's next input after an exponential wait of mean
  ``--pace`` s (4.5 s: a hand of ~130 inputs in ~10 min), for ``--seconds``,
  each table first moved to a random point of its hand;
- flat out: every table's inputs as fast as one driver thread gives them,
  ``--hands`` whole hands per table.

Figures: events per second ingested (the server's own ``ingested_at``), tap ->
browser p50/p99 (a headless chromium holds ``--browsers`` table pages open;
the page's own MutationObserver stamps ``Date.now()`` when a state reaches the
DOM; the tap is stamped by the driver just before the input; one clock), the
server's CPU and PostgreSQL's (from /proc, user+system, as a share of one
core), and PostgreSQL bytes per 1,000 hands (the database's size grown over
the hands the flat-out run completed). After each run every table's event
count on the server equals its host's.

    .venv/bin/python bench/bench_club.py                 # 60 tables each way; writes docs
    .venv/bin/python bench/bench_club.py --tables 60 200 500 --flat-tables 60 --seconds 45 \
        --browsers 8 --procs 4 --workers 2 --hosts-dir /dev/shm   # docs/performance.md's run
    .venv/bin/python bench/bench_club.py --tables 8 --flat-tables 8 --no-write

``run()`` is what the tests call (tests/club/test_club_bench.py: 8 tables in
``make test``, 60 as a slow test).
"""

from __future__ import annotations

import argparse
import heapq
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tractor_table.club import db, tokens
from tractor_table.club.pg import Cluster, free_port
from tractor_table.sim.virtual.clubtable import SimTable, attach

HUMAN_PACE_S = 4.5
SCRIPTS = 12  # distinct bot scripts, shared round the tables (each table its own uid and chain)

OBSERVER_JS = """
window.__tt = [];
var body = document.getElementById('table-body');
function stamp() {
  var t = document.getElementById('trick');
  if (t) { window.__tt.push([Date.now(), parseInt(t.dataset.count, 10)]); }
}
new MutationObserver(stamp).observe(body, {childList: true});
stamp();
return true;
"""


@dataclass
class Result:
    tables: int
    pace: str
    events: int = 0
    hands: int = 0
    seconds: float = 0.0
    ingest_per_s: float = 0.0
    offered_per_s: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    commit_ms: list[float] = field(default_factory=list)  # tap -> the server's commit
    server_cpu: float = 0.0  # share of one core
    pg_cpu: float = 0.0
    driver_cpu: float = 0.0  # the simulated tables' process (recorders, uploaders)
    pg_bytes: int = 0
    checked: int = 0
    load: float = 0.0
    pg: str = ""
    procs: int = 1  # the driver processes the tables were spread over
    server_ticks: int = 0
    workers: int = 1  # the server's processes

    def ms_per_event(self) -> float:
        return self.server_ticks / HZ * 1000 / self.events if self.events else float("nan")

    def pct(self, q: float, xs: list[float] | None = None) -> float:
        xs = sorted(self.latencies_ms if xs is None else xs)
        if not xs:
            return float("nan")
        return xs[min(len(xs) - 1, int(q * len(xs)))]

    def line(self) -> str:
        return (f"{self.tables} tables, {self.pace}: {self.events} events in {self.seconds:.1f} s, "
                f"ingested {self.ingest_per_s:.0f}/s (offered {self.offered_per_s:.0f}/s); "
                f"tap->browser p50 {self.pct(0.5):.0f} ms p99 {self.pct(0.99):.0f} ms "
                f"(n={len(self.latencies_ms)}); tap->commit p50 {self.pct(0.5, self.commit_ms):.0f} ms "
                f"p99 {self.pct(0.99, self.commit_ms):.0f} ms; server CPU {self.server_cpu * 100:.0f} % "
                f"({self.ms_per_event():.1f} ms per event), "
                f"PostgreSQL CPU {self.pg_cpu * 100:.0f} %, tables' process {self.driver_cpu * 100:.0f} % "
                "of a core; "
                + (f"{self.pg_bytes / max(1, self.hands) * 1000 / 1e6:.1f} MB per 1,000 hands; "
                   if self.hands else "")
                + f"{self.procs} driver process(es), {self.workers} server process(es); load {self.load:.1f}")


def _one(c: Any, sql: str, args: tuple[Any, ...] = ()) -> tuple[Any, ...]:
    row = c.execute(sql, args).fetchone()
    assert row is not None, sql
    return tuple(row)


def _ingested(c: Any, pk0: int, taps: dict[tuple[str, int], float], res: Any) -> float:
    """Each event's tap -> commit time into ``res.commit_ms`` (the events after
    ``pk0`` whose tap was stamped); the seconds from the first commit to the last."""
    first, last = _one(c,
        "SELECT extract(epoch FROM min(ingested_at)), extract(epoch FROM max(ingested_at)) "
        "FROM events WHERE event_pk > %s", (pk0,))
    for uid, idx, at in c.execute(
            "SELECT t.uid, e.idx, extract(epoch FROM e.ingested_at) FROM events e "
            "JOIN tables t USING (table_id) WHERE e.event_pk > %s", (pk0,)):
        tap = taps.get((uid, int(idx)))
        if tap is not None:
            res.commit_ms.append((float(at) - tap) * 1000)
    return float(last - first) if first is not None else 0.0


def _rates(res: Any, events: int, made: int, drove: float, span: float) -> None:
    """The run's events, offered and ingested per second."""
    res.events = events
    res.seconds = drove
    res.offered_per_s = made / drove if drove else 0.0
    res.ingest_per_s = events / span if span > 0 else 0.0


# --- CPU from /proc


def _ticks(pid: int, children: bool = False) -> int:
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    n = int(f[11]) + int(f[12])  # utime, stime
    if children:
        n += int(f[13]) + int(f[14])  # reaped children's
    return n


def _live_children_ticks(pid: int) -> int:
    """The CPU of ``pid``'s live children (their own, not their children's)."""
    total = 0
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                f = (p / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(f[1]) == pid:
                total += int(f[11]) + int(f[12])
    return total


def _tree_ticks(pid: int) -> int:
    """``pid``'s CPU and its live children's (the server's worker processes)."""
    return _ticks(pid) + _live_children_ticks(pid)


def _pg_ticks(cluster: Cluster) -> int:
    try:
        post = int((cluster.pgdata / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError):
        return 0
    return _ticks(post, children=True) + _live_children_ticks(post)


HZ = os.sysconf("SC_CLK_TCK")


# --- the browser


class Browsers:
    """Headless chromium with a tab per sampled table page, each stamping updates.

    A browser holds at most 6 HTTP/1.1 connections to one server and each open
    page's event stream keeps one, so a chromium here holds at most
    :data:`TABS` pages; more pages, more chromiums."""

    TABS = 4

    def __init__(self, base: str, labels: list[str], room_page: bool = False) -> None:
        self.drvs: list[Any] = []
        self.tabs: dict[str, tuple[Any, str]] = {}
        try:
            if room_page:  # the projector's room page, open (its tiles pushed) but not timed
                drv = self._chromium()
                self.drvs.append(drv)
                drv.get(f"{base}/")
                self._until_live(drv)
            for k, label in enumerate(labels):
                if k % self.TABS == 0:
                    drv = self._chromium()
                    self.drvs.append(drv)
                else:
                    drv.switch_to.new_window("tab")
                drv.get(f"{base}/t/{label}")
                self._until_live(drv)
                drv.execute_script(OBSERVER_JS)
                self.tabs[label] = (drv, drv.current_window_handle)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _chromium() -> Any:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        opts = webdriver.ChromeOptions()
        opts.binary_location = shutil.which("chromium") or ""
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                  "--disable-backgrounding-occluded-windows", "--window-size=900,700"):
            opts.add_argument(a)
        return webdriver.Chrome(service=Service(shutil.which("chromedriver") or ""), options=opts)

    @staticmethod
    def _until_live(drv: Any, timeout: float = 30.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if drv.execute_script(
                    "var c = document.getElementById('conn'); return c && c.dataset.state") == "live":
                return
            time.sleep(0.05)
        raise RuntimeError("a table page's event stream did not open")

    def stamps(self) -> dict[str, list[tuple[float, int]]]:
        out = {}
        for label, (drv, h) in self.tabs.items():
            drv.switch_to.window(h)
            out[label] = [(t / 1000.0, int(c)) for t, c in drv.execute_script("return window.__tt")]
        return out

    def close(self) -> None:
        for d in self.drvs:
            d.quit()
        self.drvs = []


def browser_available() -> bool:
    return shutil.which("chromium") is not None and shutil.which("chromedriver") is not None


# --- the run


class Room:
    def __init__(self, tables: int, *, fsync: bool = True, folder: Path | None = None,
                 hosts_dir: Path | None = None, workers: int = 1) -> None:
        self.folder = folder or Path(tempfile.mkdtemp(prefix="tt-bench-club-"))
        # the hosts' records files: on this machine's disk by default (every host's
        # fsyncs then share the server's one disk, which a room's laptops do not),
        # or in ``hosts_dir`` (say /dev/shm: each host as if on its own disk)
        self.hosts = Path(tempfile.mkdtemp(prefix="tt-bench-hosts-", dir=hosts_dir)) \
            if hosts_dir else self.folder
        self.cluster = Cluster(self.folder / "pg", fsync=fsync)
        self.url = self.cluster.start()
        with db.connect(self.url) as c:
            db.migrate(c)
            self.token = tokens.add(c, "bench")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = self.folder / "serve.log"
        with self.log.open("wb") as log:  # a file, not a pipe nobody reads
            self.server = subprocess.Popen(
                [sys.executable, "-m", "tractor_table.cli", "club", "serve", "--db", self.url,
                 "--port", str(self.port), "--workers", str(workers)],
                stdout=subprocess.DEVNULL, stderr=log)
        try:
            self._until_up()
        except BaseException:
            self.server.kill()
            self.cluster.stop("fast")
            raise
        self.n = tables
        self.workers = workers
        self.sims: list[SimTable] = []
        self.ups: list[Any] = []

    def _until_up(self) -> None:
        end = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.server.poll() is not None or time.monotonic() > end:
                raise RuntimeError("club serve did not start: " + self.log.read_text()[-2000:])
            time.sleep(0.1)

    def seat(self, hands: int, seed: int, first: int = 0, upload: bool = True) -> None:
        """Make the tables (fresh records files), uploaders attached (``upload``)."""
        from tractor_table.sim.board.flashsoak import record_actions

        scripts = [record_actions(hands, seed * 1000 + k, 2) for k in range(min(self.n, SCRIPTS))]
        for k in range(self.n):
            d = self.hosts / f"r{seed}t{k}"
            d.mkdir()
            sim = SimTable(d, f"{0xBE000000 + seed * 10000 + first + k:016x}", seed=k, hands=0)
            sim.actions, sim.at = scripts[k % len(scripts)], 0
            self.sims.append(sim)
            if upload:
                self.ups.append(attach(sim, self.base, self.token, name=f"bench {k}"))

    def attach_all(self) -> None:
        self.ups = [attach(s, self.base, self.token, name=f"bench {k}") for k, s in enumerate(self.sims)]

    def labels(self) -> dict[str, str]:
        tiles = httpx.get(self.base + "/.json", timeout=30).json()["tables"]
        return {t["uid"]: t["label"] for t in tiles}

    def server_count(self) -> tuple[int, float]:
        with db.connect(self.url) as c:
            n, span = _one(c, "SELECT count(*), COALESCE(extract(epoch FROM max(ingested_at) - "
                           "min(ingested_at)), 0) FROM events")
        return int(n), float(span)

    def drained(self, timeout: float = 300.0) -> None:
        for up in self.ups:
            up.wake()
        want = sum(s.made for s in self.sims)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.server_count()[0] >= want:
                return
            time.sleep(0.2)
        raise RuntimeError(f"not every event reached the server within {timeout} s")

    def check(self) -> int:
        """Every table's current events on the server: as many as its host's, same head."""
        with db.connect(self.url) as c:
            heads = {u: (int(n), int(h)) for u, n, h in c.execute(
                "SELECT t.uid, th.count, th.head FROM tables t JOIN table_heads th USING (table_id)")}
        for s in self.sims:
            assert heads.get(s.uid) == (s.count, s.head), f"table {s.uid}: server {heads.get(s.uid)}, host {(s.count, s.head)}"
        return len(self.sims)

    def end_tables(self) -> None:
        stops = [threading.Thread(target=up.stop, kwargs={"flush_s": 2.0}) for up in self.ups]
        for t in stops:  # all at once: hundreds of uploaders one by one take minutes
            t.start()
        for t in stops:
            t.join()
        for s in self.sims:
            s.close()
        self.sims, self.ups = [], []

    def close(self) -> None:
        self.end_tables()
        self.server.terminate()
        try:
            self.server.wait(10)
        except subprocess.TimeoutExpired:
            self.server.kill()
        self.cluster.stop("fast")
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.hosts, ignore_errors=True)


def drive(room: Room, pace_s: float, seconds: float, taps: dict[tuple[str, int], float],
          rng: random.Random, inputs: int = 0) -> int:
    """The tables' inputs: at a person's pace (``pace_s`` > 0, for ``seconds``) or flat
    out (every table to its script's end, or ``inputs`` inputs each). Each event's tap
    time kept; events made."""
    return drive_sims(room.sims, pace_s, seconds, taps, rng, inputs)


def drive_sims(sims: list[SimTable], pace_s: float, seconds: float,
               taps: dict[tuple[str, int], float], rng: random.Random, inputs: int = 0) -> int:
    """:func:`drive` on the tables ``sims``."""
    made = 0
    if pace_s > 0:
        now = time.monotonic()
        end = now + seconds
        heap = [(now + rng.uniform(0, pace_s), k) for k in range(len(sims))]
        heapq.heapify(heap)
        while heap:
            at, k = heapq.heappop(heap)
            if at > end:
                break
            d = at - time.monotonic()
            if d > 0:
                time.sleep(d)
            s = sims[k]
            if s.done:
                continue
            t = time.time()
            before = s.count
            s.step()
            for i in range(before, s.count):
                taps[(s.uid, i)] = t
            made += s.count - before
            heapq.heappush(heap, (at + rng.expovariate(1 / pace_s), k))
        return made
    live = list(range(len(sims)))
    rounds = 0
    while live and (not inputs or rounds < inputs):
        rounds += 1
        nxt = []
        for k in live:
            s = sims[k]
            t = time.time()
            before = s.count
            s.step()
            for i in range(before, s.count):
                taps[(s.uid, i)] = t
            made += s.count - before
            if not s.done:
                nxt.append(k)
        live = nxt
    return made


# --- the tables spread over processes (a room's tables are each their own laptop)


def _drive_part(pipe: Any, base: str, token: str, hosts: str, ks: list[int], hands: int,
                seed: int, pace_s: float) -> None:
    """One driver process: the tables ``ks`` of the room (seated as :meth:`Room.seat`
    does, each moved to a random point of its hand), driven at ``pace_s`` when told.
    Answers each request on ``pipe``: seat -> events made; ("drive", start, seconds)
    -> (events made, seconds driven, taps); check -> [(uid, count, head)]; close."""
    from tractor_table.sim.board.flashsoak import record_actions

    rng = random.Random(seed * 7919 + ks[0])
    scripts: dict[int, bytes] = {}
    sims = []
    for k in ks:
        sk = k % SCRIPTS
        if sk not in scripts:
            scripts[sk] = record_actions(hands, seed * 1000 + sk, 2)
        d = Path(hosts) / f"r{seed}t{k}"
        d.mkdir()
        sim = SimTable(d, f"{0xBE000000 + seed * 10000 + k:016x}", seed=k, hands=0)
        sim.actions, sim.at = scripts[sk], 0
        sims.append(sim)
    ups = [attach(s, base, token, name=f"bench {k}") for k, s in zip(ks, sims, strict=True)]
    while True:
        cmd = pipe.recv()
        if cmd[0] == "seat":
            for s in sims:
                s.step_event()
                for _ in range(rng.randrange(130)):  # a room is at every point of a hand at once
                    s.step()
            pipe.send(sum(s.made for s in sims))
        elif cmd[0] == "drive":
            _, start, seconds = cmd
            taps: dict[tuple[str, int], float] = {}
            time.sleep(max(0.0, start - time.time()))
            t0 = time.monotonic()
            made = drive_sims(sims, pace_s, seconds, taps, rng)
            pipe.send((made, time.monotonic() - t0, sum(s.made for s in sims), taps))
        elif cmd[0] == "wake":
            for up in ups:
                up.wake()
            pipe.send(True)
        elif cmd[0] == "check":
            pipe.send([(s.uid, s.count, s.head) for s in sims])
        else:
            stops = [threading.Thread(target=up.stop, kwargs={"flush_s": 2.0}) for up in ups]
            for t in stops:
                t.start()
            for t in stops:
                t.join()
            for s in sims:
                s.close()
            pipe.send(True)
            return


class Spread:
    """The room's tables driven by ``procs`` processes (tables k, k + procs, ...), so the
    bench's own driver is not one interpreter's GIL for hundreds of tables."""

    def __init__(self, room: Room, procs: int, hands: int, seed: int, pace_s: float) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.room = room
        self.pipes: list[Any] = []
        self.procs: list[Any] = []
        for w in range(procs):
            ks = list(range(w, room.n, procs))
            if not ks:
                continue
            a, b = ctx.Pipe()
            p = ctx.Process(target=_drive_part, args=(b, room.base, room.token, str(room.hosts), ks,
                                                      hands, seed, pace_s), daemon=True)
            p.start()
            self.pipes.append(a)
            self.procs.append(p)
        self.made = 0

    def ask(self, *cmd: Any) -> list[Any]:
        for p in self.pipes:
            p.send(cmd)
        return [p.recv() for p in self.pipes]

    def ticks(self) -> int:
        return sum(_ticks(p.pid) for p in self.procs)

    def drained(self, timeout: float = 600.0) -> None:
        self.ask("wake")
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.room.server_count()[0] >= self.made:
                return
            time.sleep(0.2)
        raise RuntimeError(f"not every event reached the server within {timeout} s")

    def check(self) -> int:
        with db.connect(self.room.url) as c:
            heads = {u: (int(n), int(h)) for u, n, h in c.execute(
                "SELECT t.uid, th.count, th.head FROM tables t JOIN table_heads th USING (table_id)")}
        n = 0
        for part in self.ask("check"):
            for uid, count, head in part:
                assert heads.get(uid) == (count, head), f"table {uid}: server {heads.get(uid)}, host {(count, head)}"
                n += 1
        return n

    def close(self) -> None:
        if self.pipes:
            self.ask("close")
        for p in self.procs:
            p.join(30)
        self.pipes, self.procs = [], []


def run_spread(tables: int, *, procs: int, pace_s: float, seconds: float, browsers: int = 8,
               seed: int = 1, fsync: bool = True, hosts_dir: Path | None = None,
               room_page: bool = True, workers: int = 1) -> Result:
    """A human-pace run with the tables spread over ``procs`` driver processes; a
    room page held open beside the sampled table pages (``room_page``), as a
    projector would."""
    room = Room(tables, fsync=fsync, hosts_dir=hosts_dir, workers=workers)
    fleet = Spread(room, procs, int(seconds / pace_s / 100) + 2, seed, pace_s)
    br = None
    try:
        fleet.made = sum(fleet.ask("seat"))
        fleet.drained()
        labels = room.labels()
        uids = sorted(labels)
        sample = [labels[u] for u in uids[:: max(1, len(uids) // max(1, browsers))]][:browsers]
        br = Browsers(room.base, sample, room_page=room_page) if browsers and browser_available() else None
        res = Result(tables, "human", pg=f"PostgreSQL {room.cluster.bins.version} "
                     f"({room.cluster.bins.origin}, fsync {'on' if fsync else 'off'})")
        with db.connect(room.url) as c:
            pk0 = int(_one(c, "SELECT COALESCE(max(event_pk), 0) FROM events")[0])
        n0 = room.server_count()[0]
        cpu0, pg0, me0, w0 = _tree_ticks(room.server.pid), _pg_ticks(room.cluster), fleet.ticks(), time.monotonic()
        load0 = os.getloadavg()[0]
        got = fleet.ask("drive", time.time() + 0.5, seconds)
        drove = max(g[1] for g in got)
        made = sum(g[0] for g in got)
        fleet.made = sum(g[2] for g in got)
        taps: dict[tuple[str, int], float] = {}
        for g in got:
            taps.update(g[3])
        fleet.drained()
        wall = time.monotonic() - w0
        cpu1, pg1, me1 = _tree_ticks(room.server.pid), _pg_ticks(room.cluster), fleet.ticks()
        res.driver_cpu = (me1 - me0) / HZ / wall
        res.server_cpu = (cpu1 - cpu0) / HZ / wall
        res.server_ticks = cpu1 - cpu0
        res.pg_cpu = (pg1 - pg0) / HZ / wall
        with db.connect(room.url) as c:
            span = _ingested(c, pk0, taps, res)
        _rates(res, room.server_count()[0] - n0, made, drove, span)
        if br is not None:
            time.sleep(1.0)  # the pages' last pushes
            res.latencies_ms = latencies(br.stamps(), labels, taps)
        res.checked = fleet.check()
        res.load = (load0 + os.getloadavg()[0]) / 2
        res.procs = procs
        res.workers = workers
        return res
    finally:
        if br is not None:
            br.close()
        fleet.close()
        room.sims = []
        room.close()


def latencies(stamps: dict[str, list[tuple[float, int]]], labels: dict[str, str],
              taps: dict[tuple[str, int], float]) -> list[float]:
    """Per event of a sampled table: when its page first showed a state holding it, less its tap."""
    by_label = {lab: uid for uid, lab in labels.items()}
    out = []
    for label, seen in stamps.items():
        uid = by_label[label]
        shown = -1
        for t, count in seen:
            for i in range(shown + 1, count):
                tap = taps.get((uid, i))
                if tap is not None:
                    out.append((t - tap) * 1000)
            shown = max(shown, count - 1)
    return out


def run(tables: int, *, pace_s: float, seconds: float = 60.0, hands: int = 1, browsers: int = 4,
        seed: int = 1, room: Room | None = None, fsync: bool = True,
        inputs: int = 0, hosts_dir: Path | None = None, workers: int = 1) -> tuple[Result, Room]:
    """One run on ``room`` (made if None; the caller closes it)."""
    if room is None:
        room = Room(tables, fsync=fsync, hosts_dir=hosts_dir, workers=workers)
        try:
            return _run(room, tables, pace_s, seconds, hands, browsers, seed, fsync, inputs)
        except BaseException:
            room.close()
            raise
    return _run(room, tables, pace_s, seconds, hands, browsers, seed, fsync, inputs)


def _run(room: Room, tables: int, pace_s: float, seconds: float, hands: int, browsers: int,
         seed: int, fsync: bool, inputs: int) -> tuple[Result, Room]:
    # human pace: scripts longer than the run (a hand is ~130 inputs)
    room.seat(hands if pace_s == 0 else int(seconds / pace_s / 100) + 2, seed)
    rng = random.Random(seed)
    # each table's first input, so the pages exist for the browser
    taps: dict[tuple[str, int], float] = {}
    for s in room.sims:
        s.step_event()
        if pace_s > 0:  # a room's tables are at every point of a hand, not all at its start
            for _ in range(rng.randrange(130)):
                s.step()
    room.drained()
    labels = room.labels()
    sample = [labels[s.uid] for s in room.sims[:: max(1, len(room.sims) // max(1, browsers))]][:browsers]
    br = Browsers(room.base, sample) if browsers and browser_available() else None
    res = Result(tables, "human" if pace_s else "flat out", workers=room.workers, pg=f"PostgreSQL {room.cluster.bins.version} "
                 f"({room.cluster.bins.origin}, fsync {'on' if fsync else 'off'})")
    try:
        with db.connect(room.url) as c:
            size0 = int(_one(c, "SELECT pg_database_size(current_database())")[0])
            hands0 = int(_one(c, "SELECT count(*) FROM events WHERE kind = 12")[0])
        n0 = room.server_count()[0]
        with db.connect(room.url) as c:
            pk0 = int(_one(c, "SELECT COALESCE(max(event_pk), 0) FROM events")[0])
        cpu0, pg0, w0 = _tree_ticks(room.server.pid), _pg_ticks(room.cluster), time.monotonic()
        me0 = _ticks(os.getpid())
        load0 = os.getloadavg()[0]
        made = drive(room, pace_s, seconds, taps, rng, inputs)
        drove = time.monotonic() - w0
        room.drained()
        wall = time.monotonic() - w0
        cpu1, pg1 = _tree_ticks(room.server.pid), _pg_ticks(room.cluster)
        res.driver_cpu = (_ticks(os.getpid()) - me0) / HZ / wall
        with db.connect(room.url) as c:
            c.execute("CHECKPOINT")
            size1 = int(_one(c, "SELECT pg_database_size(current_database())")[0])
            hands1 = int(_one(c, "SELECT count(*) FROM events WHERE kind = 12")[0])
            span = _ingested(c, pk0, taps, res)
        _rates(res, room.server_count()[0] - n0, made, drove, span)
        res.server_cpu = (cpu1 - cpu0) / HZ / wall
        res.server_ticks = cpu1 - cpu0
        res.pg_cpu = (pg1 - pg0) / HZ / wall
        res.hands = hands1 - hands0 if pace_s == 0 else 0
        res.pg_bytes = size1 - size0
        if br is not None:
            time.sleep(1.0)  # the pages' last pushes
            res.latencies_ms = latencies(br.stamps(), labels, taps)
        res.checked = room.check()
        res.load = (load0 + os.getloadavg()[0]) / 2
    finally:
        if br is not None:
            br.close()
    return res, room


def backlog(tables: int, *, hands: int = 1, seed: int = 7, fsync: bool = True, workers: int = 1) -> Result:
    """The server's own ceiling: every table plays its hands offline (no uploader), then
    all the uploaders start at once and drain their backlogs (a room whose network
    came back); events/s is what the server ingested, server-side."""
    room = Room(tables, fsync=fsync, workers=workers)
    try:
        room.seat(hands, seed, upload=False)
        drive(room, 0.0, 0.0, {}, random.Random(seed))
        res = Result(tables, "backlog drain", workers=room.workers, pg=f"PostgreSQL {room.cluster.bins.version} "
                     f"({room.cluster.bins.origin}, fsync {'on' if fsync else 'off'})")
        with db.connect(room.url) as c:
            size0 = int(_one(c, "SELECT pg_database_size(current_database())")[0])
        cpu0, pg0, w0 = _tree_ticks(room.server.pid), _pg_ticks(room.cluster), time.monotonic()
        load0 = os.getloadavg()[0]
        room.attach_all()
        room.drained()
        wall = time.monotonic() - w0
        cpu1, pg1 = _tree_ticks(room.server.pid), _pg_ticks(room.cluster)
        res.events, span = room.server_count()
        res.seconds = wall
        res.ingest_per_s = res.events / span if span > 0 else 0.0
        res.offered_per_s = float("nan")
        res.server_cpu = (cpu1 - cpu0) / HZ / wall
        res.server_ticks = cpu1 - cpu0
        res.pg_cpu = (pg1 - pg0) / HZ / wall
        with db.connect(room.url) as c:
            c.execute("CHECKPOINT")
            res.pg_bytes = int(_one(c, "SELECT pg_database_size(current_database())")[0]) - size0
            res.hands = int(_one(c, "SELECT count(*) FROM events WHERE kind = 12")[0])
        res.checked = room.check()
        res.load = (load0 + os.getloadavg()[0]) / 2
        return res
    finally:
        room.close()


def section(results: list[Result], cmd: str, hosts_dir: Path | None = None) -> str:
    rows = []
    for r in results:
        per = f"{r.pg_bytes / r.hands * 1000 / 1e6:.1f}" if r.hands else "-"
        off = f"{r.offered_per_s:.0f}" if r.offered_per_s == r.offered_per_s else "-"
        lat = (f"{r.pct(0.5):.0f} / {r.pct(0.99):.0f} (n={len(r.latencies_ms)})"
               if r.latencies_ms else "-")
        com = (f"{r.pct(0.5, r.commit_ms):.0f} / {r.pct(0.99, r.commit_ms):.0f}" if r.commit_ms else "-")
        drv = f" / {r.driver_cpu * 100:.0f} %" if r.driver_cpu else ""
        rows.append(f"| {r.tables} | {r.pace} | {r.procs} / {r.workers} | {r.events:,} | {off} | "
                    f"{r.ingest_per_s:.0f} | {lat} | {com} | "
                    f"{r.server_cpu * 100:.0f} % / {r.pg_cpu * 100:.0f} %{drv} | {r.ms_per_event():.1f} | "
                    f"{per} | {r.load:.1f} |")
    pg = results[0].pg if results else ""
    return f"""## Club server: a room's tables on one PostgreSQL

`{cmd}` ({machine_line()}; {os.cpu_count()} cores shared with other work; {pg}).
Simulated tables (the firmware's table core, the bots' hands, the real recorder
and uploader, one thread each), the server (`tractor-table club serve`) and
PostgreSQL all on this machine: the tables' recording and uploading compete
with the server for the same 2 cores, which a club's laptops would not. Human
pace: a table's next input after an exponential wait of mean {HUMAN_PACE_S} s
(a hand of ~130 inputs in ~10 min), each table first moved to a random point of
its hand (a room is at every point of a hand at once); with `--procs K` the
tables are spread over K driver processes and a room page is held open too (as
on a projector: every table's tile pushed to it), with `--workers N` the server
runs N processes (`club serve --workers N`); "procs" below is K / N. Flat out
(one driver process): every table's inputs back to back from one thread (its
rate is the driver's, recording each event in SQLite with synchronous = FULL).
Backlog drain: every table plays offline first, then all uploaders start at
once (a room whose network came back): the server's own ceiling. Tap ->
browser: a headless chromium holds sampled table pages open and stamps when a
state reaches the DOM (its own MutationObserver, `Date.now()`), less the
driver's stamp just before the input; at a human pace a sampled page sees a
few events a minute, so its p99 is about the largest of n. Tap -> server: the
server transaction's time (`ingested_at`) less the same stamp, for every
event. CPU: user+system from /proc over the run, as a share of one core
(server, all its processes; PostgreSQL; the tables' driver processes), and the
server's CPU time over the run per event ingested (its heartbeats, pages and
streams included). Load:
the 1-minute load average, mean of the run's start and end. Bytes: the
database's growth over the hands the flat-out run completed. After every run
each table's count and head on the server equal its host's.
The hosts' records files (SQLite, synchronous = FULL) are {"in " + str(hosts_dir) + " (each host as if on its own disk)" if hosts_dir else "on the server's own disk: every host's fsyncs share it with PostgreSQL's, which a room's laptops would not"}.

| tables | pace | procs | events | offered/s | ingested/s | tap->browser p50 / p99 ms | tap->server p50 / p99 ms | CPU server / PostgreSQL / tables | server CPU ms per event | MB per 1,000 hands | load |
|---|---|---|---|---|---|---|---|---|---|---|---|
""" + "\n".join(rows) + "\n"


def machine_line() -> str:
    from tractor_table.perfdoc import machine_line as m

    return m()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[60], help="room sizes at a human pace (default 60)")
    ap.add_argument("--flat-tables", type=int, nargs="+", default=[60],
                    help="room sizes flat out and draining a backlog (default 60)")
    ap.add_argument("--pace", type=float, default=HUMAN_PACE_S, help="human pace: mean s between a table's inputs")
    ap.add_argument("--seconds", type=float, default=60.0, help="human pace: how long")
    ap.add_argument("--hands", type=int, default=1, help="flat out: hands per table")
    ap.add_argument("--browsers", type=int, default=8, help="table pages timed in chromium")
    ap.add_argument("--only", choices=["human", "flat", "backlog"], help="one pace only")
    ap.add_argument("--no-fsync", action="store_true", help="PostgreSQL fsync off (not a club night)")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs/performance.md")
    ap.add_argument("--procs", type=int, default=1,
                    help="human pace: spread the tables over this many driver processes, and hold "
                    "the room page open too (default 1: every table in this process)")
    ap.add_argument("--workers", type=int, default=1, help="the server's processes (club serve --workers)")
    ap.add_argument("--hosts-dir", type=Path, help="human and flat: the hosts' records files here "
                    "(/dev/shm: each host as if on its own disk; default: beside the database)")
    a = ap.parse_args()
    results = []
    if a.only in (None, "human"):
        for n in a.tables:
            if a.procs > 1:
                r = run_spread(n, procs=a.procs, pace_s=a.pace, seconds=a.seconds, browsers=a.browsers,
                               fsync=not a.no_fsync, hosts_dir=a.hosts_dir, workers=a.workers)
            else:
                r, room = run(n, pace_s=a.pace, seconds=a.seconds, browsers=a.browsers,
                              fsync=not a.no_fsync, hosts_dir=a.hosts_dir, workers=a.workers)
                room.close()
            print(r.line(), flush=True)
            results.append(r)
    for n in a.flat_tables:
        if a.only in (None, "flat"):
            r, room = run(n, pace_s=0.0, hands=a.hands, browsers=a.browsers, fsync=not a.no_fsync,
                          hosts_dir=a.hosts_dir, workers=a.workers)
            room.close()
            print(r.line(), flush=True)
            results.append(r)
        if a.only in (None, "backlog"):
            r = backlog(n, hands=a.hands, fsync=not a.no_fsync, workers=a.workers)
            print(r.line(), flush=True)
            results.append(r)
    if not a.no_write:
        from tractor_table.perfdoc import write_section

        cmd = ".venv/bin/python bench/bench_club.py " + " ".join(sys.argv[1:])
        write_section("club", section(results, cmd.strip(), a.hosts_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
