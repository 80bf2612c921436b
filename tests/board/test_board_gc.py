"""The board model's allocator (host/tractor_table/sim/board/mpy/vclock.py,
VClock.gc_model): the firmware's own allocations are counted apart from the
models', the chip's collections come at the rate its free heap (or the
firmware's gc.threshold()) implies, each charged as C code at c_factor, and a
firmware whose live heap passes the chip's gets MemoryError."""

from __future__ import annotations

from board_rig import on_board

# the clock charges the firmware (factor 1000, C code 50), the collection's
# fit fixed (a = 10 us, b = 0.001 us a live byte, c = 0.0005 us a byte of
# garbage), the allocator model on with a heap of ``fw`` bytes for the firmware
SETUP = """
import gc, vclock
c = board.clock
c.factor = c.byte_factor = 1000
c.c_factor = 50
c.call_us = 0
c.calibrate_gc([(0, 10), (100000, 110)], (100000, 50))
tgc = vclock.TimedGC(c, gc)
gc.collect()
c.gc_model(fw + gc.mem_alloc() - models, models, 8192)
def turn(n):
    # the firmware's turn: n bytes of garbage, then a call into a model
    x = bytearray(n)
    time.ticks_ms()
"""


def _run(code: str, fw: int) -> dict[str, float]:
    # (models: what the process holds now, the firmware's share left out)
    src = f"import gc\ngc.collect()\nmodels = gc.mem_alloc()\nfw = {fw}\n" + SETUP + code
    out = on_board(src, heapsize="2M")
    return {w.split()[0]: float(w.split()[1]) for w in out.splitlines() if len(w.split()) == 2}


def test_a_model_that_allocates_charges_the_firmware_no_collection() -> None:
    got = _run(
        """
def model_call(n):
    c.enter()
    try:
        keep = [bytearray(n) for _ in range(8)]  # the model's garbage, in its own call
    finally:
        c.leave()
for i in range(400):
    model_call(1000)
print("auto", c.auto_n)
print("fw_req", c.fw_req)
print("real", c.real_n)
""",
        fw=64 * 1024,
    )
    # 3.2 MB of the model's garbage through a 64 KB firmware heap: none of it
    # the firmware's (but for this test's model function's own frame, made
    # before its call into the clock: under 1 %), no collection charged; the
    # process collected it in model time
    assert got["auto"] == 0
    assert got["fw_req"] < 32000
    assert got["real"] >= 1


def test_the_firmware_gets_collections_at_the_rate_its_free_heap_implies() -> None:
    got = _run(
        """
room = c.fw_heap - c.fw_live
for i in range(600):
    turn(500)
print("auto", c.auto_n)
print("room", room)
print("ratio", c.ratio)
print("req", c.fw_req_all + c.fw_req)
c0 = c.auto_n
tgc.collect()  # the firmware's own: resets the count
tgc.threshold(16384)
print("thr", tgc.threshold())
for i in range(600):
    turn(500)
print("auto_thr", c.auto_n - c0)
print("explicit", c.gc_n)
""",
        fw=48 * 1024,
    )
    # 600 turns of about 500 bytes of garbage (bytearray object and data): the
    # chip's free heap fills every room / (500 x block rounding) turns
    per_turn = got["req"] / 600
    expected = 600 * per_turn * got["ratio"] / got["room"]
    assert 0.75 * expected <= got["auto"] <= 1.25 * expected + 1, got
    assert got["auto"] >= 4
    # with a threshold of 16 KB (boot.py sets one): a collection each 16 KB
    # the firmware allocates, whatever the free heap
    assert got["thr"] == 16384
    by_threshold = 600 * per_turn * got["ratio"] / 16384
    assert 0.75 * by_threshold <= got["auto_thr"] <= 1.25 * by_threshold + 1, got
    assert got["explicit"] == 1


def test_a_collection_is_charged_as_c_code_for_the_firmwares_heap() -> None:
    got = _run(
        """
keep = [bytearray(100) for _ in range(100)]  # the firmware's state
for i in range(20):
    turn(200)
g = int(c.fw_net * c.ratio)
t0 = c.now_us
tgc.collect()
v = c.now_us - t0
print("charged", v)
print("fit", c.gc_fit(c.fw_live, g))
print("live", c.fw_live)
print("gc_us", c.gc_us)
""",
        fw=64 * 1024,
    )
    # the fit's time for the firmware's live heap and garbage (not the
    # process's: its models are ten times larger), at c_factor (50), not at
    # the bytecode factor (1000); the stretch before it at most a few us x 1000
    assert got["live"] > 10000
    assert got["gc_us"] == int(got["fit"] * 50)
    assert int(got["fit"] * 50) <= got["charged"] <= int(got["fit"] * 50) + 20000


def test_a_firmware_past_the_chips_heap_gets_memory_error() -> None:
    got = _run(
        """
def fill():
    held = []
    try:
        for i in range(100):
            held.append(bytearray(1024))
            time.ticks_ms()
        return -1
    except MemoryError:
        return len(held)
print("failed_at", fill())
print("depth", c._depth)
""",
        fw=32 * 1024,
    )
    # 32 KB of the chip's heap: the firmware's state fails a little short of 32
    # pieces of about 1 KB (the failing piece counted, as it was allocated)
    assert 20 <= got["failed_at"] <= 32
    assert got["depth"] == 0  # the clock left as it was: the board goes on
