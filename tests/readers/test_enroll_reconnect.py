"""`enroll --table` / `deckcheck --table` through a replug and a table restart,
end to end. The real firmware runs under MicroPython on the virtual table (its
scanner and PN532 driver reading simulated chips); between the host and the
table's pseudo-terminal sits a real pty-to-pty forwarder (``ptyforward.py``)
that can pull the cable out and plug it back in, or be moved to another table's
pty (a restarted table, another table). The host's link notices, starts a new
session, and ``TableTagReader`` asks for enroll mode again at the same seat."""

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
from ctrl_c import default_sigint
from shengji.cards import parse_card_id
from tractor_table.enroll import (
    APP_ENROLL,
    APP_TAG,
    CardSet,
    Enrollment,
    TableLostError,
    TableTagReader,
    card_label,
    check_scan,
)
from tractor_table.events import EV
from tractor_table.link import ttlink
from tractor_table.link.serial_link import SerialLink
from tractor_table.sim.virtual.runner import VirtualTable, uid_of
from vtable_rig import cli_command, let_go, table_in

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ptyforward import PtyForwarder  # noqa: E402

BACK = re.compile(r"the table (reconnected|restarted): enroll mode is back on at seat (\d); "
                  r"tap the last card again if it was not counted")
ENROLLED = re.compile(r"enrolled (\S+) as ([0-9a-f]+) \(\d+/\d+\)")


def tag_of(card: int) -> bytes:
    """The set's tags: even cards reuse the virtual deck's UIDs (tags the table's
    card map knows), odd cards are tags it does not know."""
    if card % 2 == 0:
        return uid_of(card)
    return bytes((0x04, 0x30, card >> 8, card & 0xFF, 0x41, 0x52, 0x63))


def _restart(vt: VirtualTable) -> str:
    """Power the table off and on again (its flash kept): the same table, a new
    firmware process on a new pty; returns that pty's port."""
    vt.kill()
    vt.close()
    vt.keep_state = True
    vt.ready_alloc = -1
    vt.start()
    return let_go(vt)


def _tag_frame(seat: int, uid: bytes) -> Callable[[list[Any]], bool]:
    def match(frame: list[Any]) -> bool:
        return frame[4] == ttlink.APP and frame[5][:3] == [APP_TAG, seat, uid.hex()]

    return match


def _no_play_reached_the_game(vt: VirtualTable, port: str) -> None:
    """Out of enroll mode, a tap is the game's again; before it, the game got
    no tap at all (an unknown tag is otherwise a REJECT, a card a play)."""
    assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines
    while not vt.events.empty():
        vt.events.get()  # what the virtual table's own link heard at the start
    vt.link = SerialLink(port, on_note=vt._note).start()
    assert vt.link.wait_synced(10)
    vt.tap(0, -1)  # an unknown tag at seat 0
    events = [vt.next_event().raw()]
    while events[-1][0] != EV.REJECT:
        events.append(vt.next_event().raw())
    assert [e[0] for e in events] == [EV.HAND_START, EV.REJECT], events
    assert events[-1][:4] == [EV.REJECT, 0, 0, EV.UNKNOWN_CARD]


