"""The kitty bonus (抠底): docs/rules.md §8.3.

If the attackers win the last trick, the points buried in the kitty are
multiplied and added to their score. The multiplier comes from the top category
(the most demanding unit: widest, then longest) of the last trick's lead:

| ``kitty_multiplier`` | unit of width m, length k |
|---|---|
| ``structure`` (default) | 2·m^k |
| ``linear`` | 2·m·k |
| ``cards`` | 4·m·k |

With ``kitty_requires_trump`` the bonus counts only when the winning play was trump;
otherwise the multiplier is still the table's and the bonus is 0 (:func:`bonus`
returns both, docs/rules.md §8.3).
"""

from __future__ import annotations

from collections.abc import Iterable

POLICIES = ("structure", "linear", "cards")


class KittyError(ValueError):
    """A kitty question that makes no sense (an unknown policy, a bad shape)."""


def multiplier(width: int, length: int, policy: str = "structure") -> int:
    """The multiplier for a top unit of ``width`` m (1 single … 4 quad) and ``length``
    k (1 for a plain set, K for a run of K sets)."""
    if width < 1 or length < 1:
        raise KittyError(f"bad unit shape ({width}, {length})")
    if policy == "structure":
        return int(2 * width**length)
    if policy == "linear":
        return 2 * width * length
    if policy == "cards":
        return 4 * width * length
    raise KittyError(f"unknown kitty_multiplier {policy!r}: one of {', '.join(POLICIES)}")


def top_category(shapes: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """The most demanding ``(m, k)`` of a decomposition: widest first, then longest."""
    best: tuple[int, int] | None = None
    for m, k in shapes:
        if best is None or (m, k) > best:
            best = (m, k)
    if best is None:
        raise KittyError("an empty lead has no top category")
    return best


def points_of_face(face: int) -> int:
    """5 = 5, T = 10, K = 10 (faces or card ids)."""
    face %= 54
    if face >= 52:
        return 0
    rank = face % 13
    return 5 if rank == 3 else 10 if rank in (8, 11) else 0


def kitty_points(cards: Iterable[int]) -> int:
    return sum(points_of_face(c) for c in cards)


def bonus(
    kitty_cards: Iterable[int],
    lead_shapes: Iterable[tuple[int, int]],
    *,
    policy: str = "structure",
    requires_trump: bool = False,
    winner_is_trump: bool = True,
) -> tuple[int, int]:
    """``(multiplier, bonus)`` when the attackers won the last trick."""
    m, k = top_category(lead_shapes)
    mult = multiplier(m, k, policy)
    if requires_trump and not winner_is_trump:
        return mult, 0
    return mult, kitty_points(kitty_cards) * mult
