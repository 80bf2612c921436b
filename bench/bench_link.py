"""Benchmark of the host–table link; writes the "link" section of docs/performance.md.

Figures:
1. bytes on the wire per game event (both directions, acks included), for a
   whole hand of events shaped like the table's (firmware/events.py), against
   the event's own canonical JSON as the reference;
2. time from reconnect to resynced, over real ptys with the device program
   under MicroPython (tests/link): after a device reboot and after an
   unplug/replug, with 0 and with 50 events to replay;
3. the device heap the link uses (ring buffer of 64 events included), measured
   under MicroPython with gc.mem_alloc();
4. the device's CPU time per event (hash, ring, EVENT frame out, ACK in)
   under MicroPython, against json.dumps of the event alone in the same run,
   and calibrated to a real RP2040 with the factors of bench/rp2040.py (heap
   x HEAP_DATA, its code x HEAP_BYTECODE; time x the generic factor x 1.3 for flash wait states).

Usage: .venv/bin/python bench/bench_link.py [--quick]
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests" / "link"
sys.path[:0] = [str(TESTS), str(ROOT / "firmware")]

import rp2040  # noqa: E402
from linkapp import Pair  # noqa: E402
from tractor_table import mpy, perfdoc  # noqa: E402
from tractor_table.link import notes, ttlink  # noqa: E402

COMMAND = ".venv/bin/python bench/bench_link.py"


def hand_events(rng: random.Random) -> list[list[int]]:
    """One two-deck hand as the table reports it (kinds and shapes of events.py)."""
    evs: list[list[int]] = [[1, 3, 0, 2, 0, 0, 0]]  # HAND_START
    for seat in range(4):
        evs.append([2, seat, rng.randrange(2), 0, rng.randrange(108)])  # BID
    evs.append([3, rng.randrange(5), 1, 0])  # TRUMP
    evs.append([5, 0, 15] + [rng.randrange(108) for _ in range(8)])  # KITTY
    score = 0
    for trick in range(25):
        for k in range(4):
            n = 2 if rng.random() < 0.2 else 1
            evs.append([6, trick, (trick + k) % 4] + [rng.randrange(108) for _ in range(n)])
        pts = rng.choice((0, 0, 5, 10, 15, 20))
        score += pts
        evs.append([10, trick, rng.randrange(4), pts, score])
    evs.append([12, score, 10, 2, 0, 1, 2, 0, -1])  # HAND_END
    return evs


def bytes_per_event() -> tuple[str, dict[str, float]]:
    rng = random.Random(1)
    evs = hand_events(rng)
    p = Pair(seed=1)
    assert p.run_until(lambda: p.host.synced, 2000)
    d0, h0 = p.dev.bytes_out, p.host.bytes_out
    for ev in evs:
        p.app.add(ev)
        p.produced[(len(p.app.events) - 1, p.dev.head)] = ttlink.canonical(ev)
        p.step(10)
    assert p.run_until(p.in_step, 10000)
    up = p.dev.bytes_out - d0
    down = p.host.bytes_out - h0
    payload = sum(len(ttlink.canonical(e)) for e in evs)
    n = len(evs)
    figures = {
        "events": n,
        "payload": payload / n,
        "up": up / n,
        "down": down / n,
        "total": (up + down) / n,
    }
    return "", figures


def heap() -> dict[str, int]:
    code = """
