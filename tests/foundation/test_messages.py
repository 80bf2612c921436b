"""Messages for people: --help names docs/rules.md and lists the presets (all
of them), rules codes in words, judge --help describes the case format and
judge --check compares each answer with the case's expect."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from shengji.rules import PRESETS
from tractor_table import cli
from tractor_table.commands._rules import PRESET_WORDS
from tractor_table.events import EV, describe

ROOT = Path(__file__).resolve().parents[2]


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit):
        cli.main([*argv, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_every_preset_has_its_words() -> None:
    assert list(PRESET_WORDS) == list(PRESETS)


@pytest.mark.parametrize("command", ["virtual", "console", "link", "deploy", "simulate"])
def test_rules_help_points_to_docs_rules_md_and_lists_the_presets(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help(capsys, command)
    assert "docs/rules.md" in text and "RULES.md preset" not in text and "of RULES.md" not in text
    for name, words in PRESET_WORDS.items():
        assert f"{name} ({words})" in text


def test_the_top_level_help_names_the_rules_page_and_presets(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    text = " ".join(capsys.readouterr().out.split())
    assert "docs/rules.md" in text and "xuwen (4 decks, Xuwen)" in text
    assert (ROOT / "docs" / "rules.md").is_file()


def test_rules_codes_in_words() -> None:
    audit = describe([EV.AUDIT, 4, 2, EV.REVOKE_FOLLOW, 6])
    assert audit == "audit: trick 5, S2: revoke: did not play the pairs it held in the led suit"
    assert "rules code" not in audit
    throw = describe([EV.AUDIT, 0, 1, EV.THROW_FAILED, 0])
    assert throw == "audit: trick 1, S1: bad throw"
    revoke = describe([EV.REVOKE, 7, 3, 2, 5])
    assert revoke == ("trick 8: S3 is proven to have revoked in trick 3 "
                      "(did not follow the led suit while holding it)")
    assert describe([EV.REVOKE, 7, 3, 2, 99]).endswith("(rules code 99)")  # unknown: its number


def test_a_single_joker_bid_is_worded_not_a_bid() -> None:
    assert describe([EV.BID, 1, 0, EV.BID_CARDS, 52]) == "S1 bids SJ: refused (not a bid)"
    assert describe([EV.BID, 1, 0, EV.BID_WEAK, 13]) == "S1 bids 2H: refused (bid too weak)"


def test_judge_help_describes_the_case_format(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "judge")
    for kind in ("compare", "shape", "throw", "follow", "trick", "kitty", "settle", "declare"):
        assert f"{kind} " in text
    assert '"expect"' in text and "--check" in text and "docs/rules.md" in text


def _judge(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tractor_table.cli", "judge", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_judge_check_compares_with_expect_and_sums_up() -> None:
    rules = {"decks": 2, "level": "T", "trump": "S"}
    cases = [
        {"id": "good", "rules": rules, "kind": "compare", "a": "TS", "b": "TH", "expect": {"cmp": 1}},
        {"id": "wrong", "rules": rules, "kind": "compare", "a": "TS", "b": "TH", "expect": {"cmp": -1}},
        {"id": "free", "rules": rules, "kind": "compare", "a": "TS", "b": "TH"},
        {"id": "trick", "rules": rules, "kind": "trick", "leader": 0, "plays": ["AH", "3H", "TS", "KH"],
         "expect": {"winner": 2, "points": 20}},
    ]
    text = "".join(json.dumps(c) + "\n" for c in cases) + "not json\n"
    r = _judge("--check", stdin=text)
    assert r.returncode == 1, r.stderr
    assert r.stdout.splitlines() == [
        "line 2 (wrong): differs: cmp: expected -1, answered 1",
        "line 5: error: malformed JSON: Expecting value: line 1 column 1 (char 0)",
        "judge --check (full engine): 5 case(s): 2 as expected, 1 differ, 1 error(s), 1 without 'expect'",
    ]
    ok = _judge("--check", stdin=(ROOT / "tests/engine/conformance/seeds.jsonl").read_text())
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1].endswith(
        "as expected, 0 differ, 0 error(s), 0 without 'expect'")
