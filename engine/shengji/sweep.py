"""A sweep over one effective suit's positions: can these sub-units all be
cut, disjointly, out of a holding? (docs/rules.md §3, §6.2-§6.3, §7; the bound is in
docs/engine-bounds.md.)

The rules engine asks a few kinds of question about a holding (the cards of
one effective suit, as counts per face) and a *demand*: a multiset of fixed
sub-units ``(m, k)`` (``k`` sets of width ``m`` at consecutive positions, each
set cut from one face holding at least ``m`` copies, so wider sets and longer
runs may be cut) and of *tractor requirements* (``t`` pairs lying in runs of
pairs of length >= 2, in any partition of ``t``):

* **spare pairs** (``spare=True``) — the most pairs that can still be cut from
  what a placement of the demand leaves, searched only until as many as are
  wanted are found (:meth:`Sweep.spare_at_least`): the feasibility question,
  with the demand's single pairs left out of the state;
* **most pairs in runs** — with "at most ``t``" requirements, the most pairs
  they can take (§6.2's ``t(X)``, each led tractor a bin);
* **best top** (``top_shape``) — the strongest top of a sub-unit of one shape
  over all placements of the demand (§7's key).

All are one dynamic programme over the positions, lowest first. A sub-unit
occupies an interval of positions, so the only thing that crosses from
position ``p`` to ``p + 1`` is the set of **open runs** (those that started
before ``p + 1`` and go on) and the **demand still unplaced**. The state is

    (p, remaining fixed demand, open fixed runs, tractor requirements)

and at each position the sets placed there (open runs going on, new
sub-units starting) must fit into that position's faces, each set inside
one face (:func:`fits`: a tiny bin packing, at most 4 faces of at most 4
copies). Which faces a position's sets used does not matter to later
positions, so faces never enter the state.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Final

from .order import Order

__all__ = ["NEG", "VISITED", "Demand", "Flex", "Sweep", "demand_of", "fits", "pack", "spare_pairs"]

#: States visited by every sweep so far (for measuring the work; never reset here).
VISITED: Final = [0]

#: "No placement": the value of an infeasible state.
NEG: Final = -(1 << 30)

#: Fixed demand: ((m, k), count) pairs, sorted, counts > 0.
Demand = tuple[tuple[tuple[int, int], int], ...]
#: A flexible tractor requirement: (budget, exact, open runs of length 1,
#: open runs of length >= 2). ``exact``: the budget must be used up (a ladder
#: rung); else "at most" (a bin of §6.2's t-search).
Flex = tuple[int, bool, int, int]
#: An open fixed run: (width, positions still to come, counting this one,
#: counts towards the objective).
Open = tuple[int, int, bool]

_State = tuple[int, Demand, tuple[Open, ...], tuple[Flex, ...]]


@functools.lru_cache(maxsize=1 << 14)
def fits(bins: tuple[int, ...], widths: tuple[int, ...]) -> bool:
    """Can sets of ``widths`` (sorted descending) each be cut from one face of
    ``bins`` (copies per face, sorted descending), disjointly?"""
    if not widths:
        return True
    if sum(widths) > sum(bins) or widths[0] > bins[0]:
        return False
    w = widths[0]
    rest = widths[1:]
    tried = set()
    for i, b in enumerate(bins):
        if b < w or b in tried:
            continue
        tried.add(b)
        nb = tuple(sorted(bins[:i] + (b - w,) + bins[i + 1 :], reverse=True))
        if fits(nb, rest):
            return True
    return False


@functools.lru_cache(maxsize=1 << 14)
def spare_pairs(bins: tuple[int, ...], widths: tuple[int, ...]) -> int:
    """The most pairs left in ``bins`` (sorted descending) after cutting sets of
    ``widths`` (sorted descending) from them, each from one face; -1 if they do
    not fit."""
    if not widths:
        return sum(b >> 1 for b in bins)
    w = widths[0]
    best = -1
    tried = set()
    for i, b in enumerate(bins):
        if b < w or b in tried:
            continue
        tried.add(b)
        nb = tuple(sorted(bins[:i] + (b - w,) + bins[i + 1 :], reverse=True))
        got = spare_pairs(nb, widths[1:])
        if got > best:
            best = got
    return best


def pack(faces: Sequence[tuple[int, int]], widths: Sequence[int]) -> Iterator[dict[int, int]]:
    """Every distinct way (face -> copies used) to cut sets of ``widths`` from
    ``faces`` ((face, copies) pairs), each set from one face."""
    ws = sorted(widths, reverse=True)
    seen: set[tuple[tuple[int, int], ...]] = set()
    left = {f: c for f, c in faces}
    used: dict[int, int] = {}

    def rec(i: int) -> Iterator[dict[int, int]]:
        if i == len(ws):
            key = tuple(sorted((f, c) for f, c in used.items() if c))
            if key not in seen:
                seen.add(key)
                yield dict(key)
            return
        w = ws[i]
        for f, _c in faces:
            if left[f] >= w:
                left[f] -= w
                used[f] = used.get(f, 0) + w
                yield from rec(i + 1)
                used[f] -= w
                left[f] += w

    yield from rec(0)


class Sweep:
    """The holding of one effective suit (``cnt``: face -> copies), ready for
    the sweep. The value of a demand is: with ``top_shape``, the highest top of
    a sub-unit of that shape (or -1); with ``spare``, the most pairs that can
    be cut from what a placement leaves (so single pairs need not be in the
    demand: ``d`` more pairs fit iff the value is at least ``d``); else the
    pairs placed in "at most" requirements. The memo is kept for the life of
    the object, so several questions about one holding share their work."""

    __slots__ = (
        "npos",
        "faces",
        "bins",
        "suffix_cards",
        "suffix_sets",
        "suffix_wide",
        "suffix_quads",
        "runs_from",
        "longest_from",
        "top_shape",
        "spare",
        "skip",
        "memo",
        "capped",
        "states",
    )

    def __init__(
        self,
        order: Order,
        es: int,
        cnt: Mapping[int, int],
        top_shape: tuple[int, int] | None = None,
        spare: bool = False,
    ) -> None:
        faces: list[tuple[tuple[int, int], ...]] = []
        get = cnt.get
        for fs in order.faces_at[es]:
            if len(fs) == 1:  # most positions: one face
                c = get(fs[0], 0)
                faces.append(((fs[0], c),) if c >= 2 else ())
            else:
                faces.append(tuple((f, get(f, 0)) for f in fs if get(f, 0) >= 2))
        self._prepare(faces, top_shape)
        self.spare = spare

    @classmethod
    def of_profile(cls, profile: Sequence[int]) -> Sweep:
        """A holding of pairs only: ``profile[p]`` pair tokens at position ``p``
        (each token a face of 2 copies)."""
        self = cls.__new__(cls)
        self._prepare([tuple((-1 - i, 2) for i in range(t)) for t in profile], None)
        self.spare = False
        return self

    def _prepare(
        self, faces: list[tuple[tuple[int, int], ...]], top_shape: tuple[int, int] | None
    ) -> None:
        self.faces = faces
        self.bins = [
            (row[0][1],) if len(row) == 1 else tuple(sorted((c for _f, c in row), reverse=True))
            for row in faces
        ]
        n = self.npos = len(faces)
        # what the positions from p on hold, for the quick necessary conditions
        self.suffix_cards = [0] * (n + 1)
        self.suffix_sets = [0] * (n + 1)
        self.suffix_wide = [0] * (n + 1)
        self.suffix_quads = [0] * (n + 1)
        # runs_from[m][p]: consecutive positions from p holding a face >= m;
        # longest_from[m][p]: the longest such stretch at or after p
        self.runs_from = [[0] * (n + 1) for _m in range(5)]
        self.longest_from = [[0] * (n + 1) for _m in range(5)]
        s_cards, s_sets, s_wide, s_quads = (
            self.suffix_cards, self.suffix_sets, self.suffix_wide, self.suffix_quads
        )
        runs_from, longest_from = self.runs_from, self.longest_from
        for p in range(n - 1, -1, -1):
            b = self.bins[p]
            cards = sets = wide = quads = 0
            for c in b:
                cards += c
                sets += c >> 1
                if c >= 3:
                    wide += 1
                    if c >= 4:
                        quads += 1
            s_cards[p] = s_cards[p + 1] + cards
            s_sets[p] = s_sets[p + 1] + sets
            s_wide[p] = s_wide[p + 1] + wide
            s_quads[p] = s_quads[p + 1] + quads
            top = b[0] if b else 0
            for m in (2, 3, 4):
                rf = runs_from[m]
                r = rf[p + 1] + 1 if top >= m else 0
                rf[p] = r
                lf = longest_from[m]
                lf[p] = r if r > lf[p + 1] else lf[p + 1]
        self.top_shape = top_shape
        self.skip = _skips(self.bins)
        self.memo: dict[_State, int] = {}
        self.capped: dict[_State, tuple[int, bool]] = {}
        self.states = 0

    # --- the questions ------------------------------------------------------

    def value(self, fixed: Demand, flex: Sequence[Flex] = ()) -> int:
        """The best value over placements of the demand, or :data:`NEG`."""
        return self._best(0, fixed, (), _canon_flex(flex))

    def spare_at_least(self, fixed: Demand, flex: Sequence[Flex], want: int) -> int:
        """With ``spare``: ``min(value, want)``, or :data:`NEG` (the search stops
        as soon as ``want`` spare pairs are found)."""
        return self._capped((0, fixed, (), _canon_flex(flex)), want)

    def _capped(self, state: _State, want: int) -> int:
        got = self.capped.get(state)
        if got is not None:
            val, exact = got
            if exact or val >= want:
                return val if val < want else want
        self.states += 1
        VISITED[0] += 1
        p, fixed, opened, flex = state
        most = self._possible(p, fixed, opened, flex)
        if most < 0:
            self.capped[state] = (NEG, True)
            return NEG
        if p == self.npos:
            self.capped[state] = (0, True)
            return 0
        asked = want
        if most < want:
            # no placement leaves more than ``most`` pairs: search for those only
            want = most
        best = NEG
        capped = self.capped
        for _widths, gain, nxt in self._moves(state):
            need = want - gain
            if need < 0:
                need = 0
            got = capped.get(nxt)  # the memo looked at here: a call saved
            if got is not None and (got[1] or got[0] >= need):
                rest = got[0] if got[0] < need else need
            else:
                rest = self._capped(nxt, need)
            if rest == NEG:
                continue
            val = gain + rest
            if val > best:
                best = val
                if best >= want:
                    break
        # below want, every move was searched: the value is exact (and it is
        # when it reaches the most there can be)
        self.capped[state] = (best, best < want or best >= most)
        return best if best < asked else asked

    def feasible(self, fixed: Demand, flex: Sequence[Flex] = ()) -> bool:
        return self.value(fixed, flex) != NEG

    def placements(self, fixed: Demand, flex: Sequence[Flex] = ()) -> Iterator[dict[int, int]]:
        """The distinct sets of cards (face -> copies) that an optimal placement
        of the demand takes, each once; the first comes after one pass."""
        start: _State = (0, fixed, (), _canon_flex(flex))
        if self._best(*start) == NEG:
            return
        seen: set[tuple[tuple[int, int], ...]] = set()
        for taken in self._walk(start, {}):
            key = tuple(sorted(taken.items()))
            if key not in seen:
                seen.add(key)
                yield dict(key)

    def spare_placements(
        self, fixed: Demand, flex: Sequence[Flex], pairs: int
    ) -> Iterator[dict[int, int]]:
        """With ``spare``: the distinct sets of cards (face -> copies) that a
        placement of the demand and of ``pairs`` more pairs takes, each once.

        A walk over the positions whose branches are the distinct sets of cards
        taken at a position; a branch carries every sweep state (with the pairs
        still to place) that the cards taken so far can lead to, and is taken
        only when one of them can still be completed. So each leaf is a new
        set of cards, and each branch ends in one."""
        start: _State = (0, fixed, (), _canon_flex(flex))
        if self._capped(start, pairs) < pairs:
            return
        yield from self._walk_sets(0, {(start, pairs)}, {})

    def _walk_sets(
        self, p: int, states: set[tuple[_State, int]], taken: dict[int, int]
    ) -> Iterator[dict[int, int]]:
        if p >= self.npos:
            yield {f: c for f, c in taken.items() if c}
            return
        branches: dict[tuple[tuple[int, int], ...], set[tuple[_State, int]]] = {}
        nxt_p = p
        for state, want in states:
            for widths, _gain, nxt in self._moves(state):
                nxt_p = nxt[0]
                if not self.bins[p]:
                    if self._capped(nxt, want) >= want:
                        branches.setdefault((), set()).add((nxt, want))
                    continue
                room = spare_pairs(self.bins[p], tuple(sorted(widths, reverse=True)))
                for z in range(min(room, want), -1, -1):
                    need = want - z
                    if self._capped(nxt, need) < need:
                        continue
                    for use in pack(self.faces[p], [*widths, *([2] * z)]):
                        key = tuple(sorted(use.items()))
                        branches.setdefault(key, set()).add((nxt, need))
        for key in sorted(branches, key=lambda k: sum(c for _f, c in k)):
            for f, c in key:
                taken[f] = taken.get(f, 0) + c
            yield from self._walk_sets(nxt_p, branches[key], taken)
            for f, c in key:
                taken[f] -= c

    def _walk(self, state: _State, taken: dict[int, int]) -> Iterator[dict[int, int]]:
        p = state[0]
        if p == self.npos:
            yield {f: c for f, c in taken.items() if c}
            return
        want = self._best(*state)
        for widths, gain, nxt in self._moves(state):
            rest = self._best(*nxt)
            if rest == NEG or self._combine(gain, rest) != want:
                continue
            for use in pack(self.faces[p], widths):
                for f, c in use.items():
                    taken[f] = taken.get(f, 0) + c
                yield from self._walk(nxt, taken)
                for f, c in use.items():
                    taken[f] -= c

    # --- the programme --------------------------------------------------------

    def _combine(self, gain: int, rest: int) -> int:
        if self.top_shape is None:
            return gain + rest
        return gain if gain > rest else rest

    def _best(self, p: int, fixed: Demand, opened: tuple[Open, ...], flex: tuple[Flex, ...]) -> int:
        key = (p, fixed, opened, flex)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.states += 1
        VISITED[0] += 1
        if self._possible(p, fixed, opened, flex) < 0:
            self.memo[key] = NEG
            return NEG
        if p == self.npos:
            val = 0 if self.top_shape is None else -1
            self.memo[key] = val
            return val
        best = NEG
        if self.spare:
            bound = self.suffix_sets[p]
        elif self.top_shape is None:
            bound = 0
            for b, exact, _n1, _n2 in flex:
                if not exact:
                    bound += b
        else:
            bound = self.npos - 1
        for _widths, gain, nxt in self._moves(key):
            rest = self._best(*nxt)
            if rest == NEG:
                continue
            val = self._combine(gain, rest)
            if val > best:
                best = val
                if best >= bound:
                    break
        self.memo[key] = best
        return best

    def _possible(
        self, p: int, fixed: Demand, opened: tuple[Open, ...], flex: tuple[Flex, ...]
    ) -> int:
        """Quick necessary conditions: room, sets and cards enough for what is
        left (-1 when they fail); else an upper bound on the pairs a placement
        can leave (each set placed takes at least one of a face's pairs)."""
        agg = _AGG.get(fixed)
        if agg is None:
            agg = _aggregate(fixed)
        cards, sets, wide, quads, long2, long3, long4 = agg
        longest = self.longest_from
        if long2 > longest[2][p] or long3 > longest[3][p] or long4 > longest[4][p]:
            return -1
        runs_from = self.runs_from
        for m, r, _top in opened:
            if r > runs_from[m][p]:
                return -1
            cards += m * r
            sets += r
            if m >= 3:
                wide += r
                if m == 4:
                    quads += r
        for b, exact, n1, n2 in flex:
            if n1 and runs_from[2][p] == 0:
                return -1
            if exact:
                if b and not n1 and not n2 and b < 2:
                    return -1
                cards += 2 * b
                sets += b
            else:
                cards += 2 * n1
                sets += n1
        free_sets = self.suffix_sets[p] - sets
        free_cards = self.suffix_cards[p] - cards
        if free_sets < 0 or free_cards < 0 or wide > self.suffix_wide[p] or quads > self.suffix_quads[p]:
            return -1
        free_cards >>= 1
        return free_sets if free_sets < free_cards else free_cards

    def _moves(self, state: _State) -> Iterable[tuple[list[int], int, _State]]:
        """Every way to fill position ``p``: (widths placed there, gain, next
        state); more sets first (a placement is found sooner)."""
        p, fixed, opened, flex = state
        bins = self.bins[p]
        top_shape = self.top_shape
        widths: list[int] = []
        top_gain = -1
        nopen: list[Open] = []
        for m, r, top in opened:
            widths.append(m)
            if r > 1:
                nopen.append((m, r - 1, top))
            elif top:
                top_gain = p
        n1_all = 0
        for _b, _exact, n1, _n2 in flex:
            n1_all += n1
        if not bins:
            # nothing can be placed here: open runs of pairs stop
            if widths or n1_all:
                return []
            nflex = _canon_flex([(b, exact, 0, 0) for b, exact, _n1, _n2 in flex])
            # jump to the next position that holds a set
            return [([], -1 if top_shape is not None else 0, (self.skip[p], fixed, (), nflex))]
        if n1_all:
            widths.extend([2] * n1_all)
        room_after = self.npos - p - 1
        if len(bins) == 1:
            # one face (most positions): what the open runs leave of it
            cap = bins[0] - sum(widths)
            if cap < 0:
                return []
            return self._moves_one_face(state, cap, nopen, top_gain, room_after)

        def room(ws: list[int]) -> bool:
            return fits(bins, tuple(sorted(ws, reverse=True)))

        if not room(widths):
            return []
        spare = self.spare
        out: list[tuple[list[int], int, _State]] = []
        fixed_list = fixed
        flex_list = flex
        nfixed = len(fixed_list)
        nflexr = len(flex_list)

        def choose_flex(j: int, ws: list[int], acc: list[Flex], gain: int,
                        left: list[tuple[tuple[int, int], int]], op: list[Open], tg: int) -> None:
            if j == nflexr:
                if top_shape is not None:
                    g = tg
                elif spare:
                    g = spare_pairs(bins, tuple(sorted(ws, reverse=True)))
                else:
                    g = gain
                out.append((ws, g, (p + 1, tuple(left), tuple(sorted(op)), _canon_flex(acc))))
                return
            b, exact, n1, n2 = flex_list[j]
            rest = b - n1  # budget after the runs that must go on
            for x in range(min(n2, rest), -1, -1):
                ws_x = ws + [2] * x if x else ws
                if x and not room(ws_x):
                    continue
                bx = rest - x
                smax = bx // 2 if room_after > 0 else 0
                for s_ in range(smax, -1, -1):
                    ws_s = ws_x + [2] * s_ if s_ else ws_x
                    if s_ and not room(ws_s):
                        continue
                    g = 0 if exact else n1 + x + s_
                    choose_flex(j + 1, ws_s, acc + [(bx - s_, exact, s_, n1 + x)], gain + g,
                                left, op, tg)

        def choose_fixed(i: int, ws: list[int], left: list[tuple[tuple[int, int], int]],
                         op: list[Open], tg: int) -> None:
            if i == nfixed:
                choose_flex(0, ws, [], 0, left, op, tg)
                return
            (m, k), c = fixed_list[i]
            is_top = top_shape == (m, k)
            ymax = c if k - 1 <= room_after else 0
            while ymax and not room(ws + [m] * ymax):
                ymax -= 1
            for y in range(ymax, -1, -1):
                nleft = left + [((m, k), c - y)] if c - y else left
                if y == 0:
                    choose_fixed(i + 1, ws, nleft, op, tg)
                elif k > 1:
                    choose_fixed(i + 1, ws + [m] * y, nleft, op + [(m, k - 1, is_top)] * y, tg)
                else:
                    choose_fixed(i + 1, ws + [m] * y, nleft, op, p if is_top else tg)

        choose_fixed(0, widths, [], nopen, top_gain)
        return out


    def _moves_one_face(
        self, state: _State, cap: int, nopen: list[Open], top_gain: int, room_after: int
    ) -> Iterator[tuple[list[int], int, _State]]:
        """:meth:`_moves` at a position holding one face: ``cap`` copies are
        left once the open runs have gone on, so at most two more sets."""
        p, fixed, _opened, flex = state
        top_shape = self.top_shape
        # the sets that may be added here: (kind, index, width); kind 0 starts
        # a fixed sub-unit, 1 goes on with a long run of a requirement, 2
        # starts a run of a requirement
        items: list[tuple[int, int, int]] = []
        if cap >= 2:
            for i, ((m, k), _c) in enumerate(fixed):
                if m <= cap and k - 1 <= room_after:
                    items.append((0, i, m))
            for j, (b, _exact, n1, n2) in enumerate(flex):
                rest = b - n1
                if n2 and rest >= 1:
                    items.append((1, j, 2))
                if room_after > 0 and rest >= 2:
                    items.append((2, j, 2))
        combos = _combos(tuple(w for _k, _i, w in items), cap)
        spare = self.spare
        used_base = self.bins[p][0] - cap  # copies the open runs take
        # what every move shares: the flex requirements untouched, the open runs
        base_flex: list[Flex] = []
        base_gain = 0
        for b, exact, n1, _n2 in flex:
            base_flex.append((b - n1, exact, 0, n1))
            if not exact:
                base_gain += n1
        base_canon = _canon_flex(base_flex)
        base_open = tuple(sorted(nopen))
        nxt_p = p + 1
        for combo in combos:
            # the same moves as taking each item's set in turn: at most two
            width = 0
            left: tuple[tuple[tuple[int, int], int], ...] = fixed
            op: list[Open] | None = None
            tg = top_gain
            nflex: list[Flex] | None = None
            gain = base_gain
            ok = True
            for pos_in, a in enumerate(combo):
                kind, idx, w = items[a]
                width += w
                if kind == 0:
                    if pos_in == 1 and combo[0] == a:
                        continue  # the same sub-unit twice: done with the first
                    y = 2 if len(combo) == 2 and combo[0] == combo[1] else 1
                    (m, k), c = fixed[idx]
                    if y > c:
                        ok = False
                        break
                    left = (
                        (*fixed[:idx], ((m, k), c - y), *fixed[idx + 1 :])
                        if c - y
                        else (*fixed[:idx], *fixed[idx + 1 :])
                    ) if left is fixed else _take(left, (m, k), y)
                    if k > 1:
                        if op is None:
                            op = list(nopen)
                        op.extend([(m, k - 1, top_shape == (m, k))] * y)
                    elif top_shape == (m, k):
                        tg = p
                else:
                    if pos_in == 1 and combo[0] == a:
                        continue
                    if nflex is None:
                        nflex = list(base_flex)
                    twice = len(combo) == 2 and combo[0] == combo[1]
                    b, exact, n1, n2 = flex[idx]
                    x, st = nflex[idx][3] - n1, nflex[idx][2]
                    if kind == 1:
                        x += 2 if twice else 1
                    else:
                        st += 2 if twice else 1
                    rest = b - n1
                    if x > n2 or x + 2 * st > rest:
                        ok = False
                        break
                    nflex[idx] = (rest - x - st, exact, st, n1 + x)
            if not ok:
                continue
            if nflex is not None:
                gain = 0
                for _b, exact, n1, n2 in nflex:
                    if not exact:
                        gain += n1 + n2
                # an "at most" requirement gains its open runs: n1 + x + st
                # of before, the new (n1, n2) fields' sum
            if top_shape is not None:
                g = tg
            elif spare:
                g = (cap - width) >> 1
            else:
                g = gain
            # one face: what matters to a walk is how many copies it gives
            ws = [used_base + width] if used_base + width else []
            yield (
                ws,
                g,
                (
                    nxt_p,
                    left,
                    base_open if op is None else tuple(sorted(op)),
                    base_canon if nflex is None else _canon_flex(nflex),
                ),
            )


@functools.lru_cache(maxsize=1 << 12)
def _combos(widths: tuple[int, ...], cap: int) -> tuple[tuple[int, ...], ...]:
    """The sets that may go together on one face of ``cap`` copies, as indexes
    into ``widths``: two (an item may be taken twice), then one, then none."""
    n = len(widths)
    out: list[tuple[int, ...]] = []
    for a in range(n):
        for b in range(a, n):
            if widths[a] + widths[b] <= cap:
                out.append((a, b))
    out.extend((a,) for a in range(n))
    out.append(())
    return tuple(out)


def _take(
    left: tuple[tuple[tuple[int, int], int], ...], shape: tuple[int, int], y: int
) -> tuple[tuple[tuple[int, int], int], ...]:
    """``left`` with ``y`` fewer sub-units of ``shape``."""
    out = []
    for s_, c in left:
        if s_ == shape:
            c -= y
        if c:
            out.append((s_, c))
    return tuple(out)


def _skips(bins: Sequence[tuple[int, ...]]) -> list[int]:
    """For each empty position, the next position that holds a set (or the end)."""
    n = len(bins)
    out = [n] * n
    nxt = n
    for p in range(n - 1, -1, -1):
        out[p] = nxt
        if bins[p]:
            nxt = p
    return out


_AGG: dict[Demand, tuple[int, int, int, int, int, int, int]] = {}


def _aggregate(fixed: Demand) -> tuple[int, int, int, int, int, int, int]:
    """(cards, sets, sets of width >= 3, quads, longest run of width >= 2, >= 3,
    >= 4) of a fixed demand (cached)."""
    cards = sets = wide = quads = 0
    longest = [0, 0, 0, 0, 0]
    for (m, k), c in fixed:
        cards += m * k * c
        sets += k * c
        if k > longest[m]:
            longest[m] = k
        if m >= 3:
            wide += k * c
            if m == 4:
                quads += k * c
    if len(_AGG) > 1 << 16:
        _AGG.clear()
    got = (cards, sets, wide, quads, max(longest[2:]), max(longest[3:]), longest[4])
    _AGG[fixed] = got
    return got


def _canon_flex(flex: Sequence[Flex]) -> tuple[Flex, ...]:
    """Requirements in a canonical order, without spent ones."""
    if not flex:
        return ()
    out = []
    for b, exact, n1, n2 in flex:
        if n1 == 0 and n2 == 0 and (b == 0 or (not exact and b < 2)):
            continue
        out.append((b, exact, n1, n2))
    out.sort()
    return tuple(out)


def demand_of(shapes: Sequence[tuple[int, int]]) -> Demand:
    """The fixed demand of a list of shapes."""
    c: dict[tuple[int, int], int] = {}
    for s in shapes:
        c[s] = c.get(s, 0) + 1
    return tuple(sorted(c.items()))
