"""A virtual table uploading live through the real uploader to a real server process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from clubcheck import assert_same
from tractor_table.club import db


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
    r = run_virtual(tmp_path, server.base, token, extra=())
    assert r.returncode == 0, r.stderr
    # a second file recorded offline, then carried and pushed
    off = tmp_path / "off"
    off.mkdir()
    r = subprocess.run([sys.executable, "-m", "tractor_table.cli", "virtual", "--bots", "--hands", "1",
                        "--seed", "7", "--db", str(off / "records.sqlite")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    for _ in range(2):  # twice: the second push changes nothing
        r = subprocess.run([sys.executable, "-m", "tractor_table.cli", "club", "upload", "--db",
                            str(off / "records.sqlite"), "--club", server.base, "--token", token],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    assert_same(off / "records.sqlite", server.db)
    with db.connect(server.db) as c:
        assert c.execute("SELECT count(*) FROM tables").fetchone() == (2,)


def test_a_wrong_token_is_said_and_recording_goes_on(club_server: Any, tmp_path: Path) -> None:
    server, _token = club_server
    r = run_virtual(tmp_path, server.base, "tt_wrong")
    assert r.returncode == 0, r.stderr
    assert "refused (401)" in r.stdout
    assert "new event(s)" in r.stdout  # the records were kept all the same
