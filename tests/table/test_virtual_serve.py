"""``tractor-table virtual --serve`` (the practice terminal the README sends a
beginner to first): each typed command is answered from what the table did (its
events, reported by the board beside the link another program holds, and the
board's answer once it has handled the command), the prompt says what the table
waits for as plain ``virtual`` does, and ``--db FILE`` records the hands played."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from tractor_table import cli
from tractor_table.events import Play
from tractor_table.records import Store

DRAW = ["tap 1 2H", "ok 1", "ok 0"]  # S1 bids 2H, the draw ends: S1 deals, hearts trump
BURY = [f"tap 1 {c}D" for c in "3456789T"]  # the kitty: eight diamonds
TRICK1 = ["tap 1 AS", "ok 1", "tap 2 3C", "tap 3 4S", "tap 0 5S"]  # S2 shows no spade
TRICK2 = ["tap 1 KS", "ok 1", "tap 2 6S", "tap 3 7S", "tap 0 8S"]  # ... and plays one: a revoke
THROW = ["tap 1 AC", "tap 1 KC", "ok 1", "challenge 2"]


def _serve(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lines: list[str],
           *flags: str) -> list[str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(x + "\n" for x in [*lines, "quit"])))
    assert cli.main(["virtual", "--serve", "--readers", "direct", *flags]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.fixture(scope="module")
def played() -> list[str]:
    """One session at the serving terminal: the draw, the burial, two tricks
    (the second proves S2's revoke), a throw challenged."""
    mp = pytest.MonkeyPatch()
    out = io.StringIO()
    try:
        mp.setattr("sys.stdin", io.StringIO("".join(x + "\n" for x in
                                                    [*DRAW, *BURY, *TRICK1, *TRICK2, *THROW, "quit"])))
        mp.setattr("sys.stdout", out)
        assert cli.main(["virtual", "--serve", "--readers", "direct"]) == 0
    finally:
        mp.undo()
    return out.getvalue().splitlines()


def _answer(lines: list[str], command: str, nth: int = 0) -> str:
    """The line answering the nth typed ``command`` (the echoes come in order,
    each an indented line after the prompt lines)."""
    answers = [x for x in lines if x.startswith("  ") and not x.startswith("  |")]
    # the serving banner's indented lines come first
    answers = answers[next(i for i, x in enumerate(answers) if x.startswith("  type taps here")) + 1:]
    typed = [*DRAW, *BURY, *TRICK1, *TRICK2, *THROW]
    positions = [i for i, c in enumerate(typed) if c == command]
    assert len(answers) == len(typed), lines
    return answers[positions[nth]].strip()


def test_an_accepted_play_that_proves_a_revoke_is_answered_as_played(played: list[str]) -> None:
    # it was "refused (see the display)" (the revoke's error sound), though the table took the card
    line = _answer(played, "tap 2 6S")
    assert line.startswith("trick 2: S2 plays 6S; "), played
    assert "S2 is proven to have revoked in trick 1" in line
    assert "refused" not in line
    assert _answer(played, "tap 1 AS") == "S1 tapped AS: waiting AS"
    assert _answer(played, "tap 0 5S").startswith("trick 1: S0 plays 5S; trick 1: S1 wins 5 points")


def test_a_challenge_is_answered_with_what_the_table_waits_for(played: list[str]) -> None:
    # it was "nothing happened" while the display said "S2 challenges"
    assert _answer(played, "challenge 2") == "S2 challenges the throw: tap the cards that beat it, then ok 2"
    assert _answer(played, "ok 1", 3) == "trick 3: S1 plays AC KC"


def test_the_prompt_says_what_the_table_waits_for_by_phase(played: list[str]) -> None:
    # it was "> the display: -" (the display's last line)
    prompts = [x for x in played if x.startswith("> ")]
    assert not any(x.startswith("> the display") for x in prompts), prompts
    assert prompts[0].startswith("> draw (dealer the first bidder): to bid, tap level cards")
    assert "> burial: S1 taps the 8 cards of the kitty (the table takes them at the 8th)" in prompts
    assert "> trick 1: S1 leads: tap the card(s), then ok 1" in prompts
    assert "> trick 2: S2 follows with 1 card(s) (the play ends with the last one)" in prompts
    assert _answer(played, "ok 1", 0) == "S1 bids 2H: accepted"
    assert _answer(played, "ok 0") == "trump H (declared by S1), dealer S1"


def test_serve_with_db_records_the_hand_played_at_its_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "practice.sqlite"
    out = _serve(monkeypatch, capsys, [*DRAW, *BURY, *TRICK1], "--db", str(db))
    assert f"records: {db}" in out
    assert any(x.startswith(f"records {db}: ") and " new event(s)" in x for x in out), out
    with Store.open(db, create=False) as store:
        (hand,) = store.hands()
        events = store.hand_events(hand)
        plays = [e["event"] for e in events if isinstance(e["event"], Play)]
        assert [(p.seat, len(p.cards)) for p in plays] == [(1, 1), (2, 1), (3, 1), (0, 1)]
        # the host judged every event as it does for plain virtual: all agreed
        verdicts = [v["verdict"] for e in events for v in e["verdicts"]]
        assert verdicts and set(verdicts) == {"agreed"}, verdicts
        assert hand["disagreements"] == 0
        (source,) = store.query("SELECT DISTINCT source FROM sessions")
        assert source == ("virtual",)


def test_serve_without_db_says_it_records_nothing_here(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    out = _serve(monkeypatch, capsys, DRAW)
    assert "records: none here (--db FILE records the hands played here)" in out
    assert not (tmp_path / "data").exists()