import gc
gc.collect(); m0 = gc.mem_alloc()
import ttlink
gc.collect(); m1 = gc.mem_alloc()
link = ttlink.DeviceLink(0, 1, lambda: 12345, "0.1.0", "rules-2026.1", ring=64)
gc.collect(); m2 = gc.mem_alloc()
for k in range(200):
    link.add_event([6, k // 5, k % 4, (k * 37) % 108])
gc.collect(); m3 = gc.mem_alloc()
link.feed(ttlink.encode_frame(0, 0, 0, ttlink.HELLO, [1, "0.1.0", "rules-2026.1", 5, 0, 0]), 10)
link.feed(ttlink.encode_frame(link.sid, 1, 0, ttlink.SYNC, [136]), 20)
link.take_output()
gc.collect(); m4 = gc.mem_alloc()
print(m1 - m0, m2 - m1, m3 - m2, m4 - m1)
"""
    proc = mpy.run(code=code, path=[ROOT / "firmware"], heapsize="160K")
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    module, empty, ring, total = (int(x) for x in proc.stdout.split())
    # the compiled module as the Pico gets it (mpy-cross -march=armv6m)
    import subprocess

    from tractor_table import firmware_build

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ttlink.mpy"
        subprocess.run(
            [firmware_build.mpy_cross_binary(), "-march=armv6m", "-o", str(out), str(ROOT / "firmware" / "ttlink.py")],
            check=True,
        )
        mpy_size = out.stat().st_size
    return {"module": module, "empty": empty, "ring": ring, "total": total, "mpy": mpy_size}


CPU_CODE = """
import sys, json, time, gc
import ttlink
evs = json.loads(open(sys.argv[1]).read())
link = ttlink.DeviceLink(0, 1, lambda: 4242, "0.1.0", "rules-2026.1", ring=64)
link.feed(ttlink.encode_frame(0, 0, 0, ttlink.HELLO, [1, "0.1.0", "rules-2026.1", 5, 0, 0]), 1)
sid = link.sid
link.feed(ttlink.encode_frame(sid, 1, 0, ttlink.SYNC, [0]), 2)
link.take_output()
acks = [ttlink.encode_frame(sid, 0, k + 1, ttlink.ACK, []) for k in range(len(evs))]
gc.collect()
t0 = time.ticks_us()
for k in range(len(evs)):
    link.add_event(evs[k])
    out = link.take_output()
    link.feed(acks[k], 3)
t1 = time.ticks_us()
for ev in evs:
    json.dumps(ev)
t2 = time.ticks_us()
assert link.count == len(evs) and not link.busy(), (link.count, link.busy())
print("link_us", time.ticks_diff(t1, t0) / len(evs))
print("dumps_us", time.ticks_diff(t2, t1) / len(evs))
"""


def cpu_per_event() -> dict[str, float]:
    rng = random.Random(2)
    evs = [ev for _ in range(2) for ev in hand_events(rng)]
    runs: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "events.json"
        data.write_text(json.dumps(evs))
        for _ in range(5):
            proc = mpy.run(
                code=CPU_CODE, path=[ROOT / "firmware"], args=[str(data)], heapsize="512K"
            )
            if proc.returncode != 0:
                raise SystemExit(proc.stdout + proc.stderr)
            for line in proc.stdout.splitlines():
                name, value = line.split()
                runs.setdefault(name, []).append(float(value))
    out = {k: statistics.median(v) for k, v in runs.items()}
    out["events"] = len(evs)
    return out


def reconnects(rounds: int) -> dict[str, list[float]]:
    from relay import Relay
    from test_e2e import Device, wait_equal
    from tractor_table.link.serial_link import SerialLink

    out: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        relay = Relay(Path(tmp))
        device = Device(relay, Path(tmp) / "state.json")
        device.start(persist_every=1)
        reboots: list[list[object]] = []
        host = SerialLink(
            str(relay.path),
            reconnect_s=0.05,
            on_note=lambda n: reboots.append(n) if isinstance(n, notes.Reboot) else None,
        )
        host.start()

        def until(pred: object, what: str) -> None:
            deadline = time.monotonic() + 10
            while not pred():  # type: ignore[operator]
                if time.monotonic() > deadline:
                    raise SystemExit(f"bench_link: timed out waiting for {what}\n{device.errors()}")
                time.sleep(0.002)

        try:
            assert host.wait_synced(10)
            total = 0
            for missed in (0, 50):
                for kind in ("reboot", "replug"):
                    times = out.setdefault(f"{kind}, {missed} events to replay", [])
                    for _ in range(rounds):
                        total += 4
                        host.send_app(["emit_to", total])
                        wait_equal(host, device, total)
                        seen = len(reboots)
                        if missed:
                            # the table plays on while the host does not hear it
                            host.send_app(["emit_to", total + missed])
                            until(lambda t=total: len(device.ram()) > t, "emitting")
                            if kind == "reboot":
                                relay.stall(60)
                            else:
                                relay.unplug()
                            total += missed
                            until(lambda t=total: len(device.ram()) == t, "the events")
                        elif kind == "replug":
                            relay.unplug()
                            time.sleep(0.05)
                        if kind == "reboot":
                            device.kill()
                            t0 = time.monotonic()
                            device.start(persist_every=1)
                            relay.stall(0)
                            cond = lambda h, s=seen, t=total: (  # noqa: E731
                                len(reboots) > s and h.synced and h.record.count == t
                            )
                        else:
                            t0 = time.monotonic()
                            relay.plug()
                            cond = lambda h, t=total: h.synced and h.record.count == t  # noqa: E731
                        assert host.wait_for(cond, 10), (kind, missed)
                        times.append(time.monotonic() - t0)
                        total = len(device.ram())  # a reboot may lose the unsaved events
                        wait_equal(host, device, total)
        finally:
            host.close()
            device.kill()
            relay.close()
    return out


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    _, b = bytes_per_event()
    h = heap()
    cpu = cpu_per_event()
    rc = reconnects(2 if quick else 5)
    lines = [
        "## Link (host–table, USB serial)",
        "",
        f"Command: `{COMMAND}`  ",
        f"Machine: {perfdoc.machine_line()}",
        "",
        "### Bytes per game event",
        "",
        f"A whole two-deck hand ({b['events']} events shaped as in `firmware/events.py`), "
        "streamed from the device to the host after the handshake; every frame counted, "
        "acks and pings included. Reference: the event's own canonical JSON.",
        "",
        "| | bytes per event | ratio to the event's JSON |",
        "|---|---:|---:|",
        f"| event JSON (reference) | {b['payload']:.1f} | 1.00 |",
        f"| device → host (EVENT frames) | {b['up']:.1f} | {b['up'] / b['payload']:.2f} |",
        f"| host → device (ACKs) | {b['down']:.1f} | {b['down'] / b['payload']:.2f} |",
        f"| both directions | {b['total']:.1f} | {b['total'] / b['payload']:.2f} |",
        "",
        "### Time from reconnect to resynced",
        "",
        "Host `SerialLink` (pyserial) ↔ relay (two ptys) ↔ `tests/link/device_prog.py` under "
        "MicroPython's unix port. Reboot: from the new device process starting to the host "
        "being synced in the new session (includes MicroPython's start-up and import of the "
        "link). Replug: from the port reappearing to synced (the host polls every 50 ms). "
        "Pseudo-terminals, not USB: the USB enumeration of a real Pico adds its own delay.",
        "",
        "Reference: the replug with nothing to replay (handshake only), same run.",
        "",
        "| case | median (ms) | ratio to reference | runs |",
        "|---|---:|---:|---:|",
    ]
    ref = statistics.median(rc["replug, 0 events to replay"])
    for name, times in rc.items():
        med = statistics.median(times)
        lines.append(f"| {name} | {med * 1000:.0f} | {med / ref:.1f} | {len(times)} |")
    lines += [
        "",
        "### Device heap used by the link",
        "",
        "Measured under MicroPython's unix port (64-bit objects) with `gc.mem_alloc()` after "
        f"`gc.collect()`, and calibrated to the rp2 port by kind: state × {rp2040.HEAP_DATA:g}, the module's "
        f"code × {rp2040.HEAP_BYTECODE:g} (it has no native code) "
        "(section \"Calibration\"; the link measured on a 32-bit build is in \"Heap with 32-bit objects\").",
        "",
        "| what | bytes (unix port) | RP2040 bytes (calibrated) |",
        "|---|---:|---:|",
    ]
    for key, what in (
        ("empty", "`DeviceLink` just made (line buffer, ring slots for 64 events)"),
        ("ring", "ring filled with 64 events (4-field PLAY events)"),
        ("total", "link state in use (after a handshake and a SYNC), ring full"),
        ("module", "the module's code (`import ttlink`, bytecode in RAM)"),
    ):
        chip = rp2040.chip_code(h[key]) if key == "module" else rp2040.rp2_data(h[key])
        lines.append(f"| {what} | {h[key]:,} | {chip:,.0f} |")
    lines += [
        f"| `ttlink.mpy` for the RP2040 (`mpy-cross -march=armv6m`), file size | {h['mpy']:,} | {h['mpy']:,} (flash) |",
        "",
        f"Link state with a full ring: **{h['total'] / 1024:.1f} KB** on the unix port, "
        f"**{rp2040.rp2_data(h['total']) / 1024:.1f} KB** calibrated (budget: under 12 KB). "
        "The module's code is counted apart: on the Pico it can be frozen into the "
        "firmware image (flash), where it takes no heap.",
        "",
        "### Device CPU per event",
        "",
        f"Under MicroPython's unix port, {cpu['events']:.0f} events (two hands) through a "
        "`DeviceLink` after a handshake: `add_event` (state hash, ring), the EVENT frame "
        "encoded, the host's ACK decoded. Reference: `json.dumps` of the event alone, same "
        "process. Medians of 5 runs.",
        "",
        "| | µs per event (unix port) | ratio to reference | RP2040 µs (calibrated) |",
        "|---|---:|---:|---:|",
    ]
    factor = rp2040.time_factor("generic")
    for key, what in (("dumps_us", "json.dumps(event) (reference)"), ("link_us", "link, per event")):
        lines.append(f"| {what} | {cpu[key]:.1f} | {cpu[key] / cpu['dumps_us']:.1f} | {cpu[key] * factor:.0f} |")
    lines += [
        "",
        f"RP2040 time = unix time × {factor:g}: the link has no measured factor of its own, so "
        f"`bench/rp2040.py`'s `GENERIC` ({rp2040.GENERIC:g}, the largest factor the table core showed "
        f"on the real rp2 port) × {rp2040.FLASH_WAIT} for flash wait states (section \"Calibration\").",
    ]
    perfdoc.write_section("link", "\n".join(lines))
    print(json.dumps({"bytes": b, "heap": h, "cpu": cpu, "reconnect_ms": {k: [round(t * 1000) for t in v] for k, v in rc.items()}}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
