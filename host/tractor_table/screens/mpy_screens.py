# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# Every screen of the table's display, drawn by the firmware's own code
# (display.DisplayModel into a framebuf, as on the Pico) while the real table
# core (table.py, main.App, the device rules engine) plays a scripted hand of
# one deck. For each screen one line goes to stdout:
#     SCREEN <name>|<the 8 text lines joined by "|">|<the 1024-byte frame, hex>
# (the host's tractor_table.screens turns the frames into PNG pictures).
# With a panel's name as argument (SSD1306, SSD1309) each frame also goes
# through that panel's firmware driver (ssd1306.py, ssd1309.py: its power-up,
# reset, window and page transfers) into the board model's panel model
# (ssd1306sim.py, ssd1309sim.py, on the path), and the frame printed is what
# the model's glass shows.
import binascii
import sys

import events as E
import main as M
import table as T
import tablerules

PANEL = sys.argv[1] if len(sys.argv) > 1 else ""


class PanelBus:
    # machine.I2C's writes, straight into the panel model
    def __init__(self, chip):
        self.chip = chip

    def writeto(self, addr, buf):
        self.chip.write(bytes(buf))

    def writevto(self, addr, bufs):
        self.chip.write_parts(bufs)


class ResetPin:
    # the pin wired to the panel's RES#
    def __init__(self, chip):
        self.chip = chip

    def value(self, v):
        self.chip.set_reset(v)


def panel_pair(kind):
    """The panel's firmware driver on its model: (driver, model)."""
    if kind == "SSD1309":
        import ssd1309
        import ssd1309sim

        chip = ssd1309sim.SSD1309Chip(0x3C, reset_wired=True)
        return ssd1309.SSD1309(PanelBus(chip), 0x3C, 128, 64, ResetPin(chip)), chip
    import ssd1306
    import ssd1306sim

    chip = ssd1306sim.SSD1306Chip(0x3C)
    return ssd1306.SSD1306(PanelBus(chip), 0x3C, 128, 64), chip


class Port:
    def read(self):
        return None

    def write(self, data):
        return True


class ScreenBoard:
    decks = 1
    problem = ""

    def __init__(self):
        self.now = 1000
        self.port = Port()
        self.store = None
        self.tag_sink = None  # the readers report tags: enroll mode can start
        self.tap_q = []
        self.press_q = []
        self.frame = None
        self.lines = None
        self.panel = None  # with PANEL: its driver and model (panel_pair)
        self.chip = None
        self.seed = 7

    def ticks_ms(self):
        return self.now

    def rand(self):
        self.seed = (self.seed * 1103515245 + 12345) & 0x3FFFFFFF
        return self.seed

    def taps(self, now):
        q = self.tap_q
        self.tap_q = []
        return q

    def presses(self, now):
        q = self.press_q
        self.press_q = []
        return q

    def show(self, buf, lines):
        self.lines = list(lines)
        if PANEL:
            if self.panel is None:
                self.panel, self.chip = panel_pair(PANEL)
                self.panel.init()
            self.panel.update(buf, lines)
            self.frame = bytes(self.chip.glass())
        else:
            self.frame = bytes(buf)

    def beep(self, s):
        pass

    def running(self):
        return True


def card(name, copy=0):
    """A card id from the notation of docs/rules.md ('AS', 'TH', 'SJ', 'BJ')."""
    if name == "SJ":
        f = 52
    elif name == "BJ":
        f = 53
    else:
        f = "SHDC".index(name[-1]) * 13 + "23456789TJQKA".index(name[0])
    return copy * 54 + f


