"""Units (sets and runs) and the canonical decomposition of a play.

docs/rules.md §3-§4. A **set** of width ``m`` is ``m`` cards of one face; a **run**
of width ``m`` and length ``k >= 2`` is ``k`` sets of width ``m`` at ``k``
consecutive positions of one effective suit (a tractor for ``m = 2``, a
Titanic for ``m = 3``, a run of quads for ``m = 4``). A unit's shape is
``(m, k)``; its strength (``top``) is the position of its highest set.

:func:`decompose` splits a one-suit play canonically: widest units first, then
longest, then strongest; what is left are singles.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Final

from .cards import Card, format_faces
from .order import SUIT_NAMES, Order

__all__ = ["Decomposition", "Unit", "decompose", "decompose_faces", "shape_code", "single"]

_SET_CODES: Final = {1: "s", 2: "p", 3: "3", 4: "4"}
_RUN_CODES: Final = {2: "t", 3: "T", 4: "Q"}


def shape_code(width: int, length: int) -> str:
    """The conformance notation of a shape: ``s p 3 4`` for sets, ``tK TK QK`` for runs."""
    if length == 1:
        return _SET_CODES[width]
    return f"{_RUN_CODES[width]}{length}"


@dataclasses.dataclass(frozen=True, slots=True)
class Unit:
    """A set (``length == 1``) or a run, within one effective suit.

    ``faces`` holds one face per position, lowest first; the unit's cards are
    each of them ``width`` times (:attr:`cards`).
    """

    width: int
    length: int
    top: int
    esuit: int
    faces: tuple[int, ...]

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, k)``: width and length."""
        return (self.width, self.length)

    @property
    def code(self) -> str:
        """``s``, ``p``, ``3``, ``4``, ``t2``, ``T3``, ``Q2``…"""
        return shape_code(self.width, self.length)

    @property
    def size(self) -> int:
        """Number of cards."""
        return self.width * self.length

    @property
    def cards(self) -> list[int]:
        """The unit's faces with multiplicity (``5H 5H 6H 6H`` for a tractor)."""
        return [f for f in self.faces for _ in range(self.width)]

    def __str__(self) -> str:
        return format_faces(self.cards)


@dataclasses.dataclass(frozen=True, slots=True)
class Decomposition:
    """A one-suit play split into units, most demanding first (width, then length, then strength)."""

    esuit: int
    units: tuple[Unit, ...]

    @property
    def suit_name(self) -> str:
        """``S``, ``H``, ``D``, ``C`` or ``trump``."""
        return SUIT_NAMES[self.esuit]

    @property
    def codes(self) -> list[str]:
        """Shape codes, most demanding first: ``["t2", "p", "s"]``."""
        return [u.code for u in self.units]

    @property
    def size(self) -> int:
        return sum(u.size for u in self.units)

    @property
    def top_shape(self) -> tuple[int, int]:
        """The most demanding shape (the top category, docs/rules.md §7)."""
        return self.units[0].shape

    @property
    def is_throw(self) -> bool:
        """More than one unit (甩牌)."""
        return len(self.units) > 1

    @property
    def pairs(self) -> int:
        """Pairs in the play, counting those inside tractors (width-2 units only)."""
        return sum(u.length for u in self.units if u.width == 2)

    @property
    def max_width(self) -> int:
        return self.units[0].width


#: (face, position, effective suit) -> the decomposition of that one card:
#: leads of one card are most tricks' leads, and the (frozen, compared by
#: value) objects can be shared; at most 54 x 18 x 5 of them
_SINGLES: dict[tuple[int, int, int], Decomposition] = {}


def single(face: int, top: int, esuit: int) -> Decomposition:
    """The decomposition of one card: one single (shared, made once)."""
    key = (face, top, esuit)
    d = _SINGLES.get(key)
    if d is None:
        d = _SINGLES[key] = Decomposition(esuit, (Unit(1, 1, top, esuit, (face,)),))
    return d


def decompose(order: Order, cards: Iterable[Card | int]) -> Decomposition | None:
    """The canonical decomposition of a play, or ``None`` if its cards span
    several effective suits (ints are faces). An empty play gives ``None`` too."""
    return decompose_faces(order, [c if isinstance(c, int) else c.face for c in cards])


def decompose_faces(order: Order, faces: Sequence[int]) -> Decomposition | None:
    """:func:`decompose` on faces."""
    n = len(faces)
    if n == 0:
        return None
    esuit_of = order.esuit
    es = esuit_of[faces[0]]
    pos = order.pos
    if n == 1:
        f = faces[0]
        return single(f, pos[f], es)
    counts: dict[int, int] = {}
    for f in faces:
        if esuit_of[f] != es:
            return None
        counts[f] = counts.get(f, 0) + 1
    units: list[Unit] = []
    widths = sorted(set(counts.values()), reverse=True)
    for m in widths:
        members = [f for f, c in counts.items() if c == m]
        if m == 1:
            for f in members:
                units.append(Unit(1, 1, pos[f], es, (f,)))
            continue
        units.extend(_runs(order, es, m, members))
    units.sort(key=_unit_key)
    return Decomposition(es, tuple(units))


def _unit_key(u: Unit) -> tuple[int, int, int]:
    return (-u.width, -u.length, -u.top)


def _runs(order: Order, es: int, m: int, members: list[int]) -> list[Unit]:
    """Group the sets of width ``m`` (faces ``members``) into runs: longest
    first, then strongest; a lone set is a unit of length 1."""
    pos = order.pos
    by_pos: dict[int, list[int]] = {}
    for f in members:
        by_pos.setdefault(pos[f], []).append(f)
    out: list[Unit] = []
    while by_pos:
        # maximal segments of occupied positions
        best_lo = best_hi = -1
        for p in by_pos:
            if p - 1 in by_pos:
                continue
            hi = p
            while hi + 1 in by_pos:
                hi += 1
            if best_lo < 0 or (hi - p, hi) > (best_hi - best_lo, best_hi):
                best_lo, best_hi = p, hi
        faces = []
        for p in range(best_lo, best_hi + 1):
            stack = by_pos[p]
            faces.append(stack.pop())
            if not stack:
                del by_pos[p]
        out.append(Unit(m, best_hi - best_lo + 1, best_hi, es, tuple(faces)))
    return out
