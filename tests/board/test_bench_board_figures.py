"""bench/bench_board.py's figures: a percentile of an empty set (no tap fell
during a save in a run; the board model prints -1 us) is no sample. It must
neither pull the median of the runs that have one nor print as -0.001 ms."""

from __future__ import annotations

import sys
from typing import Any

import pytest
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
    assert b.main(["--decks", "1", "--hands", "1", "--human-hands", "1", "--runs", "2", "--json", "--fixed-factors"]) == 0
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


def _fake_board(monkeypatch: Any, sections: dict[str, str] | None = None) -> tuple[Any, list[tuple[float, float]]]:
    """bench_board with its board runs replaced by the recorded row; the
    factors each run was given, in a list."""
    import json

    b = _bench()
    row = json.loads((ROOT / "tests" / "board" / "data" / "bench_board_row.json").read_text())
    given: list[tuple[float, float]] = []

    def play(decks: int, hands: int, seed: int, factor: float, cfac: Any = None, flash_times: str = "typ",
             pace_ms: Any = None, preset: Any = None, hand_scan: bool = False) -> dict[str, Any]:
        given.append((factor, cfac))
        return dict(row)

    def no_file(name: str, body: str) -> None:
        if sections is None:
            raise AssertionError(f"--json wrote {name}")
        sections[name] = body

    monkeypatch.setattr(b, "play", play)
    monkeypatch.setattr(b.perfdoc, "write_section", no_file)
    return b, given


ARGS = ["--decks", "1", "--hands", "1", "--human-hands", "1", "--runs", "1", "--json"]


def test_fixed_factors_charge_bench_rp2040s_factors_and_time_no_anchor(monkeypatch: Any, capsys: Any) -> None:
    import json

    b, given = _fake_board(monkeypatch)

    def no_anchor(*a: Any, **k: Any) -> None:
        raise AssertionError("--fixed-factors timed the anchor")

    monkeypatch.setattr(b.chipref, "OldTable", no_anchor)
    monkeypatch.setattr(b.chipref, "OldEngine", no_anchor)
    assert b.main([*ARGS, "--fixed-factors"]) == 0
    fig = json.loads(capsys.readouterr().out)
    fixed = (b.rp2040.GENERIC * b.rp2040.FLASH_WAIT, b.rp2040.TIME["rules_native"] * b.rp2040.FLASH_WAIT)
    assert given and all(g == fixed for g in given), given
    assert fig["anchor"] is None and fig["factors"]["anchored"] is False
    assert (fig["factors"]["bytecode"], fig["factors"]["c_calls_gc"]) == fixed


def test_by_default_every_run_is_charged_the_anchored_factors_and_the_anchor_is_timed_again_after(
    monkeypatch: Any, capsys: Any
) -> None:
    # the anchor's timing replaced by numbers: before each board run (three:
    # bots, human, flash max) the table core 2x slower than the fixed factors'
    # day on lead (4.32 / 0.08 = 54) and the hand's end (94.6 / 1.4 = 67.6), the
    # rules anchor 0.6: every board run gets 67.6 x 1.3 and 68 x 0.6 x 1.3; the
    # last timing (after the runs, 94.6 / 0.8) is reported apart
    import json

    b, given = _fake_board(monkeypatch)
    timed = _fake_anchor(monkeypatch, b)
    assert b.main(ARGS) == 0
    fig = json.loads(capsys.readouterr().out)
    cpu, c = 94.6 / 1.4 * b.rp2040.FLASH_WAIT, b.rp2040.TIME["rules_native"] * 0.6 * b.rp2040.FLASH_WAIT
    assert given and all(g == pytest.approx((cpu, c), rel=1e-3) for g in given), given
    a = fig["anchor"]
    assert a["cpu_factor"] == pytest.approx(cpu, rel=1e-3) and a["c_factor"] == pytest.approx(c, rel=1e-3)
    assert a["generic"] == pytest.approx(67.6, abs=0.05) and a["rules"]["pessimistic"] == pytest.approx(0.6)
    assert a["ratio_to_fixed"]["cpu_factor"] == pytest.approx(cpu / (b.rp2040.GENERIC * b.rp2040.FLASH_WAIT), rel=1e-3)
    assert a["ratio_to_fixed"]["c_factor"] == pytest.approx(0.6, rel=1e-3)
    assert a["after"]["generic"] == pytest.approx(118.25, abs=0.1)  # 94.6 / 0.8: the second timing
    assert set(a["load"]) == {"start", "end"}
    assert fig["factors"]["anchored"] is True
    assert [r["scenario"] for r in a["per_run"]] == ["bots", "human", "flash_max"]
    assert all(r["cpu_factor"] == pytest.approx(cpu, rel=1e-3) for r in a["per_run"])
    assert fig["factors"]["bytecode"] == pytest.approx(cpu, rel=1e-3)
    assert fig["human"]["factors"]["bytecode"] == pytest.approx(cpu, rel=1e-3)  # each scenario's runs' own
    # timed before each run and after them, then closed
    assert timed.count("table") == 4 and timed[-2:] == ["table closed", "engine closed"]


def test_the_docs_section_says_which_factors_were_charged(monkeypatch: Any) -> None:
    sections: dict[str, str] = {}
    b, _given = _fake_board(monkeypatch, sections)
    _fake_anchor(monkeypatch, b)
    assert b.main(ARGS[:-1]) == 0
    assert "anchored to the chip in this run" in sections["board"]
    assert "x 1.3 = 87.8" in sections["board"]  # 94.6 / 1.4 x 1.3 = 87.84
    b, _given = _fake_board(monkeypatch, sections)
    assert b.main([*ARGS[:-1], "--fixed-factors"]) == 0
    assert "anchored" not in sections["board"] and "the fixed factors (`--fixed-factors`" in sections["board"]


def _fake_anchor(monkeypatch: Any, b: Any) -> list[str]:
    """The anchor's timing replaced by numbers (one before each of the three
    board runs of ``ARGS``, one after them); what was timed and closed, in a list."""
    slow = {"lead": 0.08, "follow": 0.07, "hand_end": 1.4, "snapshot": 0.25}
    unix = [slow, slow, slow, {"lead": 0.04, "follow": 0.04, "hand_end": 0.8, "snapshot": 0.13}]
    timed: list[str] = []

    class Table:
        def time(self, runs: int = 3) -> dict[str, float]:
            timed.append("table")
            return unix[min(len(unix), timed.count("table")) - 1]

        def close(self) -> None:
            timed.append("table closed")

    class Engine:
        def time(self, cases: list[dict[str, Any]]) -> dict[str, Any]:
            timed.append("engine")
            # each case's estimate: its chip time x 1.3 / 0.6 (ratio 0.6)
            out = {}
            for c in cases:
                ms = b.chipref.MEASURED[c["id"]][1] * b.rp2040.FLASH_WAIT / 0.6
                us = ms * 1000 / b.rp2040.FLASH_WAIT / b.rp2040.TIME["rules_native"]
                out[c["id"]] = (us, us, list(c["expect"]))  # all native, the right answer
            return out

        def close(self) -> None:
            timed.append("engine closed")

    monkeypatch.setattr(b.chipref, "OldTable", Table)
    monkeypatch.setattr(b.chipref, "OldEngine", Engine)
    return timed
