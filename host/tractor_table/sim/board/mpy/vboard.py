# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The virtual table's board: what firmware/main.py needs from the hardware,
# simulated for MicroPython's unix port.
#
# - the USB serial is this process's stdin/stdout (a pseudo-terminal that the
#   host opens with pyserial), through the firmware's own ttlink_io.StdioPort;
# - the seat readers and buttons are driven by the host through a control
#   FIFO, one command per line:  "T seat card" (a card tapped at a seat; card
#   -1 = an unknown tag, -2 = two tags at once), "U seat uidhex [uidhex]" (tags
#   with these UIDs put down together at a seat's reader; spi readers only),
#   "B seat kind" (a button press, events.BTN_*), "P n" (answered "P n" on the
#   output FIFO once every command before it has been taken in and handled:
#   what the table did with them is reported before it), "Q" (stop);
# - readers "spi" (the default): the firmware's own scanner.py and pn532.py
#   drivers run against four simulated PN532 chips (the byte-accurate chip
#   model of tractor_table/sim/pn532sim/chip.py) on a simulated SPI bus in place of
#   machine.SPI, and cards.bin (the card map the host exported) turns tag UIDs
#   into cards. A tapped card is a tag placed on the seat's reader and taken
#   away once the scanner reported it. Readers "direct": taps go to the table
#   core as card ids (no scanner; for comparison and debugging);
# - the display and the buzzer are reported on an output FIFO, one line each:
#   "D line0|line1|...|line7" after every render, "S sound" for each sound;
# - flash is a folder on the host (persist.Store); its file "unique_id" holds
#   the table's identity (8 bytes, as machine.unique_id()), made with the table.
import select
import sys
import time

import persist
import ttlink_io


class SimReaders:
    """Four simulated PN532s on a simulated SPI bus, read by the firmware's scanner."""

    def __init__(self, cards_path, decks=2):
        import gc

        import hwconfig as H

        # the simulation first, measured: it is not firmware
        gc.collect()
        before = gc.mem_alloc()
        import chip

        self.chip = chip
        self.clock = chip.SimClock(0)
        self.bus = chip.SimSpiBus(self.clock, H.SPI_BAUDRATE)
        self.chips = []
        pins = []
        for s in range(H.SEATS):
            c = chip.Chip(self.clock, "seat" + str(s))
            pins.append(self.bus.attach(c))
            self.chips.append(c)
        # the simulation's own state (the hand that puts tags down): not firmware either
        self.waiting = [[], [], [], []]  # cards to tap, per seat
        self.placed = [None, None, None, None]  # tags on each reader now
        self.free_at = [0, 0, 0, 0]  # sim ms before which a seat gets no new tag
        # the last card read at each seat, and when it was lifted: the scanner
        # takes the same tag again only after away_ms (a card resting counts once)
        self.last = [-9, -9, -9, -9]
        self.lifted = [0, 0, 0, 0]
        # when each card was last read, at any seat: a card moves to another
        # seat no faster than a hand can carry it (else it reads as crosstalk)
        self.card_at = [-(1 << 20)] * (54 * decks)
        self.taps_done = 0
        gc.collect()
        self.sim_bytes = gc.mem_alloc() - before
        # the firmware's own reader stack, as on the Pico
        import cardmap
        import pn532
        import scanner

        self.S = scanner
        drivers = []
        for s in range(H.SEATS):
            drivers.append(pn532.PN532(self.bus, pins[s][0], pins[s][1], clock=self.clock))
        self.cards = cardmap.load(cards_path)
        self.scanner = scanner.Scanner(drivers, self.cards)

    def _due(self, s):
        """Sim ms from which seat s may get its next waiting card. Simulated
        time runs much faster than a player's hand: taps at one seat are spaced
        as a person's would be (more than alternate_ms apart, else A-B-A reads
        as two tags on the reader; the same card again only after away_ms)."""
        sc = self.scanner
        due = self.free_at[s]
        gap = sc.alternate_ms + 50
        if self.waiting[s] and (self.waiting[s][0] == self.last[s] or isinstance(self.waiting[s][0], tuple)):
            # the same card again (tags given by UID: maybe the same tag again)
            gap = sc.away_ms + 50
        if self.lifted[s] + gap > due:
            due = self.lifted[s] + gap
        if self.waiting[s]:
            c = self.waiting[s][0]
            if isinstance(c, int) and 0 <= c < len(self.card_at):
                moved = self.card_at[c] + sc.crosstalk_ms + 50
                if moved > due:
                    due = moved
        return due

    def _place(self, now):
        any_placed = False
        for s in range(4):
            if self.placed[s] is None and self.waiting[s] and now >= self._due(s):
                card = self.waiting[s].pop(0)
                C = self.chip  # the virtual deck's tags: chip.deck_uid, UNKNOWN_UID, OTHER_UID
                if isinstance(card, tuple):
                    tags = [C.Tag(u) for u in card]
                elif card == -2:
                    tags = [C.Tag(C.UNKNOWN_UID), C.Tag(C.OTHER_UID)]
                elif card < 0:
                    tags = [C.Tag(C.UNKNOWN_UID)]
                else:
                    tags = [C.Tag(C.deck_uid(card))]
                for t in tags:
                    self.chips[s].place(t)
                self.placed[s] = tags
            if self.placed[s] is not None:
                any_placed = True
        return any_placed

    def _lift(self, s, now, wait, card=-9):
        tags = self.placed[s]
        self.last[s] = card
        self.lifted[s] = now
        if tags is not None:
            for t in tags:
                self.chips[s].remove(t)
            self.placed[s] = None
            self.free_at[s] = now + wait

    def poll(self, out, sink=None):
        """Run the scanner until the tags on the readers are reported (bounded);
        ``sink`` (enroll mode) sees each scanner event first, as on the Pico."""
        S = self.S
        sc = self.scanner
        clk = self.clock
        busy = self._place(clk.ticks_ms())
        if not busy:
            # a card waits only for its seat's away time: nothing else happens
            # at the readers meanwhile, so let simulated time jump there
            soon = -1
            for s in range(4):
                if self.waiting[s] and self.placed[s] is None:
                    d = self._due(s)
                    if soon < 0 or d < soon:
                        soon = d
            if soon > clk.ticks_ms():
                clk.advance_us((soon - clk.ticks_ms()) * 1000)
                # the readers were polled, empty, all that time: one round of
                # empty polls at the new time (a seat that saw two tags is
                # clear again only after an empty poll away_ms later)
                for _ in range(sc.seats):
                    sc.tick(clk.ticks_ms())
                busy = self._place(clk.ticks_ms())
        for _ in range(400 if busy else 1):
            for c in self.chips:
                # the chip model logs every command (for its tests): keep it short
                if len(c.commands) > 16:
                    del c.commands[:]
            t = clk.ticks_us()
            sc.tick(clk.ticks_ms())
            while sc.pop():
                if sink is not None:
                    sink(sc)
                k = sc.kind
                s = sc.seat
                now = clk.ticks_ms()
                if k == S.EV_CARD:
                    out.append((s, sc.card))
                    if 0 <= sc.card < len(self.card_at):
                        self.card_at[sc.card] = now
                    self._lift(s, now, 0, sc.card)
                elif k == S.EV_UNKNOWN:
                    out.append((s, -1))
                    self._lift(s, now, sc.away_ms + 50)
                elif k == S.EV_TWO or k == S.EV_CROSSTALK:
                    out.append((s, -2))
                    self._lift(s, now, sc.away_ms + 50)
                elif k == S.EV_FAULT:
                    out.append((s, -2))
                self.taps_done += 1
            if clk.ticks_us() == t:
                clk.advance_us(1000)  # every reader waiting: let time pass
            if busy and not self._place(clk.ticks_ms()):
                break