class Operator:
    """Puts tags on the virtual table's seat reader as a person would, after
    each message; ``on_prompt`` makes a cable or power trouble at a prompt.
    After a replug the operator waits for the host's "back on" line, then taps
    the last card again, as that line asks."""

    PROMPT = re.compile(r"\[(\d+)/\d+\] tap (\S+)$")

    def __init__(self, vt: VirtualTable, fwd: PtyForwarder, seat: int) -> None:
        self.vt = vt
        self.fwd = fwd
        self.seat = seat
        self.log: list[str] = []
        self.on_prompt: dict[int, Callable[[int], None]] = {}
        self.after_enrolled: dict[int, Callable[[], None]] = {}
        self.current = -1
        self.last = b""
        self.waiting = False  # for the "back on" line

    def put(self, uid: bytes) -> None:
        self.last = uid
        self.vt.place_tags(self.seat, uid)

    def say(self, text: str) -> None:
        self.log.append(text)
        m = self.PROMPT.match(text)
        if m:
            self.current = card = parse_card_id(m.group(2))
            trick = self.on_prompt.pop(int(m.group(1)), None)
            if trick is not None:
                trick(card)
            elif not self.waiting:
                self.put(tag_of(card))
            return
        m = ENROLLED.match(text)
        if m:
            after = self.after_enrolled.pop(self.current, None)
            if after is not None:
                after()
            return
        if text.startswith("missed tap: no card seen"):
            raise AssertionError("the table stopped reporting the seat's tags:\n" + "\n".join(self.log[-8:]))
        if BACK.match(text):
            self.waiting = False
            self.put(self.last)
        elif text.startswith("already enrolled"):
            self.put(tag_of(self.current))

    # troubles
    def replug(self) -> None:
        self.fwd.unplug()
        time.sleep(0.1)
        self.fwd.plug()
        self.waiting = True

    def tap_unacked(self, card: int) -> None:
        """The card is tapped and the host's frames stop reaching the table from
        the moment the table's report of it reaches the host: the host gets the
        report, the table never hears that it did. (Blocked from the tap on, a
        loaded machine could keep the table from reading the card until its link
        had timed out on the host's silence: nothing to report then.)"""
        reported = _tag_frame(self.seat, tag_of(card))
        fwd = self.fwd
        fwd.block = lambda frame: any(reported(f) for f in fwd.delivered_frames)
        self.put(tag_of(card))

    def replug_after_resend(self) -> None:
        """...so the table sends its report again (the host's link drops the copy)
        until the cable is pulled; then the cable goes back in, the host's frames
        getting through again."""
        assert self.fwd.wait_delivered(_tag_frame(self.seat, self.last), 2, 5), self.fwd.delivered_frames
        self.fwd.unplug()
        self.fwd.block = None
        time.sleep(0.1)
        self.fwd.plug()
        self.waiting = True

    def tap_while_unplugged(self, card: int) -> None:
        """The cable falls out as the card is tapped: the table's report of it is lost."""
        assert self.fwd.wait_acked(5)  # the report goes out at once, not after an earlier one
        self.fwd.unplug()
        self.put(tag_of(card))
        assert self.fwd.wait_dropped(_tag_frame(self.seat, tag_of(card)), 5), self.fwd.dropped_frames
        self.fwd.plug()
        self.waiting = True


def _enrolled_once(log: list[str]) -> None:
    """Every card told as enrolled exactly once, each with its own tag."""
    done = [ENROLLED.match(line) for line in log]
    pairs = [(m.group(1), m.group(2)) for m in done if m]
    assert len(pairs) == 54
    assert sorted(pairs) == sorted((card_label(c), tag_of(c).hex()) for c in range(54))


def test_a_replug_mid_enrollment_turns_enroll_mode_back_on(compiled: Path, tmp_path: Path) -> None:
    vt = table_in(compiled, "replug").start()
    fwd = PtyForwarder(tmp_path, let_go(vt))
    try:
        op = Operator(vt, fwd, seat=1)
        # at the 10th card (JS) the cable is out as the card is tapped: the table's report of
        # it is lost; the 30th (5D) is counted but the table does not hear so and sends its
        # report again, then the cable is pulled and put back: the operator taps it again, as
        # told; after the 45th (7C) a plain replug
        op.on_prompt = {10: op.tap_while_unplugged, 30: op.tap_unacked}
        op.after_enrolled = {29: op.replug_after_resend, 44: op.replug}
        reader = TableTagReader(str(fwd.path), seat=1, say=op.say)
        cs = CardSet("Green", 1)
        path = tmp_path / "green.cards"
        try:
            assert Enrollment(reader, cs, path, say=op.say, tap_timeout=10.0).run() == 0
        finally:
            reader.close()
        assert reader.resumed == 3
        back = [line for line in op.log if BACK.match(line)]
        assert back == ["the table reconnected: enroll mode is back on at seat 1; "
                        "tap the last card again if it was not counted"] * 3
        # JS was lost with the old session and counted once when tapped again; 5D, counted
        # before the replug and sent again by the table, and 7C were tapped again: told, not
        # counted again
        assert [line for line in op.log if line.startswith("already enrolled")] == [
            "already enrolled: that tag is 5D; take it away and tap 6D",
            "already enrolled: that tag is 7C; take it away and tap 8C"]
        _enrolled_once(op.log)
        assert CardSet.load(path).cards == {tag_of(c): c for c in range(54)}
        assert op.log[-1] == f"all 54 cards enrolled; set saved to {path}"
        _no_play_reached_the_game(vt, str(fwd.path))
    finally:
        fwd.close()
        vt.close()


