"""Benchmark of the device rules engine (firmware/drules*.py): time per check,
heap, flash. Writes the "device-rules" section of docs/performance.md.

    .venv/bin/python bench/bench_device_rules.py [--hands N] [--repeat R] [--passes P] [--search N]

- Time, bot play: the differential corpus (``tractor_table.difffuzz.make_script``:
  the full engine's bots' hands over every rule variant, with the extra
  attempts) is replayed under MicroPython's unix port in one process; every
  check (``check_lead`` with the hands known, ``check_follow``,
  ``trick_winner``) is called R times and its time in a pass is the median of
  the R. A check is asked as the table asks it (``tablerules.ask``: the heap
  locked, its frames on the C stack) and, after, called directly (unlocked):
  both times are reported (docs/firmware.md, "The checks with the heap
  locked"); the figures and the targets are the locked ones.
- Time, adversarial set: the regression data of the adversarial generator
  (``tests/device_rules/data/adversarial.jsonl``, the issue's example among
  them) and the worst cases of a fresh seeded search (``--search`` cases,
  ``tractor_table.adversarial``, cost: the device's time), each timed the same
  way (R calls, the median) by ``sim/engine/mpy/adversary_mp.py``.
- Passes: both sets are timed P times over (P passes, the bots' pass of
  seconds between two of the adversarial set, the same checks in the same
  order); a check's time is the least of its P medians. The checks allocate nothing, so no garbage collection runs inside
  a timed call; what disturbs the figures is the shared machine, whose slow
  spells last longer than a check's R calls (milliseconds) but not a whole
  pass (seconds). Every check is timed the same way; the first pass alone
  (the figure of one pass) is reported beside it.
- RP2040 estimates by kind of code: each check's unix time is split into its
  native-code and bytecode parts (``sim/engine/mpy/kindtime_mp.py``), each
  scaled by its own factor measured on the real rp2 port, x 1.3 for flash wait
  states (``bench/rp2040.py``, ``rules_ms_by_kind``); no pystone ratio.
- The same-run anchor (``bench/chipref.py``): the engine the chip ran
  (a676471) is timed the same way on the audit's cases, before the first pass
  and after each (P + 1 times; each case its least); each case's ratio chip
  ms x 1.3 / its by-kind estimate says what this machine's estimates must be
  multiplied by today. The figures are given both ways: with the fixed factors
  and anchored (x the pessimistic ratio, the largest: the target verdict; and
  x the median ratio). ``--json`` prints them as one object and writes no file.
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
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import chipref
import rp2040
from tractor_table import adversarial, difffuzz, firmware_build, mpy, perfdoc
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim import engine
from tractor_table.sim.engine import EngineProcess
from tractor_table.sim.virtual import runner

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "device_rules_mp.py"
PATH = [FIRMWARE_DIR, HERE, engine.MPY_DIR]
ADVERSARIAL_DATA = HERE.parent / "tests" / "device_rules" / "data" / "adversarial.jsonl"
#: the generator's finds beyond its 2 s ceiling: empty since the device engine's speed-up
#: (its two cases, 15 s a check with the old search, are in adversarial.jsonl now)
ADVERSARIAL_BEYOND = ADVERSARIAL_DATA.with_name("adversarial-beyond.jsonl")
#: the full engine's slowest finds (--cost host): checked on the device too
ADVERSARIAL_HOST = ADVERSARIAL_DATA.with_name("adversarial-host.jsonl")
TARGET_WORST_MS = 20.0  # issue 21, calibrated by kind
TARGET_MEDIAN_MS = 1.0
TARGET_HEAP = 16 * 1024
TARGET_FLASH = 40 * 1024


def engine_module(stem: str) -> bool:
    """A module of the device engine (its flash): drules.py and every drules_*.py
    (its parts, drules_hand, drules_init: a new part is counted without a list)."""
    return stem == "drules" or stem.startswith("drules_")


#: (µs on the unix port, kind of check, where it comes from, µs of it in native code)
Timed = tuple[float, str, str, float]


def est(t: Timed) -> float:
    """A timed check on an RP2040, ms: by kind of code."""
    return rp2040.rules_ms_by_kind(t[3], t[0] - t[3])


def least(passes: list[list[Timed]]) -> list[Timed]:
    """Each check's least time over the passes (the same checks in each, in order)."""
    first = passes[0]
    for p in passes[1:]:
        if [(k, w) for _, k, w, _n in p] != [(k, w) for _, k, w, _n in first]:
            raise SystemExit("the passes timed different checks: the replay is not deterministic")
    # the least time, with the native share measured in the same pass
    return [min((p[i] for p in passes), key=lambda t: t[0]) for i in range(len(first))]


