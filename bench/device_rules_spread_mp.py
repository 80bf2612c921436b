# Diagnosis of the device rules bench's spread, MicroPython side (run by
# bench/device_rules_spread.py, firmware/ and host/tractor_table/sim/engine/mpy/ on the path).
#
#   micropython device_rules_spread_mp.py MODE N < cases (JSON lines) > one line per case
#
# Each case's check (sim/engine/mpy/adversary_mp.py's answer()) is called N
# times in a row. MODE "plain": as the bench calls it; "gc": gc.collect()
# (untimed) before each call; "nogc": gc.disable() around the N calls.
# First line: {"collect_us": [min, median, max] of 50 gc.collect(), "mem_alloc"};
# then per case: [id, kind, min µs, median µs, max µs, most bytes one call allocated].
import gc
import json
import sys
import time

import adversary_mp  # type: ignore[import-not-found]

MODE = sys.argv[1]
N = int(sys.argv[2])
ticks = time.ticks_us  # type: ignore[attr-defined]
diff = time.ticks_diff  # type: ignore[attr-defined]
ALLOC = [0]


def timed(fn, R, cap):  # type: ignore[no-untyped-def]
    ts = []
    out = None
    if MODE == "nogc":
        gc.disable()
    for _ in range(N):
        if MODE == "gc":
            gc.collect()
        a = gc.mem_alloc()  # type: ignore[attr-defined]
        t0 = ticks()
        out = fn()
        dt = diff(ticks(), t0)
        b = gc.mem_alloc()  # type: ignore[attr-defined]
        if b - a > ALLOC[0]:
            ALLOC[0] = b - a
        ts.append(dt)
    if MODE == "nogc":
        gc.enable()
    return out, ts


adversary_mp.timed = timed
cs = []
for _ in range(50):
    t0 = ticks()
    gc.collect()
    cs.append(diff(ticks(), t0))
cs.sort()
print(json.dumps({"collect_us": [cs[0], cs[25], cs[-1]], "mem_alloc": gc.mem_alloc()}))  # type: ignore[attr-defined]
while True:
    line = sys.stdin.readline()
    if not line:
        break
    case = json.loads(line)
    ALLOC[0] = 0
    _ans, ts = adversary_mp.answer(case, N, 0)
    ts.sort()
    print(json.dumps([case["id"], case["kind"], ts[0], ts[len(ts) // 2], ts[-1], ALLOC[0]]))
    gc.collect()
