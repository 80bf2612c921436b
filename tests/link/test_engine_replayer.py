"""The verifier with the full engine: real table events (the firmware's own
table core, tablerules over the device rules engine, run in-process with the
full engine's bots tapping the cards) replayed through ``shengji``."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from shengji import Rules
from tractor_table import events as E
from tractor_table.events import EV, describe
from tractor_table.link import engine_replayer as er
from tractor_table.link import ttlink
from tractor_table.link.verifier import Verifier

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


class InProcessTable:
    """The firmware's table core in this process, as BotGame drives a table."""

    def __init__(self, decks: int, rules: Rules | None = None, hand_scan: bool = False) -> None:
        if str(FIRMWARE) not in sys.path:
            sys.path.insert(0, str(FIRMWARE))
        import table as T  # the firmware's modules
        import tableconfig
        import tablerules
        from tractor_table import rulescodec

        # the table's options as table.cfg gives them (deploy writes it from the rules)
        cfg = dict(line.split("=", 1) for line in rulescodec.cfg_lines(rules or Rules(decks=decks)))
        opts = tableconfig.Options(cfg, decks)
        rules_t = tablerules.TableRules(decks, **opts.rules)
        rules_t.digest = opts.digest  # as main.configured_app sets it
        self.t = T.Table(
            rules_t,
            decks=decks,
            throw_penalty=opts.throw_penalty,
            chain_hash=ttlink.chain_hash,
            hand_scan=hand_scan,
        )
        self.now = 0
        self.hand_scan = hand_scan  # BotGame asks, as of a VirtualTable
        self.queue: collections.deque[list[Any]] = collections.deque()
        self.log: list[tuple[int, int, list[Any]]] = []
        self._pull()

    def _pull(self) -> None:
        for idx, h, ev in self.t.take_events():
            self.queue.append(ev)
            self.log.append((idx, h, ev))

    def tap(self, seat: int, card: int) -> None:
        self.now += 30
        self.t.tap(seat, card, self.now)
        self._pull()

    def press(self, seat: int, kind: int) -> None:
        self.now += 30
        self.t.button(seat, kind, self.now)
        self._pull()

    def next_event(self, timeout: float = 10.0) -> E.Event:
        for _ in range(1000):
            if self.queue:
                return E.decode(self.queue.popleft())
            self.now += 30
            self.t.tick(self.now)
            self._pull()
        raise AssertionError("the table made no event")


def table_log(
    hands: int, seed: int, decks: int = 2, rules: Rules | None = None, strength: int = 1
) -> list[tuple[int, int, list[Any]]]:
    from tractor_table.sim.virtual.game import BotGame

    rules = rules or Rules(decks=decks)
    vt = InProcessTable(decks, rules)
    game = BotGame(vt, rules, seed=seed, strength=strength, say=lambda s: None)  # type: ignore[arg-type]
    game.play(hands)
    vt.next_event  # noqa: B018 - the rest of the queue is in vt.log
    return vt.log


def verify(
    log: list[tuple[int, int, list[Any]]], decks: int = 2, rules: Rules | None = None
) -> Verifier:
    v = Verifier(er.EngineReplayer(rules or Rules(decks=decks)), "rules-2026.1", describe=describe)
    for idx, h, ev in log:
        v.check(idx, h, E.decode(ev, index=idx, hash=h))
    return v


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_engine_agrees_with_an_honest_table(seed: int) -> None:
    log = table_log(hands=2, seed=seed)
    v = verify(log)
    assert [d.show() for d in v.disagreements] == []
    kinds = collections.Counter(ev[0] for _, _, ev in log)
    assert kinds[EV.TRICK] >= 30 and kinds[EV.HAND_END] == 2
    assert v.checked >= kinds[EV.PLAY] + kinds[EV.TRICK] + kinds[EV.HAND_END]
    assert v.agreed == v.checked
    assert v.host_hash == log[-1][1]


def tampered(log: list[tuple[int, int, list[Any]]], at: int, ev: list[Any]) -> list[tuple[int, int, list[Any]]]:
    """The log with event `at` replaced, hashes chained again (a table whose
    rules engine got it wrong, not a corrupted link)."""
    out = []
    h = log[at - 1][1] if at else 0
    for idx, old_h, old in log:
        if idx < at:
            out.append((idx, old_h, old))
            continue
        e = ev if idx == at else old
        h = ttlink.chain_hash(h, e)
        out.append((idx, h, e))
    return out


def first(log: list[tuple[int, int, list[Any]]], kind: int) -> int:
    return next(i for i, (_, _, ev) in enumerate(log) if ev[0] == kind)


def test_a_wrong_trick_winner_is_a_disagreement() -> None:
    log = table_log(hands=1, seed=4)
    i = first(log, EV.TRICK)
    ev = list(log[i][2])
    ev[2] = (ev[2] + 1) % 4
    v = verify(tampered(log, i, ev))
    d = v.disagreements[0]
    assert d.index == i and d.what == "verdict" and d.fields == ("winner",)
    assert d.host_event.raw() == log[i][2]
    assert "table:" in d.show() and "wins" in d.show()


