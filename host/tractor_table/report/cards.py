"""Card names and pictures for the reports: one notation for a card's copy
(``AS.1``, :func:`shengji.cards.card_id_name`), English or Chinese."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from shengji.cards import FACES, card_id_name

if TYPE_CHECKING:
    from ..events import Event

SUIT_SYMBOLS = "♠♥♦♣"
RANKS = "23456789TJQKA"
TRUMP_NAMES = {"en": ("S", "H", "D", "C", "NT"), "zh": ("黑桃", "红桃", "方块", "梅花", "无将")}
LANGS = ("en", "zh")


def name(card: int, lang: str = "en") -> str:
    return card_id_name(card, lang)


def names(cards: Iterable[int], lang: str = "en") -> str:
    return " ".join(name(c, lang) for c in cards) or "-"


def is_red(card: int) -> bool:
    f = card % FACES
    return f == 53 or 13 <= f < 39


def face_parts(card: int) -> tuple[str, str]:
    """(rank, suit symbol) for a picture: ('10', '♥'); jokers ('JOKER', '★')."""
    f = card % FACES
    if f >= 52:
        return ("JOKER", "★")
    r = RANKS[f % 13]
    return ("10" if r == "T" else r, SUIT_SYMBOLS[f // 13])


def trump_name(trump: int | None, lang: str = "en") -> str:
    if trump is None or not 0 <= trump < 5:
        return "?"
    return TRUMP_NAMES["zh" if lang == "zh" else "en"][trump]


def level_name(level: int | None) -> str:
    if level is None:
        return "?"
    return RANKS[level] if 0 <= level < 13 else str(level)


def levels_name(levels: Sequence[int | None]) -> str:
    """'2/3' per side, or with find-a-friend '2 3 2 3' per seat (S0 .. S3)."""
    return ("/" if len(levels) == 2 else " ").join(level_name(x) for x in levels)


def describe_in(ev: Event | Sequence[int], lang: str = "en") -> str:
    """An event in words (:func:`tractor_table.events.describe`), its cards named in ``lang``."""
    from ..events import as_event, cards_text, describe

    text = describe(ev)
    try:
        carried = as_event(ev).ids
    except ValueError:
        return text
    if lang != "zh" or not carried:
        return text
    return text.replace(cards_text(carried), names(carried, lang), 1)
