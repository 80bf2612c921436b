# Device rules engine, part of drules.Engine (see drules.py for the API): for
# the placement oracle (drules_place.py), the table of states of the sweep
# that failed once (so that none is expanded twice), and the greedy first
# tries (a unit's runs on top of the earlier units' placement; a trick's
# match).

import micropython
from micropython import const

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

_NPOS = const(18)
_NREC = const(64)  # remembered failed states (a power of 2)
_RW = const(16)  # bytes of one: stamp, position, demand (2), left over (3), n, n codes
_PROBE = const(6)
_GS = const(32)  # runs one greedy step may add
# self._memo (drules_sweep._sweep_init): the table, then a row per position
# of the sweep (its state's key, _KEY), then the generation (_GEN): one
# buffer, one name (docs/firmware.md, "Method calls and the instance's map")
_KEY = const(_NREC * _RW)
_GEN = const(_KEY + _NPOS * _RW)


class Memo(EngineBase):
    """Failed states and the greedy first try; mixed into drules.Engine."""

    def _memo_init(self):
        # type: () -> None
        # (the table of failed states, _memo, comes with the sweep:
        # drules_sweep._sweep_init)
        self._gst = bytearray(3 * _GS)
        self._ng = 0

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

    # ------------------------------------------------------ greedy first try

    # native (issue 21, 2026-12-06): the slow follows' questions are mostly
    # answered here (6-8 calls a check, each trying _add at position after
    # position); as bytecode it held about a tenth of their time by kind
    # (x170 on the chip against x68), 4 ms of adv-39's; native it holds
    # 704 B of the chip's heap, less 153 B of bytecode (paid for by the
    # engine's smaller buffers, _NPOS 18)
    @micropython.native
    def _greedy(self, m, k, n):
        # type: (int, int, int) -> bool
        """Put n more parts (m, k) on top of the placement in self._u, each at
        the weakest place where it fits (n < 0: -n parts, each at the
        strongest; no search: False is no answer); they are noted in
        self._gst (self._ng of them) for _ungreedy."""
        st = self._st
        gst = self._gst
        b = (m - 2) * _NPOS
        last = self._np - k
        p = 0
        d = 1
        if n < 0:
            n = -n
            p = last
            d = -1
        for _ in range(n):
            while 0 <= p <= last and (st[b + p] < k or not self._add(p, m, k)):
                p += d
            if p < 0 or p > last or self._ng >= _GS:
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
        if self._ng > mark:
            self._vp[9] = 0  # the placement changes
        while self._ng > mark:
            self._ng -= 1
            g = 3 * self._ng
            self._sub(gst[g], gst[g + 1], gst[g + 2])

    def _gmatch(self):
        # type: () -> bool
        """The greedy try of _match_key: the part placed high at its lowest
        start, the other runs at the weakest places, the sets in the rest."""
        self._uzero()
        qm = self._qm
        qk = self._qk
        qn = self._qn
        self._ng = 0
        if not self._add(self._ql[0] - 1, qm[0], qk[0]):
            return False
        for t in range(1, self._nq):
            if qk[t] > 1 and not self._greedy(qm[t], qk[t], qn[t]):
                return False
        self._sets()
        return self._tail(0, 0, 0, 0)

    def _pfit(self):
        # type: () -> bool
        self._uzero()
        return self._feasible(0, 0)

    # ------------------------------------------------------ t on the oracle

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
