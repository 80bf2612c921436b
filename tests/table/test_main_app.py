# runs-under: micropython heapsize=320K
# (296K until a test played a whole hand through the App with the host's log
# of it, after the scanner's tests compiled scanner.py and pn532.py here too;
# 288K before; not the firmware's 160K budget: here main.py, table*.py, ttlink.py and
# this test are compiled from source inside the capped heap, which the Pico
# never does — it loads .mpy files. The 160K budget for the whole firmware is
# checked by the virtual table running a full hand from .mpy files:
# tests/table/test_virtual_table.py::test_a_hand_with_taps_given_as_card_ids_runs_in_160k.)
# The main loop (firmware/main.py) on a fake board, its USB serial connected
# in memory to the real host end of the link (ttlink_host.HostLink): events reach
# the host with the same state hashes, app commands are answered, the display
# and buzzer are driven, state is saved and restored; the button decoder.
import json

import events as E
import main as M
import persist
import table as T
import ttlink
import ttlink_host
from fakerules import FakeRules


class Port:
    def __init__(self):
        self.inbox = b""
        self.sent = b""

    def read(self):
        d = self.inbox
        self.inbox = b""
        return d or None

    def write(self, data):
        self.sent += bytes(data)
        return True


class Board:
    def __init__(self, store=None):
        self.now = 1000
        self.port = Port()
        self.store = store
        self.tap_q = []
        self.press_q = []
        self.shown = []
        self.sounds = []
        self.seed = 12345

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
        # the last frame only (the tests read shown[-1]): a list of every
        # frame grew through a whole hand in this capped heap
        if self.shown:
            self.shown[0] = list(lines)
        else:
            self.shown.append(list(lines))

    def beep(self, s):
        self.sounds.append(s)


class Wire:
    """The device App and a HostLink, bytes carried both ways in memory."""

    def __init__(self, store=None, board=None):
        self.board = board if board is not None else Board(store)
        self.app = M.App(self.board, FakeRules(), decks=1)
        self.host = ttlink_host.HostLink(self.board.now, self.board.rand, "test", "rules-2026.1")
        self.notes = []

    def run(self, ms=200, step=5):
        b = self.board
        end = b.now + ms
        while b.now < end:
            self.app.step(b.now)
            if b.port.sent:
                self.host.feed(b.port.sent, b.now)
                b.port.sent = b""
            self.host.tick(b.now)
            out = self.host.take_output()
            if out:
                b.port.inbox += out
            self.notes.extend(self.host.take_notes())
            b.now += step

    def events(self):
        return [n[3] for n in self.notes if n[0] == "event"]

    def apps(self):
        return [n[1] for n in self.notes if n[0] == "app"]


def test_events_reach_the_host_with_the_tables_hashes():
    w = Wire()
    w.run()
    assert w.host.synced
    assert w.events() == [[E.HAND_START, 1, -1, 1, 0, 0, 1]]
    w.board.tap_q.append((1, 13))
    w.run(10)
    assert w.board.sounds == [E.SND_TAP]
    w.board.press_q.append((1, E.BTN_OK))
    w.board.press_q.append((0, E.BTN_OK))
    w.run()
    assert w.board.sounds == [E.SND_TAP, E.SND_OK]
    assert [e[0] for e in w.events()] == [E.HAND_START, E.BID, E.TRUMP]
    t = w.app.table
    assert w.host.record.count == t.ev_index == 3
    assert w.host.record.head == t.ev_hash
    # the display followed, the buzzer sounded
    assert w.board.shown[-1][2] == "S1 bury 0/6"


def test_a_snapshot_asked_before_the_link_took_the_events_has_their_hash():
    # The table hashes no event itself: the link does as it takes one (one
    # json.dumps an event, in the link's turn after the tap's frame). A
    # snapshot asked for before that turn still carries the hash after them.
    w = Wire()
    w.run()
    b = w.board
    b.tap_q.append((1, 13))
    w.run(10)
    b.press_q.append((1, E.BTN_OK))
    w.app.step(b.now)  # the press's turn: its frame; the link's work is the next turn's
    t = w.app.table
    n = len(t._out)
    assert n >= 1 and w.app.link.count == t.ev_index - n
    data, count, head = w.app._snapshot_source()
    assert count == t.ev_index and json.loads(data)[13] == count
    w.run()
    assert w.host.record.count == count and w.host.record.head == head == t.ev_hash


class ReaderBoard(Board):
    """A board whose readers' view changes (picoboard.PicoBoard's
    view_changed, shown, readers_down); its frames in `frames`."""

    def __init__(self):
        super().__init__()
        self.frames = []
        self.shown = None  # no card seen once
        self.view_changed = False
        self.readers_down = 0

    def show(self, buf, lines):
        self.frames.append(list(lines))


def test_a_reader_missing_before_the_link_is_up_is_told_once_it_is():
    # A reader found missing before the host's HELLO: its message was queued
    # in the session the HELLO replaced (ttlink's _new_session drops the
    # queue) and never reached the host (tests/board/test_board_faults.py, once
    # the link's work waited behind the boot's frames). It is told again at
    # the link's "up".
    b = ReaderBoard()
    w = Wire(board=b)
    b.view_changed = True
    b.readers_down = 0b0100
    w.app.step(b.now)  # the view: the message queued, no session yet
    assert w.app.display.readers_down == 0b0100 and w.app.link.state != ttlink.UP
    w.run()
    assert w.app.link.state == ttlink.UP
    assert [a for a in w.apps() if a[0] == E.APP_READERS] == [[E.APP_READERS, 0b0100]]
    assert b.frames[-1][7] == "S2 no reader"
    b.view_changed = True
    b.readers_down = 0
    w.run()  # back: told in the session
    assert [a[1] for a in w.apps() if a[0] == E.APP_READERS] == [0b0100, 0]


