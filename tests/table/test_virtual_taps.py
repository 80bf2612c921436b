"""Typing taps at ``tractor-table virtual`` (no ``--bots``): every command gets
one line saying what the table did, the prompt says what the table waits for,
and a refusal is labelled with the phase it came in, not with a trick."""

from __future__ import annotations

import subprocess
import sys

from shengji import Rules
from tractor_table.events import EV, cards_text
from tractor_table.sim.virtual.taps import echo
from tractor_table.tablewatch import TableWatch, describe_in


def test_the_real_command_echoes_prompts_and_labels_refusals_by_phase() -> None:
    script = "tap 1 2S\nundo 1\nundo 0\ntap 1 2H\nok 1\nok 0\ntap 3 3S\nquit\n"
    r = subprocess.run(
        [sys.executable, "-m", "tractor_table.cli", "virtual", "--readers", "direct", "--no-record"],
        input=script, capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    start = lines.index("> draw (dealer the first bidder): to bid, tap level cards or a pair of jokers, "
                        "then ok SEAT; ok SEAT with nothing tapped ends the draw")
    assert lines[start + 1:] == [
        "  S1 tapped 2S: waiting 2S",
        "  S1 undo: took back 2S",
        "  S0 undo: nothing was waiting",
        "  S1 tapped 2H: waiting 2H",
        "  S1 bids 2H: accepted",
        "  trump H (declared by S1), dealer S1",
        "> burial: S1 taps the 8 cards of the kitty (the table takes them at the 8th)",
        "  burial: S3 refused: not now 3S",
    ]


def test_hands_without_bots_is_refused() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "tractor_table.cli", "virtual", "--hands", "3", "--no-record"],
        capture_output=True, text=True, timeout=60,
    )
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip() == (
        "tractor-table virtual: --hands is for the bots: add --bots, or leave --hands out to tap "
        "the cards yourself (as many hands as you play)"
    )


def test_the_watch_follows_the_phases_and_labels() -> None:
    w = TableWatch(Rules())
    w.on_event([EV.HAND_START, 1, -1, 2, 0, 0, 1])
    assert w.label() == "draw" and w.prompt().startswith("draw (dealer the first bidder)")
    assert describe_in([EV.REJECT, 0, 2, EV.WRONG_PHASE], w) == "draw: S2 refused: not now"
    w.on_event([EV.BID, 1, 1, 0, 13])
    w.on_event([EV.TRUMP, 1, 1, 1])
    assert w.label() == "burial" and w.prompt().startswith("burial: S1 taps the 8 cards")
    w.on_event([EV.KITTY, 1, 0, *range(39, 47)])
    assert w.prompt() == "trick 1: S1 leads: tap the card(s), then ok 1"
    w.on_event([EV.PLAY, 0, 1, 25, 25 + 54])
    assert w.prompt() == "trick 1: S2 follows with 2 card(s) (the play ends with the last one)"
    assert describe_in([EV.REJECT, 0, 0, EV.OUT_OF_TURN, 5], w) == "trick 1: S0 refused: out of turn 7S"
    for seat in (2, 3, 0):
        w.on_event([EV.PLAY, 0, seat, 1, 2])
    w.on_event([EV.TRICK, 0, 3, 0, 0])
    assert w.prompt() == "trick 2: S3 leads: tap the card(s), then ok 3"
    w.on_event([EV.HAND_END, 40, 0, 1, 0, 2, 1, 0, -1])
    assert w.label() == "after the hand (hand over)"
    assert describe_in([EV.REJECT, 25, 2, EV.WRONG_PHASE, 12], w) == (
        "after the hand (hand over): S2 refused: not now AS"
    )
    assert w.prompt() == "the hand is over: ok SEAT starts the next hand"


def test_an_ok_that_ends_a_draw_without_bids_starts_the_kitty_up() -> None:
    w = TableWatch(Rules.preset("qq"))
    w.on_event([EV.HAND_START, 2, 3, 2, 1, 0, 0])  # not the first hand: no redeal
    w.pressed_ok(0)
    assert w.prompt().startswith("nobody bid: S3 turns the kitty up")
    assert echo("ok", 0, -1, [], [EV.SND_OK], w) == "ok 0: nobody bid; the kitty is turned up next"


def test_a_tap_the_table_ignored_and_a_challenge_say_so() -> None:
    w = TableWatch(Rules())
    w.on_event([EV.HAND_START, 1, -1, 2, 0, 0, 1])
    assert echo("tap", 1, 0, [], [EV.SND_TAP], w) == "S1 tapped 2S: waiting 2S"
    assert echo("tap", 1, 0, [], [], w) == (
        "S1 tapped 2S: the table took nothing (that card is waiting already)"
    )
    assert echo("ok", 2, -1, [], [], w) == "ok 2: the table did nothing (it does not wait for that now)"


def test_a_typed_undo_echoes_the_play_taken_back_and_the_turn() -> None:
    w = TableWatch(Rules())
    w.on_event([EV.HAND_START, 1, -1, 2, 0, 0, 1])
    w.on_event([EV.BID, 1, 1, 0, 13])
    w.on_event([EV.TRUMP, 1, 1, 1])
    w.on_event([EV.KITTY, 1, 0, *range(39, 47)])
    w.on_event([EV.PLAY, 0, 1, 25])
    echo("tap", 2, 26, [[EV.PLAY, 0, 2, 26]], [EV.SND_OK], w)
    assert w.prompt() == "trick 1: S3 follows with 1 card(s) (the play ends with the last one)"
    line = echo("undo", 2, -1, [[EV.UNDO, 0, 2, 26]], [EV.SND_OK], w)
    assert line == "trick 1: S2 takes back 2D; S2 to play"
    assert w.prompt() == "trick 1: S2 follows with 1 card(s) (the play ends with the last one)"
    # the lead taken back: the leader leads again
    echo("undo", 1, -1, [[EV.UNDO, 0, 1, 25]], [EV.SND_OK], w)
    assert w.prompt() == "trick 1: S1 leads: tap the card(s), then ok 1"
    # an undo refused (nothing to take back, nothing waiting): the table sent nothing
    assert echo("undo", 3, -1, [], [], w) == "S3 undo: nothing was waiting"


def test_a_short_burial_keeps_the_taps_and_says_how_many_more() -> None:
    w = TableWatch(Rules())  # two decks: a kitty of 8
    w.on_event([EV.HAND_START, 1, -1, 2, 0, 0, 1])
    w.on_event([EV.BID, 1, 1, 0, 13])
    w.on_event([EV.TRUMP, 1, 1, 1])
    for card in range(39, 46):  # seven of the eight
        assert echo("tap", 1, card, [], [EV.SND_TAP], w).startswith("S1 tapped ")
    line = echo("ok", 1, -1, [[EV.REJECT, 0, 1, EV.KITTY_COUNT, *range(39, 46)]], [EV.SND_ERROR], w)
    assert line.startswith("burial: S1 refused: kitty count ")
    assert line.endswith("(7 of 8: the cards tapped stay, tap 1 more; a long press (undo SEAT) starts again)")
    assert w.waiting[1] == list(range(39, 46))  # as the table keeps them
    assert echo("tap", 1, 46, [], [EV.SND_TAP], w).endswith("waiting " + cards_text(range(39, 47)))
