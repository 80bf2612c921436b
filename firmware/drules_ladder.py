# Device rules engine, part of drules.Engine (see drules.py for the API):
# the ladders of docs/rules.md §6.3 (3-4 decks: triples and Titanics; quads and
# same_shape_only: the same shape), a vector of rungs, one per led unit.
#
# The vector is the least, compared left to right, over every way of placing
# the units' rungs together; it is found greedily: unit after unit (most
# demanding first), the first rung of its ladder such that it AND the rungs
# already chosen for the earlier units can all be placed at once (the
# placement oracle, drules_place.py). That is the lexicographic least vector:
# a unit's rung can only be bettered at the cost of an earlier unit's, and
# the earlier units keep every placement of their rungs open.

import micropython
from micropython import const

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

# The constants this part needs (the same values as in drules.py, which
# a test checks): const() names are inlined within their own module only.
OK = const(0)
R_PAIRS = const(6)
R_TRACTOR = const(7)
R_TRIPLES = const(8)
R_TITANIC = const(9)
R_SAME_SHAPE = const(10)
_VW = const(24)
_NPOS = const(18)
# self._qs (drules_place.py, the same values): the question's sets of width
# 2, 3, 4 counted (its runs' too), its runs, its pairs in runs of any length
# and the bounds of their runs of 3, its other runs' crossings of edges
_S2 = const(0)
_S3 = const(1)
_S4 = const(2)
_NRUN = const(3)
_FT = const(4)
_FBLO = const(5)
_FBHI = const(6)
_NX = const(7)  # the crossings of edges of its runs but those of pairs in runs of any length
_OFF = const(3)  # self._tot's triple of the faces off the stretches (drules_place.py)
_T3 = const(12)  # self._tot's 3-faces on stretches of triples
_RB = const(12)  # bytes of one record of a failed question in self._tb (_failed)
_PB = const(24)  # self._tb's record of the bound by position that failed (drules_sweep._posbound)