def test_app_commands_are_answered():
    w = Wire()
    w.run()
    w.host.send_app([T.CMD_NEXT_HAND])  # refused: the hand is not over
    w.host.send_app([E.APP_STATE])
    w.run()
    apps = w.apps()
    assert apps[0] == [E.APP_REPLY, T.CMD_NEXT_HAND, 1, "the hand is not over"]
    assert apps[1][0] == E.APP_LINES and apps[1][1] == "H1 2/2 ?"
    w.host.send_app([T.CMD_NEW_MATCH])
    w.run()
    assert w.apps()[2] == [E.APP_REPLY, T.CMD_NEW_MATCH, 0, ""]
    assert w.events()[-1][0] == E.HAND_START
    # a state is pushed as a link snapshot, never as an app command
    w.host.send_app([T.CMD_RESTORE] + w.app.table.snapshot())
    w.run()
    assert w.apps()[3] == [E.APP_REPLY, T.CMD_RESTORE, 1, "send the state as a link snapshot"]
    assert w.host.record.head == w.app.table.ev_hash


def test_state_is_saved_after_a_trick_and_restored_at_boot():
    base = "/tmp/tt_app_" + str(id(object()) & 0xFFFFFF)
    store = persist.Store(base + ".json")
    store.clear()
    try:
        w = Wire(store)
        w.board.tap_q.append((1, 13))
        w.board.press_q.append((1, E.BTN_OK))
        w.board.press_q.append((0, E.BTN_OK))
        w.run()
        # saved when the draw ended (the hand's start and the bid came in the
        # same turn of the loop: one save)
        assert store.saves >= 1
        assert store.load()[2] == T.KITTY
        n = store.saves
        for c in (48, 49, 50, 51, 47, 46):
            w.board.tap_q.append((1, c))
        w.run(400)  # a save is written in steps, one piece per turn
        assert store.saves == n + 1  # after the burial
        w.board.tap_q.append((1, 1))
        w.board.press_q.append((1, E.BTN_OK))
        w.run(20)
        for s, c in ((2, 2), (3, 3), (0, 4)):
            w.board.tap_q.append((s, c))
            w.run(20)
        w.run(400)
        assert store.saves == n + 2  # after the trick, not after each play
        t = w.app.table
        # the power goes: a new App on the same flash
        w2 = Wire(store)
        t2 = w2.app.table
        assert w2.app.restored
        assert t2.snapshot() == t.snapshot()
        assert w2.app.link.count == t.ev_index and w2.app.link.head == t.ev_hash
        w2.run()
        assert w2.board.shown[-1][7] == "resumed hand 1"
        # the host (with no record) is brought up to date by a snapshot
        assert w2.host.synced
        snaps = [n for n in w2.notes if n[0] == "snapshot"]
        assert snaps and snaps[-1][1] == t.ev_index
    finally:
        store.clear()


def test_time_called_over_the_link_survives_a_power_cut():
    # CMD_CALL_TIME makes a save due: the table restored from flash after a
    # power cut still starts no new deal (docs/protocol.md, CALL_TIME)
    base = "/tmp/tt_call_" + str(id(object()) & 0xFFFFFF)
    store = persist.Store(base + ".json")
    store.clear()
    try:
        w = Wire(store)
        w.board.tap_q.append((1, 13))
        w.board.press_q.append((1, E.BTN_OK))
        w.board.press_q.append((0, E.BTN_OK))
        w.run()
        w.run(400)  # the save of the draw's end written out
        n = store.saves
        w.host.send_app([T.CMD_CALL_TIME])
        w.run(400)
        assert [E.APP_REPLY, T.CMD_CALL_TIME, 0, ""] in w.apps()
        assert store.saves == n + 1  # the call alone is saved
        # the power goes: a new App on the same flash
        w2 = Wire(store)
        assert w2.app.restored and w2.app.table.time_called
        assert w2.app.table.snapshot() == w.app.table.snapshot()
    finally:
        store.clear()


def test_an_in_place_store_writes_over_its_file_and_drops_a_stale_new():
    # the Pico's store (littlefs commits a file at its close: the soak,
    # tests/board/test_flash_soak.py, checks that this is atomic there)
    import os

    base = "/tmp/tt_inplace_" + str(id(object()) & 0xFFFFFF) + ".json"
    old = persist.Store(base)
    # a trick packed as the table keeps it (tablebase.Tricks: leader, winner,
    # forced, points, the counts, the cards)
    snap = [2, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, -1, 5, 0, [], [], [bytes((0, 1, 0, 0, 0, 1, 1, 1, 1, 2, 3, 4, 5))], [], None, None, []]
    try:
        old.save(snap)
        os.rename(base, base + ".new")  # a .new an older firmware left, index 5
        st = persist.Store(base, in_place=True)
        assert st.load()[13] == 5
        snap[13] = 3  # older than the stale .new
        st.begin(snap)
        while st.step():
            pass
        assert st.saves == 1
        assert st.load()[13] == 3 and st.last_error == ""
        try:
            os.stat(base + ".new")
            raise AssertionError("the stale .new is still there")
        except OSError:
            pass
        snap[13] = 4
        st.save(snap)  # the next saves: the same file, nothing else
        assert st.saves == 2 and st.load()[13] == 4
    finally:
        persist.Store(base).clear()


