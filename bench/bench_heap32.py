"""The firmware's heap with 32-bit objects, measured on MicroPython's webassembly
port (a 32-bit build, run under node) against the 64-bit unix port on the same
inputs, and against the rp2 port's heap factor; writes the "heap32" section of
docs/performance.md.

Both ports run the same files: the firmware as bytecode-only ``.mpy`` (the
webassembly port has no native emitter: ``tractor_table.wasm32.build_firmware``
blanks the ``@micropython.native`` lines and compiles without ``-march``), and
the same MicroPython programs:

1. the table core with the device rules engine over the bot hands of
   ``bench_table.py`` (``bench/table_mp.py``, same seed): the peak live heap;
2. the firmware modules' code, imported in the virtual table's order
   (``bench/heap32_mp.py code``, the modules of ``bench_heap.py``);
3. the device rules engine: its code, and its working state's peak over the
   2-deck hand script of ``bench_device_rules.py`` (``heap32_mp.py rules``);
4. the link's state, as ``bench_link.py`` measures it (``heap32_mp.py link``).

Live heap: ``gc.mem_alloc()`` after a collection, at chosen points
(``bench/heapprobe.py``: the webassembly port collects only at its top level).

Usage: .venv/bin/python bench/bench_heap32.py [--hands N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import rp2040
from bench_table import record_hands
from tractor_table import difffuzz, mpy, perfdoc, wasm32

HERE = Path(__file__).resolve().parent

#: the rp2 port's own figures (bench/rp2040.py's sources), for the comparison
RP2 = {
    "table": (108_992, 139_744),
    "code": (74_304, 95_104),
    "rules_code": (16_688, 21_088),
    "rules_state": (4_368, 5_536),
}


def factor_of(key: str) -> float:
    """The bench/rp2040.py heap factor of a row's kind: code (bytecode only
    here, no native code on this port) or state (data)."""
    return rp2040.HEAP_BYTECODE if key in ("code", "rules_code", "link_module") else rp2040.HEAP_DATA


def measure(hands: int, runs: int) -> dict[str, dict[str, list[int]]]:
    """{port: {figure: [value per run]}} for "wasm32" and "unix64"."""
    out: dict[str, dict[str, list[int]]] = {"wasm32": {}, "unix64": {}}
    wasm32.install()
    with tempfile.TemporaryDirectory(prefix="bench-heap32-") as tmp:
        work = Path(tmp)
        fw = work / "firmware"
        wasm32.build_firmware(fw)
        data = work / "hands.jsonl"
        data.write_text("".join(json.dumps(h) + "\n" for h in record_hands(hands, 11)))
        case = work / "case.json"
        case.write_text(json.dumps(difffuzz.make_script(7, variant=0).case))
        jobs = [
            ("table", HERE / "table_mp.py", [str(data), str(work / "table.json"), str(hands)]),
            ("code", HERE / "heap32_mp.py", ["code"]),
            ("rules", HERE / "heap32_mp.py", ["rules", str(case)]),
            ("link", HERE / "heap32_mp.py", ["link"]),
        ]
        for _ in range(runs):
            for name, script, args in jobs:
                for port in ("wasm32", "unix64"):
                    if port == "wasm32":
                        proc = wasm32.run(script, path=[fw, HERE], args=args, files=[data, case])
                    else:
                        proc = mpy.run(script, path=[fw, HERE], args=args, heapsize="1M", timeout=600)
                    if proc.returncode != 0:
                        raise SystemExit(f"{script.name} {name} on {port} failed:\n{proc.stdout[-800:]}{proc.stderr[-2000:]}")
                    for key, value in parse(name, proc.stdout).items():
                        out[port].setdefault(key, []).append(value)
    return out


def parse(name: str, stdout: str) -> dict[str, int]:
    if name == "table":
        mem = [ln for ln in stdout.splitlines() if ln.startswith("mem ")]
        return {"table": int(mem[-1].split()[1])}
    rec = json.loads(stdout.strip().splitlines()[-1])
    if name == "code":
        return {"code": rec["total"], **{f"code:{m}": size for m, size in rec["modules"]}}
    if name == "rules":
        return {"rules_code": rec["code"], "rules_state": rec["state_peak"]}
    return {f"link_{k}": v for k, v in rec.items()}


def render(r: dict[str, dict[str, list[int]]], hands: int, runs: int) -> str:
    def med(port: str, key: str) -> int:
        return int(statistics.median(r[port][key]))

    def spread(key: str) -> str:
        both = [v for port in r for v in r[port][key]]
        return "" if len({*r["wasm32"][key]}) == 1 and len({*r["unix64"][key]}) == 1 else f" (runs: {both})"

    rows = [
        ("table", f"table core over {hands} bot hands of `bench_table.py`: peak live heap"),
        ("code", "firmware modules' code, imported in the virtual table's order"),
        ("rules_code", "device rules engine: code"),
        ("rules_state", "device rules engine: working state's peak over a 2-deck hand"),
        ("link_module", "link: the module's code (`import ttlink`)"),
        ("link_empty", "link: `DeviceLink` just made (ring of 64)"),
        ("link_ring", "link: ring filled with 64 events"),
        ("link_total", "link: state in use, ring full"),
    ]
    out = [
        "## Heap with 32-bit objects (webassembly port) against the unix port and the rp2 factor",
        "",
        f"Command: `.venv/bin/python bench/bench_heap32.py --hands {hands} --runs {runs}`  ",
        f"Machine: {perfdoc.machine_line()}; MicroPython's webassembly port v1.27.0 (32-bit, "
        "`@micropython/micropython-webassembly-pyscript` from npm, `tools/wasm/`) under node; "
        "MicroPython's unix port (64-bit) from `.venv`.",
        "",
        "Both ports run the same files: the firmware compiled as bytecode only (the webassembly port "
        "has no native emitter, so `@micropython.native` is a syntax error there: "
        "`tractor_table.wasm32.build_firmware` blanks those decorator lines, keeping line numbers, and "
        "compiles without `-march`; on a Pico, `pn532.py`'s and `scanner.py`'s native functions are "
        "armv6m code instead), and the same programs (`bench/table_mp.py`, `bench/heap32_mp.py`). "
        "Live heap = `gc.mem_alloc()` after a collection (`bench/heapprobe.py`). "
        f"Medians of {runs} runs.",
        "",
        "| what | 32-bit (webassembly) B | 64-bit (unix) B | 32 / 64 | rp2 port B (its own run) | rp2 / unix then | "
        "32 / 64 against the factor of its kind |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    ratios = []
    for key, what in rows:
        w, u = med("wasm32", key), med("unix64", key)
        ratio = w / u
        if key in RP2 and not (key == "table" and hands != 40):
            rp2, unix_then = RP2[key]
            rp2_cells = f"{rp2:,} | {rp2 / unix_then:.2f}"
        else:
            rp2_cells = "– | –"
        off = ratio / factor_of(key) - 1
        ratios.append((key, ratio))
        out.append(f"| {what}{spread(key)} | {w:,} | {u:,} | {ratio:.2f} | {rp2_cells} | {off:+.0%} |")
    main_keys = ("table", "code", "rules_code", "rules_state")
    lo = min(ratio for key, ratio in ratios if key in main_keys)
    hi = max(ratio for key, ratio in ratios if key in main_keys)
    closest = min((k for k in main_keys), key=lambda k: abs(dict(ratios)[k] / factor_of(k) - 1))
    labels = dict(rows)
    link = dict(ratios)["link_total"]
    out += [
        "",
        f"**How far apart.** For the table core, the modules' code and the rules engine, the 32-bit build "
        f"uses {lo:.2f}–{hi:.2f} × the unix port's heap, against the factors of bench/rp2040.py: code "
        f"(bytecode only here) × {rp2040.HEAP_BYTECODE:g}, state × {rp2040.HEAP_DATA:g} (the table core's "
        "peak holds both: against the data factor); the closest to its factor is the "
        f"{labels[closest].split(':')[0]} ({dict(ratios)[closest]:.2f}). The link's state in use comes to "
        f"{link:.2f} × the unix port's"
        + (
            " (many small objects: a GC block is 16 bytes on 32 bits against 32 on 64), so the "
            f"data factor {rp2040.HEAP_DATA:g} overstates it, on the safe side."
            if link < rp2040.HEAP_DATA
            else f", so the data factor {rp2040.HEAP_DATA:g} understates it."
        )
        + " What still differs from a Pico: the webassembly port's own built-in names (qstrs in ROM), and "
        "native code for the readers' driver and scanner; its heap also grows on demand, so these figures "
        "say what the code uses, not whether it fits.",
        "",
        "Per module (the code row), 32-bit / 64-bit B: "
        + ", ".join(
            f"{k.split(':', 1)[1]} {med('wasm32', k):,} / {med('unix64', k):,}"
            for k in r["wasm32"]
            if k.startswith("code:")
        )
        + ". (Names interned as qstrs go into pools that grow in doubling chunks, so single modules are lumpy; "
        "the total is not.)",
    ]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=40)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv[1:])
    why = wasm32.missing()
    if why:
        print(f"bench_heap32: {why}", file=sys.stderr)
        return 1
    r = measure(args.hands, args.runs)
    body = render(r, args.hands, args.runs)
    perfdoc.write_section("heap32", body)
    print(body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
