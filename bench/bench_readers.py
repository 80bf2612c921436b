"""Reader benchmark: the four-seat poll cycle.

Runs ``bench/readers_mp.py`` under MicroPython's unix port (three runs per
case, medians): the firmware's PN532 driver and scanner poll four simulated
PN532s on a simulated SPI bus. It reports

- the modelled cycle: SPI bytes at the configured clock plus the chip's
  modelled processing times (host/tractor_table/sim/pn532sim/chip.py), as seen
  by the firmware's own waits;
- the bytes exchanged per reader per poll (commands, ACKs, answers, status polls);
- the firmware's own Python time per reader poll, measured by replaying the
  recorded bus traffic without the chip model, minus the Python cost of the
  stand-ins for what is C on the Pico (pins, SPI, time functions);
- an RP2040 estimate of the cycle: the simulation run again with the clock also
  advanced by that Python time x the calibration factor of bench/rp2040.py
  (``GENERIC``, measured on the real rp2 port, x1.3 for flash wait states)
  plus 5 us per C call.

Usage: python bench/bench_readers.py [--ticks N] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import rp2040
from tractor_table import mpy, perfdoc
from tractor_table.paths import FIRMWARE_DIR, ROOT

HERE = Path(__file__).resolve().parent
SIM = ROOT / "host" / "tractor_table" / "sim" / "pn532sim"
TARGET_MS = 50.0
#: unix-port time -> RP2040 time for the driver's and scanner's Python (no factor of its own)
SCALE = rp2040.time_factor("generic")


def one(baud: int, cards: int, ticks: int, irq: bool = False) -> dict[str, float]:
    proc = mpy.run(
        HERE / "readers_mp.py",
        args=[str(baud), str(cards), str(ticks), str(SCALE)] + (["irq"] if irq else []),
        path=[FIRMWARE_DIR, SIM, HERE],
        heapsize="2M",
        timeout=600,
    )
    if proc.returncode != 0:
        raise SystemExit(f"readers_mp.py failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ticks", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    rows = []
    cases = [(1_000_000, 0, False), (1_000_000, 4, False), (4_000_000, 0, False), (4_000_000, 4, False),
             (1_000_000, 4, True)]
    for baud, cards, irq in cases:
        if True:
            runs = [one(baud, cards, args.ticks, irq) for _ in range(args.runs)]

            def med(key: str, runs: list[dict[str, float]] = runs) -> float:
                return statistics.median(r[key] for r in runs)

            assert all(r["max_fields_on"] == 1 for r in runs)
            rows.append((baud, cards, irq, med("cycle_ms"), med("bytes_per_poll"), med("status_polls_per_poll"),
                         med("firmware_us_per_poll"), med("scale"), med("device_cpu_ms_per_poll"),
                         med("device_cycle_ms")))
            print(rows[-1], file=sys.stderr)
    cmd = f"python bench/bench_readers.py --ticks {args.ticks} --runs {args.runs}"
    lines = [
        "## Readers: the four-seat poll cycle",
        "",
        f"Command: `{cmd}` (also run by `make bench`). Machine: {perfdoc.machine_line()}.",
        f"Medians of {args.runs} runs (each timing the fastest of 5 replays) of {args.ticks} scanner ticks each (one reader poll per tick:",
        "InListPassiveTarget for up to 2 targets, then RF field off), after 40 ticks of warm-up.",
        "",
        "| SPI clock | cards on readers | ready from | modelled cycle (bus + chip) | bytes per reader poll | status polls (or IRQ reads) per reader poll "
        "| firmware Python per reader poll (unix) | factor | RP2040 CPU per reader poll (calibrated) | **RP2040 cycle (calibrated)** | vs 50 ms target |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for baud, cards, irq, cyc, nbytes, polls, fw, scale, dev_cpu, dev_cyc in rows:
        lines.append(
            f"| {baud // 1_000_000} MHz | {cards} of 4 | {'IRQ pin' if irq else 'SPI status'} | {cyc:.1f} ms | {nbytes:.0f} | {polls:.1f} | {fw:.1f} us "
            f"| {scale:g}× | {dev_cpu:.2f} ms | **{dev_cyc:.1f} ms** | {dev_cyc / TARGET_MS:.2f} |"
        )
    lines += [
        "",
        "How the figures are obtained:",
        "- *Modelled cycle*: simulated time per four reader polls. It counts every SPI byte at the",
        "  clock given and the chip model's delays (docs/readers.md lists them: ACK 0.5 ms, simple",
        "  command 0.8 ms, RF field settle 5 ms, one empty activation attempt 1 ms, select 1.5 ms per",
        "  tag); these delays are assumptions from the PN532/ISO 14443 documents, not measurements,",
        "  and the RF settle alone is 4 x 5 = 20 ms of every cycle.",
        "- *Firmware Python*: the recorded bus traffic replayed to fresh drivers and scanner under",
        "  MicroPython's unix port, timed with `ticks_us`, minus the Python cost of the stand-ins",
        "  for pins, SPI and time functions (C on the Pico; counted and charged 5 us each on the RP2040).",
        f"- *Factor*: unix time to a real RP2040's, `bench/rp2040.py`'s `GENERIC` ({rp2040.GENERIC:g}, the",
        "  largest factor the table core showed on the real rp2 port; the driver and scanner have no",
        f"  measured factor of their own) × {rp2040.FLASH_WAIT} for flash wait states (section \"Calibration\").",
        "- *RP2040 CPU per reader poll*: the firmware's Python per poll × the factor, plus 5 us per C call.",
        "- *RP2040 cycle*: the simulation re-run with the clock also advanced by the calibrated",
        "  RP2040 CPU time of every status poll and of every reader poll, so waiting and computing",
        "  interleave as on the device. A tap is seen within one cycle plus one reader poll.",
        "- *Ready from*: how the driver learns that the chip has an answer: the SPI status byte",
        "  (the wiring in hardware/pinmap.toml), or each reader's P70_IRQ line on an input pin",
        "  (an option of the driver, `irq=`; one more wire per reader). With the IRQ pin the",
        "  status polls are pin reads and carry no SPI bytes.",
    ]
    perfdoc.write_section("readers", "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