class LongTurnBoard(Board):
    """A board whose turns have used ``turn_ms`` by the time the loop reads
    its clock again (after the link's work): long turns."""

    def __init__(self, store=None):
        Board.__init__(self, store)
        self.turn_ms = 0

    def ticks_ms(self):
        return self.now + self.turn_ms


def _turns_to_save_the_burial(turn_ms):
    # turns of the loop from the burial's last card to its save written, and
    # the most turns in a row whose flash work waited
    base = "/tmp/tt_long_" + str(id(object()) & 0xFFFFFF)
    store = persist.Store(base + ".json")
    store.clear()
    try:
        w = Wire(store, board=LongTurnBoard(store))
        b = w.board
        b.tap_q.append((1, 13))
        b.press_q.append((1, E.BTN_OK))
        b.press_q.append((0, E.BTN_OK))
        w.run(400)
        n = store.saves
        assert n >= 1 and not store.busy()
        for c in (48, 49, 50, 51, 47, 46):
            b.tap_q.append((1, c))
            w.run(5)
        b.turn_ms = turn_ms
        turns = waited = 0
        while store.saves == n:
            w.run(5)
            turns += 1
            waited = max(waited, w.app.flash_late)
            assert turns < 400
        return turns, waited
    finally:
        store.clear()


def test_a_saves_flash_work_waits_for_a_turn_with_room_but_not_for_long():
    # issue 22: a save's step (or its collection) runs only in a turn that
    # has used less than _FLASH_ROOM_MS by its link's work's end, so that it
    # does not make a long turn longer; after _FLASH_LATE turns in a row that
    # had no room it runs anyway: the save is written, a few turns later
    # (main's _FLASH_ROOM_MS 25 and _FLASH_LATE 3: private consts, inlined)
    short, w0 = _turns_to_save_the_burial(0)
    long, w1 = _turns_to_save_the_burial(30)
    assert w0 == 0 and w1 == 3
    assert long >= short + 6, (short, long)


class FrameCountBoard(LongTurnBoard):
    """LongTurnBoard counting its frames (show() calls)."""

    def __init__(self, store=None):
        LongTurnBoard.__init__(self, store)
        self.frames = 0
        self.log = None  # each frame's lines, once a list

    def show(self, buf, lines):
        self.frames += 1
        if self.log is not None:
            self.log.append(list(lines))
        LongTurnBoard.show(self, buf, lines)


def _a_counting_wire(follow):
    # a Wire on a FrameCountBoard at the burial (its first card to come), or
    # in play with seat 1's lead on the table (follow: seat 2 plays next)
    w = Wire(board=FrameCountBoard())
    b = w.board
    inputs = [("t", 1, 13), ("b", 1, E.BTN_OK), ("b", 0, E.BTN_OK)]
    if follow:
        inputs += [("t", 1, c) for c in (48, 49, 50, 51, 47, 46)]
        inputs += [("t", 1, 1), ("b", 1, E.BTN_OK)]
    for kind, seat, x in inputs:
        (b.tap_q if kind == "t" else b.press_q).append((seat, x))
        w.run(20)
    w.run(400)
    return w


def _a_tap_in_a_long_turn(turn_ms, follow):
    # the frames drawn by the turn that took a tap (seat 2's follow, or the
    # dealer's first card to bury) and by the next one; the lines shown
    # after them; the link's count before the tap and after each turn
    w = _a_counting_wire(follow)
    b = w.board
    t = w.app.table
    assert t.due == 0 and not w.app.dirty
    assert t.phase == (T.PLAY if follow else T.KITTY)
    link = w.app.link
    counts = [link.count]
    b.turn_ms = turn_ms
    b.tap_q.append((2, 2) if follow else (1, 48))
    b.log = []
    d = w.app.display
    made = [0]  # text_lines() (all eight lines made) in the tap's turn

    def text_lines(t, f=d.text_lines):
        made[0] += 1
        return f(t)

    d.text_lines = text_lines
    f0 = b.frames
    w.run(5)  # the tap's turn
    f1 = b.frames
    del d.text_lines
    b.log.append(made[0])
    counts.append(link.count)
    assert b.sounds[-1] == (E.SND_OK if follow else E.SND_TAP)  # taken
    w.run(5)  # the next turn
    counts.append(link.count)
    w.run(5)
    counts.append(link.count)
    return f1 - f0, b.frames - f1, b.log, counts, w.app.dirty, w.app.display.fb is not None


def test_a_counted_taps_line_first_the_rest_of_its_frame_at_a_turn_with_room():
    # issue 22: a counted tap's seat line is drawn first in its turn; the
    # rest of its frame (here the burial's count on line 2) in the same turn
    # only if that turn has used less than _FRAME_ROOM_MS (20, a private
    # const) by then, else at the next turn, before the link's work
    tap, nxt, log, counts, dirty, _ = _a_tap_in_a_long_turn(0, False)
    assert (tap, nxt) == (2, 0)  # the line, then the rest: both in the tap's turn
    assert not dirty and log[-2][2] == "S1 bury 1/6" and log[-2][4].startswith(">S1 ."), log
    tap, nxt, log2, counts, dirty, _ = _a_tap_in_a_long_turn(30, False)
    assert (tap, nxt) == (1, 1)  # the line at once; the rest at the next turn
    assert log2[-1] == log[-2] and not dirty
    assert log[2] in (1, 2) and log2[1] in (0, 1)  # text_lines(): the rest's, at its turn