def bot_scripts(hands: int, seed: int) -> tuple[list[str], dict[str, str]]:
    """The bots' hand scripts (JSON lines) and each hand's rule variant."""
    scripts = [difffuzz.make_script(seed + i, variant=(seed + i) % len(difffuzz.VARIANTS)) for i in range(hands)]
    return [json.dumps(s.case) for s in scripts], {str(s.case["id"]): str(s.case["variant"]) for s in scripts}


def bot_timing(lines: list[str], variant: dict[str, str], repeat: int) -> tuple[list[Timed], list[Timed], int]:
    """One pass over every check of the bots' hands: the median of ``repeat``
    calls each, locked as the table asks them and unlocked (the same checks,
    in order); and how many checks tablerules asked again unlocked."""
    native, inner = adversarial.engine_methods()
    # (32M: the split's wrappers, made anew for each check, leave the unix port's heap
    # fragmented over a long run; no check allocates, so the heap's size times nothing)
    proc = mpy.run(RUNNER, args=["time", str(repeat), ",".join(native), ",".join(inner)], path=PATH, heapsize="32M", input="\n".join(lines) + "\nend\n", timeout=7200)
    if proc.returncode != 0:
        raise SystemExit(f"device benchmark failed:\n{proc.stderr[-2000:]}")
    out: list[Timed] = []
    unl: list[Timed] = []
    retries = 0
    for line in proc.stdout.splitlines():
        hid, _variant, checks, again = json.loads(line)
        retries += int(again)
        for kind, us, nat, us_u in checks:
            out.append((float(us), str(kind), f"{hid} ({variant[hid]})", float(nat)))
            unl.append((float(us_u), str(kind), f"{hid} ({variant[hid]})", float(nat) * float(us_u) / float(us) if us else 0.0))
    return out, unl, retries


def adversarial_set(search: int, seed: int) -> list[dict[str, object]]:
    """The stored regression cases, then the worst of each family (and any
    beyond the search's ceiling) of a fresh seeded search."""
    cases: list[dict[str, object]] = [
        *adversarial.read_cases(ADVERSARIAL_DATA),
        *adversarial.read_cases(ADVERSARIAL_BEYOND),
        *adversarial.read_cases(ADVERSARIAL_HOST),
    ]
    if search > 0:
        report = adversarial.search(search, seed, cost="device")
        if report.disagreements:
            raise SystemExit(f"the engines disagree on {len(report.disagreements)} adversarial cases: run fuzz-rules --adversarial")
        for s in sorted([*report.worst(), *report.beyond], key=lambda x: -x.cost):
            cases.append(s.record())
    return cases


def near_misses(cases: list[dict[str, object]]) -> str:
    """The near misses of issue 21's shape among ``cases`` (the generator's
    near-miss families), as the report names them: how many, the first and
    the last id (in the data's order), read from the data, not written down."""
    ids = [str(c["id"]) for c in cases if "near miss" in str(c.get("family", ""))]
    if not ids:
        return "no near misses"
    if len(ids) == 1:
        return f"the near miss {ids[0]}"
    return f"{len(ids)} near misses, {ids[0]} to {ids[-1]}"


def adversarial_timing(dev: EngineProcess, cases: list[dict[str, object]]) -> tuple[list[Timed], list[Timed], int]:
    """One pass over the set: each case's check timed the same way as the bots'
    (the median of the checker's ``repeat`` calls), locked and unlocked; and
    how many checks tablerules asked again unlocked."""
    out: list[Timed] = []
    unl: list[Timed] = []
    retries = 0
    for case in cases:
        got = dev.ask(case)
        if "us" not in got:
            raise SystemExit(f"the device engine could not judge {case.get('id')}: {got.get('error')}")
        kind = str(case["kind"])
        where = f"{case.get('id')} ({case.get('family')})"
        retries += int(got.get("retries", 0))
        out.append((float(got["us"]), kind, where, float(got.get("native_us", 0.0))))
        unl.append((float(got["us_unlocked"]), kind, where, float(got.get("native_us_unlocked", 0.0))))
    return out, unl, retries


