# Device rules engine, part of drules.Engine (see drules.py for the API): the
# placement oracle of the ladders (RULES §6.3). "Can these parts, sets and
# runs of width 2-4 (self._qm/_qk/_qn: width, length, how many), all be cut
# disjointly out of the suit-s cards of a count array?" A sweep over the
# suit's positions, weakest first, deciding at each position how many parts
# of each kind start there; the state between two positions is the demand
# left and the runs still open, and a state that failed once is remembered,
# so each state is expanded at most once (docs/firmware.md gives the bound).

from micropython import const

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

_NPOS = const(24)
_QT = const(24)  # kinds of parts in one question
_NREC = const(64)  # remembered failed states (a power of 2)
_RW = const(16)  # bytes of one: stamp, position, demand (2), n, n codes
_RC = const(11)  # open runs a remembered state may have
_PROBE = const(6)
_GS = const(32)  # parts one greedy step may add


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
        self._st = bytearray(3 * _NPOS)
        self._sb = bytearray(3 * _NPOS)
        self._tot = bytearray(3)
        self._np = 0
        self._qm = bytearray(_QT)
        self._qk = bytearray(_QT)
        self._qn = bytearray(_QT)
        # The sweep's kinds: width, length, parts left, offset of the width
        # in _u, weight in the demand d (mixed radix).
        self._dm = bytearray(_QT)
        self._dk = bytearray(_QT)
        self._dn = bytearray(_QT)
        self._db = bytearray(_QT)
        self._dr = [0] * _QT
        self._nd = 0
        self._nq = 0
        self._s2 = self._s3 = self._s4 = self._nrun = 0  # the question's sets, runs
        self._gst = bytearray(3 * _GS)
        self._ng = 0
        self._ub = bytearray(3 * _NPOS)  # the placement before a search
        self._placed = False  # does self._u hold a placement of the question?
        self._memo = bytearray(_NREC * _RW)
        self._key = bytearray(_RW)
        self._gen = 0
        self._mon = False
        self.nstates = 0  # states expanded (for the benchmarks and the bound)

    def _psetup(self, cnt, s):
        # type: (bytearray, int) -> None
        """The resources of the suit-s cards in cnt, once per count array."""
        np_ = self.npos[s]
        self._np = np_
        a = self._a
        st = self._st
        sb = self._sb
        tot = self._tot
        order = self.order
        pidx = self.pidx
        base = s * _NPOS
        tot[0] = tot[1] = tot[2] = 0
        for p in range(np_):
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
            tot[0] += c2
            tot[1] += c3
            tot[2] += c4
        for w in range(3):
            b = w * _NPOS
            run = 0
            best = 0
            for p in range(np_ - 1, -1, -1):
                ok = a[2 * _NPOS + p] or (w < 2 and a[_NPOS + p]) or (w == 0 and a[p])
                run = run + 1 if ok else 0
                st[b + p] = run
                if run > best:
                    best = run
                sb[b + p] = best

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

    def _pcap(self, u3, u4):
        # type: (int, int) -> int
        """Pairs the suit's faces hold besides u3 triples and u4 quads placed
        anywhere (-1: those do not fit)."""
        tot = self._tot
        a4 = tot[2] - u4
        a3 = tot[1]
        if a4 < 0:
            return -1
        if u3 > a3:
            a4 -= u3 - a3
            if a4 < 0:
                return -1
            a3 = 0
        else:
            a3 -= u3
        return 2 * a4 + a3 + tot[0]

    def _feasible(self):
        # type: () -> bool
        """Can the parts of the question all be placed at once (see the top)?
        self._u must be clear; on success it holds the placement found."""
        qm = self._qm
        qk = self._qk
        qn = self._qn
        sb = self._sb
        dm = self._dm
        dk = self._dk
        dn = self._dn
        s2 = s3 = s4 = 0
        nd = 0
        for t in range(self._nq):
            n = qn[t]
            if n == 0:
                continue
            m = qm[t]
            k = qk[t]
            if sb[(m - 2) * _NPOS] < k:
                return False
            if m == 2:
                s2 += n * k
            elif m == 3:
                s3 += n * k
            else:
                s4 += n * k
            # The sweep's kinds: runs first, longest first, then sets,
            # widest first (an insertion sort of a few).
            i = nd
            while i and (dk[i - 1] < k or (dk[i - 1] == k and dm[i - 1] < m)):
                dm[i] = dm[i - 1]
                dk[i] = dk[i - 1]
                dn[i] = dn[i - 1]
                i -= 1
            dm[i] = m
            dk[i] = k
            dn[i] = n
            nd += 1
        if nd == 0:
            return True
        tot = self._tot
        if not self._fits_at(s2, s3, s4, tot[0], tot[1], tot[2]):
            return False  # not even ignoring the positions
        self._nd = nd
        d = 0
        r = 1
        db = self._db
        dr = self._dr
        for i in range(nd):
            db[i] = (dm[i] - 2) * _NPOS
            dr[i] = r
            d += dn[i] * r
            r *= dn[i] + 1
        self._mon = r <= 65536
        if self._mon:
            g = self._gen + 1
            if g > 255:
                memo = self._memo
                for i in range(0, _NREC * _RW, _RW):
                    memo[i] = 0
                g = 1
            self._gen = g
            self._key[0] = g
        return self._sweep(0, d)  # on success self._u: the placement found

    def _sweep(self, p, d):
        # type: (int, int) -> bool
        """Place the demand d (what _dn holds) at positions p.. given the runs
        already open (self._u at p..)."""
        if d == 0:
            return True
        if p >= self._np:
            return False
        dk = self._dk
        dn = self._dn
        db = self._db
        sb = self._sb
        for t in range(self._nd):
            if dn[t] and sb[db[t] + p] < dk[t]:
                return False
        h = self._mkey(p, d) if self._mon else -1
        if h >= 0 and self._seen(h):
            return False
        self.nstates += 1
        if self._starts(p, 0, d):
            return True
        if h >= 0:
            self._mkey(p, d)  # deeper states used the key buffer
            self._remember(h)
        return False

    def _starts(self, p, t, d):
        # type: (int, int, int) -> bool
        """Choose how many parts of kind t.. start at position p (most first)."""
        nd = self._nd
        dk = self._dk
        dn = self._dn
        db = self._db
        st = self._st
        while t < nd and (dn[t] == 0 or st[db[t] + p] < dk[t]):
            t += 1
        if t >= nd:
            # A set still to place that fits here as well: a placement that
            # puts it further up can put it here instead, so skip this one.
            dm = self._dm
            for j in range(nd):
                if dn[j] and dk[j] == 1 and self._add(p, dm[j], 1):
                    self._sub(p, dm[j], 1)
                    return False
            return self._sweep(p + 1, d)
        m = self._dm[t]
        k = dk[t]
        n = dn[t]
        r = self._dr[t]
        x = 0
        while x < n and self._add(p, m, k):
            x += 1
        dn[t] = n - x
        while True:
            if self._starts(p, t + 1, d - x * r):
                dn[t] = n
                return True
            if x == 0:
                return False
            self._sub(p, m, k)
            x -= 1
            dn[t] += 1

    def _greedy(self, m, k, n):
        # type: (int, int, int) -> bool
        """Put n more parts (m, k) on top of the placement in self._u, each at
        the weakest place where it fits (no search: False is no answer); they
        are noted in self._gst (self._ng of them) for _ungreedy."""
        st = self._st
        gst = self._gst
        b = (m - 2) * _NPOS
        last = self._np - k
        p = 0
        for _ in range(n):
            while p <= last and (st[b + p] < k or not self._add(p, m, k)):
                p += 1
            if p > last or self._ng >= _GS:
                return False
            g = 3 * self._ng
            gst[g] = p
            gst[g + 1] = m
            gst[g + 2] = k
            self._ng += 1
        return True

    def _ungreedy(self, mark):
        # type: (int) -> None
        """Take back the parts _greedy placed after the first `mark`."""
        gst = self._gst
        while self._ng > mark:
            self._ng -= 1
            g = 3 * self._ng
            self._sub(gst[g], gst[g + 1], gst[g + 2])

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

    def _sub(self, p, m, k):
        # type: (int, int, int) -> None
        u = self._u
        b = (m - 2) * _NPOS
        for q in range(p, p + k):
            u[b + q] -= 1

    # ------------------------------------------------ remembered failures

    def _mkey(self, p, d):
        # type: (int, int) -> int
        """Write the state at position p into self._key (the demand, then the
        open runs as (width, positions left) codes, in a canonical order);
        return its hash, or -1 when it has too many open runs to remember."""
        key = self._key
        u = self._u
        np_ = self._np
        key[1] = p
        key[2] = d & 255
        key[3] = d >> 8
        n = 0
        h = d * 131 + p
        for w in range(3):
            b = w * _NPOS
            j = u[b + p]
            q = p
            while j:
                while q < np_ and u[b + q] >= j:
                    q += 1
                if n >= _RC:
                    return -1
                c = (w << 5) | (q - p)
                key[5 + n] = c
                n += 1
                h = (h & 0xFFFFF) * 33 + c
                j -= 1
        key[4] = n
        return h & (_NREC - 1)

    def _seen(self, h):
        # type: (int) -> bool
        memo = self._memo
        key = self._key
        g = self._gen
        n = 5 + key[4]
        for i in range(_PROBE):
            b = ((h + i) & (_NREC - 1)) * _RW
            if memo[b] != g:
                return False
            j = 1
            while j < n and memo[b + j] == key[j]:
                j += 1
            if j == n:
                return True
        return False

    def _remember(self, h):
        # type: (int) -> None
        memo = self._memo
        key = self._key
        g = self._gen
        b = 0
        for i in range(_PROBE):
            b = ((h + i) & (_NREC - 1)) * _RW
            if memo[b] != g:
                break
        for j in range(5 + key[4]):
            memo[b + j] = key[j]