def test_wrong_points_and_a_wrong_score_are_disagreements() -> None:
    log = table_log(hands=1, seed=5)
    i = [k for k, (_, _, ev) in enumerate(log) if ev[0] == EV.TRICK and ev[3] > 0][0]
    ev = list(log[i][2])
    ev[3] += 5
    v = verify(tampered(log, i, ev))
    assert v.disagreements[0].index == i and "points" in v.disagreements[0].fields
    j = first(log, EV.HAND_END)
    end = list(log[j][2])
    end[1] += 10
    v = verify(tampered(log, j, end))
    (d,) = v.disagreements
    assert d.index == j and d.fields == ("attackers_score",)


def test_an_illegal_play_the_table_accepted_is_caught() -> None:
    log = table_log(hands=1, seed=6)
    # the second play of the first trick: the table lets the same seat play twice
    i = first(log, EV.PLAY)
    lead = log[i][2]
    bad = [EV.PLAY, lead[1], lead[2], *log[i + 1][2][3:]]
    v = verify(tampered(log, i + 1, bad))
    d = v.disagreements[0]
    assert d.index == i + 1 and d.host_event is not None
    assert d.host_event.raw()[0] == EV.REJECT and d.host_event.raw()[3] == EV.OUT_OF_TURN
    # the engine stops judging that hand rather than guess
    assert v.replayer.lost  # type: ignore[attr-defined]


def test_a_wrongly_refused_bid_is_caught() -> None:
    # the first seed whose hand has an accepted bid (the case is picked, never skipped)
    for seed in range(1, 21):
        log = table_log(hands=1, seed=seed)
        bids = [k for k, (_, _, ev) in enumerate(log) if ev[0] == EV.BID and ev[2] == 1]
        if bids:
            break
    else:
        pytest.fail("no hand of seeds 1-20 has an accepted bid: do the bots still bid?")
    i = bids[0]
    ev = list(log[i][2])
    ev[2], ev[3] = 0, EV.BID_WEAK
    v = verify(tampered(log, i, ev))
    d = v.disagreements[0]
    assert d.index == i and d.host_event is not None and d.host_event.raw()[2] == 1


def mid_hand(
    seed: int, tricks: int, rules: Rules | None = None, strength: int = 1, hand_scan: bool = False
) -> tuple[InProcessTable, Any]:
    from tractor_table.sim.virtual.game import BotGame

    rules = rules or Rules(decks=2)
    vt = InProcessTable(2, rules, hand_scan)
    game = BotGame(vt, rules, seed=seed, strength=strength, say=lambda s: None)  # type: ignore[arg-type]
    game.start_hand(game._expect(E.HandStart))
    for _ in range(tricks):
        game.play_trick()
    return vt, game


@pytest.mark.parametrize("seed", [1, 2])
def test_host_state_is_the_tables_snapshot_when_they_agree(seed: int) -> None:
    import json

    vt, _ = mid_hand(seed, 5)
    v = verify(vt.log)
    assert v.disagreements == []
    state = v.replayer.host_state()
    assert state is not None
    snap = json.loads(json.dumps(vt.t.snapshot()))
    mine = json.loads(state)
    mine[13], mine[14] = snap[13], snap[14]  # the link's numbering, set at the push
    assert mine == snap


def test_host_state_carries_the_engines_verdict_and_the_table_takes_it() -> None:
    import json

    vt, game = mid_hand(3, 4)
    i = max(k for k, (_, _, ev) in enumerate(vt.log) if ev[0] == EV.TRICK)
    wrong = list(vt.log[i][2])
    right_winner = wrong[2]
    wrong[2] = (wrong[2] + 1) % 4
    v = verify(tampered(vt.log, i, wrong))
    assert v.disagreements[0].index == i
    state = v.replayer.host_state()
    assert state is not None
    snap = json.loads(state)
    assert snap[17][-1][1] == right_winner
    # a table that took the wrong verdict swaps the host's state in, whole
    fresh = InProcessTable(2)
    fresh.t.restore(snap)
    assert fresh.t.tricks[-1][1] == right_winner and fresh.t.turn == right_winner
    assert json.loads(json.dumps(fresh.t.snapshot()))[17] == snap[17]
    # mid-trick there is no snapshot to push (the table saves at trick boundaries)
    assert game.hand is not None
    game._play_one(game.hand)  # the lead of the next trick
    assert vt.log[-1][2][0] == EV.PLAY
    v2 = verify(vt.log)
    assert v2.replayer.host_state() is None


@pytest.mark.parametrize("tricks", [0, 3, 7])
def test_judging_goes_on_from_a_table_snapshot(tricks: int) -> None:
    """The link resynced from the table's snapshot mid-hand: the engine
    rebuilds the hand from it and judges the rest of the hand."""
    import json

    vt, game = mid_hand(7, tricks)
    snap = json.loads(json.dumps(vt.t.snapshot()))
    n = len(vt.log)
    while not game.play_trick():
        pass
    game.finish_hand()
    rest = vt.log[n:]
    eng = er.EngineReplayer(Rules(decks=2))
    v = Verifier(eng, "rules-2026.1")
    v.on_note(["snapshot", n, vt.log[n - 1][1], json.dumps(snap).encode()])
    assert eng.lost == "" and eng.hand is not None
    for idx, h, ev in rest:
        v.check(idx, h, E.decode(ev, index=idx, hash=h))
    assert [d.show() for d in v.disagreements] == []
    assert v.unchecked == 0 and v.checked == len(rest) > 10
    assert rest[-1][2][0] == EV.HAND_END


