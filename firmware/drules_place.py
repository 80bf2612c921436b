# Device rules engine, part of drules.Engine (see drules.py for the API): the
# placement of the ladders' placement oracle (docs/rules.md §6.3). "Can these
# parts, sets and runs of width 2-4 (self._qm/_qk/_qn: width, length, how
# many), all be cut disjointly out of the suit-s cards of a count array?" This
# part holds what every question uses: the suit's resources (_psetup), parts
# put on positions and taken off (_add, _sub), and a placement checked
# against the faces with the sets in what it leaves over (_tail). The search
# for a placement (_feasible's bounds and the sweep over the suit's positions)
# is drules_sweep.py's, loaded at the first question that needs it, which bot
# play never asks (docs/firmware.md, "Heap").

import micropython
from micropython import const

# (the type checker finds the installed `micropython` package, Adafruit
# Blinka's, which types @micropython.viper as NoReturn: each viper method
# that EngineBase declares is marked for it, reportIncompatibleMethodOverride)

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

_NPOS = const(18)
_QT = const(24)  # kinds of parts in one question
# the sweep's stack (drules_sweep.py, the same layout: const() does not cross
# modules), which _tail uses for its choices
_LP = const(0)  # position
_LY = const(_NPOS)  # the split being tried
_LR = const(2 * _NPOS)  # the pairs it splits
_LL = const(4 * _NPOS + _QT)  # left over (3 a level)
_LA = const(7 * _NPOS + _QT)  # the faces the split takes from (3 a level)
_LX = const(10 * _NPOS + _QT)  # the search's part of the stack (drules_sweep.py) from here
# self._tot holds four triples (one buffer, one name: docs/firmware.md,
# "Method calls and the instance's map"): the faces of 2, 3, >= 4 copies
# (from 0), those off the stretches (_OFF), the stretches of each width
# (_NST), the most faces left over that can matter (_LCAP); then one count
_OFF = const(3)
_NST = const(6)
_LCAP = const(9)
_T3 = const(12)  # and the 3-faces on stretches of triples (two positions or more)
# self._qs: the question's sets of width 2, 3, 4 counted (_S2 ..), its runs
# (_NRUN), its pairs in runs of any length (_FT) and the bounds of their
# runs of 3 (_FBLO, _FBHI), its other runs' crossings of edges (_NX);
# drules_ladder.py's _try keeps them


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
        # (_z: zeros, to clear _u with one slice copy: drules_init's, made
        # with the decomposition's scratch)
        self._st = bytearray(3 * _NPOS)
        self._sb = bytearray(3 * _NPOS)
        self._tot = bytearray(13)  # (_OFF, _NST, _LCAP, _T3: see above)
        self._sf = bytearray(3 * _NPOS)  # faces of 2, 3, >= 4 copies at p..
        # The stretches of each width (from w*_NPOS): length, sets in them.
        self._sl = bytearray(3 * _NPOS)
        self._sc = bytearray(3 * _NPOS)
        self._se = bytearray(3 * _NPOS)  # and the sets across their edges
        # (_tot[_OFF:]: faces of 2, 3, >= 4 copies off every stretch of two
        # positions or more: no run can use them, only sets)
        # From each position p up (nothing open at p): the edges' room for
        # crossings (_rs[p]), and the sets that runs can take (_rs[_NPOS + p]:
        # at each position no more than the crossings of its two edges); of
        # those, the pairs 2- and 4-faces can hold (not a 3-face's pair), at
        # positions with such a face beside them (_rs[2 * _NPOS + p]) and at
        # the others (_rs[3 * _NPOS + p]: a run there takes a 3-face beside);
        # and the pairs 2-faces can hold (_rs[4 * _NPOS + p]).
        self._rs = bytearray(5 * _NPOS)
        self._n = bytearray(3)  # the question's pairs, triples, quads (sets)
        self._np = 0
        self._qm = bytearray(_QT)
        self._qk = bytearray(_QT)
        self._qn = bytearray(_QT)
        # _tpoly's knapsack; in a ladder check the questions that failed
        # (drules_sweep._failed: two records of 12 bytes, then _posbound's)
        self._tb = bytearray(_QT + 4)
        self._ql = bytearray(_QT)  # lowest start + 1 (0: any; a trick's key)
        # The sweep's kinds: width, length, parts left, offset of the width
        # in _u (their weights in the demand d, mixed radix: the sweep's
        # _li). Made here, not with the
        # search, so that the engine's map of attributes stays sparse before
        # the search comes (97 slots, not 73 nearly full: docs/firmware.md,
        # "Method calls and the instance's map").
        # (their bytes come with the search, _sweep_init: only it reads them;
        # the names are here, empty, for the map's size)
        e = bytearray()
        self._dm = self._dk = self._dn = self._dl = self._db = e
        self._nd = 0
        self._nq = 0
        self._qs = bytearray(8)  # the question's sets, runs (_S2 .. _NX: drules_ladder.py)
        self._ub = bytearray(3 * _NPOS)  # the placement before a search
        # the faces of 2, 3, >= 4 copies that the placement in self._u leaves
        # over, when _tail found them with no choice to make (_lok)
        self._mon = False
        self._memo_init()
        # the sweep's explicit stack (drules_sweep.py, _sweep_init), which
        # _tail uses too; the sweep's own buffers come with its code (the
        # search: drules.Engine._feasible), here at once if it is loaded
        # (_tail's part of it: the search's, from _LX, comes with the search,
        # _sweep_init, which makes the whole stack: 636 bytes, not 204)
        self._lv = bytearray(_LX)
        # (empty until the search's buffers are made: an engine made before
        # another one's first question loaded the search makes them at its
        # own, drules_sweep.Sweep._feasible)
        self._memo = bytearray(0)
        if hasattr(self, "_sweep"):
            self._sweep_init()
        self.nstates = 0  # states expanded (for the benchmarks and the bound)
        self._ns0 = 0

    # The placement's buffer cleared, restored: slice copies (one C
    # call each; a loop over the 72 bytes cost more than a greedy try). Not
    # native: the bytecode VM's slices of a bytearray are not allocated,
    # native code's are.
    def _uzero(self):
        # type: () -> None
        self._u[:] = self._z
        self._vp[9] = 0  # (the left-over faces of self._vp are not known)

    def _urestore(self):
        # type: () -> None
        self._u[:] = self._ub
        self._vp[9] = 0

    @micropython.viper
    def _psetup(self, cnt, s: int, nw: int):  # pyright: ignore[reportIncompatibleMethodOverride]
        """The resources of the suit-s cards in cnt, once per count array;
        the stretches of the first nw widths (1: pairs only, for questions
        with no run of triples or quads; 3: all; issue 21: a third of its
        time, and it is the costliest machine-code call of a ladder check).
        (viper: its int arithmetic and buffer loads are machine code, not
        runtime calls; every buffer through ptr8, every load cast to int)"""
        cp = ptr8(cnt)
        np_ = int(ptr8(self.npos)[s])
        self._np = np_
        a = ptr8(self._a)
        st = ptr8(self._st)
        sb = ptr8(self._sb)
        order = ptr8(self.order)
        pidx = ptr8(self.pidx)
        base = s * _NPOS
        sf = ptr8(self._sf)
        sf[np_] = 0
        sf[_NPOS + np_] = 0
        sf[2 * _NPOS + np_] = 0
        off = ptr8(self._tot)  # (its _OFF triple)
        off[_OFF] = 0
        off[_OFF + 1] = 0
        off[_OFF + 2] = 0
        edg = rc = er = vg = vs = h = h2 = w2 = 0
        f2 = f3 = f4 = 0  # faces of 2, 3, >= 4 copies from p up
        rs = ptr8(self._rs)
        sl = ptr8(self._sl)
        sc = ptr8(self._sc)
        se = ptr8(self._se)
        c = 0
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
                    for i in range(int(pidx[base + p]), int(pidx[base + p + 1])):
                        c = int(cp[int(order[i])])
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
                    x = int(a[p + 1])
                    w2 += x if x < y else y
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
                    c = int(a[2 * _NPOS + p])
                    if w == 1:
                        c += int(a[_NPOS + p])
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
                        off[_OFF] += a[p + 1]
                        off[_OFF + 1] += a[_NPOS + p + 1]
                        off[_OFF + 2] += a[2 * _NPOS + p + 1]
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
                    off[_OFF] += a[0]
                    off[_OFF + 1] += a[_NPOS]
                    off[_OFF + 2] += a[2 * _NPOS]
            off[_NST + w] = ns - b
        off[0] = f2
        off[1] = f3
        off[2] = f4
        # the 3-faces that runs of triples can take: on stretches of triples
        # (_feasible's bound, and _try's before its greedy tries)
        y = 0
        if nw > 1:
            for p in range(np_):
                if int(st[_NPOS + p]) > 1 or (p and int(st[_NPOS + p - 1]) > 1):
                    y += int(a[_NPOS + p])
        off[_T3] = y

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
        c = self._tot  # (its _LCAP triple)
        c[_LCAP] = n[0]
        c[_LCAP + 1] = n[0] + n[1]
        c[_LCAP + 2] = n[2] + n[1] + ((n[0] + 1) >> 1)

    @micropython.viper
    def _tail(self, p: int, l2: int, l3: int, l4: int) -> bool:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Do the sets fit in what the placement in self._u leaves over at
        positions p.. (l2, l3, l4 left over below p)? A position whose pairs
        can be split between 3-faces and 4-faces is a choice: a depth-first
        search over them on the sweep's stack (_lp, _ll, _ly, ...)."""
        u = ptr8(self._u)
        a = ptr8(self._a)
        np_ = int(self._np)
        lv = ptr8(self._lv)
        n = ptr8(self._n)
        one = int(n[2]) == 0
        i = -1
        rest = a2 = a3 = a4 = 0
        while True:
            while p < np_:
                a2 = int(a[p])
                a3 = int(a[_NPOS + p])
                a4 = int(a[2 * _NPOS + p])
                u2 = int(u[p])
                u3 = int(u[_NPOS + p])
                u4 = int(u[2 * _NPOS + p])
                if u2 or u3 or u4:
                    a4 -= u4
                    x = u3 if u3 < a3 else a3
                    a3 -= x
                    a4 -= u3 - x
                    x = u2 if u2 < a2 else a2
                    a2 -= x
                    rest = u2 - x
                    if rest:
                        if a3 and a4:
                            break  # a choice
                        if a3:
                            a3 -= rest
                        else:
                            a4 -= (rest + 1) >> 1
                            a2 += rest & 1
                    if a3 < 0 or a4 < 0:
                        # the placement does not fit these faces (_ladder
                        # asks it of the play's): the next split
                        p = 255
                        break
                l2 += a2
                l3 += a3
                l4 += a4
                p += 1
            if p == np_:
                if i < 0:
                    # no choice on the way: the placement's left-over faces,
                    # for the next sets asked on it (_try)
                    vp = ptr8(self._vp)
                    vp[6] = l2
                    vp[7] = l3
                    vp[8] = l4
                    vp[9] = 1
                # do the sets fit in what is left over (_setsfit, written out)
                l4 -= int(n[2])
                if l4 >= 0:
                    x = int(n[1])
                    if x > l3:
                        l4 -= x - l3
                        l3 = 0
                    else:
                        l3 -= x
                    if l4 >= 0 and int(n[0]) <= 2 * l4 + l3 + l2:
                        return True
            elif p < np_:
                # a new choice: its splits, most pairs on 3-faces first (with
                # no quads among the sets, the lowest that fits only)
                i += 1
                lv[_LP + i] = p
                lv[_LL + 3 * i] = l2
                lv[_LL + 3 * i + 1] = l3
                lv[_LL + 3 * i + 2] = l4
                y = rest if rest < a3 else a3
                if one:
                    z = rest - 2 * a4
                    y = 255 if z > y else z if z > 0 else 0
                lv[_LY + i] = y
                lv[_LR + i] = rest
                lv[_LA + 3 * i] = a2
                lv[_LA + 3 * i + 1] = a3
                lv[_LA + 3 * i + 2] = a4
            # the next split of the deepest choice (the earlier ones once its
            # splits are all tried)
            while i >= 0:
                y = int(lv[_LY + i])
                rest = int(lv[_LR + i])
                a4 = int(lv[_LA + 3 * i + 2])
                go = False
                while y < 255:
                    z = rest - y
                    f = (z + 1) >> 1
                    if f <= a4:
                        go = True
                        l2 = int(lv[_LL + 3 * i]) + int(lv[_LA + 3 * i]) + (z & 1)
                        l3 = int(lv[_LL + 3 * i + 1]) + int(lv[_LA + 3 * i + 1]) - y
                        l4 = int(lv[_LL + 3 * i + 2]) + a4 - f
                        y = 255 if y == 0 or one else y - 1
                        break
                    y = 255 if y == 0 else y - 1
                lv[_LY + i] = y
                if go:
                    # (no cap at what the sets can use, as the sweep's: no
                    # state of _tail is remembered, and the fit is the same)
                    p = int(lv[_LP + i]) + 1
                    break
                i -= 1
            if i < 0:
                return False

    @micropython.viper
    def _add(self, p: int, m: int, k: int) -> bool:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Put a part (m, k) at positions p..p+k-1 if every one still fits
        (_fits_at, written out: this is the sweep's inner loop)."""
        u = ptr8(self._u)
        a = ptr8(self._a)
        b = (m - 2) * _NPOS
        q = p
        e = p + k
        while q < e:
            u[b + q] += 1
            a4 = int(a[2 * _NPOS + q]) - int(u[2 * _NPOS + q])
            u3 = int(u[_NPOS + q])
            a3 = int(a[_NPOS + q])
            if u3 > a3:
                a4 -= u3 - a3
                a3 = 0
            else:
                a3 -= u3
            if a4 < 0 or int(u[q]) > 2 * a4 + a3 + int(a[q]):
                while q >= p:
                    u[b + q] -= 1
                    q -= 1
                return False
            q += 1
        return True

    # bytecode (issue 21, the heap): _greedy's parts taken back (_ungreedy); the sweep's own
    # are written out in it
    def _sub(self, p, m, k):
        # type: (int, int, int) -> None
        u = self._u
        b = (m - 2) * _NPOS
        for q in range(p, p + k):
            u[b + q] -= 1
