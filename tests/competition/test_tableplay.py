"""A round's match result read from a table's hand starts and ends (competition.tableplay)."""

from __future__ import annotations

from tractor_table import events as E
from tractor_table.competition.tableplay import derive


def start(hand: int, levels: tuple[int, int], first: bool) -> E.Event:
    return E.HandStart(hand_no=hand, dealer=-1 if first else 0, decks=2, levels=levels,
                       first_hand=first)


def end(levels: tuple[int, int], winner: int = -1) -> E.Event:
    return E.HandEnd(attackers_score=40, kitty_points=0, multiplier=2, bonus=0, next_dealer=1,
                     levels=levels, match_winner=winner)


def evs(*xs: E.Event) -> list[tuple[int, E.Event]]:
    return list(enumerate(xs))


def test_levels_so_far_while_playing_and_finished_when_a_side_passes_the_top() -> None:
    play = evs(start(1, (0, 0), True), end((2, 0)), start(2, (2, 0), False), end((2, 3)),
               start(3, (2, 3), False))
    d = derive(play, time_called=False, deal_limit=None)
    assert (d.status, d.levels, d.deals, d.in_deal, d.passed) == ("playing", (2, 3), 2, True, None)
    won = evs(start(1, (11, 0), True), end((12, 0)), start(2, (12, 0), False), end((12, 0), 0))
    d = derive(won, time_called=False, deal_limit=None)
    assert (d.status, d.levels, d.passed, d.deals) == ("finished", (12, 0), 0, 2)


def test_time_called_finishes_only_once_the_deal_in_progress_ended() -> None:
    mid = evs(start(1, (0, 0), True), end((1, 0)), start(2, (1, 0), False))
    assert derive(mid, time_called=True, deal_limit=None).status == "playing"
    over = [*mid, (3, end((1, 2)))]
    d = derive(over, time_called=True, deal_limit=None)
    assert (d.status, d.levels, d.deals) == ("finished", (1, 2), 2)
    # without the call the same hands are still a match in play
    assert derive(over, time_called=False, deal_limit=None).status == "playing"


def test_the_deal_limit_ends_the_match() -> None:
    hands = evs(start(1, (0, 0), True), end((1, 0)), start(2, (1, 0), False), end((1, 1)))
    assert derive(hands, time_called=False, deal_limit=2).status == "finished"
    assert derive(hands, time_called=False, deal_limit=3).status == "playing"


def test_the_previous_match_and_a_next_new_match_are_not_this_rounds() -> None:
    # the window opens in the middle of the last round's match: skipped to the new one
    xs = evs(start(4, (5, 6), False), end((5, 7)), start(1, (0, 0), True), end((0, 2)),
             start(1, (0, 0), True), end((9, 9)))
    d = derive(xs, time_called=True, deal_limit=None)
    assert (d.levels, d.deals, d.first_idx) == ((0, 2), 1, 2)
    # a new match sent before any deal ended restarts the count (the round's start)
    ys = evs(start(1, (0, 0), True), start(1, (0, 0), True), end((3, 0)))
    d = derive(ys, time_called=True, deal_limit=None)
    assert (d.levels, d.deals, d.first_idx, d.status) == ((3, 0), 1, 1, "finished")


def test_nothing_yet_and_called_partners_say_why() -> None:
    d = derive(evs(start(3, (1, 1), False)), time_called=True, deal_limit=None)
    assert d.status == "not_played" and "no new match" in d.why
    called = E.HandStart(hand_no=1, dealer=-1, decks=2, levels=(0, 0, 0, 0), first_hand=True)
    d = derive([(0, called)], time_called=False, deal_limit=None)
    assert d.status == "not_played" and "called partners" in d.why