def test_a_snapshot_that_does_not_rebuild_is_said_so() -> None:
    import json

    vt, _ = mid_hand(8, 2)
    snap = json.loads(json.dumps(vt.t.snapshot()))
    snap[8] = (snap[8] + 1) % 5  # a trump the bids do not give
    eng = er.EngineReplayer(Rules(decks=2))
    eng.reset(json.dumps(snap).encode())
    assert "cannot rebuild" in eng.lost and eng.hand is None
    assert eng.replay(len(vt.log), E.decode([EV.TRICK, 2, 0, 0, 0])) is None


# --- failed throws (throw_penalty), revokes and the audit ---------------------

TOURNAMENT = Rules.preset("tournament")


def throws_log(seed: int) -> list[tuple[int, int, list[Any]]]:
    """Tournament rules (throw_penalty 10), random bots that throw: failed
    throws challenged and forced."""
    log = table_log(hands=2, seed=seed, rules=TOURNAMENT, strength=0)
    assert any(ev[0] == EV.FORCED and ev[3] == 10 for _, _, ev in log)
    return log


@pytest.mark.parametrize("seed", [1, 2])
def test_the_engine_agrees_with_an_honest_table_on_failed_throws(seed: int) -> None:
    log = throws_log(seed)
    v = verify(log, rules=TOURNAMENT)
    assert [d.show() for d in v.disagreements] == []
    assert v.unchecked == 0 and v.agreed == v.checked == len(log)
    # the penalties are in the attackers' running score
    assert any(ev[0] == EV.TRICK and ev[4] < 0 for _, _, ev in log) or any(
        ev[0] == EV.FORCED for _, _, ev in log
    )


def test_a_wrongly_forced_unit_or_penalty_is_a_disagreement() -> None:
    log = throws_log(1)
    i = first(log, EV.FORCED)
    ev = log[i][2]
    attempt = log[i - 2][2][3:]  # PLAY (the throw), CHALLENGE, FORCED
    assert log[i - 2][2][0] == EV.PLAY and log[i - 1][2][0] == EV.CHALLENGE
    other = [c for c in attempt if c not in ev[4:]]
    wrong_unit = [*ev[:4], *other[: len(ev) - 4]]
    v = verify(tampered(log, i, wrong_unit), rules=TOURNAMENT)
    d = v.disagreements[0]
    assert d.index == i and d.host_event.raw() == ev
    wrong_pen = [*ev[:3], 5, *ev[4:]]
    v = verify(tampered(log, i, wrong_pen), rules=TOURNAMENT)
    d = v.disagreements[0]
    assert d.index == i and d.fields == ("penalty",) and d.host_event.raw() == ev
    # the table's penalty is followed: the scores after it are judged from it
    assert len(v.disagreements) == 1 or v.disagreements[1].index > i


def inserted(log: list[tuple[int, int, list[Any]]], at: int, ev: list[Any]) -> list[tuple[int, int, list[Any]]]:
    """The log with an extra event before `at`, numbered and hashed again."""
    evs = [e for _, _, e in log]
    evs.insert(at, ev)
    out, h = [], 0
    for k, e in enumerate(evs):
        h = ttlink.chain_hash(h, e)
        out.append((k, h, e))
    return out


def removed(log: list[tuple[int, int, list[Any]]], at: int) -> list[tuple[int, int, list[Any]]]:
    evs = [e for k, (_, _, e) in enumerate(log) if k != at]
    out, h = [], 0
    for k, e in enumerate(evs):
        h = ttlink.chain_hash(h, e)
        out.append((k, h, e))
    return out


def test_a_revoke_or_audit_finding_the_engine_does_not_make_is_a_disagreement() -> None:
    log = throws_log(2)
    plays = [k for k, (_, _, ev) in enumerate(log) if ev[0] == EV.PLAY and ev[1] >= 3]
    i = plays[1]  # a follow in trick 4 or later
    seat = log[i][2][2]
    revoke = [EV.REVOKE, log[i][2][1], seat, 0, 5]
    v = verify(inserted(log, i + 1, revoke), rules=TOURNAMENT)
    (d,) = v.disagreements
    assert d.index == i + 1 and d.host_event.raw() == [EV.REVOKE, log[i][2][1], seat, 0, 0]
    j = first(log, EV.HAND_END)
    audit = [EV.AUDIT, 2, 1, EV.REVOKE_FOLLOW, 5]
    v = verify(inserted(log, j, audit), rules=TOURNAMENT)
    (d,) = v.disagreements
    assert d.index == j and d.host_event.raw() == [EV.AUDIT, 2, 1, 0, 0]


