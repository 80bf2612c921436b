# Device rules engine, part of drules.Engine (see drules.py for the API): the
# sweep of the ladders' placement oracle (drules_place.py sets it up). From
# the weakest position up, it decides how many runs of each kind start at
# each position (most first); a position's sets of runs take faces the way
# that leaves the most over (quads 4-faces, triples 3-faces first, pairs
# 2-faces first, then 3-faces or two to a 4-face: every split tried), and the
# sets of the question are placed at the end in what was left over, counted
# as faces of 2, 3, >= 4 copies (enough faces of each kind: docs/firmware.md).
# A state (position, runs left, runs open, faces left over) that failed is
# remembered (drules_memo.py), so none is expanded twice.

from array import array

import micropython
from micropython import const

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


class Sweep(EngineBase):
    """The placement oracle's sweep; mixed into drules.Engine."""

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
        # (one buffer for the bytes, one array for the ints: fewer objects)
        self._lv = bytearray(_LVN)
        self._li = array("i", bytes(4 * 3 * _NPOS))

    @micropython.native
    def _sweep(self, p, d, l2, l3, l4):
        # type: (int, int, int, int, int) -> bool
        """Place the runs d (what _dn holds) at positions p.. given the runs
        already open (self._u at p..), the sets in what is left over: l2, l3,
        l4 faces of 2, 3, >= 4 copies below p (at most self._lcap). On success
        self._u holds the placement. A depth-first search over the levels of
        an explicit stack (see _sweep_init), not a recursion."""
        u = self._u
        a = self._a
        sf = self._sf
        n = self._n
        c = self._lcap
        dk = self._dk
        dn = self._dn
        db = self._db
        dm = self._dm
        dl = self._dl
        dr = self._dr
        sb = self._sb
        st = self._st
        nd = self._nd
        np_ = self._np
        lv = self._lv
        li = self._li
        rs = self._rs
        # only the lowest split of a position's pairs is tried when the
        # question has no quads among its sets: the others leave fewer faces
        # for the sets (docs/firmware.md, "The placement oracle")
        one = n[2] == 0
        for t in range(nd):
            lv[_DN0 + t] = dn[t]
        i = -1  # the level being decided
        step = 0  # 0: enter the state (p, d, l2, l3, l4); 1: the level's next split; 2: its next starts
        while True:
            if step == 0:
                # The sets, and the runs still to place counted as sets, must
                # fit in what is left over and all the faces from p up
                # (_fits_at, written out); each run kind left needs a stretch
                # long enough above p.
                ok = -1  # -1: expand the state, 0: it fails, 1: all placed
                r2 = n[0]
                r3 = n[1]
                r4 = n[2]
                # the runs' pairs, the runs of pairs, the runs' crossings of
                # edges and their sets
                y = z = e = g = 0
                for t in range(nd):
                    x = dn[t]
                    if x:
                        k = dk[t]
                        if sb[db[t] + p] < k:
                            ok = 0
                            break
                        w = dm[t]
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
                if e > rs[p] or g > rs[_NPOS + p]:
                    ok = 0
                if ok < 0:
                    a4 = l4 + sf[2 * _NPOS + p] - r4
                    a3 = l3 + sf[_NPOS + p]
                    # the runs' pairs past what 2-faces hold from p up take
                    # 3- and 4-faces (two to a face at most, from two runs):
                    # no triple or quad on those
                    x = y - rs[4 * _NPOS + p]
                    if x > 0:
                        if z > 1:
                            x = (x + 1) >> 1
                        if r3 + x > a3 + a4:
                            a4 = -1
                    # the 3-faces from p up that the runs' pairs take at
                    # least (_feasible's bound from p up): they hold no set
                    y -= rs[2 * _NPOS + p]
                    if y > 0:
                        x = y - rs[3 * _NPOS + p]
                        y = (y + 2) // 3
                        if x > y:
                            y = x
                        if y > sf[_NPOS + p]:
                            a4 = -1  # (more than there are: it fails)
                        a3 -= y
                        r2 -= y
                    if r3 > a3:
                        a4 -= r3 - a3
                        a3 = 0
                    else:
                        a3 -= r3
                    if a4 < 0 or r2 > 2 * a4 + a3 + l2 + sf[p]:
                        ok = 0
                    elif d == 0 and not (u[p] or u[_NPOS + p] or u[2 * _NPOS + p]):
                        ok = 1  # nothing open: all the rest is left over
                    elif p >= np_:
                        ok = 0
                h = -1
                if ok < 0:
                    self.nstates += 1
                    if d and self._mon and self.nstates > self._ns0:
                        h = self._look(p, d, l2, l3, l4)
                        if h == -2:
                            ok = 0  # it failed before
                if ok == 1:
                    for t in range(nd):
                        dn[t] = lv[_DN0 + t]
                    return True
                if ok == 0:
                    if i < 0:
                        return False
                    step = 1 if lv[_LM + i] == 0 else 2
                    continue
                # a new level: how many runs of each kind start at p, most
                # first (the odometer filled from kind 0)
                i += 1
                lv[_LP + i] = p
                li[i] = d
                li[2 * _NPOS + i] = h
                lv[_LL + 3 * i] = l2
                lv[_LL + 3 * i + 1] = l3
                lv[_LL + 3 * i + 2] = l4
                t0 = 0
            else:
                p = lv[_LP + i]
                if step == 1:
                    # the next split of the level's pairs
                    rest = lv[_LR + i]
                    y = lv[_LY + i]
                    a2 = lv[_LA + 3 * i]
                    a3 = lv[_LA + 3 * i + 1]
                    a4 = lv[_LA + 3 * i + 2]
                    go = False
                    while y < 255:
                        z = rest - y
                        f = (z + 1) >> 1
                        if f <= a4:
                            go = True
                            l2 = lv[_LL + 3 * i] + a2 + (z & 1)
                            l3 = lv[_LL + 3 * i + 1] + a3 - y
                            l4 = lv[_LL + 3 * i + 2] + a4 - f
                            y = 255 if y == 0 or one else y - 1
                            break
                        y = 255 if y == 0 else y - 1
                    lv[_LY + i] = y
                    if go:
                        if l2 > c[0]:
                            l2 = c[0]
                        if l3 > c[1]:
                            l3 = c[1]
                        if l4 > c[2]:
                            l4 = c[2]
                        p += 1
                        d = li[_NPOS + i]
                        step = 0
                        continue
                # the next way of starting runs at p: the deepest kind that
                # starts one or more gives one up, the kinds after it are
                # filled again
                b = i * _QT
                t = nd - 1
                while t >= 0 and lv[_LX + b + t] == 0:
                    t -= 1
                if t < 0:
                    # every way failed: the level's state is remembered
                    if li[2 * _NPOS + i] >= 0:
                        self._remember(li[2 * _NPOS + i], p)
                    i -= 1
                    if i < 0:
                        return False
                    step = 1 if lv[_LM + i] == 0 else 2
                    continue
                # one run of kind t fewer at p (_sub, written out)
                x = (dm[t] - 2) * _NPOS + p
                for q in range(x, x + dk[t]):
                    u[q] -= 1
                lv[_LX + b + t] -= 1
                dn[t] += 1
                t0 = t + 1
            # fill the odometer of level i at p from kind t0 on: each kind as
            # many runs as fit (none where it cannot start)
            b = i * _QT
            for t in range(t0, nd):
                x = 0
                nt = dn[t]
                if nt and st[db[t] + p] >= dk[t] and p >= dl[t]:
                    m = dm[t]
                    k = dk[t]
                    while x < nt and self._add(p, m, k):
                        x += 1
                    dn[t] = nt - x
                lv[_LX + b + t] = x
            d = li[i]
            for t in range(nd):
                d -= lv[_LX + b + t] * dr[t]
            li[_NPOS + i] = d
            l2 = lv[_LL + 3 * i]
            l3 = lv[_LL + 3 * i + 1]
            l4 = lv[_LL + 3 * i + 2]
            if not (u[p] or u[_NPOS + p] or u[2 * _NPOS + p]):
                # Nothing here but sets: all of it is left over; so on up to
                # where a run can start (nothing is open there either).
                while True:
                    l2 += a[p]
                    l3 += a[_NPOS + p]
                    l4 += a[2 * _NPOS + p]
                    p += 1
                    if p >= np_:
                        break
                    t = 0
                    while t < nd and (dn[t] == 0 or st[db[t] + p] < dk[t] or p < dl[t]):
                        t += 1
                    if t < nd:
                        break
                if l2 > c[0]:
                    l2 = c[0]
                if l3 > c[1]:
                    l3 = c[1]
                if l4 > c[2]:
                    l4 = c[2]
                lv[_LM + i] = 1
                step = 0
                continue
            # Go on past p with what its runs leave over: the ways of
            # splitting their pairs between 3-faces and 4-faces, most pairs
            # on 3-faces first (_over).
            u2 = u[p]
            u3 = u[_NPOS + p]
            a2 = a[p]
            a3 = a[_NPOS + p]
            a4 = a[2 * _NPOS + p] - u[2 * _NPOS + p]
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

    @micropython.native
    def _tail(self, p, l2, l3, l4):
        # type: (int, int, int, int) -> bool
        """Do the sets fit in what the placement in self._u leaves over at
        positions p.. (l2, l3, l4 left over below p)? A position whose pairs
        can be split between 3-faces and 4-faces is a choice: a depth-first
        search over them on the sweep's stack (_lp, _ll, _ly, ...)."""
        u = self._u
        a = self._a
        np_ = self._np
        lv = self._lv
        n = self._n
        one = n[2] == 0
        i = -1
        rest = a2 = a3 = a4 = 0
        while True:
            while p < np_:
                a2 = a[p]
                a3 = a[_NPOS + p]
                a4 = a[2 * _NPOS + p]
                u2 = u[p]
                u3 = u[_NPOS + p]
                if u2 or u3 or u[2 * _NPOS + p]:
                    a4 -= u[2 * _NPOS + p]
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
                    x = self._vp
                    x[6] = l2
                    x[7] = l3
                    x[8] = l4
                    x[9] = 1
                # do the sets fit in what is left over (_setsfit, written out)
                l4 -= n[2]
                if l4 >= 0:
                    if n[1] > l3:
                        l4 -= n[1] - l3
                        l3 = 0
                    else:
                        l3 -= n[1]
                    if l4 >= 0 and n[0] <= 2 * l4 + l3 + l2:
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
                y = lv[_LY + i]
                rest = lv[_LR + i]
                a4 = lv[_LA + 3 * i + 2]
                go = False
                while y < 255:
                    z = rest - y
                    f = (z + 1) >> 1
                    if f <= a4:
                        go = True
                        l2 = lv[_LL + 3 * i] + lv[_LA + 3 * i] + (z & 1)
                        l3 = lv[_LL + 3 * i + 1] + lv[_LA + 3 * i + 1] - y
                        l4 = lv[_LL + 3 * i + 2] + a4 - f
                        y = 255 if y == 0 or one else y - 1
                        break
                    y = 255 if y == 0 else y - 1
                lv[_LY + i] = y
                if go:
                    # (no cap at what the sets can use, as the sweep's: no
                    # state of _tail is remembered, and the fit is the same)
                    p = lv[_LP + i] + 1
                    break
                i -= 1
            if i < 0:
                return False

    @micropython.native
    def _add(self, p, m, k):
        # type: (int, int, int) -> bool
        """Put a part (m, k) at positions p..p+k-1 if every one still fits
        (_fits_at, written out: this is the sweep's inner loop)."""
        u = self._u
        a = self._a
        b = (m - 2) * _NPOS
        q = p
        e = p + k
        while q < e:
            u[b + q] += 1
            a4 = a[2 * _NPOS + q] - u[2 * _NPOS + q]
            u3 = u[_NPOS + q]
            a3 = a[_NPOS + q]
            if u3 > a3:
                a4 -= u3 - a3
                a3 = 0
            else:
                a3 -= u3
            if a4 < 0 or u[q] > 2 * a4 + a3 + a[q]:
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
