"""The table's game events on the host side.

The kinds and fields are defined once, in ``firmware/events.py`` (the table
core's module, documented in ``docs/firmware.md``, "Table core"); this module
takes that very module from the host's one loader of firmware modules
(:func:`tractor_table.vocab.firmware`; the typed kinds and reasons are
:class:`tractor_table.vocab.EventKind` and :class:`~tractor_table.vocab.TableReason`),
and describes events in words for people watching.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..paths import FIRMWARE_DIR
from ..vocab import TRUMP_NAMES, RulesCode, firmware

SOURCE = FIRMWARE_DIR / "events.py"

EV: Any = firmware("events")

RANKS = "23456789TJQKA"
SUITS = "SHDC"
#: the TRUMP event's trump field in letters (firmware/display.py's)
TRUMPS = TRUMP_NAMES


def cards_of(ev: Sequence[Any]) -> list[Any]:
    """The card ids an event carries (empty when the kind carries none)."""
    k = ev[0]
    at = EV.CARDS_AT[k] if 0 < k < len(EV.CARDS_AT) else 0
    return list(ev[at:]) if at else []


def card_name(card: int) -> str:
    """The one notation of a physical card: ``AS``, ``AS.1`` for the second
    deck's (``shengji.cards.card_id_name``, as the records write it)."""
    from shengji.cards import card_id_name

    return card_id_name(card)


def face_name(face: int) -> str:
    """A called face 0..53 (CALL carries a face, not a card id)."""
    return card_name(face) if 0 <= face < 54 else f"face {face}"


def event_levels(ev: Sequence[Any]) -> list[int]:
    """The levels a HAND_START or HAND_END carries: two per side, or with
    partners = "called" four per seat (seats 2 and 3 after the fixed fields)."""
    at = 4 if ev[0] == EV.HAND_START else 6
    extra = 7 if ev[0] == EV.HAND_START else 9
    lv = [ev[at], ev[at + 1]]
    if len(ev) > extra:
        lv += [ev[extra], ev[extra + 1]]
    return lv


def levels_text(ev: Sequence[Any]) -> str:
    """'2/3' per side, or '2 3 2 3' per seat (S0 .. S3)."""
    lv = event_levels(ev)
    return ("/" if len(lv) == 2 else " ").join(RANKS[x] for x in lv)


def cards_text(cards: Sequence[int]) -> str:
    return " ".join(card_name(c) for c in cards) or "-"


def reason(code: int) -> str:
    names: tuple[str, ...] = EV.REASONS
    return names[code] if 0 <= code < len(names) else f"reason {code}"


#: The device rules engine's codes (firmware/drules.py, R_*), the rules of
#: following in docs/rules.md §6, in words.
RULE_WORDS = {
    RulesCode.EMPTY: "an empty play",
    RulesCode.NOT_IN_HAND: "a card the seat does not hold",
    RulesCode.MIXED_SUIT: "a lead of several suits",
    RulesCode.WRONG_COUNT: "a follow of the wrong number of cards",
    RulesCode.FOLLOW_SUIT: "did not follow the led suit while holding it",
    RulesCode.PAIRS: "did not play the pairs it held in the led suit",
    RulesCode.TRACTOR: "did not play the tractor it held in the led suit",
    RulesCode.TRIPLES: "did not play the triples it held in the led suit",
    RulesCode.TITANIC: "did not play the Titanic it held in the led suit",
    RulesCode.SAME_SHAPE: "did not play the led shape it held (same_shape_only)",
    RulesCode.THROW_FAILED: "a throw another seat could beat",
}


def rule_words(code: int) -> str:
    """A rules engine code (AUDIT, REVOKE) in words; an unknown one as its number."""
    try:
        return RULE_WORDS[RulesCode(code)]
    except (ValueError, KeyError):
        return f"rules code {code}"