def revoke_log(
    seed: int, revokes: int = 1, snaps: list[tuple[int, Any]] | None = None
) -> list[tuple[int, int, list[Any]]]:
    """A hand at the table in which players revoke (`revokes` times): one
    shows void in the suit led (a single card of another suit) while it holds
    that suit; a later follow of that suit proves it (REVOKE) and the audit
    finds it. `snaps` gets the table's snapshot after every trick (with the
    length of the log then)."""
    from tractor_table.sim.virtual.game import BotGame

    vt = InProcessTable(2)
    game = BotGame(vt, Rules(decks=2), seed=seed, strength=1, say=lambda s: None)  # type: ignore[arg-type]
    game.start_hand(game._expect(E.HandStart))
    hand = game.hand
    assert hand is not None
    hand.strict = False  # the revoke is recorded, not refused
    done: list[int] = []
    for seat, bot in enumerate(game.bots):
        honest = bot.play

        def play(h: Any, seat: int = seat, honest: Any = honest) -> Any:
            trick = h.current_trick()
            if len(done) < revokes and trick is not None and len(trick.lead) == 1 and len(h.tricks) >= 2:
                es = h.ruling.order.effective_suit
                led = es(trick.lead[0] % 54)
                mine = h.held(seat)
                off = [c for c in mine if es(c % 54) != led]
                if off and sum(es(c % 54) == led for c in mine) >= 2:
                    done.append(seat)
                    return (off[0],)
            return honest(h)

        bot.play = play  # type: ignore[method-assign,assignment]
    while not game.play_trick():
        if snaps is not None:
            snaps.append((len(vt.log), json.loads(json.dumps(vt.t.snapshot()))))
    game.finish_hand()
    assert done and hand.findings
    return vt.log


@pytest.mark.parametrize(("seed", "revokes"), [(3, 1), (2, 6)])
def test_revokes_and_the_audit_of_an_honest_table_agree(seed: int, revokes: int) -> None:
    log = revoke_log(seed, revokes)
    kinds = collections.Counter(ev[0] for _, _, ev in log)
    assert kinds[EV.REVOKE] >= 1 and kinds[EV.AUDIT] >= kinds[EV.REVOKE]
    v = verify(log)
    assert [d.show() for d in v.disagreements] == []
    assert v.unchecked == 0 and v.agreed == v.checked == len(log)


def test_revokes_reported_before_a_snapshot_are_not_expected_again() -> None:
    snaps: list[tuple[int, Any]] = []
    log = revoke_log(1, 6, snaps)
    n, snap = next((n, sn) for n, sn in snaps if len(sn[18]) >= 2)
    eng = er.EngineReplayer(Rules(decks=2))
    v = Verifier(eng, "rules-2026.1")
    v.on_note(["snapshot", n, log[n - 1][1], json.dumps(snap).encode()])
    assert eng.lost == "" and len(eng.revoked) == len(snap[18])
    rest = log[n:]
    assert any(ev[0] == EV.REVOKE for _, _, ev in rest)
    for idx, h, ev in rest:
        v.check(idx, h, E.decode(ev, index=idx, hash=h))
    assert [d.show() for d in v.disagreements] == []
    # the host's state says which revokes were reported, as the table's does
    state = verify(log[:n]).replayer.host_state()
    assert state is not None and json.loads(state)[18] == snap[18]


def test_a_missing_or_wrong_revoke_or_audit_is_a_disagreement() -> None:
    log = revoke_log(3)
    r = first(log, EV.REVOKE)
    a = first(log, EV.AUDIT)
    # missing: the table goes on without it
    v = verify(removed(log, r))
    d = v.disagreements[0]
    assert d.index == r and d.host_event.raw() == log[r][2]
    v = verify(removed(log, a))
    d = v.disagreements[0]
    assert d.index == a and d.host_event.raw() == log[a][2]
    # wrong: another reason, another trick
    for at, pos in ((r, 4), (r, 3), (a, 4), (a, 1)):
        ev = list(log[at][2])
        ev[pos] += 1
        v = verify(tampered(log, at, ev))
        d = v.disagreements[0]
        assert d.index == at and d.host_event.raw() == log[at][2], (at, pos)


@pytest.mark.parametrize(("seed", "hand_scan"), [(1, False), (2, False), (1, True)])
def test_judging_goes_on_from_a_snapshot_after_a_forced_throw(seed: int, hand_scan: bool) -> None:
    """Also in hand_scan mode, where the table forces a failing throw at once
    and refuses an illegal follow: the engine knows the hands from the SCAN
    events (or the snapshot) and judges both."""
    import json

    vt, game = mid_hand(seed, 1, rules=TOURNAMENT, strength=0, hand_scan=hand_scan)
    while not any(ev[0] == EV.FORCED for _, _, ev in vt.log):
        assert not game.play_trick(), "no failed throw in the hand"
    snap = json.loads(json.dumps(vt.t.snapshot()))
    assert any(tr[3] for tr in snap[17])
    n = len(vt.log)
    while not game.play_trick():
        pass
    game.finish_hand()
    eng = er.EngineReplayer(TOURNAMENT)
    v = Verifier(eng, "rules-2026.1")
    v.on_note(["snapshot", n, vt.log[n - 1][1], json.dumps(snap).encode()])
    assert eng.lost == "" and eng.hand is not None
    assert eng.hand.penalties  # the failed throws' penalties, rebuilt
    assert eng.hand.known == hand_scan
    for idx, h, ev in vt.log[n:]:
        v.check(idx, h, E.decode(ev, index=idx, hash=h))
    assert [d.show() for d in v.disagreements] == []
    assert v.unchecked == 0
    # from the start, every event but the SCANs is judged
    whole = verify(vt.log, rules=TOURNAMENT)
    assert [d.show() for d in whole.disagreements] == []
    assert whole.unchecked == (4 if hand_scan else 0)
    # and the host's state at a trick boundary is the table's
    whole = verify(vt.log[:n], rules=TOURNAMENT)
    state = whole.replayer.host_state()
    assert state is not None
    mine = json.loads(state)
    mine[13], mine[14] = snap[13], snap[14]
    if hand_scan:  # the cards each seat holds, in the engine's order
        snap[22][2:] = [sorted(h) for h in snap[22][2:]]
    assert mine == snap


