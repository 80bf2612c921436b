"""Bots: seeded players that always play legally, in three strengths.

- ``0`` (*random*): any legal play, bids and burials at random; it also tries
  random throws, standing or not (so failed throws and penalties occur).
- ``1`` (*basic*): the strategy notes of the sources (docs/rules.md §14) — lead strong side-suit
  cards and tractors, trump when void, feed points to a partner who is winning,
  win cheaply or else throw away little, bury short side suits and no points
  unless safe.
- ``2`` (*good*): basic, plus card memory: it knows which cards are still out and
  which seats are void, throws combinations nobody can beat, leads suits its
  partner can trump, and keeps a big trump combination for the last trick when
  the kitty holds points.

A bot only looks at what its seat may know: its own cards, the cards played,
the bids, and (as dealer) the kitty it buried. Every decision is drawn from the
bot's own ``random.Random(seed)``, so a game is reproduced by its seeds.

Bots work with a :class:`~shengji.hand.Hand` whose hands are known (a
simulation applies a :class:`~shengji.hand.Deal`); :func:`shengji.match.play_hand`
and :func:`shengji.match.iter_hand` drive them.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence

from .cards import FACES, SMALL_JOKER, face_counts
from .hand import Hand, Phase, _pick
from .order import TRUMP
from .play import can_beat, single_unit_leads
from .ruling import Ruling

__all__ = ["STRENGTHS", "Bot", "BotError"]

#: strength names, by number
STRENGTHS = ("random", "basic", "good")

#: cap on the legal follows a bot looks at (the rest are never better by its measure)
_MAX_CANDIDATES = 60


class BotError(RuntimeError):
    """A bot found no legal action (a bug: a legal follow always exists)."""


def _points(face: int) -> int:
    if face >= SMALL_JOKER:
        return 0
    r = face % 13
    return 5 if r == 3 else 10 if r in (8, 11) else 0


class Bot:
    """One seat's player. ``strength`` 0, 1 or 2 (see the module docs)."""

    def __init__(self, seat: int, strength: int = 1, seed: int | None = None) -> None:
        if seat not in range(4):
            raise ValueError(f"bad seat {seat!r}: 0-3")
        if strength not in range(len(STRENGTHS)):
            raise ValueError(f"bad strength {strength!r}: 0 (random), 1 (basic) or 2 (good)")
        self.seat = seat
        self.strength = strength
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"Bot(seat={self.seat}, strength={self.strength})"

    # --- the draw -------------------------------------------------------------

    def bid(self, hand: Hand, drawn: Sequence[int], cards_per_seat: int) -> tuple[int, ...] | None:
        """A bid to show now (card ids), or None. ``drawn``: this seat's cards so far;
        ``cards_per_seat``: how many each seat gets by the end of the draw."""
        level = hand.level
        by_kind: dict[int, list[int]] = {}
        for c in drawn:
            f = c % FACES
            if f >= SMALL_JOKER:
                by_kind.setdefault(f - SMALL_JOKER + 4, []).append(c)
            elif f % 13 == level:
                by_kind.setdefault(f // 13, []).append(c)
        if not by_kind:
            return None
        standing = hand.standing
        options: list[tuple[float, tuple[int, ...]]] = []
        for kind, cards in by_kind.items():
            mine = standing is not None and standing.seat == self.seat
            if mine and standing is not None and standing.kind == kind:
                # reinforce (自保) with the copies not yet shown
                shown = standing.count
                extra = tuple(cards[shown:])
                if extra and self.strength > 0 and hand.would_accept_bid(self.seat, extra):
                    options.append((10.0, extra))
                continue
            if mine and self.strength > 0:
                continue  # no self-override from sensible bots
            for n in range(1, len(cards) + 1):
                show = tuple(cards[:n])
                if hand.would_accept_bid(self.seat, show):
                    options.append((self._bid_value(kind, drawn, level, cards_per_seat), show))
                    break
        if not options:
            return None
        value, show = max(options)
        if self.strength == 0:
            return show if self.rng.random() < 0.3 else None
        return show if value >= 1.0 else None

    def _bid_value(self, kind: int, drawn: Sequence[int], level: int, per_seat: int) -> float:
        """How good trump ``kind`` (a suit, or 4/5 for NT) looks, 1.0 being "worth it"."""
        faces = [c % FACES for c in drawn]
        jokers = sum(1 for f in faces if f >= SMALL_JOKER)
        levels = sum(1 for f in faces if f < SMALL_JOKER and f % 13 == level)
        if kind >= 4:
            strength = jokers + levels
            expect = len(faces) * 6 / 54
        else:
            suit = sum(1 for f in faces if f < SMALL_JOKER and f // 13 == kind and f % 13 != level)
            strength = suit + jokers + levels
            expect = len(faces) * 18 / 54
        late = len(faces) / max(1, per_seat)
        return strength / max(1.0, expect) * (0.6 + 0.6 * late)

    # --- the kitty --------------------------------------------------------------

    def bury(self, hand: Hand) -> tuple[int, ...]:
        """The cards to bury (the dealer, after taking the kitty)."""
        cards = list(hand.held(self.seat))
        size = hand.rules.kitty_size
        if self.strength == 0:
            return tuple(self.rng.sample(cards, size))
        ruling = hand.ruling
        faces = [c % FACES for c in cards]
        cnt = face_counts(faces)
        suit_len = [0] * 5
        for f in faces:
            suit_len[ruling.esuit(f)] += 1
        trump_share = suit_len[TRUMP] / max(1, len(faces))
        safe = trump_share >= 0.45  # many trumps: points in the kitty are safe enough

        def cost(c: int) -> float:
            f = c % FACES
            es = ruling.esuit(f)
            pos = ruling.order.pos[f]
            v = float(pos) + 3.0 * (cnt[f] - 1) * 4
            if es == TRUMP:
                v += 100
            else:
                v += suit_len[es] * 1.5  # short suits go first
            if _points(f):
                v += 4 if safe else 40
            if es != TRUMP and pos == ruling.order.npos[es] - 1:
                v += 30  # keep side-suit aces
            return v + self.rng.random() * 0.01

        return tuple(sorted(cards, key=cost)[:size])

    def call(self, hand: Hand) -> int:
        """Find-a-friend: the face to name (an ace of a side suit the dealer lacks)."""
        mine = {c % FACES for c in hand.held(self.seat)}
        ruling = hand.ruling
        choices = [
            s * 13 + 12 for s in range(4) if ruling.esuit(s * 13 + 12) != TRUMP and s * 13 + 12 not in mine
        ]
        if not choices:
            choices = [s * 13 + 12 for s in range(4) if ruling.esuit(s * 13 + 12) != TRUMP] or [53]
        return self.rng.choice(choices) if self.strength == 0 else choices[0]

    # --- play --------------------------------------------------------------------

    def play(self, hand: Hand) -> tuple[int, ...]:
        """The cards (ids) to play now; always legal."""
        if hand.phase != Phase.PLAY or hand.next_seat() != self.seat:
            raise BotError(f"seat {self.seat} is not to play now")
        cards = list(hand.held(self.seat))
        faces = [c % FACES for c in cards]
        trick = hand.current_trick()
        if trick is None:
            choice = self._lead(hand, faces)
        else:
            choice = self._follow(hand, faces, [c % FACES for c in trick.lead])
        return _pick(cards, choice)

    # knowledge ------------------------------------------------------------------

    def _partners(self, hand: Hand) -> set[int]:
        """Seats this bot knows to be on its side."""
        if hand.rules.partners.value == "fixed":
            return {(self.seat + 2) % 4}
        d = hand.dealer
        face = hand.friend_face
        if d is None or face is None:
            return set()
        revealed = next(
            (s for t in hand.tricks for s, cs in t.plays if s != d and any(c % FACES == face for c in cs)),
            None,
        )
        if self.seat == d:
            return {revealed} if revealed is not None else set()
        if any(c % FACES == face for c in hand.held(self.seat)):
            return {d}
        if revealed is not None:
            if revealed == self.seat:
                return {d}
            return {s for s in range(4) if s not in (d, revealed, self.seat)}
        return set()

    def _unseen(self, hand: Hand, faces: Sequence[int]) -> list[int]:
        """Count array of the cards this bot has not seen (held by the others or buried)."""
        out = [hand.rules.decks] * FACES
        for f in faces:
            out[f] -= 1
        for c in hand.played:
            out[c % FACES] -= 1
        if hand.dealer == self.seat and hand.buried:
            for c in hand.buried:
                out[c % FACES] -= 1
        return out

    def _voids(self, hand: Hand) -> list[set[int]]:
        """Effective suits each seat is known to lack (it followed off-suit)."""
        ruling = hand.ruling
        voids: list[set[int]] = [set() for _ in range(4)]
        for t in hand.tricks:
            es = ruling.esuit(t.lead[0] % FACES)
            n = len(t.lead)
            for s, cs in t.plays[1:]:
                in_suit = sum(1 for c in cs if ruling.esuit(c % FACES) == es)
                if in_suit < n:
                    voids[s].add(es)
        return voids

    # leading --------------------------------------------------------------------

    def _lead(self, hand: Hand, faces: list[int]) -> tuple[int, ...]:
        ruling = hand.ruling
        cnt = face_counts(faces)
        units = sorted(set(tuple(sorted(u)) for u in single_unit_leads(ruling.order, cnt)))
        if self.strength == 0:
            if self.rng.random() < 0.2:
                return self._random_throw(ruling, faces, units)
            return self.rng.choice(units)
        unseen = self._unseen(hand, faces)
        reserve = self._reserve(hand, faces)
        if self.strength >= 2:
            throw = self._sure_throw(ruling, faces, unseen, reserve)
            if throw is not None:
                return throw
        voids = self._voids(hand) if self.strength >= 2 else [set() for _ in range(4)]
        partners = self._partners(hand)
        opponents = [s for s in range(4) if s != self.seat and s not in partners]
        suit_len = [0] * 5
        for f in faces:
            suit_len[ruling.esuit(f)] += 1
        # strength 2 draws trumps (调主) when it holds most of those still out
        trump_out = sum(unseen[f] for f in ruling.order.suit_faces[TRUMP])
        draw_trumps = (
            self.strength >= 2
            and suit_len[TRUMP] >= max(3, trump_out * 0.6)
            and any(TRUMP not in voids[s] for s in opponents)
        )
        profiles = [_profile(ruling, es, unseen) for es in range(5)]
        best: tuple[float, tuple[int, ...]] | None = None
        for u in units:
            if reserve and any(f in reserve for f in u) and len(faces) > len(u):
                continue
            es = ruling.esuit(u[0])
            d = ruling.decompose(u)
            assert d is not None
            unit = d.units[0]
            sure = not can_beat(profiles[es], unit.width, unit.length, unit.top)
            pts = sum(_points(f) for f in u)
            v = 0.0
            if es != TRUMP:
                trumped = any(es in voids[s] and TRUMP not in voids[s] for s in opponents)
                if sure and not trumped:
                    v += 50 + 10 * unit.size + pts  # a side-suit winner (the strategy notes)
                elif any(es in voids[s] for s in partners) and not trumped:
                    v += 35 - pts  # let the partner trump
                else:
                    v += 10 - unit.top * 0.5 - pts * 1.5 - unit.size * 2
                    if self.strength >= 2:
                        v += max(0, 6 - suit_len[es]) * 1.5  # shorten a short suit
            else:
                v += (20 + 5 * unit.size if sure else -5 - unit.top * 0.3) - pts
                if draw_trumps:
                    v += 30 if sure else 25 - pts * 2
            v += self.rng.random() * 0.5
            if best is None or v > best[0]:
                best = (v, u)
        if best is None:
            return self.rng.choice(units)
        return best[1]

    def _random_throw(
        self, ruling: Ruling, faces: list[int], units: list[tuple[int, ...]]
    ) -> tuple[int, ...]:
        """A random bot's throw: a few cards of one suit, standing or not."""
        by_suit: dict[int, list[int]] = {}
        for f in faces:
            by_suit.setdefault(ruling.esuit(f), []).append(f)
        suits = [fs for fs in by_suit.values() if len(fs) >= 2]
        if not suits:
            return self.rng.choice(units)
        fs = self.rng.choice(suits)
        return tuple(sorted(self.rng.sample(fs, self.rng.randint(2, min(5, len(fs))))))

    def _sure_throw(
        self, ruling: Ruling, faces: list[int], unseen: list[int], reserve: set[int]
    ) -> tuple[int, ...] | None:
        """The biggest combination of one side suit that nobody can beat (it stands
        whoever holds the unseen cards)."""
        best: tuple[int, ...] | None = None
        for es in range(4):
            mine = [f for f in faces if ruling.esuit(f) == es and f not in reserve]
            if len(mine) < 2:
                continue
            d = ruling.decompose(mine)
            if d is None:
                continue
            prof = _profile(ruling, es, unseen)
            keep = [u for u in d.units if not can_beat(prof, u.width, u.length, u.top)]
            if len(keep) < 2:
                continue
            play = tuple(sorted(f for u in keep for f in u.cards))
            ok, _, _ = ruling.throw(0, play, [[], [f for f in range(FACES) for _ in range(unseen[f])], [], []])
            if ok and (best is None or len(play) > len(best)):
                best = play
        return best

    def _reserve(self, hand: Hand, faces: list[int]) -> set[int]:
        """Strength 2: the faces of a big trump combination kept for the last trick
        when the kitty (as far as this bot can tell) may hold points."""
        if self.strength < 2 or len(faces) <= 4:
            return set()
        ruling = hand.ruling
        if hand.dealer == self.seat and hand.buried is not None:
            if sum(_points(c % FACES) for c in hand.buried) == 0:
                return set()
        cnt = face_counts(faces)
        trump_units = [
            u for u in single_unit_leads(ruling.order, cnt) if len(u) >= 2 and ruling.is_trump(u[0])
        ]
        if not trump_units:
            return set()
        big = max(trump_units, key=lambda u: (len(u), ruling.order.pos[max(u, key=lambda f: ruling.order.pos[f])]))
        return set(big)

    # following ------------------------------------------------------------------

    def _follow(self, hand: Hand, faces: list[int], lead: list[int]) -> tuple[int, ...]:
        ruling = hand.ruling
        cnt = face_counts(faces)
        candidates = list(itertools.islice(self._candidates(ruling, lead, faces, cnt), _MAX_CANDIDATES))
        if not candidates:
            first = ruling.legal_follows(lead, cnt).first()
            if first is None:
                raise BotError(f"seat {self.seat} has no legal follow to {lead}")
            return first
        if self.strength == 0:
            return self.rng.choice(candidates)
        trick = hand.current_trick()
        assert trick is not None
        plays = [[c % FACES for c in cs] for _, cs in trick.plays]
        seats = [s for s, _ in trick.plays]
        win_i = 0
        win_key = ruling.key(lead, plays[0])
        for i, p in enumerate(plays[1:], start=1):
            k = ruling.key(lead, p)
            if k is not None and win_key is not None and k > win_key:
                win_i, win_key = i, k
        partners = self._partners(hand)
        partner_winning = seats[win_i] in partners
        last_to_play = len(plays) == 3
        trick_points = sum(_points(f) for p in plays for f in p)
        unseen = self._unseen(hand, faces)
        reserve = self._reserve(hand, faces)
        cards_left = len(faces)
        partner_safe = partner_winning and (last_to_play or self._likely_holds(ruling, lead, plays[win_i], unseen))

        def value(play: tuple[int, ...]) -> float:
            pts = sum(_points(f) for f in play)
            cost = sum(ruling.order.pos[f] + (8 if ruling.is_trump(f) else 0) for f in play)
            kept = sum(1 for f in play if f in reserve) if cards_left > len(play) else 0
            k = ruling.key(lead, list(play))
            wins = k is not None and win_key is not None and k > win_key
            v = -cost * 0.5 - kept * 15
            if partner_safe:
                v += pts * 3  # feed points to the partner (the strategy notes)
            elif wins:
                v += 20 + (trick_points + pts) * 2
                if not last_to_play and k is not None:
                    v += k[1] * 0.3  # win high when others still play
            else:
                v -= pts * 3  # lose cheaply
            return v + self.rng.random() * 0.1

        return max(candidates, key=value)

    def _likely_holds(self, ruling: Ruling, lead: list[int], win_play: list[int], unseen: list[int]) -> bool:
        """Is the partner's winning play beyond what the unseen cards can beat in suit?"""
        d = ruling.decompose(win_play)
        if d is None:
            return False
        u = d.units[0]
        es = ruling.esuit(win_play[0])
        return not can_beat(_profile(ruling, es, unseen), u.width, u.length, u.top)

    def _candidates(
        self, ruling: Ruling, lead: list[int], faces: list[int], cnt: list[int]
    ) -> Iterator[tuple[int, ...]]:
        """Legal follows worth considering: hand-built ones (lowest, highest, most
        points, cheapest kills) checked for legality, then the generator of :class:`shengji.play.LegalFollows`."""
        n = len(lead)
        es = ruling.esuit(lead[0])
        seen: set[tuple[int, ...]] = set()
        pos = ruling.order.pos
        suit = sorted((f for f in faces if ruling.esuit(f) == es), key=lambda f: pos[f])
        other = [f for f in faces if ruling.esuit(f) != es]
        built: list[list[int]] = []
        if len(suit) >= n:
            built.append(suit[:n])
            built.append(suit[-n:])
            built.append(sorted(suit, key=lambda f: (-_points(f), pos[f]))[:n])
        else:
            low_other = sorted(other, key=lambda f: (ruling.is_trump(f), _points(f), pos[f]))
            rich_other = sorted(other, key=lambda f: (ruling.is_trump(f), -_points(f), pos[f]))
            built.append(suit + low_other[: n - len(suit)])
            built.append(suit + rich_other[: n - len(suit)])
            if not suit and es != TRUMP:
                trumps = sorted((f for f in faces if ruling.is_trump(f)), key=lambda f: pos[f])
                if len(trumps) >= n:
                    built.append(trumps[:n])
                    built.append(trumps[-n:])
                    built.extend(self._kills(ruling, lead, trumps))
        for b in built:
            play = tuple(sorted(b))
            if len(play) == n and play not in seen and ruling.follow_counts(lead, cnt, play):
                seen.add(play)
                yield play
        for play in ruling.legal_follows(lead, cnt):
            if play not in seen:
                seen.add(play)
                yield play

    def _kills(self, ruling: Ruling, lead: list[int], trumps: list[int]) -> list[list[int]]:
        """Trump plays shaped like the lead: for each led unit, the lowest trump
        unit of the same shape still free (the cheapest kill), and the highest."""
        d = ruling.decompose(lead)
        if d is None:
            return []
        out = []
        for pick_high in (False, True):
            left = face_counts(trumps)
            play: list[int] = []
            for u in d.units:
                options = [
                    x
                    for x in single_unit_leads(ruling.order, left)
                    if ruling.is_trump(x[0]) and _shape(ruling, x) == u.shape
                ]
                if not options:
                    break
                pick = max(options, key=lambda x: pos_top(ruling, x)) if pick_high else min(
                    options, key=lambda x: pos_top(ruling, x)
                )
                for f in pick:
                    left[f] -= 1
                play.extend(pick)
            else:
                out.append(play)
        return out


def pos_top(ruling: Ruling, faces: Sequence[int]) -> int:
    return max(ruling.order.pos[f] for f in faces)


def _shape(ruling: Ruling, faces: Sequence[int]) -> tuple[int, int]:
    d = ruling.decompose(faces)
    if d is None or d.is_throw:
        return (0, 0)
    return d.units[0].shape


def _profile(ruling: Ruling, es: int, counts: Sequence[int]) -> list[int]:
    """Per position of ``es``: the widest set the counts hold there."""
    out = []
    for fs in ruling.order.faces_at[es]:
        if len(fs) == 1:
            out.append(counts[fs[0]])
        else:
            out.append(max(counts[f] for f in fs))
    return out
