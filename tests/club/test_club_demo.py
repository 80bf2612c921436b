"""``make club-demo``'s pieces start: the Makefile target calls ``tractor-table club
demo``, which starts an embedded PostgreSQL, the server and four tables of bots
uploading; the room shows the four tables live, their events on the server, and
Ctrl-C stops it all and removes what it made (not the whole long demo)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from tractor_table.club.pg import free_port

ROOT = Path(__file__).resolve().parents[2]


def wait(cond: Any, what: str, timeout: float = 90.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            got = cond()
        except httpx.HTTPError:
            got = None
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_make_club_demo_runs_the_club_demo_command() -> None:
    r = subprocess.run(["make", "-n", "club-demo", "PORT=8123"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert re.search(r"tractor-table club demo --port 8123\s*$", r.stdout, re.M), r.stdout


def test_the_club_demo_starts_four_live_tables_and_stops_clean() -> None:
    port = free_port()
    # its own TMPDIR (not pytest's: as root PostgreSQL runs as another user, who
    # must reach the folder), to see what the demo leaves behind
    tmp = Path(tempfile.mkdtemp(prefix="tt-demo-test-"))
    p = subprocess.Popen([sys.executable, "-m", "tractor_table.cli", "club", "demo", "--port", str(port),
                          "--pace", "0.05", "--seconds", "120"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)})
    base = f"http://127.0.0.1:{port}"
    try:
        assert p.stdout is not None
        line = p.stdout.readline()  # printed once the server answers and the tables play
        assert f"open http://127.0.0.1:{port}/" in line, line + (p.stderr.read() if p.poll() else "")

        def four_live() -> bool:
            tiles = httpx.get(base + "/.json", timeout=5).json()["tables"]
            return len(tiles) == 4 and all(t["status"] == "live" and t["count"] >= 20 for t in tiles)

        wait(four_live, "four live tables with events on the room page")
        page = httpx.get(base + "/", timeout=5).text
        assert len(re.findall(r'class="tile live" id="tile-', page)) == 4
        label = httpx.get(base + "/.json", timeout=5).json()["tables"][0]["label"]
        assert httpx.get(f"{base}/t/{label}", timeout=5).status_code == 200
        assert len(list(tmp.glob("tt-club-demo-*/table*/records.sqlite"))) == 4
        p.send_signal(signal.SIGINT)  # Ctrl-C
        assert p.wait(60) == 0, p.stderr.read() if p.stderr else ""
        assert not list(tmp.iterdir()), "the demo left files behind"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
