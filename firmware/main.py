# The table's main loop: scanner -> table core -> display, buzzer, link.
#
# Thin on purpose: every decision is in the sans-IO table core (table.py) and
# link (ttlink.py); this file moves inputs to them and outputs from them. The
# hardware is a "board" object passed in, with this interface:
#
#   board.ticks_ms() -> int            a millisecond clock
#   board.sleep_ms(ms)                 wait (the loop's pace)
#   board.taps(now) -> list            [(seat, card id or table.UNKNOWN_TAG /
#                                        table.READER_ERROR), ...] since last call
#   board.presses(now) -> list or ()   [(seat, events.BTN_*), ...] since last call
#   board.port                         the USB serial: read() -> bytes or None,
#                                        write(bytes) -> bool   (ttlink_io.StdioPort)
#   board.show(buf, lines)             a rendered 128x64 frame (and its text lines)
#   board.beep(sound)                  an events.SND_* code
#   board.running() -> bool            False ends run() (the virtual table's stop)
#   board.rand() -> int                random bits for the link's boot id and sessions
#   board.uid                          (optional) bytes: the table's identity,
#                                        machine.unique_id() on the Pico, sent in
#                                        the link's WELCOME (docs/protocol.md)
#   board.store                        a persist.Store (flash)
#   board.tag_sink                     (readers with tag UIDs only) None, or
#                                        called with the scanner for each of
#                                        its events (enroll mode, enrollmode.py)
#   board.feed()                       (optional) feed the watchdog, each turn
#   board.reset()                      (optional) reset the board: called after
#                                        _FAIL_RESET failed turns in a row (the
#                                        snapshot on flash resumes the game)
#   board.busy(now) -> bool            (optional) True while a reader is due:
#                                        the loop does not sleep then
#   board.display_due(now) -> bool     (optional) True when the display, down
#                                        since an I2C error, is due to be set
#                                        up again: a frame is drawn
#   board.card_pending(now) -> bool    (optional) True while a reader saw a
#                                        card that is not confirmed yet: no
#                                        save step runs then (asked only when
#                                        one is due: it may read the readers)
#   board.mid_readers(confirm=False)   (optional) the turn's middle: the
#                                        readers taps() set to work read, the
#                                        next ones set to work (read by the
#                                        next taps()); True when they saw
#                                        something; with confirm, only if
#                                        those, or the ones set to work
#                                        next, are a card's confirming poll
#                                        (else None, nothing read)
#
# On the Pico, main.py runs by itself after boot.py and builds picoboard.PicoBoard
# from hwconfig.py (pins), pn532.py/scanner.py (readers), display.SSD1306, PWM
# for the buzzer (picoboard.py, loaded only there: the virtual table's board
# replaces it). The Pico compiles main.py from source at every start and keeps
# its bytecode for as long as the table runs, so what runs once (the App's
# parts made, table.cfg read, the board built) is mainstart.py's, loaded for
# the start and dropped after it. The virtual table (host/tractor_table/sim/virtual)
# runs this same file under MicroPython's unix port with a simulated board.
import gc
import sys

try:
    from typing import Any  # noqa: F401 - the annotations' (the type checker's only)
except ImportError:
    pass

# ttlink first: it is the largest module, and when the firmware runs from
# source (tests, not the Pico's .mpy files) it compiles while the heap is emptiest.
import ttlink

# the table core loads here, before the board is built (mainstart.py makes
# the Table): main itself no longer names it since persist writes the packed
# tricks without tablebase.trick_unpack; the board model counts what loads
# after main as the simulation's
import table  # noqa: F401
import events as E

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