def test_a_plays_frame_is_its_seats_line_then_the_lines_a_play_changes():
    # issue 22: in play a tap changes the seat lines (its card, the turn's
    # mark) and the trick's line only: its seat's line is drawn first, then
    # those (made again alone, not the eight lines), in its turn however
    # long it is; nothing after. (CPython's display draws no lines: it makes
    # all eight at a tap's line, and the rest waits as at a burial.)
    for turn_ms in (0, 30):
        tap, nxt, log, counts, dirty, fb = _a_tap_in_a_long_turn(turn_ms, True)
        assert (tap, nxt) == ((2, 0) if fb or turn_ms == 0 else (1, 1)), turn_ms
        assert log[0][5].startswith(" S2 ") and len(log[0][5]) > 4  # the card, first
        if fb:
            assert log[0][6].startswith(" S3") and log[0][2] == "trick1 S2 plays"  # the rest not yet
        made = log.pop(tap)  # text_lines() in the tap's turn
        assert made == (0 if fb else tap), (turn_ms, made)  # with framebuf: the lines a play changes alone
        assert log[-1][2] == "trick1 S3 plays" and log[-1][6].startswith(">S3")
        assert counts[1] == counts[0] and counts[3] > counts[0]  # the link: after the tap's turn
        assert not dirty


def test_a_hands_end_begins_once_a_save_under_way_is_written():
    # issue 21 (a heap that fits): the hand's end (its audit, with the rules
    # engine, then the settlement) does not run over a save of the trick
    # before: with 3-4 decks the two together were the heap's peak
    base = "/tmp/tt_end_" + str(id(object()) & 0xFFFFFF)
    store = persist.Store(base + ".json")
    store.clear()
    try:
        w = Wire(store)
        b = w.board
        inputs = [("t", 1, 13), ("b", 1, E.BTN_OK), ("b", 0, E.BTN_OK)]
        inputs += [("t", 1, c) for c in (48, 49, 50, 51, 47, 46)]
        inputs += [("t", 1, 1), ("b", 1, E.BTN_OK), ("t", 2, 2), ("t", 3, 3), ("t", 0, 4)]
        rest = [c for c in range(54) if c not in (1, 2, 3, 4, 46, 47, 48, 49, 50, 51)]
        while len(rest) > 8:
            inputs += [("t", 1, rest.pop()), ("b", 1, E.BTN_OK), ("t", 2, rest.pop()), ("t", 3, rest.pop()), ("t", 0, rest.pop())]
        inputs += [("t", 1, rest.pop()), ("b", 1, E.BTN_OK), ("t", 2, rest.pop()), ("t", 3, rest.pop())]
        for kind, seat, x in inputs:
            (b.tap_q if kind == "t" else b.press_q).append((seat, x))
            w.run(40)
        w.run(400)
        t = w.app.table
        assert t.phase == T.PLAY and t.due == 0 and not store.busy() and len(rest) == 5
        # the trick before the last ends; its save begins...
        b.tap_q.append((0, rest.pop()))
        while not store.busy():
            w.run(5)
        # ...and the last trick is played at once: its save is still under way
        last = [("t", 1, rest.pop()), ("b", 1, E.BTN_OK), ("t", 2, rest.pop()), ("t", 3, rest.pop())]
        for kind, seat, x in last:
            (b.tap_q if kind == "t" else b.press_q).append((seat, x))
            w.run(5)
        n = store.saves
        b.tap_q.append((0, rest.pop()))  # the hand's last card
        held = 0
        while t.phase == T.PLAY:
            w.run(5)
            if t.due == 6 and store.busy():
                held += 1  # the hand's end waits...
                assert getattr(t, "aud", None) is None and t.result is None
            if getattr(t, "aud", None) is not None:
                assert not store.busy()  # ...and its audit runs with no save under way
        assert held > 0 and store.saves > n
        assert t.phase == T.HAND_END and t.due == 0
        w.run(400)
        assert store.load()[2] == T.HAND_END  # the hand's end saved after it
    finally:
        store.clear()


