"""shengji: the full rules engine of Tractor (拖拉机 / 升级 / 80 points).

``RULES.md`` (the project's normative rules) is implemented here for 1-4 decks
and every option. The API follows python-chess: small value objects, notation
that round-trips, ``repr`` that pastes back as code, precise ``ValueError``
subclasses.

Overview (module: main names)
-----------------------------
- ``shengji.cards``: :class:`Card` (one physical card; ``id = copy*54 + face``),
  :class:`Suit`, :class:`Rank`, faces as ints (``face = suit*13 + rank``,
  ``SMALL_JOKER`` = 52, ``BIG_JOKER`` = 53), :func:`parse_cards`,
  :func:`parse_faces`, :func:`format_cards`, errors :class:`InvalidCardError`
  (:class:`CardNotationError`, :class:`CardCountError`).
- ``shengji.rules``: :class:`Rules` (every option of RULES.md, immutable,
  validated; ``Rules.preset("tournament")``, ``Rules.from_dict({...})``,
  ``rules.replace(...)``), option enums, :class:`InvalidRulesError`.
- ``shengji.order``: :class:`Order` — the per-hand context: ``Order(rules,
  level, trump)`` with ``trump`` a :class:`Suit` or ``None`` for NT. Effective
  suits (``TRUMP`` = 4), positions, ``compare``.
- ``shengji.units``: :class:`Unit` (set or run: width ``m``, length ``k``,
  strength ``top``), :func:`decompose` (RULES.md §4 canonical decomposition).
- ``shengji.play``: leading, throwing, following and tricks (RULES.md §5-7):
  :func:`check_lead`, :func:`check_throw` -> :class:`ThrowResult`,
  :func:`check_follow` -> :class:`Verdict` (``.reason`` a :class:`Reason`,
  ``.message`` a sentence), :func:`legal_follows` (lazy view: ``in``,
  ``count()``, ``bool``, iteration), :func:`legal_leads`,
  :func:`trick_winner` -> :class:`TrickResult`, :func:`points`.
  Fast paths on faces and count arrays (54 ints per hand) for the verifier,
  the hand state machine and bots: :class:`Lead` (built once per trick),
  ``check_follow_counts``, ``check_lead_counts``, ``trick_winner_faces``,
  ``play_key``, ``single_unit_leads``, ``can_beat``, ``forced_unit``.
- ``shengji.playout``: ``judge_hand`` (every play of a recorded hand checked
  and scored), ``deal`` and ``random_playout`` (tests, benchmarks).
- ``shengji.conformance``: ``answer`` for one conformance case
  (``tractor-table judge``).

Cards vs faces: the API takes :class:`Card` objects or, where a function says
so, faces (ints 0-53). Card ids and faces are both ints: functions taking
``Card | int`` treat ints as **faces**.
"""

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
