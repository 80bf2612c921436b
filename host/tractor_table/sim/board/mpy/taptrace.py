# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# A timeline of the board model's long things, for finding what a slow tap
# waited on (issue 22): each turn of the main loop (watchdog feed to feed),
# each flash erase and program, each collection of the firmware's heap, each
# display frame, and each tap closed (placed, first sighting, confirming poll,
# counted, shown, counted and shown). On with TT_TAPTRACE=FILE (picoboot.main):
# fixed memory, made with the models before the firmware starts; written to
# FILE (the host's folder) when the board stops, one event a line:
#   kind start_us dur_us [a b c d e]
# kinds: T turn, C the model's own collection (uncharged), X a collection the chip's
# allocator makes (the allocator model, vclock.VClock.gc_model: the firmware's
# threshold or a full heap; dur: its charge), E erase, P program, G the firmware's
# gc.collect(), F frame, K tap (start = placed;
# a..e = first sighting, confirming poll, counted, shown, counted and shown).
from array import array

_N = 60000
_TAPS = 1500
#: the bytes it holds (board/runner.py adds them to the heap)
BYTES = _N * 9 + _TAPS * 24


class Trace:
    def __init__(self, path, clock):
        self.path = path
        self.clock = clock
        self.kind = bytearray(_N)
        self.at = array("i", bytes(4 * _N))
        self.dur = array("i", bytes(4 * _N))
        self.n = 0
        self.taps = array("i", bytes(4 * 6 * _TAPS))
        self.nt = 0
        self._turn = -1
        self._frame = -1

    def add(self, k, at, dur):
        i = self.n
        if i < _N:
            self.kind[i] = k
            self.at[i] = at
            self.dur[i] = dur
            self.n = i + 1

    def turn(self):
        now = self.clock.now_us
        if self._turn >= 0:
            self.add(84, self._turn, now - self._turn)  # T
        self._turn = now

    def flash(self, erase, us):
        self.add(69 if erase else 80, self.clock.now_us, us)  # E / P

    def collect(self, at, us):
        self.add(71, at, us)  # G

    def window(self, now):
        if self._frame < 0:
            self._frame = now

    def frame(self, now):
        if self._frame >= 0:
            self.add(70, self._frame, now - self._frame)  # F
        self._frame = -1

    def tap(self, placed, first, confirm, counted, shown, closed):
        j = self.nt
        if j < _TAPS:
            t = self.taps
            b = j * 6
            t[b] = placed
            t[b + 1] = first
            t[b + 2] = confirm
            t[b + 3] = counted
            t[b + 4] = shown
            t[b + 5] = closed
            self.nt = j + 1

    def write(self):
        # the host's files are at /host (picoboot.mount_flash); / is the littlefs
        f = open("/host" + self.path if self.path.startswith("/") else self.path, "w")
        try:
            for i in range(self.n):
                f.write("%s %d %d\n" % (chr(self.kind[i]), self.at[i], self.dur[i]))
            t = self.taps
            for j in range(self.nt):
                b = j * 6
                f.write("K %d 0 %d %d %d %d %d\n" % (t[b], t[b + 1], t[b + 2], t[b + 3], t[b + 4], t[b + 5]))
        finally:
            f.close()


#: the Trace made (picoboot.main): a diagnostic build of the firmware may call
#: mark(code) at points of its turn (a line "M at code")
current = None


def mark(code):
    t = current
    if t is not None:
        c = t.clock
        c.enter()
        t.add(77, c.now_us, code)
        c.leave()
