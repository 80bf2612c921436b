# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The firmware's names first (docs/firmware.md, "The chip's qstr pools"):
# start.py calls intern() before the board's own modules load. The rp2 port
# interns a module's names in pools that double (20, 40, ... 640 names); the
# board's own code would otherwise take their room before the firmware's, so
# that the firmware's names filled other pools than on the chip (the fast
# board's 4-deck peak about 12 KB higher). The runner writes the names the
# table's modules hold beside start.py (fwnames.txt, a line each); a getattr
# interns each. Compiled, not in start.py: start.py is compiled from source
# before its baseline is taken, and every byte of its code is counted as the
# firmware's.
import gc

#: the bytes the names took (the board model's cap counts them: picoboot.py)
took = 0


def intern(script, start):
    """Intern the names of fwnames.txt beside ``script``; ``start`` (the heap
    before the board) moved past the bytes they took (pools and text,
    measured with the file open: what opening it leaves is the board's).
    Kept loaded: its few bytes are the board's."""
    global took
    try:
        f = open(script.rsplit("/", 1)[0] + "/fwnames.txt")
    except OSError:
        return start
    gc.collect()
    a = gc.mem_alloc()
    for n in f:
        getattr(gc, n[:-1], None)
    n = None
    gc.collect()
    took = gc.mem_alloc() - a
    f.close()
    gc.collect()
    return start + took