def _read_uid(store_path):
    i = store_path.rfind("/")
    try:
        with open(store_path[: i + 1] + UID_FILE, "rb") as f:
            return f.read(8) or None
    except OSError:
        return None


UID_FILE = "unique_id"
# an idle table sleeps at most this long (ms) between turns of its loop
IDLE_MS = 50


class VirtualBoard:
    def __init__(self, ctl_in, ctl_out, store_path, decks=2, readers=None):
        self.decks = decks
        self.readers = readers
        self.problem = ""
        self._in = open(ctl_in, "rb")
        self._out = open(ctl_out, "wb")
        self._poll = select.poll()
        self._poll.register(self._in, select.POLLIN)
        self._wake = select.poll()  # the host's input: control lines, the link
        self._wake.register(self._in, select.POLLIN)
        self._wake.register(sys.stdin, select.POLLIN)
        self.port = ttlink_io.StdioPort()
        self.store = persist.Store(store_path)
        # the table's identity, as machine.unique_id() on a Pico: 8 bytes kept
        # in the flash folder (the host's runner writes it when the table is made)
        self.uid = _read_uid(store_path)
        self._taps = []
        self._presses = []
        self._fifo = []  # control commands in the order the host sent them
        self._run = True
        self.frames = 0
        if readers is not None:
            self.tag_sink = None  # main.App's enroll mode (firmware/enrollmode.py)

    def ticks_ms(self):
        return time.ticks_ms()

    def sleep_ms(self, ms):
        # Nobody at the table (no command waiting, nothing on the readers):
        # sleep until the host writes (a control line or a link frame), at
        # most IDLE_MS, instead of waking every turn's few ms (an idle virtual
        # table took about 40 % of a core); the main loop's own deadlines (the
        # link's heartbeat, a message's time-out) are seconds away.
        if self.store.busy():
            return  # a save in steps: its next piece at once (main.App.run)
        if ms > 0 and not self._fifo and not self._taps and not self._presses and self._readers_idle():
            self._wake.poll(IDLE_MS if ms < IDLE_MS else ms)
            return
        time.sleep_ms(ms)

    def rand(self):
        return ttlink_io.random32()

    def running(self):
        return self._run

    def _control(self):
        # at most a few commands taken in at a time: the rest waits in the FIFO
        # (the operating system's buffer), not in this heap, which the
        # firmware shares
        while len(self._fifo) < 4 and self._poll.poll(0):
            line = self._in.readline()
            if not line:
                self._run = False  # the host closed the control FIFO
                return
            parts = line.split()
            if not parts:
                continue
            op = parts[0]
            if op == b"P":
                self._fifo.append((op, int(parts[1]), 0))
            elif op == b"T" or op == b"B":
                self._fifo.append((op, int(parts[1]), int(parts[2])))
            elif op == b"U" and self.readers is not None:
                import binascii

                uids = tuple(binascii.unhexlify(h) for h in parts[2:])
                self._fifo.append((b"T", int(parts[1]), uids))
            elif op == b"Q":
                self._run = False

    def _readers_idle(self):
        r = self.readers
        if r is None:
            return True
        for s in range(4):
            if r.waiting[s] or r.placed[s] is not None:
                return False
        return True

    def _release(self):
        # Keep the host's order: a button press goes to the table only once
        # every card tapped before it has been read (a player taps, then
        # presses), and nothing after a press is taken in the same loop turn
        # (the main loop hands the table its taps before its presses).
        fifo = self._fifo
        while fifo:
            op, seat, arg = fifo[0]
            if op == b"P":
                # the loop turn before this one handled the last input
                if self._taps or self._presses or not self._readers_idle():
                    return
                self._out.write(b"P %d\n" % seat)
                fifo.pop(0)
            elif op == b"T":
                if self.readers is not None:
                    self.readers.waiting[seat].append(arg)
                else:
                    self._taps.append((seat, arg))
                fifo.pop(0)
            else:
                if self._taps or not self._readers_idle():
                    return
                self._presses.append((seat, arg))
                fifo.pop(0)
                return

    def taps(self, now):
        self._control()
        self._release()
        if self.readers is not None:
            self.readers.poll(self._taps, self.tag_sink)
        t = self._taps
        if t:
            self._taps = []
        return t

    def presses(self, now):
        p = self._presses
        if p:
            self._presses = []
        return p

    def show(self, buf, lines):
        self.frames += 1
        # the FIFO file is unbuffered: no flush(), which would fsync() a FIFO (EINVAL)
        self._out.write(b"D " + "|".join(lines).encode() + b"\n")

    def beep(self, sound):
        self._out.write(b"S %d\n" % sound)


