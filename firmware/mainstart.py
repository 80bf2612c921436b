# The table's start: the App's parts made (the table core, the link, the
# display, the state from flash, the rules engine), the rules read from
# table.cfg, the Pico's board built; and the reset into maintenance after a
# maintenance stop.
#
# main.py loads this module for the start only and drops it once the App is
# made (main._started): main.py is compiled from source at every start on the
# Pico and its bytecode stays in the heap for as long as the table runs, so
# what runs once is here, as a .mpy that leaves the heap after it
# (docs/firmware.md, "Heap"). It takes the App class from main (on the Pico
# main.py runs as __main__: importing main here would compile it again).
import gc
import sys

import table as T
import ttlink
from display import DisplayModel
from version import FIRMWARE_VERSION, RULES_ID


def uid_hex(uid):
    # the table's identity as the link carries it: lower-case hex
    return "".join("%02x" % b for b in uid)


def init(app, board, rules, decks, throw_penalty, ring, hand_scan, redraw_ms):
    """main.App.__init__ (its parameters are App's; redraw_ms: main.REDRAW_MS)."""
    app.board = board
    now = board.ticks_ms()
    app.failures = 0
    app.fail_run = 0  # failed turns in a row
    app.shown_at = now - redraw_ms  # ticks_ms of the last frame drawn
    app.drawn_ev = 0  # the table's events before this index are on that frame
    # turns in a row that left the link's work to the next one
    app.link_late = 0
    # turns in a row whose flash work waited for a shorter turn
    app.flash_late = 0
    app.piece_due = False  # a piece of the table's work done, its frame not drawn yet
    # saves ended since the last collection: their garbage is collected at
    # the quiet turn before the next save begins (a trick's end: the
    # players take the trick up), never on a tap's turn
    app.gc_due = 0
    app.gc_at = 0  # ticks_ms of the last collection at a quiet turn (main.App.step)
    app.store = board.store
    # the readers' second pair of the turn (picoboard.PicoBoard.mid_readers)
    app.mid = getattr(board, "mid_readers", None)
    # (the readers on the second core) the board's busy(): True while what
    # they saw waits for the next turn: no piece of work, no link's work
    # begins then
    app.busy = None
    app.stop_at = -1  # ticks_ms of a maintenance request, or -1
    app.enroll = None  # an enrollmode.Enroller while enrolling: no taps to the game
    # the table, the link, the display, the state from flash and the rules
    # engine: made once, by mainstart.py (loaded for the start only)
    app.table, app.link, app.display, app.restored = build(app, rules, decks, throw_penalty, ring, hand_scan, now)
    app._pass_events()
    app.dirty = True


def build(app, rules, decks, throw_penalty, ring, hand_scan, now):
    """App.__init__'s parts: (table, link, display, restored): the table, the
    link, the display; the state on flash restored (the link's log then starts
    at its index and hash); then the rules engine loaded."""
    board = app.board
    table = T.Table(
        rules,
        decks=decks,
        throw_penalty=throw_penalty,
        hand_scan=hand_scan,
    )
    # no chain_hash: the state hash of each event is made by the link as it
    # takes the event (main.App._pass_events), one json.dumps an event, in
    # the link's turn after the tap's frame (issue 22)
    # a play's frame first, what it leaves to do (a trick's end, a hand's)
    # after it, a piece per turn of the loop (main.App.step, issue 22)
    table.split = True
    uid = getattr(board, "uid", None)  # the board's machine.unique_id() (bytes)
    link = ttlink.DeviceLink(
        now, board.rand() & 0x3FFFFFFF, board.rand, FIRMWARE_VERSION, RULES_ID, ring=ring,
        table_uid=uid_hex(uid) if uid else "",
    )
    link.snapshot_source = app._snapshot_source
    link.on_snapshot = app._snapshot_in
    # what the host asks now and then (main.App._app, _snapshot_in): its
    # names interned now, while the heap is in few pieces, its code dropped
    import mainhost  # noqa: F401

    if not getattr(sys.modules["mainhost"], "__file__", ".py").endswith(".py"):
        del sys.modules["mainhost"]
    # the renderer drawn at the panel's size (a board with a panel driver:
    # picoboard; the virtual board draws the default 128x64)
    oled = getattr(board, "panel", None)
    display = DisplayModel(oled.width, oled.pages * 8) if oled is not None else DisplayModel()
    restored = False
    snap = app.store.load() if app.store is not None else None
    if snap is not None:
        try:
            table.restore(snap)
            restored = True
        except T.TableError as exc:
            print("persist: ignoring the saved state:", exc)
    if restored:
        # the events before the snapshot are not on this device any more:
        # the link starts its log at the snapshot's index and hash
        link.restore(table.ev_index, table.ev_hash, ())
        table.take_events()
        table.say("resumed hand %d" % table.hand_no, now)
    # the rules engine (tablerules.TableRules.e) is loaded after the
    # restore, not before it: the snapshot is parsed and checked with
    # the engine's 36 KB (unix port) still free, and its code and names
    # come in now, while the heap is in few pieces (docs/firmware.md, "Heap");
    # only in a phase that asks it (the burial, the scans, the call, the
    # play): the draw and a hand's end have drules_hand instead, and the
    # end of the draw loads the engine (tablerules.begin_hand)
    load = getattr(rules, "e", None)
    if load is not None and table.phase in (T.KITTY, T.PLAY, T.SCAN, T.CALL):
        gc.collect()
        load()
    return table, link, display, restored


