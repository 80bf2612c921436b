"""The per-hand rule questions the hand, the audit and the bots ask, on faces.

A thin adapter over the rule functions (:mod:`shengji.order`, :mod:`shengji.units`,
:mod:`shengji.play`): one object per hand (level and trump fixed), with the
:class:`~shengji.play.Lead` of a trick cached, so the state machine and the
bots speak in plain lists of faces and get plain answers back.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import play as _play
from .cards import Rank, Suit, face_counts
from .order import TRUMP, Order
from .rules import Rules
from .units import Decomposition, decompose_faces

__all__ = ["TRUMP", "Ruling"]


#: How many leads a Ruling keeps (a hand has at most 54 tricks).
_LEADS_KEPT = 64


class Ruling:
    """Rules of one hand: ``Ruling(rules, level, trump)`` (``trump`` a suit index
    or None for NT)."""

    __slots__ = ("rules", "level", "trump", "order", "_leads")

    def __init__(self, rules: Rules, level: int, trump: int | None) -> None:
        self.rules = rules
        self.level = level
        self.trump = trump
        self.order = Order(rules, Rank(level), None if trump is None else Suit(trump))
        #: the leads of this hand's tricks, built once each (the audit and the
        #: revoke proofs of a hand without known hands ask about earlier tricks)
        self._leads: dict[tuple[int, ...], _play.Lead] = {}

    def lead(self, faces: Sequence[int]) -> _play.Lead:
        key = tuple(faces)
        lead = self._leads.get(key)
        if lead is None:
            if len(self._leads) >= _LEADS_KEPT:
                self._leads.clear()  # bots may ask about many leads: keep it small
            lead = self._leads[key] = _play.Lead(self.order, key)
        return lead

    def esuit(self, face: int) -> int:
        return self.order.esuit[face]

    def is_trump(self, face: int) -> bool:
        return self.order.is_trump_face[face]

    def one_suit(self, faces: Sequence[int]) -> bool:
        es = self.order.esuit
        return bool(faces) and all(es[f] == es[faces[0]] for f in faces)

    def decompose(self, faces: Sequence[int]) -> Decomposition | None:
        return decompose_faces(self.order, faces)

    def is_throw(self, faces: Sequence[int]) -> bool:
        d = decompose_faces(self.order, faces)
        return d is not None and d.is_throw

    def throw(
        self, leader: int, faces: Sequence[int], hands: Sequence[Sequence[int]]
    ) -> tuple[bool, tuple[int, ...], tuple[int, ...]]:
        """``(stands, forced faces, seats that beat it)`` of a lead, given what each
        seat holds (faces; the leader's hand is not looked at)."""
        r = _play.check_throw(self.order, leader, list(faces), [face_counts(h) for h in hands])
        if r.ok:
            return True, tuple(faces), ()
        return False, tuple(r.play), (() if r.seat is None else (r.seat,))

    def follow(
        self, lead: Sequence[int], hand: Sequence[int], play: Sequence[int]
    ) -> tuple[bool, str]:
        """``(legal, sentence)`` of a follow from ``hand`` (which holds ``play``)."""
        v = _play.check_follow_counts(self.order, self.lead(lead), face_counts(hand), list(play))
        return v.legal, v.message

    def follow_counts(self, lead: Sequence[int], hand: Sequence[int], play: Sequence[int]) -> bool:
        """:meth:`follow` with ``hand`` a count array (the bots' fast path)."""
        return _play.check_follow_counts(self.order, self.lead(lead), hand, play).legal

    def winner(self, leader: int, plays: Sequence[Sequence[int]]) -> int:
        """The seat that wins a trick (``plays`` in play order from ``leader``)."""
        lead = self.lead(plays[0])
        return _play.trick_winner_faces(self.order, lead, [list(p) for p in plays], leader).winner

    def key(self, lead: Sequence[int], play: Sequence[int]) -> tuple[int, int] | None:
        """The strength key of a play in a trick (None: it cannot win)."""
        return _play.play_key(self.order, self.lead(lead), list(play))

    def points(self, faces: Sequence[int]) -> int:
        return _play.points(faces)

    def legal_follows(self, lead: Sequence[int], hand_counts: Sequence[int]) -> _play.LegalFollows:
        return _play.LegalFollows(self.order, self.lead(lead), hand_counts)
