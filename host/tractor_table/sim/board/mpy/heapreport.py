# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# What holds the firmware's heap at the end of a virtual table's run (vboard.py
# runs this after its last "M" line when started with the extra argument
# "heap"; bench/bench_heap.py asks for it). The parts are dropped one at a
# time, each followed by a collection: the live heap each drop frees is that
# part's share. Written to the output FIFO as "H label|bytes" lines, the last
# "H rest|bytes" (what is still live: the modules' code, the board, the
# readers), then "L name name ..." (the modules loaded at the end of the run).
# The run is over: nothing here needs to leave the app usable.
import gc
import sys


def _live():
    gc.collect()
    gc.collect()
    return gc.mem_alloc()


def _twin(tr):
    # a table.Tricks of the same sizes (its class's own __init__, then the
    # same buffers as copies)
    c = type(tr)(0, 0)
    c.buf = bytearray(tr.buf)
    c.at = type(tr.at)("H", tr.at)
    c.n = tr.n
    return c


def report(out, app):
    t = app.table
    link = app.link
    parts = []
    at = _live()

    def took(label):
        nonlocal at
        now = _live()
        parts.append((label, at - now))
        at = now

    tr = t.tricks
    n = len(tr)
    label = "the hand's " + str(n) + " completed tricks (packed)"
    st = app.store
    if st is not None and getattr(st, "_tricks", None) is tr:
        st._tricks = None  # a save under way holds them too (persist's frozen form)
    t.tricks = []
    if hasattr(tr, "buf"):
        # table.Tricks: measured on a twin of the same buffers, made here and
        # dropped; the table's own may still be held after the drop by a
        # stale pointer the conservative collector keeps (a frame's value
        # stack, one of its memoryviews), which now and then made the drop
        # free nothing (a part of -320 bytes; what stays is in "rest")
        base = _live()
        twin = _twin(tr)
        size = _live() - base
        del twin
        tr = None
        at = _live()
        parts.append((label, size))
    else:
        tr = None
        took(label)
    n = link.count - link._base
    slots = link._ring_n
    link._ring_b = None
    link._ring_at = None
    link._ring_len = None
    link._ring_h = None
    took("the link's ring: its " + str(n) + " events in " + str(slots) + " slots, with their hashes")
    t.bids = []
    t.kitty = []
    t.kitty_up = []
    t.hands = [[], [], [], []]
    t.result = None
    t.revoked = []
    t.plays = [None, None, None, None]
    t.lead = None
    took("the hand's bids, kitty, plays and scanned hands")
    app.display = None
    took("the display model (frame buffer, lines)")
    app.link = None
    link = None
    took("the link's other state (line buffer, queues, session)")
    t.rules = None
    took("the rules adapter and the device rules engine's buffers")
    app.table = None
    t = None
    took("the table core's other state")
    app.store = None
    app.board.store = None
    took("the snapshot store (persist.Store)")
    for label, b in parts:
        out.write(b"H %s|%d\n" % (label.encode(), b))
    names = sorted(sys.modules)
    out.write(b"L " + " ".join(names).encode() + b"\n")
    out.write(b"H rest|%d\n" % at)
