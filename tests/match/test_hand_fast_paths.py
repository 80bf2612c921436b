"""Hand.apply's fast paths give what the plain definitions give (docs/performance.md:
Hand.apply per play). Without known hands, a play re-checks only the earlier
follows it can change (the suits it brings; not a lead of single cards
followed in its suit): the findings must be those of re-checking every
earlier follow, in the same order, with the same state hashes."""

from __future__ import annotations

import random

from shengji import Rules
from shengji.hand import Deal, Hand, IllegalEvent, Play
from shengji.match import iter_hand, make_bots


class EveryFollowHand(Hand):
    """The definition: after a play, every earlier follow of the seat re-checked."""

    def _prove_revokes(self, seat: int) -> None:
        current = len(self.tricks) - 1
        for i, t in enumerate(self.tricks[:current]):
            if t.leader != seat and t.cards_of(seat):
                self._check_follow_at(i, t, seat, "play")


def _events(seed: int, rules: Rules) -> list[object]:
    """A bot hand in which about one follow in six is random cards (often a revoke)."""
    rng = random.Random(seed)
    out: list[object] = []
    for st in iter_hand(rules, make_bots(1, seed), random.Random(seed), level=seed % 13, dealer=seed % 4,
                        first_hand=False, strict=False):
        ev, hand = st.event, st.hand
        if isinstance(ev, Play) and hand.current_trick() is not None and rng.random() < 0.17:
            assert hand.hands is not None
            cand = tuple(rng.sample(list(hand.hands[ev.seat]), len(ev.cards)))
            try:
                hand.apply(Play(ev.seat, cand))
                hand.undo()
                object.__setattr__(ev, "cards", cand)  # the bots' hand plays it instead
            except IllegalEvent:
                pass
        out.append(ev)
    return out


def test_revoke_proofs_find_what_rechecking_every_follow_finds() -> None:
    revokes = 0
    for seed, preset in enumerate(["classic", "classic", "titanic", "xuwen", "lianzhong", "onedeck"] * 3):
        rules = Rules.preset(preset)
        events = _events(seed, rules)
        fast = Hand(rules, level=seed % 13, dealer=seed % 4, first_hand=False)
        slow = EveryFollowHand(rules, level=seed % 13, dealer=seed % 4, first_hand=False)
        for ev in events:
            if isinstance(ev, Deal):
                continue
            for h in (fast, slow):
                h.apply(ev)  # type: ignore[arg-type]
            assert fast.findings == slow.findings
            assert fast.state_hash() == slow.state_hash()
        revokes += sum(1 for f in fast.findings if f.at == "play")
    assert revokes >= 20  # the sample proves revokes by later cards