class ScreenScript:
    def __init__(self, no_bid=0, revoke=0, hand_scan=False):
        self.board = ScreenBoard()
        rules = tablerules.TableRules(1, no_bid=no_bid, revoke=revoke)
        self.app = M.App(self.board, rules, decks=1, hand_scan=hand_scan)
        self.step()

    def step(self, ms=10):
        b = self.board
        b.now += ms
        self.app.dirty = True
        # every step draws its frame: the main loop redraws at most every
        # REDRAW_MS, so the script's steps are as far apart as the screens' frames
        self.app.shown_at = b.now - M.REDRAW_MS
        self.app.step(b.now)
        if self.t.due:
            # the work a play left (a trick's end, a hand's: table.Table.work,
            # a piece a turn after the play's frame), done before the script
            # goes on, and the frame of its end drawn
            while self.t.due:
                b.now += 1
                self.app.step(b.now)
            self.step(1)

    def tap(self, seat, *names):
        for n in names:
            self.board.tap_q.append((seat, n if isinstance(n, int) else card(n)))
        self.step()

    def press(self, seat, kind=E.BTN_OK):
        self.board.press_q.append((seat, kind))
        self.step()

    def play(self, seat, *names):
        """A lead is ended with OK; a follow ends by itself at the lead's count."""
        lead = not self.t.lead
        self.tap(seat, *names)
        if lead:
            self.press(seat)

    def shot(self, name):
        self.step()
        b = self.board
        print("SCREEN %s|%s|%s" % (name, "|".join(b.lines), binascii.hexlify(b.frame).decode()))

    def quiet(self):
        # let the message line time out (table.MESSAGE_MS)
        self.step(T.MESSAGE_MS + 10)

    @property
    def t(self):
        return self.app.table


# One deck at level 2, hearts trump (S1 shows 2H): every trick is four cards
# of one suit, one from each seat, so nobody revokes. The kitty is six trumps.
TRICKS = (
    # the seat that plays each card: S0, S1, S2, S3
    ("AS", "KS", "QS", "JS"), ("TS", "9S", "8S", "7S"), ("6S", "5S", "4S", "3S"),
    ("AD", "KD", "QD", "JD"), ("TD", "9D", "8D", "7D"), ("6D", "5D", "4D", "3D"),
    ("AC", "KC", "QC", "JC"), ("TC", "9C", "8C", "7C"), ("6C", "5C", "4C", "3C"),
    ("AH", "2H", "KH", "QH"), ("JH", "TH", "9H", "8H"), ("BJ", "7H", "6H", "5H"),
)
KITTY = ("SJ", "4H", "3H", "2S", "2D", "2C")


def play_tricks(s, first, last, shots=False):
    for k in range(first, last):
        cards = TRICKS[k]
        for i in range(4):
            seat = s.t.turn
            s.play(seat, cards[seat])
            if shots and k == 0 and i == 1:
                s.shot("play: the second seat has followed")
            if shots and k == 0 and i == 3:
                s.shot("play: a trick won")


def bid_and_bury(s):
    s.play(1, "2H")
    s.press(1)  # the first bidder deals: the draw is over
    s.tap(1, *KITTY)
    s.press(1)
    s.quiet()


