# Device rules engine, part of drules.Engine (see drules.py for the API):
# decomposition (docs/rules.md §4), leading and throws (§5), following (§6.1-2).

import micropython
from micropython import const

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

# The constants this part needs (the same values as in drules.py, which
# a test checks): const() names are inlined within their own module only.
MIXED = const(5)
FACES = const(54)
OK = const(0)
R_EMPTY = const(1)
R_NOT_IN_HAND = const(2)
R_MIXED_SUIT = const(3)
R_WRONG_COUNT = const(4)
R_FOLLOW_SUIT = const(5)
R_PAIRS = const(6)
R_TRACTOR = const(7)
R_THROW_FAILED = const(11)
_NPOS = const(18)
_MAXB = const(16)
# The t-search's steps before the oracle (the holding's; issue 21: a step
# is about 0.45 ms of bytecode on the chip, the oracle's answer 5-10 ms, and
# a search that does not end in 8 steps rarely ends in 32: adv-41, adv-45
# spent 32 before the oracle answered); and the play's, when the holding's
# gave up (its cards are the holding's: a search that must reach the
# holding's t and cannot tries every way).
_TSTEPS = const(8)
_PSTEPS = const(0)


class Plays(EngineBase):
    """Decomposition, leads and follows; mixed into drules.Engine."""

    # --------------------------------------------------------- decomposition

    def _count(self, cards, cnt):
        # type: (Sequence[int], bytearray) -> None
        for c in cards:
            cnt[c % FACES] += 1

    def decompose(self, cards):
        # type: (Sequence[int]) -> int
        """Decompose a one-suit play (docs/rules.md §4) into self.units; return the unit count.

        Returns -1 for cards of several effective suits (or none)."""
        s = self.lead_suit(cards)
        if s == MIXED:
            self.nunits = 0
            return -1
        cnt = self._wc
        self._count(cards, cnt)
        n = self._decompose(cnt, s, self.units, 1)
        cnt[:] = self._zf
        self.nunits = n
        return n

    @micropython.viper
    def _decompose(self, cnt, s: int, out, lo: int) -> int:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Units of the suit-s cards counted in cnt, written to out; their
        number. lo = 2: no singles (the follow's structure needs none).
        (viper, 2026-12-07: a lead's decomposition was a fifth of a worst
        follow's time on the emulated chip, bytecode; every buffer through
        ptr8, no slice: a native slice is allocated)"""
        cp = ptr8(cnt)
        op = ptr8(out)
        order = ptr8(self.order)
        pos = ptr8(self.pos)
        start = ptr8(self.start)
        np_ = int(ptr8(self.npos)[s])
        # Profiles: faces at each position with exactly m copies, all widths
        # in one pass over the suit's faces (issue 21: a pass per width cost
        # a 3-4 deck check about 2 ms on the chip). Widths 2-4 in the
        # placement oracle's _a (a scratch here: every question sets it up
        # again, _psetup), at (m - 2) * _NPOS; singles in _pr.
        pr = ptr8(self._a)
        i = 0
        while i < 3 * _NPOS:
            pr[i] = 0
            i += 1
        one = ptr8(self._pr)
        if lo == 1:
            i = 0
            while i < np_:
                one[i] = 0
                i += 1
        mx = 0
        dup = 0  # bit m: two faces with m copies at one position
        i = int(start[s])
        e = int(start[s + 1])
        while i < e:
            f = int(order[i])
            c = int(cp[f])
            if c >= lo:
                if c > mx:
                    mx = c
                if c == 1:
                    q = int(pos[f])
                    one[q] = int(one[q]) + 1
                else:
                    q = (c - 2) * _NPOS + int(pos[f])
                    if int(pr[q]) != 0:
                        dup |= 1 << c
                    pr[q] = int(pr[q]) + 1
            i += 1
        nu = 0
        stop = 1
        if lo >= 2:
            stop = lo - 1
        m = mx
        while m > stop:
            b = (m - 2) * _NPOS
            # The runs, longest first, then strongest: taken so one at a
            # time (the longest stretch of positions holding such a set,
            # each position of it giving up a face), they are the stretches
            # of positions with a face, then (two faces at one position: the
            # off-suit level cards) those with two, inside a stretch taken,
            # and so on (issue 21: not a pass over the positions per run,
            # adv-47's level cards). One pass up a layer (position np_ is
            # clear: the end of the last), each run put in its place among
            # this width's units; a layer that adds none is the last.
            c = nu
            j = 1
            while True:
                x = nu
                run = 0
                p = b
                while p <= b + np_:
                    if int(pr[p]) >= j:
                        run += 1
                    elif run != 0:
                        t = p - 1 - b
                        i = 3 * nu
                        while i > 3 * c:
                            r2 = int(op[i - 2])
                            if r2 > run or (r2 == run and int(op[i - 1]) >= t):
                                break
                            op[i] = m
                            op[i + 1] = r2
                            op[i + 2] = op[i - 1]
                            i -= 3
                        op[i] = m
                        op[i + 1] = run
                        op[i + 2] = t
                        nu += 1
                        run = 0
                    p += 1
                if nu == x or (dup & (1 << m)) == 0:
                    break
                j += 1
            m -= 1
        if lo == 1:
            # Singles never form runs; strongest first.
            p = np_ - 1
            while p >= 0:
                k = int(one[p])
                while k > 0:
                    op[3 * nu] = 1
                    op[3 * nu + 1] = 1
                    op[3 * nu + 2] = p
                    nu += 1
                    k -= 1
                p -= 1
        return nu

    # -------------------------------------------------------------- leading

    def check_lead(self, cards, hands=None, leader=0, forced=None):
        # type: (Sequence[int], Any, int, bytearray | None) -> int
        """Check a lead (docs/rules.md §5). With hands (four face-count arrays, the
        leader's included) a throw is checked against the other seats; a
        failed throw's forced cards are written to `forced` (self.nforced)."""
        self.nforced = 0
        if len(cards) == 0:
            return R_EMPTY
        cnt = self._lc
        self._count(cards, cnt)
        if hands is not None:
            hand = hands[leader]
            for c in cards:
                f = c % FACES
                if cnt[f] > hand[f]:
                    cnt[:] = self._zf
                    return R_NOT_IN_HAND
        s = self.lead_suit(cards)
        if s == MIXED:
            cnt[:] = self._zf
            return R_MIXED_SUIT
        lu = self._lu
        nu = self._decompose(cnt, s, lu, 1)
        if nu <= 1 or hands is None:
            cnt[:] = self._zf
            return OK
        # Each other seat's widest set at each position of the suit, once
        # (issue 21: not a pass over the suit's faces for every category
        # and seat), in the decomposition's scratch _a (free after it):
        # the three seats after the leader, _NPOS bytes each.
        w = self._a
        w[:] = self._z
        order = self.order
        pos = self.pos
        for j in range(3):
            hand = hands[(leader + 1 + j) & 3]
            b = j * _NPOS
            for i in range(self.start[s], self.start[s + 1]):
                f = order[i]
                x = hand[f]
                f = b + pos[f]
                if x > w[f]:
                    w[f] = x
        # Categories from the most demanding down (units are sorted so).
        np_ = self.npos[s]
        i = 0
        r = OK
        while i < nu and not r:
            m = lu[3 * i]
            k = lu[3 * i + 1]
            j = i
            while j < nu and lu[3 * j] == m and lu[3 * j + 1] == k:
                j += 1
            i = j
            # A seat that beats some unit of the category beats its weakest
            # (the last: sorted strongest first within a category): k sets
            # of width >= m at consecutive positions, the last above its
            # top t, so all at t - k + 2 or above.
            t = lu[3 * j - 1]
            for b in range(0, 3 * _NPOS, _NPOS):
                run = 0
                for p in range(b + t - k + 2, b + np_):
                    if w[p] < m:
                        run = 0
                    else:
                        run += 1
                        if run >= k:
                            r = R_THROW_FAILED
                            break
                if r:
                    # the weakest unit of this category is forced
                    if forced is not None:
                        self._emit_unit(cards, cnt, s, m, k, t, forced)
                    break
        cnt[:] = self._zf
        return r

    def _emit_unit(self, cards, cnt, s, m, k, top, out):
        # type: (Sequence[int], bytearray, int, int, int, int, bytearray) -> None
        """Write the ids of one unit (m, k, top) of the counted lead into out."""
        order = self.order
        pidx = self.pidx
        base = s * _NPOS
        n = 0
        for p in range(top - k + 1, top + 1):
            for i in range(pidx[base + p], pidx[base + p + 1]):
                f = order[i]
                if cnt[f] == m:
                    got = 0
                    for c in cards:
                        if c % FACES == f and got < m:
                            out[n] = c
                            n += 1
                            got += 1
                    break
        self.nforced = n

    # ------------------------------------------------------------ following

    # bytecode (issue 21, a heap that fits): once per check, 0.7 % of the adversarial corpora's time
    # (CPython profile); native: 1,104 B of the chip's heap
    def check_follow(self, lead, hand, play):
        # type: (Sequence[int], bytearray, Sequence[int]) -> int
        """Reason code of a follow (docs/rules.md §6): OK when legal.

        hand is the follower's face-count array before the play (holding it)."""
        n = len(lead)
        if len(play) != n:
            return R_WRONG_COUNT
        if n == 0:
            return R_EMPTY
        # The lead counted as its suit is checked (no lead_suit call; the
        # count is _structure's, which no longer counts it again)
        eff = self.eff
        s = eff[lead[0] % FACES]
        lc = self._lc
        r = OK
        for c in lead:
            f = c % FACES
            lc[f] += 1
            if eff[f] != s:
                r = R_MIXED_SUIT
        if r == OK:
            pc = self._pc
            ps = 0
            for c in play:
                f = c % FACES
                pc[f] += 1
                if eff[f] == s:
                    ps += 1
                if pc[f] > hand[f]:
                    r = R_NOT_IN_HAND
            if r == OK:
                # Suit: min(n, h) cards of s.
                order = self.order
                h = 0
                for i in range(self.start[s], self.start[s + 1]):
                    h += hand[order[i]]
                if ps != (n if h > n else h):
                    r = R_FOLLOW_SUIT
                elif n > 1 and h > n:
                    r = self._structure(hand, pc, s)
            # (the scratch counts cleared by slice copies: one C call each,
            # and bytecode's slices are not allocated)
            pc[:] = self._zf
        lc[:] = self._zf
        return r

    def _structure(self, hand, pc, s):
        # type: (bytearray, bytearray, int) -> int
        """Structure of a follow that holds more suit cards than the lead has:
        compare the play's (all suit) cards with the holding (docs/rules.md §6.2-3).
        The lead's cards are counted in self._lc."""
        lu = self._lu
        nu = self._decompose(self._lc, s, lu, 2)
        self._nlu = nu
        if nu == 0:
            return OK  # singles only: any cards of the suit
        if self.same_shape_only or lu[0] >= 3:
            return self._ladder(hand, pc, s)
        pairs = 0
        nb = 0
        for i in range(nu):
            if lu[3 * i] == 2:
                k = lu[3 * i + 1]
                pairs += k
                if k >= 2 and nb < _MAXB:
                    self._bins[nb] = k
                    nb += 1
        # Vector (t, q), docs/rules.md §6.2.
        if nb:
            self._nbins = nb
            # (match_steps 0: no direct search, the oracle alone, as for a
            # trick; the holding's search gave up: the play's is the oracle's)
            g = _TSTEPS if self.match_steps else 0
            th = self._t(hand, s, 0, g)
            if th and self._t(pc, s, th, g if self._steps >= 0 else _PSTEPS) < th:
                return R_TRACTOR
        qh = self._pairs(hand, s)
        if qh > pairs:
            qh = pairs
        if qh and self._pairs(pc, s) < qh:
            return R_PAIRS
        return OK

    def _pairs(self, cnt, s):
        # type: (bytearray, int) -> int
        order = self.order
        t = 0
        for i in range(self.start[s], self.start[s + 1]):
            t += cnt[order[i]] >> 1
        return t
