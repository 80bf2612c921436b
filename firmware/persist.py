# Persistence of the table core: after every completed trick (and after the
# burial and the hand's end) the game state is written to flash atomically, so
# that a power cut loses at most the trick in progress; at boot it is read back.
#
# Atomic write: the snapshot goes to `<path>.new`, is flushed and closed, and
# is then renamed over `<path>`. littlefs (the rp2 port's filesystem) renames
# over an existing file atomically; where rename refuses an existing target
# (FAT), the old file is removed first and load() falls back to `.new`, so
# there is always one whole snapshot on flash.
#
# Format: the body, the table's snapshot as JSON (nested lists of ints and
# nulls, see tablesnap.py), then a last line "ttsnap1 <crc32 of the body, hex>".
# A file whose crc does not match (a torn write) or that does not parse is
# ignored, with the reason kept in Store.last_error (the read path is
# persistload.py's, loaded at boot for the read and dropped after).
#
# The body is written piece by piece, its crc taken on the way, from a
# frozen compact form made at begin() (docs/firmware.md, "The save's frozen
# form"): the fields before the tricks (snaplayout.FTRICKS) and the fields
# after them as their JSON text (two bytes objects, one json.dumps each), and
# the tricks as the list the table keeps and their count then. The table
# only appends to that list while a save is under way (a new hand or a
# restore makes a new one, a trick once packed never changes), so the first
# n of it are the tricks as they were: no copy of the snapshot is kept while
# the save is written. A trick is a piece, the texts are written _PIECE
# bytes a piece: no large contiguous block, which a fragmented heap may not
# have.
#
# The tricks on flash: one JSON string, the base64 of their packed bytes
# (_dense: 3 bytes a trick and a byte a card when the seats played alike,
# about 11 characters a one-card trick, not the 31 of its JSON list), which
# persistload turns back into the snapshot's lists. littlefs keeps a file of
# up to 512 bytes inline in its directory's metadata: a save is then a
# commit of page programs, with an erase (45 ms typical, 400 ms at most, the
# RP2040 stalled: a card laid meanwhile waits) only when the directory's
# block is full (about one save in ten with 2 decks); a larger file takes a
# block of its own, erased at every save. With the tricks as JSON lists a
# 2-deck hand's snapshot left the inline size after about 10 of its 25
# tricks; packed it stays inline to the hand's end with 1-3 decks (issue 22,
# docs/firmware.md "Saves that stay inline").
#
# In steps: begin(snap) opens the file and writes the first piece, and each
# step() writes the next one, the last one closing (and renaming); the main
# loop calls step() once per quiet turn, between reader polls, so that taps
# keep flowing while a save is written (a whole save on the rp2 port with the
# flash chip's times: 81 ms median, 299 ms worst). save() does it all at once.
#
# load() takes table.json, or the .new beside it when that one is whole and
# newer (a later event index: field 13 of the snapshot): a power cut between
# the close of .new and the rename leaves the newer state there.
#
# in_place (the Pico: littlefs): the snapshot is written over table.json
# itself, no .new and no rename. littlefs commits a file only when it is
# closed (or flushed): until then the old file stays whole on flash, so a save
# is atomic by itself. The rename cost more than the rest of a save: littlefs's
# rename over an existing file took 180 ms of the Pico's CPU in one piece (the
# board model, docs/firmware.md), which a step-by-step save cannot split; the soak
# (make soak-flash) checks this store at 1,000 cuts. On a filesystem that
# truncates at open (the virtual table's host folder, FAT) in_place is off.
#
# A directory of its own (the Pico: /save/table.json, made at the first save
# if missing): each save is a commit to its directory's metadata, and in the
# root, beside the firmware's 60-odd files, those commits made every lookup
# (each import, each open) walk them, and the directory's compaction, when its
# block filled, rewrote every file's entry in one step (150-630 ms of board
# time, issue 22, docs/firmware.md "The saves' share of the poll cycle").
# ``old``: where an older firmware kept the snapshot; load() reads it while
# the path has none, and the first save removes it (after its own commit: a
# cut between the two leaves both, and the path is read first).
# Dependencies: json, os, binascii (all on the rp2 port).
import binascii
import json
import os
import sys

from micropython import const

