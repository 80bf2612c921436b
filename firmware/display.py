# The table's display: the renderer (DisplayModel) that draws the table
# core's state as 8 lines of 16 characters into a MONO_VLSB frame of the
# geometry it is given (128x64, what the layout needs; hwconfig.DISPLAY_WIDTH
# and DISPLAY_HEIGHT from hardware/pinmap.toml). The panel that shows the
# frame has a driver of its own, which sends the frame's pages that changed
# (ssd1306.py or ssd1309.py; picoboard.py picks it from the pin map):
# docs/display.md.
#
# Dependencies: framebuf (the rp2 port ships it), micropython.const.
#
# The model needs no hardware: it draws into a framebuf and keeps the text of
# each line, so tests and the virtual table read what a player would see.
# Under CPython (host tools, tests) there is no framebuf: the model then keeps
# the lines only (HAVE_FRAMEBUF is False).
try:
    import framebuf

    HAVE_FRAMEBUF = True
except ImportError:
    framebuf = None
    HAVE_FRAMEBUF = False

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


import tablebase as T

# the layout: 8 lines of 16 characters of framebuf's 8x8 font
WIDTH = const(128)
HEIGHT = const(64)
LINES = const(8)
COLS = const(16)


RANKS = "23456789TJQKA"
SUITS = "SHDC"
TRUMPS = ("S", "H", "D", "C", "NT")