def test_a_tricks_end_comes_after_its_last_cards_frame_and_a_card_laid_meanwhile_is_taken():
    # issue 22: the trick's last card is counted (its sound) and drawn in the
    # turn that took it; what it leaves (its revokes, the trick's end, at the
    # hand's last card the hand's end) runs a piece per quiet turn after; a
    # card laid meanwhile finishes only what is left, and the events are
    # those of a table that does it all at once
    import ttlink

    w = Wire()
    b = w.board
    inputs = [("t", 1, 13), ("b", 1, E.BTN_OK), ("b", 0, E.BTN_OK)]
    inputs += [("t", 1, c) for c in (48, 49, 50, 51, 47, 46)]
    inputs += [("t", 1, 1), ("b", 1, E.BTN_OK), ("t", 2, 2), ("t", 3, 3)]
    for kind, seat, x in inputs:
        (b.tap_q if kind == "t" else b.press_q).append((seat, x))
        w.run(20)
    w.run(400)
    t = w.app.table
    assert t.due == 0 and t.turn == 0
    n = t.ev_index
    link = w.app.link
    assert link.count == n and not link.busy()
    b.tap_q.append((0, 4))  # the trick's last card
    w.run(5)  # one turn of the loop
    assert b.sounds[-1] == E.SND_OK  # counted...
    assert b.shown[-1][2] == "trick done" and b.shown[-1][3] == " S0 6S"  # ...and drawn
    assert t.ev_index == n + 1 and t.due != 0  # its PLAY only: the trick's end to come
    # the turn ended with the frame: the link's work is the next turn's
    assert link.count == n and w.host.record.count == n
    w.run(5)  # a quiet turn: a piece of the work (the revokes its card proves)
    assert t.ev_index == n + 1 and t.due == 5  # the trick's end still to come
    assert link.count == n  # a turn that ran a piece ends with it too (main._LINK_LATE)
    w.run(5)  # the link's turn (two turns left it): no piece
    assert t.ev_index == n + 1 and t.due == 5
    assert link.count == n + 1 and w.events()[-1] == [E.PLAY, 0, 0, 4]
    b.tap_q.append((1, 5))  # the next lead, laid meanwhile: taken at once
    w.run(5)
    assert t.due == 0 and t.pending[1] == [5]
    assert b.sounds[-1] == E.SND_TRICK  # the trick's sound and the tap's, in one
    assert b.shown[-1][2] == "trick2 S1 plays" and b.shown[-1][4] == ">S1 ."
    b.press_q.append((1, E.BTN_OK))
    w.run(200)
    k0 = len(w.events())  # the host's events so far (checked below by the hash chain)
    w.notes = []  # (this test's heap: the notes from here on)
    # the rest of the hand (seat 1 leads every trick: the scripted rules'
    # winner is the leader); its last card's turn, then the hand's end a
    # piece per quiet turn: one to begin, one a trick of the audit, one to
    # settle (tabletrick.end_hand)
    rest = [c for c in range(54) if c not in (1, 2, 3, 4, 5, 46, 47, 48, 49, 50, 51)]
    more = [("t", 2, rest.pop()), ("t", 3, rest.pop()), ("t", 0, rest.pop())]
    while len(rest) > 1:
        more += [("t", 1, rest.pop()), ("b", 1, E.BTN_OK), ("t", 2, rest.pop()), ("t", 3, rest.pop())]
        if len(rest) > 1:
            more.append(("t", 0, rest.pop()))
    for kind, seat, x in more:
        (b.tap_q if kind == "t" else b.press_q).append((seat, x))
        w.run(40)
    w.run(400)
    assert t.due == 0 and t.turn == 0 and len(t.tricks) == 11
    b.tap_q.append((0, rest[0]))  # the hand's last card
    w.run(5)
    assert b.sounds[-1] == E.SND_OK and b.shown[-1][2] == "trick done" and t.due != 0
    turns = 0
    while t.phase == T.PLAY:
        assert t.due != 0 and t.result is None
        w.run(5)  # a quiet turn, a piece
        turns += 1
    assert t.phase == T.HAND_END and t.due == 0
    # 16 pieces: the revokes the card proves, the trick's end, then the
    # hand's end in 14; and the link's turn after at most two turns that
    # left it (main._LINK_LATE): after the first piece (the tap's turn left
    # it too), then after every two
    assert turns == 2 + 1 + 12 + 1 + 8, turns
    assert b.sounds[-1] == E.SND_HAND
    w.run(400)
    got = [n[3] for n in w.notes if n[0] == "event"]  # what the host got
    w.notes = None
    assert got[-1][0] == E.HAND_END and b.shown[-1][7] == "hand over: " + str(t.score)
    more.append(("t", 0, rest[0]))
    # the same inputs to a table that does everything at once
    ref = T.Table(FakeRules(), decks=1, chain_hash=ttlink.chain_hash)
    k = 0
    for kind, seat, x in inputs + [("t", 0, 4), ("t", 1, 5), ("b", 1, E.BTN_OK)] + more:
        if kind == "t":
            ref.tap(seat, x, 0)
        else:
            ref.button(seat, x, 0)
        for _i, _h, ev in ref.take_events():  # (drained as they come: the heap above)
            if k >= k0:
                assert ev == got[k - k0], (k, ev, got[k - k0])
            k += 1
    assert k == k0 + len(got)
    assert (t.ev_index, t.ev_hash) == (ref.ev_index, ref.ev_hash)
    assert t.snapshot() == ref.snapshot()
    assert w.host.record.head == t.ev_hash


def test_host_pushes_a_snapshot():
    w = Wire()
    w.run()
    other = T.Table(FakeRules(), decks=1)
    other.tap(3, 13, 0)
    other.button(3, E.BTN_OK, 0)
    other.button(0, E.BTN_OK, 0)
    data = json.dumps(other.snapshot()).encode()
    w.host.push_snapshot(data, 7, 0x1234)
    w.run(400)
    t = w.app.table
    assert t.phase == T.KITTY and t.dealer == 3
    assert t.ev_index == 7 and t.ev_hash == 0x1234
    assert [n for n in w.notes if n[0] == "snapshot_done"][-1][2]
    # a snapshot that does not fit is refused and changes nothing
    w.host.push_snapshot(b"[1, 2, 3]", 9, 1)
    w.run(400)
    assert t.ev_index == 7 and t.phase == T.KITTY
    done = [n for n in w.notes if n[0] == "snapshot_done"][-1]
    assert not done[2] and "refused" in done[3]


