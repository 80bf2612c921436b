"""The full engine's slowest inputs found by the adversarial generator with
``--cost host`` (``data/adversarial-host.jsonl``): replayed through both
engines, which must agree with each other and with the verdicts recorded when
the cases were found; and ``LegalFollows`` on each follow gives only legal
follows. No timing is asserted here: ``bench/bench_engine.py`` measures them
(docs/performance.md). CPython test."""

from __future__ import annotations

import itertools
from pathlib import Path

from shengji.cards import parse_faces
from shengji.conformance import case_order
from shengji.play import Lead, LegalFollows, check_follow_counts
from tractor_table import adversarial

DATA = Path(__file__).resolve().parent / "data" / "adversarial-host.jsonl"


def test_host_worst_finds_are_valid_follows_of_3_and_4_decks() -> None:
    cases = adversarial.read_cases(DATA)
    assert len(cases) >= 6
    assert all(adversarial._valid(c) for c in cases)
    assert {c["kind"] for c in cases} == {"follow"}
    assert {c["rules"]["decks"] for c in cases} >= {3, 4}
    # both legal and illegal follows among them
    assert {c["expect"][0] == "ok" for c in cases} == {True, False}


def test_host_worst_finds_both_engines_agree_with_each_other_and_the_record() -> None:
    cases = {str(c["id"]): c for c in adversarial.read_cases(DATA)}
    results = adversarial.replay(DATA)
    assert len(results) == len(cases)
    differ = [(cid, full, dev) for cid, full, dev, _us in results if not adversarial.agree(cases[cid], full, dev)]
    assert differ == []
    changed = [(cid, cases[cid]["expect"], full) for cid, full, _d, _us in results if full != cases[cid]["expect"]]
    assert changed == []


def test_legal_follows_of_the_host_worst_finds_are_legal() -> None:
    for c in adversarial.read_cases(DATA):
        order = case_order(c)
        lead = Lead(order, parse_faces(c["lead"]))
        hand = [0] * 54
        for f in parse_faces(c["hand"]):
            hand[f] += 1
        first = list(itertools.islice(LegalFollows(order, lead, hand), 60))
        assert first, c["id"]
        assert len(set(first)) == len(first)
        assert all(check_follow_counts(order, lead, hand, list(p)) for p in first), c["id"]
        # the recorded play is among the follows exactly when it is legal
        play = tuple(sorted(parse_faces(c["play"])))
        assert (play in LegalFollows(order, lead, hand)) == (c["expect"] == ["ok"])
