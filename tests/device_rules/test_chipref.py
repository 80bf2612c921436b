"""bench/chipref.py's anchor arithmetic: numbers in, numbers out (no timing).

The anchor says what this machine's estimates must be multiplied by to give
the chip's own times of a676471: per case chip ms x FLASH_WAIT / the case's
by-kind estimate (x FLASH_WAIT included); the pessimistic anchor is the
largest ratio. The board's bytecode factor is the largest table-core factor
now (chip / unix), its compiled-code factor the fixed native factor times the
pessimistic rules anchor; x FLASH_WAIT on both."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def test_a_case_ratio_is_the_chip_time_over_its_estimate_with_the_flash_wait_on_both() -> None:
    c, rp2040 = _bench("chipref"), _bench("rp2040")
    # 200 µs of which 120 native: (120 x 68 + 80 x 170) / 1000 x 1.3 = 28.288 ms
    est = c.anchor_estimates({"adv-17": (200.0, 120.0)})
    assert est["adv-17"] == pytest.approx((120 * 68 + 80 * 170) / 1000 * 1.3)
    a = c.rules_anchor(est)
    assert a.ratios["adv-17"] == pytest.approx(29.4 * rp2040.FLASH_WAIT / est["adv-17"])
    # twice the unix time (a machine half as fast): half the ratio
    slow = c.rules_anchor(c.anchor_estimates({"adv-17": (400.0, 240.0)}))
    assert slow.ratios["adv-17"] == pytest.approx(a.ratios["adv-17"] / 2)


def test_the_pessimistic_anchor_is_the_largest_ratio_and_a_range_counts_its_high_end() -> None:
    c = _bench("chipref")
    a = c.rules_anchor({"adv-17": 20.0, "adv-01": 10.0, "issue-12": 13.0}, chip_ms={"adv-17": 30.0, "adv-01": 10.0, "issue-12": 13.0})
    assert a.ratios == pytest.approx({"adv-17": 1.95, "adv-01": 1.3, "issue-12": 1.3})
    assert a.pessimistic == pytest.approx(1.95) and a.flattered == "adv-17"
    assert a.median == pytest.approx(1.3)
    # by default a measured range counts its high end: issue-12 13.1-14.0 ms
    b = c.rules_anchor({"issue-12": 14.0 * 1.3})
    assert b.ratios["issue-12"] == pytest.approx(1.0)
    j = a.json()
    assert j["pessimistic"] == pytest.approx(1.95) and j["flattered"] == "adv-17" and set(j["ratios"]) == {"adv-17", "adv-01", "issue-12"}


def test_each_case_keeps_its_least_pass_with_its_own_native_share() -> None:
    c = _bench("chipref")
    passes = [{"a": (300.0, 200.0, []), "b": (50.0, 10.0, [])}, {"a": (250.0, 100.0, []), "b": (60.0, 50.0, [])}]
    assert c.least_timings(passes) == {"a": (250.0, 100.0), "b": (50.0, 10.0)}


def test_the_board_factors_anchored_and_fixed() -> None:
    c, rp2040 = _bench("chipref"), _bench("rp2040")
    # the chip's medians over unix medians now: 4.32 / 0.054 = 80, 4.18 / 0.05 = 83.6, ...
    t = c.table_factors({"lead": 0.054, "follow": 0.05, "hand_end": 1.0, "snapshot": 0.2})
    assert t == pytest.approx({"lead": 80.0, "follow": 83.6, "hand_end": 94.6, "snapshot": 72.0})
    rules = c.Anchor({"adv-17": 0.6, "adv-20": 0.7})
    b = c.anchored_factors(t, rules)
    assert b.generic == pytest.approx(94.6)  # the largest, as GENERIC is of the fixed ones
    assert b.cpu_factor == pytest.approx(94.6 * rp2040.FLASH_WAIT)
    assert b.c_factor == pytest.approx(rp2040.TIME["rules_native"] * 0.7 * rp2040.FLASH_WAIT)
    fixed = c.fixed_board()
    assert fixed.cpu_factor == pytest.approx(rp2040.GENERIC * rp2040.FLASH_WAIT)
    # the board model's own default charges are the fixed ones
    from tractor_table.sim.board import C_FACTOR, CPU_FACTOR

    assert (fixed.cpu_factor, fixed.c_factor) == pytest.approx((CPU_FACTOR, C_FACTOR))
    assert b.ratios() == pytest.approx({"cpu_factor": 94.6 / rp2040.GENERIC, "c_factor": 0.7})
    assert fixed.ratios() == pytest.approx({"cpu_factor": 1.0, "c_factor": 1.0})


def test_the_device_rules_figures_both_ways_and_the_verdict_on_the_pessimistic_anchor() -> None:
    b = _bench("bench_device_rules")
    c = _bench("chipref")
    anchor = c.Anchor({"adv-17": 0.5, "adv-20": 0.8, "adv-01": 0.6})
    fig = b.anchored_figures(30.0, 1.2, 0.9, 12.0, anchor)
    assert fig["fixed"]["worst_ms"] == 30.0 and fig["fixed"]["worst_met"] is False and fig["fixed"]["median_met"] is False
    # x 0.8 (the largest ratio): 24 ms and 0.96 ms
    assert fig["anchored"]["worst_ms"] == pytest.approx(24.0) and fig["anchored"]["median_ms"] == pytest.approx(0.96)
    assert fig["anchored"]["worst_met"] is False and fig["anchored"]["median_met"] is True
    # x 0.6 (the median ratio): 18 ms, under the 20 ms target; not the verdict
    assert fig["anchored_median"]["worst_ms"] == pytest.approx(18.0) and fig["anchored_median"]["worst_met"] is True
    assert fig["anchored"]["bots_worst_ms"] == pytest.approx(9.6)


def test_an_old_engine_answer_other_than_the_cases_stops_the_anchor() -> None:
    c = _bench("chipref")
    (case,) = c.cases(["issue-12"])
    right = {"issue-12": (100.0, 60.0, list(case["expect"]))}
    c.check_answers([case], [right, right])  # no complaint
    wrong = {"issue-12": (100.0, 60.0, ["ok"])}  # a legal follow, where the case expects must_play_tractor
    with pytest.raises(SystemExit, match="another answer than the case's on issue-12"):
        c.check_answers([case], [right, wrong])