def unchallenged_throw_log(seed: int) -> list[tuple[int, int, list[Any]]]:
    """Tournament rules, random bots; the first throw that fails is not
    challenged (the players' engine is kept from forcing it), so the table's
    audit finds it at the hand's end (AUDIT, THROW_FAILED)."""
    from shengji.hand import Event as HandEvent
    from shengji.hand import Play
    from tractor_table.sim.virtual.game import BotGame

    vt = InProcessTable(2, TOURNAMENT)
    game = BotGame(vt, TOURNAMENT, seed=seed, strength=0, say=lambda s: None)  # type: ignore[arg-type]
    game.start_hand(game._expect(E.HandStart))
    hand = game.hand
    assert hand is not None and hand.hands is not None
    hand.strict = False
    apply_known = hand.apply
    left = [1]

    def apply(ev: HandEvent) -> None:
        if isinstance(ev, Play) and left[0] and hand.current_trick() is None:
            faces = [c % 54 for c in ev.cards]
            known = hand.hands
            assert known is not None
            if hand.ruling.is_throw(faces) and not hand.ruling.throw(
                ev.seat, faces, [[c % 54 for c in h] for h in known]
            )[0]:
                left[0] = 0
                hand.hands = None  # played as at a table: the throw stands
                try:
                    apply_known(ev)
                finally:
                    gone = set(ev.cards)
                    hand.hands = tuple(
                        tuple(c for c in h if c not in gone) if s == ev.seat else h
                        for s, h in enumerate(known)
                    )
                return
        apply_known(ev)

    hand.apply = apply  # type: ignore[method-assign,assignment]
    while not game.play_trick():
        pass
    game.finish_hand()
    assert left == [0]
    return vt.log


def test_an_unchallenged_failed_throw_is_audited_and_judged() -> None:
    log = unchallenged_throw_log(1)
    a = first(log, EV.AUDIT)
    assert log[a][2][3] == EV.THROW_FAILED
    v = verify(log, rules=TOURNAMENT)
    assert [d.show() for d in v.disagreements] == []
    assert v.unchecked == 0 and v.agreed == v.checked == len(log)
    # the table leaves it out, or names another trick or seat
    v = verify(removed(log, a), rules=TOURNAMENT)
    d = v.disagreements[0]
    assert d.index == a and d.host_event.raw() == log[a][2] and d.device_event.raw()[0] == EV.HAND_END
    for pos in (1, 2):
        ev = list(log[a][2])
        ev[pos] = (ev[pos] + 1) % 4
        v = verify(tampered(log, a, ev), rules=TOURNAMENT)
        (d,) = v.disagreements
        assert d.index == a and d.host_event.raw() == log[a][2]


def forfeit_log(seed: int, hand_scan: bool = False, hands: int = 2) -> list[tuple[int, int, list[Any]]]:
    """Tournament rules (revoke = "forfeit"): in each hand a seat revokes on
    purpose (from trick 2 on); the table ends the hand when it knows it."""
    from tractor_table.sim.virtual.game import BotGame

    vt = InProcessTable(2, TOURNAMENT, hand_scan=hand_scan)
    game = BotGame(vt, TOURNAMENT, seed=seed, strength=1, say=lambda s: None, revoke_from=2)  # type: ignore[arg-type]
    game.play(hands)
    assert game.disagreements == [] and game.revokes == hands
    return vt.log


@pytest.mark.parametrize(("seed", "hand_scan"), [(2, False), (5, False), (2, True)])
def test_a_revoke_that_loses_the_hand_is_judged_and_agrees(seed: int, hand_scan: bool) -> None:
    log = forfeit_log(seed, hand_scan)
    evs = [ev for _, _, ev in log]
    forfeits = [k for k, ev in enumerate(evs) if ev[0] == EV.FORFEIT]
    assert len(forfeits) == 2
    for k in forfeits:
        assert evs[k + 1][0] == EV.HAND_END and evs[k - 1][0] in (EV.REVOKE, EV.TRICK)
        assert EV.AUDIT not in [ev[0] for ev in evs[k - 6 : k]]  # lost before the last trick
        if hand_scan:  # known at once: the revoke is the play just made
            rev = next(ev for ev in reversed(evs[:k]) if ev[0] == EV.REVOKE)
            assert rev[1] == rev[3] == evs[k][1]
    v = verify(log, rules=TOURNAMENT)
    assert [d.show() for d in v.disagreements] == []
    scans = sum(1 for ev in evs if ev[0] == EV.SCAN)
    assert v.agreed == v.checked == len(log) - scans


