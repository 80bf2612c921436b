"""A poll whose answer came but whose field-off failed: the card is still
reported (before, the read was dropped, and the card was lost at the table:
the board model showed it as a hang), unless the failure resets the reader."""

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

    def reset_begin(self) -> None:
        self.resets += 1

    def reset_end(self) -> None:
        pass


class CardMap:
    def lookup(self, uid: bytes, n: int) -> int:
        return 7


def _events(fault_after: int) -> tuple[list[tuple[int, int]], Reader]:
    r = Reader(b"\x04\x54\x54\x00\x07\x5a\xa5", off_fails=1)
    sc = scanner.Scanner([r], CardMap(), fault_after=fault_after)
    out = []
    sc.tick(0)  # set-up
    sc.tick(10)  # the poll whose field-off fails
    while sc.pop():
        out.append((sc.kind, sc.card))
    return out, r


def test_read_kept_when_the_field_off_fails_once() -> None:
    out, r = _events(fault_after=2)
    assert out == [(scanner.EV_CARD, 7)]
    assert r.resets == 0


def test_read_not_trusted_when_the_failure_resets_the_reader() -> None:
    out, r = _events(fault_after=1)
    assert [k for k, _ in out] == [scanner.EV_FAULT]
    assert r.resets == 1
