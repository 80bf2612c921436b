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


def test_json_prints_one_object_with_the_issue_22_keys_and_writes_no_file(
    monkeypatch: Any, capsys: Any, tmp_path: Any
) -> None:
    # bench_board.py --json (issue 22): one JSON object on stdout whose keys
    # include cycle_p50_ms, cycle_p99_ms, shown_p99_ms, counted_p99_ms (the
    # bots' pace) and the same under "human" (the human-paced runs), and no
    # file written. The board runs are replaced by one recorded run's row
    # (tests/board/data/bench_board_row.json, a bots' run of
    # `bench_board.py --decks 1 --hands 1 --human-hands 1 --runs 1`), marked
    # by the scenario each call asks for, so that each key is seen to come
    # from its own scenario's runs
    import json

    b = _bench()
    row = json.loads((ROOT / "tests" / "board" / "data" / "bench_board_row.json").read_text())
    calls: list[tuple[Any, ...]] = []

    def play(decks: int, hands: int, seed: int, factor: float, cfac: Any = None, flash_times: str = "typ",
             pace_ms: Any = None, preset: Any = None, hand_scan: bool = False) -> dict[str, Any]:
        calls.append((decks, hands, pace_ms, flash_times))
        r = dict(row)
        mark = 1.0 if pace_ms is None and flash_times == "typ" else 2.0 if pace_ms else 3.0
        for k in ("cycle_p50", "cycle_p99", "shown_p99", "lat_p99"):
            r[k] = mark * 1000  # the scenario, in every key asked for
        return r

    def no_file(*a: Any, **k: Any) -> None:
        raise AssertionError(f"--json wrote {a[:1]}")

    monkeypatch.setattr(b, "play", play)
    monkeypatch.setattr(b.perfdoc, "write_section", no_file)
    monkeypatch.chdir(tmp_path)
    perf = (ROOT / "docs" / "performance.md").read_bytes()
    assert b.main(["--decks", "1", "--hands", "1", "--human-hands", "1", "--runs", "2", "--json"]) == 0
    out = capsys.readouterr().out
    fig = json.loads(out)  # one object, nothing else on stdout
    assert isinstance(fig, dict)
    keys = ("cycle_p50_ms", "cycle_p99_ms", "shown_p99_ms", "counted_p99_ms")
    assert all(fig[k] == 1000.0 for k in keys), {k: fig.get(k) for k in keys}
    assert all(fig["human"][k] == 2000.0 for k in keys), fig["human"]
    assert all(fig["flash_max"][k] == 3000.0 for k in keys), fig["flash_max"]
    # two bots' runs and two human-paced ones (--runs 2), one at the flash's maximum times
    assert sorted(c[2] is not None for c in calls) == [False, False, False, True, True], calls
    assert [c[3] for c in calls].count("max") == 1, calls
    assert list(tmp_path.iterdir()) == []
    assert (ROOT / "docs" / "performance.md").read_bytes() == perf