def card_name(card):
    """The notation of docs/rules.md for a card id: 'AS', 'TH', 'SJ', 'BJ'."""
    f = card % 54
    if f == 52:
        return "SJ"
    if f == 53:
        return "BJ"
    return RANKS[f % 13] + SUITS[f // 13]


def cards_text(cards, room):
    """Card names joined by no space (2 chars each), cut to `room` characters."""
    s = ""
    for c in cards:
        if len(s) + 2 > room:
            return s[: room - 1] + "+"
        s += card_name(c)
    return s


def readers_text(down):
    """The message line for the seats whose reader does not answer (a bit per
    seat): "S2 no reader", "no reader S0,2", "no reader S0-S3"."""
    if down & 15 == 15:
        return "no reader S0-S3"
    # a loop, not a comprehension and a generator (each a code object of its
    # own, held as long as the table runs: issue 21)
    seats = ""
    for s in range(4):
        if down >> s & 1:
            seats += "," + str(s) if seats else str(s)
    if len(seats) == 1:
        return "S%s no reader" % seats
    return "no reader S" + seats


def seat_text(t, s, ph):
    """Seat s's line (3 + s) for the table's state in phase ph, before the
    card its reader saw once (DisplayModel.seen_lines) and find-a-friend's
    points (tablefriend.display)."""
    p = t.plays[s] if ph == T.PLAY else None
    mark = ">" if s == t.turn else " "
    room = 11 if s == t.challenger else 12  # a challenger's line starts with "?"
    if ph == T.SCAN:
        n = t.hand_size + (t.kitty_size if s == t.dealer else 0)
        txt = "%d/%d" % (len(t.hands[s]), n)
    elif p is not None:
        txt = cards_text(p, room)
    elif ph == T.REVEAL and s == t.dealer:
        txt = cards_text(t.pending[s], room)  # the kitty, face up
    elif t.pending[s]:
        n = len(t.pending[s])
        txt = "." * n if n <= room else "%d cards" % n
    elif ph == T.PLAY and not t.lead and t.tricks and t.tricks[-1][1] == s:
        txt = "won last"
    else:
        txt = ""
    if s == t.challenger:
        txt = "?" + txt
    return mark + "S%d " % s + txt


def play_line(t):
    """Line 2 in play: whose turn, or the trick done (its end being worked
    out: table.Table.work, turn -1)."""
    return "trick%d S%d plays" % (len(t.tricks) + 1, t.turn) if t.turn >= 0 else "trick done"


class DisplayModel:
    """Renders a table.Table into 8 text lines and a MONO_VLSB frame of
    ``width`` x ``height`` pixels (at least 128x64, rows a multiple of 8: the
    8 lines of 16 characters at its top left)."""

    _drawn: "list[str | None]"

    def __init__(self, width=WIDTH, height=HEIGHT):
        if width < WIDTH or height < HEIGHT or height % 8:
            raise ValueError("display %dx%d: the screen needs 128x64" % (width, height))
        self.buf = bytearray(width * height // 8)
        self.fb = None
        if framebuf is not None:
            self.fb = framebuf.FrameBuffer(self.buf, width, height, framebuf.MONO_VLSB)
        self.lines = [""] * LINES
        # lines longer than COLS met while rendering (each cut to COLS): a
        # message that does not fit is a bug (tests/table/test_display_words.py)
        self.cut = 0
        self.cut_text = ""
        # set by main.App from the board: the card each seat's reader saw once
        # and has not confirmed yet (card id, -2 a tag not in the card map,
        # -1 none; None: no readers), drawn "(AS)" after the seat's line; and
        # the seats whose reader does not answer (a bit per seat)
        self.shown = None
        self.readers_down = 0
        self._drawn = [None] * LINES  # each line's text as the buffer holds it
        # the seat lines as text_lines made them, before the cards seen once
        self._seat = [""] * 4
        self._inv = 0  # the message line is in inverse video

    def text_lines(self, t):
        """The 8 lines for the table's state (each at most 16 characters; a
        longer one is cut and counted in ``cut``)."""
        lines = self.lines
        lv = t.levels
        trump = TRUMPS[t.trump] if t.trump >= 0 else "?"
        dealer = ("S%d" % t.dealer) if t.dealer >= 0 else "?"
        ph = t.phase
        lines[0] = "H%d %s/%s %s" % (t.hand_no, RANKS[lv[0]], RANKS[lv[1]], trump)
        lines[1] = "dealer %s pts%d" % (dealer, t.score)
        if ph == T.DEAL:
            if t.bids:
                b = t.bids[-1]
                lines[2] = "bid S%d %s" % (b[0], cards_text(b[1], 8))
            else:
                lines[2] = "draw: no bid"
        elif ph == T.KITTY or ph == T.REVEAL:
            lines[2] = "S%d %s %d/%d" % (
                t.dealer,
                "bury" if ph == T.KITTY else "kitty up",
                len(t.pending[t.dealer]),
                t.kitty_size,
            )
        elif ph == T.PLAY:
            # turn -1: the trick's (the hand's) last card is in, its end not
            # worked out yet (table.Table.work)
            lines[2] = play_line(t)

        elif ph == T.SCAN:
            done = 0
            for s in range(4):
                if t.scan_done & (1 << s):
                    done += 1
            lines[2] = "scan hands %d/4" % done
        elif ph == T.HAND_END:
            if t.forfeit:
                lines[2] = "revoke S%d OK=nxt" % t.forfeit[1]
            else:
                # 16 columns with a 3-digit score (up to 400 points, 4 decks)
                lines[2] = ("over %d time up" if t.time_called else "over %d OK=next") % t.score
        else:
            lines[2] = "match: side %d" % t.match_winner
        for s in range(4):
            lines[3 + s] = seat_text(t, s, ph)
        lines[7] = t.message
        if t.friend:
            # partners = "called": levels per seat, the call and the partner
            t.friend.display(t, lines, trump, dealer)  # tablefriend.py
        seat = self._seat
        for s in range(4):
            seat[s] = lines[3 + s]
        if self.readers_down and not t.message:
            lines[7] = readers_text(self.readers_down)
        elif t.time_called and not t.message:
            lines[7] = "TIME: last deal"
        self._cut(lines, 0, 3)
        self._cut(lines, 7, 8)
        return self.seen_lines()

    def seen_lines(self):
        """The seat lines of the last text_lines() again, each with the card
        its reader saw once and has not confirmed yet (``shown``); the other
        lines as they were: for a change of those cards alone (main.App.step:
        about a tenth of text_lines' time on the chip)."""
        lines = self.lines
        shown = self.shown
        seat = self._seat
        for s in range(4):
            ln = seat[s]
            c = -1 if shown is None else shown[s]
            if c != -1:
                # seen once, not counted yet: at the end of the line, in brackets
                tag = "(??)" if c < 0 else "(" + card_name(c) + ")"
                ln = ln[: COLS - 5] + " " + tag if len(ln) > COLS - 5 else ln + " " + tag
            lines[3 + s] = ln
        self._cut(lines, 3, 7)
        return lines

    def _cut(self, lines, i, end):
        # lines i to end - 1 cut to COLS, each cut counted
        while i < end:
            if len(lines[i]) > COLS:
                self.cut += 1
                self.cut_text = lines[i]
                lines[i] = lines[i][:COLS]
            i += 1

    def render(self, t, seen=False, seats=0):
        """The frame of the table's state; ``seen``: only the cards seen once
        changed since the last text lines (seen_lines); ``seats`` (a bit a
        seat): those seats' lines made again too, the others as they were (a
        counted tap's frame first: main.App.step, issue 22; all of them at a
        find-a-friend table, whose seat lines carry the seats' points, or
        before a first frame)."""
        if seats:
            seen = not t.friend and self._drawn[7] is not None
            for s in range(4):
                if seen and seats >> s & 1:
                    self._seat[s] = seat_text(t, s, t.phase)
        lines = self.seen_lines() if seen else self.text_lines(t)
        if seats & 16:
            lines[2] = play_line(t)  # (play_rest: in play)
            self._cut(lines, 2, 3)
        fb = self.fb
        if fb is None:
            return self.buf
        # only the lines that changed since the last frame are drawn again (a
        # tap changes one or two); the message line in inverse video: it is
        # what needs attention
        drawn = self._drawn
        inv = 1 if t.message else 0
        for i in range(LINES):
            ln = lines[i]
            if i == 7:
                if ln == drawn[7] and inv == self._inv:
                    break
                self._inv = inv
            elif ln == drawn[i]:
                continue
            drawn[i] = ln
            y = i * 8
            c = inv if i == 7 else 0
            fb.fill_rect(0, y, WIDTH, 8, c)
            fb.text(ln, 0, y, 1 - c)
        return self.buf

    def play_rest(self, t, seats):
        """After a tap's own line (render(t, False, seats)), in play: the
        other seat lines (the turn's mark moves, a lead clears "won last")
        and the trick's line made again and drawn, the only lines a play
        changes (the score and the levels change at a trick's end, a piece
        of the table's work): not all eight (issue 22). False, with nothing
        drawn, in another phase, at a find-a-friend table or before a first
        frame: the caller renders the whole frame."""
        if t.friend or self._drawn[7] is None or t.phase != T.PLAY:
            return False
        self.render(t, False, (15 & ~seats) | 16)
        return True


def spans(keys, sent, whole, n, cols, span):
    """The panel drivers' columns to send (ssd1306/ssd1309.update): for each
    page p < n, span[2p] and span[2p + 1] the first and last character column
    of keys[p] that differs from sent[p] (the line last sent; a > b: none);
    the whole line when sent is None or p is in the bit mask whole."""
    for p in range(n):
        a = 0
        b = cols - 1
        if sent is not None:
            k = keys[p]
            o = sent[p]
            if k == o:
                a = 1  # nothing: a > b
                b = 0
            elif not (whole >> p) & 1:
                # the first and last character that differ (a space
                # and no character look alike), as bytes: framebuf draws
                # a glyph a byte; no single-character strings, which
                # the port interns
                mk = k.encode()
                mo = o.encode()
                lk = len(mk)
                lo = len(mo)
                if lk < lo:
                    mk, mo, lk, lo = mo, mk, lo, lk  # mk the longer
                if lk > cols:
                    lk = cols
                if lo > lk:
                    lo = lk
                while a < lo and mk[a] == mo[a]:
                    a += 1
                if a == lo:
                    while a < lk and mk[a] == 32:
                        a += 1
                b = lk - 1
                while b >= lo and b > a and mk[b] == 32:
                    b -= 1
                if b < lo:
                    while b > a and mk[b] == mo[b]:
                        b -= 1
        span[p << 1] = a
        span[(p << 1) | 1] = b


def send(drv, buf, keys, whole):
    """The panel drivers' update (ssd1306.SSD1306.update, ssd1309.SSD1309.update:
    the same addressing, the same bytes), one copy: the windows of what changed
    of the frame ``buf``, sent on drv's bus."""
    sent = drv._sent
    n = drv.pages
    drv._sent = None
    span = drv._span
    spans(keys, sent, whole, n, drv.width >> 3, span)
    w = drv._win
    vec = drv._vec
    mv = drv._mv if drv._buf is buf else None
    if mv is None:
        mv = drv._mv = memoryview(buf)
        drv._buf = buf
    width = drv.width
    i2c = drv.i2c
    first = True
    p = 0
    while p < n:
        a = span[p << 1]
        b = span[(p << 1) | 1]
        if a > b:
            p += 1
            continue
        q = p  # pages p to q: the same columns (all of them when the RAM is unknown)
        while q < n - 1 and span[(q + 1) << 1] == a and span[((q + 1) << 1) | 1] == b:
            q += 1
        w[2] = a << 3
        w[3] = (b << 3) | 7
        w[5] = p
        w[6] = q
        i2c.writeto(drv.addr, w)
        # a data transaction a page (the RAM's pointer runs on through the window)
        while p <= q:
            if not first and drv.between is not None:
                drv.between()
            first = False
            base = p * width
            vec[1] = mv[base + (a << 3) : base + (b << 3) + 8]
            i2c.writevto(drv.addr, vec)
            p += 1
    vec[1] = None
    sent = drv._keys
    for p in range(n):
        sent[p] = keys[p]
    drv._sent = sent
