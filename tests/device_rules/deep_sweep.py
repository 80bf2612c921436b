# A deliberately deep variant of the device engine's placement sweep, kept as a
# fixture of tests/device_rules/test_call_depth.py: the sweep as it was before
# it was made iterative (firmware/drules_sweep.py at 437b9c8^), recursing once
# per position and per kind of run started there. It gives the same answers;
# its call depth grows with the cards, which the depth test must catch (it is
# what crashed the chip on adv-21 and adv-beyond-1: docs/firmware.md, "The C
# stack"). Not firmware: never deployed.
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
from drules_base import EngineBase
from micropython import const

_NPOS = const(18)  # the engine's (firmware/drules.py)


class RecursiveSweep(EngineBase):
    """The recursive sweep (a fixture); mixed into DeepEngine below."""

    def _sweep_init(self):
        # type: () -> None
        # the recursion keeps its state in its frames; the memo's table of
        # failed states, as the iterative sweep's _sweep_init makes it
        self._memo = bytearray((64 + _NPOS) * 16 + 1)  # (then the keys, the generation)
        # the sweep's kinds, as the iterative sweep's _sweep_init makes them
        self._dm = bytearray(24)
        self._dk = bytearray(24)
        self._dn = bytearray(24)
        self._dl = bytearray(24)
        self._db = bytearray(24)
        self._li = array("i", bytes(4 * (3 * _NPOS + 24)))  # (the demand's weights from 3 * _NPOS)
        self._nd = 0

    @micropython.native
    def _sweep(self, p, d, l2, l3, l4):
        # type: (int, int, int, int, int) -> bool
        """Place the runs d (what _dn holds) at positions p.. given the runs
        already open (self._u at p..), the sets in what is left over: l2, l3,
        l4 faces of 2, 3, >= 4 copies below p (at most self._tot[9:12])."""
        u = self._u
        sf = self._sf
        n = self._n
        dk = self._dk
        dn = self._dn
        db = self._db
        dm = self._dm
        sb = self._sb
        # The sets, and the runs still to place counted as sets, must fit in
        # what is left over and all the faces from p up (_fits_at, written
        # out); each run kind left needs a stretch long enough above p.
        r2 = n[0]
        r3 = n[1]
        r4 = n[2]
        for t in range(self._nd):
            x = dn[t]
            if x:
                k = dk[t]
                if sb[db[t] + p] < k:
                    return False
                w = dm[t]
                if w == 2:
                    r2 += x * k
                elif w == 3:
                    r3 += x * k
                else:
                    r4 += x * k
        a4 = l4 + sf[2 * _NPOS + p] - r4
        a3 = l3 + sf[_NPOS + p]
        if r3 > a3:
            a4 -= r3 - a3
            a3 = 0
        else:
            a3 -= r3
        if a4 < 0 or r2 > 2 * a4 + a3 + l2 + sf[p]:
            return False
        if d == 0 and not (u[p] or u[_NPOS + p] or u[2 * _NPOS + p]):
            return True  # nothing open: all the rest is left over
        if p >= self._np:
            return False
        # (the first _EAGER states of a question are not looked up: most
        # questions end within them; a state is then expanded twice at most)
        self.nstates += 1
        h = self._look(p, d, l2, l3, l4) if d and self._mon and self.nstates > self._ns0 else -1
        if h == -2:
            return False
        if self._starts(p, 0, d, l2, l3, l4):
            return True
        if h >= 0:
            self._remember(h, p)
        return False

    @micropython.native
    def _starts(self, p, t, d, l2, l3, l4):
        # type: (int, int, int, int, int, int) -> bool
        """Choose how many runs of kind t.. start at position p (most first);
        then go on past p with what it leaves over."""
        nd = self._nd
        dk = self._dk
        dn = self._dn
        db = self._db
        st = self._st
        dl = self._dl
        while t < nd and (dn[t] == 0 or st[db[t] + p] < dk[t] or p < dl[t]):
            t += 1
        if t >= nd:
            u = self._u
            if not (u[p] or u[_NPOS + p] or u[2 * _NPOS + p]):
                # Nothing here but sets: all of it is left over; so on up
                # to where a run can start (nothing is open there either).
                a = self._a
                c = self._tot  # (its triple from 9: the most faces left over that matter)
                np_ = self._np
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
                if l2 > c[9]:
                    l2 = c[9]
                if l3 > c[10]:
                    l3 = c[10]
                if l4 > c[11]:
                    l4 = c[11]
                return self._sweep(p, d, l2, l3, l4)
            return self._over(p, d, l2, l3, l4, True)
        m = self._dm[t]
        k = dk[t]
        n = dn[t]
        r = self._li[3 * _NPOS + t]
        x = 0
        while x < n and self._add(p, m, k):
            x += 1
        dn[t] = n - x
        while True:
            if self._starts(p, t + 1, d - x * r, l2, l3, l4):
                dn[t] = n
                return True
            if x == 0:
                return False
            self._sub(p, m, k)
            x -= 1
            dn[t] += 1

    @micropython.native
    def _over(self, p, d, l2, l3, l4, sweep):
        # type: (int, int, int, int, int, bool) -> bool
        """Go on past position p with what its runs leave over (every way of
        splitting their pairs between 3-faces and 4-faces). sweep: go on with
        _sweep, else with _tail."""
        u = self._u
        a = self._a
        c = self._tot  # (its triple from 9: the most faces left over that matter)
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
        while y >= 0:
            z = rest - y
            f = (z + 1) >> 1
            if f <= a4:
                n2 = l2 + a2 + (z & 1)
                n3 = l3 + a3 - y
                n4 = l4 + a4 - f
                if n2 > c[9]:
                    n2 = c[9]
                if n3 > c[10]:
                    n3 = c[10]
                if n4 > c[11]:
                    n4 = c[11]
                if self._sweep(p + 1, d, n2, n3, n4) if sweep else self._tail(p + 1, n2, n3, n4):
                    return True
            y -= 1
        return False

    @micropython.native
    def _tail(self, p, l2, l3, l4):
        # type: (int, int, int, int) -> bool
        """Do the sets fit in what the placement in self._u leaves over at
        positions p.. (l2, l3, l4 left over below p)?"""
        u = self._u
        a = self._a
        np_ = self._np
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
                        return self._over(p, 0, l2, l3, l4, False)  # a choice
                    if a3:
                        a3 -= rest
                    else:
                        a4 -= (rest + 1) >> 1
                        a2 += rest & 1
            l2 += a2
            l3 += a3
            l4 += a4
            p += 1
        return self._setsfit(l2, l3, l4)

    def _setsok(self):
        # type: () -> bool
        """Do the question's sets fit in what the placement in self._u leaves?"""
        self._sets()
        return self._tail(0, 0, 0, 0)

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

    @micropython.native
    def _sub(self, p, m, k):
        # type: (int, int, int) -> None
        u = self._u
        b = (m - 2) * _NPOS
        for q in range(p, p + k):
            u[b + q] -= 1


def deep_engine_class():
    """drules.Engine with the recursive sweep in place of the iterative one."""
    import drules
    from drules_sweep import Sweep

    # the search's other methods (the sets' fit, the memo's table: in
    # drules_sweep since issue 21's heap work) from the iterative one's module
    class DeepEngine(RecursiveSweep, Sweep, drules.Engine):
        pass

    return DeepEngine
