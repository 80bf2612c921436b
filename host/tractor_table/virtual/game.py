"""Bots play a match on the virtual table, and the full engine checks the table.

:class:`BotGame` keeps the host's own copy of each hand (a ``shengji`` :class:`Hand`
with the deal known) and four ``shengji`` bots. For each decision it asks the
bot of the seat whose turn the *table* says it is, taps the chosen cards at that
seat's reader (and presses the seat's button where a play needs it), then waits
for the table's game event on the link and compares it with the full engine:
bids accepted, trump, kitty, every play, every trick's winner and points, the
hand's score and the settlement. Every difference is kept in
:attr:`BotGame.disagreements` and printed; the game goes on with the table's
view where it can.

Bots of strength 0 (random) throw combinations that may fail. The table (no
hand scans) lets a throw stand unless a seat challenges it (RULES.md §10); the
host, knowing the hands, forces it at once. So when the full engine forces a
throw, a seat that can beat it challenges at the table: it double-presses, taps
its cards of the throw's suit, and clicks; the table must then force the same
cards.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from shengji import Rules
from shengji.hand import Bid, Bury, Deal, EndDraw, Hand, Phase, Play
from shengji.match import Match, deal_cards, make_bots
from shengji.play import check_throw

from ..errors import CommandError
from .events import EV, RANKS, TRUMPS, cards_text, describe
from .runner import VirtualTable

NT = 4


class BotGame:
    def __init__(
        self,
        table: VirtualTable,
        rules: Rules,
        *,
        seed: int = 1,
        strength: int = 1,
        say: Callable[[str], None] = print,
        verbose: bool = False,
        event_timeout: float = 10.0,
    ) -> None:
        self.table = table
        self.rules = rules
        self.match = Match(rules)
        self.bots = make_bots(strength, seed)
        self.rng = random.Random(seed)
        self.say = say
        self.verbose = verbose
        self.timeout = event_timeout
        self.disagreements: list[str] = []
        self.checks = 0
        self.events_seen = 0
        self.hands_played = 0
        self.tricks_played = 0
        self.findings: list[str] = []
        self.hand: Hand | None = None
        self.challenges = 0
        self.forced_at_once = 0

    # --- events ------------------------------------------------------------------

    def _next(self) -> list[Any]:
        ev = self.table.next_event(self.timeout)
        self.events_seen += 1
        if self.verbose:
            self.say("    " + describe(ev))
        return ev

    def _expect(self, *kinds: int) -> list[Any]:
        """The next event of one of `kinds`; verdict events met on the way are reported."""
        while True:
            ev = self._next()
            k = ev[0]
            if k in kinds:
                return ev
            if k in (EV.REVOKE, EV.AUDIT):
                self.findings.append(describe(ev))
                self.say("  ! " + describe(ev))
            elif k == EV.REJECT:
                self._disagree(f"the table refused a play the full engine allows: {describe(ev)}")
                raise CommandError("the table refused a legal play: " + describe(ev))
            else:
                want = ", ".join(EV.NAMES[x] for x in kinds)
                raise CommandError(f"expected {want} from the table, got: {describe(ev)}")

    def _check(self, what: str, table_says: object, host_says: object) -> None:
        self.checks += 1
        if table_says != host_says:
            self._disagree(f"{what}: table {table_says!r}, full engine {host_says!r}")

    def _disagree(self, text: str) -> None:
        self.disagreements.append(text)
        self.say("  DISAGREEMENT " + text)

    # --- the simulated players -------------------------------------------------------

    def _tap_all(self, seat: int, cards: Sequence[int]) -> None:
        for c in cards:
            self.table.tap(seat, c)

    # --- a match -------------------------------------------------------------------

    def play(self, hands: int) -> None:
        """Play `hands` hands (redeals not counted), or until the match is won."""
        start = self._expect(EV.HAND_START)
        while True:
            outcome = self.play_hand(start)
            if outcome == "redeal":
                start = self._expect(EV.HAND_START)
                continue
            self.hands_played += 1
            if self.hands_played >= hands or self.match.is_over:
                return
            self.table.press(0, EV.BTN_OK)
            start = self._expect(EV.HAND_START)

    def play_hand(self, start: list[Any]) -> str:
        """One hand from its HAND_START event: "done", or "redeal"."""
        if self.start_hand(start) == "redeal":
            return "redeal"
        while not self.play_trick():
            pass
        self.finish_hand()
        return "done"

    def start_hand(self, start: list[Any]) -> str:
        """Deal, bid, end the draw, bury: "play", or "redeal"."""
        m = self.match
        _, hand_no, dealer, decks, l0, l1, first = start
        self._check("hand start: dealer", dealer, -1 if m.dealer is None else m.dealer)
        self._check("hand start: levels", [l0, l1], list(m.levels))
        self._check("hand start: decks", decks, self.rules.decks)
        self._check("hand start: first hand", bool(first), m.first_hand)
        hand = m.new_hand(strict=True)
        self.hand = hand
        self.findings = []
        deal = deal_cards(self.rules, self.rng)
        hand.apply(deal)
        self.say(describe(start))
        if self._draw(hand, deal) == "redeal":
            m.finish(hand)
            return "redeal"
        self._bury(hand)
        return "play"

    def play_trick(self) -> bool:
        """Play the current trick to its end; True when the hand's cards are all played."""
        hand = self.hand
        assert hand is not None
        while True:
            self._play_one(hand)
            if hand.tricks[-1].complete:
                return hand.phase != Phase.PLAY

    def play_one(self) -> None:
        """One play (a lead or a follow) of the seat whose turn it is."""
        assert self.hand is not None
        self._play_one(self.hand)

    def rewind_to_trick_start(self) -> int:
        """After a power cut the table resumes from its last snapshot, taken
        at the last trick boundary: take the trick in progress back from the
        host's copy too (its cards are tapped again). Returns the plays undone."""
        hand = self.hand
        assert hand is not None
        n = 0
        while hand.tricks and not hand.tricks[-1].complete:
            hand.undo()
            n += 1
        return n

    def finish_hand(self) -> None:
        assert self.hand is not None
        self._end(self.hand)

    def _draw(self, hand: Hand, deal: Deal) -> str:
        n = self.rules.hand_size
        start = 0 if hand.dealer is None else hand.dealer
        drawn: list[list[int]] = [[] for _ in range(4)]
        for i in range(4 * n):
            seat = (start + i) % 4
            drawn[seat].append(deal.hands[seat][len(drawn[seat])])
            show = self.bots[seat].bid(hand, drawn[seat], n)
            if show is None:
                continue
            host_ok = hand.would_accept_bid(seat, show)
            self._tap_all(seat, show)
            self.table.press(seat, EV.BTN_OK)
            ev = self._expect(EV.BID)
            self._check(f"bid {cards_text(show)} by S{seat}", bool(ev[2]), host_ok)
            self.say("  " + describe(ev))
            if host_ok:
                hand.apply(Bid(seat, tuple(show)))
        self.table.press(0, EV.BTN_OK)  # the draw is over
        ev = self._expect(EV.TRUMP, EV.REDEAL)
        hand.apply(EndDraw())
        if ev[0] == EV.REDEAL:
            self._check("redeal", True, hand.redeal)
            self.say("  " + describe(ev))
            return "redeal"
        trump = NT if hand.trump is None else int(hand.trump)
        declarer = -1 if hand.declarer is None else hand.declarer
        self._check("trump, declarer, dealer", ev[1:4], [trump, declarer, hand.dealer])
        self.say("  " + describe(ev))
        return "play"

    def _scan(self, hand: Hand) -> None:
        """hand_scan mode: every seat scans its hand (the dealer's holds the kitty)."""
        for seat in range(4):
            held = hand.held(seat)
            self._tap_all(seat, held)
            ev = self._expect(EV.SCAN)
            self._check(f"hand scanned at S{seat}", [ev[1], sorted(ev[2:])], [seat, sorted(held)])
        self.say("  every hand scanned")

    def _bury(self, hand: Hand) -> None:
        dealer = hand.dealer
        assert dealer is not None
        if self.table.hand_scan:
            self._scan(hand)
        cards = self.bots[dealer].bury(hand)
        self._tap_all(dealer, cards)
        ev = self._expect(EV.KITTY)
        hand.apply(Bury(tuple(cards)))
        self._check("buried cards", sorted(ev[3:]), sorted(cards))
        self.say("  " + describe(ev))

    def _play_one(self, hand: Hand) -> None:
        seat = hand.next_seat()
        assert seat is not None
        cards = self.bots[seat].play(hand)
        leading = hand.current_trick() is None
        self._tap_all(seat, cards)
        if leading:
            self.table.press(seat, EV.BTN_OK)
        ev = self._expect(EV.PLAY)
        self._check("play", [ev[2], sorted(ev[3:])], [seat, sorted(cards)])
        hand.apply(Play(seat, tuple(cards)))
        last = hand.tricks[-1]
        if leading and last.attempt:
            if self.table.hand_scan:
                # the table knows every hand: it forces the throw by itself
                ev = self._expect(EV.FORCED)
                self._check("forced cards", sorted(ev[4:]), sorted(last.lead))
                self.say("  " + describe(ev))
                self.forced_at_once += 1
            else:
                self._challenge(hand, seat, cards)
        if not last.complete:
            return
        ev = self._expect(EV.TRICK)
        self.tricks_played += 1
        self._check(f"trick {ev[1] + 1} winner, points", ev[2:4], [last.winner, last.points])
        plays = "  ".join(f"S{s} {cards_text(cs)}" for s, cs in last.plays)
        self.say(f"  trick {ev[1] + 1:2d}: {plays}  -> S{ev[2]} wins {ev[3]}, attackers {ev[4]}")

    def _challenge(self, hand: Hand, leader: int, cards: Sequence[int]) -> None:
        """The full engine forced this throw: a seat that beats it challenges."""
        trick = hand.tricks[-1]
        order = hand.ruling.order
        forced = sorted(c % 54 for c in trick.lead)
        es = order.effective_suit(cards[0] % 54)
        for s in trick.forced_by:
            shown = [c for c in hand.held(s) if order.effective_suit(c % 54) == es]
            alone: list[list[int]] = [[], [], [], []]
            alone[s] = [c % 54 for c in shown]  # the engine takes plain ints as faces
            r = check_throw(order, leader, [c % 54 for c in cards], alone)
            if not r.ok and sorted(r.play) == forced:
                break
        else:
            raise CommandError("no seat's cards alone fail the throw as the full engine does")
        self.table.press(s, EV.BTN_CHALLENGE)
        self._tap_all(s, shown)
        self.table.press(s, EV.BTN_OK)
        ev = self._expect(EV.CHALLENGE)
        self._check("challenge accepted", [ev[2], ev[3]], [s, 1])
        self.say("  " + describe(ev))
        ev = self._expect(EV.FORCED)
        self._check("forced cards", sorted(ev[4:]), sorted(trick.lead))
        self.say("  " + describe(ev))
        self.challenges += 1

    def _end(self, hand: Hand) -> None:
        ev = self._expect(EV.HAND_END)
        res = hand.result()
        summary = self.match.finish(hand)
        st = summary.settlement
        assert st is not None
        self._check("hand score", ev[1], res.score)
        self._check(
            "kitty points, multiplier, bonus",
            ev[2:5],
            [res.kitty_points, res.multiplier, res.kitty_bonus],
        )
        winner = st.winner if isinstance(st.winner, int) else -1
        self._check(
            "next dealer, levels, match winner", ev[5:9], [st.next_dealer, *st.levels, winner]
        )
        self._check("revokes found", len(self.findings), len(hand.findings))
        self.say("  " + describe(ev))
        lv = "/".join(RANKS[x] for x in ev[6:8])
        self.say(
            f"  score sheet: hand {summary.number}, trump {TRUMPS[NT if hand.trump is None else int(hand.trump)]}, "
            f"attackers {ev[1]}, levels now {lv}"
        )
