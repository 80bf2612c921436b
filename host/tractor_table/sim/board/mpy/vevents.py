# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The table's game events beside its link, for ``tractor-table virtual --serve``:
# the serving command has no link of its own (another program holds the
# table's USB serial), so the board writes each event the table's log takes
# on its output FIFO as well, one line each:
#   "W welcome-json"  the log's start as a WELCOME would say it (its count is
#                     the oldest event kept, its head the hash before it): at
#                     boot, and again whenever the log restarts (a snapshot);
#   "E index hash event-json"  each event, in order.
# Loaded only when the runner asks for it (the "events" argument of start.py),
# so that a table followed by its own link carries none of this in its heap.
#
# Both modes of the board (docs/firmware.md, "The control protocol"):
# - fast (vboard.py): the board builds main.App itself and hands its link to
#   EventTap after each turn of the loop;
# - pico (picoboot.py): main.py builds its App out of the board's reach, so
#   BoardTap catches the link as the firmware makes it (LinkCatch, below) and
#   writes at each feed of the watchdog (once a turn of the main loop, inside
#   a call into the models: the board's clock charges none of it to the
#   firmware). It catches the table core (table.Table) the same way: a "P n"
#   is answered only once the table has no work left from a play (the end of
#   a trick or a hand runs a piece a turn after the play's frame:
#   table.Table.work), so each command's answer has all of its events. The
#   board makes its tap before it measures its own heap, so that the tap's
#   objects count as the simulation's (the "R" line's sim).
#
# Neither writes with the firmware's own code: ttlink.canonical calls the
# module json that the board model times as the firmware's C code
# (vclock.TimedJson), so the tap has the built-in json write each value
# straight into the FIFO (the canonical form: compact, as ttlink.dumps on
# MicroPython), which also leaves no garbage in the heap the firmware shares
# (garbage would bring the firmware's next collection forward).
import sys

_SEP = (",", ":")  # ttlink._SEP: the canonical form's separators


def _json():
    j = sys.modules.get("json")
    if j is None:
        import json as j
    # the board model's vclock.TimedJson wraps the built-in: its _json
    return getattr(j, "_json", j)


class EventTap:
    def __init__(self, out, link):
        self.out = out
        self.link = link
        self.sent = -1  # the next index to write; -1: the start not written yet
        self.last = 0  # the hash of the event before it
        self.json = _json()

    def pass_on(self):
        L = self.link
        out = self.out
        dump = self.json.dump
        if self.sent < 0 or self.sent > L.count or L.hash_at(self.sent - 1) != self.last:
            base = L._base
            # (made before anything is written: a MemoryError leaves no half line)
            welcome = [sys.modules["ttlink"].PROTO, L.fw_version, L.rules_id, L.boot_id, 0, base,
                       L._base_hash, -1, L.table_uid, L.rules_digest]
            self.sent = base
            self.last = L._base_hash
            out.write(b"W ")
            dump(welcome, out, separators=_SEP)
            out.write(b"\n")
        while self.sent < L.count:
            slot = self.sent % L._ring_n
            h = L._ring_h[slot]
            out.write(b"E ")
            dump(self.sent, out)
            out.write(b" ")
            dump(h, out)
            out.write(b" ")
            # the event's canonical JSON as the ring holds it (a stream's
            # write(buf, off, len): no copy in the firmware's heap)
            out.write(L._ring_b, L._ring_at[slot], L._ring_len[slot])
            out.write(b"\n")
            self.sent += 1
            self.last = h


_catching = None  # the BoardTap waiting for the firmware's link


def _catch(obj, p, name):
    # a caught class's __init__ for one call: the firmware's own put back on
    # its class (the BoardTap's p + "cls", p + "init"), obj noted as the
    # tap's ``name``; returns the firmware's own, for the caller to run
    t = _catching
    clock = t.clock
    clock.enter()  # the firmware's work up to here is charged as usual; ours is not
    try:
        init = getattr(t, p + "init")
        getattr(t, p + "cls").__init__ = init
        setattr(t, p + "cls", None)
        setattr(t, p + "init", None)
        setattr(t, name, obj)
    finally:
        clock.leave()
    return init


def _swap(name, cls_name, seen, catch):
    """(module, class, its own __init__) with __init__ replaced by catch for
    one call, when module `name` is loaded and is not `seen` (a module loaded
    again after a drop is caught again); else None."""
    m = sys.modules.get(name)
    if m is None or m is seen:
        return None
    cls = getattr(m, cls_name)
    init = cls.__init__
    cls.__init__ = catch
    return m, cls, init


def _caught_init(link, *args, **kw):
    # ttlink.DeviceLink.__init__ for one call: the link noted, then the firmware's own runs
    _catch(link, "", "caught")(link, *args, **kw)


def _caught_table(table, *args, **kw):
    # table.Table.__init__ for one call, as _caught_init
    _catch(table, "t", "table")(table, *args, **kw)


class BoardTap(EventTap):
    """The pico mode's tap: made before the firmware boots, its link caught
    as main.App makes it (watch(), at every call into the models until then)."""

    def __init__(self, out, clock):
        EventTap.__init__(self, out, None)
        self.clock = clock
        self.module = None  # the firmware's ttlink, once it is loaded
        self.cls = None
        self.init = None
        self.caught = None  # the link, made; followed from the next turn on
        self.tmodule = None  # the firmware's table module, once it is loaded
        self.tcls = None
        self.tinit = None
        self.table = None  # the table core (table.Table), made

    def watch(self):
        """From Board.update, until a link and a table are caught: once the
        firmware has loaded ttlink (table), its DeviceLink's (Table's)
        __init__ is replaced for one call (the class's own entry: its
        dictionary does not grow)."""
        global _catching
        _catching = self
        got = _swap("ttlink", "DeviceLink", self.module, _caught_init)
        if got is not None:
            self.module, self.cls, self.init = got
        got = _swap("table", "Table", self.tmodule, _caught_table)
        if got is not None:
            self.tmodule, self.tcls, self.tinit = got

    def working(self):
        """True while the table core has work left from a play (Table.due),
        or events main.App has not given the link yet (Table._out: a turn
        that took input leaves the link's work to the next turn)."""
        t = self.table
        return t is not None and (getattr(t, "due", 0) != 0 or len(t._out) != 0)

    def turn(self):
        """From Board.wdt_feed (the main loop's turn begins): what the log
        took since the last turn. main.App is whole by its first feed (its
        rules digest set, its snapshot restored), so the start is written then."""
        if self.link is None:
            if self.caught is None:
                return
            self.link = self.caught
        try:
            self.pass_on()
        except MemoryError:
            # the firmware's heap is full at this moment: the lines follow
            # at a later turn (pass_on goes on from the index it wrote last)
            pass