def _names(app, rules):
    # The modules every match of these rules loads later (the table's parts
    # its rules use, the rules engine with the parts it is built from),
    # loaded once now and dropped: their names (qstrs, never freed) are
    # interned while the heap is in few pieces, not at their first load in a
    # hand. A name interned when the qstr pool is full takes a new pool, one
    # block of twice the last pool's entries (1,280 on the unix port, 14 KB):
    # at a draw's end or at the call of find-a-friend a heap in pieces had no
    # such block, and the import failed with MemoryError ("allocating 1280
    # bytes": the pool's entries, not its bytes), losing the tap that loaded
    # it (docs/firmware.md, "Names interned at the start"). Only what every
    # match of these rules loads (and the kitty turned up): the rare paths
    # (a take-back, a host's push, a restore, the oracle's search) would take
    # the pool at the start where most matches never need it. Only from
    # .mpy files (the Pico, the virtual table): the table tests under
    # MicroPython compile from source and keep what they load.
    t = app.table
    if getattr(T, "__file__", ".py").endswith(".py"):
        return
    T.intern_parts(t)  # the table's parts (table.py alone names them)
    # the engine as the draw's end builds it (tablerules.begin_hand): with
    # 3-4 decks or same_shape_only its ladders and placement come with it
    if rules.engine is None:
        rules.e()
        rules.unload(True)
    gc.collect()


def configured_app(App, board, cfg_path):
    """main.configured_app: an App of class App playing by table.cfg."""
    import tableconfig
    import tablerules

    opts = tableconfig.Options(tableconfig.read(cfg_path), board.decks)
    # read once at start: its code (and its table, ruleopts) need not stay in the heap
    del sys.modules["tableconfig"]
    sys.modules.pop("ruleopts", None)
    tableconfig = None
    gc.collect()
    rules = tablerules.TableRules(board.decks, **opts.rules)
    rules.digest = opts.digest
    app = App(
        board,
        rules,
        decks=board.decks,
        throw_penalty=opts.throw_penalty,
        hand_scan=opts.hand_scan,
    )
    # the rules digest, for the WELCOME (made by tableconfig, once)
    app.link.rules_digest = opts.digest
    _names(app, rules)
    sc = getattr(board, "scanner", None)
    if sc is not None and opts.reader_gain >= 0:
        sc.rx_gain = opts.reader_gain  # set at each reader's set-up
    if sc is not None:
        sc.set_group(opts.reader_group)
        core1 = getattr(board, "readers_core1", None)
        if core1 is not None and opts.reader_core:
            core1(app.display)  # the readers polled on the second core from here on
            app.mid = None  # no second pair in the turn
            app.busy = board.busy
        if opts.reader_dwell > 0:
            sc.confirm_ms = opts.reader_dwell
    for p in opts.problems:
        print("table.cfg:", p)
    # the display's 16 columns name the problem; the USB serial has the details
    problem = board.problem or ("table.cfg error" if opts.problems else "")
    if problem:
        app.table.say(problem, board.ticks_ms())
    # the pins and the readers' wiring: needed to build the board only
    sys.modules.pop("hwconfig", None)
    sys.modules.pop("picohw", None)
    gc.collect()
    # boot.py's threshold kept the heap collected while the long-lived
    # buffers were made; from here the allocator collects only when the heap
    # is full, and main.App collects at quiet turns (docs/firmware.md, "The
    # firmware's collections"): the threshold counted every frame a function
    # takes from the heap and frees at once, about 130 collections a hand
    # (CPython, which runs the table's tests, has no gc.threshold)
    thr = getattr(gc, "threshold", None)
    if thr is not None:
        thr(-1)
    return app


def pico_app(App):
    """The Pico's start (main.main): the board and the App, or None for a
    maintenance start (seat 0's button held, or the flag a maintenance stop left)."""
    import hwconfig as H

    import picohw

    if picohw.maintenance_start():
        print("maintenance start: seat 0's button is held, the table is not started")
        return None
    if picohw.maintenance_flag(take=True):
        # the host asked for maintenance: the watchdog, which cannot be
        # stopped, was stopped by the reset that brought us here
        print("maintenance: the table is not started; the REPL is free")
        return None
    import picoboard

    board = picoboard.PicoBoard()
    cfg = H.CONFIG_FILE
    H = picohw = None  # dropped by configured_app, loaded again for the flag
    return configured_app(App, board, cfg)


def maintenance_reset(board):
    """After a maintenance stop: the watchdog cannot be stopped, so the board
    resets into maintenance (a flag file on flash says so to the next boot)."""
    print("the table stopped for maintenance; resetting into maintenance")
    import picohw

    picohw.maintenance_flag(set_it=True)
    board.reset()
