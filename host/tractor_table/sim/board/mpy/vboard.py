# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The board's fast mode (``tractor-table virtual``): what firmware/main.py
# needs from the hardware, given to main.App directly, with no model of the
# Pico's machine module, buses or time (the board model's mode, picoboot.py,
# has them). What both modes share is in hands.py: the host's control
# protocol (docs/firmware.md, "The control protocol") and the hands that put
# the cards' tags on the readers.
#
# - the USB serial is this process's stdin/stdout (a pseudo-terminal that the
#   host opens with pyserial), through the firmware's own ttlink_io.StdioPort;
# - readers "spi" (the default): the firmware's own scanner.py and pn532.py
#   drivers run against four simulated PN532 chips (the byte-accurate chip
#   model of tractor_table/sim/pn532sim/chip.py) on a simulated SPI bus in place of
#   machine.SPI, and cards.bin (the card map the host exported) turns tag UIDs
#   into cards. A tapped card is a tag placed on the seat's reader and taken
#   away once the scanner reported it. Readers "direct": taps go to the table
#   core as card ids (no scanner; for comparison and debugging);
# - buttons: a press goes to the table as (seat, kind), no pin is modelled;
# - flash is a folder on the host (persist.Store); its file "unique_id" holds
#   the table's identity (8 bytes, as machine.unique_id()), made with the table.
import select
import sys
import time


class SimReaders:
    """Four simulated PN532s on a simulated SPI bus, read by the firmware's scanner."""

    def __init__(self, cards_path, decks=2):
        import gc

        import hwconfig as H

        # the simulation first, measured: it is not firmware
        gc.collect()
        before = gc.mem_alloc()
        import chip
        import hands

        self.chip = chip
        self.clock = chip.SimClock(0)
        self.bus = chip.SimSpiBus(self.clock, H.SPI_BAUDRATE)
        self.chips = []
        pins = []
        for s in range(H.SEATS):
            c = chip.Chip(self.clock, "seat" + str(s))
            pins.append(self.bus.attach(c))
            self.chips.append(c)
        # the simulation's own state (the hands that put tags down): not
        # firmware either; their pace is set below, from the scanner's
        self.hands = hands.Hands(self.chips, decks, 0, 0, 0)
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
        sc = self.scanner = scanner.Scanner(drivers, self.cards)
        # simulated time runs much faster than a player's hand: taps at one
        # seat are spaced as a person's would be, by the scanner's own times
        h = self.hands
        h.alternate_ms = sc.alternate_ms + 50
        h.away_ms = sc.away_ms + 50
        h.crosstalk_ms = sc.crosstalk_ms + 50

    def _place(self, now):
        h = self.hands
        any_placed = False
        for s in range(4):
            if h.placed[s] is None and h.waiting[s] and now >= h.due(s):
                h.place(s, now)
            if h.placed[s] is not None:
                any_placed = True
        return any_placed

    def poll(self, out, sink=None):
        """Run the scanner until the tags on the readers are reported (bounded);
        ``sink`` (enroll mode) sees each scanner event first, as on the Pico."""
        S = self.S
        sc = self.scanner
        clk = self.clock
        h = self.hands
        busy = self._place(clk.ticks_ms())
        if not busy:
            # a card waits only for its seat's away time: nothing else happens
            # at the readers meanwhile, so let simulated time jump there
            soon = h.next_due_ms()
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
                # the scanner reported the seat's tags: the hand takes them away
                if k == S.EV_CARD:
                    out.append((s, sc.card))
                    h.lift(s, now, sc.card, 0)
                elif k == S.EV_UNKNOWN:
                    out.append((s, -1))
                    h.lift(s, now, -9, h.away_ms)
                elif k == S.EV_TWO or k == S.EV_CROSSTALK:
                    out.append((s, -2))
                    h.lift(s, now, -9, h.away_ms)
                elif k == S.EV_FAULT:
                    out.append((s, -2))
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
        self._ctl = select.poll()  # the control FIFO alone
        self._ctl.register(self._in, select.POLLIN)
        self._wake = select.poll()  # the host's input: control lines, the link
        self._wake.register(self._in, select.POLLIN)
        self._wake.register(sys.stdin, select.POLLIN)
        # the firmware's own modules the board uses, imported here, not at
        # this module's top: after main() has measured the board's own heap,
        # so that their code counts as the firmware's, as on the chip
        import persist
        import ttlink_io

        self._io = ttlink_io
        self.port = ttlink_io.StdioPort()
        self.store = persist.Store(store_path)
        # the table's identity, as machine.unique_id() on a Pico: 8 bytes kept
        # in the flash folder (the host's runner writes it when the table is made)
        self.uid = _read_uid(store_path)
        import hands

        self._take = hands.control  # the control lines (docs/firmware.md, "The control protocol")
        # the hands at the readers (hands.Hands), with the simulated readers
        self.hands = readers.hands if readers is not None else None
        self._taps = []
        self._presses = []
        self.fifo = []  # control commands in the order the host sent them
        self.run = True
        self.frames = 0
        self.table = None  # main.App's table core, once the App is made
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
        if self.store.busy() or self.working():
            return  # a save in steps, a play's work: its next piece at once (main.App.run)
        if ms > 0 and not self.fifo and not self._taps and not self._presses and self._readers_idle():
            self._wake.poll(IDLE_MS if ms < IDLE_MS else ms)
            return
        time.sleep_ms(ms)

    def rand(self):
        return self._io.random32()

    def working(self):
        # the table has work left from a play (table.Table.work: a piece a
        # turn), or events main.App has not given the link yet (a turn that
        # took input leaves the link's work to the next turn: its _out)
        t = self.table
        return t is not None and (t.due != 0 or len(t._out) != 0)

    def running(self):
        return self.run

    def _readers_idle(self):
        h = self.hands
        return h is None or h.readers_idle()

    def _release(self):
        # Keep the host's order: a button press goes to the table only once
        # every card tapped before it has been read (a player taps, then
        # presses), and nothing after a press is taken in the same loop turn
        # (the main loop hands the table its taps before its presses).
        fifo = self.fifo
        while fifo:
            op, seat, arg = fifo[0]
            if op == b"P":
                # the loop turn before this one handled the last input, and
                # the table has no work left from a play (table.Table.work)
                if self._taps or self._presses or not self._readers_idle() or self.working():
                    return
                self._out.write(b"A %d\n" % seat)
                fifo.pop(0)
            elif op == b"T":
                if self.hands is not None:
                    self.hands.waiting[seat].append(arg)
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
        # at most a few commands taken in at a time (the rest waits in the
        # FIFO, not in this heap, which the firmware shares)
        if not self._take(self, self.fifo, 4):
            self.run = False
        self._release()
        if self.readers is not None:
            self.readers.poll(self._taps, self.tag_sink)
        t = self._taps
        if t:
            self._taps = []
        return t

    def presses(self, now):
        p = self._presses
        if not p:
            return ()  # not the board's own list (a caller could change it)
        self._presses = []
        return p

    def show(self, buf, lines):
        self.frames += 1
        # the FIFO file is unbuffered: no flush(), which would fsync() a FIFO (EINVAL)
        self._out.write(b"D " + "|".join(lines).encode() + b"\n")

    def beep(self, sound):
        self._out.write(b"S %d\n" % sound)