class Ladders(EngineBase):
    """Ladder vectors of rungs (docs/rules.md §6.3); mixed into drules.Engine."""

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
        # the stretches of triples and quads are set up only for a lead with
        # runs of them (their questions alone ask for such runs)
        a = self._vp
        a[12] = 1
        a[14] = 0  # (a check cut short in the play's part left it, _try)
        for j in range(nv):
            if lu[3 * j] > 2 and lu[3 * j + 1] > 1:
                a[12] = 3
        vh = self._vh
        # What the play's cards hold, counted (faces of 2, 3, >= 4 copies;
        # the longest stretch of each width): the holding's vector is
        # needed only up to the first unit whose rungs, with the earlier
        # ones, the play cannot hold by that count (_lvector). Three units
        # or more: for fewer, the count costs about what it could save.
        if nv > 2:
            self._psetup(pc, s, a[12])
            tot = self._tot
            sb = self._sb
            a[0] = tot[0]
            a[1] = tot[1]
            a[2] = tot[2]
            a[3] = sb[0]
            a[4] = sb[_NPOS]
            a[5] = sb[2 * _NPOS]
            a[11] = 1
            self._ub[:] = self._a
        self._lstart(hand, s)
        if a[11] and self._ub == self._a:
            # The play's faces of 2, 3 and >= 4 copies are the holding's,
            # position by position (it leaves out single cards only): every
            # question has the same answer on both, so the play reaches the
            # holding's vector, whatever it is (adv-49: four sweeps)
            a[11] = 0
            return OK
        done = self._lvector(vh, nv)
        a[11] = 0
        # The play's cards are the holding's, so with the same rungs for the
        # earlier units its rung is never better: the same iff the holding's
        # rung fits with them (a question or two to the oracle per unit, not
        # a climb down the ladder); the first unit where it does not names
        # the reason.
        # Sets of one shape in a row with one rung (a throw's pairs) are
        # asked together: the reason is the same whichever of them falls
        # short, and a question that fits holds each of them (the holding's
        # vector asks them one by one: a near miss often holds fewer at
        # that rung, and a question that fails costs the most).
        self._psetup(pc, s, a[12])
        if done == nv and self._tail(0, 0, 0, 0):
            # The holding's whole vector placed (its runs in _u, its sets in
            # _n) fits the play's faces: the play reaches every rung of it
            # (adv-55: six questions on the play)
            return OK
        nv = done
        # The holding's placement kept (in _lc, the lead's counts, free once
        # decomposed; check_follow clears them): its runs are every run the
        # play's questions ask, so where it fits the play's faces, with a
        # question's sets in what it leaves, that question is placed with no
        # search (_try; adv-66: a tractor of five pairs beside a Titanic, a
        # sweep of 8 states)
        self._lc[:] = self._u
        a[14] = 1
        self._lstart(None, s)
        j = 0
        r = OK
        while j < nv and r == OK:
            m = lu[3 * j]
            k = lu[3 * j + 1]
            r = vh[j]
            c = 1
            if k == 1:
                while j + c < nv and lu[3 * (j + c)] == m and lu[3 * (j + c) + 1] == 1 and vh[j + c] == r:
                    c += 1
            r = self._reach(m, k, r, c)
            j += c
        a[14] = 0
        return r

    def _lvector(self, out, nv):
        # type: (bytearray, int) -> int
        """out[:nv]: the vector of rungs that the cards of the empty
        question (_lstart) reach,
        up to the first unit whose rungs, with the earlier units', the play
        cannot hold, counted (self._vp, when _ladder asks): the play falls
        short at that unit or before, and the rest is not needed. The units
        done."""
        lu = self._lu
        a = self._vp
        i = 0
        while i < nv:
            m = lu[3 * i]
            k = lu[3 * i + 1]
            c = 1
            if k == 1:
                while i + c < nv and lu[3 * (i + c)] == m and lu[3 * (i + c) + 1] == 1:
                    c += 1
            if c > 1 and self._lfits(m, c) and self._try(m, 1, c, 0, 0):
                # Sets of one width in a row (a throw's pairs) that all fit
                # at once, with no search: each takes its first rung, itself
                # (each fits with the earlier ones if all do), in one
                # question in place of one a unit.
                r = 0
                while c > 1:
                    out[i] = 0
                    i += 1
                    c -= 1
            elif i and lu[3 * i - 3] == m and lu[3 * i - 2] == k and out[i - 1]:
                # The same shape as the unit before: a question that failed
                # for it fails now with more in the question, so no rung
                # better than its own fits; often its own still does, else
                # often the next: that one asked before the climb from the
                # top (adv-66: a tractor's two pairs did not fit, one does;
                # the runs of two pairs and two pairs not asked again).
                r = out[i - 1]
                if not self._rung(m, k, r):
                    r += 1
                    if not self._rung(m, k, r):
                        r = self._unit(m, k)
            else:
                r = self._unit(m, k)
            out[i] = r
            i += 1
            if not a[11]:
                continue
            # The question's sets of each width (_try's first test) in the
            # play's faces; the unit itself (rung 0) needs a stretch.
            q = self._qs
            a4 = a[2] - q[_S4]
            a3 = a[1] - q[_S3]
            if a3 < 0:
                a4 += a3
                a3 = 0
            if a4 < 0 or q[_S2] > 2 * a4 + a3 + a[0]:
                return i
            if r == 0 and k > 1 and a[1 + m] < (k if m > 2 or self.same_shape_only else 2):
                return i
        return nv

    def _lstart(self, cnt, s):
        # type: (bytearray | None, int) -> None
        """An empty question on the suit-s cards in cnt (None: those set up
        last)."""
        if cnt is not None:
            self._psetup(cnt, s, self._vp[12])
        # the question's sets of pairs: always its first kind (_try and
        # _drop count them there themselves, without _qadd's search)
        self._nq = 1
        self._qm[0] = 2
        self._qk[0] = 1
        self._qn[0] = 0
        self._ql[0] = 0
        # (one local for the three buffers: a frame of 11 words or less is
        # not taken from the GC heap, issue 21)
        q = self._qs
        q[_S2] = q[_S3] = q[_S4] = q[_NRUN] = q[_FT] = q[_FBLO] = q[_FBHI] = q[_NX] = 0
        q = self._tb  # (no question known to fail: _failed)
        q[0] = q[_RB] = q[_PB] = 0
        self._vp[13] = 0
        q = self._n
        q[0] = q[1] = q[2] = 0
        self._uzero()

    def _rung(self, m, k, r):
        # type: (int, int, int) -> bool
        """Does rung r of the ladder of a led (m, k) fit with the question, all
        in one question? If so its parts join it (as _unit would add them;
        the rungs' numbering is _unit's), else all is as it was."""
        if self.same_shape_only or m >= 4 or k == 1:
            if r == (1 if m == 2 or m >= 4 or self.same_shape_only else 2):
                return True  # nothing
            if m == 3 and r == 1:
                return self._try(2, 1, 1, 0, 0)
            return self._try(m, k, 1, 0, 0)
        if m == 3:
            if r == 0:
                return self._try(3, k, 1, 0, 0)
            if r == 1:
                return self._try(3, 1, k, 0, 0)
            if r == 2:
                return self._try(2, k, 1, 0, 0)
            g = 1
            while r > 2 + (g * (g + 1) >> 1) + g:
                g += 1
            i = 2 + (g * (g + 1) >> 1) + g - r
            if g == k and i == 0:
                return True  # nothing
            return self._try(3, 1, k - g, i, 0)
        g = 0
        while g < k - 1 and r > (g * (g + 1) >> 1) + g:
            g += 1
        if g < k - 1:
            return self._try(2, 1, 0, (g * (g + 1) >> 1) + g - r, k - g)
        q = ((k - 1) * k >> 1) + k - r
        return q == 0 or self._try(2, 1, 0, q, 0)

    def _reach(self, m, k, r, n):
        # type: (int, int, int, int) -> int
        """Does the play reach rung r of the ladder of a led (m, k), the
        holding's, with the earlier units' rungs (the question), for n such
        units (n > 1: sets, k = 1, all with rung r)? OK, its
        parts then in the question as _unit would have added them (the
        rungs' numbering is _unit's); else the reason: what rung r has more
        of than the play's own rung, which is further down the ladder (no
        rung up to r the holding reached, nor then the play): triples in a
        Titanic, triples, pairs in a tractor; else pairs. A rung of j
        triples and i pairs, or of t pairs in runs and i pairs, is asked in
        two steps, the triples or the runs first: a play that falls short
        there has its reason at once (a question that fails costs a search,
        one that fits is mostly placed at once)."""
        if self.same_shape_only or m >= 4:
            return OK if r == 1 or self._try(m, k, n, 0, 0) else R_SAME_SHAPE
        if k == 1:
            if m == 2:
                return OK if r == 1 or self._try(2, 1, n, 0, 0) else R_PAIRS
            if r == 0:
                return OK if self._try(3, 1, n, 0, 0) else R_TRIPLES
            return OK if r == 2 or self._try(2, 1, n, 0, 0) else R_PAIRS
        if m == 3:
            if r == 0:
                return OK if self._try(3, k, 1, 0, 0) else R_TITANIC
            if r == 1:
                return OK if self._try(3, 1, k, 0, 0) else R_TRIPLES
            if r == 2:
                return OK if self._try(2, k, 1, 0, 0) else R_TRACTOR
            # r = 3 + g(g+1)/2 - 1 + g - i: j = k - g triples and i pairs
            g = 1
            while r > 2 + (g * (g + 1) >> 1) + g:
                g += 1
            i = 2 + (g * (g + 1) >> 1) + g - r
            if g < k and not self._try(3, 1, k - g, 0, 0):
                return R_TRIPLES
            return OK if i == 0 or self._try(2, 1, 0, i, 0) else R_PAIRS
        # A tractor: r = g(g+1)/2 + g - i for t = k - g >= 2 pairs in runs
        # and i more pairs; past those, q pairs: r = (k-1)k/2 + k - q.
        g = 0
        while g < k - 1 and r > (g * (g + 1) >> 1) + g:
            g += 1
        if g < k - 1:
            if not self._try(2, 1, 0, 0, k - g):
                return R_TRACTOR
            i = (g * (g + 1) >> 1) + g - r
        else:
            i = ((k - 1) * k >> 1) + k - r
        return OK if i == 0 or self._try(2, 1, 0, i, 0) else R_PAIRS

    def _unit(self, m, k):
        # type: (int, int) -> int
        """The best rung of the ladder of a led (m, k) that fits with the
        earlier units' rungs; its parts join the question (self._q*)."""
        if self.same_shape_only or m >= 4 or (m == 2 and k == 1):
            if self._try(m, k, 1, 0, 0):
                return 0
            if m == 2 and k == 1:
                self._vp[13] = 1  # (no pair more: _try)
            return 1
        if m == 3 and k == 1:
            if self._try(3, 1, 1, 0, 0):
                return 0
            if self._try(2, 1, 1, 0, 0):
                return 1
            self._vp[13] = 1  # (no pair more: _try)
            return 2
        if m == 3:
            # A Titanic: itself; k triples; a tractor of k; then j triples and
            # i pairs (j + i <= k), more triples first, then more pairs.
            if self._try(3, k, 1, 0, 0):
                return 0
            if self._try(3, 1, k, 0, 0):
                return 1
            if self._try(2, k, 1, 0, 0):
                return 2
            # The entries are ordered by j, then i, both descending, and each
            # is feasible if a later one of its group (fewer pairs) or of a
            # later group (fewer triples) is: the first feasible one is the
            # most triples j that fit, then the most pairs with them.
            j = k - 1
            while j and not self._try(3, 1, j, 0, 0):
                j -= 1
            i = self._most(0 if j else 1, k - j)
            if i < 0:
                return 3 + (k * (k + 1) >> 1) - 1 + k  # nothing
            return 3 + ((k - j) * (k - j + 1) >> 1) - 1 + k - j - i
        # A tractor of k pairs: rungs (t, q), t pairs in runs of >= 2 pairs and
        # q - t more pairs; t = k .. 2, then 0; q = k .. t. Within a t, q is
        # feasible if a larger one is: the most pairs that fit with the runs.
        t = k
        v = self._vp
        while t >= 2:
            v[10] = 0
            if self._try(2, 1, 0, 0, t):
                return ((k - t) * (k - t + 1) >> 1) + k - t - self._most(0, k - t)
            # (the count of _try's that t cannot pass: the t that could,
            # adv-47: runs of 5, 4, 3 pairs, one question in place of three)
            t -= 1 + v[10]
        q = self._most(1, k)
        if q < 0:
            return ((k - 1) * k >> 1) + k  # nothing
        return ((k - 1) * k >> 1) + k - q

    # bytecode (issue 21, a heap that fits): under 0.1 % of the adversarial time; native: 272 B of
    # the chip's heap
    def _most(self, lo, top):
        # type: (int, int) -> int
        """Add the most pairs, lo .. top, that fit with the question, one at a
        time (fewer fit if more do): how many, or -1 if not even lo do."""
        # all of them in one question where no search is needed (_lfits;
        # adv-52: three pairs, one question in place of three)
        if top > lo + 1 and self._lfits(2, top) and self._try(2, 1, 0, top, 0):
            return top
        if lo and not self._try(2, 1, 0, 1, 0):
            self._vp[13] = 1  # (no pair more: _try)
            return -1
        i = lo
        while i < top and self._try(2, 1, 0, 1, 0):
            i += 1
        if i < top:
            self._vp[13] = 1
        return i

    def _lfits(self, m, c):
        # type: (int, int) -> bool
        """Do c more sets of width m fit, with the question's sets, in what
        the placement leaves over, as _tail found it with no choice to make
        (self._vp[6:10])? Then _try places them with no search: a question
        asked for several units at once costs no more than one. A question
        with no runs yet: sets alone, counted (_try; adv-60: three quads
        in one question)."""
        v = self._vp
        if not v[9]:
            return self._qs[_NRUN] == 0
        # (self._n read three times: a frame of 11 words is not taken from
        # the GC heap)
        a4 = v[8] - self._n[2]
        a3 = v[7] - self._n[1]
        a2 = self._n[0]
        if m == 2:
            a2 += c
        elif m == 3:
            a3 -= c
        else:
            a4 -= c
        if a3 < 0:
            a4 += a3
            a3 = 0
        return a4 >= 0 and a2 <= 2 * a4 + a3 + v[6]

    @micropython.viper
    def _tpre(self, m: int, k: int, n: int, pairs: int, t: int) -> int:
        """_try's counts (what the positions do not change), and the
        question's own counts with the parts added when they pass: 0 the
        parts cannot be placed (nothing changed), 1 placed (sets alone, or
        on a placement whose left-over faces take them: _try's f), 2 added
        to the question's counts, a placement still to find. The runs
        added, and the bounds of the runs of 3 (lo, hi) in self._vp[15:18]
        (_drop's). Viper: the counts are machine code (issue 21: 1.5-1.8 us
        a call of this port's bytecode, a third of _try's calls end here)."""
        q = ptr8(self._qs)
        v = ptr8(self._vp)
        # First what the positions do not change: enough sets of each width
        # (the sets of every part, anywhere), runs no longer than the longest
        # stretch; and a question without runs needs nothing more.
        s2 = int(q[_S2]) + pairs + t
        s3 = int(q[_S3])
        s4 = int(q[_S4])
        if m == 2:
            s2 += n * k
        elif m == 3:
            s3 += n * k
        else:
            s4 += n * k
        # (_fits_at of the sets and the faces, written out)
        tot = ptr8(self._tot)
        a4 = int(tot[2]) - s4
        if a4 < 0:
            return 0
        a3 = int(tot[1])
        if s3 > a3:
            a4 -= s3 - a3
            if a4 < 0:
                return 0
            a3 = 0
        else:
            a3 -= s3
        if s2 > 2 * a4 + a3 + int(tot[0]):
            return 0
        runs = 0
        if k > 1:
            runs = n
        sb = ptr8(self._sb)
        if runs:
            if int(sb[(m - 2) * _NPOS]) < k:
                return 0
        if t:
            if int(sb[0]) < 2:
                return 0
            runs += 1
        # the question's sets with these (self._n, as _sets would count
        # them); the question itself changes only once these tests pass
        # (issue 21: a question that fails here costs no _qadd nor _drop)
        ns = ptr8(self._n)
        n0 = int(ns[0]) + pairs
        n1 = int(ns[1])
        n2 = int(ns[2])
        if k == 1:
            if m == 2:
                n0 += n
            elif m == 3:
                n1 += n
            else:
                n2 += n
        lo = 0
        hi = 0
        # sets only: placed wherever they fit
        f = 0
        if int(q[_NRUN]) + runs == 0:
            f = 1
        elif int(v[9]) != 0 and runs == 0:
            # Sets only, on a placement whose left-over faces are known
            # (_tail, no choice in them): they fit there or a search decides.
            b4 = int(v[8]) - n2
            b3 = int(v[7])
            if n1 > b3:
                b4 -= n1 - b3
                b3 = 0
            else:
                b3 -= n1
            if b4 >= 0 and n0 <= 2 * b4 + b3 + int(v[6]):
                f = 1
        if f == 0:
            if t:
                # Runs of t pairs: any split into runs of 2 and 3 pairs (a
                # longer run is cut into such, so nothing is lost): b runs
                # of 3, b of t's parity, 3b <= t. Several tractors: the b
                # add up.
                lo = t & 1
                hi = t // 3
                if (hi ^ t) & 1:
                    hi -= 1
            # The runs' sets (all but the question's sets) take faces on
            # the stretches only, their triples 3-faces only on stretches
            # of triples (the rest 4-faces): with the sets' pairs that the
            # 2-faces off them cannot hold, they must fit the faces on them
            # (_feasible's first count, before the greedy tries and the
            # search's set-up; adv-47: 5 questions of 15 end here)
            a2 = n0 - int(tot[_OFF])
            x = s3 - n1 - int(tot[_T3])
            if x < 0:
                x = 0
            a4 = int(tot[2]) - s4 - x
            a3 = int(tot[1]) - s3 + x
            if a3 < 0:
                a4 += a3
                a3 = 0
            if a2 < 0:
                a2 = 0
            x = s2 - n0 + a2 - 2 * a4 - a3 - int(tot[0]) + int(tot[_OFF])
            if a4 < 0:
                # (for _unit: with t pairs in runs, t - x at most fit here;
                # a4 does not depend on t)
                v[10] = t
                return 0
            if x > 0:
                v[10] = x - 1
                return 0
            # and _feasible's next: the runs cross no more edges, and take
            # no more sets, than the stretches hold (_rs from position 0;
            # the runs of pairs of any length split with the fewest runs of
            # 3, the fewest crossings)
            o = ptr8(self._rs)
            nx = int(q[_NX])
            if k > 1:
                nx += n * (k - 1)
            if nx + ((int(q[_FT]) + t + int(q[_FBLO]) + lo) >> 1) > int(o[0]):
                return 0
            if s2 + s3 + s4 - n0 - n1 - n2 > int(o[_NPOS]):
                return 0
        q[_S2] = s2
        q[_S3] = s3
        q[_S4] = s4
        q[_NRUN] = int(q[_NRUN]) + runs
        if k > 1:
            q[_NX] = int(q[_NX]) + n * (k - 1)
        qn = ptr8(self._qn)
        qn[0] = int(qn[0]) + n0 - int(ns[0])
        ns[0] = n0
        ns[1] = n1
        ns[2] = n2
        q[_FT] = int(q[_FT]) + t
        q[_FBLO] = int(q[_FBLO]) + lo
        q[_FBHI] = int(q[_FBHI]) + hi
        v[15] = runs
        v[16] = lo
        v[17] = hi
        if f:
            return 1
        return 2

    # bytecode (issue 21, a heap that fits): 3.7 % of the adversarial corpora's time (CPython
    # profile), so about 2.5 % slower at worst on the chip; native: 1,744 B of the chip's heap
    # resident with the ladders (4.6 KB since; with the search only, as a copy: 5.2 KB of the
    # chip's heap and the .mpy files over their 40 KB, for 0.91x at worst: not kept,
    # docs/firmware.md "worst6")
    def _try(self, m, k, n, pairs, t):
        # type: (int, int, int, int, int) -> bool
        """Add n parts (m, k), `pairs` pairs and t pairs in runs (any runs of
        >= 2 pairs) to the question: can it be placed? If so they stay in
        the question (and the placement); else all is as it was."""
        v = self._vp
        if v[13]:
            # One pair more did not fit (_unit, _most): nothing more does,
            # every part holds a pair, until _lstart (adv-47, adv-66: the
            # led pair after a tractor that took the last pairs)
            return False
        c = self._tpre(m, k, n, pairs, t)
        if c == 0:
            return False
        if n and (k > 1 or m > 2):
            self._qadd(m, k, n)
        if c == 1:
            return True
        runs = v[15]
        lo = v[16]
        hi = v[17]
        q = self._qs
        # On top of the earlier units' placement (none yet: these are the
        # first runs, self._u is clear), each run at the weakest place where
        # it fits, the sets in what is left: no search, and often enough.
        # (the placement as it was, in _ub: the runs placed here are taken
        # back by one slice copy, _urestore, not run by run)
        # A question that failed before (_failed) with no more in it than
        # this one: this one fails too (adv-52: a Titanic and two runs of
        # two pairs failed; with three pairs more, 13 states to none; adv-47:
        # a tractor's pairs past its runs, then the led pair beside it)
        tb = self._tb
        if (tb[0] and tb[1] == q[_FT]) or (tb[_RB] and tb[_RB + 1] == q[_FT]) or tb[_PB]:
            if self._beaten():
                self._drop(m, k, n, pairs, t, runs, lo, hi)
                return False
        self._ng = 0
        self._ub[:] = self._u
        g = (k == 1 or self._greedy(m, k, n)) and (t == 0 or self._gflex(t, lo, hi, 1))
        if g and self._tail(0, 0, 0, 0):
            return True
        if self._ng:
            self._u[:] = self._ub  # (_urestore, written out: a call less)
            v[9] = 0
            self._ng = 0
        if g and (t == 0) == (k > 1):
            # One kind of runs, or runs of pairs alone, placed but the sets
            # not in what they leave: from the strongest place down too (at
            # the weakest a run can take the faces the sets need; issue 21:
            # adv-39's Titanic and the quad beside it, a sweep each; adv-47's
            # run of two pairs on a quad's 4-face)
            if (self._greedy(m, k, -n) if t == 0 else self._gflex(t, lo, hi, -1)) and self._tail(0, 0, 0, 0):
                return True
            if self._ng:
                self._u[:] = self._ub  # (_urestore, written out: a call less)
                v[9] = 0
                self._ng = 0
        if v[14]:
            # the play's part of a ladder (_ladder): the holding's placement,
            # which places every run the question has (and more), first
            self._u[:] = self._lc
            if self._tail(0, 0, 0, 0):
                return True
        # the search, on a clear placement (_u is _ub's copy here: no save
        # needed)
        self._u[:] = self._z
        v[9] = 0
        if self._qtest():
            return True
        self._failed()
        self._u[:] = self._ub  # (_urestore, written out: a call less)
        v[9] = 0
        self._drop(m, k, n, pairs, t, runs, lo, hi)
        return False

    def _drop(self, m, k, n, pairs, t, runs, lo, hi):
        # type: (int, int, int, int, int, int, int, int) -> None
        """Take what _try added out of the question again."""
        q = self._qs
        q[_S2] -= pairs + t + (n * k if m == 2 else 0)
        q[_S3] -= n * k if m == 3 else 0
        q[_S4] -= n * k if m == 4 else 0
        q[_NRUN] -= runs
        if k > 1:
            q[_NX] -= n * (k - 1)
        ns = self._n
        if n:
            if k == 1:
                ns[m - 2] -= n
            if k > 1 or m > 2:
                self._qadd(m, k, -n)
        ns[0] -= pairs
        self._qn[0] -= pairs + (n if m == 2 and k == 1 else 0)
        q[_FT] -= t
        q[_FBLO] -= lo
        q[_FBHI] -= hi

    def _gflex(self, t, lo, hi, d):
        # type: (int, int, int, int) -> bool
        """_greedy for t pairs in runs: b runs of 3 and the rest runs of 2
        (d -1: each at the strongest place, as _greedy's n < 0)."""
        g = self._ng
        b = lo
        while b <= hi:
            # (a call a kind that has runs: a bytecode call's frame is
            # taken from the heap and given back, issue 21)
            if (b == 0 or self._greedy(2, 3, b * d)) and (3 * b == t or self._greedy(2, 2, ((t - 3 * b) >> 1) * d)):
                return True
            if g:
                self._ungreedy(g)
            elif self._ng:
                # nothing placed before: the placement _try kept in _ub
                self._urestore()
                self._ng = 0
            b += 2
        return False

    # bytecode (issue 21, a heap that fits): 0.5 % of the adversarial time; native: 608 B of the
    # chip's heap
    def _qadd(self, m, k, n):
        # type: (int, int, int) -> None
        """n more (or fewer, n < 0) parts (m, k) in the question (not
        sets of pairs: the first kind, _lstart)."""
        # (seven locals: a frame of 11 words or less is not taken from the
        # GC heap, issue 21)
        t = self._nq
        f = t  # where a new kind goes: the first empty slot, else the end
        i = 1
        while i < t:
            if self._qm[i] == m and self._qk[i] == k:
                self._qn[i] += n
                return
            if f == t and self._qn[i] == 0:
                f = i
            i += 1
        if f == t:
            self._nq = t + 1
        self._qm[f] = m
        self._qk[f] = k
        self._qn[f] = n
        self._ql[f] = 0

    def _qtest(self):
        # type: () -> bool
        """Can the question be placed: for the runs of pairs, with some split
        into b runs of 3 and (t - 3b) / 2 runs of 2?"""
        q = self._qs
        ft = q[_FT]
        if ft == 0:
            return self._feasible(0, 0)
        b = q[_FBLO]
        while b <= q[_FBHI]:
            if self._feasible((ft - 3 * b) >> 1, b):
                return True
            b += 2
        return False
