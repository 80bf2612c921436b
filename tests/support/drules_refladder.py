# The device engine's searches before issue 12 (exponential in the led
# units): the ladder search, the matching of a play against the lead's units
# (trick winner) and the t-search of docs/rules.md §6.2, kept as the reference oracle for the polynomial ones
# (firmware/drules_ladder.py, drules_place.py, drules_sweep.py):
# tests/device_rules/test_drules_ladder_prop.py compares the two on random
# inputs under CPython and MicroPython. RefEngine is drules.Engine with these
# searches in place of the new ones.

import drules
from micropython import const

OK = const(0)
R_PAIRS = const(6)
R_TRACTOR = const(7)
R_TRIPLES = const(8)
R_TITANIC = const(9)
R_SAME_SHAPE = const(10)
_NPOS = const(18)  # the engine's (firmware/drules.py)
_VW = const(24)
_PW = const(40)
_NPOS2 = const(18)


class RefEngine(drules.Engine):
    """drules.Engine with the old (exponential) ladder search."""

    def __init__(self, *args, **kw):
        drules.Engine.__init__(self, *args, **kw)
        self._vr = bytearray(_VW * _VW)
        self._vh = bytearray(_VW)
        self._lb = bytearray(_VW)
        self._vfound = bytearray(_VW)
        self._pat = bytearray(_VW * _PW)
        self._patn = bytearray(_VW)
        self._nlv = 0
        self._pmax = 0

    # ------------------------------------------------------- 3-4 deck ladder

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
        self._nlv = nv
        if nv == 0:
            return OK
        vr = self._vr
        vh = self._vh
        self._vector(hand, s)
        for j in range(nv):
            vh[j] = vr[j]
        self._vector(pc, s)
        for j in range(nv):
            if vr[j] != vh[j]:
                return self._rung_reason(lu[3 * j], lu[3 * j + 1], vh[j], vr[j])
        return OK

    def _vector(self, cnt, s):
        # type: (bytearray, int) -> None
        """Row 0 of self._vr: the vector of rungs the suit-s cards in cnt reach.
        First each unit's best rung on its own (self._lb, a bound no vector
        can go below), which lets the search stop as soon as it is reached."""
        nv = self._nlv
        vr = self._vr
        lb = self._lb
        for j in range(1, nv):  # unit 0's bound is never needed
            self._nlv = j + 1
            self._lvec(j, cnt, s)
            lb[j] = vr[j * _VW + j]
        self._nlv = nv
        self._lvec(0, cnt, s)

    def _rung_reason(self, m, k, need, got):
        # type: (int, int, int, int) -> int
        """Reason code when a play reached rung `got` of a led unit's ladder
        where the holding reached rung `need`: what the needed rung's pattern
        has more of than the play's (triples in a Titanic, triples, pairs in
        a tractor; else pairs)."""
        if self.same_shape_only or m >= 4:
            return R_SAME_SHAPE
        fn = self._rung_feat(m, k, need)
        fg = self._rung_feat(m, k, got)
        if (fn >> 10) > (fg >> 10):
            return R_TITANIC
        if ((fn >> 5) & 31) > ((fg >> 5) & 31):
            return R_TRIPLES
        if (fn & 31) > (fg & 31):
            return R_TRACTOR
        return R_PAIRS

    def _rung_feat(self, m, k, r):
        # type: (int, int, int) -> int
        """What the (first pattern of) rung r of the ladder of (m, k) holds:
        triples in Titanics << 10 | triples << 5 | pairs in tractors; 0 past
        the last rung."""
        if m == 3:
            if k == 1:
                return 32 if r == 0 else 0
            if r == 0:
                return (k << 10) | (k << 5)
            if r == 1:
                return k << 5
            if r == 2:
                return k
            n = 3
            for j in range(k - 1, -1, -1):
                for i in range(k - j, -1, -1):
                    if j == 0 and i == 0:
                        continue
                    if n == r:
                        return j << 5
                    n += 1
            return 0
        if k == 1:
            return 0
        n = 0
        t = k
        while t >= 0:
            q = k
            while q >= t and q > 0:
                if n == r:
                    return t
                n += 1
                q -= 1
            t = t - 1 if t > 2 else (0 if t == 2 else -1)
        return 0

    def _setpat(self, i, n, m, k):
        # type: (int, int, int, int) -> int
        b = i * _PW + 2 * n
        self._pat[b] = m
        self._pat[b + 1] = k
        return n + 1

    def _rung(self, i, n, cnt, s):
        # type: (int, int, bytearray, int) -> bool
        """Try the n-part pattern at level i; True if some realization exists."""
        self._patn[i] = n
        self._pplace(i, 0, cnt, s, _NPOS)
        return self._vfound[i] != 0

    def _lvec(self, i, cnt, s):
        # type: (int, bytearray, int) -> None
        """Row i of self._vr: the least vector of rungs of units i.. (self._lu)
        that the suit-s cards in cnt reach."""
        nv = self._nlv
        if i >= nv:
            return
        lu = self._lu
        m = lu[3 * i]
        k = lu[3 * i + 1]
        self._vfound[i] = 0
        r = 0
        if self.same_shape_only or m >= 4 or (m == 2 and k == 1):
            if self._rung(i, self._setpat(i, 0, m, k), cnt, s):
                return self._setrung(i, 0)
            r = 1
        elif m == 3 and k == 1:
            if self._rung(i, self._setpat(i, 0, 3, 1), cnt, s):
                return self._setrung(i, 0)
            if self._rung(i, self._setpat(i, 0, 2, 1), cnt, s):
                return self._setrung(i, 1)
            r = 2
        elif m == 3:
            if self._rung(i, self._setpat(i, 0, 3, k), cnt, s):
                return self._setrung(i, 0)
            for j in range(k):
                self._setpat(i, j, 3, 1)
            if self._rung(i, k, cnt, s):
                return self._setrung(i, 1)
            if self._rung(i, self._setpat(i, 0, 2, k), cnt, s):
                return self._setrung(i, 2)
            r = 3
            for j in range(k - 1, -1, -1):
                for ii in range(k - j, -1, -1):
                    if j == 0 and ii == 0:
                        continue
                    n = 0
                    for _ in range(j):
                        n = self._setpat(i, n, 3, 1)
                    for _ in range(ii):
                        n = self._setpat(i, n, 2, 1)
                    if self._rung(i, n, cnt, s):
                        return self._setrung(i, r)
                    r += 1
        else:
            # A tractor of k pairs: rungs (t, q), t pairs in runs (any split
            # into runs of >= 2 pairs) and q - t more pairs; t = k .. 2, then 0.
            t = k
            while t >= 0:
                q = k
                while q >= t and q > 0:
                    self._patn[i] = 0
                    self._parts(i, 0, t, t, q - t, cnt, s)
                    if self._vfound[i]:
                        return self._setrung(i, r)
                    r += 1
                    q -= 1
                t = t - 1 if t > 2 else (0 if t == 2 else -1)
        # No rung: the unit takes nothing.
        vr = self._vr
        vr[i * _VW + i] = r
        self._lvec(i + 1, cnt, s)
        a = (i + 1) * _VW
        b = i * _VW
        for j in range(i + 1, nv):
            vr[b + j] = vr[a + j]

    def _setrung(self, i, r):
        # type: (int, int) -> None
        self._vr[i * _VW + i] = r

    def _parts(self, i, n, rest, maxpart, extra, cnt, s):
        # type: (int, int, int, int, int, bytearray, int) -> bool
        """Every split of `rest` pairs into runs of >= 2 (largest first), then
        `extra` pairs, tried as patterns at level i. True: stop (optimal)."""
        if rest == 0:
            for _ in range(extra):
                n = self._setpat(i, n, 2, 1)
            self._patn[i] = n
            return self._pplace(i, 0, cnt, s, _NPOS)
        part = rest if rest < maxpart else maxpart
        while part >= 2:
            if self._parts(i, self._setpat(i, n, 2, part), rest - part, part, extra, cnt, s):
                return True
            part -= 1
        return False

    def _pplace(self, i, j, cnt, s, maxtop):
        # type: (int, int, bytearray, int, int) -> bool
        """Place part j.. of level i's pattern; at a full placement, evaluate
        the later units. True: an optimal placement was found (stop)."""
        if j >= self._patn[i]:
            return self._leaf(i, cnt, s)
        pat = self._pat
        b = i * _PW + 2 * j
        m = pat[b]
        k = pat[b + 1]
        hi = self.npos[s] - 1
        if j > 0 and pat[b - 2] == m and pat[b - 1] == k and maxtop < hi:
            hi = maxtop
        for top in range(hi, k - 2, -1):
            if self._prun(i, j, cnt, s, m, top - k + 1, top):
                return True
        return False

    def _prun(self, i, j, cnt, s, m, p, top):
        # type: (int, int, bytearray, int, int, int, int) -> bool
        if p > top:
            return self._pplace(i, j + 1, cnt, s, top)
        order = self.order
        base = s * _NPOS + p
        for x in range(self.pidx[base], self.pidx[base + 1]):
            f = order[x]
            if cnt[f] >= m:
                cnt[f] -= m
                stop = self._prun(i, j, cnt, s, m, p + 1, top)
                cnt[f] += m
                if stop:
                    return True
        return False

    def _leaf(self, i, cnt, s):
        # type: (int, bytearray, int) -> bool
        """A realization of level i's rung: keep the least vector of the later
        units. True when it cannot be beaten (each unit at its own best rung)."""
        nv = self._nlv
        vr = self._vr
        b = i * _VW
        if i + 1 >= nv:
            self._vfound[i] = 1
            return True
        self._lvec(i + 1, cnt, s)
        a = b + _VW
        if self._vfound[i]:
            better = False
            for j in range(i + 1, nv):
                if vr[a + j] != vr[b + j]:
                    better = vr[a + j] < vr[b + j]
                    break
            if not better:
                return False
        self._vfound[i] = 1
        lb = self._lb
        best = True
        for j in range(i + 1, nv):
            v = vr[a + j]
            vr[b + j] = v
            if v != lb[j]:
                best = False
        return best

    # ------------------------------------------------ trick matching (old)

    def _fits(self, cnt, s, u, maxtop):
        # type: (bytearray, int, int, int) -> bool
        """Can the lead's units u.. (self._lu, sets and runs of width >= 2) be
        carved disjointly out of the suit-s cards in cnt? (Singles fit in what
        is left as long as there are enough cards, which callers ensure.)
        The first unit placed is tried from the strongest position down, so the
        first success has the strongest possible first unit: self.key."""
        lu = self._lu
        if u >= self._nlu:
            return True
        m = lu[3 * u]
        if m < 2:
            return True
        k = lu[3 * u + 1]
        same = u > 0 and lu[3 * u - 3] == m and lu[3 * u - 2] == k
        hi = self._pmax  # no unit can top above the play's strongest card
        if same and maxtop < hi:
            hi = maxtop
        for top in range(hi, k - 2, -1):
            if self._place(cnt, s, u, m, top - k + 1, top):
                if u == 0:
                    self.key = top
                return True
        return False

    def _place(self, cnt, s, u, m, p, top):
        # type: (bytearray, int, int, int, int, int) -> bool
        if p > top:
            return self._fits(cnt, s, u + 1, top)
        order = self.order
        base = s * _NPOS2 + p
        for i in range(self.pidx[base], self.pidx[base + 1]):
            f = order[i]
            if cnt[f] >= m:
                cnt[f] -= m
                ok = self._place(cnt, s, u, m, p + 1, top)
                cnt[f] += m
                if ok:
                    return True
        return False

    def _match_key(self, cards, s, cnt, pmax, floor=0):
        # type: (Sequence[int], int, bytearray, int, int) -> int
        """Key of a play matched against the lead's units (self._lu), or -1 when
        it does not match (docs/rules.md §7). cards all of effective suit s, pmax the
        position of the strongest."""
        lu = self._lu
        if lu[0] < 2:
            return pmax  # only singles: the strongest card
        self._count(cards, cnt)
        self._pmax = pmax
        key = self.key if self._fits(cnt, s, 0, _NPOS) else -1
        cnt[:] = self._zf
        return key if key >= floor else -1  # (issue 12: the floor)

    # ------------------------------------------------ the t-search (old)

    def _t(self, cnt, s, lo=0, steps=0):
        # type: (bytearray, int, int, int) -> int
        """t of docs/rules.md §6.2: most pairs in disjoint runs of width 2 that the lead's
        tractors (self._bins, capacities in pairs) can take (the whole search;
        lo, the device engine's floor, only as its answer reads: lo or 0;
        steps, the device engine's budget, not used)."""
        t = self._tfull(cnt, s)
        return t if not lo else (lo if t >= lo else 0)

    def _tfull(self, cnt, s):
        # type: (bytearray, int) -> int
        pr = self._pr2
        order = self.order
        pos = self.pos
        np_ = self.npos[s]
        for p in range(np_):
            pr[p] = 0
        for i in range(self.start[s], self.start[s + 1]):
            f = order[i]
            pr[pos[f]] += cnt[f] >> 1
        # Pairs that lie at a position next to another pair's (the only ones
        # a run can use) bound the answer.
        avail = 0
        for p in range(np_):
            if pr[p] and ((p > 0 and pr[p - 1]) or (p + 1 < np_ and pr[p + 1])):
                avail += pr[p]
        if avail < 2:
            return 0
        cap = 0
        for i in range(self._nbins):
            cap += self._bins[i]
        if cap > avail:
            cap = avail
        self._cap = cap
        self._best = 0
        self._fill(pr, np_, 0, self._bins[0], 0, 0, avail)
        return self._best

    def _fill(self, pr, np_, b, room, lo, got, avail):
        # type: (bytearray, int, int, int, int, int, int) -> None
        """Search: put runs of pr into bin b (room pairs left, runs starting at
        lo or above, to avoid permutations), then the next bins."""
        if got > self._best:
            self._best = got
        if self._best >= self._cap:
            return
        # Bound: the rest of this bin and every later bin, or what is left.
        rest = room
        for i in range(b + 1, self._nbins):
            rest += self._bins[i]
        if got + (rest if rest < avail else avail) <= self._best:
            return
        if room >= 2:
            for a in range(lo, np_ - 1):
                if not pr[a] or not pr[a + 1]:
                    continue
                # Runs a..e, of length 2 .. room.
                e = a + 1
                while e < np_ and pr[e] and e - a + 1 <= room:
                    e += 1
                for p in range(a, e):
                    pr[p] -= 1
                ln = e - a
                while ln >= 2:
                    self._fill(pr, np_, b, room - ln, a, got + ln, avail - ln)
                    if self._best >= self._cap:
                        break
                    ln -= 1
                    pr[a + ln] += 1
                for p in range(a, a + ln):
                    pr[p] += 1
                if self._best >= self._cap:
                    return
        if b + 1 < self._nbins:
            self._fill(pr, np_, b + 1, self._bins[b + 1], 0, got, avail)