def main(argv, start=0):
    # argv: fast CTL_IN CTL_OUT STORE DECKS READERS(spi|direct) CARDS CONFIG [heap] [events]
    # (start.py's; ``start``, the heap before the board, is the board model's)
    import gc

    # hands.py (the control protocol, the hands at the readers) is the
    # simulation's, as the chip models are: counted apart (the "R" line);
    # and so is the board itself, as the board model counts its models from
    # ``start`` (picoboot.py, start_alloc): start.py's own, chipstack.py and
    # its helper thread, this module's code, about 16 KB. Counted as the
    # firmware's until 2026-12-07, it put the fast board's 4-deck peak at
    # 158,144 B against the board model's 145,312 on the same game
    # (docs/firmware.md, "The fast board's own heap"); the chip's board
    # (picoboard.py, the display's driver) is firmware, and
    # bench/bench_heap.py counts its code in this board's place.
    gc.collect()
    before = gc.mem_alloc()
    import hands  # noqa: F401

    gc.collect()
    own = gc.mem_alloc() - before + (before - start if start else 0)
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
    sim = own + (readers.sim_bytes if readers is not None else 0)
    board = VirtualBoard(ctl_in, ctl_out, store, decks, readers)
    # the rules come from table.cfg, as on the Pico
    app = firmware_main.configured_app(board, argv[7])
    board.table = app.table
    gc.collect()
    board._out.write(b"R %d %d %d\n" % (gc.mem_alloc(), 1 if app.restored else 0, sim))
    tap = None
    if "events" in argv[8:]:
        import vevents  # the events beside the link (virtual --serve)

        tap = vevents.EventTap(board._out, app.link)
        tap.pass_on()
    peak = 0
    while board.running():
        now = board.ticks_ms()
        app.step_safe(now)
        if tap is not None:
            tap.pass_on()
        if app.stopped(now):
            break  # a maintenance stop: as main.App.run
        # the live peak, at the end of every turn that may have passed it:
        # what is reachable after a collection (the chip models' logs of
        # commands, the simulation's, emptied first). The heap in use (live
        # and garbage) is never less than the live heap, so a turn that
        # leaves it at or under the peak cannot have passed it, and the
        # others are all measured: the peak is the largest live heap between
        # two turns, whatever the turns' count. (Every 64th turn, as before,
        # was a sample whose moments moved with the host's pace, that is
        # with the machine's load: the tournament test's peak moved by
        # 1.2 KB from run to run.)
        if gc.mem_alloc() > peak:
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