def test_a_missing_wrong_or_unfounded_forfeit_is_a_disagreement() -> None:
    log = forfeit_log(2, hands=1)
    f = first(log, EV.FORFEIT)
    want = log[f][2]
    # the table settles without saying the hand was lost: shown on its HAND_END
    (d, *_) = verify(removed(log, f), rules=TOURNAMENT).disagreements
    assert d.index == f and d.host_event.raw() == want
    # the wrong seat, the wrong trick
    for pos in (1, 2):
        ev = list(want)
        ev[pos] = (ev[pos] + 1) % 4
        (d, *_) = verify(tampered(log, f, ev), rules=TOURNAMENT).disagreements
        assert d.index == f and d.host_event.raw() == want
    # under the flag rule no revoke loses the hand: the engine says so
    flag = Rules.preset("tournament", revoke="flag")
    d = verify(log, rules=flag).disagreements[0]
    assert d.index == f and d.host_event.raw() == [EV.FORFEIT, want[1], -1]


QQ = Rules.preset("qq")  # no_bid = "kitty"


def kitty_up_log(
    seed: int, hand_scan: bool = False, snaps: list[tuple[int, Any]] | None = None
) -> list[tuple[int, int, list[Any]]]:
    """QQ rules (no_bid = "kitty"): nobody bids in hands 2 and 3; the dealer
    turns the kitty up. `snaps` gets the table's snapshot after each event of
    hand 2 (with the length of the log then)."""
    from tractor_table.sim.virtual.game import BotGame

    vt = InProcessTable(2, QQ, hand_scan=hand_scan)
    if snaps is not None:
        pull = vt._pull

        def pull_and_snap() -> None:
            pull()
            if vt.t.hand_no == 2:
                snaps.append((len(vt.log), json.loads(json.dumps(vt.t.snapshot()))))

        vt._pull = pull_and_snap  # type: ignore[method-assign]
    game = BotGame(vt, QQ, seed=seed, strength=1, say=lambda s: None, quiet_hands=(2, 3))  # type: ignore[arg-type]
    game.play(3)
    assert game.disagreements == [] and game.kitty_reveals == 2
    return vt.log


@pytest.mark.parametrize(("seed", "hand_scan"), [(1, False), (3, True)])
def test_the_kitty_turned_up_names_trump_and_the_engine_agrees(seed: int, hand_scan: bool) -> None:
    log = kitty_up_log(seed, hand_scan)
    evs = [ev for _, _, ev in log]
    ups = [k for k, ev in enumerate(evs) if ev[0] == EV.KITTY_UP]
    assert len(ups) == 2
    for k in ups:
        assert evs[k + 1][0] == EV.TRUMP and evs[k + 1][2] == -1  # nobody declared
    v = verify(log, rules=QQ)
    assert [d.show() for d in v.disagreements] == []
    assert v.agreed == v.checked == len(log) - (12 if hand_scan else 0)


