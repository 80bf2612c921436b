# Device rules engine, part of drules.Engine (see drules.py for the API):
# the tractor term t of docs/rules.md §6.2 (a small search, else the placement
# oracle), matching a play against the lead's units (a small search, else
# the oracle) and the trick winner (§7), the kitty bonus (§8).

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
_NPOS = const(18)
# frames of the t-search (runs placed and bins moved on to: up to 16 + 27
# for the widest lead): it enters at most n + 1 (_t's n, drules_play._TSTEPS:
# 8), so 16 hold every search the table makes; a deeper one (a larger n)
# stops at the last frame as one that used up its steps, and the oracle
# answers (the same t): 128 bytes, not 384 (drules_init's _FD, the same)
_FD = const(16)


class Matching(EngineBase):
    """The t-search, shape matching, tricks and the kitty; mixed into drules.Engine."""

    # bytecode (issue 21, a heap that fits): the slow follows do not reach it
    # but through _tpoly's oracle (adv-22, adv-23: two calls); native, it held
    # about 1.9 KB of the chip's heap
    def _t(self, cnt, s, lo, n):
        # type: (bytearray, int, int, int) -> int
        """t of docs/rules.md §6.2: most pairs in disjoint runs of width 2 that the lead's
        tractors (self._bins, capacities in pairs) can take. A search of a
        few steps, then (if it did not end) the placement oracle (_tpoly).
        With lo > 0 only whether t reaches lo is asked: lo if so, else 0 (the
        play's t against the holding's: no second question below it)."""
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
        if lo:
            if cap < lo:
                return 0
            cap = lo
        self._cap = cap
        self._best = 0
        # at most n frames (drules_play._TSTEPS, 8): the near-miss
        # follows (adv-22, adv-23; adv-41, adv-45 at 32) used them up in
        # bytecode before the oracle, which answers them in a fraction of
        # the time
        self._steps = n
        if n:
            self._fill(pr, np_, avail)
        else:
            self._steps = -1
        if self._steps < 0:
            if not self._qm:
                self._oracle()  # its first question (drules.Engine._oracle)
            return self._tpoly(cnt, s, cap, lo)  # too long a search: the oracle
        return self._best if self._best >= lo else 0

    def _fill(self, pr, np_, avail):
        # type: (bytearray, int, int) -> None
        """Search: put runs of pr into the bins in turn (runs of a bin starting
        at lo or above, to avoid permutations), the most pairs in self._best.
        A depth-first search over an explicit stack (one frame per run placed
        or bin moved on to: at most _FD), not a recursion. At most
        self._steps frames entered (then it stops, steps < 0)."""
        bins = self._bins
        nb = self._nbins
        ff = self._ff  # the frames: 8 fields of _FD bytes
        cap = self._cap
        # the frame entered: (b, room, lo, got, avail)
        i = 0
        b = 0
        room = bins[0]
        lo = 0
        got = 0
        enter = True
        while True:
            if enter:
                self._steps -= 1
                if self._steps < 0 or i >= _FD:
                    self._steps = -1
                    return
                if got > self._best:
                    self._best = got
                if self._best >= cap:
                    return
                # Bound: the rest of this bin and every later bin, or what is left.
                rest = room
                for j in range(b + 1, nb):
                    rest += bins[j]
                if got + (rest if rest < avail else avail) <= self._best:
                    ph = 4  # nothing to gain here
                else:
                    ph = 0 if room >= 2 else 3
                ff[i] = b
                ff[1 * _FD + i] = room
                ff[2 * _FD + i] = lo
                ff[3 * _FD + i] = got
                ff[4 * _FD + i] = avail
                ff[5 * _FD + i] = lo
                ff[7 * _FD + i] = ph
                enter = False
            ph = ff[7 * _FD + i]
            b = ff[i]
            if ph == 0:
                # the next start a of a run in bin b
                a = ff[5 * _FD + i]
                room = ff[1 * _FD + i]
                while a < np_ - 1 and not (pr[a] and pr[a + 1]):
                    a += 1
                if a >= np_ - 1:
                    ff[7 * _FD + i] = 3
                    continue
                # Runs a..e, of length 2 .. room.
                e = a + 1
                while e < np_ and pr[e] and e - a + 1 <= room:
                    e += 1
                for q in range(a, e):
                    pr[q] -= 1
                ff[5 * _FD + i] = a
                ff[6 * _FD + i] = e - a
                ff[7 * _FD + i] = 1
                ph = 1
            if ph == 1 or ph == 2:
                a = ff[5 * _FD + i]
                ln = ff[6 * _FD + i]
                if ph == 2:
                    # back from the run a..a+ln-1
                    if self._best < cap:
                        ln -= 1
                        pr[a + ln] += 1
                        ff[6 * _FD + i] = ln
                if ln >= 2 and self._best < cap:
                    ff[7 * _FD + i] = 2
                    room = ff[1 * _FD + i] - ln
                    lo = a
                    got = ff[3 * _FD + i] + ln
                    avail = ff[4 * _FD + i] - ln
                    i += 1
                    enter = True
                    continue
                for q in range(a, a + ln):
                    pr[q] += 1
                if self._best >= cap:
                    return
                ff[5 * _FD + i] = a + 1
                ff[7 * _FD + i] = 0
                continue
            if ph == 3:
                # the next bin
                if b + 1 < nb:
                    ff[7 * _FD + i] = 4
                    got = ff[3 * _FD + i]
                    avail = ff[4 * _FD + i]
                    b += 1
                    room = bins[b]
                    lo = 0
                    i += 1
                    enter = True
                    continue
            # this frame is done: back to the one that entered it
            if i == 0:
                return
            i -= 1

    # ------------------------------------------------------- shape matching

    # bytecode (issue 21, the heap): as native code it holds 1,936 B of the
    # chip's heap for 538 B of bytecode; it answers the trick's direct match,
    # not the follow sweep the worst cases spend their time in
    def _fits(self, cnt, s):
        # type: (bytearray, int) -> bool
        """Can the lead's units (self._lu, sets and runs of width >= 2) be
        carved disjointly out of the suit-s cards in cnt? (Singles fit in what
        is left as long as there are enough cards, which callers ensure.)
        The first unit placed is tried from the strongest position down, so the
        first success has the strongest possible first unit: self.key. A
        depth-first search over an explicit stack (the face taken at each
        position of each unit placed: at most _MAXU, as the play's cards),
        not a recursion; at most self._steps positions entered (then False,
        steps 0; self._ut[0], the first unit's top being tried: every one
        above it has no match). cnt holds the faces taken after it (the
        caller clears it). A unit's tops skip those whose positions hold no
        face of its width in the play (self._wc, by position: _match_key's)."""
        lu = self._lu
        nlu = self._nlu
        order = self.order
        pidx = self.pidx
        ut = self._ut  # each unit's top being tried
        w = self._wc  # the most copies of a face at each position (_match_key's)
        fi = self._fi  # the face (its index in order) at each position placed
        # The lead's sets against the play's faces, counted (a set can go
        # anywhere: no match unless they fit; issue 21: adv-54, adv-59,
        # adv-08, whose followers each spent every step here before the
        # oracle said no). h[x]: the play's faces of x copies or more
        # (_match_key's); h[m + 4]: the lead's sets of width m. Quads on
        # 4-faces, triples on 3-faces then 4-faces, pairs on the rest (a
        # 4-face holds two). False with the steps left: no match (steps 0,
        # the tests' forced oracle: asked).
        h = self._lc
        for i in range(0, 3 * nlu, 3):
            if lu[i] > 1:
                h[lu[i] + 4] += lu[i + 1]
        i = h[3] - h[4] - h[7]  # 3-faces left (< 0: triples on 4-faces)
        m = h[4] - h[8] + (i if i < 0 else 0)  # 4-faces left
        if m < 0 or h[2] - h[3] + (i if i > 0 else 0) + m + m < h[6]:
            return False
        sb = s * _NPOS
        u = 0
        top = 0
        m = 0
        k = 0
        nfi = 0  # faces placed
        p = 0
        i = 0
        st = 0  # 0: a unit begins; 1: its next top; 2: enter position p; 3: a face at p from i; 4: back
        while True:
            if st == 0:
                if u >= nlu or lu[3 * u] < 2:
                    self.key = ut[0]
                    return True
                m = lu[3 * u]
                k = lu[3 * u + 1]
                hi = self._pmax  # no unit can top above the play's strongest card
                if u > 0 and lu[3 * u - 3] == m and lu[3 * u - 2] == k and ut[u - 1] < hi:
                    hi = ut[u - 1]
                ut[u] = hi + 1
                st = 1
            if st == 1:
                lo = k - 2
                if u == 0 and self._floor > k - 1:
                    lo = self._floor - 1
                top = ut[u] - 1
                # the next top with k positions below it that each hold a
                # face of m copies in the play (issue 21: no step spent on
                # the others)
                i = top
                while top > lo and i > top - k:
                    if w[i] < m:
                        top = i - 1
                    i -= 1
                if top <= lo:
                    # the unit does not fit: back into the unit before
                    if u == 0:
                        return False
                    u -= 1
                    m = lu[3 * u]
                    k = lu[3 * u + 1]
                    top = ut[u]
                    p = top + 1
                    st = 4
                else:
                    ut[u] = top
                    p = top - k + 1
                    st = 2
            if st == 2:
                if self._steps <= 0:
                    return False
                self._steps -= 1
                if p > top:
                    u += 1
                    st = 0
                    continue
                i = pidx[sb + p]
                st = 3
            if st == 3:
                e = pidx[sb + p + 1]
                while i < e and cnt[order[i]] < m:
                    i += 1
                if i < e:
                    cnt[order[i]] -= m
                    fi[nfi] = i
                    nfi += 1
                    p += 1
                    st = 2
                    continue
                st = 4
            # st 4: the face at p - 1 back, the next one there (none left at
            # the unit's first position: the unit's next top)
            if p == top - k + 1:
                st = 1
                continue
            p -= 1
            nfi -= 1
            i = fi[nfi]
            cnt[order[i]] += m
            i += 1
            st = 3

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
        # the play counted, its faces of x copies or more (h[x], x 2-4:
        # _fits's first test) and the most copies of a face at each position
        # (w: _fits's tops skip the positions that cannot hold a unit); both
        # scratch counts, zeros when not in use (h the lead's, w decompose's)
        h = self._lc  # (the lead's counts, zeros again: trick_winner's)
        w = self._wc
        pos = self.pos
        for c in cards:
            f = c % FACES
            x = cnt[f] + 1
            cnt[f] = x
            h[x] += 1
            if x > w[pos[f]]:
                w[pos[f]] = x
        self._pmax = pmax
        self._floor = floor
        self._steps = self.match_steps
        if self._nlu == 1 and self._steps:
            # One set or one run led (the lead is that unit; the play has
            # as many cards, m * k): k faces of m copies or more are all of
            # it, and they match iff they sit at the k positions up to the
            # play's strongest, its key (no search: bot play's tricks of
            # pairs; match_steps 0, the tests' forced oracle: the search)
            # (a run below position 0 reads w past the positions: zeros)
            m = lu[0]
            key = pmax if h[m] >= lu[1] and pmax >= floor else -1
            for p in range(pmax - lu[1] + 1, pmax):
                if w[p] < m:
                    key = -1
        else:
            key = self.key if self._fits(cnt, s) else -1
        cnt[:] = self._zf
        w[:] = self._zf
        h[:] = self._zf
        if self._steps > 0 or key >= 0:
            return key
        if not self._qm:
            self._oracle()  # its first question (drules.Engine._oracle)
        self._count(cards, cnt)  # (the search's faces taken)
        self._psetup(cnt, s, 3)
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
        # The highest top a unit of the top category has room for, at most
        # the top the direct search was trying when it gave up (it tried
        # every one above: issue 21; its first is the play's strongest
        # card; with no search, match_steps 0, it is that one, or, when the
        # counts said no match, an older one: no match either way).
        st = self._st
        b = (m - 2) * _NPOS
        hi = -1
        for p in range(self._ut[0] - k + 1, -1, -1):
            if st[b + p] >= k:
                hi = p + k - 1
                break
        key = -1
        lo = floor if floor > k - 1 else k - 1
        if hi >= lo:
            # With it there, the rest each at the weakest place where it
            # fits: often a match, and then the key (issue 21: asked first,
            # no search).
            ql[0] = hi - k + 2  # lowest start + 1
            if self._gmatch():
                key = hi
            else:
                # A match at all, with a key of floor or more (any: the top
                # category as one kind).
                same = lo == k - 1 and nq > 1 and qm[1] == m and qk[1] == k
                if same:
                    qn[0] = 0
                    qn[1] += 1
                ql[0] = lo - k + 2
                ok = self._pfit()
                if same:
                    qn[0] = 1
                    qn[1] -= 1
                if ok:
                    # the highest K with a placement (fewer fit if more
                    # do): lo has one
                    while lo < hi:
                        mid = (lo + hi + 1) >> 1
                        ql[0] = mid - k + 2
                        if self._pfit():
                            lo = mid
                        else:
                            hi = mid - 1
                    key = lo
        ql[0] = 0
        cnt[:] = self._zf
        self.key = key
        return key

    def _top(self, cards):
        # type: (Sequence[int]) -> int
        """Position of the strongest of some cards (of one effective suit)."""
        # (an index loop: a frame of 11 words or less is not taken from the
        # GC heap; see drules.Engine.lead_suit)
        pos = self.pos
        t = 0
        i = len(cards)
        while i:
            i -= 1
            p = pos[cards[i] % FACES]
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
        if len(lead) == 1:
            # one card (most tricks of bot play): its unit is itself, no
            # count and no pass over the suit's faces
            lu = self._lu
            lu[0] = 1
            lu[1] = 1
            lu[2] = self.pos[lead[0] % FACES]
            self._nlu = 1
        else:
            lc = self._lc
            self._count(lead, lc)
            self._nlu = self._decompose(lc, s, self._lu, 1)
            lc[:] = self._zf
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
            if self._lu[0] < 2:
                key = pmax  # singles led: the strongest card (no call: its frame is heap)
            else:
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
