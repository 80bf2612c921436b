"""The verifier with the full engine on find-a-friend (``partners = "called"``):
the firmware's table core in-process (tablerules over the device rules engine,
the table.cfg the virtual table writes), the full engine's bots making the
call gesture and playing; the CALL, the PARTNER, the attackers' score while
the partner is unknown and the levels per seat judged by ``shengji``, with
and without hand scans, also from a table snapshot; each changed, left out or
sent too early is a disagreement."""

from __future__ import annotations

import collections
import json
from typing import Any

import pytest
from shengji import Rules
from test_engine_replayer import InProcessTable, inserted, removed, tampered, verify
from tractor_table import events as E
from tractor_table.events import EV
from tractor_table.link import engine_replayer as er
from tractor_table.sim.virtual.game import BotGame
from tractor_table.vocab.loader import firmware

FRIEND = Rules.preset("friend")
Log = list[tuple[int, int, list[Any]]]


def friend_log(seed: int, hands: int = 2, hand_scan: bool = False) -> tuple[Log, InProcessTable, BotGame]:
    vt = InProcessTable(2, FRIEND, hand_scan=hand_scan)
    game = BotGame(vt, FRIEND, seed=seed, strength=1, say=lambda s: None)  # type: ignore[arg-type]
    game.play(hands)
    assert game.disagreements == []
    return vt.log, vt, game


def at(log: Log, kind: int, k: int = 0) -> int:
    return [i for i, (_, _, ev) in enumerate(log) if ev[0] == kind][k]


def test_kind_numbers_match_the_firmware() -> None:
    assert (E.Call.KIND, E.Partner.KIND) == (EV.CALL, EV.PARTNER)
    names = firmware("evlayout").NAMES
    assert names[EV.CALL] == "call" and names[EV.PARTNER] == "partner"


@pytest.mark.parametrize(("seed", "hand_scan"), [(1, False), (2, False), (3, True)])
def test_the_engine_agrees_with_an_honest_table(seed: int, hand_scan: bool) -> None:
    log, _, game = friend_log(seed, hand_scan=hand_scan)
    v = verify(log, rules=FRIEND)
    assert [d.show() for d in v.disagreements] == []
    kinds = collections.Counter(ev[0] for _, _, ev in log)
    assert kinds[EV.CALL] == 2 and kinds[EV.PARTNER] == 2 and kinds[EV.HAND_END] == 2
    assert v.agreed == v.checked and v.host_hash == log[-1][1]
    # levels per seat in HAND_START and HAND_END
    starts = [ev for _, _, ev in log if ev[0] == EV.HAND_START]
    ends = [ev for _, _, ev in log if ev[0] == EV.HAND_END]
    assert all(len(ev) == 9 for ev in starts) and all(len(ev) == 11 for ev in ends)
    assert game.match.levels == [*ends[-1][6:8], *ends[-1][9:11]]
    if hand_scan:  # the table knows at the call
        assert all(log[i + 1][2][0] == EV.PARTNER for i, (_, _, ev) in enumerate(log) if ev[0] == EV.CALL)
    else:  # without hand scans some trick was kept by seat first
        assert any(ev[0] == EV.TRICK and ev[4] == -1 for _, _, ev in log)


def test_a_wrong_partner_score_or_levels_is_a_disagreement() -> None:
    log, _, _ = friend_log(1, hands=1)
    p = at(log, EV.PARTNER)
    ev = log[p][2]
    wrong = [ev[0], ev[1], (ev[2] + 1) % 4 if ev[2] != 3 else 1, ev[3]]
    v = verify(tampered(log, p, wrong), rules=FRIEND)
    assert v.disagreements and v.disagreements[0].index == p and "partner" in v.disagreements[0].fields
    # a TRICK before the partner is known that claims a score
    t = next(i for i, (_, _, e) in enumerate(log) if e[0] == EV.TRICK and e[4] == -1)
    v = verify(tampered(log, t, [*log[t][2][:4], 0]), rules=FRIEND)
    assert v.disagreements and v.disagreements[0].index == t
    # a level of seat 3 wrong at the hand's end
    e = at(log, EV.HAND_END)
    end = list(log[e][2])
    end[10] += 1
    v = verify(tampered(log, e, end), rules=FRIEND)
    assert v.disagreements and v.disagreements[0].index == e and v.disagreements[0].fields == ("levels",)