def main(argv):
    # micropython vboard.py CTL_IN CTL_OUT STORE DECKS READERS(spi|direct) CARDS CONFIG [heap] [events]
    import gc

    import main as firmware_main

    ctl_in, ctl_out, store, decks, mode = argv[1], argv[2], argv[3], int(argv[4]), argv[5]
    report = "heap" in argv[8:]
    if report:
        # the heap report's names are interned now, its code dropped: at the
        # end it is imported again without growing the qstr pools, which
        # then needs one large block (on this port 1,280 entries, 14 KB, past
        # 1,260 qstrs) that a heap late in a game may not have in one piece
        __import__("heapreport")
        del sys.modules["heapreport"]
    readers = SimReaders(argv[6], decks) if mode == "spi" else None
    # what the simulated chips and bus take (not firmware): reported apart
    sim = readers.sim_bytes if readers is not None else 0
    board = VirtualBoard(ctl_in, ctl_out, store, decks, readers)
    # the rules come from table.cfg, as on the Pico
    app = firmware_main.configured_app(board, argv[7])
    gc.collect()
    board._out.write(b"R %d %d %d\n" % (gc.mem_alloc(), 1 if app.restored else 0, sim))
    tap = None
    if "events" in argv[8:]:
        import vevents  # the events beside the link (virtual --serve)

        tap = vevents.EventTap(board._out, app.link)
        tap.pass_on()
    peak = 0
    n = 0
    while board.running():
        now = board.ticks_ms()
        app.step_safe(now)
        if tap is not None:
            tap.pass_on()
        if app.stopped(now):
            break  # a maintenance stop: as main.App.run
        n += 1
        if n % 64 == 0:
            # live memory: what is still reachable after a collection (the
            # chip models' logs of commands, the simulation's, emptied first)
            if readers is not None:
                for c in readers.chips:
                    del c.commands[:]
            gc.collect()
            a = gc.mem_alloc()
            if a > peak:
                peak = a
        board.sleep_ms(1)
    gc.collect()
    fields = 0
    coll = 0
    if readers is not None:
        fields = readers.bus.max_fields_on
        coll = readers.bus.collisions
    board._out.write(b"M %d %d %d %d\n" % (peak, gc.mem_alloc(), fields, coll))
    if report:
        import heapreport  # what holds the heap (bench/bench_heap.py)

        heapreport.report(board._out, app)
    board.port.close()


if __name__ == "__main__":
    main(sys.argv)
