"""The link's share of the table's heap (docs/firmware.md, "The link's parts"),
under MicroPython's unix port with the firmware's .mpy files as the Pico loads
them: what a match rarely runs (the set-up, the handshake, SYNC, the log's
restart: ttlink_rare; snapshots: ttlink_snap) is loaded for each step and
dropped after, so the table holds only the per-event path; and a host that
comes back after the ring wrapped is replayed exactly."""

from __future__ import annotations

import re
from pathlib import Path

from tractor_table import mpy

# the device end and a host end on one clock, bytes passed by hand; each
# point prints the link modules then loaded
PROG = r"""
import gc, sys, micropython
def live():
    gc.collect(); gc.collect()
    return gc.mem_alloc()
def parts(label):
    print("PARTS", label, " ".join(sorted(m for m in sys.modules if m in ("ttlink_rare", "ttlink_snap"))))
import ttlink_io
a = live()
micropython.qstr_info()
import ttlink
b = live()
micropython.qstr_info()
print("CODE", b - a)
import ttlink_host

class Lcg:
    def __init__(self, s):
        self.s = s
    def next(self):
        self.s = (self.s * 1103515245 + 12345) & 0x3FFFFFFF
        return self.s

dev = ttlink.DeviceLink(0, 4242, Lcg(1).next, "0.1.0", "rules-test")
parts("made")
host = ttlink_host.HostLink(0, Lcg(2).next, "0.1.0", "rules-test")
now = [0]
def run(ms, wire=True):
    for _ in range(ms // 5):
        now[0] += 5
        t = now[0]
        dev.tick(t)
        host.tick(t)
        d = dev.take_output()
        h = host.take_output()
        if wire:
            if d:
                host.feed(d, t)
            if h:
                dev.feed(h, t)
        dev.take_notes()
        host.take_notes()
def events(n, k0):
    for k in range(k0, k0 + n):
        dev.add_event([6, k % 25, k % 4, k % 108, (k * 7) % 108])
        run(20)
run(300)
print("UP", host.synced, dev._welcome is None)
parts("synced")
events(100, 0)
print("SENT", host.record.count, dev.count, dev._base)
parts("streamed")
# the host goes quiet, the table plays on past the ring's end, the host is back
run(3500, wire=False)
for k in range(100, 150):
    dev.add_event([6, k % 25, k % 4, k % 108, (k * 7) % 108])
run(4000)
ok = host.record.count == dev.count and host.record.head == dev.head
print("BACK", host.synced, host.record.base, host.record.count, dev.count, ok)
parts("back")
dev.restore(7, 12345, [[1, 2, 3]])
parts("restored")
print("LOG", dev.count, dev._base)
"""


def _run(fw: Path) -> str:
    proc = mpy.run(code=PROG, path=[fw], heapsize="256K", timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_link_holds_its_per_event_path_only(firmware_build: Path) -> None:
    out = _run(firmware_build)
    lines = {ln.split()[1] if ln.startswith("PARTS") else ln.split()[0]: ln for ln in out.splitlines()}
    # no part stays after the set-up, the handshake and SYNC, the events
    # streamed, a host's return and a restart of the log
    for label in ("made", "synced", "streamed", "back", "restored"):
        assert lines[label].split()[2:] == [], lines[label]
    # the WELCOME kept for a retried HELLO is let go once the host is up
    assert lines["UP"].split()[1:] == ["True", "True"]
    # 100 events streamed, the ring's 64 slots wrapped
    sent = [int(x) for x in lines["SENT"].split()[1:]]
    assert sent[0] == sent[1] == 100 and sent[2] == 36
    # the host back after 50 more (the ring holds them): replayed, no snapshot
    back = lines["BACK"].split()[1:]
    assert back == ["True", "0", "150", "150", "True"], back
    assert lines["LOG"].split()[1:] == ["8", "7"]


def test_the_links_code_on_the_table_stays_small(firmware_build: Path) -> None:
    # ttlink's own heap, its names (the qstr pools, which grow in lumps
    # shared with every module) aside: bytecode, functions, classes,
    # globals. 10,656 B before its rarely run steps went to ttlink_rare (and
    # the CPython JSON with them); 8,766 B after
    out = _run(firmware_build)
    pools = [int(m) for m in re.findall(r"n_total_bytes=(\d+)", out)]
    code = int(re.search(r"^CODE (\d+)", out, re.M).group(1))  # type: ignore[union-attr]
    assert len(pools) >= 2
    assert 4000 < code - (pools[1] - pools[0]) < 9600, out