def test_a_partner_left_out_or_named_too_early_is_a_disagreement() -> None:
    log, _, _ = friend_log(1, hands=1)
    p = at(log, EV.PARTNER)
    v = verify(removed(log, p), rules=FRIEND)
    assert v.disagreements and v.disagreements[0].index == p  # the event sent in its place
    assert v.disagreements[0].host_event.raw()[0] == EV.PARTNER
    # named right after the call, where the table cannot know it yet
    c = at(log, EV.CALL)
    v = verify(inserted(log, c + 1, list(log[p][2])), rules=FRIEND)
    assert v.disagreements and v.disagreements[0].index == c + 1
    assert v.disagreements[0].host_event.raw()[2] == er.PARTNER_UNKNOWN


def test_a_call_where_the_rules_have_none_is_a_disagreement() -> None:
    log, _, _ = friend_log(2, hands=1)
    c = at(log, EV.CALL)
    v = verify(log[:c], rules=Rules())  # fixed partners: no levels per seat either
    assert v.disagreements and v.disagreements[0].index == 0


def test_judging_goes_on_from_a_table_snapshot() -> None:
    # a snapshot before the partner is known and one after, as a resync gives them
    log, vt, _ = friend_log(1, hands=1)
    p = at(log, EV.PARTNER)
    tricks = [i for i, (_, _, ev) in enumerate(log) if ev[0] == EV.TRICK]
    for cut in (max(i for i in tricks if i < p), min(i for i in tricks if i > p)):
        vt2 = InProcessTable(2, FRIEND)
        game = BotGame(vt2, FRIEND, seed=1, strength=1, say=lambda s: None)  # type: ignore[arg-type]
        start = vt2.next_event()
        game.start_hand(start)
        while len(vt2.log) <= cut:
            game.play_one()
        assert vt2.log[cut][2][0] == EV.TRICK
        snap = vt2.t.snapshot()
        assert snap[-2][0] == 2 and snap[-1][0] == 3  # the call and partner, then the rules digest
        v = verify([], rules=FRIEND)
        v.rebase(cut + 1, vt2.log[cut][1], json.dumps(snap).encode())
        while not game.play_trick():
            pass
        game.finish_hand()
        for idx, h, ev in vt2.log[cut + 1:]:
            v.check(idx, h, ev)
        assert [d.show() for d in v.disagreements] == [] and v.checked > 20
        assert not v.replayer.lost
        # the host's state is the table's own snapshot
        assert v.replayer.host_state() is None or json.loads(v.replayer.host_state() or b"[]")[-1][0] == 2


@pytest.mark.parametrize(("seed", "hand_scan"), [(2, False), (5, False), (4, True)])
def test_failed_throws_and_their_penalty_by_seat_agree(seed: int, hand_scan: bool) -> None:
    # random bots throw combinations that fail: challenged (or forced at once
    # in hand_scan mode), the penalty counted by the leader's seat until the
    # partner is known, then for or against the attackers
    rules = Rules.preset("friend", throw_penalty=10)
    vt = InProcessTable(2, rules, hand_scan=hand_scan)
    game = BotGame(vt, rules, seed=seed, strength=0, say=lambda s: None)  # type: ignore[arg-type]
    game.play(2)
    assert game.disagreements == []
    assert game.challenges + game.forced_at_once > 0
    v = verify(vt.log, rules=rules)
    assert [d.show() for d in v.disagreements] == [] and v.agreed == v.checked
    assert any(ev[0] == EV.FORCED and ev[3] == 10 for _, _, ev in vt.log)
    known, early = False, 0  # failed throws while the partner was unknown
    for _, _, ev in vt.log:
        known = (known or ev[0] == EV.PARTNER) and ev[0] != EV.HAND_START
        early += ev[0] == EV.FORCED and not known
    assert early > 0 or hand_scan