def _row(label: str, v: list[Timed]) -> str:
    us = sorted(t[0] for t in v)
    ms = sorted(est(t) for t in v)
    med, p99, worst = statistics.median(us), us[min(len(us) - 1, int(len(us) * 0.99))], us[-1]
    w = max(v, key=est)
    return (
        f"| {label} | {len(v)} | {med:.1f} | {p99:.1f} | {worst:,.1f} | "
        f"{statistics.median(ms):.2f} | {ms[-1]:,.1f} | {w[3]:,.0f} + {w[0] - w[3]:,.0f} |"
    )


def rules_anchor(passes: list[dict[str, chipref.Timing]]) -> chipref.Anchor:
    """The anchor of these passes of the chip's engine: each case its least."""
    return chipref.rules_anchor(chipref.anchor_estimates(chipref.least_timings(passes)))


def anchored_figures(worst_ms: float, med_ms: float, bots_med_ms: float, bots_worst_ms: float, anchor: chipref.Anchor) -> dict[str, object]:
    """The figures (ms) with the fixed factors, anchored (x the pessimistic
    ratio: the target verdict) and x the median ratio; with the verdicts."""
    out: dict[str, object] = {}
    for name, scale in (("fixed", 1.0), ("anchored", anchor.pessimistic), ("anchored_median", anchor.median)):
        worst, med = worst_ms * scale, med_ms * scale
        out[name] = {
            "worst_ms": round(worst, 2),
            "median_ms": round(med, 3),
            "bots_median_ms": round(bots_med_ms * scale, 3),
            "bots_worst_ms": round(bots_worst_ms * scale, 2),
            "scale": round(scale, 4),
            "worst_met": worst <= TARGET_WORST_MS,
            "median_met": med <= TARGET_MEDIAN_MS,
        }
    return out


