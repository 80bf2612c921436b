"""`deckcheck --reader`: the scan's stop conditions and progress with a USB
PN532 (the real adafruit_pn532 library over pyserial on a pseudo-terminal
served by the simulator), the command in a subprocess: a card resting on the
reader counts once, a card tapped again is told, Ctrl-C gives a partial report,
--timeout ends the scan. (The scan's findings are checked in test_enroll.py,
and at a table in test_deckcheck_table.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from ctrl_c import default_sigint
from tractor_table.enroll import CardSet
from tractor_table.sim.pn532sim.chip import Tag
from tractor_table.sim.pn532sim.serve import PtyPN532


def uid_for(card: int) -> bytes:
    return bytes((0x04, 0x30, card >> 8, card & 0xFF, 0x21, 0x32, 0x43))


def blue_set(path: Path) -> None:
    cs = CardSet("Blue", 1)
    cs.cards = {uid_for(c): c for c in range(54)}
    cs.save(path)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tractor_table.cli", *args]


def test_ctrl_c_gives_a_partial_report(tmp_path: Path) -> None:
    path = tmp_path / "blue.cards"
    blue_set(path)
    # 2S rests on the reader through many polls (counted once), then 3S, 4S,
    # 2S again (told), 5S; then Ctrl-C
    order = [0, 1, 2, 0, 3]
    with PtyPN532() as sim:
        proc = subprocess.Popen(
            _cli("deckcheck", str(path), "--reader", sim.port, "--idle", "30"),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"), preexec_fn=default_sigint,
        )
        timer = threading.Timer(60, proc.kill)
        timer.start()
        lines: list[str] = []
        try:
            assert proc.stdout is not None and proc.stderr is not None
            for raw in proc.stdout:
                lines.append(raw.rstrip("\n"))
                if lines[-1].startswith("tap every card"):
                    sim.place(Tag(uid_for(order.pop(0))))
                elif lines[-1].startswith(("ok ", "again ")):
                    if lines[-1].startswith("ok 2S"):
                        time.sleep(0.5)  # resting: the reader sees it poll after poll
                    sim.clear()
                    time.sleep(0.15)  # away: an empty poll
                    if order:
                        sim.place(Tag(uid_for(order.pop(0))))
                    else:
                        proc.send_signal(signal.SIGINT)
            code = proc.wait(timeout=30)
            err = proc.stderr.read()
        finally:
            timer.cancel()
    assert code == 130, err
    assert "Traceback" not in err
    assert lines[0] == ("tap every card of set 'Blue' (54 cards, any order); the check ends when all are seen, "
                        "30 s after the last new card or on Ctrl-C")
    assert lines[1:6] == [
        "ok 2S (1/54)",
        "ok 3S (2/54)",
        "ok 4S (3/54)",
        "again 2S: tapped twice, counted once (3/54)",
        "ok 5S (4/54)",
    ]
    assert lines[6:] == [
        "set 'Blue': 1 deck(s), 54 tags enrolled of 54 cards",
        "scanned 4 distinct tags (stopped by Ctrl-C: a partial check)",
        "missing (not tapped yet): 50: " + " ".join(f"{r}S" for r in "6789TJQKA") + " "
        + " ".join(f"{r}{s}" for s in "HDC" for r in "23456789TJQKA") + " SJ BJ",
        "tapped more than once (fine): 2S",
        "check interrupted: not every card was tapped; run it again to the end to check the whole set",
    ]


def test_timeout_ends_the_scan(tmp_path: Path) -> None:
    path = tmp_path / "blue.cards"
    blue_set(path)
    with PtyPN532() as sim:
        sim.place(Tag(uid_for(53)))  # BJ lies on the reader from the start
        start = time.monotonic()
        r = subprocess.run(_cli("deckcheck", str(path), "--reader", sim.port, "--timeout", "0.5"),
                           capture_output=True, text=True, timeout=30)
        took = time.monotonic() - start
    assert r.returncode == 1, r.stderr
    assert r.stdout.splitlines()[1:3] == ["ok BJ (1/54)", "set 'Blue': 1 deck(s), 54 tags enrolled of 54 cards"]
    assert "scanned 1 distinct tags (stopped: --timeout 0.5 s reached)\n" in r.stdout
    assert took < 10  # not the default 10 s idle
