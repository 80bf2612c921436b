"""The exponential ladder search of ``shengji.play`` before issue 12, kept as
a reference oracle for the property tests (tests/engine/test_ladder_oracle.py).

This is the pre-issue-12 code of ``_fill``, ``_canon``, ``_placements``,
``_distinct_takes``, ``_realize``, ``_ladder`` and ``_match_key``, unchanged but
for imports: it searches every placement of every led unit (exponential in the
number of led units), so it is only run on inputs it finishes quickly on.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence

from shengji.order import Order
from shengji.play import Lead, Pattern
from shengji.units import Decomposition, decompose_faces


@functools.lru_cache(maxsize=1 << 16)
def _fill(profile: tuple[int, ...], caps: tuple[int, ...]) -> int:
    """Most pair tokens placed in runs (length >= 2, consecutive positions, one
    token per position) packed into bins of sizes ``caps`` (sorted descending)."""
    if not caps:
        return 0
    n = len(profile)
    p = 0
    while p < n and profile[p] == 0:
        p += 1
    if p >= n - 1:
        return 0
    if profile[p + 1] == 0:
        return _fill(profile[p + 2 :], caps)
    prof = profile[p:]
    total = sum(caps)
    best = _fill((prof[0] - 1,) + prof[1:], caps)
    if best == total:
        return best
    longest = 1
    while longest < len(prof) and prof[longest] > 0:
        longest += 1
    for ci, c in enumerate(caps):
        if ci and caps[ci - 1] == c:
            continue
        for length in range(min(c, longest), 1, -1):
            newprof = tuple(x - 1 for x in prof[:length]) + prof[length:]
            rest = caps[:ci] + caps[ci + 1 :]
            if c - length >= 2:
                rest = tuple(sorted(rest + (c - length,), reverse=True))
            val = length + _fill(newprof, rest)
            if val > best:
                best = val
                if best == total:
                    return best
    return best




def _canon(order: Order, rem: dict[int, int]) -> tuple[tuple[int, int], ...]:
    pos = order.pos
    return tuple(sorted((pos[f], c) for f, c in rem.items() if c))


def _placements(
    order: Order, es: int, rem: dict[int, int], m: int, k: int
) -> Iterator[tuple[int, ...]]:
    """Ways to take a unit (m, k) from ``rem`` (carving wider sets allowed):
    one face per position, lowest first."""
    faces_at = order.faces_at[es]
    avail = [[f for f in fs if rem.get(f, 0) >= m] for fs in faces_at]
    for top in range(k - 1, len(faces_at)):
        lo = top - k + 1
        cols = avail[lo : top + 1]
        if all(cols):
            yield from itertools.product(*cols)


def _distinct_takes(
    order: Order, es: int, rem: dict[int, int], m: int, k: int
) -> Iterator[tuple[tuple[int, ...], dict[int, int]]]:
    """Each way of taking a unit of width ``m`` and length ``k`` out of ``rem``
    that leaves a different remainder: (the unit's faces, the remainder)."""
    seen: set[tuple[tuple[int, int], ...]] = set()
    for faces in _placements(order, es, rem, m, k):
        nxt = dict(rem)
        for f in faces:
            nxt[f] -= m
        key = _canon(order, nxt)
        if key not in seen:
            seen.add(key)
            yield faces, nxt


def _realize(order: Order, es: int, rem: dict[int, int], pattern: Pattern) -> list[dict[int, int]]:
    """Every distinct remainder after taking all sub-units of ``pattern`` from ``rem``."""
    results: dict[tuple[tuple[int, int], ...], dict[int, int]] = {}

    def rec(i: int, cur: dict[int, int]) -> None:
        if i == len(pattern):
            results.setdefault(_canon(order, cur), cur)
            return
        m, k = pattern[i]
        for _faces, nxt in _distinct_takes(order, es, cur, m, k):
            rec(i + 1, nxt)

    rec(0, rem)
    return list(results.values())


def _ladder_vector(order: Order, lead: Lead, cnt: dict[int, int]) -> tuple[int, ...]:
    """Rung reached by each led unit in turn (0 = best), each unit taking its
    best rung from what the earlier units left; among ways to take a rung,
    the one best for the later units."""
    return _ladder(order, lead, cnt, walk=False)[0]


def _ladder_taken(order: Order, lead: Lead, cnt: dict[int, int]) -> dict[int, int]:
    """The cards (face -> count) the led units take from ``cnt`` on a best path
    of :func:`_ladder_vector`: the structured core of a legal follow."""
    rest = _ladder(order, lead, cnt, walk=True)[1]
    return {f: c - rest.get(f, 0) for f, c in cnt.items() if c - rest.get(f, 0)}


def _ladder(
    order: Order, lead: Lead, cnt: dict[int, int], walk: bool
) -> tuple[tuple[int, ...], dict[int, int]]:
    es = lead.esuit
    rungs = lead.rungs
    memo: dict[tuple[int, tuple[tuple[int, int], ...]], tuple[int, ...]] = {}

    def vec(i: int, rem: dict[int, int]) -> tuple[int, ...]:
        if i == len(rungs):
            return ()
        key = (i, _canon(order, rem))
        got = memo.get(key)
        if got is not None:
            return got
        ladder = rungs[i]
        result: tuple[int, ...] | None = None
        for r, alternatives in enumerate(ladder):
            best: tuple[int, ...] | None = None
            for pattern in alternatives:
                for nxt in _realize(order, es, rem, pattern):
                    cand = vec(i + 1, nxt)
                    if best is None or cand < best:
                        best = cand
            if best is not None:
                result = (r,) + best
                break
        if result is None:
            result = (len(ladder),) + vec(i + 1, rem)
        memo[key] = result
        return result

    vector = vec(0, cnt)
    rem = cnt
    if walk:
        # follow one best path, remembering what each unit took
        for i, r in enumerate(vector):
            ladder = rungs[i]
            if r == len(ladder):
                continue
            want = vector[i + 1 :]
            found = None
            for pattern in ladder[r]:
                for nxt in _realize(order, es, rem, pattern):
                    if vec(i + 1, nxt) == want:
                        found = nxt
                        break
                if found is not None:
                    break
            assert found is not None
            rem = found
    return vector, rem




def _match_key(order: Order, d: Decomposition, play: Sequence[int]) -> int | None:
    """Strength of the strongest unit of ``play`` matched to the lead's top
    category, over all ways to cover the lead's units; ``None`` if none."""
    pos = order.pos
    units = d.units
    top_shape = units[0].shape
    if top_shape == (1, 1):
        return max(pos[f] for f in play)
    if len(units) == 1:
        pd = decompose_faces(order, play)
        if pd is None or len(pd.units) != 1 or pd.units[0].shape != top_shape:
            return None
        return pd.units[0].top
    cnt: dict[int, int] = {}
    for f in play:
        cnt[f] = cnt.get(f, 0) + 1
    es = order.esuit[play[0]]
    if d.max_width == 2 and all(u.length == 1 for u in units):
        # pairs and singles only: enough disjoint pairs, key = strongest pair
        need = sum(1 for u in units if u.width == 2)
        have = sum(c >> 1 for c in cnt.values())
        if have < need:
            return None
        return max(pos[f] for f, c in cnt.items() if c >= 2)
    shapes = [u.shape for u in units if u.shape != (1, 1)]
    memo: dict[tuple[int, tuple[tuple[int, int], ...]], int | None] = {}

    def rec(i: int, rem: dict[int, int]) -> int | None:
        if i == len(shapes):
            return -1  # the rest are singles: any cards do
        key = (i, _canon(order, rem))
        if key in memo:
            return memo[key]
        m, k = shapes[i]
        best: int | None = None
        for faces, nxt in _distinct_takes(order, es, rem, m, k):
            rest = rec(i + 1, nxt)
            if rest is None:
                continue
            val = max(rest, pos[faces[-1]]) if (m, k) == top_shape else rest
            if best is None or val > best:
                best = val
        memo[key] = best
        return best

    return rec(0, cnt)




def tractor_pairs(order: Order, es: int, cnt: Sequence[int], caps: tuple[int, ...]) -> int:
    """§6.2's t(X) by the old search (the old ``play._tractor_pairs``)."""
    prof = []
    any_adjacent = False
    prev = 0
    for fs in order.faces_at[es]:
        tok = 0
        for f in fs:
            tok += cnt[f] >> 1
        if tok and prev:
            any_adjacent = True
        prof.append(tok)
        prev = tok
    if not any_adjacent:
        return 0
    return _fill(tuple(prof), caps)