def test_button_decoder_click_double_long_and_bounce():
    import picoboard as PB

    d = PB.ButtonDecoder()
    # a click: OK once the double-press window has passed
    d.feed(0, 1, 0)
    d.feed(0, 0, 100)
    assert d.take(200) == ()
    assert d.take(100 + PB.DOUBLE_MS) == [(0, E.BTN_OK)]
    # a double press: a challenge, and no OK
    d.feed(1, 1, 1000)
    d.feed(1, 0, 1080)
    d.feed(1, 1, 1200)
    d.feed(1, 0, 1280)
    assert d.take(1290) == [(1, E.BTN_CHALLENGE)]
    assert d.take(3000) == ()
    # a long press: undo, once, while still held
    d.feed(2, 1, 5000)
    d.feed(2, 1, 5000 + PB.LONG_MS - 1)
    assert d.take(5000 + PB.LONG_MS - 1) == ()
    d.feed(2, 1, 5000 + PB.LONG_MS)
    d.feed(2, 1, 5000 + PB.LONG_MS + 500)
    d.feed(2, 0, 7000)
    assert d.take(9000) == [(2, E.BTN_UNDO)]
    # contact bounce inside DEBOUNCE_MS is ignored: one click
    d.feed(3, 1, 10000)
    d.feed(3, 0, 10005)
    d.feed(3, 1, 10010)
    d.feed(3, 0, 10100)
    assert d.take(10100 + PB.DOUBLE_MS) == [(3, E.BTN_OK)]


class Flaky(Board):
    def __init__(self):
        Board.__init__(self)
        self.fail = 1

    def taps(self, now):
        if self.fail:
            self.fail -= 1
            raise ValueError("reader bus error")
        return Board.taps(self, now)


def test_a_failing_step_is_reported_and_the_loop_goes_on():
    b = Flaky()
    app = M.App(b, FakeRules(), decks=1)
    assert app.step_safe(1000) is False
    assert app.failures == 1
    b.tap_q.append((1, 13))
    assert app.step_safe(1005) is True
    assert b.shown[-1][7] == "err: ValueError"
    assert app.table.pending[1] == [13]


def test_table_cfg_sets_the_rules():
    import drules as D
    import drules_hand as DH
    import tableconfig as C

    path = "/tmp/tt_cfg_" + str(id(Port)) + ".cfg"
    f = open(path, "w")
    f.write(
        "# written by deploy\nfirmware=0.1.0\ndecks=2\nhand_scan = 1\nnonsense\n\n"
        "throw_penalty=10\nlevel_table=tournament\nlevel_ladder=tournament\n"
        "must_play=2,A\nkitty_multiplier=linear\nallow_self_override=0\n"
        "revoke=forfeit\nfirst_dealer=sideways\n"
    )
    f.close()
    cfg = C.read(path)
    assert cfg["hand_scan"] == "1" and cfg["firmware"] == "0.1.0" and "nonsense" not in cfg
    o = C.Options(cfg)
    assert o.hand_scan is True and o.throw_penalty == 10
    assert o.rules["level_table"] == DH.LT_TOURNAMENT
    assert o.rules["level_ladder"] == DH.LL_TOURNAMENT
    assert o.rules["must_play"] == (1 << 0) | (1 << 12)
    assert o.rules["kitty_multiplier"] == D.KM_LINEAR
    assert o.rules["allow_self_override"] is False
    assert o.rules["revoke"] == 1  # TableRules(revoke=1), "forfeit": a revoke loses the hand
    # what the table cannot play, or cannot read, is reported, not guessed
    assert o.problems == ["first_dealer: unknown value sideways"]
    # in the schema's order (ruleopts.py)
    assert C.Options({"revoke": "sometimes", "partners": "friends"}).problems == [
        "partners: unknown value friends",
        "revoke: unknown value sometimes",
    ]
    # numbers out of their range are reported too, and played at the default
    bad = C.Options({"throw_penalty": "7", "decks": "3"})
    assert bad.problems == ["throw_penalty: 7 is not 0 or more, a multiple of 5"] and bad.throw_penalty == 0
    # the rules digest: every option's device value in the schema's order; the
    # decks are the card map's (the argument), never table.cfg's
    assert o.digest == "2.0.0.10.1.0.3.1.4097.0.0.0.0.1.1"
    assert bad.digest == C.Options({}).digest == "2.0.0.0.0.0.0.0.0.1.0.0.0.0.0"
    assert C.Options({}, 4).digest.startswith("4.")
    import os

    os.remove(path)
    assert C.read(path) == {}
    # every option but decks and hand_scan, at its default without table.cfg
    assert C.Options({}).rules == {
        "permanent_twos": False, "same_shape_only": False, "throw_penalty": 0, "kitty_multiplier": 0,
        "kitty_requires_trump": False, "level_table": 0, "level_ladder": 0, "must_play": 0,
        "allow_self_override": True, "no_bid": 0, "first_dealer": 0, "partners": 0, "revoke": 0,
    }
    assert C.Options({}).problems == []
    # the readers' gain: normal (the chip's default) or low
    assert C.Options({}).reader_gain == -1 and C.Options({"reader_gain": "low"}).reader_gain == 4
    assert C.Options({"reader_gain": "loud"}).problems == ["reader_gain: loud is not normal or low"]
    # the readers' grouping: pairs by default (USB's 500 mA), all four or one at a time on request
    assert C.Options({}).reader_group == 2 and C.Options({"reader_groups": "all"}).reader_group == 4
    assert C.Options({"reader_groups": "one"}).reader_group == 1
    bad = C.Options({"reader_groups": "three"})
    assert bad.reader_group == 2 and bad.problems == ["reader_groups: three is not pairs, all or one"]
    # the dwell before a card counts: 1..50 ms, never 0 (one poll alone is never a play)
    assert C.Options({}).reader_dwell == -1 and C.Options({"reader_dwell_ms": "35"}).reader_dwell == 35
    for v in ("0", "51", "-5", "fast", ""):
        o = C.Options({"reader_dwell_ms": v})
        assert o.reader_dwell == -1, v
        assert o.problems == ["reader_dwell_ms: " + v + " is not a number of ms from 1 to 50"], v


