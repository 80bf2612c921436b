"""The Engine instance's map of attributes stays sparse once the placement
oracle is on it (docs/firmware.md, "Method calls and the instance's map").

MicroPython grows a map only when it is full, and every method call on self
looks in the instance's map first and misses (methods live on the class),
probing on to a free slot: at 88 attributes in 97 slots (the engine with the
oracle before 2026-12-06) a ladder check spent about a tenth of its time in
those misses, and at 73 in 73 a miss probes every slot. The sizes a map grows
through (py/map.c: ... 47, 59, 73, 97, 127, 167 slots, each when the last is
full) are the same on every port; the unix port's heap shows each step."""

from __future__ import annotations

from pathlib import Path

from tractor_table import firmware_build, mpy
from tractor_table.sim.virtual.runner import compile_for_host

#: the map sizes around the engine's attribute counts (py/map.c's table)
SIZES = (17, 23, 29, 37, 47, 59, 73, 97, 127, 167, 223)
#: the most of a map's slots in use that the engine may leave (a miss probes
#: about (1 + 1/(1-a)^2)/2 slots at load a: 14 at 0.82, 58 at 0.91)
MAX_LOAD = 0.82

CODE = """
import drules
for name, e in (("3 decks", drules.Engine(3)), ("4 decks", drules.Engine(4)),
                ("same_shape_only", drules.Engine(2, True, True))):
    print(name, len(e.__dict__))
    e._feasible(0, 0)  # the search and its buffers, as at a near miss's first question
    print(name + " search", len(e.__dict__))
e = drules.Engine(2)
e._oracle()  # a 2-deck follow or trick the direct searches do not settle
print("2 decks oracle", len(e.__dict__))
"""


def alloc(n: int) -> int:
    return next(s for s in SIZES if s >= n)


def test_the_oracle_engines_map_is_sparse(tmp_path: Path) -> None:
    for src in firmware_build.firmware_sources():
        if src.stem.startswith("drules"):
            compile_for_host(tmp_path, src)
    proc = mpy.run(code=CODE, path=[tmp_path], heapsize="256K", timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1]) for line in proc.stdout.splitlines()}
    assert len(counts) == 7, counts
    for name, n in counts.items():
        assert n / alloc(n) <= MAX_LOAD, f"{name}: {n} attributes in a map of {alloc(n)} slots ({n / alloc(n):.0%})"
