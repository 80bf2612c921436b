"""`deckcheck --table`: checking a card set at a connected table's seat reader,
end to end. The real firmware runs under MicroPython on the virtual table (its
own scanner and PN532 driver reading simulated chips on a simulated SPI bus);
the command runs as a subprocess, opens the table's USB serial (a
pseudo-terminal) with pyserial, puts the table into enroll mode over the link,
and a scripted operator puts the set's tags on the seat's simulated reader in
any order, as a person would once the command says the table is ready."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from ctrl_c import default_sigint
from tractor_table.cli import main
from tractor_table.enroll import CardSet, TableTagReader, card_label, check_scan
from tractor_table.events import EV
from tractor_table.link.serial_link import SerialLink
from tractor_table.sim.virtual.runner import VirtualTable, uid_of
from vtable_rig import cli_command, let_go, table_in

STRANGER = bytes.fromhex("04eeeeeeeeeeee")  # a tag of no set
READY = re.compile(r"the table on (\S+) is in enroll mode \(it plays no cards meanwhile\): "
                   r"tap the cards on seat (\d)'s reader")


def tag_of(card: int) -> bytes:
    """The set's tags: even cards reuse the virtual deck's UIDs (tags the table's
    card map knows), odd cards are tags it does not know (the check must not care)."""
    if card % 2 == 0:
        return uid_of(card)
    return bytes((0x04, 0x20, card >> 8, card & 0xFF, 0x31, 0x42, 0x53))


def red_set(path: Path) -> CardSet:
    cs = CardSet("Red", 1)
    cs.cards = {tag_of(c): c for c in range(54)}
    cs.save(path)
    return cs


def _run(args: list[str], on_line: Callable[[subprocess.Popen[str], str], None]) -> tuple[int, list[str], str]:
    """The command in a subprocess; ``on_line`` is the operator, called with every
    line it prints. A hung check fails the test (killed after 60 s), not the run."""
    proc = subprocess.Popen(
        cli_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"), preexec_fn=default_sigint,
    )
    timer = threading.Timer(60, proc.kill)
    timer.start()
    lines: list[str] = []
    try:
        assert proc.stdout is not None and proc.stderr is not None
        for raw in proc.stdout:
            lines.append(raw.rstrip("\n"))
            on_line(proc, lines[-1])
        code = proc.wait(timeout=30)
        err = proc.stderr.read()
    finally:
        timer.cancel()
    return code, lines, err


def _report(lines: list[str]) -> list[str]:
    """The report: from the set's summary line to the end."""
    start = max(i for i, line in enumerate(lines) if line.startswith("set 'Red': "))
    return lines[start:]


def _out_of_enroll_mode(vt: VirtualTable, port: str) -> None:
    """The table shows it left enroll mode, and a tap is the game's again."""
    assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines
    vt.link = SerialLink(port, on_note=vt._note).start()
    assert vt.link.wait_synced(10)
    vt.tap(0, -1)  # an unknown tag at seat 0: the game refuses it
    events = [vt.next_event().raw()]
    while events[-1][0] != EV.REJECT:
        events.append(vt.next_event().raw())
    assert events[-1][:4] == [EV.REJECT, 0, 0, EV.UNKNOWN_CARD]


def test_a_complete_set_passes(compiled: Path, tmp_path: Path) -> None:
    path = tmp_path / "red.cards"
    red_set(path)
    order = list(range(54))
    random.Random(5).shuffle(order)
    vt = table_in(compiled, "complete").start()
    try:
        port = let_go(vt)

        def operator(proc: subprocess.Popen[str], line: str) -> None:
            m = READY.match(line)
            if m:
                assert m.groups() == (port, "3")
                for k, c in enumerate(order):
                    vt.place_tags(3, tag_of(c))
                    if k == 20:
                        vt.place_tags(2, tag_of(order[40]))  # put down at seat 2: not seat 3's tap

        code, lines, err = _run(["deckcheck", str(path), "--table", port, "--seat", "3"], operator)
        assert code == 0, err
        assert lines[1] == ("tap every card of set 'Red' (54 cards, any order); "
                            "the check ends when all are seen or on Ctrl-C")
        oks = [line for line in lines if line.startswith("ok ")]
        # the cards in the order tapped, the count going up to 54 (the seat-2 card counted once, at seat 3)
        assert oks[:3] == [f"ok {card_label(order[0])} (1/54)", f"ok {card_label(order[1])} (2/54)",
                           f"ok {card_label(order[2])} (3/54)"]
        assert len(oks) == 54 and oks[-1] == f"ok {card_label(order[-1])} (54/54)"
        assert _report(lines) == [
            "set 'Red': 1 deck(s), 54 tags enrolled of 54 cards",
            "scanned 54 distinct tags (all cards seen)",
            "set is complete and consistent",
        ]
        assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines
    finally:
        vt.close()


