"""bench/bench_board.py's figures: a percentile of an empty set (no tap fell
during a save in a run; the board model prints -1 us) is no sample. It must
neither pull the median of the runs that have one nor print as -0.001 ms."""

from __future__ import annotations

import sys
from typing import Any

from board_rig import ROOT


def _bench() -> Any:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench_board
    finally:
        sys.path.pop(0)
    return bench_board


def test_the_median_of_runs_skips_a_run_with_no_sample() -> None:
    b = _bench()
    runs = [{"saving_p99": -0.001, "saving_n": 0, "lat_p99": 150.0},
            {"saving_p99": 208.0, "saving_n": 1, "lat_p99": 170.0},
            {"saving_p99": 212.0, "saving_n": 2, "lat_p99": 160.0}]
    m = b.median_run(runs)
    assert m["saving_p99"] == 210.0  # the two runs with a tap during a save
    assert m["saving_n"] == 1  # counts are medians of every run
    assert m["lat_p99"] == 160.0
    none = b.median_run([{"saving_p99": -0.001}, {"saving_p99": -0.001}])
    assert none["saving_p99"] < 0  # still no sample


def test_no_sample_is_null_in_the_json_figures() -> None:
    b = _bench()
    fig = b._no_sample_none({"during_save_counted_p99_ms": -0.001, "counted_p99_ms": 175.0,
                             "during_save_taps": 0})
    assert fig == {"during_save_counted_p99_ms": None, "counted_p99_ms": 175.0, "during_save_taps": 0}
