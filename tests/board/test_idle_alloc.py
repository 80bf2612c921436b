"""The idle main loop allocates nothing in take_events()/take_notes() (a fix
the board model's CPU charge pointed at: 128 bytes a turn, and a collection
every few hundred turns on the Pico)."""

from __future__ import annotations

from board_rig import FIRMWARE, ROOT
from tractor_table import mpy

CODE = """
import gc
import test_main_app as TM
import events as E
w = TM.Wire()
w.run(3000)  # the link is up and settled
app, b, t, link = w.app, w.board, w.app.table, w.app.link
def per_call(f):
    gc.collect(); gc.disable(); a = gc.mem_alloc()
    for i in range(100):
        f()
    n = gc.mem_alloc() - a
    gc.enable()
    return n / 100
print("events", per_call(t.take_events), "notes", per_call(link.take_notes))
# with something to take, it is taken, once
link._notes.append(["x"])
print("took", link.take_notes(), link.take_notes())
t.emit([3])  # an event of the table's: (its index, the hash after it, the event)
took = t.take_events()
print("took2", [ev for _i, _h, ev in took], took[0][:2] == (t.ev_index - 1, t.ev_hash), t.take_events())
"""


def test_idle_takes_allocate_nothing() -> None:
    proc = mpy.run(code=CODE, path=[FIRMWARE, ROOT / "tests" / "table", ROOT / "tests" / "support"], heapsize="256K")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "events 0.0 notes 0.0" in out, out
    assert "took [['x']] []" in out
    assert "took2 [[3]] True []" in out