def main():
    s = ScreenScript()
    s.shot("draw: no bid yet")
    s.play(2, "3S")
    s.shot("error: not a bid (3S is no level card)")
    s.quiet()
    s.play(1, "2H")
    s.shot("draw and bid: S1 shows 2H")
    s.quiet()
    s.play(3, "2S")
    s.shot("error: bid too weak")
    s.quiet()
    s.press(1)  # the first bidder deals: the draw is over
    s.shot("burial: the dealer buries the kitty")
    s.tap(1, *KITTY[:3])
    s.shot("burial: three cards of six tapped")
    s.tap(1, *KITTY[3:5])
    s.press(1)
    s.shot("error: kitty count")
    s.quiet()
    s.tap(1, *KITTY)
    s.press(1)
    s.quiet()
    s.shot("play: the first lead")
    s.tap(2, "AS")
    s.shot("error: out of turn")
    s.quiet()
    s.play(1, "KS", "KD")
    s.shot("error: mixed suits")
    s.quiet()
    s.press(1)
    s.shot("error: no cards")
    s.quiet()
    s.tap(1, T.UNKNOWN_TAG)
    s.shot("error: unknown card")
    s.quiet()
    s.tap(1, T.READER_ERROR)
    s.shot("error: reader fault (two cards at once)")
    s.quiet()
    s.tap(1, "SJ")
    s.shot("error: seen twice (it was buried)")
    s.quiet()
    play_tricks(s, 0, 1, shots=True)
    s.quiet()
    play_tricks(s, 1, 12)
    s.shot("hand end: the score, OK for the next hand")
    print("# hand 1 over: %s" % s.board.lines[2])

    # a throw challenged: on a new table, S1 leads KS QS
    c = ScreenScript()
    bid_and_bury(c)
    c.play(1, "KS", "QS")
    c.shot("play: a throw on the table")
    c.tap(2, "3S")
    c.press(2)
    c.shot("error: wrong count (one card on a lead of two)")
    c.quiet()
    c.press(2, E.BTN_UNDO)
    c.quiet()
    c.press(2, E.BTN_CHALLENGE)
    c.shot("challenge: S2 challenges the throw")
    c.tap(2, "3S")
    c.press(2)
    c.shot("error: beats nothing (3S beats no unit of the throw)")
    c.quiet()
    c.press(3, E.BTN_CHALLENGE)
    c.tap(3, "AS")
    c.press(3)
    c.shot("challenge: S3 shows AS, the throw fails, QS stands as the lead")

    # revoke = "forfeit": S2 shows a heart on a spade lead, then plays a spade
    r = ScreenScript(revoke=1)
    bid_and_bury(r)
    r.play(1, "KS")
    r.play(2, "9H")
    r.play(3, "JS")
    r.play(0, "AS")
    r.play(0, "TS")
    r.play(1, "9S")
    r.play(2, "QS")
    r.shot("error: a revoke proven (revoke = forfeit: the hand is lost)")

    # hand_scan: every seat scans its hand after the draw (the dealer with the kitty)
    h = ScreenScript(hand_scan=True)
    h.play(1, "2H")
    h.press(1)
    h.quiet()
    hands = [[TRICKS[k][s] for k in range(12)] for s in range(4)]
    hands[1] += list(KITTY)
    h.tap(0, *hands[0][:5])
    h.shot("hand scan: S0 scanning its hand")
    h.tap(0, *hands[0][5:])
    h.press(0)
    for seat in (1, 2, 3):
        h.tap(seat, *hands[seat])
        h.press(seat)
    h.quiet()
    h.tap(1, *KITTY)
    h.press(1)
    h.quiet()
    h.tap(1, "AS")
    h.shot("error: not in hand (hand scan: AS is S0's)")

    # no_bid = "kitty": after the first hand nobody bids, the dealer turns the kitty up
    k = ScreenScript(no_bid=1)
    bid_and_bury(k)
    play_tricks(k, 0, 12)
    k.press(0)
    k.quiet()
    k.shot("draw: hand 2, nobody bids")
    k.press(k.t.dealer)
    k.shot("kitty turned up: nobody bid, the dealer turns it up")
    k.tap(k.t.dealer, "4D", "JC", "9S")
    k.shot("kitty turned up: three cards shown")


def enroll_and_power_up():
    s = ScreenScript()
    s.app._app([E.APP_ENROLL, 0])
    s.shot("enrollment: enroll mode at seat 0")
    b = ScreenBoard()
    b.problem = "no card map: cards.bin"
    app = M.App(b, tablerules.TableRules(1), decks=1)
    app.table.say(b.problem, b.now)
    app.dirty = True
    app.step(b.now + 10)
    print("SCREEN %s|%s|%s" % ("self-test: a problem found at power-up", "|".join(b.lines),
                                binascii.hexlify(b.frame).decode()))


main()
enroll_and_power_up()
sys.exit(0)
