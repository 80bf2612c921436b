"""The one map between ``shengji``'s reasons and the table's two codes:
REJECT's reason (:class:`TableReason`) and AUDIT's and REVOKE's rules_reason
(:class:`RulesCode`)."""

from __future__ import annotations

import functools
from typing import Any

from .enums import RulesCode, TableReason


def _shengji_maps() -> tuple[dict[Any, TableReason], dict[Any, RulesCode]]:
    from shengji import play

    R = play.Reason
    # the refusals of a play or event the table has a code for (REJECT's reason)
    table: dict[Any, TableReason] = {}
    for engine, ours in (
        ("OUT_OF_TURN", TableReason.OUT_OF_TURN), ("SEEN_TWICE", TableReason.SEEN_TWICE),
        ("WRONG_COUNT", TableReason.COUNT), ("MIXED_SUITS", TableReason.MIXED_LEAD),
        ("PHASE", TableReason.WRONG_PHASE), ("NOT_IN_HAND", TableReason.NOT_HELD),
    ):
        table[_engine_reason(R, engine)] = ours
    # why a follow breaks docs/rules.md's "Following" (AUDIT's and REVOKE's rules_reason)
    rules = {
        R.NOT_IN_HAND: RulesCode.NOT_IN_HAND, R.WRONG_COUNT: RulesCode.WRONG_COUNT,
        R.MUST_FOLLOW_SUIT: RulesCode.FOLLOW_SUIT, R.MUST_PLAY_PAIRS: RulesCode.PAIRS,
        R.MUST_PLAY_TRACTOR: RulesCode.TRACTOR, R.MUST_PLAY_TRIPLES: RulesCode.TRIPLES,
        R.MUST_PLAY_TITANIC: RulesCode.TITANIC, R.MUST_PLAY_SAME_SHAPE: RulesCode.SAME_SHAPE,
    }
    return table, rules


def _engine_reason(reasons: Any, name: str) -> Any:
    # what the hand's findings carry: shengji.play.Reason (the one vocabulary)
    return reasons[name]


@functools.cache
def shengji_maps() -> tuple[dict[Any, TableReason], dict[Any, RulesCode]]:
    """The one map between ``shengji``'s reasons and the table's codes:
    (shengji's reason for refusing a play or an event -> the table's reason,
    REJECT's; a follow's ``shengji.play.Reason`` -> the device rules engine's
    code, AUDIT's and REVOKE's rules_reason). A reason missing is one the
    table has no code for. Built on first use (``shengji`` loads then)."""
    return _shengji_maps()


def table_reason(engine_reason: Any, default: int = -1) -> int:
    """The table's reason code for shengji's, or ``default``."""
    return int(shengji_maps()[0].get(engine_reason, default))


def rules_code(engine_reason: Any, default: int = -1) -> int:
    """The device rules engine's code for shengji's reason, or ``default``."""
    return int(shengji_maps()[1].get(engine_reason, default))