def test_configured_app_plays_by_table_cfg():
    path = "/tmp/tt_cfg2_" + str(id(Port)) + ".cfg"
    f = open(path, "w")
    f.write("hand_scan=1\nthrow_penalty=5\nlevel_table=qq\n")
    f.close()
    b = Board()
    b.decks = 1
    b.problem = ""
    app = M.configured_app(b, path)
    assert app.table.hand_scan is True and app.table.throw_penalty == 5
    assert app.table.rules.throw_penalty == 5 and app.table.rules.level_table == 2
    assert app.table.rules.e().throw_penalty == 5  # the engine, loaded when first asked
    import os

    os.remove(path)


def test_configured_app_sets_the_readers_by_table_cfg():
    import scanner as S

    path = "/tmp/tt_cfg3_" + str(id(Port)) + ".cfg"
    for text, group, dwell, problem in (
        ("", 2, 20, ""),  # the scanner's defaults: pairs, 20 ms
        ("reader_groups=all\nreader_dwell_ms=45\n", 4, 45, ""),
        ("reader_groups=one\nreader_dwell_ms=0\n", 1, 20, "table.cfg error"),  # 0 refused: kept
    ):
        f = open(path, "w")
        f.write(text)
        f.close()
        b = Board()
        b.decks = 2
        b.problem = ""
        b.scanner = S.Scanner([None, None, None, None])
        app = M.configured_app(b, path)
        assert b.scanner.group == group and b.scanner.confirm_ms == dwell, text
        assert (app.table.message == "table.cfg error") == bool(problem), text
    import os

    os.remove(path)


def test_configured_app_puts_the_readers_on_the_second_core_by_table_cfg():
    # reader_core: 1 polls them on the Pico's second core (PicoBoard.readers_core1),
    # the default with 1-2 decks; 0 in the main loop's turn, the default with
    # 3-4 (the heap's budget); anything else is a table.cfg error, the default kept
    import scanner as S

    path = "/tmp/tt_cfg4_" + str(id(Port)) + ".cfg"
    for text, decks, core1, problem in (
        ("", 2, True, False),
        ("", 3, False, False),
        ("", 4, False, False),
        ("reader_core=0\n", 2, False, False),
        ("reader_core=1\n", 4, True, False),
        ("reader_core=2\n", 2, True, True),
        ("reader_core=yes\n", 3, False, True),
    ):
        f = open(path, "w")
        f.write(text)
        f.close()
        b = Board()
        b.decks = decks
        b.problem = ""
        b.scanner = S.Scanner([None, None, None, None])
        started = []

        def readers_core1(b=b, started=started):
            started.append(1)

        b.readers_core1 = readers_core1
        b.busy = lambda now: False
        app = M.configured_app(b, path)
        assert bool(started) == core1, (text, decks)
        # on core 1: no second pair in the turn, the board's busy() holds the
        # loop's work while a sighting waits
        assert (app.mid is None and app.busy is b.busy) == core1, (text, decks)
        assert (app.table.message == "table.cfg error") == problem, (text, decks)
    import os

    os.remove(path)


class ScanEvent:
    """The fields of the scanner's last popped event that enroll mode reads."""

    def __init__(self, seat, kind, uid=b""):
        self.seat = seat
        self.kind = kind
        self.uid = bytearray(uid)
        self.uid_len = len(uid)
        self.t_ms = 0