def test_missing_unknown_duplicate_and_twice_are_reported_exactly(compiled: Path, tmp_path: Path) -> None:
    path = tmp_path / "red.cards"
    cs = red_set(path)
    second_6d = bytes.fromhex("04202222313233")  # 6D (card 30) is enrolled on a second tag too
    cs.cards[second_6d] = 30
    cs.save(path)
    taps: list[tuple[bytes, ...]] = [(tag_of(c),) for c in range(54) if c != 17]  # 6H (17) is lost
    taps.insert(10, (STRANGER,))  # a tag of no set
    taps.insert(20, (tag_of(3),))  # 5S again
    taps.insert(30, (tag_of(40), tag_of(41)))  # two cards at once: neither counts (both come again later)
    taps.insert(45, (second_6d,))  # the other tag of 6D (its first tag came before)
    vt = table_in(compiled, "problems").start()
    try:
        port = let_go(vt)

        def operator(proc: subprocess.Popen[str], line: str) -> None:
            if READY.match(line):
                for t in taps:
                    vt.place_tags(0, *t)

        code, lines, err = _run(["deckcheck", str(path), "--table", port, "--idle", "3"], operator)
        assert code == 1, err
        assert lines[1] == ("tap every card of set 'Red' (54 cards, any order); the check ends when all are seen, "
                            "3 s after the last new card or on Ctrl-C")
        progress = lines[2:lines.index("set 'Red': 1 deck(s), 55 tags enrolled of 54 cards")]
        assert progress[10] == ("unknown tag 04eeeeeeeeeeee: not in set 'Red' (a card of another set, or a tag "
                                "never enrolled); put that card aside and go on (10/54)")
        assert progress[20] == "again 5S: tapped twice, counted once (19/54)"
        assert progress[30] == ("two cards on the reader at once: neither was counted; "
                                "take them away and tap one card at a time")
        assert progress[45] == (f"duplicate: 6D again on another tag ({second_6d.hex()}); "
                                "the set has this card on more than one tag (42/54)")
        assert progress[-1] == "ok BJ (53/54)"
        assert len(progress) == len(taps)
        assert _report(lines) == [
            "set 'Red': 1 deck(s), 55 tags enrolled of 54 cards",
            "scanned 55 distinct tags (stopped: no new card for 3 s)",
            "missing (not tapped): 1: 6H",
            f"duplicate: 6D is enrolled on 2 tags: {second_6d.hex()}, {tag_of(30).hex()}",  # by UID
            "unknown tags (not in this set): 1: 04eeeeeeeeeeee",
            "tapped more than once (fine): 5S",
            "set has problems (see above)",
        ]
        assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines
    finally:
        vt.close()


def test_ctrl_c_mid_check_leaves_enroll_mode_with_a_partial_report(compiled: Path, tmp_path: Path) -> None:
    path = tmp_path / "red.cards"
    red_set(path)
    vt = table_in(compiled, "ctrl-c").start()
    try:
        port = let_go(vt)
        sent: list[bool] = []

        def operator(proc: subprocess.Popen[str], line: str) -> None:
            if READY.match(line):
                for c in range(20):
                    vt.place_tags(1, tag_of(c))
            elif line.endswith("(20/54)") and not sent:
                assert vt.wait(lambda: vt.lines[7] == "enroll at S1", 5), vt.lines  # still in enroll mode
                proc.send_signal(signal.SIGINT)
                sent.append(True)

        code, lines, err = _run(["deckcheck", str(path), "--table", port, "--seat", "1"], operator)
        assert code == 130, err
        assert "Traceback" not in err
        assert _report(lines) == [
            "set 'Red': 1 deck(s), 54 tags enrolled of 54 cards",
            "scanned 20 distinct tags (stopped by Ctrl-C: a partial check)",
            "missing (not tapped yet): 34: " + " ".join(f"{face}" for face in (
                "9H TH JH QH KH AH 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD "
                "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC SJ BJ").split()),
            "check interrupted: not every card was tapped; run it again to the end to check the whole set",
        ]
        _out_of_enroll_mode(vt, port)
    finally:
        vt.close()


