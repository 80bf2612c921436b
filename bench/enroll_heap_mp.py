# mypy: ignore-errors
# (MicroPython code, run by the unix port: bench/bench_enroll_heap.py runs it.)
# The firmware's live heap at points of a start from flash and of enroll
# mode, on the virtual table's board with its chip models (vboard.py), as
# "P label bytes sim n_qstr n_pool" lines.
#   micropython enroll_heap_mp.py STORE CONFIG CARDS DECKS TAGS
import gc
import sys

import micropython


def point(label, sim):
    gc.collect()
    gc.collect()
    print("P", label, gc.mem_alloc(), sim)
    micropython.qstr_info()


point("start", 0)
import vboard  # noqa: E402

store, cfg, cards, decks, tags = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
ctl = store + ".ctl"
open(ctl, "wb").close()
readers = vboard.SimReaders(cards, decks)
sim = readers.sim_bytes
board = vboard.VirtualBoard(ctl, ctl + ".out", store, decks, readers)
import main as M  # noqa: E402

app = M.configured_app(board, cfg)
point("the App started from flash" if app.restored else "the App started (no state on flash)", sim)
for _ in range(5):
    app.step_safe(board.ticks_ms())
import enrollmode  # noqa: E402  (as main.App imports it for [APP_ENROLL, seat])

enrollmode.command(app, [104, 2], board.ticks_ms())
point("enroll mode on at seat 2", sim)
for c in range(tags):
    readers.hands.waiting[2].append((readers.chip.deck_uid(c),))
    for _ in range(20):
        if not app.step_safe(board.ticks_ms()):
            print("F", c)
            raise SystemExit(1)
point(str(tags) + " tags later", sim)