def test_enroll_mode_reports_tags_and_keeps_taps_from_the_game():
    import scanner as S

    w = Wire()
    w.run()
    w.host.send_app([E.APP_ENROLL, 4])
    w.host.send_app([E.APP_ENROLL, 0])  # this board gives no tag UIDs
    w.run()
    assert w.apps() == [
        [E.APP_REPLY, E.APP_ENROLL, 1, "enroll needs a seat 0-3, or -1 to stop"],
        [E.APP_REPLY, E.APP_ENROLL, 1, "this table's readers report cards, not tags"],
    ]
    assert w.app.enroll is None
    w.board.tag_sink = None  # a board with tag UIDs
    w.host.send_app([E.APP_ENROLL, 1])
    w.run()
    assert w.apps()[2] == [E.APP_REPLY, E.APP_ENROLL, 0, ""]
    sink = w.board.tag_sink
    assert sink is not None and w.app.enroll is not None
    sink(ScanEvent(1, S.EV_CARD, b"\x04\x54\x54\x00\x0d\x5a\xa5"))
    sink(ScanEvent(0, S.EV_UNKNOWN, b"\x04\x01\x02\x03\x04\x05\x06"))  # another seat
    sink(ScanEvent(1, S.EV_UNKNOWN, b"\x3a\x01\x02\xff"))
    sink(ScanEvent(1, S.EV_TWO, b"\x3a\x01\x02\xff"))
    sink(ScanEvent(1, S.EV_CROSSTALK))
    w.board.tap_q.append((1, 13))  # what the board maps the same tag to: not the game's
    w.run()
    assert w.apps()[3:] == [
        [E.APP_TAG, 1, "045454000d5aa5"],
        [E.APP_TAG, 1, "3a0102ff"],
        [E.APP_TAG, 1, "", "two"],
        [E.APP_TAG, 1, "", "crosstalk"],
    ]
    assert w.board.sounds == [] and len(w.events()) == 1
    assert w.board.shown[-1][7] == "enroll at S1"
    w.host.send_app([E.APP_ENROLL, -1])
    w.run()
    assert w.apps()[-1] == [E.APP_REPLY, E.APP_ENROLL, 0, ""]
    assert w.board.tag_sink is None and w.app.enroll is None
    w.board.tap_q.append((1, 13))
    w.run(10)
    assert w.board.sounds == [E.SND_TAP]  # the game's tap again


def test_enroll_mode_drops_the_rules_engine_and_the_next_play_loads_it_again():
    import sys

    import enrollmode as EM
    import tablerules

    rules = tablerules.TableRules(1)
    assert rules.engine is None  # not built with the adapter
    b = Board()
    b.tag_sink = None  # a board with tag UIDs
    app = M.App(b, rules, decks=1)
    assert rules.engine is None  # the draw asks drules_hand only: the draw's end loads the engine
    rules.begin_hand(0, 4, True)
    assert rules.engine is not None
    assert "drules" in sys.modules and "drules_play" in sys.modules  # (the oracle only when a check asks it)
    engine = ("drules",) + sys.modules["tablerules"].PARTS  # the engine's parts table
    assert "drules_place" in engine and "drules_hand" not in engine
    EM.command(app, [E.APP_ENROLL, 2], b.now)
    assert app.enroll is not None and rules.engine is None
    assert [n for n in engine if n in sys.modules] == []
    EM.command(app, [E.APP_ENROLL, -1], b.now)
    assert app.enroll is None and "enrollmode" not in sys.modules
    # the next question loads the engine again, with the hand's trump
    rules.begin_hand(0, 1)  # level 2, hearts
    assert rules.suit_of(13 + 5) == 4 and rules.suit_of(5) == 0 and rules.engine is not None


class _Collects:
    """main's gc, its collect() counted."""

    def __init__(self, gc):
        self.gc = gc
        self.n = 0

    def collect(self):
        self.n += 1
        self.gc.collect()

    def __getattr__(self, name):
        return getattr(self.gc, name)


class PendingBoard(Board):
    """A board whose readers may hold a card seen once (card_pending)."""

    def __init__(self):
        Board.__init__(self)
        self.pending = False

    def card_pending(self, now):
        return self.pending


def test_a_quiet_turn_collects_the_garbage_every_few_seconds_never_with_a_card_pending():
    # issue 22: the heap's garbage is collected at a quiet turn every
    # _GC_EVERY_MS (2.5 s, a private const), not where an allocation finds
    # the heap full (a tap's turn, or core 1's sighting); never while a card
    # seen once waits for its confirming poll
    w = Wire(board=PendingBoard())
    real = M.gc
    M.gc = counted = _Collects(real)
    try:
        w.run(400)  # the start's turns
        n0 = counted.n
        w.run(6000)
        quiet = counted.n - n0
        w.board.pending = True
        w.run(6000)
        held = counted.n - n0 - quiet
        w.board.pending = False
        w.run(3000)
        after = counted.n - n0 - quiet - held
    finally:
        M.gc = real
    assert quiet == 2, quiet  # 6 s: two, 2.5 s apart
    assert held == 0
    assert after >= 1


def test_a_counted_taps_rest_of_frame_waits_for_a_card_core1_saw_meanwhile():
    # issue 22: the readers on core 1 saw another card while a tap's turn
    # drew its seat's line (App.busy): the rest of the tap's frame (the other
    # seat lines, the trick's line) is drawn at the next turn, which takes
    # that card first
    w = _a_counting_wire(True)
    b = w.board
    assert w.app.table.phase == T.PLAY and not w.app.dirty
    waiting = [True]
    w.app.busy = lambda now: waiting[0]
    b.tap_q.append((2, 2))
    f0 = b.frames
    w.run(5)  # the tap's turn: its line only
    f1 = b.frames
    assert b.sounds[-1] == E.SND_OK and w.app.dirty
    waiting[0] = False
    w.run(15)  # the next turns: that card's (none here), the play's piece of work, the rest
    assert f1 - f0 == 1 and b.frames - f1 >= 1 and not w.app.dirty
    # without a card waiting, the same tap's turn draws both (the line, then the rest)
    w2 = _a_counting_wire(True)
    b2 = w2.board
    w2.app.busy = lambda now: False
    b2.tap_q.append((2, 2))
    f0 = b2.frames
    w2.run(5)
    assert b2.frames - f0 == 2 and not w2.app.dirty
