# Device-side I/O for the link: USB CDC serial through sys.stdin/sys.stdout.
#
# Hardware: none beyond the USB port (the rp2 port's stdio is the USB CDC
# serial; on the unix port, stdio is whatever the process was given, a
# pseudo-terminal in the end-to-end tests).
# Dependencies: sys, select, micropython (kbd_intr), os (urandom).
#
# The rp2 USB-serial traps, and what this adapter does about them:
# - a 0x03 byte from the host raises KeyboardInterrupt: kbd_intr(-1) turns it
#   off while the link runs (and the codec never produces a raw 0x03 byte);
# - text-mode stdio translates newlines: only sys.stdin.buffer and
#   sys.stdout.buffer are used;
# - output is dropped when the host stops reading for about 500 ms, and a
#   write may be cut short: the write count is checked; a short write is
#   counted and the link's retransmission covers it (a partial line is
#   ended by the next frame's bytes and fails its CRC);
# - reads block until the asked-for count is there: bytes are read one at a
#   time, and only while poll() says one is ready (shared/runtime/
#   sys_stdio_mphal.c: stdio_buffer_read waits for each of the count), up to
#   the end of a line: one frame a turn.
import select
import sys

try:
    import micropython
except ImportError:  # CPython: the host side never uses this module
    micropython = None


# bytes taken per read() call, so that the main loop keeps turning; the host
# sends mostly ACKs, PINGs and short commands, and a longer line (a snapshot
# chunk, at most ttlink.MAX_LINE) is taken over a few turns by the link's line
# reader, which holds a line in pieces: 128, not a whole line's 512, of heap
_MAX_READ = 128


class StdioPort:
    def __init__(self, stdin=None, stdout=None):
        self._in = stdin if stdin is not None else sys.stdin.buffer
        self._out = stdout if stdout is not None else sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin if stdin is None else stdin, select.POLLIN)
        self._one = bytearray(1)
        self._buf = bytearray(_MAX_READ)
        self._mv = memoryview(self._buf)
        self.short_writes = 0
        self.write_errors = 0
        # Ctrl-C (0x03) no longer raises KeyboardInterrupt: the link's bytes
        # are the link's (close() turns it back on)
        kbd = getattr(micropython, "kbd_intr", None)
        if kbd is not None:
            kbd(-1)

    def read(self):
        """Bytes available now, up to the end of the first line (one frame)
        and at most _MAX_READ, or None. One frame a turn: the rp2 port's
        stdin has no count of the bytes waiting (a readinto of n blocks until
        n came), so each byte is a poll and a one-byte readinto, and a turn
        that took a burst of the host's frames (its acks come together) read
        and decoded them all (issue 22, docs/firmware.md "One thing a quiet
        turn"); the rest waits in the USB buffer for the next turns."""
        n = 0
        one = self._one
        buf = self._buf
        p = self._poll
        f = self._in
        while n < _MAX_READ and p.poll(0):
            if f.readinto(one) != 1:
                break
            c = one[0]
            buf[n] = c
            n += 1
            if c == 10:
                break
        return bytes(self._mv[:n]) if n else None

    def write(self, data):
        """Write a block of frames; returns True if every byte went out."""
        try:
            n = self._out.write(data)
        except OSError:
            self.write_errors += 1
            return False
        if n is not None and n != len(data):
            self.short_writes += 1
            return False
        return True

    def close(self):
        kbd = getattr(micropython, "kbd_intr", None)
        if kbd is not None:
            kbd(3)


def random32():
    """A random 30-bit number for boot ids and nonces (hardware RNG if any)."""
    try:
        import os

        b = os.urandom(4)
        return ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) & 0x3FFFFFFF
    except Exception:  # noqa: BLE001 - no urandom: fall back to the PRNG
        import random

        return random.getrandbits(30)