def test_a_wrong_trump_or_reveal_from_the_kitty_is_a_disagreement() -> None:
    log = kitty_up_log(1)
    k = first(log, EV.KITTY_UP)
    up = log[k][2]
    trump = log[k + 1][2]
    # the kitty's first card decides: another first card, another trump
    other = next(c for c in range(52) if c % 13 != 0 and c // 13 != trump[1])
    swapped = [EV.KITTY_UP, up[1], other, *[c for c in up[2:] if c != other][:-1]]
    d = verify(tampered(log, k, swapped), rules=QQ).disagreements[0]
    assert d.index == k + 1 and d.host_event.raw() == [EV.TRUMP, other // 13, -1, trump[3]]
    # a reveal the rules do not call for (no_bid = "nt"): said at the KITTY_UP
    d = verify(log, rules=QQ.replace(no_bid="nt")).disagreements[0]
    assert d.index == k and d.host_event.raw() == [EV.KITTY_UP, -1, *up[2:]]
    # the reveal left out: the engine wants it where the table names trump
    d = verify(removed(log, k), rules=QQ).disagreements[0]
    assert d.index == k and d.host_event.raw() == [EV.KITTY_UP, up[1]]


def test_judging_goes_on_from_a_snapshot_during_or_after_the_reveal() -> None:
    snaps: list[tuple[int, Any]] = []
    log = kitty_up_log(1, snaps=snaps)
    during = next((n, sn) for n, sn in snaps if sn[2] == 6)  # REVEAL
    after = next((n, sn) for n, sn in snaps if sn[2] == 2 and len(sn[17]) == 3)
    assert after[1][21] and during[1][21] == []
    for n, snap in (during, after):
        eng = er.EngineReplayer(QQ)
        v = Verifier(eng, "rules-2026.1")
        v.on_note(["snapshot", n, log[n - 1][1], json.dumps(snap).encode()])
        assert eng.lost == "" and eng.hand is not None
        for idx, h, ev in log[n:]:
            v.check(idx, h, E.decode(ev, index=idx, hash=h))
        assert [d.show() for d in v.disagreements] == []
        assert v.unchecked == 0 and v.checked == len(log) - n
    # the host's state after the reveal is the table's, the kitty turned up included
    n, snap = after
    state = verify(log[:n], rules=QQ).replayer.host_state()
    assert state is not None
    mine = json.loads(state)
    mine[13], mine[14] = snap[13], snap[14]
    assert mine == snap


def test_both_views_of_a_revoke_reveal_or_forfeit_disagreement_read_differently() -> None:
    """A disagreement is shown with both views in words: where the host finds
    no revoke (reason 0), wants no reveal (seat -1) or wants one the table
    left out (no cards), its words must say so, not repeat the table's."""
    log = throws_log(2)
    i = [k for k, (_, _, ev) in enumerate(log) if ev[0] == EV.PLAY and ev[1] >= 3][1]
    seat = log[i][2][2]
    (d,) = verify(inserted(log, i + 1, [EV.REVOKE, log[i][2][1], seat, 0, 5]), rules=TOURNAMENT).disagreements
    assert d.device_text.endswith("is proven to have revoked in trick 1 (did not follow the led suit while holding it)")
    assert d.host_text == f"trick {log[i][2][1] + 1}: no revoke of S{seat} in trick 1 is proven"
    log = kitty_up_log(1)
    k = first(log, EV.KITTY_UP)
    up = log[k][2]
    d = verify(log, rules=QQ.replace(no_bid="nt")).disagreements[0]
    assert d.device_text.startswith(f"nobody bid: S{up[1]} turns the kitty up: ")
    assert d.host_text.startswith("the kitty is not to be turned up here")
    d = verify(removed(log, k), rules=QQ).disagreements[0]
    assert d.host_text == f"nobody bid: S{up[1]} must turn the kitty up before trump is named"
    assert describe([EV.FORFEIT, -1, 2]) == "S2's revoke loses the hand for side 0"
    assert describe([EV.FORFEIT, 4, -1]) == "no revoke loses the hand"


def test_a_revoke_in_hand_scan_mode_under_the_flag_rule_is_refused_at_once() -> None:
    """revoke = "flag" in hand_scan mode: the table knows every hand and
    refuses the revoke at the play (REJECT, reason 10); the bot then plays
    its honest cards; the full engine agrees on every event (found by the
    soak: the bots took that refusal for a disagreement)."""
    from tractor_table.sim.virtual.game import BotGame

    vt = InProcessTable(2, QQ, hand_scan=True)
    game = BotGame(vt, QQ, seed=105, strength=2, say=lambda s: None, revoke_from=2)  # type: ignore[arg-type]
    game.play(2)
    assert game.disagreements == [] and game.revokes == game.revokes_refused == 2
    rejects = [ev for _, _, ev in vt.log if ev[0] == EV.REJECT]
    assert len(rejects) == 2 and all(ev[3] == EV.REVOKE_FOLLOW and ev[1] >= 2 for ev in rejects)
    for ev in rejects:  # the same seat's play follows, in the same trick, with other cards
        k = next(k for k, (_, _, e) in enumerate(vt.log) if e is ev)
        nxt = vt.log[k + 1][2]
        assert nxt[0] == EV.PLAY and nxt[1:3] == ev[1:3] and sorted(nxt[3:]) != sorted(ev[4:])
    assert not any(ev[0] in (EV.REVOKE, EV.AUDIT, EV.FORFEIT) for _, _, ev in vt.log)
    v = verify(vt.log, rules=QQ)
    assert [d.show() for d in v.disagreements] == []
    assert v.agreed == v.checked == len(vt.log) - 8  # the SCAN events are not judged


TITANIC = Rules.preset("titanic")  # 3 decks: throws of two off-suit level pairs come up


@pytest.mark.parametrize("hand_scan", [False, True])
def test_of_two_equally_weak_units_the_table_may_force_either(hand_scan: bool) -> None:
    """A failed throw 2S 2S 2H 2H 2C at level 2 (found by the soak, titanic
    seed 553): its pairs are off-suit level pairs, at the same position
    (docs/rules.md §2 "all equal"), so either is "the weakest unit" §5 forces. The
    table forces 2S 2S, the engine alone would pick 2H 2H: the verifier and
    the bots take the table's choice (before, a disagreement, and the bots'
    copy of the hand went astray: "card seen twice" later); a unit of another
    category is still a disagreement."""
    from tractor_table.sim.virtual.game import BotGame

    vt = InProcessTable(3, TITANIC, hand_scan=hand_scan)
    game = BotGame(vt, TITANIC, seed=40, strength=0, say=lambda s: None)  # type: ignore[arg-type]
    game.play(1)
    assert game.disagreements == [] and game.forced_equal == 1
    k = first(vt.log, EV.FORCED)
    forced = vt.log[k][2]
    throw = next(ev for _, _, ev in reversed(vt.log[:k]) if ev[0] == EV.PLAY)
    assert sorted(c % 54 for c in throw[3:]) == [0, 0, 13, 13, 39]  # 2S 2S 2H 2H 2C
    assert sorted(c % 54 for c in forced[4:]) == [0, 0]  # the table's: 2S 2S
    v = verify(vt.log, rules=TITANIC)
    assert [d.show() for d in v.disagreements] == []
    assert v.agreed == v.checked > 100
    single = [c for c in throw[3:] if c % 54 == 39]
    (d, *_) = verify(tampered(vt.log, k, [*forced[:4], *single]), rules=TITANIC).disagreements
    assert d.index == k and sorted(c % 54 for c in d.host_event.raw()[4:]) == [13, 13]  # the engine's pair


def test_a_quiet_first_hand_is_redealt_once_and_judged() -> None:
    """quiet_hands=(1,): nobody bids on the match's first hand, which is a
    redeal (docs/rules.md §8); the bots then bid again (before, they stayed quiet
    and the table redealt forever: a hang). The REDEAL and the hand after it
    are judged and agree."""
    from tractor_table.sim.virtual.game import BotGame

    said: list[str] = []

    def say(line: str) -> None:
        said.append(line)
        assert sum("redeal" in x for x in said) < 3, "redealt again and again"

    vt = InProcessTable(2, QQ)
    game = BotGame(vt, QQ, seed=1, strength=1, say=say, quiet_hands=(1,))  # type: ignore[arg-type]
    game.play(1)
    assert game.disagreements == [] and game.redeals == 1 and game.hands_played == 1
    kinds = [ev[0] for _, _, ev in vt.log]
    assert kinds[:2] == [EV.HAND_START, EV.REDEAL] and kinds.count(EV.HAND_START) == 2
    assert kinds[-1] == EV.HAND_END and EV.KITTY_UP not in kinds
    v = verify(vt.log, rules=QQ)
    assert [d.show() for d in v.disagreements] == []
    assert v.agreed == v.checked == len(vt.log)


@pytest.mark.parametrize("phase", [5, 1])  # the table's SCAN and KITTY phases
def test_judging_goes_on_from_a_snapshot_taken_while_the_hands_are_scanned(phase: int) -> None:
    """hand_scan mode: the host resyncs from a snapshot taken after trump,
    while the seats scan their hands (SCAN) or before the burial (KITTY). The
    engine takes the hands scanned so far from the snapshot, knows every hand
    at the burial, so judges the throws the table forces at once, and follows
    the hand to its end and the next hand's start (found by a snapshot soak:
    a SCAN snapshot was taken as "past the play", so the next HAND_START
    disagreed; after a KITTY one the engine did not know the hands and could
    not follow a throw forced at once)."""
    from tractor_table.sim.virtual.game import BotGame

    snaps: list[tuple[int, Any]] = []
    vt = InProcessTable(2, TOURNAMENT, hand_scan=True)
    pull = vt._pull

    def pull_and_snap() -> None:
        pull()
        if vt.t.hand_no == 1:
            snaps.append((len(vt.log), json.loads(json.dumps(vt.t.snapshot()))))

    vt._pull = pull_and_snap  # type: ignore[method-assign]
    game = BotGame(vt, TOURNAMENT, seed=1, strength=0, say=lambda s: None)  # type: ignore[arg-type]
    game.play(2)
    log = vt.log
    first_hand = log[: [k for k, (_, _, ev) in enumerate(log) if ev[0] == EV.HAND_START][1]]
    assert any(ev[0] == EV.FORCED for _, _, ev in first_hand)  # forced at once: the hands are needed
    starts = [(n, sn) for n, sn in snaps if sn[2] == phase]
    assert starts
    for n, snap in starts:
        eng = er.EngineReplayer(TOURNAMENT)
        v = Verifier(eng, "rules-2026.1")
        v.on_note(["snapshot", n, log[n - 1][1], json.dumps(snap).encode()])
        for idx, h, ev in log[n:]:
            v.check(idx, h, E.decode(ev, index=idx, hash=h))
        assert [d.show() for d in v.disagreements] == []
        assert eng.lost == "" and eng.unfollowed == 0
        scans = sum(1 for _, _, ev in log[n:] if ev[0] == EV.SCAN)
        assert v.agreed == v.checked == len(log) - n - scans


def test_a_new_match_the_host_sent_starts_a_fresh_match_in_the_engine() -> None:
    """A club's round sends the table CMD_NEW_MATCH after a hand ended at other levels: the
    table starts again at the first level, first hand. The host that sent it says so to its
    verifier (the engine starts a fresh match); a table that starts a new match unasked is
    a disagreement."""
    from tractor_table.sim.virtual.game import BotGame

    rules = Rules(decks=1)
    vt = InProcessTable(1, rules)
    BotGame(vt, rules, seed=5, say=lambda s: None).play(1)  # type: ignore[arg-type]
    vt.queue.clear()
    at = len(vt.log)
    vt.t.command([1])  # CMD_NEW_MATCH (firmware/tablebase.py)
    vt._pull()
    start = vt.next_event()
    assert isinstance(start, E.HandStart) and start.first_hand and start.hand_no == 1
    BotGame(vt, rules, seed=6, say=lambda s: None).play(1, start=start)  # type: ignore[arg-type]
    vt.queue.clear()
    ended = [ev for _, _, ev in vt.log[:at] if ev[0] == EV.HAND_END]
    assert ended and list(E.decode(ended[-1]).levels) != [0, 0]  # the first match moved on

    for told in (False, True):
        v = Verifier(er.EngineReplayer(rules), "rules-2026.1", describe=describe)
        for k, (idx, h, ev) in enumerate(vt.log):
            if k == at and told:
                v.expect_new_match()
            v.check(idx, h, E.decode(ev, index=idx, hash=h))
        shown = [d.show() for d in v.disagreements]
        if told:
            assert shown == [] and v.agreed == v.checked
        else:
            assert len(shown) == 1 and "levels" in shown[0], shown
