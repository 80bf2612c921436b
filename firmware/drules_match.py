# Device rules engine, part of drules.Engine (see drules.py for the API):
# the tractor term t of docs/rules.md §6.2 (a small search, else the placement
# oracle), matching a play against the lead's units (a small search, else
# the oracle) and the trick winner (§7), the kitty bonus (§8).

import micropython
from micropython import const

from drules_base import EngineBase

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

# The constants this part needs (the same values as in drules.py, which
# a test checks): const() names are inlined within their own module only.
TRUMP = const(4)
MIXED = const(5)
FACES = const(54)
KM_LINEAR = const(1)
KM_CARDS = const(2)
_NPOS = const(24)


class Matching(EngineBase):
    """The t-search, shape matching, tricks and the kitty; mixed into drules.Engine."""

    @micropython.native
    def _t(self, cnt, s):
        # type: (bytearray, int) -> int
        """t of docs/rules.md §6.2: most pairs in disjoint runs of width 2 that the lead's
        tractors (self._bins, capacities in pairs) can take. A search of a
        few steps, then (if it did not end) the placement oracle (_tpoly)."""
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
        self._steps = self.match_steps * 4
        self._fill(pr, np_, 0, self._bins[0], 0, 0, avail)
        if self._steps < 0:
            return self._tpoly(cnt, s, cap)  # too long a search: the oracle
        return self._best

    @micropython.native
    def _fill(self, pr, np_, b, room, lo, got, avail):
        # type: (bytearray, int, int, int, int, int, int) -> None
        """Search: put runs of pr into bin b (room pairs left, runs starting at
        lo or above, to avoid permutations), then the next bins. At most
        self._steps calls (then it stops, steps < 0)."""
        self._steps -= 1
        if self._steps < 0:
            return
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

    # ------------------------------------------------------- shape matching

    @micropython.native
    def _fits(self, cnt, s, u, maxtop):
        # type: (bytearray, int, int, int) -> bool
        """Can the lead's units u.. (self._lu, sets and runs of width >= 2) be
        carved disjointly out of the suit-s cards in cnt? (Singles fit in what
        is left as long as there are enough cards, which callers ensure.)
        The first unit placed is tried from the strongest position down, so the
        first success has the strongest possible first unit: self.key. A
        search of at most self._steps placements (then False, steps 0)."""
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
        lo = k - 2
        if u == 0 and self._floor > k - 1:
            lo = self._floor - 1
        for top in range(hi, lo, -1):
            if self._place(cnt, s, u, m, top - k + 1, top):
                if u == 0:
                    self.key = top
                return True
        return False

    @micropython.native
    def _place(self, cnt, s, u, m, p, top):
        # type: (bytearray, int, int, int, int, int) -> bool
        if self._steps <= 0:
            return False
        self._steps -= 1
        if p > top:
            return self._fits(cnt, s, u + 1, top)
        order = self.order
        base = s * _NPOS + p
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
        it does not match with a key of floor or more (docs/rules.md §7). cards all of
        effective suit s, pmax the position of the strongest. The lead's sets and runs are put to the
        placement oracle (drules_place.py); the key, the highest top a unit
        of the top category can have, is the highest K for which one of them
        can be placed with its top at K or above (fewer fit if more do).
        First a direct search of a few steps (self.match_steps), which is
        enough for most plays."""
        lu = self._lu
        if lu[0] < 2:
            return pmax if pmax >= floor else -1  # only singles: the strongest card
        self._count(cards, cnt)
        self._pmax = pmax
        self._floor = floor
        self._steps = self.match_steps
        key = self.key if self._fits(cnt, s, 0, _NPOS) else -1
        if self._steps > 0 or key >= 0:
            self._uncount(cards, cnt)
            return key
        self._psetup(cnt, s)
        m = lu[0]
        k = lu[1]
        qm = self._qm
        qk = self._qk
        qn = self._qn
        ql = self._ql
        # the question: one unit of the top category placed high, the rest
        qm[0] = m
        qk[0] = k
        qn[0] = 1
        nq = 1
        for i in range(1, self._nlu):
            mi = lu[3 * i]
            if mi < 2:
                break
            ki = lu[3 * i + 1]
            if mi != qm[nq - 1] or ki != qk[nq - 1] or nq == 1:
                qm[nq] = mi
                qk[nq] = ki
                qn[nq] = 0
                ql[nq] = 0
                nq += 1
            qn[nq - 1] += 1
        self._nq = nq
        # The highest top a unit of the top category has room for (at most
        # the play's strongest card); with it there, the rest each at the
        # weakest place where it fits: often a match, and then the key.
        st = self._st
        b = (m - 2) * _NPOS
        hi = -1
        for p in range(pmax - k + 1, -1, -1):
            if st[b + p] >= k:
                hi = p + k - 1
                break
        key = -1
        # First a match at all, with a key of floor or more (any: the top
        # category as one kind).
        lo = floor if floor > k - 1 else k - 1
        same = lo == k - 1 and nq > 1 and qm[1] == m and qk[1] == k
        if same:
            qn[0] = 0
            qn[1] += 1
        ql[0] = lo - k + 2
        ok = hi >= lo and self._pfit()
        if same:
            qn[0] = 1
            qn[1] -= 1
        if ok:
            ql[0] = hi - k + 2  # lowest start + 1
            if hi == lo or self._gmatch() or self._pfit():
                key = hi
            else:
                # the highest K with a placement (fewer fit if more do)
                while lo < hi - 1:
                    mid = (lo + hi + 1) >> 1
                    ql[0] = mid - k + 2
                    if self._pfit():
                        lo = mid
                    else:
                        hi = mid
                key = lo
        ql[0] = 0
        self._uncount(cards, cnt)
        self.key = key
        return key

    def _top(self, cards):
        # type: (Sequence[int]) -> int
        """Position of the strongest of some cards (of one effective suit)."""
        pos = self.pos
        t = 0
        for c in cards:
            p = pos[c % FACES]
            if p > t:
                t = p
        return t

    # ---------------------------------------------------------------- tricks

    def trick_winner(self, plays):
        # type: (Sequence[Sequence[int]]) -> int
        """Index (0 = the lead) of the play that wins the trick (docs/rules.md §7)."""
        lead = plays[0]
        s = self.lead_suit(lead)
        if s == MIXED:
            return 0
        lc = self._lc
        self._count(lead, lc)
        nu = self._decompose(lc, s, self._lu)
        self._nlu = nu
        self._uncount(lead, lc)
        win = 0
        # The lead's key is the top of its first unit: the top category's
        # runs are the suit's longest of the widest sets, its first the
        # strongest of them, and the decomposition is a match.
        wkey = self._lu[2]
        wtrump = s == TRUMP
        for i in range(1, len(plays)):
            p = plays[i]
            if len(p) != len(lead):
                continue
            ps = self.lead_suit(p)
            if ps != s and ps != TRUMP:
                continue
            ptrump = ps == TRUMP
            if wtrump and not ptrump:
                continue
            pmax = self._top(p)
            if ptrump == wtrump and pmax <= wkey:
                continue  # its key cannot be above its strongest card
            # (the same kind of suit: only a key above the winner's counts)
            key = self._match_key(p, ps, self._pc, pmax, wkey + 1 if ptrump == wtrump else 0)
            if key < 0:
                continue
            if ptrump and not wtrump:
                win = i
                wkey = key
                wtrump = True
            elif key > wkey:
                win = i
                wkey = key
        return win

    # ----------------------------------------------------------------- kitty

    def kitty_multiplier(self, lead):
        # type: (Sequence[int]) -> int
        """Multiplier from the top category of the last trick's lead (docs/rules.md §8)."""
        if self.decompose(lead) < 1:
            return 0
        m = self.units[0]
        k = self.units[1]
        pol = self.kitty_policy
        if pol == KM_LINEAR:
            return 2 * m * k
        if pol == KM_CARDS:
            return 4 * m * k
        return 2 * m**k

    def kitty_bonus(self, lead, winner_play, kitty):
        # type: (Sequence[int], Sequence[int], Sequence[int]) -> int
        """Points the attackers add when they win the last trick with winner_play."""
        if self.kitty_requires_trump and self.lead_suit(winner_play) != TRUMP:
            return 0
        return self.points(kitty) * self.kitty_multiplier(lead)