def anchor_markdown(
    fig: dict[str, Any], anchor: chipref.Anchor, before: chipref.Anchor, after: chipref.Anchor,
    load_start: list[float], load_end: list[float],
) -> str:
    """The paragraph on the same-run anchor and the figures both ways."""
    ok = lambda b: "met" if b else "**NOT met**"  # noqa: E731
    cells = ", ".join(f"{k} {v:.2f}" for k, v in anchor.ratios.items())
    a, m, f = fig["anchored"], fig["anchored_median"], fig["fixed"]
    return (
        f"**Anchored to the chip in this run** (`bench/chipref.py`): the engine the chip ran ({chipref.COMMIT}) timed the "
        f"same way on the audit's cases before the first pass and after each, each case its least; chip ms × "
        f"{rp2040.FLASH_WAIT} / its by-kind estimate here: {cells} (pessimistic **{anchor.pessimistic:.2f}**, "
        f"{anchor.flattered}; median {anchor.median:.2f}; before the passes alone {before.pessimistic:.2f}, after them "
        f"{after.pessimistic:.2f}). Load {load_start[0]:.1f} at the start, {load_end[0]:.1f} at the end, on "
        f"{os.cpu_count()} cores. Worst / median check, RP2040 ms: fixed factors **{f['worst_ms']:.1f} / "
        f"{f['median_ms']:.2f}**; anchored (× {anchor.pessimistic:.2f}, the verdict) **{a['worst_ms']:.1f} / "
        f"{a['median_ms']:.2f}** (worst {ok(a['worst_met'])}, median {ok(a['median_met'])} against "
        f"{TARGET_WORST_MS:g} / {TARGET_MEDIAN_MS:g} ms); × the median ratio {m['worst_ms']:.1f} / {m['median_ms']:.2f}."
    )


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
        if engine_module(c.source.stem):
            sizes[c.source.stem] = c.size
        else:
            c.output.unlink()
    return sizes


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300, help="hands of the bots' corpus (default 300)")
    ap.add_argument("--repeat", type=int, default=5, help="calls per timed check, the median counts (default 5)")
    ap.add_argument(
        "--passes", type=int, default=3, help="passes over both sets; a check's time is its least median (default 3)"
    )
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--search", type=int, default=300, help="cases of the fresh adversarial search (default 300; 0: the stored set only)")
    ap.add_argument("--json", action="store_true", help="print the figures (fixed and anchored) as one JSON object; write no file")
    args = ap.parse_args(argv[1:])
    if args.passes < 1 or args.repeat < 1:
        raise SystemExit(f"--passes {args.passes} --repeat {args.repeat}: give 1 or more for each")
    lines, variant = bot_scripts(args.hands, args.seed)
    cases = adversarial_set(args.search, args.seed)  # fixed before the first pass
    bot_runs: list[list[Timed]] = []
    adv_runs: list[list[Timed]] = []
    # the same checks unlocked (called directly, their frames from the heap)
    bot_unl: list[list[Timed]] = []
    adv_unl: list[list[Timed]] = []
    retries = 0
    load_start = chipref.load()
    anchor_cases = chipref.cases(list(chipref.ANCHOR_CASES))
    with adversarial.device_checker(args.repeat, by_kind=True) as dev, chipref.OldEngine(repeat=args.repeat) as old:
        # the chip's engine on the audit's cases before the first pass and after each
        anchor_runs = [old.time(anchor_cases)]
        # a pass over the bots (seconds) between two over the adversarial set
        # (a fraction of a second): a slow spell of the machine meets a check in one pass
        for _ in range(args.passes):
            b, bu, rb = bot_timing(lines, variant, args.repeat)
            a, au, ra = adversarial_timing(dev, cases)
            bot_runs.append(b)
            bot_unl.append(bu)
            adv_runs.append(a)
            adv_unl.append(au)
            retries += rb + ra
            anchor_runs.append(old.time(anchor_cases))
    load_end = chipref.load()
    anchor = rules_anchor(anchor_runs)
    anchor_before, anchor_after = rules_anchor(anchor_runs[:1]), rules_anchor(anchor_runs[-1:])
    chipref.check_answers(anchor_cases, anchor_runs)
    bots, adv = least(bot_runs), least(adv_runs)
    bots_u, adv_u = least(bot_unl), least(adv_unl)
    # the figure of one pass (the first), as this bench gave it before passes
    one_pass_worst = max(est(t) for t in [*bot_runs[0], *adv_runs[0]])
    pass_worst = [max(est(t) for t in [*b, *a]) for b, a in zip(bot_runs, adv_runs, strict=True)]
    h = heap([FIRMWARE_DIR])
    with tempfile.TemporaryDirectory() as tmp:
        f = flash(Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        # the unix port cannot load armv6m machine code (the engine's hot
        # methods are @micropython.native): the same modules for this machine
        runner.compile_for_host(Path(tmp))
        hm = heap([Path(tmp)])
    total_flash = sum(f.values())
    cmd = (
        f".venv/bin/python bench/bench_device_rules.py --hands {args.hands} --repeat {args.repeat} "
        f"--passes {args.passes} --seed {args.seed} --search {args.search}"
    )
    rows = []
    for label, data in (("bots", bots), ("adversarial", adv)):
        for kind in ("lead", "follow", "throw", "trick"):
            v = [t for t in data if t[1] == kind]
            if v:
                rows.append(_row(f"{label}: {kind}", v))
        rows.append(_row(f"**{label}: all**", data))
    every = [*bots, *adv]
    med_ms = statistics.median(est(t) for t in every)
    bots_med_ms = statistics.median(est(t) for t in bots)
    worst = max(every, key=est)
    worst_ms = est(worst)
    bots_worst = max(bots, key=est)
    adv_sorted = sorted(adv, key=est, reverse=True)
    native_share = sum(t[3] for t in every) / max(1.0, sum(t[0] for t in every))
    issue = next((t for t in adv if t[2].startswith("issue-12")), None)
    ok = lambda b: "met" if b else "**NOT met**"  # noqa: E731
    slow = "; ".join(
        f"{k} {us:,.0f} µs ({nat:,.0f} native) = {est((us, k, where, nat)):,.1f} ms RP2040 in {where}"
        for us, k, where, nat in adv_sorted[:6]
    )
    issue_line = (
        f"The issue-12 example (4 decks, level 7, trump S, a 22-card throw followed from 27 cards): "
        f"**{issue[0]:,.0f} µs** on the unix port ({issue[3]:,.0f} in native code), **{est(issue):,.1f} ms** on an RP2040 (est.)."
        if issue
        else ""
    )
    nf, bf = rp2040.TIME["rules_native"], rp2040.TIME["rules_bytecode"]
    fig = anchored_figures(worst_ms, med_ms, bots_med_ms, est(bots_worst), anchor)
    every_u = [*bots_u, *adv_u]
    worst_u = max(every_u, key=est)
    unlocked = {
        "worst_ms": round(est(worst_u), 2),
        "worst_check": f"{worst_u[1]} {worst_u[2]}",
        "median_ms": round(statistics.median(est(t) for t in every_u), 3),
        "bots_median_ms": round(statistics.median(est(t) for t in bots_u), 3),
        "bots_worst_ms": round(est(max(bots_u, key=est)), 2),
        "adversarial_median_ms": round(statistics.median(est(t) for t in adv_u), 3),
    }
    locked = {
        "worst_ms": round(worst_ms, 2),
        "median_ms": round(med_ms, 3),
        "bots_median_ms": round(bots_med_ms, 3),
        "bots_worst_ms": round(est(bots_worst), 2),
        "adversarial_median_ms": round(statistics.median(est(t) for t in adv), 3),
    }
    # each check, locked / unlocked (the same check, the same pass's least)
    ratio = sorted(a[0] / u[0] for a, u in zip(every, every_u, strict=True) if u[0] > 0)
    adv_ratio = {t[2].split(" ")[0]: t[0] / u[0] for t, u in zip(adv, adv_u, strict=True) if u[0] > 0}
    if args.json:
        print(json.dumps({
            **fig,
            "anchor": {**anchor.json(), "before": anchor_before.json(), "after": anchor_after.json(),
                       "commit": chipref.COMMIT, "passes": len(anchor_runs), "load": {"start": load_start, "end": load_end}},
            "worst_check": f"{worst[1]} {worst[2]}",
            "locked": locked,
            "unlocked": unlocked,
            "locked_over_unlocked": {"median": round(statistics.median(ratio), 3),
                                     "worst_check": round(adv_ratio.get(worst[2].split(" ")[0], 0.0), 3)},
            "retries": retries,
            "checks": len(every),
            "heap_state_peak_bytes": h["state_peak"],
            "flash_bytes": total_flash,
            "command": cmd,
        }, indent=1))
        return 0
    body = f"""## Device rules engine (`firmware/drules*.py`)

Command: `{cmd}` (`make bench` runs it with the defaults).
Machine: {perfdoc.machine_line()}; MicroPython unix port {mpy.micropython_binary().rsplit('/', 1)[-1]}.
Load average at the end of the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a shared machine: the
medians of R calls filter short bursts, the passes longer ones; a loaded machine makes every figure an upper bound).

**Time per check, every check timed the same way:** each check is called
{args.repeat} times and its time in a pass is the median of the {args.repeat};
both sets are timed in {args.passes} passes (the same checks, in the same order),
and a check's time is the least of its {args.passes} medians (no check is timed
again or differently). Two sets:

- *bots*: {args.hands} hands of the differential fuzzer (the full engine's bots,
  every rule variant: {len(difffuzz.VARIANTS)} presets and option sets, 1-4
  decks, plus random throws and follows that are often illegal), {len(bots)} checks;
- *adversarial*: {len(adv)} cases: the adversarial generator's regression data
  (`tests/device_rules/data/adversarial.jsonl`, the issue-12 example and
  {near_misses(adversarial.read_cases(ADVERSARIAL_DATA))} among them; `adversarial-host.jsonl`,
  the full engine's slowest)
  and the worst case of each family of a fresh search of {args.search} cases (seed
  {args.seed}, cost: the device's time; `tractor_table.adversarial`).

RP2040 times are estimates **by kind of code**: each check's unix time is split into
the part spent in native code and the part in bytecode (`sim/engine/mpy/kindtime_mp.py`:
the engine's native methods and the bytecode methods they call are wrapped, each
stretch charged to the code that ran it, and the plain time split in that proportion);
native µs × {nf:g} + bytecode µs × {bf:g} (the factors measured on the real rp2 port),
× {rp2040.FLASH_WAIT} for flash wait states (`bench/rp2040.py`, `rules_ms_by_kind`; checked
against the rp2 port's own times: `bench/calib_engine.py`, section "Device rules: the estimate against the chip's measured times": about 1.18× the chip's at the median, 0.84–1.35× case by case on the fastest runs; without the ×1.3 about 0.91×, so the factors are the measured ranges' pessimistic ends and the ×1.3 the only margin).
Over all the checks here {native_share:.0%} of the unix time is in native code.

| set: check | count | median µs (unix) | p99 µs | worst µs (unix) | median ms (RP2040, by kind) | worst ms (RP2040, by kind) | the worst's µs: native + bytecode |
|---|---|---|---|---|---|---|---|
{chr(10).join(rows)}

**Locked, as the table asks** (issue 21; docs/firmware.md, "The checks with the heap locked"):
every time above is the check asked through `tablerules.ask`, the heap locked, as the table
asks it (every bytecode frame of the check on the C stack, none from the GC heap). Each check
is also timed unlocked, the engine's method called directly, in the same pass (after its
locked calls): worst / median over every check, RP2040 ms by kind, locked **{locked['worst_ms']:,.1f} /
{locked['median_ms']:.2f}**, unlocked **{unlocked['worst_ms']:,.1f} / {unlocked['median_ms']:.2f}** ({unlocked['worst_check']});
bots' median {locked['bots_median_ms']:.2f} / {unlocked['bots_median_ms']:.2f}, adversarial median
{locked['adversarial_median_ms']:.2f} / {unlocked['adversarial_median_ms']:.2f}; a check's locked / unlocked time,
median {statistics.median(ratio):.2f}. The split by kind's wrappers allocate (their argument tuples), so
the split is measured unlocked and its proportion applied to the locked time. Checks asked
again unlocked (a MemoryError under the lock) over the {args.passes} passes: {retries}. The runner's
heap is clean (it collects before each case): the holes of a chip's heap, which slow only the
unlocked frames, are not in these figures (docs/performance.md, "the checks with the heap locked").

{anchor_markdown(fig, anchor, anchor_before, anchor_after, load_start, load_end)}

Targets on the RP2040 (issue 21, calibrated by kind), with the fixed factors: any check, any input up to 4 decks,
at most {TARGET_WORST_MS:g} ms: worst **{worst_ms:,.1f} ms** ({ok(worst_ms <= TARGET_WORST_MS)}; {worst[1]} {worst[2]};
over bot play alone {est(bots_worst):,.1f} ms, {ok(est(bots_worst) <= TARGET_WORST_MS)}, {bots_worst[1]} in {bots_worst[2]});
median at most {TARGET_MEDIAN_MS:g} ms: **{med_ms:.2f} ms** over every check of both sets, {bots_med_ms:.2f} ms over bot play ({ok(med_ms <= TARGET_MEDIAN_MS)}).
{issue_line}
Slowest adversarial checks: {slow}.
The worst of each pass alone: {', '.join(f"{x:,.1f}" for x in pass_worst)} ms RP2040 (est., by kind)
(the first pass, the figure of one pass: {one_pass_worst:,.1f} ms).

**Why passes.** The checks allocate nothing (`gc.mem_alloc()` is unchanged over
every timed call of the adversarial set), so no garbage collection can start
inside one; `gc.disable()` around the calls, or `gc.collect()` before each,
leaves the spread as it is. The spread is the shared machine: a slow spell
(another process on the core) slows every call of a check for milliseconds, so
the median of R calls takes it in, while a pass over the bots (seconds)
separates two passes over the adversarial set (2026-12-01, before the split by kind: with one
pass the same engine code gave worst cases 2.5× apart over 9 runs; `bench/device_rules_spread.py`
times each adversarial case N times in a row). The split by kind is measured in the same pass as
the check's time (after its R plain calls, R calls with the wrappers).

**Heap.** A full 2-deck hand (classic; {len(difffuzz.make_script(7, variant=0).case['steps'])} steps) replayed with
`gc.collect()` + `gc.mem_alloc()` after every check. The engine's working heap
during play (the Engine's tables and scratch buffers, {h['engine_object']:,} bytes; the
four hands; the bidding state) peaks at **{h['state_peak']:,} bytes**: target < {TARGET_HEAP // 1024} KB ({ok(h['state_peak'] < TARGET_HEAP)}); the checks allocate
nothing (a test asserts it). Not counted in that figure: the engine's code once
imported, {hm['code']:,} bytes loaded from `.mpy` files (`-march=host`: the unix port keeps
native code out of the GC heap, a Pico in it; {h['code']:,} compiled from source), which on a Pico can be frozen into the firmware image (then it stays
in flash and costs no heap); counted, the peak would be {hm['peak']:,} bytes
({ok(hm['peak'] < TARGET_HEAP)} against 16 KB). All measured on the 64-bit unix port, whose
objects are larger than the RP2040's 32-bit ones (state × {rp2040.HEAP_DATA:g} on the rp2 port:
{rp2040.rp2_data(h['state_peak']):,.0f} bytes of working heap; the code by kind, native code counted
as the armv6m bytes: bench/rp2040.py, "Heap, by kind"). The engine's
tests pass under `-X heapsize=64K`.

**Flash.** `mpy-cross -march=armv6m {firmware_build.OPT}`: {', '.join(f'{k}.mpy {v:,}' for k, v in sorted(f.items()))};
total {total_flash:,} bytes; target < {TARGET_FLASH // 1024} KB ({ok(total_flash < TARGET_FLASH)}).
"""
    perfdoc.write_section("device-rules", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
