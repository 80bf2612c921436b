"""shengji: the full rules engine of Tractor (拖拉机 / 升级 / 80 points).

docs/rules.md (the project's rules, every option with its source) is
implemented here for 1-4 decks and every option. The API follows
python-chess: small value objects, notation that round-trips, ``repr`` that
pastes back as code, precise ``ValueError`` subclasses, a lazy view of the
legal plays (docs/engine.md)::

    import random, shengji
    rules = shengji.Rules.preset("tournament")
    hand = shengji.Hand.deal(rules, dealer=0, rng=random.Random(1))
    move = next(iter(hand.legal_plays()))
    hand.apply(move)

Overview (module: main names)
-----------------------------
- ``shengji.cards``: :class:`Card` (one physical card; ``id = copy*54 + face``),
  :class:`Suit`, :class:`Rank`, faces as ints (``face = suit*13 + rank``,
  ``SMALL_JOKER`` = 52, ``BIG_JOKER`` = 53), :func:`parse_cards`,
  :func:`parse_faces`, :func:`format_cards`, errors :class:`InvalidCardError`
  (:class:`CardNotationError`, :class:`CardCountError`).
- ``shengji.rules``: :class:`Rules` (every option of docs/rules.md §0, immutable,
  validated; ``Rules.preset("tournament")``, ``Rules.from_dict({...})``,
  ``rules.replace(...)``), option enums, :class:`InvalidRulesError`.
- ``shengji.order``: :class:`Order` — the per-hand context: ``Order(rules,
  level, trump)`` with ``trump`` a :class:`Suit` or ``None`` for NT. Effective
  suits (``TRUMP`` = 4), positions, ``compare``.
- ``shengji.units``: :class:`Unit` (set or run: width ``m``, length ``k``,
  strength ``top``), :func:`decompose` (docs/rules.md §4 canonical decomposition).
- ``shengji.play``: leading, throwing, following and tricks (docs/rules.md §5-§7):
  :func:`check_lead`, :func:`check_throw` -> :class:`ThrowResult`,
  :func:`check_follow` -> :class:`Verdict` (``.reason`` a :class:`Reason`,
  ``.message`` a sentence), :func:`legal_follows` (lazy view: ``in``,
  ``count()``, ``bool``, iteration), :func:`legal_leads`,
  :func:`trick_winner` -> :class:`TrickResult`, :func:`points`.
  Fast paths on faces and count arrays (54 ints per hand) for the verifier,
  the hand state machine and bots: :class:`Lead` (built once per trick),
  ``check_follow_counts``, ``check_lead_counts``, ``trick_winner_faces``,
  ``play_key``, ``single_unit_leads``, ``can_beat``, ``forced_unit``.
- ``shengji.hand``: :class:`Hand`, one hand as a state machine
  (``hand.apply(event)``, ``hand.undo()``; ``Hand.deal(rules, dealer=...,
  rng=...)`` a random hand at its first lead; ``hand.legal_plays()`` a lazy
  view of card ids: ``in``, ``count()``, ``bool``, each play applies), the
  events (:class:`Deal`, :class:`Bid`, :class:`EndDraw`, :class:`Bury`,
  :class:`Call`, :class:`Scan`, :class:`Play`, :class:`Challenge`,
  :class:`Reveal`), :class:`Finding` (``.rule`` a :class:`Reason`: the one
  vocabulary of why), ``hand.outcome()`` -> :class:`Outcome` with a
  :class:`Termination` (completed, redeal, forfeit) and the score
  (:class:`HandResult`).
- ``shengji.match``: :class:`Match` (levels, dealers, history:
  ``new_hand()``, ``finish(hand)``), bots' drivers ``play_hand``,
  ``iter_hand``, ``play_match``, ``deal_cards``.
- ``shengji.playout``: ``judge_hand`` (every play of a recorded hand checked
  and scored), ``deal`` and ``random_playout`` (tests, benchmarks; ``deal``
  returns a :class:`Deal` like ``deal_cards``, ``.faces()`` as faces).
- ``shengji.conformance``: ``answer`` for one conformance case
  (``tractor-table judge``).

Cards vs faces: the API takes :class:`Card` objects or, where a function says
so, faces (ints 0-53). Card ids and faces are both ints: functions taking
``Card | int`` treat ints as **faces**; a :class:`Hand` and its events speak
card ids. Count arrays (54 ints, how many of each face) come from
``shengji.cards.face_counts``.
"""

