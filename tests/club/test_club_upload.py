"""A virtual table uploading live through the real uploader to a real server process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from clubcheck import assert_same
from tractor_table.club import db
from tractor_table.sim.virtual.clubtable import SimTable, attach


def run_virtual(tmp: Path, base: str, token: str, *, hands: int = 1, seed: int = 1,
                extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tractor_table.cli", "virtual", "--bots", "--hands", str(hands), "--seed",
         str(seed), "--db", str(tmp / "records.sqlite"), "--club", base, *extra],
        env={**os.environ, "TT_CLUB_TOKEN": token}, capture_output=True, text=True, timeout=300)


def test_a_virtual_table_uploads_every_event_exactly(club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    r = run_virtual(tmp_path, server.base, token)
    assert r.returncode == 0, r.stderr
    assert "club " in r.stdout and "uploaded" in r.stdout
    n = assert_same(tmp_path / "records.sqlite", server.db)
    assert n > 50  # a whole hand
    room = httpx.get(server.base + "/.json").json()["tables"]
    assert len(room) == 1 and room[0]["count"] > 50
    page = httpx.get(server.base + f"/t/{room[0]['label']}")
    assert page.status_code == 200 and "Hands" in page.text


def test_club_upload_pushes_a_carried_file_once(club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    # a file recorded offline (the table core, the real recorder), then carried and pushed
    sim = SimTable(tmp_path, "00000000feed0001", seed=7, hands=1)
    while not sim.done:
        sim.step()
    sim.close()
    for _ in range(2):  # twice: the second push changes nothing
        r = subprocess.run([sys.executable, "-m", "tractor_table.cli", "club", "upload", "--db",
                            str(sim.path), "--club", server.base, "--token", token],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    assert "0 item(s) sent" in r.stdout
    assert_same(sim.path, server.db)
    with db.connect(server.db) as c:
        assert c.execute("SELECT count(*) FROM tables").fetchone() == (1,)
        assert c.execute("SELECT count(*) FROM sessions").fetchone() == (1,)


def test_a_wrong_token_is_said_and_recording_goes_on(club_server: Any, tmp_path: Path) -> None:
    server, _token = club_server
    sim = SimTable(tmp_path, "00000000feed0002", seed=8, hands=1)
    up = attach(sim, server.base, "tt_wrong", heartbeat_s=0.5)
    try:
        while not sim.done:
            sim.step()
        deadline = time.monotonic() + 30
        while up.status != "refused" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert up.status == "refused" and "401" in up.refused and "unknown token" in up.refused
        assert sim.recorder.new_events > 50 and not sim.recorder.failed  # recorded all the same
    finally:
        up.stop(flush_s=0)
        sim.close()
    with db.connect(server.db) as c:
        assert c.execute("SELECT count(*) FROM events").fetchone() == (0,)
        assert c.execute("SELECT count(*) FROM refused").fetchone()[0] >= 1