try:
    from typing import Any  # noqa: F401
except ImportError:
    pass

MAGIC = "ttsnap1"
# no spaces after the commas: the body stays under littlefs's inline size
_SEP = (",", ":")
# the index of the snapshot's completed tricks (snaplayout.FTRICKS: persist
# does not load the layout; tests/table/test_display_persist.py checks it)
TRICKS = const(17)
# the most bytes of a frozen text (the fields before or after the tricks)
# written a step
_PIECE = const(128)
# the pieces a step writes of a save whose tricks the table has dropped
# (Store.step): a 4-deck hand's end in about 8 steps, not 60
_STALE = const(8)
# the Store whose save in steps began last (its busy() says whether it is
# still being written): read by the board model's tap log to know which cards
# were laid during a save (host/tractor_table/sim/board/mpy/picoboot.py)
writing = None


class Store:
    # what persistload.init sets, declared for the type checker only (bare
    # annotations: MicroPython keeps nothing of them)
    path: str
    old: "Any"
    tmp: str
    last_error: str
    saves: int
    _f: "Any"
    crc: int
    _text: "Any"
    _tail: "Any"
    _at: int
    _stop: int
    _tricks: "Any"
    _n: int
    _i: int
    _rest: "Any"
    in_place: bool
    _stale: bool

    def __init__(self, path="/table.json", in_place=False, old=None):
        # the set-up is persistload.init's (loaded for it and dropped after,
        # as for the read: once at boot, not held through the match)
        import persistload

        persistload.init(self, path, in_place, old)
        _drop("persistload")

    def save(self, snap):
        """Write `snap` atomically: nested lists as Table.snapshot(True) makes
        them, its tricks (field TRICKS) packed as the table keeps them
        (tablebase.Tricks, or any sequence of such packed tricks)."""
        self.begin(snap)
        while self.step():
            pass

    def begin(self, snap):
        """Start a save in steps (see step()); one already started is finished
        first. What is written is `snap` as it is now (its frozen form: the
        list at TRICKS only appended to until the save ends)."""
        global writing
        while self.step():
            pass
        writing = self
        p = self.path if self.in_place else self.tmp
        try:
            f = open(p, "wb")
        except OSError:
            # its directory is not made yet (the first save): made now
            os.mkdir(p[: p.rfind("/")])
            f = open(p, "wb")
        try:
            self._start(f, snap)
        except BaseException:
            self._end()
            raise

    def _start(self, f, snap):
        # the frozen form of snap, to be written to f (also the benches' and
        # the soak's measure of a save's CPU, with a file that keeps nothing)
        self._f = f
        self.crc = 0
        self._rest = b""
        k = len(snap)
        tr = None
        if k > TRICKS:  # the tricks: the table's Tricks (len and [i]), packed
            k = TRICKS
            tr = snap[k]
            # '[f0,..,f16,""]' written without its '"]', and "[0,f18,..]"
            # after the tricks' base64 as '"' and its text from the ","
            self._tail = json.dumps([0] + snap[k + 1 :], separators=_SEP).encode()
        t = self._text = json.dumps(snap[:k] + [""] if tr is not None else snap, separators=_SEP).encode()
        self._tricks = tr
        self._n = len(tr) if tr is not None else 0
        self._i = 0
        self._at = 0
        self._stop = len(t) - 2 if tr is not None else len(t)

    def busy(self):
        return self._f is not None

    def _put(self, b):
        self.crc = binascii.crc32(b, self.crc)
        f = self._f
        assert f is not None  # begin() set it
        f.write(b)

    def _more(self):
        # the next piece of the body; False once it is all written
        t = self._text
        if t is None:
            i = self._i
            tr = self._tricks
            if i < self._n and tr is not None:
                # base64 in whole groups of 3 bytes, the rest kept for the next
                d = self._rest + _dense(tr[i])
                k = len(d) // 3 * 3
                self._put(binascii.b2a_base64(memoryview(d)[:k], newline=False))  # pyright: ignore[reportArgumentType] (any buffer)
                self._rest = d[k:]
                self._i = i + 1
                return True
            # the tricks written: the last bytes' base64 (padded) and the
            # string's end, then the text after them, from the "," of its
            # "[0,..]" (or its "]")
            self._put(binascii.b2a_base64(self._rest, newline=False) + b'"')
            self._rest = b""
            t = self._text = self._tail
            assert t is not None  # _start() made it with the tricks
            self._tail = self._tricks = None
            self._at = 2
            self._stop = len(t)
        at = self._at
        nxt = at + _PIECE
        if nxt < self._stop:
            self._put(memoryview(t)[at:nxt])
            self._at = nxt
            return True
        self._put(memoryview(t)[at : self._stop])
        self._text = None
        # the text before the tricks written: the tricks next; else the end
        return self._tricks is not None

    def _end(self):
        # nothing of the save kept (its file closed)
        f = self._f
        self._f = None
        self._text = self._tail = self._tricks = None
        self._rest = b""
        if f is not None:
            f.close()

    def step(self, tricks=None):
        """Write the next piece of the save begun; True while more is to come.
        On an error the save is dropped (the file closed) and the error raised.
        ``tricks``: the tricks the table keeps now; a save whose tricks are
        others (an earlier hand's, which the table has dropped: a hand's end
        saved while the next hand's draw and burial go on) writes up to
        _STALE pieces a step, so that it ends within a few quiet turns and
        does not hold them into the next hand (the peak of the heap with 3-4
        decks, issue 21), each step still short (the tap path, issue 22)."""
        f = self._f
        if f is None:
            return False
        try:
            k = _STALE
            while self._more():
                tr = self._tricks
                k -= 1
                if tricks is None or tr is None or tr is tricks or not k:
                    return True
            self.flush()
            f.write(b"\n%s %08x\n" % (MAGIC.encode(), self.crc & 0xFFFFFFFF))
            if hasattr(f, "flush"):
                f.flush()
        except BaseException:
            self._end()
            raise
        self._end()
        if self.in_place:
            self._unstale()
            self.saves += 1
            return False
        try:
            os.rename(self.tmp, self.path)
        except OSError:
            # the target exists and this filesystem will not replace it
            try:
                os.remove(self.path)
            except OSError:
                pass
            os.rename(self.tmp, self.path)
        self._unstale()
        self.saves += 1
        return False

    def _unstale(self):
        # after the first save's commit (a cut before it leaves them: read
        # after the path, or older than it): what older firmware left
        if self._stale:
            self._stale = False
            for p in (self.tmp if self.in_place else None, self.old):
                if p is not None:
                    try:
                        os.remove(p)
                    except OSError:
                        pass

    def flush(self):
        # nothing buffered here (the soak's test of a torn save puts a file
        # flush in its place: tests/board/test_flash_soak.py)
        pass

    def load(self):
        """The last snapshot saved, or None (then last_error says why, if a file was bad).
        Read at boot (and by tests) only: the reading and checking code is
        persistload's, loaded for the read and dropped after (docs/firmware.md,
        "Heap"), as the table core drops its parts."""
        import persistload

        try:
            return persistload.load(self, MAGIC)
        finally:
            _drop("persistload")

    def clear(self):
        for p in (self.path, self.tmp, self.old):
            if p is None:
                continue
            try:
                os.remove(p)
            except OSError:
                pass


def _dense(x):
    # A trick as saved (persistload._tricks reads it): a byte leader |
    # winner << 2 | forced << 4, with 32 when the four seats played as many
    # cards (one count follows, else four) and 64 when its points take two
    # bytes (big-endian, else one); the points; the counts; the cards of
    # seats 0..3. x: a packed trick as the table keeps them (tablebase.Tricks:
    # 0 leader, 1 winner, 2 forced, 3-4 points, 5-8 the counts, the cards)
    n = x[5]
    same = x[6] == n and x[7] == n and x[8] == n
    h = x[0] | x[1] << 2 | x[2] << 4 | (32 if same else 0) | (64 if x[3] else 0)
    return bytes((h,)) + bytes(x[3 if x[3] else 4 : 6 if same else 9]) + bytes(x[9:])


def _drop(name):
    # a module loaded for one action leaves the heap if it came from a .mpy
    # file (the Pico, the virtual table); one compiled from source (tests
    # under MicroPython) is kept: compiling it again costs more than it frees
    m = sys.modules.get(name)
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules[name]
