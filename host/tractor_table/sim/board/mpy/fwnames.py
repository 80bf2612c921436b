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


def intern(script):
    """Intern the names of fwnames.txt beside ``script``; the bytes they took
    (pools and text, measured with the file open: what opening it leaves is
    the board's), 0 without the file."""
    try:
        f = open(script.rsplit("/", 1)[0] + "/fwnames.txt")
    except OSError:
        return 0
    gc.collect()
    a = gc.mem_alloc()
    for n in f:
        getattr(gc, n[:-1], None)
    n = None
    gc.collect()
    took = gc.mem_alloc() - a
    f.close()
    return took
