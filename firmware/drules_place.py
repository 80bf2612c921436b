# Device rules engine, part of drules.Engine (see drules.py for the API): the
# placement oracle of the ladders (docs/rules.md §6.3). "Can these parts, sets and
# runs of width 2-4 (self._qm/_qk/_qn: width, length, how many), all be cut
# disjointly out of the suit-s cards of a count array?" A sweep over the
# suit's positions, weakest first, deciding at each position how many parts
# of each kind start there; the state between two positions is the demand
# left and the runs still open, and a state that failed once is remembered,
# so each state is expanded at most once (docs/firmware.md gives the bound).

import micropython
from micropython import const

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

_NPOS = const(18)
_QT = const(24)  # kinds of parts in one question
# states of a question before failures are remembered: the memo's look-up
# and record are bytecode (x170 on the chip) and a state of the native sweep
# costs less than them, so the memo pays only on long searches (issue 21:
# adv-30: 71 states at 64 against 63 at 16, yet 0.83x the time; no other corpus case
# reaches 16 states since the greedy first try)
_EAGER = const(64)


class Placer(EngineBase):
    """The placement oracle of the ladders; mixed into drules.Engine."""

    def _place_init(self):
        # type: () -> None
        # Per position (index w*_NPOS + p, w = width - 2): faces holding
        # exactly 2, 3, >= 4 copies (_a); widths in use (_u); the stretch of
        # positions from p up where a set of width w+2 can be cut (_st) and
        # the longest stretch starting at p or above (_sb).
        self._a = bytearray(3 * _NPOS)
        self._u = bytearray(3 * _NPOS)
        self._z = bytes(3 * _NPOS)  # zeros, to clear _u with one slice copy
        self._st = bytearray(3 * _NPOS)
        self._sb = bytearray(3 * _NPOS)
        self._tot = bytearray(3)
        self._sf = bytearray(3 * _NPOS)  # faces of 2, 3, >= 4 copies at p..
        # The stretches of each width (from w*_NPOS): length, sets in them.
        self._sl = bytearray(3 * _NPOS)
        self._sc = bytearray(3 * _NPOS)
        self._se = bytearray(3 * _NPOS)  # and the sets across their edges
        self._nst = bytearray(3)
        # Faces of 2, 3, >= 4 copies off every stretch of two positions or
        # more (no run can use them: only sets), and the edges of those
        # stretches (two neighbouring positions: the lesser's room for pairs).
        self._off = bytearray(3)
        # From each position p up (nothing open at p): the edges' room for
        # crossings (_rs[p]), and the sets that runs can take (_rs[_NPOS + p]:
        # at each position no more than the crossings of its two edges); of
        # those, the pairs 2- and 4-faces can hold (not a 3-face's pair), at
        # positions with such a face beside them (_rs[2 * _NPOS + p]) and at
        # the others (_rs[3 * _NPOS + p]: a run there takes a 3-face beside);
        # and the pairs 2-faces can hold (_rs[4 * _NPOS + p]).
        self._rs = bytearray(5 * _NPOS)
        self._n = bytearray(3)  # the question's pairs, triples, quads (sets)
        self._lcap = bytearray(3)
        self._np = 0
        self._qm = bytearray(_QT)
        self._qk = bytearray(_QT)
        self._qn = bytearray(_QT)
        self._tb = bytearray(_QT)  # _tpoly's knapsack
        self._ql = bytearray(_QT)  # lowest start + 1 (0: any; a trick's key)
        # The sweep's kinds: width, length, parts left, offset of the width
        # in _u, weight in the demand d (mixed radix).
        self._dm = bytearray(_QT)
        self._dk = bytearray(_QT)
        self._dn = bytearray(_QT)
        self._dl = bytearray(_QT)
        self._db = bytearray(_QT)
        self._dr = [0] * _QT
        self._nd = 0
        self._nq = 0
        self._s2 = self._s3 = self._s4 = self._nrun = 0  # the question's sets, runs
        self._ub = bytearray(3 * _NPOS)  # the placement before a search
        # the faces of 2, 3, >= 4 copies that the placement in self._u leaves
        # over, when _tail found them with no choice to make (_lok)
        self._mon = False
        self._memo_init()
        self._sweep_init()
        self.nstates = 0  # states expanded (for the benchmarks and the bound)
        self._ns0 = 0

    # The placement's buffer cleared, saved, restored: slice copies (one C
    # call each; a loop over the 72 bytes cost more than a greedy try). Not
    # native: the bytecode VM's slices of a bytearray are not allocated,
    # native code's are.
    def _uzero(self):
        # type: () -> None
        self._u[:] = self._z
        self._vp[9] = 0  # (the left-over faces of self._vp are not known)

    def _usave(self):
        # type: () -> None
        self._ub[:] = self._u
        self._u[:] = self._z
        self._vp[9] = 0

    def _urestore(self):
        # type: () -> None
        self._u[:] = self._ub
        self._vp[9] = 0

    @micropython.native
    def _psetup(self, cnt, s, nw):
        # type: (bytearray, int, int) -> None
        """The resources of the suit-s cards in cnt, once per count array;
        the stretches of the first nw widths (1: pairs only, for questions
        with no run of triples or quads; 3: all; issue 21: a third of its
        time, and it is the costliest native call of a ladder check)."""
        np_ = self.npos[s]
        self._np = np_
        a = self._a
        st = self._st
        sb = self._sb
        order = self.order
        pidx = self.pidx
        base = s * _NPOS
        sf = self._sf
        sf[np_] = sf[_NPOS + np_] = sf[2 * _NPOS + np_] = 0
        off = self._off
        off[0] = off[1] = off[2] = 0
        edg = rc = er = vg = vs = h = h2 = w2 = 0
        f2 = f3 = f4 = 0  # faces of 2, 3, >= 4 copies from p up
        rs = self._rs
        sl = self._sl
        sc = self._sc
        se = self._se
        for w in range(nw):
            b = w * _NPOS
            run = 0
            best = 0
            cap = 0
            edge = 0
            last = 0
            ns = b
            for p in range(np_ - 1, -1, -1):
                if w == 0:
                    # the faces at p counted (the first width's pass, from
                    # the top: _a, and from p up _sf and _tot)
                    c2 = c3 = c4 = 0
                    for i in range(pidx[base + p], pidx[base + p + 1]):
                        c = cnt[order[i]]
                        if c >= 4:
                            c4 += 1
                        elif c == 3:
                            c3 += 1
                        elif c == 2:
                            c2 += 1
                    a[p] = c2
                    a[_NPOS + p] = c3
                    a[2 * _NPOS + p] = c4
                    f2 += c2
                    f3 += c3
                    f4 += c4
                    sf[p] = f2
                    sf[_NPOS + p] = f3
                    sf[2 * _NPOS + p] = f4
                    # pairs at p: 4-faces hold two
                    c = c4 + c4 + c3 + c2
                    # the edge (p, p + 1); the runs through p + 1, at most
                    # its sets and the crossings of its two edges
                    e = c if c < last else last
                    edg += e
                    y = er + e
                    y = last if last < y else y
                    rc += y
                    # of which 2-faces can hold (w2)
                    w2 += a[p + 1] if a[p + 1] < y else y
                    # of which 2- and 4-faces can hold (not a 3-face's
                    # pair): at p + 1 with no such face beside it, a run
                    # holding one takes a 3-face's pair beside it (vs)
                    y = h if h < y else y
                    x = c2 + 2 * c4
                    if x or h2:
                        vg += y
                    else:
                        vs += y
                    h2 = h
                    h = x
                    er = e
                    rs[p] = edg
                    rs[_NPOS + p] = rc + e
                    rs[4 * _NPOS + p] = w2 + (c2 if c2 < e else e)
                    # from p up (a run at p goes on to p + 1)
                    y = h if h < e else e
                    if h2:
                        rs[2 * _NPOS + p] = vg + y
                        rs[3 * _NPOS + p] = vs
                    else:
                        rs[2 * _NPOS + p] = vg
                        rs[3 * _NPOS + p] = vs + y
                else:
                    # sets of width w + 2 at p
                    c = a[2 * _NPOS + p]
                    if w == 1:
                        c += a[_NPOS + p]
                if c:
                    if run:
                        edge += c if c < last else last
                    run += 1
                    cap += c
                elif run:
                    sl[ns] = run
                    sc[ns] = cap
                    se[ns] = edge
                    ns += 1
                    if w == 0 and run == 1:  # a stretch of one position: p + 1
                        off[0] += a[p + 1]
                        off[1] += a[_NPOS + p + 1]
                        off[2] += a[2 * _NPOS + p + 1]
                    run = cap = edge = 0
                last = c
                st[b + p] = run
                if run > best:
                    best = run
                sb[b + p] = best
            if run:
                sl[ns] = run
                sc[ns] = cap
                se[ns] = edge
                ns += 1
                if w == 0 and run == 1:
                    off[0] += a[0]
                    off[1] += a[_NPOS]
                    off[2] += a[2 * _NPOS]
            self._nst[w] = ns - b
        tot = self._tot
        tot[0] = f2
        tot[1] = f3
        tot[2] = f4

    # bytecode (issue 21, a heap that fits): 0.3 % of the adversarial time; native: 320 B of the
    # chip's heap
    def _fits_at(self, u2, u3, u4, a2, a3, a4):
        # type: (int, int, int, int, int, int) -> bool
        """Do u2 pairs, u3 triples and u4 quads fit in faces holding 2, 3 and
        >= 4 copies (a2, a3, a4 of them)? Quads take 4-faces; triples 3-faces
        first; pairs what is left (two in an unused 4-face)."""
        a4 -= u4
        if a4 < 0:
            return False
        if u3 > a3:
            a4 -= u3 - a3
            if a4 < 0:
                return False
            a3 = 0
        else:
            a3 -= u3
        return u2 <= 2 * a4 + a3 + a2

    @micropython.native
    def _feasible(self, fa, fb):
        # type: (int, int) -> bool
        """Can the parts of the question, and fa runs of 2 pairs and fb runs
        of 3 pairs more, all be placed at once (see the top)? self._u must be
        clear; on success it holds the runs' placement."""
        qm = self._qm
        qk = self._qk
        qn = self._qn
        sb = self._sb
        dm = self._dm
        dk = self._dk
        dn = self._dn
        nq = self._nq
        nd = 0
        ql = self._ql
        dl = self._dl
        for t in range(nq + 2):
            lo = 0
            if t < nq:
                n = qn[t]
                k = qk[t]
                m = qm[t]
                lo = ql[t] - 1 if ql[t] else 0
            else:
                m = 2
                k = t - nq + 2
                n = fa if k == 2 else fb
            if n == 0 or (k == 1 and (t >= nq or ql[t] == 0)):
                continue  # sets are placed in what the sweep leaves over
            if sb[(m - 2) * _NPOS] < k:
                return False
            # The sweep's kinds of runs, longest first (an insertion sort).
            i = nd
            while i and (dk[i - 1] < k or (dk[i - 1] == k and dm[i - 1] < m)):
                dm[i] = dm[i - 1]
                dk[i] = dk[i - 1]
                dn[i] = dn[i - 1]
                dl[i] = dl[i - 1]
                i -= 1
            if i and dk[i - 1] == k and dm[i - 1] == m and t >= nq:
                # the same kind (runs of pairs): merged
                dn[i - 1] += n
                while i < nd:
                    dm[i] = dm[i + 1]
                    dk[i] = dk[i + 1]
                    dn[i] = dn[i + 1]
                    dl[i] = dl[i + 1]
                    i += 1
                continue
            dm[i] = m
            dk[i] = k
            dn[i] = n
            dl[i] = lo
            nd += 1
        # Runs of one width and length >= k each take k sets or more of one
        # stretch, and cross k - 1 of its edges (two neighbouring positions,
        # crossed by no more runs than the lesser holds): no more of them
        # than the stretches' sets // k, nor their edges // (k - 1).
        sl = self._sl
        sc = self._sc
        se = self._se
        for i in range(nd):
            m = dm[i]
            k = dk[i]
            if k == 1:
                break  # (a set placed high: the longest kinds come first)
            need = 0
            for j in range(i + 1):
                if dm[j] == m:
                    need += dn[j]
            b = (m - 2) * _NPOS
            for j in range(b, b + self._nst[m - 2]):
                if sl[j] >= k:
                    x = sc[j] // k
                    y = se[j] // (k - 1)
                    need -= x if x < y else y
            if need > 0:
                return False
        # (The greedy packing bound of each kind of runs, _packs and _pack
        # until 2026-12-06, is gone: since the bounds below, it cut no
        # question of the adversarial corpora that they left, and cost 2 % of
        # their instructions and 837 B of native code; docs/firmware.md.)
        self._sets()
        if nd == 0:
            return self._setsfit(self._tot[0], self._tot[1], self._tot[2])
        self._nd = nd
        # (the sweep first checks that all of it fits counted as sets)
        # Bounds first. Every run crosses k - 1 edges (at a position each of
        # its runs takes a set), no more crossings than the edges hold
        # (_rs[0]); its k sets are at positions that runs can reach, no more
        # than _rs[_NPOS] (the sweep asks the same at each stretch's start,
        # from there up). The faces off the stretches (_off) hold sets only: the
        # runs' sets, and the sets of each kind that could not all be off,
        # must fit in the faces on the stretches; the runs' pairs, and the
        # sets' pairs that the 2-faces off cannot hold, in all but those.
        n = self._n
        off = self._off
        tot = self._tot
        v = n[0] - off[0]
        x = r2 = r3 = r4 = h3 = h4 = 0
        d = 0
        r = 1
        db = self._db
        dr = self._dr
        for i in range(nd):
            m = dm[i]
            k = dk[i]
            y = dn[i]
            db[i] = (m - 2) * _NPOS
            dr[i] = r
            d += y * r
            if r <= 65536:
                r *= y + 1  # (small ints only: no more once too many)
            x += y * (k - 1)
            if k == 1:  # sets placed high: off the stretches too
                if m == 2:
                    v += y
                elif m == 3:
                    h3 += y
                else:
                    h4 += y
            elif m == 2:
                r2 += y * k
            elif m == 3:
                r3 += y * k
            else:
                r4 += y * k
        rs = self._rs
        if x > rs[0] or r2 + r3 + r4 > rs[_NPOS]:
            return False
        h3 += n[1]
        h4 += n[2]
        if r3:
            # Runs of triples take 3-faces only on stretches of triples
            # (two positions or more): the rest of their sets take 4-faces
            # (adv-47: a Titanic on two 4-faces, the quads' and pairs'
            # faces then too few: a sweep of 8 states to none).
            st = self._st
            a = self._a
            y = 0
            for p in range(self._np):
                if st[_NPOS + p] > 1 or (p and st[_NPOS + p - 1] > 1):
                    y += a[_NPOS + p]
            if r3 > y:
                r4 += r3 - y
                r3 = y
        # (The 3-faces and the 3- and 4-faces that the runs' pairs take,
        # past what the 2- and 4-faces, or the 2-faces, hold: the sweep's
        # first state asks them, docs/firmware.md "Bounds by position".)
        if not self._fits_at(r2 + (v if v > 0 else 0), r3 + h3, r4 + h4, tot[0] - off[0], tot[1], tot[2]):
            return False
        o2 = off[0]
        o3 = off[1]
        o4 = off[2]
        v -= o3 + 2 * o4
        y = h3 - o3 - o4
        x = h4 - o4
        if not self._fits_at(
            r2 + (v if v > 0 else 0),
            r3 + (y if y > 0 else 0),
            r4 + (x if x > 0 else 0),
            tot[0] - o2,
            tot[1] - o3,
            tot[2] - o4,
        ):
            return False
        self._mon = r <= 65536
        if self._mon:
            self._newgen()
        else:
            # too many states to name in 16 bits: none is remembered, and d
            # is just the runs left (d = 0 is all that matters then)
            d = 0
            for i in range(nd):
                dr[i] = 1
                d += dn[i]
        self._ns0 = self.nstates + _EAGER
        return self._sweep(0, d, 0, 0, 0)

    def _sets(self):
        # type: () -> None
        """The question's sets (self._n: pairs, triples, quads) and the most
        faces of each kind (2, 3, >= 4 copies) left over that can matter."""
        n = self._n
        n[0] = n[1] = n[2] = 0
        qm = self._qm
        qk = self._qk
        qn = self._qn
        ql = self._ql
        for t in range(self._nq):
            if qk[t] == 1 and ql[t] == 0:
                n[qm[t] - 2] += qn[t]
        c = self._lcap
        c[0] = n[0]
        c[1] = n[0] + n[1]
        c[2] = n[2] + n[1] + ((n[0] + 1) >> 1)

    def _setsfit(self, l2, l3, l4):
        # type: (int, int, int) -> bool
        n = self._n
        return self._fits_at(n[0], n[1], n[2], l2, l3, l4)
