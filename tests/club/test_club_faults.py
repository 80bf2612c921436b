"""Faults on loopback, bounded in time, against the real server process, the real
uploader and the firmware's table core (SimTable). After each: every table's
events on the server equal its host's, the chain verifies, no duplicate, no loss
(tests/club/clubcheck.py)."""

from __future__ import annotations

import json
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from clubcheck import assert_same
from clubproc import ServerProc
from faultproxy import FaultProxy
from tractor_table.club import db
from tractor_table.sim.virtual.clubtable import SimTable, attach


def wait(cond: Any, what: str, timeout: float = 60.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


class Room:
    """N tables, each host with its own proxy to the server (to cut it alone)."""

    def __init__(self, tmp: Path, server: ServerProc, token: str, n: int, *, hands: int = 1,
                 seed: int = 0, skew_ms: list[int] | None = None) -> None:
        self.server, self.token = server, token
        self.sims: list[SimTable] = []
        self.proxies: list[FaultProxy] = []
        self.ups: list[Any] = []
        for k in range(n):
            d = tmp / f"t{k}"
            d.mkdir()
            sim = SimTable(d, f"{0xC0000000 + seed * 1000 + k:016x}", seed=seed * 100 + k, hands=hands)
            proxy = FaultProxy(server.port)
            skew = skew_ms[k % len(skew_ms)] if skew_ms else 0
            if skew:  # the host's clock off by skew: its records and its hello say so
                sim.store.clock = _skewed(skew)
            up = attach(sim, proxy.base, token, heartbeat_s=0.5,
                        clock_ms=lambda s=skew: int(time.time() * 1000) + s)
            self.sims.append(sim)
            self.proxies.append(proxy)
            self.ups.append(up)

    def play(self, steps: int | None = None, rng: random.Random | None = None) -> None:
        """Interleave the tables' inputs (all to the end, or ``steps`` inputs each)."""
        rng = rng or random.Random(1)
        left = {i: steps for i in range(len(self.sims))}
        while True:
            live = [i for i, s in enumerate(self.sims) if not s.done and (left[i] is None or left[i] > 0)]
            if not live:
                return
            i = rng.choice(live)
            self.sims[i].step()
            if left[i] is not None:
                left[i] -= 1

    def settle(self, timeout: float = 90.0) -> None:
        for up in self.ups:
            up.wake()
        wait(lambda: all(_pending(s.path) == 0 for s in self.sims), "every journal uploaded", timeout)

    def check(self) -> int:
        return sum(assert_same(s.path, self.server.db) for s in self.sims)

    def close(self) -> None:
        for up in self.ups:
            up.stop(flush_s=0)
        for s in self.sims:
            s.store.close()
        for p in self.proxies:
            p.close()


def _skewed(ms: int) -> Any:
    import datetime as dt

    return lambda: (dt.datetime.now(dt.UTC) + dt.timedelta(milliseconds=ms)).isoformat(
        timespec="milliseconds")


def _pending(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        top = con.execute("SELECT COALESCE(max(seq), 0) FROM journal").fetchone()[0]
        cur = con.execute("SELECT COALESCE(max(acked_seq), 0) FROM upload_cursor").fetchone()[0]
        return int(top - cur)
    finally:
        con.close()


@pytest.fixture
def server(club_token: tuple[str, str]) -> Any:
    s = ServerProc(club_token[0], offline_s=2.0).start()
    try:
        yield s, club_token[1]
    finally:
        s.stop()


def test_replies_dropped_after_commit_and_batches_duplicated_and_reordered(
        server: Any, tmp_path: Path) -> None:
    srv, token = server
    room = Room(tmp_path, srv, token, 4, seed=1)
    try:
        for p in room.proxies:
            p.drop_replies(3)  # committed on the server, the reply never arrives
        room.play()
        room.settle()
        assert sum(p.dropped for p in room.proxies) >= 4
        n = room.check()
        assert n > 4 * 50
    finally:
        room.close()
    # a host's journal sent again by hand: duplicated, out of order, then in order
    path = room.sims[0].path
    con = sqlite3.connect(path)
    host = con.execute("SELECT host_uuid FROM club_host").fetchone()[0]
    rows = con.execute("SELECT seq, kind, payload FROM journal ORDER BY seq").fetchall()
    con.close()
    items = [{**json.loads(p), "seq": s, "kind": k} for s, k, p in rows]
    batches = [items[i:i + 25] for i in range(0, len(items), 25)]
    auth = {"Authorization": f"Bearer {token}"}
    order = list(range(len(batches))) * 2
    random.Random(5).shuffle(order)
    with httpx.Client(base_url=srv.base, headers=auth) as c:
        for b in order:
            after = batches[b][0]["seq"] - 1
            r = c.post("/api/v1/batch", json={"host": host, "after": after, "items": batches[b]})
            assert r.status_code == 200 and r.json()["applied"] == 0, r.text
        # a host never uploaded before, its batches duplicated and shuffled: an
        # out-of-order one is a gap (409, nothing applied), a duplicate applies
        # nothing, and each item is applied exactly once whatever the order
        (tmp_path / "fresh").mkdir()
        fresh = SimTable(tmp_path / "fresh", "00000000c0de0f01", seed=21, hands=1)
        while not fresh.done:
            fresh.step()
        fresh.close()
        fcon = sqlite3.connect(fresh.path)
        fhost = fcon.execute("SELECT host_uuid FROM club_host").fetchone()[0]
        frows = fcon.execute("SELECT seq, kind, payload FROM journal ORDER BY seq").fetchall()
        fcon.close()
        fitems = [{**json.loads(p), "seq": s, "kind": k} for s, k, p in frows]
        fb = [fitems[i:i + 25] for i in range(0, len(fitems), 25)]
        forder = list(range(len(fb))) * 2
        random.Random(6).shuffle(forder)
        applied, statuses = 0, set()
        for _round in range(len(fb) + 1):
            for b in forder:
                r = c.post("/api/v1/batch", json={"host": fhost, "after": fb[b][0]["seq"] - 1,
                                                  "items": fb[b]})
                assert r.status_code in (200, 409), r.text
                statuses.add((r.status_code, r.json().get("applied")))
                applied += r.json().get("applied", 0)
            if r.json()["acked"] == fitems[-1]["seq"] or c.post(
                    "/api/v1/hello", json={"host": fhost, "now_ms": int(time.time() * 1000)}
                    ).json()["acked"] == fitems[-1]["seq"]:
                break
        assert applied == len(fitems), (applied, len(fitems))
        assert (409, None) in statuses and (200, 0) in statuses
        assert_same(fresh.path, srv.db)
        # a fresh host uuid for the same items: out of order is a gap, asked for again
        other = "00000000-0000-4000-8000-000000000001"
        r = c.post("/api/v1/batch", json={"host": other, "after": batches[1][0]["seq"] - 1,
                                          "items": batches[1]})
        assert r.status_code == 409 and r.json()["acked"] == 0
    assert_same(path, srv.db)


def test_an_uploader_killed_mid_batch_is_restarted_from_its_file(
        server: Any, tmp_path: Path) -> None:
    srv, token = server
    sim = SimTable(tmp_path, "00000000c0ffee01", seed=11, hands=3)
    while not sim.done:
        sim.step()
    sim.store.close()
    proxy = FaultProxy(srv.port)
    proxy.delay_s = 0.05  # slow enough to be killed in the middle
    cmd = [sys.executable, "-m", "tractor_table.cli", "club", "upload", "--db", str(sim.path),
           "--club", proxy.base, "--token", token]
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with db.connect(srv.db) as c:
            wait(lambda: c.execute("SELECT count(*) FROM events").fetchone()[0] > 0, "a first batch")
        p.send_signal(signal.SIGKILL)
        p.wait(10)
        with db.connect(srv.db) as c:
            partial = c.execute("SELECT count(*) FROM events").fetchone()[0]
        con = sqlite3.connect(sim.path)
        total = con.execute("SELECT count(*) FROM events").fetchone()[0]
        con.close()
        assert 0 < partial < total
        proxy.delay_s = 0
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        assert_same(sim.path, srv.db)
    finally:
        proxy.close()


def test_the_server_killed_and_postgresql_restarted_immediately(
        server: Any, pg_cluster: Any, tmp_path: Path) -> None:
    srv, token = server
    room = Room(tmp_path, srv, token, 4, seed=2)
    try:
        room.play(steps=60)
        srv.kill()  # kill -9, mid-stream
        pg_cluster.restart_immediate()  # no checkpoint: recovery from the WAL
        room.play(steps=40)  # the hosts record on meanwhile
        srv.start()
        room.play()
        room.settle()
        room.check()
    finally:
        room.close()


def test_a_third_cut_off_clocks_skewed_and_a_slow_browser(server: Any, tmp_path: Path) -> None:
    srv, token = server
    n = 8
    room = Room(tmp_path, srv, token, n, seed=3, skew_ms=[0, 300_000, -300_000])
    slow: list[socket.socket] = []
    try:
        room.play(steps=10)
        room.settle()
        labels = {t["uid"]: t["label"] for t in httpx.get(srv.base + "/.json").json()["tables"]}
        # browsers that open the room's stream and the very table's stream the
        # reading browser below watches, with a small receive buffer, and never read
        for path in ["/live/room"] * 4 + [f"/live/t/{labels[room.sims[1].uid]}"] * 8:
            c = socket.socket()
            c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            c.connect(("127.0.0.1", srv.port))
            c.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            slow.append(c)
        cut = list(range(0, n, 3))
        for i in cut:
            room.proxies[i].cut()
        room.play(steps=40)
        # the cut tables are shown offline, with how much their hosts hold back
        def offline() -> bool:
            tiles = {t["uid"]: t for t in httpx.get(srv.base + "/.json").json()["tables"]}
            return all(tiles[room.sims[i].uid]["status"] == "offline" for i in cut)
        wait(offline, "the cut tables shown offline", 30)
        # the others stay live meanwhile: a reading browser gets a table's new state at once
        other = room.sims[1]
        with httpx.stream("GET", f"{srv.base}/live/t/{labels[other.uid]}", timeout=30) as s:
            lines = s.iter_lines()
            for _ in range(30):  # many states, more than the slow ones' buffers hold
                before = other.count
                other.step_event()
                room.ups[1].wake()
                t0 = time.monotonic()
                for line in lines:
                    if line.startswith("id: ") and int(line[4:].split(":")[1].split(".")[0]) >= other.count > before:
                        break
                    assert time.monotonic() - t0 < 20, "the reading browser was held up"
        for i in cut:
            room.proxies[i].heal()
        room.play()
        room.settle()
        room.check()
        with db.connect(srv.db) as c:
            skews = sorted(int(r[0]) for r in c.execute("SELECT clock_skew_ms FROM hosts"))
        assert skews[0] < -290_000 and skews[-1] > 290_000  # recorded, and harmless
        tiles = httpx.get(srv.base + "/.json").json()["tables"]
        assert len(tiles) == n
    finally:
        for c in slow:
            c.close()
        room.close()
