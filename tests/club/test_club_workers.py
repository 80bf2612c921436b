"""``club serve --workers N``: N processes on one port, each following the database's
notifications, so every open page is live whichever process serves it; stopping the
server stops them all."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path

import httpx
from clubcheck import assert_same
from clubproc import ServerProc
from tractor_table.sim.virtual.clubtable import SimTable, attach

PAGES = 8


def _children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                if int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(p.name))
    return out


def _alive(pid: int) -> bool:
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def _follow(url: str, seen: dict[int, int], k: int) -> None:
    """One open page: the count of each state its stream brings, until the server closes it."""
    with contextlib.suppress(httpx.HTTPError), httpx.Client(timeout=httpx.Timeout(None, connect=5.0)) as c, \
            c.stream("GET", url) as r:
        for line in r.iter_lines():
            if line.startswith("id: "):  # <table id>:<count>.<crc>
                seen[k] = int(line[4:].split(":")[1].split(".")[0])


def _until(cond: object, what: str, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < end, what
        time.sleep(0.05)


def test_every_process_serves_live_pages_and_all_stop_together(
        club_token: tuple[str, str], tmp_path: Path) -> None:
    url, token = club_token
    server = ServerProc(url, extra=("--workers", "2")).start()
    assert server.proc is not None
    workers = _children(server.proc.pid)
    sim = SimTable(tmp_path, "c0ffee0000000001", seed=5, hands=1)
    up = attach(sim, server.base, token, heartbeat_s=0.5)
    try:
        assert len(workers) == 2, f"2 server processes expected, found {workers}"
        sim.step_event()
        _until(lambda: httpx.get(server.base + "/.json", timeout=10).json()["tables"],
               "the table never reached the server")
        label = httpx.get(server.base + "/.json", timeout=10).json()["tables"][0]["label"]
        # several pages at once: the kernel hands their connections to either process
        seen: dict[int, int] = {}
        for k in range(PAGES):
            threading.Thread(target=_follow, args=(f"{server.base}/live/t/{label}", seen, k),
                             daemon=True).start()
        _until(lambda: len(seen) == PAGES, "a page's stream did not open")
        for _ in range(60):  # play on while the pages are open: each must follow
            sim.step()
        want = sim.count
        _until(lambda: all(seen[k] >= want for k in range(PAGES)),
               f"a page did not follow the table to {want} events: {seen}; server: "
               f"{httpx.get(server.base + '/.json', timeout=10).json()}")
        up.stop(flush_s=10)
        assert assert_same(sim.path, url) == sim.made
    finally:
        up.stop(flush_s=1)
        sim.close()
        server.stop()
    assert server.proc.returncode == 0
    _until(lambda: not any(_alive(w) for w in workers), "a server process outlived the server", 20)
