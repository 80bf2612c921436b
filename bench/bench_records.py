"""How much recording a table's events in SQLite costs (tractor_table.records).

A stream of table events shaped like the table core's (20 hands of 25 tricks,
2,600 events with chained state hashes) is written through ``Recorder.on_note``
into a fresh database (WAL, synchronous = FULL, one transaction per event,
hands derived), and, as the reference measured in the same run, the same rows
are inserted into a plain SQLite table with the same journal settings (one
INSERT and one COMMIT per event). Then ``Store.check()`` over the whole file.
Figures go to docs/performance.md, section "records".

    .venv/bin/python bench/bench_records.py
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

from tractor_table.link import ttlink
from tractor_table.perfdoc import machine_line, median, write_section
from tractor_table.records import Recorder, Store

RUNS = 5


def table_events() -> list[list[Any]]:
    evs: list[list[Any]] = []
    for k in range(1, 21):
        d = k % 4
        evs += [[1, k, d, 2, 0, 0, 0], [2, d, 1, 0, 0], [3, 0, d, d], [5, d, 5, 3, 4, 5, 6, 7, 8, 9, 10]]
        for t in range(25):
            for s in range(4):
                evs.append([6, t, (d + s) % 4, (t * 4 + s) % 108])
            evs.append([10, t, 1, 10, 10 * (t + 1)])
        evs.append([12, 85, 0, 1, 0, 1, 1, 0, -1])
    return evs


def notes(evs: list[list[Any]]) -> list[list[Any]]:
    out, h = [], 0
    for i, ev in enumerate(evs):
        h = ttlink.chain_hash(h, ev)
        out.append(["event", i, h, ev])
    return out


def run_recorder(folder: Path, ns: list[list[Any]]) -> tuple[float, float]:
    path = folder / "r.sqlite"
    store = Store.open(path)
    rec = Recorder(store)
    rec.on_note(["up", [1, "0.1.0", "rules-2026.1", 1, 1, 0, 0, 1]])
    t = time.perf_counter()
    for n in ns:
        rec.on_note(n)
    dt = time.perf_counter() - t
    assert not rec.failed and rec.new_events == len(ns)
    t = time.perf_counter()
    problems, _ = store.check()
    dc = time.perf_counter() - t
    assert problems == []
    store.close()
    return dt / len(ns), dc


def run_plain(folder: Path, ns: list[list[Any]]) -> float:
    db = sqlite3.connect(folder / "plain.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("CREATE TABLE events (idx INTEGER PRIMARY KEY, hash INTEGER, event TEXT)")
    t = time.perf_counter()
    for n in ns:
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO events VALUES (?, ?, ?)", (n[1], n[2], json.dumps(n[3])))
        db.execute("COMMIT")
    dt = time.perf_counter() - t
    db.close()
    return dt / len(ns)


def main() -> None:
    ns = notes(table_events())
    rec_t, check_t, plain_t = [], [], []
    for _ in range(RUNS):
        folder = Path(tempfile.mkdtemp(prefix="tt-bench-records-"))
        try:
            r, c = run_recorder(folder, ns)
            rec_t.append(r)
            check_t.append(c)
            plain_t.append(run_plain(folder, ns))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    rec_m, plain_m, check_m = median(rec_t), median(plain_t), median(check_t)
    body = f"""## Records (SQLite)

`.venv/bin/python bench/bench_records.py` — {machine_line()}; a temporary folder
on the local disk; {len(ns)} table events (20 hands of 25 tricks), median of {RUNS} runs.

| what | per event | ratio |
|---|---:|---:|
| plain SQLite: one INSERT + COMMIT per event (WAL, synchronous = FULL), the reference | {plain_m * 1e3:.3f} ms | 1.00 |
| `Recorder.on_note`: the event, its hand derived, one transaction | {rec_m * 1e3:.3f} ms | {rec_m / plain_m:.2f} |

`Store.check()` of the {len(ns)} events (chain re-verified, hands re-derived,
SQLite's integrity check): {check_m * 1e3:.0f} ms. A table sends a few events
a second at most; the link's thread spends this much per event on the records.
"""
    write_section("records", body)
    print(body)


if __name__ == "__main__":
    main()
