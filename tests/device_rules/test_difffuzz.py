"""Differential fuzzing: the full engine's bots play, the device engine judges
the same hands under MicroPython; every answer must agree (CPython test).
``make test`` runs this sample; ``make fuzz-rules HANDS=N`` runs more."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tractor_table import difffuzz


def test_sample_of_hands_across_every_variant_agrees(tmp_path: Path) -> None:
    report = difffuzz.run(225, seed=424242, out_dir=tmp_path)
    assert report.disagreements == [], [
        (d.seed, d.variant, d.label, d.full, d.device) for d in report.disagreements[:5]
    ]
    assert report.hands == 225
    assert len(report.variants) == len(difffuzz.VARIANTS)  # every preset and option set
    assert min(report.variants.values()) >= 15
    assert report.plays > 225 * 40
    assert report.checks > report.plays  # attempts and results besides the plays
    assert list(tmp_path.iterdir()) == []


def test_scripts_cover_decks_scans_verdicts_and_settlement() -> None:
    decks: set[int] = set()
    scans: set[bool] = set()
    reasons: set[str] = set()
    for seed in range(60):
        s = difffuzz.make_script(seed, variant=seed % len(difffuzz.VARIANTS))
        decks.add(s.case["rules"]["decks"])
        scans.add(s.case["scan"])
        for a in s.expect:
            if isinstance(a, str):
                reasons.add(a)
            elif isinstance(a, list) and a and isinstance(a[0], str):
                reasons.add(a[0])
        assert s.labels[-1] == "settlement"
    assert decks == {1, 2, 3, 4}
    assert scans == {True, False}
    assert {"ok", "must_follow_suit", "must_play_pairs", "throw_failed"} <= reasons


def test_quiet_draws_turn_the_kitty_up_and_a_two_first_gives_nt() -> None:
    n = len(difffuzz.VARIANTS)
    v = next(
        i for i, (_, extra) in enumerate(difffuzz.VARIANTS)
        if extra.get("no_bid") == "kitty" and extra.get("permanent_twos")
    )
    seen: dict[str, list[int]] = {}
    with difffuzz.device_engine() as dev:
        for seed in range(v, v + 30 * n, n):
            s = difffuzz.make_script(seed, variant=v)
            steps = s.case["steps"]
            if any(st[0] == "b" for st in steps):
                continue  # somebody bid
            first = steps[[st[0] for st in steps].index("e")][1][0] % 54
            level = "23456789TJQKA".index(s.case["rules"]["level"])
            trump = s.expect[s.labels.index("end of the draw")]
            if first < 52 and first % 13 == 0 and level != 0:
                seen.setdefault("two", trump)
                assert trump == [4, -1]  # a permanent 2 turned up: NT
            elif first < 52 and first % 13 != level:
                seen.setdefault("suit", trump)
                assert trump == [first // 13, -1]
            assert difffuzz.compare(s, dev.ask(s.case)) is None
            if len(seen) == 2:
                break
    assert set(seen) == {"two", "suit"}


def tampered(tmp_path: Path) -> tuple[difffuzz.FuzzScript, Path]:
    """A script whose 'full engine' answers were altered at one follow."""
    script = difffuzz.make_script(11, variant=0)
    i = next(n for n, lab in enumerate(script.labels) if "follow by" in lab)
    script.expect[i] = "must_play_tractor" if script.expect[i] == "ok" else "ok"
    with difffuzz.device_engine() as dev:
        answer = dev.ask(script.case)
    diff = difffuzz.compare(script, answer)
    assert diff is not None and diff[0] == i
    d = difffuzz.FuzzDisagreement(11, "classic", i, script.labels[i], script.expect[i], diff[1])
    return script, difffuzz.write_case(tmp_path, script, d, answer)


def test_a_disagreement_is_found_written_and_replayed(tmp_path: Path) -> None:
    script, path = tampered(tmp_path)
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["first_difference"]["label"].startswith("trick")
    results = difffuzz.replay(path)
    assert len(results) == 1 and results[0][1] is not None
    # the same script with the real answers replays clean
    clean = difffuzz.make_script(11, variant=0)
    ok_path = tmp_path / "clean.jsonl"
    ok_path.write_text(json.dumps({**clean.case, "expect": clean.expect, "labels": clean.labels}) + "\n")
    assert difffuzz.replay(ok_path) == [("hand-11", None)]


def test_cli_fuzz_rules_and_replay(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tractor_table.cli", "fuzz-rules", "--hands", "15", "--seed", "3", "--out", str(tmp_path), "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "15 hands from seed 3" in proc.stdout and "the engines agree" in proc.stdout
    _, path = tampered(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "tractor_table.cli", "fuzz-rules", "--replay", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert "still differ" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "tractor_table.cli", "fuzz-rules", "--replay", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1 and "no case file" in proc.stderr