# The app messages the host sends on the link: [command, ...] as table.CMD_*
# or events.APP_*; the device answers [APP_REPLY, command, 0 ok / 1 refused,
# text]. [APP_MAINTENANCE] stops the table (its state is already saved) so that
# the REPL is free for `tractor-table deploy`: the device answers
# [APP_REPLY, APP_MAINTENANCE, 0, ""], lets the link deliver that, gives Ctrl-C
# back and returns from main(). The same happens at power-up while seat 0's
# button is held (a maintenance start).
# how long the link may take to deliver the last frames before the table stops
_STOP_GRACE_MS = const(1500)
# failed turns of the loop in a row before the board is reset (board.reset():
# machine.reset() on the Pico; the snapshot on flash resumes the game)
_FAIL_RESET = const(5)
# the display is redrawn at most this often (ms) for what no player did (a
# message timing out, the link): a frame is about 24 ms of I2C at 400 kHz, and
# a burst of events needs only its last frame. A turn that took a tap or a
# press draws at once (only the lines that changed are sent).
REDRAW_MS = const(100)
# turns in a row that may leave the link's work to the next one (a turn that
# drew a frame or ran a piece of the table's work; one that took a tap or a
# press, or saw a card first, may be one more): a tap's turn, a piece and its
# frame each a turn
_LINK_LATE = const(2)
# a collection (about 55-85 ms on the board model) every this many saves: one
# save's garbage and a trick's are a small part of the free heap, and a
# collection a save doubled the collections for no tap measured faster
_GC_SAVES = const(2)
# a quiet turn collects the garbage at least this often (ms): the heap is
# full every 6-7 s of a game on the board model, a collection 25-40 ms
_GC_EVERY_MS = const(2500)
# a save's step, or its collection, runs only in a turn that has used less
# than this (ms) by the time its link's work is done: the flash work does not
# stack on a long turn (the link's frames read and its events passed at a
# trick's end), where it made the four-seat cycles over the 40 ms target
# (issue 22); it waits at most _FLASH_LATE turns in a row for such a turn
_FLASH_ROOM_MS = const(25)
_FLASH_LATE = const(3)
# outside play (a bid, a card buried: in play the lines a tap changes are
# drawn at once, display.DisplayModel.play_rest), a turn that drew a counted
# tap's line first (its seat's line: what the player waits for) draws the
# rest of its frame (all eight lines made again) in that turn only if it has
# used less than this (ms) by then; otherwise at the next turn that runs no
# piece of the table's work, before the link's work, as a piece's frame: the
# tap's turn, its pair's read and its seat's line were already a cycle's
# worth, and the whole frame's text and pages (20-40 ms on the board model)
# made it the longest turn (issue 22)
_FRAME_ROOM_MS = const(20)