def test_a_table_restart_mid_enrollment_turns_enroll_mode_back_on(compiled: Path, tmp_path: Path) -> None:
    # the default heap: enroll mode after a start from flash used to need
    # 272K (docs/firmware.md, "Heap": the rules engine is not loaded for it now)
    vt = table_in(compiled, "restart")
    vt.start()
    fwd = PtyForwarder(tmp_path, let_go(vt))
    try:
        op = Operator(vt, fwd, seat=2)

        def restart() -> None:
            fwd.attach(_restart(vt))
            op.waiting = True

        op.after_enrolled = {20: restart}
        reader = TableTagReader(str(fwd.path), seat=2, say=op.say)
        cs = CardSet("Blue", 1)
        path = tmp_path / "blue.cards"
        try:
            assert Enrollment(reader, cs, path, say=op.say, tap_timeout=10.0).run() == 0
        finally:
            reader.close()
        assert reader.resumed == 1
        assert [line for line in op.log if BACK.match(line)] == [
            "the table restarted: enroll mode is back on at seat 2; tap the last card again if it was not counted"]
        assert [line for line in op.log if line.startswith("already enrolled")] == [
            "already enrolled: that tag is 9H; take it away and tap TH"]
        _enrolled_once(op.log)
        assert CardSet.load(path).cards == {tag_of(c): c for c in range(54)}
        assert vt.wait(lambda: vt.lines[7] == "enroll ended", 5), vt.lines
    finally:
        fwd.close()
        vt.close()


def _run(args: list[str], on_line: Callable[[str], None]) -> tuple[int, list[str], str]:
    """The command in a subprocess, ``on_line`` the operator; killed after 60 s."""
    proc = subprocess.Popen(
        cli_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
        preexec_fn=default_sigint,
    )
    timer = threading.Timer(60, proc.kill)
    timer.start()
    lines: list[str] = []
    try:
        assert proc.stdout is not None and proc.stderr is not None
        for raw in proc.stdout:
            lines.append(raw.rstrip("\n"))
            on_line(lines[-1])
        code = proc.wait(timeout=30)
        err = proc.stderr.read()
    finally:
        timer.cancel()
        if proc.poll() is None:  # the operator failed the test: no command left behind
            proc.kill()
            proc.wait()
    return code, lines, err


def test_a_table_that_refuses_after_the_replug_stops_enroll_progress_kept_and_deckcheck(
    compiled: Path, tmp_path: Path
) -> None:
    vt = table_in(compiled, "refuse").start()
    other = table_in(compiled, "direct", readers="direct").start()  # its readers tell cards, not tags
    fwd = PtyForwarder(tmp_path, let_go(vt))
    other_port = let_go(other)
    try:
        op = Operator(vt, fwd, seat=0)

        def another_table(card: int) -> None:
            # the cable is pulled and plugged into another table
            fwd.unplug()
            fwd.attach(other_port)
            fwd.plug()
            op.waiting = True

        op.on_prompt = {12: another_table}
        path = tmp_path / "sets" / "red.cards"
        code, lines, err = _run(["enroll", "--table", str(fwd.path), "--set", str(path), "--name", "Red",
                                 "--decks", "1", "--tap-timeout", "10"], op.say)
        assert code == 1, err
        assert "Traceback" not in err
        assert lines[-2:] == [
            "[12/54] tap KS",
            f"lost the link to the table on {fwd.path} (cable out, or the table restarting); waiting for it "
            "to come back: tap no card meanwhile (the table may take it as a play)",
        ]
        assert err.splitlines() == [
            f"stopped: 11 of 54 cards are saved in {path}; run the same command again to resume",
            f"tractor-table enroll: after the link to the table on {fwd.path} came back, the table "
            "refused enroll mode at seat 0: this table's readers report cards, not tags",
        ]
        assert CardSet.load(path).cards == {tag_of(c): c for c in range(11)}

        # deckcheck of those 11 at the first table; after 5 cards the cable goes to the other again
        fwd.unplug()
        fwd.attach(os.ttyname(vt._slave))
        fwd.plug()

        def checker(line: str) -> None:
            if line.startswith("tap every card"):
                for c in range(5):
                    vt.place_tags(0, tag_of(c))
            elif line == f"ok {card_label(4)} (5/54)":
                fwd.unplug()
                fwd.attach(other_port)
                fwd.plug()

        code, lines, err = _run(["deckcheck", str(path), "--table", str(fwd.path)], checker)
        assert code == 1, err
        assert "Traceback" not in err
        assert lines[-1] == "the check stopped with 5 of 54 cards seen; run it again to check the whole set"
        assert err == (f"tractor-table deckcheck: after the link to the table on {fwd.path} came back, the table "
                       "refused enroll mode at seat 0: this table's readers report cards, not tags\n")
    finally:
        fwd.close()
        other.close()
        vt.close()


