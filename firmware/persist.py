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
# The body is written piece by piece (each flat list in one json.dumps), its
# crc taken on the way: json.dumps of a whole late-hand snapshot would need one
# large contiguous block, which a fragmented heap may not have.
#
# In steps: begin(snap) opens the file, and each step() writes one piece (a
# trick, a field), the last one closing and renaming; the main loop calls
# step() once per turn, between reader polls, so that taps keep flowing while
# a save is written (a whole save on the rp2 port with the flash chip's times:
# 81 ms median, 299 ms worst). save() does it all at once.
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
# Dependencies: json, os, binascii (all on the rp2 port).
import binascii
import json
import os
import sys

MAGIC = "ttsnap1"
# no spaces after the commas: a fifth of the body. littlefs keeps a file of
# up to about 440 bytes inline in its directory's metadata (a commit is page
# programs, no erase); a larger one takes a block of its own, erased (45 ms
# typical, 400 ms at most, the RP2040 stalled) at every save. Without the
# spaces a 2-deck hand's snapshot stays inline for about 10 tricks, not 8
_SEP = (",", ":")
# the Store whose save in steps began last (its busy() says whether it is
# still being written): read by the board model's tap log to know which cards
# were laid during a save (host/tractor_table/sim/board/mpy/picoboot.py)
writing = None


class Store:
    def __init__(self, path="/table.json", in_place=False):
        self.path = path
        self.tmp = path + ".new"
        self.last_error = ""
        self.saves = 0
        self._job = None  # the save in steps begun (a generator), or None
        self._f = None
        self._out = None
        self.in_place = in_place
        # in_place: a .new left by an older firmware is removed at the first
        # save (load() would still prefer it over an older table.json)
        self._stale = in_place

    def save(self, snap, unpack=None):
        """Write `snap` (nested lists) atomically; unpack(x) turns each
        bytearray met in it (the table's packed tricks) into its list."""
        self.begin(snap, unpack)
        while self.step():
            pass

    def begin(self, snap, unpack=None):
        """Start a save in steps (see step()); one already started is finished first."""
        global writing
        while self.step():
            pass
        writing = self
        f = open(self.path if self.in_place else self.tmp, "wb")
        self._f = f
        self._out = _Writer(f, unpack)
        self._job = self._out.steps(snap, 0)

    def busy(self):
        return self._job is not None

    def step(self):
        """Write the next piece of the save begun; True while more is to come.
        On an error the save is dropped (the file closed) and the error raised."""
        job = self._job
        if job is None:
            return False
        try:
            try:
                next(job)
                return True
            except StopIteration:
                pass
            out = self._out
            f = self._f
            assert out is not None and f is not None  # begin() set them
            out.flush()
            f.write(b"\n%s %08x\n" % (MAGIC.encode(), out.crc & 0xFFFFFFFF))
            if hasattr(f, "flush"):
                f.flush()
            self._job = None
            self._f = None
            self._out = None  # the writer holds the file: nothing kept between saves
            f.close()
        except BaseException:
            self._job = None
            self._out = None
            f = self._f
            self._f = None
            if f is not None:
                f.close()
            raise
        if self.in_place:
            if self._stale:
                self._stale = False
                try:
                    os.remove(self.tmp)
                except OSError:
                    pass
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
        self.saves += 1
        return False

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
        for p in (self.path, self.tmp):
            try:
                os.remove(p)
            except OSError:
                pass


def _drop(name):
    # a module loaded for one action leaves the heap if it came from a .mpy
    # file (the Pico, the virtual table); one compiled from source (tests
    # under MicroPython) is kept: compiling it again costs more than it frees
    m = sys.modules.get(name)
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules[name]


class _Writer:
    """JSON of nested lists, written in small pieces: the snapshot and its lists
    of lists (tricks, bids) element by element, each element (a trick, a bid, a
    field) in one json.dumps, which is C code and a small allocation."""

    def __init__(self, f, unpack=None):
        self.f = f
        self.crc = 0
        self.unpack = unpack

    def put(self, b):
        self.crc = binascii.crc32(b, self.crc)
        self.f.write(b)

    def flush(self):
        # nothing buffered here (the soak's test of a torn save puts a file
        # flush in its place: tests/board/test_flash_soak.py)
        pass

    def steps(self, x, depth=0):
        """x as JSON, as a generator: one piece written per step."""
        if isinstance(x, bytearray) and self.unpack is not None:
            x = self.unpack(x)
        nested = False
        if depth < 2 and isinstance(x, list):
            for y in x:
                if isinstance(y, (list, bytearray)):
                    nested = True
                    break
        if not nested:
            self.put(json.dumps(x, separators=_SEP).encode())
            yield
            return
        self.put(b"[")
        first = True
        for y in x:
            if not first:
                self.put(b",")
            first = False
            yield from self.steps(y, depth + 1)
        self.put(b"]")
