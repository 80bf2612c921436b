"""`enroll --table`: enrollment through a connected table's seat reader, end to
end. The real firmware runs under MicroPython on the virtual table (its own
scanner and PN532 driver reading simulated chips on a simulated SPI bus); the
host opens the table's USB serial (a pseudo-terminal) with pyserial, asks for
enroll mode over the link, and a scripted operator puts tags on the seat's
simulated reader as the guided enrollment prompts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shengji.cards import parse_card_id
from tractor_table import virtual_heap
from tractor_table.enroll import CardSet, Enrollment, TableTagReader, check_static
from tractor_table.errors import CommandError
from tractor_table.events import EV
from tractor_table.link.serial_link import SerialLink
from tractor_table.sim.virtual.runner import VirtualTable, uid_of
from vtable_rig import cli_command, let_go, table_in

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware"))
import cardmap  # noqa: E402  (firmware module)


def tag_of(card: int) -> bytes:
    """The new set's tags: even cards reuse the virtual deck's UIDs (tags the
    table's card map knows: re-enrolling a set), odd cards are tags it does not know."""
    if card % 2 == 0:
        return uid_of(card)
    return bytes((0x04, 0x10, card >> 8, card & 0xFF, 0x21, 0x32, 0x43))


class Operator:
    """Puts tags on the virtual table's readers as a person would, after each message."""

    PROMPT = re.compile(r"\[(\d+)/\d+\] tap (\S+)$")

    def __init__(self, vt: VirtualTable, seat: int) -> None:
        self.vt = vt
        self.seat = seat
        self.log: list[str] = []
        self.on_prompt: dict[int, str] = {}  # prompt number -> trick to play first
        self.current = -1

    def put(self, *uids: bytes, seat: int | None = None) -> None:
        self.vt.place_tags(self.seat if seat is None else seat, *uids)

    def say(self, text: str) -> None:
        self.log.append(text)
        m = self.PROMPT.match(text)
        if m:
            self.current = card = parse_card_id(m.group(2))
            trick = self.on_prompt.pop(int(m.group(1)), "")
            if trick == "old":
                self.put(tag_of(0))  # an already enrolled card
            elif trick == "foreign":
                self.put(bytes.fromhex("3a010203"))  # a 4-byte UID: a bank card, say
            elif trick == "two":
                self.put(tag_of(card), tag_of(card + 1))
            elif trick == "other seat":
                # another card put down at another seat: not this seat's tap
                self.put(tag_of(40), seat=(self.seat + 1) % 4)
            elif trick == "late":
                pass  # misses the tap: waits for the reminder
            else:
                self.put(tag_of(card))
            return
        if text.startswith(("already enrolled", "foreign tag", "two cards", "missed tap: no card")):
            self.put(tag_of(self.current))


def test_enrollment_through_a_virtual_tables_seat_reader(compiled: Path, tmp_path: Path) -> None:
    vt = table_in(compiled, "guided").start()
    try:
        assert vt.next_event().kind == EV.HAND_START
        port = let_go(vt)
        op = Operator(vt, seat=2)
        op.on_prompt = {2: "old", 3: "foreign", 5: "two", 7: "late", 9: "other seat"}
        reader = TableTagReader(port, seat=2, say=op.say)
        assert vt.wait(lambda: vt.lines[7] == "enroll at S2", 5), vt.lines
        cs = CardSet("Green", 1)
        path = tmp_path / "green.cards"
        try:
            assert Enrollment(reader, cs, path, say=op.say, tap_timeout=1.0).run() == 0
        finally:
            reader.close()
        log = "\n".join(op.log)
        assert "already enrolled: that tag is 2S; take it away and tap 3S" in log
        assert "foreign tag 3a010203: a 4-byte UID is not an NTAG21x card sticker" in log
        assert "two cards on the reader: take them away and tap one card at a time" in log
        assert "still waiting for 8S" in log  # the late tap
        assert "still waiting for TS" in log  # the card put down at seat 3 was not taken
        assert op.log[-1] == f"all 54 cards enrolled; set saved to {path}"
        saved = CardSet.load(path)
        assert saved.cards == {tag_of(c): c for c in range(54)}
        assert check_static(saved).ok
        assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines

        # The game heard none of those taps (an unknown tag is otherwise a
        # REJECT); out of enroll mode, a tap is the game's again.
        vt.link = SerialLink(port, on_note=vt._note).start()
        assert vt.link.wait_synced(10)
        vt.tap(0, -1)  # an unknown tag at seat 0
        events = [vt.next_event().raw()]
        while events[-1][:3] != [EV.REJECT, 0, 0]:
            events.append(vt.next_event().raw())
        assert events[0][0] == EV.HAND_START
        assert [e[:4] for e in events if e[0] == EV.REJECT] == [[EV.REJECT, 0, 0, EV.UNKNOWN_CARD]]
    finally:
        vt.close()
    # enroll mode fits the firmware's heap budget (the simulated chips' share taken out)
    assert 0 < vt.firmware_peak < virtual_heap.firmware_budget(vt.decks), vt.firmware_peak


class DeadlineReader(TableTagReader):
    """The seat's reader with a deadline: every wait of the enrollment polls
    it, so a run that stops making progress fails with what it said, never hangs."""

    def __init__(self, *args: Any, within: float, log: list[str], **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.deadline = time.monotonic() + within
        self.log_ = log

    def poll(self) -> list[bytes]:
        if time.monotonic() > self.deadline:
            raise AssertionError("enrollment made no progress in time; its last words: " + repr(self.log_[-6:]))
        return super().poll()


def test_a_long_press_at_the_seat_takes_the_last_card_back(compiled: Path, tmp_path: Path) -> None:
    """A mis-tap at the table's reader (5S asked, 6S's tag tapped) is taken back
    with a long press of that seat's button: the set forgets that tag and asks
    for 5S again; 6S's tag is then 6S's."""

    class Mistaps(Operator):
        state = ""  # "" -> "mistapped" -> "pressed" -> "undone"

        def say(self, text: str) -> None:
            if text.startswith("[4/54] tap 5S") and not self.state:
                self.log.append(text)
                self.state = "mistapped"
                self.current = parse_card_id("5S")
                self.put(tag_of(parse_card_id("6S")))  # the wrong card
                return
            if text.startswith("[5/54] tap 6S") and self.state == "pressed":
                self.log.append(text)  # the operator pressed undo instead of tapping 6S
                return
            if text.startswith("undone: ") and self.state == "pressed":
                self.state = "undone"
            super().say(text)
            if text.startswith("enrolled 5S as ") and self.state == "mistapped":
                self.state = "pressed"
                self.vt.press(self.seat, EV.BTN_UNDO)

    vt = table_in(compiled, "undo").start()
    try:
        assert vt.next_event().kind == EV.HAND_START
        port = let_go(vt)
        op = Mistaps(vt, seat=1)
        reader = DeadlineReader(port, seat=1, say=op.say, within=60.0, log=op.log)
        cs = CardSet("Undo", 1)
        path = tmp_path / "undo.cards"
        try:
            assert Enrollment(reader, cs, path, say=op.say, tap_timeout=5.0).run() == 0
        finally:
            reader.close()
        assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines
    finally:
        vt.close()
    assert op.log[1].startswith("a wrong tap? a long press of the seat's button takes the last card back")
    six, five = tag_of(parse_card_id("6S")).hex(), tag_of(parse_card_id("5S")).hex()
    at = op.log.index(f"enrolled 5S as {six} (4/54)")
    # the press came while enroll asked for the next card: the last one is taken back
    assert op.log[at + 1 : at + 6] == [
        "[5/54] tap 6S",
        f"undone: 5S (tag {six}) is no longer enrolled (3/54); tap 5S",
        "[4/54] tap 5S",
        f"enrolled 5S as {five} (4/54)",
        "[5/54] tap 6S",
    ], op.log[at:]
    assert op.log[at + 6] == f"enrolled 6S as {six} (5/54)"  # the tag undo forgot is free again
    assert CardSet.load(path).cards == {tag_of(c): c for c in range(54)}


def test_a_host_that_goes_away_ends_enroll_mode(compiled: Path) -> None:
    vt = table_in(compiled, "gone").start()
    try:
        assert vt.next_event().kind == EV.HAND_START
        port = let_go(vt)
        reader = TableTagReader(port, seat=0)
        reader.active = False  # the host dies: no [APP_ENROLL, -1]
        reader.close()
        # the display is redrawn on the firmware's own loop, after the mode change is acknowledged
        assert vt.wait(lambda: vt.lines[7] == "enroll at S0", 5), vt.lines
        vt.link = SerialLink(port, on_note=vt._note).start()  # another host
        assert vt.link.wait_synced(10)
        vt.tap(0, -1)  # ends enroll mode, and is the game's tap
        events = [vt.next_event().raw()]
        while events[-1][0] != EV.REJECT:
            events.append(vt.next_event().raw())
        assert events[-1][:4] == [EV.REJECT, 0, 0, EV.UNKNOWN_CARD]
        assert vt.wait(lambda: vt.lines[7] == "S0 unknown card", 5), vt.lines
    finally:
        vt.close()


def test_enroll_command_with_table_writes_the_set_and_the_map(compiled: Path, tmp_path: Path) -> None:
    path = tmp_path / "sets" / "blue.cards"
    out = tmp_path / "cards.bin"
    vt = table_in(compiled, "command").start()
    try:
        port = let_go(vt)
        proc = subprocess.Popen(
            cli_command("enroll", "--table", port, "--seat", "1", "--set", str(path), "--name", "Blue",
                 "--decks", "1", "--export", str(out)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        op = Operator(vt, seat=1)
        timer = threading.Timer(120, proc.kill)  # a hung enrollment fails the test, not the run
        timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                op.say(line.rstrip("\n"))
        finally:
            timer.cancel()
        assert proc.wait(timeout=30) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        vt.close()
    assert op.log[0] == f"the table on {port} is in enroll mode: tap the cards on seat 1's reader"
    assert op.log[1] == "enrolling set 'Blue': 54 cards (1 deck(s)); Ctrl-C stops, progress is kept"
    assert op.log[2].startswith("a wrong tap? ") and "a long press of the seat's button" in op.log[2]
    assert op.log[3] == "[1/54] tap 2S"
    assert op.log[-1] == f"wrote the firmware map {out} (54 tags)"
    m = cardmap.CardMap(out.read_bytes())
    assert all(m.lookup(tag_of(c), 7) == c for c in range(54))


def _expect_error(fn: Callable[[], object], text: str) -> None:
    with pytest.raises(CommandError, match=re.escape(text)):
        fn()


def test_enroll_table_errors_are_one_clear_line(compiled: Path, tmp_path: Path) -> None:
    import pty

    r = subprocess.run(
        cli_command("enroll", "--table", "/dev/null", "--write-codes", "--set", str(tmp_path / "x"), "--name", "x"),
        capture_output=True, text=True, timeout=30,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "--write-codes reads or writes the tags' memory, which a table's reader does not do" in r.stderr
    _expect_error(lambda: TableTagReader("/dev/null", seat=4), "--seat must be 0-3, not 4")
    master, slave = pty.openpty()
    try:  # nothing on the other end: no handshake
        _expect_error(lambda: TableTagReader(os.ttyname(slave), timeout=1.0), "no table answered on")
    finally:
        os.close(master)
        os.close(slave)
    # A table whose "readers" report card ids (no tag UIDs) refuses enroll mode.
    vt = table_in(compiled, "direct", readers="direct").start()
    try:
        port = let_go(vt)
        _expect_error(lambda: TableTagReader(port, timeout=10.0),
                      "refused enroll mode: this table's readers report cards, not tags")
    finally:
        vt.close()
