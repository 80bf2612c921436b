# Device rules engine, part of drules.Engine (see drules.py for the API): the
# search of the ladders' placement oracle (drules_place.py holds the
# placement it works on). _feasible asks the question's bounds first; then
# the sweep: from the weakest position up, it decides how many runs of each
# kind start at each position (most first); a position's sets of runs take
# faces the way that leaves the most over (quads 4-faces, triples 3-faces
# first, pairs 2-faces first, then 3-faces or two to a 4-face: every split
# tried), and the sets of the question are placed at the end in what was left
# over, counted as faces of 2, 3, >= 4 copies (enough faces of each kind:
# docs/firmware.md). A state (position, runs left, runs open, faces left
# over) that failed is remembered (drules_memo.py), so none is expanded twice.
# This module is loaded at the first question that reaches _feasible or
# _tpoly (t on the oracle, here: the stubs drules.Engine._feasible and
# _tpoly), with its buffers and the memo's table: bot play never asks it
# (docs/firmware.md, "Heap").

from array import array

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
_QT = const(24)  # kinds of parts in one question (drules_place.py)
# the sweep's stack in one buffer (see Sweep._sweep_init): per level
_LP = const(0)  # position
_LY = const(_NPOS)  # the split being tried
_LR = const(2 * _NPOS)  # the pairs it splits
_LM = const(3 * _NPOS)  # mode (1: skipped on)
_DN0 = const(4 * _NPOS)  # (the demand's kinds as the sweep began: _QT)
_LL = const(4 * _NPOS + _QT)  # left over (3 a level)
_LA = const(7 * _NPOS + _QT)  # the faces the split takes from (3 a level)
_LX = const(10 * _NPOS + _QT)  # runs of each kind started (_QT a level)
_LVN = const(10 * _NPOS + _QT + _NPOS * _QT)
_DR = const(3 * _NPOS)  # self._li's weights of the demand's kinds (_QT words)
# states of a question before failures are remembered: the memo's look-up
# and record are bytecode (x170 on the chip) and a state of the native sweep
# costs less than them, so the memo pays only on long searches (issue 21:
# adv-30: 71 states at 64 against 63 at 16, yet 0.83x the time; no other corpus case
# reaches 16 states since the greedy first try)
_EAGER = const(64)
_NREC = const(64)  # remembered failed states (a power of 2)
_RW = const(16)  # bytes of one: stamp, position, demand (2), left over (3), n, n codes
_PROBE = const(6)
# self._memo (_sweep_init): the table, then a row per position of the sweep
# (its state's key, _KEY), then the generation (_GEN): one buffer, one name
# (docs/firmware.md, "Method calls and the instance's map")
_KEY = const(_NREC * _RW)
_GEN = const(_KEY + _NPOS * _RW)
# the triples in self._tot (drules_place.py, the same values)
_OFF = const(3)
_NST = const(6)
_LCAP = const(9)
_T3 = const(12)
# the question's counts in self._qs (drules_ladder.py, the same values)
_FT = const(4)
_FBLO = const(5)
_FBHI = const(6)
_RB = const(12)  # bytes of one record of a failed question in self._tb (_failed)
_PB = const(24)  # self._tb's record of the bound by position that failed (_posbound)


