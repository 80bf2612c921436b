# Scripts shared by the table core's tests: a table with the scripted rules,
# a quick draw and burial, one-deck hands, playing a trick seat by seat.
# Plain functions: runs under MicroPython too.
import events as E
import table as T
from fakerules import FakeRules

TWO_H = 13
TWO_S = 0


def make(decks=1, penalty=0, forfeit=False, kitty=False):
    r = FakeRules()
    r.revoke = 1 if forfeit else 0  # revoke = "forfeit"
    r.no_bid = 1 if kitty else 0  # no_bid = "kitty"
    t = T.Table(r, decks=decks, throw_penalty=penalty, chain_hash=_hash)
    return t, r


def _hash(prev, ev):
    # a stand-in hash that depends on order and content
    h = prev
    for x in ev:
        h = (h * 31 + x + 7) & 0xFFFFFFFF
    return h


def kinds(evs):
    return [e[2][0] for e in evs]


def find(evs, kind):
    return [e[2] for e in evs if e[2][0] == kind]


def deal_to_play(t, declarer=1):
    """Seat `declarer` bids 2H, the draw ends, the dealer buries the kitty."""
    t.tap(declarer, TWO_H, 0)
    t.button(declarer, E.BTN_OK, 10)
    t.button(0, E.BTN_OK, 20)
    kitty = [48, 49, 50, 51, 47, 46]  # 4C..AC etc.
    for c in kitty:
        t.tap(declarer, c, 30)
    return kitty


def hands_1deck():
    """Hands of the cards not in the kitty above, 12 each, seat s gets faces s, s+4, ..."""
    rest = [c for c in range(54) if c not in (48, 49, 50, 51, 47, 46)]
    return [rest[s::4] for s in range(4)]


class Log:
    """Drains a table's events as the main loop does (after every input),
    checking each: consecutive indexes, the chained hash, flat lists of ints.
    Keeps every event but the PLAYs (counted), to stay small in a 64K heap."""

    def __init__(self):
        self.evs = []
        self.next = -1
        self.hash = -1
        self.plays = 0

    def pull(self, t):
        for idx, h, ev in t.take_events():
            if self.next >= 0:
                assert idx == self.next, (idx, self.next)
                assert h == _hash(self.hash, ev)
            self.next = idx + 1
            self.hash = h
            for x in ev:
                assert type(x) is int, ev
            assert E.HAND_START <= ev[0] <= E.UNDO
            if ev[0] == E.PLAY:
                self.plays += 1
            else:
                self.evs.append(ev)

    def find(self, kind):
        return [e for e in self.evs if e[0] == kind]


def play_trick(t, cards_by_seat, log=None):
    """The leader plays first; every other seat in turn. Cards by seat."""
    ld = t.turn
    for i in range(4):
        s = (ld + i) & 3
        for c in cards_by_seat[s]:
            t.tap(s, c, 0)
            if log is not None:
                log.pull(t)
        if i == 0:
            t.button(s, E.BTN_OK, 0)
        if log is not None:
            log.pull(t)
