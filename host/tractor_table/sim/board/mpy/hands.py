# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# What the board's two modes share (the fast board, vboard.py, and the board
# model, picoboot.py): the host's control protocol, parsed here and nowhere
# else, and the hands that put the cards' tags on the seats' readers (which
# tags a card is, when a seat may take the next one, what taking one away
# leaves). The grammar and each mode's answers: docs/firmware.md, "The control
# protocol".
import binascii

SEATS = 4


def tags_of(card):
    """The tags of a control line's card: a card id (the virtual deck's tag),
    -1 (a tag not in the card map), -2 (two tags at once), or a tuple of UIDs
    (a "U" line: these tags put down together)."""
    import chip as C  # pn532sim/chip.py: the virtual deck's tags (spi readers only)

    if isinstance(card, tuple):
        return [C.Tag(u) for u in card]
    if card == -2:
        return [C.Tag(C.UNKNOWN_UID), C.Tag(C.OTHER_UID)]
    if card < 0:
        return [C.Tag(C.UNKNOWN_UID)]
    return [C.Tag(C.deck_uid(card))]


class Hands:
    """The players' hands at the readers: the cards waiting at each seat, the
    tags lying on each reader, and a person's pace between two of them (in
    the board's ms): at one seat more than ``alternate_ms`` apart (A-B-A would
    read as two tags), the same card again only after ``away_ms`` (a card
    resting counts once), a card moved to another seat after ``crosstalk_ms``
    (else it reads as crosstalk); with "K lo hi seed", a card every lo-hi ms at
    the table. When a tag is taken away is the mode's: at once when the
    scanner reported it (fast), or as a person would (the board model)."""

    def __init__(self, chips, decks, alternate_ms, away_ms, crosstalk_ms):
        self.chips = chips
        self.alternate_ms = alternate_ms
        self.away_ms = away_ms
        self.crosstalk_ms = crosstalk_ms
        self.waiting = [[], [], [], []]  # cards to tap, per seat
        self.placed = [None, None, None, None]  # on each reader now: (card, tags)
        self.free_at = [0, 0, 0, 0]  # before this, a seat gets no new tag
        # the last card taken away at each seat, and when
        self.last = [-9, -9, -9, -9]
        self.lifted = [0, 0, 0, 0]
        # when each card was last taken away, at any seat
        self.card_at = [-(1 << 40)] * (54 * decks)
        self.taps_done = 0
        # "K lo hi seed": a person's pace (0: the bots', each card as soon as its seat is free)
        self.pace_lo = 0
        self.pace_hi = 0
        self.next_at = 0
        self._rng = 0x2545F491

    def pace(self, lo, hi, seed):
        self.pace_lo = lo
        self.pace_hi = hi
        self._rng = (seed * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF or 1

    def _below(self, n):
        # xorshift32: the person's own draws (the same run after run)
        x = self._rng
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self._rng = x
        return x % n if n > 0 else 0

    def due(self, s):
        """The ms from which seat s may get its next waiting card."""
        due = self.free_at[s]
        if self.next_at > due:
            due = self.next_at
        w = self.waiting[s]
        gap = self.alternate_ms
        if w and (w[0] == self.last[s] or isinstance(w[0], tuple)):
            gap = self.away_ms  # the same card again (tags given by UID: maybe the same tag)
        if self.lifted[s] + gap > due:
            due = self.lifted[s] + gap
        if w:
            c = w[0]
            if isinstance(c, int) and 0 <= c < len(self.card_at):
                moved = self.card_at[c] + self.crosstalk_ms
                if moved > due:
                    due = moved
        return due

    def next_due_ms(self):
        """When a waiting card is next due at a free reader (ms), or -1."""
        soon = -1
        for s in range(SEATS):
            if self.waiting[s] and self.placed[s] is None:
                d = self.due(s)
                if soon < 0 or d < soon:
                    soon = d
        return soon

    def readers_idle(self):
        """No card waiting, no tag on a reader."""
        for s in range(SEATS):
            if self.waiting[s] or self.placed[s] is not None:
                return False
        return True

    def place(self, s, now):
        """The seat's next card put on its reader (at ``now`` ms); its card."""
        card = self.waiting[s].pop(0)
        tags = tags_of(card)
        chip = self.chips[s]
        for t in tags:
            chip.place(t)
        self.placed[s] = (card, tags)
        if self.pace_hi > 0:
            # a person's pace: the next card at the table this long after this one
            lo = self.pace_lo
            self.next_at = now + lo + self._below(self.pace_hi - lo + 1)
        return card

    def lift(self, s, now, card, wait):
        """The tags on seat s's reader taken away at ``now`` ms, read as
        ``card`` (-9: no card); the seat's next card no sooner than ``wait`` ms."""
        self.last[s] = card
        self.lifted[s] = now
        if 0 <= card < len(self.card_at):
            self.card_at[card] = now
        p = self.placed[s]
        if p is not None:
            chip = self.chips[s]
            for t in p[1]:
                chip.remove(t)
            self.placed[s] = None
            self.free_at[s] = now + wait
            self.taps_done += 1


def _call(board, name, *args):
    f = getattr(board, name, None)
    if f is None:
        raise ValueError("not on this board")
    f(*args)


def control(board, fifo, limit):
    """Take in the host's control lines (board._in, ready when board._ctl
    polls so) while ``fifo`` has fewer than ``limit`` entries (the rest waits
    in the FIFO, the operating system's buffer, not in the heap the firmware
    shares). The seat's inputs, and "P", join ``fifo`` in the host's order as
    (op, seat, arg); the others act at once on the board. A line that is not
    the grammar's is answered "X ..." and skipped. False once the host
    closed the FIFO or sent "Q"."""
    ready = board._ctl
    while len(fifo) < limit and ready.poll(0):
        line = board._in.readline()
        if not line:
            return False  # the host closed the control FIFO
        parts = line.split()
        if not parts:
            continue
        op = parts[0]
        try:
            if op == b"T" or op == b"B" or op == b"U":
                seat = int(parts[1])
                if not 0 <= seat < SEATS:
                    raise ValueError("seat")
                if op == b"U":
                    if board.hands is None:
                        raise ValueError("no readers")
                    fifo.append((b"T", seat, tuple(binascii.unhexlify(h) for h in parts[2:])))
                else:
                    fifo.append((op, seat, int(parts[2])))
            elif op == b"P":
                fifo.append((op, int(parts[1]), 0))
            elif op == b"Q":
                return False
            elif op == b"K":
                if board.hands is None:
                    raise ValueError("no readers")
                board.hands.pace(int(parts[1]), int(parts[2]), int(parts[3]))
            elif op == b"H":
                _call(board, "hang")
            elif op == b"I":
                _call(board, "display_off", int(parts[1]))
            elif op == b"C":
                _call(board, "cut_power", int(parts[1]))
            elif op == b"N":
                _call(board, "reader_missing", int(parts[1]), int(parts[2]))
            elif op == b"J":
                _call(board, "cut_in_flight", int(parts[1]))
            elif op == b"G":
                _call(board, "heap_probe", int(parts[1]) if len(parts) > 1 else 0)
            elif op == b"?":
                _call(board, "state")
            else:
                raise ValueError("op")
        except (ValueError, IndexError) as e:
            # (docs/firmware.md, "The control protocol")
            board._out.write(b"X control: %s: %s\n" % (e, line.strip()))
    return True
