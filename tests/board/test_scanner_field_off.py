"""A reader whose field-off fails is reset at once (RSTPD_N low turns its
field off: two fields are never on together), and the poll's good answer
still counts (a dropped read was a card lost at the table: the board model
showed it as a hang); a card resting on the reader through the reset is not
a second tap."""

from __future__ import annotations

import sys

from board_rig import FIRMWARE

sys.path.insert(0, str(FIRMWARE))
import scanner  # noqa: E402

sys.path.remove(str(FIRMWARE))


class Reader:
    def __init__(self, uid: bytes, off_fails: int) -> None:
        self.uid = bytearray(10)
        self.uid[: len(uid)] = uid
        self.uid_len = len(uid)
        self.uid2 = bytearray(10)
        self.uid2_len = 0
        self.off_fails = off_fails
        self.resets = 0

    def setup(self, max_retries: int = 0) -> int:
        return 0

    def poll(self, max_targets: int = 2) -> int:
        return 1

    def field_off(self) -> int:
        if self.off_fails:
            self.off_fails -= 1
            return -3  # pn532.ERR_TIMEOUT
        return 0

    # the split phase the scanner polls with (pn532.PN532.poll_begin, then
    # step until done: the poll's answer, its field switched off after it,
    # the field-off's result in ``off``): each answers at its first step
    wait = 200
    off = 0

    def poll_begin(self, max_targets: int = 2) -> None:
        pass

    def step(self) -> int:
        found = self.poll()
        self.off = self.field_off()
        return found

    def sleep_us(self, us: int) -> None:
        pass

    def reset_begin(self) -> None:
        self.resets += 1

    def reset_end(self) -> None:
        pass


class CardMap:
    def lookup(self, uid: bytes, n: int) -> int:
        return 7


def _run(off_fails_at: set[int], polls: int, fault_after: int = 2) -> tuple[list[tuple[int, int]], Reader]:
    r = Reader(b"\x04\x54\x54\x00\x07\x5a\xa5", off_fails=0)
    # confirm_ms 80: the polls below are 50 ms apart, the second does not confirm
    sc = scanner.Scanner([r], CardMap(), fault_after=fault_after, confirm_ms=80)
    out = []
    sc.tick(0)  # set-up
    now = 0
    for i in range(polls):
        now += 50
        r.off_fails = 1 if i in off_fails_at else 0
        sc.tick(now)
        while not sc.reader_ok(0):
            now += 5
            sc.tick(now)  # the reset and the set-up
        while sc.pop():
            if sc.kind != scanner.EV_SEEN and sc.kind != scanner.EV_GONE:
                out.append((sc.kind, sc.card))
    return out, r


def test_a_failed_field_off_resets_the_reader_at_once() -> None:
    out, r = _run({0}, 1, fault_after=5)
    assert r.resets == 1  # at once, not after fault_after failures
    # (the tick that sets the reader up again polls it too: the card resting
    # there is confirmed then, once)
    assert [k for k, _ in out if k != scanner.EV_CARD] == [scanner.EV_FAULT, scanner.EV_RECOVERED]
    assert len(out) <= 3


def test_the_confirming_read_counts_when_its_field_off_fails() -> None:
    # the polls 50 ms apart: the third sighting confirms the card (100 ms
    # after the first: past confirm_ms); its field-off fails: reported, once
    out, r = _run({2}, 6)
    assert r.resets == 1
    cards = [c for k, c in out if k == scanner.EV_CARD]
    assert cards == [7]


def test_no_failure_no_reset() -> None:
    out, r = _run(set(), 4)
    assert r.resets == 0
    assert out == [(scanner.EV_CARD, 7)]


def test_a_pending_card_survives_the_reset() -> None:
    # the field-off fails at the second sighting (not confirmed yet): the
    # card is still reported once the reader is back
    out, r = _run({1}, 6)
    assert r.resets == 1
    assert [c for k, c in out if k == scanner.EV_CARD] == [7]


class SplitReader(Reader):
    """The driver's split phase as pn532.PN532.step runs it: the poll's
    answer read and the field-off sent at one step (PENDING, ``_op`` 3, the
    answer in ``found``), the field-off's answer at the next; ``events`` the
    scanner's queue length seen at each step."""

    _op = 0
    found = 0

    def __init__(self, uid: bytes, sc_box: list[scanner.Scanner]) -> None:
        super().__init__(uid, off_fails=0)
        self.sc_box = sc_box
        self.queued_at_off: list[int] = []

    def poll_begin(self, max_targets: int = 2) -> None:
        self._op = 1

    def step(self) -> int:
        if self._op == 1:
            self.found = self.poll()
            self._op = 3  # the field-off sent, its answer to come
            return -100  # pn532.PENDING
        # the field-off's answer: what the scanner had queued by then
        self.queued_at_off.append(self.sc_box[0].pending())
        self._op = 0
        self.off = self.field_off()
        return self.found


def test_a_tags_answer_is_taken_while_its_field_goes_off() -> None:
    # (issue 22) the card seen once is queued (EV_SEEN) before the
    # field-off's answer is read, not after; counted once as before; a
    # field-off that fails after that still resets the reader at once, and
    # the card taken before it counts
    box: list[scanner.Scanner] = []
    r = SplitReader(b"\x04\x54\x54\x00\x07\x5a\xa5", box)
    sc = scanner.Scanner([r], CardMap(), confirm_ms=80)
    box.append(sc)
    sc.tick(0)  # set-up
    kinds = []
    now = 0
    for i in range(4):
        now += 50
        r.off_fails = 1 if i == 2 else 0
        sc.tick(now)
        while not sc.reader_ok(0):
            now += 5
            sc.tick(now)
        while sc.pop():
            kinds.append(sc.kind)
    assert r.queued_at_off[0] == 1  # EV_SEEN queued while the field went off
    assert kinds.count(scanner.EV_SEEN) == 1 and kinds.count(scanner.EV_CARD) == 1
    assert r.resets == 1 and scanner.EV_FAULT in kinds
