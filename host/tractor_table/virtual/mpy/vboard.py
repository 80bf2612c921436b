# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The virtual table's board: what firmware/main.py needs from the hardware,
# simulated for MicroPython's unix port.
#
# - the USB serial is this process's stdin/stdout (a pseudo-terminal that the
#   host opens with pyserial), through the firmware's own ttlink_io.StdioPort;
# - the seat readers and buttons are driven by the host through a control
#   FIFO, one command per line:  "T seat card" (a card tapped at a seat; card
#   -1 = an unknown tag, -2 = a reader fault), "B seat kind" (a button press,
#   events.BTN_*), "Q" (stop);
# - the display and the buzzer are reported on an output FIFO, one line each:
#   "D line0|line1|...|line7" after every render, "S sound" for each sound;
# - flash is a folder on the host (persist.Store).
import select
import sys
import time

import persist
import ttlink_io


class VirtualBoard:
    def __init__(self, ctl_in, ctl_out, store_path, decks=2):
        self.decks = decks
        self._in = open(ctl_in, "rb")
        self._out = open(ctl_out, "wb")
        self._poll = select.poll()
        self._poll.register(self._in, select.POLLIN)
        self.port = ttlink_io.StdioPort()
        self.store = persist.Store(store_path)
        self._taps = []
        self._presses = []
        self._run = True
        self.frames = 0

    def ticks_ms(self):
        return time.ticks_ms()

    def sleep_ms(self, ms):
        time.sleep_ms(ms)

    def rand(self):
        return ttlink_io.random32()

    def running(self):
        return self._run

    def _control(self):
        while self._poll.poll(0):
            line = self._in.readline()
            if not line:
                self._run = False  # the host closed the control FIFO
                return
            parts = line.split()
            if not parts:
                continue
            op = parts[0]
            if op == b"T":
                self._taps.append((int(parts[1]), int(parts[2])))
            elif op == b"B":
                self._presses.append((int(parts[1]), int(parts[2])))
            elif op == b"Q":
                self._run = False

    def taps(self, now):
        self._control()
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
    # vmain: micropython vboard.py CTL_IN CTL_OUT STORE DECKS
    import gc

    import main as firmware_main
    import tablerules

    ctl_in, ctl_out, store, decks = argv[1], argv[2], argv[3], int(argv[4])
    board = VirtualBoard(ctl_in, ctl_out, store, decks)
    app = firmware_main.App(board, tablerules.TableRules(decks), decks=decks)
    gc.collect()
    board._out.write(b"R %d %d\n" % (gc.mem_alloc(), 1 if app.restored else 0))
    peak = 0
    n = 0
    while board.running():
        app.step(board.ticks_ms())
        n += 1
        if n % 64 == 0:
            a = gc.mem_alloc()
            if a > peak:
                peak = a
        board.sleep_ms(1)
    gc.collect()
    board._out.write(b"M %d %d\n" % (peak, gc.mem_alloc()))
    board.port.close()


if __name__ == "__main__":
    main(sys.argv)