def test_timeout_reminder_and_bad_arguments(
    compiled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "red.cards"
    cs = red_set(path)

    # bad arguments: one clear line each, before the set is read or a table touched
    def refused(*args: str) -> str:
        assert main(["deckcheck", *args]) == 1
        err = capsys.readouterr().err.strip()
        assert "\n" not in err
        return err

    assert refused(str(path), "--reader", "/dev/null", "--table", "/dev/null") == (
        "tractor-table deckcheck: give --reader PORT (a USB PN532) or --table PORT (a table's seat reader), not both")
    assert refused(str(path), "--seat", "2") == (
        "tractor-table deckcheck: --seat picks a table's seat reader: give it with --table PORT")
    assert refused(str(path), "--timeout", "5") == (
        "tractor-table deckcheck: --timeout limits a scan of the cards: give it with --reader PORT or --table PORT")
    assert refused(str(path), "--table", "/dev/null", "--idle", "-1") == (
        "tractor-table deckcheck: --idle must be a number of seconds above 0, not -1")
    assert refused(str(path), "--table", "/dev/null", "--seat", "4") == (
        "tractor-table deckcheck: --seat must be 0-3, not 4")
    assert refused(str(tmp_path / "none.cards"), "--table", "/dev/null") == (
        f"tractor-table deckcheck: card set {tmp_path / 'none.cards'}: no such file "
        "(make one with 'tractor-table enroll')")
    assert refused(str(path), "--table", "/dev/null", "--export", str(tmp_path / "no" / "cards.bin")) == (
        f"tractor-table deckcheck: --export {tmp_path / 'no' / 'cards.bin'}: no folder {tmp_path / 'no'}; "
        "create it first or give another path")
    r = subprocess.run(cli_command("deckcheck", str(path), "--table", "/dev/null", "--seat", "-1"),
                       capture_output=True, text=True, timeout=30)
    assert (r.returncode, r.stdout, r.stderr) == (1, "", "tractor-table deckcheck: --seat must be 0-3, not -1\n")

    vt = table_in(compiled, "timeout").start()
    try:
        port = let_go(vt)
        # in process: nobody taps; a reminder, then the time limit
        said: list[str] = []
        reader = TableTagReader(port, seat=2, say=said.append)
        try:
            rep = check_scan(cs, reader, None, say=said.append, timeout=1.0, remind=0.3)
        finally:
            reader.close()
        reminder = "waiting: no tag for 0.3 s, 0 of 54 cards seen; tap the others, or Ctrl-C ends the check with the report"
        assert len(said) >= 3 and said[1:] == [reminder] * (len(said) - 1), said
        assert (rep.stopped, rep.seen, len(rep.missing), rep.ok) == ("stopped: --timeout 1 s reached", 0, 54, False)
        assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines

        # the command: --timeout ends it, with the report
        code, lines, err = _run(["deckcheck", str(path), "--table", port, "--timeout", "1"], lambda p, s: None)
        assert code == 1, err
        assert _report(lines)[1:3] == ["scanned 0 distinct tags (stopped: --timeout 1 s reached)",
                                       "missing (not tapped): 54: " + " ".join(
                                           f"{card_label(c)}" for c in range(54))]
        _out_of_enroll_mode(vt, port)
    finally:
        vt.close()


def test_a_bad_seat_is_refused_before_the_set_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--seat is checked with the other options, before the set file is read
    or the port opened: a wrong seat and a missing set name the seat."""
    for seat in ("4", "-1"):
        assert main(["deckcheck", str(tmp_path / "none.cards"), "--table", "/dev/null", "--seat", seat]) == 1
        assert capsys.readouterr().err == f"tractor-table deckcheck: --seat must be 0-3, not {seat}\n"
    assert not (tmp_path / "none.cards").exists()