def test_a_table_that_does_not_answer_after_the_replug_stops_the_check(compiled: Path, tmp_path: Path) -> None:
    vt = table_in(compiled, "mute").start()
    fwd = PtyForwarder(tmp_path, let_go(vt))
    try:
        cs = CardSet("Red", 1)
        cs.cards = {tag_of(c): c for c in range(54)}
        said: list[str] = []
        reader = TableTagReader(str(fwd.path), seat=3, say=said.append)
        reader.timeout = 1.0  # for the answer after the replug
        for c in range(5):
            vt.place_tags(3, tag_of(c))

        def say(text: str) -> None:
            said.append(text)
            if text == f"ok {card_label(4)} (5/54)":
                # the table keeps the link up but never gets the request for enroll mode again
                fwd.block = lambda f: f[4] == ttlink.APP and f[5][:1] == [APP_ENROLL]
                fwd.unplug()
                fwd.plug()

        try:
            with pytest.raises(TableLostError) as exc:
                check_scan(cs, reader, None, say=say, timeout=20.0)
        finally:
            reader.close()
        assert str(exc.value) == (
            f"after the link to the table on {fwd.path} came back, the table did not answer the request "
            "for enroll mode at seat 3 within 1 s; check the table and run the command again")
        assert said[-1] == "the check stopped with 5 of 54 cards seen; run it again to check the whole set"
        # the request went out, and again (the link retries it), and never got there
        blocked = [f[5] for f in fwd.blocked_frames]
        assert len(blocked) >= 2 and blocked == [[APP_ENROLL, 3]] * len(blocked), blocked
    finally:
        fwd.close()
        vt.close()


def test_a_check_through_a_replug_counts_every_card_once(compiled: Path, tmp_path: Path) -> None:
    vt = table_in(compiled, "check").start()
    fwd = PtyForwarder(tmp_path, let_go(vt))
    try:
        cs = CardSet("Red", 1)
        cs.cards = {tag_of(c): c for c in range(54)}
        said: list[str] = []
        op = Operator(vt, fwd, seat=0)
        rest = list(range(54))

        def tap_on(upto: int) -> None:
            while rest and rest[0] < upto:
                op.put(tag_of(rest.pop(0)))

        def say(text: str) -> None:
            said.append(text)
            if text.startswith("tap every card"):
                tap_on(20)
            elif text == f"ok {card_label(19)} (20/54)":
                op.tap_while_unplugged(rest.pop(0))  # card 20: its report is lost
            elif text == f"ok {card_label(35)} (36/54)":
                op.replug()  # after card 35 was counted
            elif BACK.match(text):
                op.waiting = False
                op.put(op.last)  # tapped again, as told: 20 counts now, 35 is told as tapped twice
                tap_on(54 if op.last == tag_of(35) else 36)

        reader = TableTagReader(str(fwd.path), seat=0, say=say)
        try:
            rep = check_scan(cs, reader, None, say=say, timeout=20.0)
        finally:
            reader.close()
        assert (rep.ok, rep.seen, rep.stopped, rep.tapped_twice) == (True, 54, "all cards seen", [35])
        oks = [line for line in said if line.startswith("ok ")]
        assert oks == [f"ok {card_label(c)} ({k + 1}/54)" for k, c in enumerate(range(54))]
        assert [line for line in said if BACK.match(line)] == [
            "the table reconnected: enroll mode is back on at seat 0; "
            "tap the last card again if it was not counted"] * 2
        assert "again JD: tapped twice, counted once (36/54)" in said
        _no_play_reached_the_game(vt, str(fwd.path))
    finally:
        fwd.close()
        vt.close()
