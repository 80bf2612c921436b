"""The console's view of a find-a-friend hand (``partners = "called"``): the
levels per seat, the call, "partner unknown" until the table names the
partner, then the attackers' score; the hand's end with the levels per seat."""

from __future__ import annotations

from tractor_table.console.model import GameView
from tractor_table.events import EV


def test_the_call_and_the_partner_as_the_table_tells_them() -> None:
    g = GameView()
    g.add([EV.HAND_START, 2, 1, 2, 3, 4, 0, 5, 6])
    g.add([EV.TRUMP, 1, 1, 1])
    g.add([EV.KITTY, 1, 0, *range(39, 47)])
    assert "levels    5 6 7 8 (S0 S1 S2 S3)" in g.text()
    g.add([EV.CALL, 1, 25])
    g.add([EV.PLAY, 0, 1, 3])
    g.add([EV.TRICK, 0, 1, 10, -1])
    text = g.text()
    assert "call      AH, partner unknown" in text and "attackers partner unknown" in text
    g.add([EV.PARTNER, 1, 3, 20])
    text = g.text()
    assert "call      AH, partner S3" in text and "attackers 20 points" in text
    g.add([EV.PARTNER, 1, -1, 0])
    assert "partner none: the dealer plays alone" in g.text()
    g.add([EV.HAND_END, 20, 0, 0, 0, 3, 4, 5, -1, 6, 7])
    text = g.text()
    assert "levels    6 7 8 9 (S0 S1 S2 S3)" in text
    assert "levels 6 7 8 9, next dealer S3" in text


def test_fixed_partners_read_as_before() -> None:
    g = GameView()
    g.add([EV.HAND_START, 1, 0, 2, 3, 4, 0])
    g.add([EV.HAND_END, 50, 0, 0, 0, 1, 3, 5, -1])
    text = g.text()
    assert "levels    5/7 (side 0 / side 1)" in text and "call" not in text