import importlib
from typing import TYPE_CHECKING, Any

from .cards import (
    BIG_JOKER,
    FACES,
    SMALL_JOKER,
    Card,
    CardCountError,
    CardNotationError,
    InvalidCardError,
    Rank,
    Suit,
    format_cards,
    format_faces,
    parse_card,
    parse_cards,
    parse_face,
    parse_faces,
)
from .order import TRUMP, Order
from .play import (
    IllegalPlayError,
    Lead,
    LegalFollows,
    Reason,
    ThrowResult,
    TrickResult,
    Verdict,
    check_follow,
    check_lead,
    check_throw,
    legal_follows,
    legal_leads,
    points,
    trick_winner,
)
from .rules import (
    PRESETS,
    FirstDealer,
    InvalidRulesError,
    KittyMultiplier,
    LevelLadder,
    LevelTable,
    NoBid,
    Partners,
    Revoke,
    Rules,
)
from .units import Decomposition, Unit, decompose

if TYPE_CHECKING:
    from .hand import (
        Bid,
        Bury,
        Call,
        Challenge,
        Deal,
        EndDraw,
        Event,
        Finding,
        Hand,
        HandError,
        HandResult,
        IllegalEvent,
        LegalPlays,
        Outcome,
        Phase,
        Play,
        Reveal,
        Scan,
        Termination,
        Trick,
    )
    from .match import Match

#: The hand and the match, exported lazily: ``shengji.hand`` and
#: ``shengji.match`` (with the bots) load on first use, so that importing
#: ``shengji`` for its cards and rules stays light (the CLI builds its parser
#: without them: tests/foundation/test_cli.py).
_LAZY = {
    "Bid": "hand",
    "Bury": "hand",
    "Call": "hand",
    "Challenge": "hand",
    "Deal": "hand",
    "EndDraw": "hand",
    "Event": "hand",
    "Finding": "hand",
    "Hand": "hand",
    "HandError": "hand",
    "HandResult": "hand",
    "IllegalEvent": "hand",
    "LegalPlays": "hand",
    "Outcome": "hand",
    "Phase": "hand",
    "Play": "hand",
    "Reveal": "hand",
    "Scan": "hand",
    "Termination": "hand",
    "Trick": "hand",
    "Match": "match",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'shengji' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    # the hand and the match (shengji.hand, shengji.match)
    "Hand",
    "Match",
    "Outcome",
    "Termination",
    "LegalPlays",
    "Phase",
    "Trick",
    "HandResult",
    "Finding",
    "HandError",
    "IllegalEvent",
    # the events of a hand
    "Event",
    "Deal",
    "Bid",
    "EndDraw",
    "Bury",
    "Call",
    "Scan",
    "Play",
    "Challenge",
    "Reveal",
    # cards, rules, play
    "BIG_JOKER",
    "FACES",
    "PRESETS",
    "SMALL_JOKER",
    "TRUMP",
    "Card",
    "Decomposition",
    "IllegalPlayError",
    "Lead",
    "LegalFollows",
    "Reason",
    "ThrowResult",
    "TrickResult",
    "Unit",
    "Verdict",
    "check_follow",
    "check_lead",
    "check_throw",
    "decompose",
    "legal_follows",
    "legal_leads",
    "points",
    "trick_winner",
    "CardCountError",
    "CardNotationError",
    "FirstDealer",
    "InvalidCardError",
    "InvalidRulesError",
    "KittyMultiplier",
    "LevelLadder",
    "LevelTable",
    "NoBid",
    "Order",
    "Partners",
    "Rank",
    "Revoke",
    "Rules",
    "Suit",
    "format_cards",
    "format_faces",
    "parse_card",
    "parse_cards",
    "parse_face",
    "parse_faces",
]
