"""bench/bench_club.py's harness as a test: a room of simulated tables (the table
core, the real recorder and uploader) against the real server process on a real
PostgreSQL, flat out, with table pages timed in chromium. The figures are the
bench's (docs/performance.md); here: every event of every table reached the
server exactly (tests/club/clubcheck.py), and the harness measured what it says."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest
from clubcheck import assert_same

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_club  # noqa: E402


def _room(tables: int, browsers: int, inputs: int = 0) -> None:
    res, room = bench_club.run(tables, pace_s=0.0, hands=1, browsers=browsers, fsync=False,
                               inputs=inputs)
    try:
        assert res.checked == tables
        if not inputs:
            assert res.hands == tables  # one whole hand each
        events = sum(assert_same(s.path, room.url) for s in room.sims)
        assert events == sum(s.made for s in room.sims)
        assert res.ingest_per_s > 0 and res.pg_bytes > 0 and len(res.commit_ms) == res.events
        assert res.server_cpu > 0 and res.pg_cpu > 0  # the CPU of both processes is read
        if bench_club.browser_available():
            # each sampled page saw every event it was sent, each after its tap
            assert len(res.latencies_ms) >= browsers * (10 if inputs else 50)
            assert all(x >= 0 for x in res.latencies_ms)
            assert not math.isnan(res.pct(0.99))
    finally:
        room.close()


def test_eight_tables_flat_out() -> None:
    _room(8, browsers=2)


@pytest.mark.slow
def test_twenty_four_tables_flat_out() -> None:
    # the first 40 inputs of a hand each: kept short; the bench runs 60 tables
    # and more (docs/performance.md, club); 60 here made it 48 s of the suite
    _room(24, browsers=4, inputs=40)
