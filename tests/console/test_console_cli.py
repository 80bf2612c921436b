"""``tractor-table console`` on the command line: bad input ends in one clear
line and exit status 1, before any screen is drawn; and the game view's
bookkeeping when the link rolls back or resyncs from a snapshot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tractor_table import cli
from tractor_table.console.model import GameView, LinkView
from tractor_table.events import describe
from tractor_table.records import Store


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


def test_a_port_that_does_not_exist(capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["console", "--port", "/nonexistent"], capsys)
    assert err.startswith("tractor-table console: --port /nonexistent: no such port;")
    assert "/dev/ttyACM0" in err


def test_a_path_that_is_no_serial_port(capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails(["console", "--port", "/dev/null"], capsys)
    assert err.startswith("tractor-table console: --port /dev/null: cannot open it (")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--port", "/nonexistent", "--bots"], "--bots needs --virtual"),
        (["--readers", "direct"], "--readers needs --virtual"),
        (["--virtual", "--bots", "--hands", "0"], "--hands must be at least 1, not 0"),
        (["--virtual", "--hands", "2"], "--hands is for the bots: add --bots (and --virtual)"),
        (["--virtual", "--seed", "2"], "--seed is for the bots: add --bots (and --virtual)"),
        (["--virtual", "--rules", "nonesuch"], "--rules/--decks: "),
    ],
)
def test_options_that_do_not_fit(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert says in _fails(["console", *argv], capsys)


def test_port_and_virtual_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["console", "--port", "/dev/ttyACM0", "--virtual"])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


HAND = [1, 1, 0, 2, 0, 0, 1]
TRUMP = [3, 1, 2, 0]
PLAYS = [[6, 0, 0, 12], [6, 0, 1, 11], [6, 0, 2, 10], [6, 0, 3, 9]]
TRICK = [10, 0, 0, 20, 0]


def _feed(view: GameView, events: list[list[int]], start: int = 0) -> None:
    for k, ev in enumerate(events):
        view.on_note(["event", start + k, 0, ev])


def test_the_game_view_follows_the_events() -> None:
    g = GameView()
    _feed(g, [HAND, TRUMP, *PLAYS[:2]])
    text = g.text()
    assert "hand      1" in text and "trump     H by S2" in text and "dealer    S0" in text
    assert "trick 1\nS0        AS (lead)\nS1        KS" in text
    _feed(g, [*PLAYS[2:], TRICK], start=4)
    assert "trick 1: S0 wins 20 points" in g.text() and "S3        JS" in g.text()
    # the next lead starts a new trick
    _feed(g, [[6, 1, 0, 8]], start=9)
    assert "trick 2\nS0        TS (lead)" in g.text() and "S1" not in g.text().split("trick 2")[1]


def test_a_rollback_rebuilds_the_game_from_the_events_kept() -> None:
    g = GameView()
    _feed(g, [HAND, TRUMP, *PLAYS, TRICK])
    g.on_note(["rollback", 4, 7])  # the table lost events 4..6 (a restart)
    assert len(g.events) == 4
    assert "trick 1\nS0        AS (lead)\nS1        KS" in g.text() and "wins" not in g.text()
    # a snapshot: the events before it are gone, the next hand starts afresh
    g.on_note(["snapshot", 40, 123, b"[]"])
    assert g.events == [] and g.text().startswith("resynced from a table snapshot at event 40")
    _feed(g, [HAND], start=40)
    assert "hand      1" in g.text()


def test_the_link_view_names_its_state() -> None:
    lv = LinkView(port="/dev/ttyACM0")
    assert "state     connecting" in lv.text()
    lv.on_note(["up", [1, "0.1.0", "rules-2026.1", 0x1234ABCD, 7, 3, 0, 1]])
    assert "state     up (syncing)" in lv.text() and "boot      1234abcd" in lv.text()
    lv.on_note(["event", 2, 0, HAND])
    lv.on_note(["synced", 3])
    assert "state     synced" in lv.text() and "events    3" in lv.text()
    lv.on_note(["down", "no answer for 3000 ms"])
    assert "state     down" in lv.text() and "error     link down: no answer for 3000 ms" in lv.text()
    assert describe(HAND) == "hand 1: 2 deck(s), levels 2/2, dealer S0"


def test_the_command_in_a_terminal_quits_cleanly_while_the_bots_play(tmp_path: Path) -> None:
    """The whole command in a real terminal (a pty): the screen comes up, the
    link syncs, ``q`` while the bots are still playing closes the table and
    the link, and the verifier's summary is printed after the screen is gone."""
    import os
    import pty
    import select
    import sys
    import time

    db = tmp_path / "records.sqlite"
    argv = [sys.executable, "-m", "tractor_table.cli", "console", "--virtual", "--bots", "--hands", "3", "--seed", "1",
            "--db", str(db)]
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.environ.update(TERM="xterm-256color", COLUMNS="120", LINES="40")
        os.execv(sys.executable, argv)
    out = b""

    def read_until(what: bytes, timeout: float) -> bool:
        nonlocal out
        end = time.monotonic() + timeout
        while what not in out and time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    out += os.read(fd, 65536)
                except OSError:  # the child has gone: its terminal closed
                    break
        return what in out

    try:
        assert read_until(b"synced", 30), out[-2000:]
        assert read_until(b"trick 2:", 30), out[-2000:]
        os.write(fd, b"q")
        assert read_until(b"tractor-table console: ", 15), out[-2000:]
        read_until(b"outside the replayer", 5)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    text = out.decode("utf-8", "replace")
    assert "Traceback" not in text
    tail = text.rsplit("tractor-table console: ", 1)[1]
    assert " judged, " in tail and " 0 disagreements" in tail
    # what the table reported is in the records, as the summary says
    said = re.search(rf"records {re.escape(str(db))}: (\d+) new event\(s\)", text)
    assert said is not None, text[-500:]
    with Store.open(db, create=False) as store:
        assert store.counts()["events"] == int(said[1]) > 10


def test_records_that_cannot_be_used_stop_before_the_table_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database\n" * 100)
    err = _fails(["console", "--virtual", "--db", str(bad)], capsys)
    assert err.startswith(f"tractor-table console: records {bad}") and "--no-record" in err
    assert bad.read_text() == "not a database\n" * 100