class App:
    """The table core, the link and the display, driven by a board."""

    # what __init__ sets (mainstart.init), for the type checker only:
    # MicroPython discards a class body's bare annotations
    board: "Any"
    failures: int
    fail_run: int
    shown_at: int
    drawn_ev: int
    link_late: int
    flash_late: int
    piece_due: bool
    gc_due: int
    gc_at: int
    store: "Any"
    mid: "Any"
    busy: "Any"
    stop_at: int
    enroll: "Any"
    table: "Any"
    link: "Any"
    display: "Any"
    restored: bool
    dirty: bool

    def __init__(self, board, rules, decks=2, throw_penalty=0, ring=64, hand_scan=False):
        # the App's state and parts (the table, the link, the display, the
        # state from flash, the rules engine): made once, by mainstart.py
        # (loaded for the start only; its attributes' meaning is there)
        _start().init(self, board, rules, decks, throw_penalty, ring, hand_scan, REDRAW_MS)
        _started()

    # --- the link's snapshot hooks
    def _snapshot_source(self):
        import json

        # the events the link has not taken yet first (a SNAPREQ read before
        # this turn's _pass_events): their state hash is the link's to make
        # (mainstart.build); the link sends no event while its snapshot is
        # made (ttlink_snap.send_own), and the snapshot's count covers them
        self._pass_events()
        t = self.table
        return json.dumps(t.snapshot()).encode(), t.ev_index, t.ev_hash

    def _snapshot_in(self, data, count, head):
        # a host's state pushed (rare): mainhost's, loaded for it
        import mainhost

        try:
            return mainhost.snapshot_in(self, data, count, head)
        finally:
            _drop("mainhost")

    def _pass_events(self):
        # the events into the link's log; one made after the last frame drawn
        # changes the display
        # The table's state hash is the link's: the table is made without
        # chain_hash (mainstart.build), so an event's json.dumps is made once,
        # here in the link's turn, not also by the table as it emits it,
        # before the tap's frame (issue 22: about 2 ms on the chip an event)
        link = self.link
        t = self.table
        for idx, _, ev in t.take_events():
            t.ev_hash = link.add_event(ev)
            if idx >= self.drawn_ev:
                self.dirty = True

    def _app(self, payload):
        if not payload:
            return
        if payload[0] == E.APP_STATE:  # the console's, every second
            self.link.send_app([E.APP_LINES] + self.display.text_lines(self.table))
            return
        # the other commands (rare): mainhost's, loaded for them
        import mainhost

        try:
            mainhost.app_message(self, payload)
        finally:
            _drop("mainhost")

    def step(self, now):
        """One turn of the loop: inputs in, outputs out."""
        b = self.board
        t = self.table
        tw = self.busy  # core 1's readers: True while what they saw waits (or None)
        took = False  # a player's input this turn: its frame is drawn at once
        # the display shows the table as it is, its message this one
        clean = not self.dirty and self.enroll is None
        msg = t.message
        seats = 0  # the seats whose card the table took this turn (a bit each)
        for seat, card in b.taps(now):
            if self.enroll is None:
                t.tap(seat, card, now)
                self.dirty = True
                took = True
                seats |= 1 << seat
        viewed = getattr(b, "view_changed", False)
        # only the cards seen once changed: the seat lines alone made again
        tags = viewed and self._view(b, now) and clean and not took
        d = self.display
        drew = False
        line = False  # a counted tap's line drawn first, the rest not yet
        mid = self.mid
        seen = None  # the readers' second pair not read yet this turn
        if took and clean and t.message == msg:
            # a counted tap is heard and its seat's line drawn first, before
            # the buttons, the table's clock and its other lines (the turn's
            # mark, the trick: the frame below, this turn): about 1 ms of I2C
            # a line (issue 22); a refused one's message, or a change not
            # drawn yet, in the frame below
            s = t.take_sound()
            if s:
                b.beep(s)
            b.show(d.render(t, False, seats), d.lines)
            drew = True
            # (core 1 saw the next card meanwhile: its turn first, the rest
            # of this frame after it)
            if not (tw is not None and tw(now)) and d.play_rest(t, seats):
                # in play the rest of its frame is the other seat lines and
                # the trick's line, made again alone and drawn now, not the
                # whole frame later in the turn (issue 22)
                b.show(d.buf, d.lines)
                self.dirty = False
                self.shown_at = now
                self.drawn_ev = t.ev_index
            else:
                line = True  # the rest of the frame may wait for a turn with room
        elif tags:
            # only a card seen once (or gone): its frame now, as the card lands
            self.dirty = False
            self.shown_at = now
            b.show(d.render(t, True), d.lines)
            drew = True
            if mid is not None:
                # a card's confirming poll in flight, or next with its dwell
                # over: the readers read now, that poll set to work through
                # the rest of the turn (None: neither)
                seen = mid(True)
        for seat, kind in b.presses(now):
            if self.enroll is None or not self.enroll.press(seat, kind):
                t.button(seat, kind, now)
            self.dirty = True
            took = True
            line = False  # a press's change is drawn at once
        had_msg = t.message
        t.tick(now)
        if had_msg and not t.message:
            self.dirty = True
        # what a play left to do (the revokes it proves, the trick's end, the
        # hand's end: table.Table.work) runs at the turns after its frame, a
        # piece a turn that took no input, before any save step or collection
        # (issue 22); an input meanwhile finishes it first (the table's events
        # stay those of the play done at once); a turn whose readers saw a
        # card once draws it first: the work waits a turn
        # The hand's end (table due 6: the audit, with the rules engine and
        # its ladders, then the settlement) begins only once a save under
        # way is written: the two together were the heap's peak with 3-4
        # decks (issue 21, docs/firmware.md "Heap")
        st = self.store
        held = t.due == 6 and st is not None and st.busy()
        first = took or viewed  # drawn at once
        late = self.link_late
        # a quiet turn does one of a piece of the table's work, a frame or
        # the link's work (issue 22, docs/firmware.md "One thing a quiet
        # turn"): a turn the link has waited _LINK_LATE turns for is the
        # link's, with no piece and no frame unless an input asks for one
        # (core 1 saw a card meanwhile: its turn comes first, the piece after)
        worked = not first and not held and late < _LINK_LATE and not (tw is not None and tw(now)) and t.work()
        if worked and t.ev_index != self.drawn_ev:
            # a piece that made events (a trick's end): its frame at the next
            # turn that runs no piece, the link's too, on the display before
            # the host hears of it (and before the next lead's card, whose
            # frame would draw it too)
            self.dirty = True
            self.piece_due = True
        # what a player did is heard and on the display first: the link's work
        # (the events into its log, frames to the host) comes at the next turn,
        # and any save step at a turn that took no input (issue 22); a sound
        # or a change a host's command makes is played or drawn at the next turn
        s = t.take_sound()
        if s:
            b.beep(s)
        due = getattr(b, "display_due", None)
        if due is not None and due(now):
            self.dirty = True
        # a piece's frame is the next turn's (a trick's end redraws 5-6 of the
        # 8 lines), drawn before the link's work, in the link's turn too
        piece = self.piece_due and not worked
        if line and t.message == msg and (ttlink.ticks_diff(b.ticks_ms(), now) >= _FRAME_ROOM_MS or (tw is not None and tw(now))):
            # a counted tap's line is drawn and the turn is long already (or
            # core 1 saw a card meanwhile): the rest of its frame at the next
            # turn, before the link's work
            self.piece_due = True
        elif self.dirty and (
            first
            or piece
            or (not worked and late < _LINK_LATE and ttlink.ticks_diff(now, self.shown_at) >= REDRAW_MS)
        ):
            self.piece_due = False
            self.dirty = False
            self.shown_at = now
            self.drawn_ev = t.ev_index
            b.show(d.render(t, tags and not took and t.message == msg), d.lines)
            drew = True
        # the readers' second pair: the one taps() set to work searched
        # while this turn's buttons, work and frame ran; read now, and the
        # other set to work beside the link (issue 22: the loop's work runs
        # while each pair's chips search, not after them)
        if seen is None:
            seen = mid is not None and mid()  # a card seen: the next turn takes it first
        if (drew or worked or seen) and late < (_LINK_LATE + 1 if first or seen else _LINK_LATE):
            # the link's work (the host's frames read, the events into its
            # log, frames to the host: json and CRCs, 5-30 ms on the chip)
            # waits for the next turn: a turn that took a tap or a press,
            # drew a frame or ran a piece of the table's work ends with it
            # (issue 22); at most _LINK_LATE turns in a row (a tap's or a
            # card's first sighting one more)
            self.link_late = late + 1
            return
        if tw is not None and late < _LINK_LATE and tw(now):
            # the readers on core 1 saw a card meanwhile: its turn first, the
            # link's work at the next (at most _LINK_LATE turns in a row)
            self.link_late = late + 1
            return
        self.link_late = 0
        link = self.link
        data = b.port.read()
        if data:
            link.feed(data, now)
        link.tick(now)
        for note in link.take_notes():
            if note[0] == "app":
                self._app(note[1])
            elif note[0] == "up" and self.display.readers_down:
                # a new session drops what was queued before it (ttlink's
                # _new_session): a reader found missing before the host's
                # HELLO (the link's work waits behind frames at boot) is
                # told again
                link.send_app([E.APP_READERS, self.display.readers_down])
        self._pass_events()
        out = link.take_output()
        if out:
            b.port.write(out)
        if st is None or took or worked or (t.due and not held) or not (t.save_due or st.busy()):
            # no flash work this turn (a turn that took input, or ran the
            # table's work, or left it to this link's turn: a save's snapshot
            # would run all of it at once; the hand's end held for a save
            # under way lets that save go on)
            if not (took or worked or t.due) and ttlink.ticks_diff(now, self.gc_at) >= _GC_EVERY_MS and not (st is not None and st.busy()):
                # a quiet turn, every few seconds: the garbage collected now,
                # not where an allocation finds the heap full, which is most
                # often a tap's turn or core 1's sighting (its collection,
                # 25-40 ms, on the card's path: issue 22)
                pending = getattr(b, "card_pending", None)
                if pending is None or not pending(now):
                    self.gc_at = now
                    gc.collect()
            return
        late = self.flash_late
        if late < _FLASH_LATE and ttlink.ticks_diff(b.ticks_ms(), now) >= _FLASH_ROOM_MS:
            # a long turn already: the flash work at the next one (at most
            # _FLASH_LATE turns in a row, then at once: a save is not put
            # off for long)
            self.flash_late = late + 1
            return
        self.flash_late = 0
        pending = getattr(b, "card_pending", None)
        if pending is not None and pending(now):
            # a card's confirming poll is to come (the readers' answers still
            # in flight are read first: Scanner.seen_once): no flash work now
            return
        # a save is written in steps, one piece per turn of the loop
        # (persist.py), so that the readers keep being polled meanwhile; it
        # begins only at a turn that took no input, with no card pending.
        # The last save's garbage is collected first, at such a turn: the
        # first quiet turn after a trick's end, while the host and the players
        # see the trick (issue 22: collected after the save's last piece, it
        # came about 25 turns later, among the next trick's cards)
        try:
            if st.busy():
                # (a save of an earlier hand's tricks: several pieces a step)
                if not st.step(t.tricks):
                    self.gc_due += 1
            elif t.save_due:
                if self.gc_due >= _GC_SAVES:
                    self.gc_due = 0
                    self.gc_at = now
                    gc.collect()
                    return  # the save begins at the next quiet turn
                t.save_due = False
                # the tricks as kept, packed, a piece each for the writer;
                # the rest frozen as its text at begin (persist.py)
                st.begin(t.snapshot(True))
                st.step()
        except OSError:
            t.save_due = True  # not saved: the next turn tries again
            raise

    def _view(self, b, now):
        # A card seen once (shown at once, marked as not counted yet) or gone,
        # or a reader lost or back: drawn now, not REDRAW_MS after the last
        # frame (a card placed must show within 50 ms: docs/readers.md).
        d = self.display
        down = b.readers_down
        same = down == d.readers_down
        if not same:
            # a reader lost or back (rare): told by mainhost, loaded for it
            # (a failed load leaves view_changed set: the next turn again)
            import mainhost

            try:
                mainhost.readers(self, down)
            finally:
                _drop("mainhost")
        b.view_changed = False
        d.shown = b.shown
        self.dirty = True
        self.shown_at = now - REDRAW_MS
        return same

    def step_safe(self, now):
        """step(), but a failure is reported, not fatal: the table must keep
        running at the table (on the Pico an uncaught exception would end
        main.py). The traceback goes to the USB serial (the host logs lines
        that are not frames); the display says what happened."""
        try:
            self.step(now)
            self.fail_run = 0
            return True
        except Exception as exc:  # noqa: BLE001 - any failure: report and go on
            self.failures += 1
            self.fail_run += 1
            if hasattr(sys, "print_exception"):
                sys.print_exception(exc)
            else:
                print("table error:", repr(exc))
            gc.collect()
            self.table.say("err: " + type(exc).__name__[:11], now)
            self.dirty = True
            reset = getattr(self.board, "reset", None)
            if self.fail_run >= _FAIL_RESET and reset is not None:
                print("%d failed turns in a row: resetting the board" % self.fail_run)
                reset()
            return False

    def stopped(self, now):
        # a maintenance stop was asked for, and the link delivered its answer
        # (or the grace time is over)
        return self.stop_at >= 0 and (
            not self.link.busy() or ttlink.ticks_diff(now, self.stop_at) >= _STOP_GRACE_MS
        )

    def run(self, pace_ms=5):
        # pace_ms is the loop's period, not a pause after each turn: a turn
        # that polled a reader (about 9 ms on the Pico) sleeps no more, else
        # the pause would add 4 x pace_ms to every four-seat poll cycle (the
        # board model showed it: docs/firmware.md, "Board model")
        # No sleep while a reader is due (board.busy): the scanner serves
        # one reader per turn, so a pause there adds to every poll cycle.
        b = self.board
        feed = getattr(b, "feed", None)
        busy = getattr(b, "busy", None)
        # the readers on the Pico's second core: nothing to poll here, a
        # shorter period so that what they saw is taken sooner (issue 22)
        pace_ms = getattr(b, "pace_ms", pace_ms)
        while b.running():
            now = b.ticks_ms()
            if feed is not None:
                feed()
            self.step_safe(now)
            if self.stopped(now):
                break
            after = b.ticks_ms()
            st = getattr(self, "store", None)
            if st is not None and st.busy():
                continue  # a save in steps: its next piece at once
            if busy is not None and busy(after) and not self.dirty:
                continue
            left = pace_ms - ttlink.ticks_diff(after, now)
            b.sleep_ms(left if left > 0 else 0)
        port = getattr(b, "port", None)
        if port is not None and self.stop_at >= 0:
            port.close()  # Ctrl-C works again: the REPL is the operator's
            deinit = getattr(b, "deinit", None)
            if deinit is not None:
                deinit()  # the readers on the second core stop polling


def _start():
    import mainstart

    return mainstart


def _started():
    # the start's code leaves the heap once the App is made, and version.py
    # with it (mainstart's import; the link keeps its two strings)
    _drop("mainstart")
    _drop("version")


def _drop(name):
    # a module loaded for a step leaves the heap after it if it came from a
    # .mpy file (the Pico, the virtual table); one compiled from source (the
    # tests under MicroPython) is kept, as table._done keeps a part
    m = sys.modules.get(name)
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules[name]


def configured_app(board, cfg_path):
    """The App playing by the rules in table.cfg (tableconfig.py); each problem
    found there is printed (the USB serial) and the first one displayed."""
    app = _start().configured_app(App, board, cfg_path)
    _started()
    return app


def main():
    # the board and the App as table.cfg says, or None: a maintenance start
    app = _start().pico_app(App)
    _started()
    if app is not None:
        app.run()
        # a maintenance stop: the watchdog cannot be stopped, so the board
        # resets into maintenance (a flag file on flash says so to the next boot)
        _start().maintenance_reset(app.board)


if __name__ == "__main__":
    main()