def describe(ev: Sequence[Any]) -> str:
    """One line, in the game's terms, for an event as the table sent it."""
    k = ev[0]
    carried = cards_of(ev)
    cards = cards_text(carried) if carried else ""
    if k == EV.HAND_START:
        dealer = f"S{ev[2]}" if ev[2] >= 0 else "decided by the first bid"
        return f"hand {ev[1]}: {ev[3]} deck(s), levels {levels_text(ev)}, dealer {dealer}"
    if k == EV.CALL:
        return f"S{ev[1]} calls {face_name(ev[2])} (find-a-friend)"
    if k == EV.PARTNER:
        if ev[2] == -2:  # the host's view: the partner is not known here
            return f"trick {ev[1] + 1}: the partner is not known yet"
        who = f"S{ev[2]} is the dealer's partner" if ev[2] >= 0 else "the dealer plays alone"
        return f"trick {ev[1] + 1}: {who}; attackers {ev[3]}"
    if k == EV.BID:
        verdict = "accepted" if ev[2] else f"refused ({reason(ev[3])})"
        return f"S{ev[1]} bids {cards}: {verdict}"
    if k == EV.TRUMP:
        who = f"declared by S{ev[2]}" if ev[2] >= 0 else "nobody bid"
        return f"trump {TRUMPS[ev[1]]} ({who}), dealer S{ev[3]}"
    if k == EV.REDEAL:
        return f"hand {ev[1]}: nobody bid, redeal"
    if k == EV.KITTY:
        return f"S{ev[1]} buries {cards} ({ev[2]} points)"
    if k == EV.PLAY:
        return f"trick {ev[1] + 1}: S{ev[2]} plays {cards}"
    if k == EV.UNDO:
        if not carried:  # the host's view: the table took back a play it must not
            return f"trick {ev[1] + 1}: S{ev[2]} has no play to take back here"
        return f"trick {ev[1] + 1}: S{ev[2]} takes back {cards}; S{ev[2]} to play"
    if k == EV.REJECT:
        return f"trick {ev[1] + 1}: S{ev[2]} refused: {reason(ev[3])} {cards}".rstrip()
    if k == EV.CHALLENGE:
        verdict = "the throw fails" if ev[3] else "does not beat it"
        return f"trick {ev[1] + 1}: S{ev[2]} challenges with {cards}: {verdict}"
    if k == EV.FORCED:
        return f"trick {ev[1] + 1}: S{ev[2]} must lead {cards} (penalty {ev[3]})"
    if k == EV.TRICK:
        score = "partner unknown" if ev[4] == -1 else f"attackers {ev[4]}"
        return f"trick {ev[1] + 1}: S{ev[2]} wins {ev[3]} points; {score}"
    if k == EV.AUDIT:
        why = f": {rule_words(ev[4])}" if ev[4] else ""
        return f"audit: trick {ev[1] + 1}, S{ev[2]}: {reason(ev[3])}{why}"
    if k == EV.REVOKE:
        # the host's view of a revoke it finds unproven carries reason 0
        if len(ev) > 4 and ev[4] == 0:
            return f"trick {ev[1] + 1}: no revoke of S{ev[2]} in trick {ev[3] + 1} is proven"
        code = f" ({rule_words(ev[4])})" if len(ev) > 4 else ""
        return f"trick {ev[1] + 1}: S{ev[2]} is proven to have revoked in trick {ev[3] + 1}{code}"
    if k == EV.FORFEIT:
        if ev[2] < 0:
            return "no revoke loses the hand"
        where = f" in trick {ev[1] + 1}" if ev[1] >= 0 else ""
        return f"S{ev[2]}'s revoke{where} loses the hand for side {ev[2] & 1}"
    if k == EV.KITTY_UP:
        if ev[1] < 0:  # the host's view: the rules want no reveal here
            return f"the kitty is not to be turned up here (a bid stands, the match's first hand, or no_bid is not kitty): {cards or '-'}"
        if not carried:  # the host's view: the table named trump without the reveal
            return f"nobody bid: S{ev[1]} must turn the kitty up before trump is named"
        return f"nobody bid: S{ev[1]} turns the kitty up: {cards} (the first card names trump)"
    if k == EV.HAND_END:
        if len(ev) > 9:  # partners = "called": levels per seat, the winners a bit mask
            won = " ".join(f"S{s}" for s in range(4) if ev[8] >= 0 and ev[8] >> s & 1)
            winner = f"; {won} win the match" if won else ""
        else:
            winner = "" if ev[8] < 0 else f"; side {ev[8]} wins the match"
        return (
            f"hand over: attackers {ev[1]} (kitty {ev[2]} x{ev[3]} = {ev[4]}); "
            f"levels {levels_text(ev)}, next dealer S{ev[5]}{winner}"
        )
    return f"event {list(ev)!r}"
