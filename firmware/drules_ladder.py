# Device rules engine, part of drules.Engine (see drules.py for the API):
# the ladders of RULES §6.3 (3-4 decks: triples and Titanics; quads and
# same_shape_only: the same shape), a vector of rungs, one per led unit.
#
# The vector is the least, compared left to right, over every way of placing
# the units' rungs together; it is found greedily: unit after unit (most
# demanding first), the first rung of its ladder such that it AND the rungs
# already chosen for the earlier units can all be placed at once (the
# placement oracle, drules_place.py). That is the lexicographic least vector:
# a unit's rung can only be bettered at the cost of an earlier unit's, and
# the earlier units keep every placement of their rungs open.

from micropython import const

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

# The constants this part needs (the same values as in drules.py, which
# a test checks): const() names are inlined within their own module only.
OK = const(0)
_VW = const(24)
_NPOS = const(24)


class Ladders(EngineBase):
    """Ladder vectors of rungs (RULES §6.3); mixed into drules.Engine."""

    def _ladder(self, hand, pc, s):
        # type: (bytearray, bytearray, int) -> int
        """3-4 decks and same_shape_only: each led unit, most demanding first,
        takes the best rung of its own ladder from what the earlier units left
        (the way best for the later units); the play must reach the holding's
        vector of rungs. The first unit where it falls short names the reason."""
        lu = self._lu
        nv = 0
        while nv < self._nlu and lu[3 * nv] >= 2 and nv < _VW:
            nv += 1
        if nv == 0:
            return OK
        vh = self._vh
        vp = self._vp
        self._lvector(hand, s, vh, nv)
        self._lvector(pc, s, vp, nv)
        for j in range(nv):
            if vp[j] != vh[j]:
                return self._rung_reason(lu[3 * j], lu[3 * j + 1], vh[j], vp[j])
        return OK

    def _lvector(self, cnt, s, out, nv):
        # type: (bytearray, int, bytearray, int) -> None
        """out[:nv]: the vector of rungs that the suit-s cards in cnt reach."""
        self._psetup(cnt, s)
        self._nq = 0
        self._ft = self._fblo = self._fbhi = 0
        self._s2 = self._s3 = self._s4 = self._nrun = 0
        self._placed = False
        u = self._u
        for i in range(3 * _NPOS):
            u[i] = 0
        lu = self._lu
        for i in range(nv):
            out[i] = self._unit(lu[3 * i], lu[3 * i + 1])

    def _unit(self, m, k):
        # type: (int, int) -> int
        """The best rung of the ladder of a led (m, k) that fits with the
        earlier units' rungs; its parts join the question (self._q*)."""
        if self.same_shape_only or m >= 4 or (m == 2 and k == 1):
            return 0 if self._try(m, k, 1, 0, 0, True) else 1
        if m == 3 and k == 1:
            if self._try(3, 1, 1, 0, 0, True):
                return 0
            return 1 if self._try(2, 1, 1, 0, 0, True) else 2
        if m == 3:
            # A Titanic: itself; k triples; a tractor of k; then j triples and
            # i pairs (j + i <= k), more triples first, then more pairs.
            if self._try(3, k, 1, 0, 0, True):
                return 0
            if self._try(3, 1, k, 0, 0, True):
                return 1
            if self._try(2, k, 1, 0, 0, True):
                return 2
            # The entries are ordered by j, then i, both descending, and each
            # is feasible if a later one of its group (fewer pairs) or of a
            # later group (fewer triples) is: the first feasible one is the
            # most triples j that fit, then the most pairs with them.
            j = k - 1
            while j and not self._try(3, 1, j, 0, 0, True):
                j -= 1
            i = self._most(0 if j else 1, k - j)
            if i < 0:
                return 3 + (k * (k + 1) >> 1) - 1 + k  # nothing
            return 3 + ((k - j) * (k - j + 1) >> 1) - 1 + k - j - i
        # A tractor of k pairs: rungs (t, q), t pairs in runs of >= 2 pairs and
        # q - t more pairs; t = k .. 2, then 0; q = k .. t. Within a t, q is
        # feasible if a larger one is: the most pairs that fit with the runs.
        t = k
        while t >= 2:
            if self._try(2, 1, 0, 0, t, True):
                return ((k - t) * (k - t + 1) >> 1) + k - t - self._most(0, k - t)
            t -= 1
        q = self._most(1, k)
        if q < 0:
            return ((k - 1) * k >> 1) + k  # nothing
        return ((k - 1) * k >> 1) + k - q

    def _most(self, lo, top):
        # type: (int, int) -> int
        """Add the most pairs, lo .. top, that fit with the question, one at a
        time (fewer fit if more do): how many, or -1 if not even lo do."""
        if lo and not self._try(2, 1, 0, 1, 0, True):
            return -1
        i = lo
        while i < top and self._try(2, 1, 0, 1, 0, True):
            i += 1
        return i

    def _try(self, m, k, n, pairs, t, keep):
        # type: (int, int, int, int, int, bool) -> bool
        """Add n parts (m, k), `pairs` pairs and t pairs in runs (any runs of
        >= 2 pairs) to the question: can it be placed? If so and keep, they
        stay in the question (and the placement); else all is as it was."""
        # First what the positions do not change: enough sets of each width
        # (the sets of every part, anywhere), runs no longer than the longest
        # stretch; and a question without runs needs nothing more.
        s2 = self._s2 + pairs + t
        s3 = self._s3
        s4 = self._s4
        if m == 2:
            s2 += n * k
        elif m == 3:
            s3 += n * k
        else:
            s4 += n * k
        tot = self._tot
        if not self._fits_at(s2, s3, s4, tot[0], tot[1], tot[2]):
            return False
        runs = n if k > 1 else 0
        if (runs and self._sb[(m - 2) * _NPOS] < k) or (t and self._sb[0] < 2):
            return False
        if t:
            runs += 1
        self._s2 = s2
        self._s3 = s3
        self._s4 = s4
        self._nrun += runs
        if n:
            self._qadd(m, k, n)
        if pairs:
            self._qadd(2, 1, pairs)
        if self._nrun == 0:
            # sets only: placed wherever they fit
            if not keep:
                self._drop(m, k, n, pairs, 0, 0, 0, 0)
            return True
        lo = hi = 0
        if t:
            # Runs of t pairs: any split into runs of 2 and 3 pairs (a longer
            # run is cut into such, so nothing is lost): b runs of 3, b of
            # t's parity, 3b <= t. Several tractors: the b add up.
            lo = t & 1
            hi = t // 3
            if (hi ^ t) & 1:
                hi -= 1
            self._ft += t
            self._fblo += lo
            self._fbhi += hi
        if self._placed:
            # On top of the earlier units' placement, each run at the
            # weakest place where it fits, the sets in what is left: no
            # search, and often enough.
            self._ng = 0
            if (k == 1 or self._greedy(m, k, n)) and self._gflex(t, lo, hi) and self._setsok():
                if not keep:
                    self._ungreedy(0)
                    self._drop(m, k, n, pairs, t, runs, lo, hi)
                return True
            self._ungreedy(0)
        u = self._u
        ub = self._ub
        for i in range(3 * _NPOS):
            ub[i] = u[i]
            u[i] = 0
        ok = self._qtest()
        if ok and keep:
            self._placed = True
            return True
        for i in range(3 * _NPOS):
            u[i] = ub[i]
        self._drop(m, k, n, pairs, t, runs, lo, hi)
        return ok

    def _drop(self, m, k, n, pairs, t, runs, lo, hi):
        # type: (int, int, int, int, int, int, int, int) -> None
        """Take what _try added out of the question again."""
        self._s2 -= pairs + t + (n * k if m == 2 else 0)
        self._s3 -= n * k if m == 3 else 0
        self._s4 -= n * k if m == 4 else 0
        self._nrun -= runs
        if n:
            self._qadd(m, k, -n)
        if pairs:
            self._qadd(2, 1, -pairs)
        self._ft -= t
        self._fblo -= lo
        self._fbhi -= hi

    def _gflex(self, t, lo, hi):
        # type: (int, int, int) -> bool
        """_greedy for t pairs in runs: b runs of 3 and the rest runs of 2."""
        if t == 0:
            return True
        g = self._ng
        b = lo
        while b <= hi:
            if self._greedy(2, 3, b) and self._greedy(2, 2, (t - 3 * b) >> 1):
                return True
            self._ungreedy(g)
            b += 2
        return False

    def _qadd(self, m, k, n):
        # type: (int, int, int) -> None
        """n more (or fewer, n < 0) parts (m, k) in the question."""
        if n == 0:
            return
        qm = self._qm
        qk = self._qk
        qn = self._qn
        free = -1
        for t in range(self._nq):
            if qm[t] == m and qk[t] == k:
                qn[t] += n
                return
            if qn[t] == 0 and free < 0:
                free = t
        if free < 0:
            free = self._nq
            self._nq += 1
        qm[free] = m
        qk[free] = k
        qn[free] = n
        self._ql[free] = 0

    def _qtest(self):
        # type: () -> bool
        """Can the question be placed: for the runs of pairs, with some split
        into b runs of 3 and (t - 3b) / 2 runs of 2?"""
        ft = self._ft
        if ft == 0:
            return self._feasible(0, 0)
        b = self._fblo
        while b <= self._fbhi:
            if self._feasible((ft - 3 * b) >> 1, b):
                return True
            b += 2
        return False