class Sweep(EngineBase):
    """The placement oracle's search (its bounds, the sweep); mixed into
    drules.Engine at its first question (drules.Engine._feasible)."""

    def _sweep_init(self):
        # type: () -> None
        # The sweep's explicit stack (no recursion: its call depth is a
        # constant, docs/firmware.md "The C stack"): one level per position
        # where the sweep decides (the positions only grow along it, so at
        # most _NPOS levels): the state it was entered with (position, demand,
        # left over, the memo's hash), how many runs of each kind start there
        # (_lx, an odometer over the kinds, most first), the demand left after
        # them, and the split of its pairs being tried (_ly, with the faces it
        # splits: _lr, _la2/3/4); _lmode 1: the level skipped on to a later
        # position (one way only).
        # (one buffer for the bytes, one array for the ints: fewer objects;
        # the bytes, _lv, are drules_place's: _tail uses them too)
        # (and the demand's weights, from _DR: _feasible writes them)
        self._li = array("i", bytes(4 * (_DR + _QT)))
        # the whole stack (the placement made _tail's part of it only,
        # drules_place._place_init) and the kinds' bytes (their names made
        # there, empty): the search's alone, so they come with it
        self._lv = bytearray(_LVN)
        self._dm = bytearray(_QT)
        self._dk = bytearray(_QT)
        self._dn = bytearray(_QT)
        self._dl = bytearray(_QT)
        self._db = bytearray(_QT)
        # the memo's table of failed states (drules_memo.py), which only the
        # sweep reads and writes
        # (then a row per position of the sweep, its key, and the
        # generation: one buffer, drules_memo.py)
        self._memo = bytearray((_NREC + _NPOS) * _RW + 1)

    # ------------------------------------------------------ t on the oracle
    # (here, not with the placement: its every question goes to the search,
    # _pfit's _feasible; the stub drules.Engine._tpoly loads this module)

    def _tpoly(self, cnt, s, cap, lo):
        # type: (bytearray, int, int, int) -> int
        """t of docs/rules.md §6.2 with the placement oracle: runs of pairs split into
        runs of 2 and 3 (a longer run is cut into such, in the same tractor),
        t = 2a + 3b is reached iff the lead's tractors can share out a runs of
        2 and b of 3 (best2[b]: the most runs of 2 beside b runs of 3, a
        knapsack over the tractors) and they can all be placed. The most t,
        from the bound cap down to lo (0 below it)."""
        bins = self._bins
        b2 = self._tb
        bmax = 0
        b2[0] = 0
        for i in range(self._nbins):
            k = bins[i]
            k3 = k // 3
            j = bmax + k3
            while j >= 0:
                best = 255
                for x in range(k3 + 1 if k3 < j else j + 1):
                    prev = b2[j - x] if j - x <= bmax else 255
                    if prev != 255:
                        v = prev + ((k - 3 * x) >> 1)
                        if best == 255 or v > best:
                            best = v
                b2[j] = best
                j -= 1
            bmax += k3
        self._psetup(cnt, s, 1)  # runs of pairs only
        qm = self._qm
        qk = self._qk
        qn = self._qn
        ql = self._ql
        qm[0] = qm[1] = 2
        qk[0] = 2
        qk[1] = 3
        ql[0] = ql[1] = 0
        self._nq = 2
        t = cap
        while t >= 2 and t >= lo:
            b = t & 1
            while 3 * b <= t:
                a = (t - 3 * b) >> 1
                if b <= bmax and b2[b] != 255 and b2[b] >= a:
                    qn[0] = a
                    qn[1] = b
                    if self._pfit():
                        return t
                b += 2
            t -= 1
        return 0

    @micropython.viper
    def _sweep(self, p: int, d: int, l2: int, l3: int, l4: int) -> bool:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Place the runs d (what _dn holds) at positions p.. given the runs
        already open (self._u at p..), the sets in what is left over: l2, l3,
        l4 faces of 2, 3, >= 4 copies below p (at most self._tot[_LCAP:]). On success
        self._u holds the placement. A depth-first search over the levels of
        an explicit stack (see _sweep_init), not a recursion. (viper: the
        attributes read once, each buffer through a pointer, every load cast
        to int; the states counted in ns, written back at each return)"""
        u = ptr8(self._u)
        a = ptr8(self._a)
        sf = ptr8(self._sf)
        n = ptr8(self._n)
        c = ptr8(self._tot)  # (its _LCAP triple)
        dk = ptr8(self._dk)
        dn = ptr8(self._dn)
        db = ptr8(self._db)
        dm = ptr8(self._dm)
        dl = ptr8(self._dl)
        sb = ptr8(self._sb)
        st = ptr8(self._st)
        nd = int(self._nd)
        np_ = int(self._np)
        lv = ptr8(self._lv)
        # the demand per level (from 0), after the level's runs (from _NPOS),
        # the memo's hash + 2 (from 2 * _NPOS: >= 0, as a 32-bit word reads
        # back alike on every port), the demand's weights (_DR)
        li = ptr32(self._li)
        rs = ptr8(self._rs)
        mon = bool(self._mon)
        ns = int(self.nstates)
        ns0 = int(self._ns0)
        # only the lowest split of a position's pairs is tried when the
        # question has no quads among its sets: the others leave fewer faces
        # for the sets (docs/firmware.md, "The placement oracle")
        one = int(n[2]) == 0
        for t in range(nd):
            lv[_DN0 + t] = dn[t]
        i = -1  # the level being decided
        t0 = 0
        rest = a2 = 0
        step = 0  # 0: enter the state (p, d, l2, l3, l4); 1: the level's next split; 2: its next starts
        while True:
            if step == 0:
                # The sets, and the runs still to place counted as sets, must
                # fit in what is left over and all the faces from p up
                # (_fits_at, written out); each run kind left needs a stretch
                # long enough above p.
                ok = -1  # -1: expand the state, 0: it fails, 1: all placed
                r2 = int(n[0])
                r3 = int(n[1])
                r4 = int(n[2])
                # the runs' pairs, the runs of pairs, the runs' crossings of
                # edges and their sets
                y = z = e = g = 0
                for t in range(nd):
                    x = int(dn[t])
                    if x:
                        k = int(dk[t])
                        if int(sb[int(db[t]) + p]) < k:
                            ok = 0
                            break
                        w = int(dm[t])
                        if k > 1:
                            e += x * (k - 1)
                            g += x * k
                            if w == 2:
                                y += x * k
                                z += x
                        x *= k
                        if w == 2:
                            r2 += x
                        elif w == 3:
                            r3 += x
                        else:
                            r4 += x
                # (_feasible's bounds from p up: the runs left cross no more
                # edges, and take no more sets, than those from p hold, _rs;
                # issue 21: adv-30 tried every way of filling the first
                # stretch, 61 states, where most left the next too little)
                if e > int(rs[p]) or g > int(rs[_NPOS + p]):
                    ok = 0
                if ok < 0:
                    a4 = l4 + int(sf[2 * _NPOS + p]) - r4
                    a3 = l3 + int(sf[_NPOS + p])
                    # the runs' pairs past what 2-faces hold from p up take
                    # 3- and 4-faces (two to a face at most, from two runs):
                    # no triple or quad on those
                    x = y - int(rs[4 * _NPOS + p])
                    if x > 0:
                        if z > 1:
                            x = (x + 1) >> 1
                        if r3 + x > a3 + a4:
                            a4 = -1
                    # the 3-faces from p up that the runs' pairs take at
                    # least (_feasible's bound from p up): they hold no set
                    y -= int(rs[2 * _NPOS + p])
                    if y > 0:
                        x = y - int(rs[3 * _NPOS + p])
                        y = (y + 2) // 3
                        if x > y:
                            y = x
                        if y > int(sf[_NPOS + p]):
                            a4 = -1  # (more than there are: it fails)
                        a3 -= y
                        r2 -= y
                    if r3 > a3:
                        a4 -= r3 - a3
                        a3 = 0
                    else:
                        a3 -= r3
                    if a4 < 0 or r2 > 2 * a4 + a3 + l2 + int(sf[p]):
                        ok = 0
                    elif d == 0 and int(u[p]) == 0 and int(u[_NPOS + p]) == 0 and int(u[2 * _NPOS + p]) == 0:
                        ok = 1  # nothing open: all the rest is left over
                    elif p >= np_:
                        ok = 0
                h = -1
                if ok < 0:
                    ns += 1
                    if d and mon and ns > ns0:
                        h = int(self._look(p, d, l2, l3, l4))
                        if h == -2:
                            ok = 0  # it failed before
                if ok == 1:
                    for t in range(nd):
                        dn[t] = lv[_DN0 + t]
                    self.nstates = ns
                    return True
                if ok == 0:
                    if i < 0:
                        self.nstates = ns
                        return False
                    step = 1 if int(lv[_LM + i]) == 0 else 2
                    continue
                # a new level: how many runs of each kind start at p, most
                # first (the odometer filled from kind 0)
                i += 1
                lv[_LP + i] = p
                li[i] = d
                li[2 * _NPOS + i] = h + 2
                lv[_LL + 3 * i] = l2
                lv[_LL + 3 * i + 1] = l3
                lv[_LL + 3 * i + 2] = l4
                t0 = 0
            else:
                p = int(lv[_LP + i])
                if step == 1:
                    # the next split of the level's pairs
                    rest = int(lv[_LR + i])
                    y = int(lv[_LY + i])
                    a2 = int(lv[_LA + 3 * i])
                    a3 = int(lv[_LA + 3 * i + 1])
                    a4 = int(lv[_LA + 3 * i + 2])
                    go = False
                    while y < 255:
                        z = rest - y
                        f = (z + 1) >> 1
                        if f <= a4:
                            go = True
                            l2 = int(lv[_LL + 3 * i]) + a2 + (z & 1)
                            l3 = int(lv[_LL + 3 * i + 1]) + a3 - y
                            l4 = int(lv[_LL + 3 * i + 2]) + a4 - f
                            y = 255 if y == 0 or one else y - 1
                            break
                        y = 255 if y == 0 else y - 1
                    lv[_LY + i] = y
                    if go:
                        if l2 > int(c[_LCAP]):
                            l2 = int(c[_LCAP])
                        if l3 > int(c[_LCAP + 1]):
                            l3 = int(c[_LCAP + 1])
                        if l4 > int(c[_LCAP + 2]):
                            l4 = int(c[_LCAP + 2])
                        p += 1
                        d = int(li[_NPOS + i])
                        step = 0
                        continue
                # the next way of starting runs at p: the deepest kind that
                # starts one or more gives one up, the kinds after it are
                # filled again
                b = i * _QT
                t = nd - 1
                while t >= 0 and int(lv[_LX + b + t]) == 0:
                    t -= 1
                if t < 0:
                    # every way failed: the level's state is remembered
                    h = int(li[2 * _NPOS + i]) - 2
                    if h >= 0:
                        self._remember(h, p)
                    i -= 1
                    if i < 0:
                        self.nstates = ns
                        return False
                    step = 1 if int(lv[_LM + i]) == 0 else 2
                    continue
                # one run of kind t fewer at p (_sub, written out)
                x = (int(dm[t]) - 2) * _NPOS + p
                for q in range(x, x + int(dk[t])):
                    u[q] -= 1
                lv[_LX + b + t] -= 1
                dn[t] += 1
                t0 = t + 1
            # fill the odometer of level i at p from kind t0 on: each kind as
            # many runs as fit (none where it cannot start)
            b = i * _QT
            for t in range(t0, nd):
                x = 0
                nt = int(dn[t])
                k = int(dk[t])
                if nt and int(st[int(db[t]) + p]) >= k and p >= int(dl[t]):
                    m = int(dm[t])
                    while x < nt and self._add(p, m, k):
                        x += 1
                    dn[t] = nt - x
                lv[_LX + b + t] = x
            d = int(li[i])
            for t in range(nd):
                d -= int(lv[_LX + b + t]) * int(li[_DR + t])
            li[_NPOS + i] = d
            l2 = int(lv[_LL + 3 * i])
            l3 = int(lv[_LL + 3 * i + 1])
            l4 = int(lv[_LL + 3 * i + 2])
            if int(u[p]) == 0 and int(u[_NPOS + p]) == 0 and int(u[2 * _NPOS + p]) == 0:
                # Nothing here but sets: all of it is left over; so on up to
                # where a run can start (nothing is open there either).
                while True:
                    l2 += int(a[p])
                    l3 += int(a[_NPOS + p])
                    l4 += int(a[2 * _NPOS + p])
                    p += 1
                    if p >= np_:
                        break
                    t = 0
                    while t < nd and (int(dn[t]) == 0 or int(st[int(db[t]) + p]) < int(dk[t]) or p < int(dl[t])):
                        t += 1
                    if t < nd:
                        break
                if l2 > int(c[_LCAP]):
                    l2 = int(c[_LCAP])
                if l3 > int(c[_LCAP + 1]):
                    l3 = int(c[_LCAP + 1])
                if l4 > int(c[_LCAP + 2]):
                    l4 = int(c[_LCAP + 2])
                lv[_LM + i] = 1
                step = 0
                continue
            # Go on past p with what its runs leave over: the ways of
            # splitting their pairs between 3-faces and 4-faces, most pairs
            # on 3-faces first (_over).
            u2 = int(u[p])
            u3 = int(u[_NPOS + p])
            a2 = int(a[p])
            a3 = int(a[_NPOS + p])
            a4 = int(a[2 * _NPOS + p]) - int(u[2 * _NPOS + p])
            x = u3 if u3 < a3 else a3
            a3 -= x
            a4 -= u3 - x
            x = u2 if u2 < a2 else a2
            a2 -= x
            rest = u2 - x
            y = rest if rest < a3 else a3
            if one:
                # the lowest split that fits
                z = rest - 2 * a4
                if z > y:
                    y = 255  # none
                elif z > 0:
                    y = z
                else:
                    y = 0
            lv[_LM + i] = 0
            lv[_LR + i] = rest
            lv[_LY + i] = y
            lv[_LA + 3 * i] = a2
            lv[_LA + 3 * i + 1] = a3
            lv[_LA + 3 * i + 2] = a4
            step = 1

    @micropython.viper
    def _feasible(self, fa: int, fb: int) -> bool:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Can the parts of the question, and fa runs of 2 pairs and fb runs
        of 3 pairs more, all be placed at once (drules_place.py's top)? self._u must be
        clear; on success it holds the runs' placement."""
        if not self._memo:  # an engine made before the search was loaded
            self._sweep_init()
        qm = ptr8(self._qm)
        qk = ptr8(self._qk)
        qn = ptr8(self._qn)
        sb = ptr8(self._sb)
        dm = ptr8(self._dm)
        dk = ptr8(self._dk)
        dn = ptr8(self._dn)
        nq = int(self._nq)
        nd = 0
        ql = ptr8(self._ql)
        dl = ptr8(self._dl)
        for t in range(nq + 2):
            lo = 0
            if t < nq:
                n = int(qn[t])
                k = int(qk[t])
                m = int(qm[t])
                lo = int(ql[t]) - 1 if int(ql[t]) else 0
            else:
                m = 2
                k = t - nq + 2
                n = fa if k == 2 else fb
            if n == 0 or (k == 1 and (t >= nq or int(ql[t]) == 0)):
                continue  # sets are placed in what the sweep leaves over
            if int(sb[(m - 2) * _NPOS]) < k:
                return False
            # The sweep's kinds of runs, longest first (an insertion sort).
            i = nd
            while i and (int(dk[i - 1]) < k or (int(dk[i - 1]) == k and int(dm[i - 1]) < m)):
                dm[i] = dm[i - 1]
                dk[i] = dk[i - 1]
                dn[i] = dn[i - 1]
                dl[i] = dl[i - 1]
                i -= 1
            if i and int(dk[i - 1]) == k and int(dm[i - 1]) == m and t >= nq:
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
        sl = ptr8(self._sl)
        sc = ptr8(self._sc)
        se = ptr8(self._se)
        tot = ptr8(self._tot)
        for i in range(nd):
            m = int(dm[i])
            k = int(dk[i])
            if k == 1:
                break  # (a set placed high: the longest kinds come first)
            need = 0
            for j in range(i + 1):
                if int(dm[j]) == m:
                    need += int(dn[j])
            b = (m - 2) * _NPOS
            for j in range(b, b + int(tot[_NST - 2 + m])):
                if int(sl[j]) >= k:
                    x = int(sc[j]) // k
                    y = int(se[j]) // (k - 1)
                    need -= x if x < y else y
            if need > 0:
                return False
        # (The greedy packing bound of each kind of runs, _packs and _pack
        # until 2026-12-06, is gone: since the bounds below, it cut no
        # question of the adversarial corpora that they left, and cost 2 % of
        # their instructions and 837 B of native code; docs/firmware.md.)
        # the question's sets and the most faces left over that can matter
        # (_sets, written out: a bytecode call a question)
        ns = ptr8(self._n)
        ns[0] = 0
        ns[1] = 0
        ns[2] = 0
        for t in range(nq):
            if int(qk[t]) == 1 and int(ql[t]) == 0:
                ns[int(qm[t]) - 2] += qn[t]
        n0 = int(ns[0])
        n1 = int(ns[1])
        tot[_LCAP] = n0
        tot[_LCAP + 1] = n0 + n1
        tot[_LCAP + 2] = int(ns[2]) + n1 + ((n0 + 1) >> 1)
        if nd == 0:
            return bool(self._setsfit(int(tot[0]), int(tot[1]), int(tot[2])))
        self._nd = nd
        # (the sweep first checks that all of it fits counted as sets)
        # Bounds first. Every run crosses k - 1 edges (at a position each of
        # its runs takes a set), no more crossings than the edges hold
        # (_rs[0]); its k sets are at positions that runs can reach, no more
        # than _rs[_NPOS] (the sweep asks the same at each stretch's start,
        # from there up). The faces off the stretches (_tot[_OFF:]) hold sets only: the
        # runs' sets, and the sets of each kind that could not all be off,
        # must fit in the faces on the stretches; the runs' pairs, and the
        # sets' pairs that the 2-faces off cannot hold, in all but those.
        off = tot  # (its _OFF triple)
        v = int(ns[0]) - int(off[_OFF])
        x = r2 = r3 = r4 = h3 = h4 = 0
        d = 0
        r = 1
        db = ptr8(self._db)
        li = ptr32(self._li)  # (the demand's weights from _DR: the sweep's)
        for i in range(nd):
            m = int(dm[i])
            k = int(dk[i])
            y = int(dn[i])
            db[i] = (m - 2) * _NPOS
            li[_DR + i] = r
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
        rs = ptr8(self._rs)
        if x > int(rs[0]) or r2 + r3 + r4 > int(rs[_NPOS]):
            return False
        h3 += int(ns[1])
        h4 += int(ns[2])
        if r3:
            # Runs of triples take 3-faces only on stretches of triples
            # (two positions or more): the rest of their sets take 4-faces
            # (adv-47: a Titanic on two 4-faces, the quads' and pairs'
            # faces then too few: a sweep of 8 states to none): _psetup
            # counts those 3-faces (_tot[_T3]).
            y = int(tot[_T3])
            if r3 > y:
                r4 += r3 - y
                r3 = y
        # (The 3-faces and the 3- and 4-faces that the runs' pairs take,
        # past what the 2- and 4-faces, or the 2-faces, hold: the sweep's
        # first state asks them, docs/firmware.md "Bounds by position".)
        # (_fits_at twice, written out: quads take 4-faces, triples 3-faces
        # first, pairs what is left, two in a 4-face)
        o2 = int(off[_OFF])
        o3 = int(off[_OFF + 1])
        o4 = int(off[_OFF + 2])
        a4 = int(tot[2]) - r4 - h4
        a3 = int(tot[1]) - r3 - h3
        if a3 < 0:
            a4 += a3
            a3 = 0
        if a4 < 0 or r2 + (v if v > 0 else 0) > 2 * a4 + a3 + int(tot[0]) - o2:
            return False
        v -= o3 + 2 * o4
        y = h3 - o3 - o4
        x = h4 - o4
        a4 = int(tot[2]) - o4 - r4 - (x if x > 0 else 0)
        a3 = int(tot[1]) - o3 - r3 - (y if y > 0 else 0)
        if a3 < 0:
            a4 += a3
            a3 = 0
        if a4 < 0 or r2 + (v if v > 0 else 0) > 2 * a4 + a3 + int(tot[0]) - o2:
            return False
        if not self._posbound(nd):
            return False
        mon = r <= 65536
        self._mon = mon
        if mon:
            self._newgen()
        else:
            # too many states to name in 16 bits: none is remembered, and d
            # is just the runs left (d = 0 is all that matters then; the d
            # summed above may have wrapped round a machine word: not used)
            d = 0
            for i in range(nd):
                li[_DR + i] = 1
                d += int(dn[i])
        self._ns0 = int(self.nstates) + _EAGER
        return bool(self._sweep(0, d, 0, 0, 0))


    # ------------------------------------------- moved with the search (issue 21)
    # (from drules_memo: the table of failed states; from drules_place: the
    # sets' fit in what the sweep leaves over): only the search calls them,
    # so they come with it, not with every engine that has ladders

    def _newgen(self):
        # type: () -> None
        """A new question: every state remembered so far is forgotten."""
        memo = self._memo
        g = memo[_GEN] + 1
        if g > 255:
            for i in range(0, _NREC * _RW, _RW):
                memo[i] = 0
            g = 1
        memo[_GEN] = g

    # bytecode (issue 21, a heap that fits): no measurable share of the adversarial corpora's time
    # (CPython profile); native: 1,328 B of the chip's heap
    def _look(self, p, d, l2, l3, l4):
        # type: (int, int, int, int, int) -> int
        """The state at position p (the runs to place, the faces left over,
        the open runs as (width, positions left) codes in a canonical order),
        written to row p of the keys (self._memo from _KEY): -2 if it failed before, else its hash
        for _remember (-1: too many open runs to remember)."""
        key = self._memo
        u = self._u
        np_ = self._np
        k0 = _KEY + p * _RW
        key[k0] = key[_GEN]
        key[k0 + 1] = p
        key[k0 + 2] = d & 255
        key[k0 + 3] = d >> 8
        key[k0 + 4] = l2
        key[k0 + 5] = l3
        key[k0 + 6] = l4
        n = k0 + 8
        h = ((d * 131 + p) * 7 + l2) * 5 + l3 * 3 + l4
        for w in range(3):
            b = w * _NPOS
            j = u[b + p]
            q = p
            while j:
                while q < np_ and u[b + q] >= j:
                    q += 1
                if n >= k0 + _RW:
                    return -1
                c = (w << 5) | (q - p)
                key[n] = c
                n += 1
                h = (h & 0xFFFFF) * 33 + c
                j -= 1
        key[k0 + 7] = n - k0
        memo = key
        g = key[_GEN]
        h &= _NREC - 1
        for i in range(_PROBE):
            b = ((h + i) & (_NREC - 1)) * _RW
            if memo[b] != g:
                return h
            j = 1
            while j < n - k0 and memo[b + j] == key[k0 + j]:
                j += 1
            if j == n - k0:
                return -2
        return h

    # bytecode (issue 21, a heap that fits): no measurable share of the adversarial time; native:
    # 400 B of the chip's heap
    def _remember(self, h, p):
        # type: (int, int) -> None
        """Remember that the state in row p of the keys failed."""
        memo = self._memo
        key = memo
        g = memo[_GEN]
        b = 0
        for i in range(_PROBE):
            b = ((h + i) & (_NREC - 1)) * _RW
            if memo[b] != g:
                break
        k0 = _KEY + p * _RW
        for j in range(key[k0 + 7]):
            memo[b + j] = key[k0 + j]

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


    def _setsfit(self, l2, l3, l4):
        # type: (int, int, int) -> bool
        n = self._n
        return self._fits_at(n[0], n[1], n[2], l2, l3, l4)

    @micropython.viper
    def _posbound(self, nd: int) -> bool:
        """Can the runs of pairs find their pairs by position, beside the
        runs of triples and quads (at most two of them: each placement
        tried)? The pairs of runs at p are at most u(p) and at most
        u(p - 1) + u(p + 1) (each run through p has a pair at a neighbour),
        u the pairs each position still holds; all of u's pairs hold the
        runs' and the sets' (a set of triples or quads takes one or two of
        them); the longest runs of pairs (the first kind of pairs: _feasible
        sorts the kinds longest first) each need a stretch of u > 0 as long,
        which holds no more of them than its pairs // their length
        (adv-66). False: no placement."""
        dm = ptr8(self._dm)
        dk = ptr8(self._dk)
        dn = ptr8(self._dn)
        need = 0
        w = 0
        i1 = -1
        i2 = -1
        kl = nl = 0  # the longest runs of pairs: their length, how many
        for i in range(nd):
            k = int(dk[i])
            if k < 2:
                continue
            if int(dm[i]) == 2:
                need += int(dn[i]) * k
                if kl == 0:
                    kl = k
                if k == kl:
                    nl += int(dn[i])
            else:
                w += int(dn[i])
                if i1 < 0:
                    i1 = i
                else:
                    i2 = i
        if need == 0 or w > 2:
            return True
        np_ = int(self._np)
        st = ptr8(self._st)
        a = ptr8(self._a)
        m1 = k1 = m2 = k2 = 0
        if w:
            m1 = int(dm[i1])
            k1 = int(dk[i1])
            if i2 < 0:
                i2 = i1
            if w == 2:
                m2 = int(dm[i2])
                k2 = int(dk[i2])
        mx = 0  # the most pairs of runs of any placement
        # every pair the question's sets take, with the runs' (a set of
        # triples or quads at least one or two of the pairs u counts)
        n = ptr8(self._n)
        ns = need + int(n[0]) + int(n[1]) + 2 * int(n[2])
        s1 = 0
        while s1 < np_:
            if w == 0 or int(st[(m1 - 2) * _NPOS + s1]) >= k1:
                # (two runs of one kind: each pair of starts once)
                s2 = s1 if i2 == i1 else 0
                while s2 < np_:
                    if w < 2 or int(st[(m2 - 2) * _NPOS + s2]) >= k2:
                        # u(p) from the faces at p less the runs' on it
                        # (quads 4-faces, triples 3-faces first: the
                        # fewest pairs lost), term p - 1 once u(p) is known
                        b = 0
                        ul = uc = 0
                        # all the pairs u holds; the longest runs of pairs
                        # that its stretches (positions in a row with
                        # u > 0, as long as those runs) hold: su // kl each
                        tu = sl = su = cl = 0
                        p = 0
                        e1 = s1 + k1
                        e2 = s2 + k2
                        while p <= np_:
                            un = 0
                            if p < np_:
                                q = t = 0
                                if p >= s1 and p < e1:
                                    if m1 == 4:
                                        q = 1
                                    else:
                                        t = 1
                                if p >= s2 and p < e2:
                                    if m2 == 4:
                                        q += 1
                                    else:
                                        t += 1
                                c3 = int(a[_NPOS + p])
                                c4 = int(a[2 * _NPOS + p]) - q
                                if t > c3:
                                    c4 -= t - c3
                                    c3 = 0
                                else:
                                    c3 -= t
                                if c4 < 0:
                                    break
                                un = int(a[p]) + c3 + 2 * c4
                            if un:
                                sl += 1
                                su += un
                                tu += un
                            else:
                                if sl >= kl:
                                    cl += su // kl
                                sl = su = 0
                            if p:
                                x = ul + un
                                b += uc if uc < x else x
                            ul = uc
                            uc = un
                            p += 1
                        if p > np_:
                            if b > mx:
                                mx = b
                            if b >= need and cl >= nl and tu >= ns:
                                return True
                    if w < 2:
                        break
                    s2 += 1
            if w == 0:
                break
            s1 += 1
        # Remembered for the ladders' next questions (_beaten): with these
        # runs of triples and quads (none, one or two), no placement holds
        # more than mx pairs of runs (on these faces: _lstart forgets it)
        tb = ptr8(self._tb)
        tb[_PB] = mx + 1  # (at most the hand's pairs + 1: under 110)
        tb[_PB + 1] = (m1 << 5) | k1
        tb[_PB + 2] = (m2 << 5) | k2
        return False

    # The questions that failed, remembered (the ladders' _try): here with
    # the search and not with the ladders (bot play never loads it): _try
    # calls _failed only after _qtest, which always asks _feasible (so the
    # search is loaded), and _beaten only when a record is there, which only
    # _failed writes after _lstart cleared them. _beaten with the viper
    # emitter (issue 21, 2026-12-07: 6 calls of adv-66, each a loop over the
    # records and the question's kinds; 1.3 KB of machine code); _failed,
    # asked half as often, stays bytecode (0.7 KB as viper: the engine's
    # flash).
    def _failed(self):
        # type: () -> None
        """Remember the question that the search could not place, in
        self._tb (free in a ladder check: _tpoly's knapsack, which no ladder
        check asks): two records of _RB bytes, the older one replaced: its
        parts (up to four kinds, (width << 5 | length, how many)), its pairs
        in runs of any length (t) and the bounds of their runs of 3 (_FBLO,
        _FBHI). The question only grows until _lstart, which forgets them."""
        tb = self._tb
        q = self._qs
        if q[_FBHI] > 15:
            return
        b = 0 if tb[0] == 0 else _RB if tb[_RB] == 0 else tb[_RB - 1]
        qm = self._qm
        qk = self._qk
        qn = self._qn
        j = b + 3
        for i in range(self._nq):
            if qn[i]:
                if j >= b + _RB - 1:
                    tb[b] = 0  # too many kinds to remember
                    return
                tb[j] = (qm[i] << 5) | qk[i]
                tb[j + 1] = qn[i]
                j += 2
        tb[b] = ((j - b - 3) >> 1) + 1
        tb[b + 1] = q[_FT]
        tb[b + 2] = (q[_FBLO] << 4) | q[_FBHI]
        tb[_RB - 1] = _RB - b  # the other record goes next

    @micropython.viper
    def _beaten(self) -> bool:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Does a question that failed (_failed) ask for no more than this
        one: the same pairs in runs of any length, split no other way than
        it could be, and of every other kind of part as many or fewer? Then
        no placement of this one exists either (one would place that one).
        Or does this one have the runs of triples and quads of a question
        whose bound by position failed (_posbound's record), with more
        pairs in runs than it found room for? Then that bound fails for
        this one too."""
        tb = ptr8(self._tb)
        q = ptr8(self._qs)
        qm = ptr8(self._qm)
        qk = ptr8(self._qk)
        qn = ptr8(self._qn)
        nq = int(self._nq)
        ft = int(q[_FT])
        if tb[_PB]:
            # The bound by position that failed (_posbound): the same runs
            # of triples and quads, and more pairs in runs than any
            # placement of them leaves room for (adv-51, adv-52: a
            # tractor's runs of pairs, each shorter one asked in turn)
            x = int(tb[_PB + 1])
            y = int(tb[_PB + 2])
            c = ft
            i = 0
            while i < nq:
                n = int(qn[i])
                k = int(qk[i])
                if n and k > 1:
                    w = (int(qm[i]) << 5) | k
                    if w >> 5 == 2:
                        c += n * k
                    else:
                        while n:
                            if x == w:
                                x = 0
                            elif y == w:
                                y = 0
                            else:
                                x = 255  # not the same runs
                            n -= 1
                i += 1
            if x == 0 and y == 0 and c >= int(tb[_PB]):
                return True
        lo = int(q[_FBLO])
        hi = int(q[_FBHI])
        b = 0
        while b < 2 * _RB:
            c = int(tb[b])
            z = int(tb[b + 2])
            if c and int(tb[b + 1]) == ft and z >> 4 <= lo and hi <= z & 15:
                j = b + 3
                e = j + 2 * (c - 1)
                while j < e:
                    x = int(tb[j])
                    i = 0
                    while i < nq and not (int(qm[i]) == x >> 5 and int(qk[i]) == x & 31 and int(qn[i]) >= int(tb[j + 1])):
                        i += 1
                    if i == nq:
                        break
                    j += 2
                if j >= e:
                    return True
            b += _RB
        return False


def load_all(D):
    """Every part's methods on the Engine of D (the drules module), as with
    3-4 decks and the search: for the host's benchmarks and the engine's
    tests, which wrap the methods by name before any check
    (host/tractor_table/sim/engine/mpy/kindtime_mp.py). Here, not in drules:
    the table never calls it, and drules stays in the heap all the play (D
    is passed in: no part imports drules)."""
    D._parts(True)
    D._put(Sweep)
