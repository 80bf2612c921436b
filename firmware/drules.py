# Device rules engine: the Pico's own implementation of RULES.md (sections 1-9).
#
# Written for an RP2040 under MicroPython, separately from the host engine
# `shengji` (two independent engines that must agree is the point: see
# tractor_table/difffuzz.py). Cards are small ints, hands are count arrays,
# nothing is allocated per card or per play.
#
# Cards (docs/INTERFACES): face = suit*13 + rank (S=0 H=1 D=2 C=3; rank 2=0 ..
# A=12), SJ = 52, BJ = 53; card id = copy*54 + face. Every function that takes
# "cards" takes any sequence of card ids (bytes, bytearray, list); copies of
# one face are interchangeable, so the engine works on face counts.
#
# API (for the table core, firmware/table.py):
#
#   e = Engine(decks=2, permanent_twos=False, same_shape_only=False,
#              kitty_multiplier=KM_STRUCTURE, kitty_requires_trump=False,
#              throw_penalty=0)
#   e.set_trump(level, trump)      level: rank 0 (=2) .. 12 (=A); trump: 0-3 or NT
#   e.suit_of(card)                effective suit: 0-3, or TRUMP (4)
#   e.compare(a, b)                1 / 0 / -1, or CMP_NONE (different side suits)
#   e.lead_suit(cards)             effective suit of a play, or MIXED
#   e.decompose(cards)             number of units; e.units holds (m, k, top)
#                                  triples, most demanding first (RULES §4)
#   e.check_lead(cards, hands, leader, forced)
#                                  reason code (OK, R_MIXED_SUIT, R_THROW_FAILED);
#                                  hands: 4 face-count arrays (or None: no check);
#                                  on R_THROW_FAILED the forced cards (ids from
#                                  `cards`) are written to `forced` (a bytearray)
#                                  and e.nforced is their number (RULES §5)
#   e.check_follow(lead, hand, play)
#                                  reason code, OK if legal (RULES §6); hand is
#                                  the follower's face-count array, holding play
#   e.trick_winner(plays)          index of the winning play (RULES §7); plays
#                                  in play order, the lead first
#   e.points(cards)                point total of the cards
#   e.kitty_multiplier(lead)       multiplier of the last trick's lead (§8)
#   e.kitty_bonus(lead, winner_play, kitty)
#   hand_add(hand, card) / hand_remove(hand, card) / hand_clear(hand)
#                                  maintain a face-count array (bytearray(54))
#
# Settlement, bids and find-a-friend (not hot paths) are in drules_hand.py.
#
# Reason codes are small ints; drules_names.py (host side only) maps them to
# the names the full engine uses. Everything here is integer arithmetic on
# preallocated bytearrays; the hot paths (check_follow, check_lead,
# trick_winner) allocate nothing.

from micropython import const

try:
    from typing import Any, Sequence  # noqa: F401
except ImportError:
    pass

# Suits and the trump pseudo-suit.
S_SPADES = const(0)
S_HEARTS = const(1)
S_DIAMONDS = const(2)
S_CLUBS = const(3)
TRUMP = const(4)  # effective suit of trump cards
NT = const(4)  # trump option: no trump suit
MIXED = const(5)  # lead_suit() of cards spanning several effective suits

SMALL_JOKER = const(52)
BIG_JOKER = const(53)
FACES = const(54)

CMP_NONE = const(2)  # compare(): different non-trump suits

# Kitty multiplier policies (RULES §8).
KM_STRUCTURE = const(0)
KM_LINEAR = const(1)
KM_CARDS = const(2)

# Reason codes (0 = legal), in the order of the full engine's Reason enum;
# the host-side runner maps them to its names (empty, not_in_hand, ...).
OK = const(0)
R_EMPTY = const(1)  # an empty play
R_NOT_IN_HAND = const(2)  # a card the seat does not hold
R_MIXED_SUIT = const(3)  # a lead spanning several effective suits
R_WRONG_COUNT = const(4)  # a follow of another number of cards than the lead
R_FOLLOW_SUIT = const(5)  # fewer cards of the led suit than held
R_PAIRS = const(6)  # pairs held (and led) were not played
R_TRACTOR = const(7)  # a tractor held (and led) was not played
R_TRIPLES = const(8)  # 3-4 decks: a triple held (and led) was not played
R_TITANIC = const(9)  # 3-4 decks: a Titanic held (and led) was not played
R_SAME_SHAPE = const(10)  # same_shape_only / quads: the led shape was held
R_THROW_FAILED = const(11)  # a throw that another seat can beat

# Sizes of the scratch buffers.
_NPOS = const(24)  # positions per effective suit (at most 17 used)
_MAXU = const(64)  # units of one play
_MAXB = const(16)  # tractors of one lead (bins of the t-search)
_VW = const(24)  # non-single units of a lead in the ladder vector
_PW = const(32)  # bytes of one rung pattern: (m, k) parts

# Points per rank (5, T, K).
_PTS = b"\x00\x00\x00\x05\x00\x00\x00\x00\x0a\x00\x00\x0a\x00"


def hand_clear(hand):
    # type: (bytearray) -> None
    for i in range(FACES):
        hand[i] = 0


def hand_add(hand, card):
    # type: (bytearray, int) -> None
    hand[card % FACES] += 1


def hand_remove(hand, card):
    # type: (bytearray, int) -> None
    hand[card % FACES] -= 1


def hand_from(cards, hand=None):
    # type: (Sequence[int], bytearray | None) -> bytearray
    """A face-count array holding the cards (allocates when hand is None)."""
    if hand is None:
        hand = bytearray(FACES)
    else:
        hand_clear(hand)
    for c in cards:
        hand[c % FACES] += 1
    return hand


class Engine:
    """The rules of one table: options, then per hand the level and trump."""

    def __init__(
        self,
        decks=2,
        permanent_twos=False,
        same_shape_only=False,
        kitty_multiplier=KM_STRUCTURE,
        kitty_requires_trump=False,
        throw_penalty=0,
    ):
        # type: (int, bool, bool, int, bool, int) -> None
        if decks < 1 or decks > 4:
            raise ValueError("decks must be 1-4")
        self.decks = decks
        self.permanent_twos = bool(permanent_twos)
        self.same_shape_only = bool(same_shape_only)
        self.kitty_policy = kitty_multiplier
        self.kitty_requires_trump = bool(kitty_requires_trump)
        self.throw_penalty = throw_penalty
        self.level = 0
        self.trump = NT
        # Per face: effective suit and position (0 = weakest) in that suit.
        self.eff = bytearray(FACES)
        self.pos = bytearray(FACES)
        # Faces sorted by (effective suit, position); suit s is
        # order[start[s]:start[s+1]], its faces at position p are
        # order[pidx[s*_NPOS+p]:pidx[s*_NPOS+p+1]].
        self.order = bytearray(FACES)
        self.start = bytearray(6)
        self.npos = bytearray(5)
        self.pidx = bytearray(5 * _NPOS)
        # Scratch: face counts of the lead, of a play, of a hand's suit.
        self._lc = bytearray(FACES)
        self._pc = bytearray(FACES)
        self._wc = bytearray(FACES)
        # Profiles over positions.
        self._pr = bytearray(_NPOS)
        self._pr2 = bytearray(_NPOS)
        # Units of the last decomposition: (m, k, top) triples.
        self.units = bytearray(3 * _MAXU)
        self.nunits = 0
        self._lu = bytearray(3 * _MAXU)  # the lead's units, kept during a check
        self._nlu = 0
        self._bins = bytearray(_MAXB)
        self._nbins = 0
        self._best = 0
        self._cap = 0
        self.nforced = 0
        self.key = 0  # key of the last matched play (see _match_key)
        # Ladder search (RULES §6.3): vector rows per level, rung patterns.
        self._vr = bytearray(_VW * _VW)
        self._vh = bytearray(_VW)
        self._vfound = bytearray(_VW)
        self._pat = bytearray(_VW * _PW)
        self._patn = bytearray(_VW)
        self._nlv = 0
        self.set_trump(0, NT)

    # ----------------------------------------------------------------- order

    def set_trump(self, level, trump):
        # type: (int, int) -> None
        """Build the order tables for a hand at `level` (rank 0-12) and `trump` (0-3 or NT)."""
        if level < 0 or level > 12 or trump < 0 or trump > NT:
            raise ValueError("bad level or trump")
        self.level = level
        self.trump = trump
        eff = self.eff
        pos = self.pos
        twos = self.permanent_twos and level != 0
        # Side suits: A down to 2, skipping the level (and 2s).
        n = 0
        for s in range(4):
            p = 0
            for r in range(13):
                f = s * 13 + r
                if r == level or (twos and r == 0):
                    continue
                if s == trump:
                    continue
                eff[f] = s
                pos[f] = p
                p += 1
        # Trump: the trump suit's plain cards, then [side 2s, main 2],
        # side levels, main level, SJ, BJ.
        p = 0
        if trump != NT:
            for r in range(13):
                if r == level or (twos and r == 0):
                    continue
                f = trump * 13 + r
                eff[f] = TRUMP
                pos[f] = p
                p += 1
        if twos:
            for s in range(4):
                if s != trump:
                    eff[s * 13] = TRUMP
                    pos[s * 13] = p
            p += 1
            if trump != NT:
                eff[trump * 13] = TRUMP
                pos[trump * 13] = p
                p += 1
        for s in range(4):
            if s != trump:
                eff[s * 13 + level] = TRUMP
                pos[s * 13 + level] = p
        p += 1
        if trump != NT:
            eff[trump * 13 + level] = TRUMP
            pos[trump * 13 + level] = p
            p += 1
        eff[SMALL_JOKER] = TRUMP
        pos[SMALL_JOKER] = p
        eff[BIG_JOKER] = TRUMP
        pos[BIG_JOKER] = p + 1
        # Sorted order and indexes (counting sort by suit, then position).
        order = self.order
        start = self.start
        npos = self.npos
        pidx = self.pidx
        i = 0
        for s in range(5):
            start[s] = i
            mx = 0
            for f in range(FACES):
                if eff[f] == s and pos[f] + 1 > mx:
                    mx = pos[f] + 1
            npos[s] = mx
            for p in range(mx):
                pidx[s * _NPOS + p] = i
                for f in range(FACES):
                    if eff[f] == s and pos[f] == p:
                        order[i] = f
                        i += 1
            pidx[s * _NPOS + mx] = i
        start[5] = i
        n += 0

    def suit_of(self, card):
        # type: (int) -> int
        return self.eff[card % FACES]

    def is_trump(self, card):
        # type: (int) -> bool
        return self.eff[card % FACES] == TRUMP

    def compare(self, a, b):
        # type: (int, int) -> int
        fa = a % FACES
        fb = b % FACES
        ea = self.eff[fa]
        eb = self.eff[fb]
        if ea != eb:
            if ea == TRUMP:
                return 1
            if eb == TRUMP:
                return -1
            return CMP_NONE
        pa = self.pos[fa]
        pb = self.pos[fb]
        return 1 if pa > pb else (-1 if pa < pb else 0)

    def lead_suit(self, cards):
        # type: (Sequence[int]) -> int
        eff = self.eff
        s = MIXED
        for c in cards:
            e = eff[c % FACES]
            if s == MIXED:
                s = e
            elif e != s:
                return MIXED
        return s

    def points(self, cards):
        # type: (Sequence[int]) -> int
        t = 0
        for c in cards:
            f = c % FACES
            if f < SMALL_JOKER:
                t += _PTS[f % 13]
        return t

    # --------------------------------------------------------- decomposition

    def _count(self, cards, cnt):
        # type: (Sequence[int], bytearray) -> None
        for c in cards:
            cnt[c % FACES] += 1

    def _uncount(self, cards, cnt):
        # type: (Sequence[int], bytearray) -> None
        for c in cards:
            cnt[c % FACES] = 0

    def decompose(self, cards):
        # type: (Sequence[int]) -> int
        """Decompose a one-suit play (RULES §4) into self.units; return the unit count.

        Returns -1 for cards of several effective suits (or none)."""
        s = self.lead_suit(cards)
        if s == MIXED:
            self.nunits = 0
            return -1
        cnt = self._wc
        self._count(cards, cnt)
        n = self._decompose(cnt, s, self.units)
        self._uncount(cards, cnt)
        self.nunits = n
        return n

    def _decompose(self, cnt, s, out):
        # type: (bytearray, int, bytearray) -> int
        """Units of the suit-s cards counted in cnt, written to out; their number."""
        order = self.order
        pos = self.pos
        pr = self._pr
        np_ = self.npos[s]
        a = self.start[s]
        b = self.start[s + 1]
        nu = 0
        for m in range(self.decks, 0, -1):
            # Profile: faces at each position with exactly m copies (all wider
            # sets were taken at an earlier width, RULES §4 widest first).
            tot = 0
            for p in range(np_):
                pr[p] = 0
            for i in range(a, b):
                f = order[i]
                if cnt[f] == m:
                    pr[pos[f]] += 1
                    tot += 1
            if m == 1:
                # Singles never form runs; strongest first.
                for p in range(np_ - 1, -1, -1):
                    for _ in range(pr[p]):
                        out[3 * nu] = 1
                        out[3 * nu + 1] = 1
                        out[3 * nu + 2] = p
                        nu += 1
                continue
            while tot:
                # Longest segment of positions holding such a set; among equal
                # lengths the strongest (highest top).
                best = 0
                top = 0
                run = 0
                for p in range(np_):
                    if pr[p]:
                        run += 1
                        if run >= best:
                            best = run
                            top = p
                    else:
                        run = 0
                for p in range(top - best + 1, top + 1):
                    pr[p] -= 1
                tot -= best
                out[3 * nu] = m
                out[3 * nu + 1] = best
                out[3 * nu + 2] = top
                nu += 1
        return nu

    # -------------------------------------------------------------- leading

    def check_lead(self, cards, hands=None, leader=0, forced=None):
        # type: (Sequence[int], Any, int, bytearray | None) -> int
        """Check a lead (RULES §5). With hands (four face-count arrays, the
        leader's included) a throw is checked against the other seats; a
        failed throw's forced cards are written to `forced` (self.nforced)."""
        self.nforced = 0
        if len(cards) == 0:
            return R_EMPTY
        s = self.lead_suit(cards)
        if s == MIXED:
            return R_MIXED_SUIT
        cnt = self._lc
        self._count(cards, cnt)
        if hands is not None:
            hand = hands[leader]
            for c in cards:
                f = c % FACES
                if cnt[f] > hand[f]:
                    self._uncount(cards, cnt)
                    return R_NOT_IN_HAND
        lu = self._lu
        nu = self._decompose(cnt, s, lu)
        if nu <= 1 or hands is None:
            self._uncount(cards, cnt)
            return OK
        # Categories from the most demanding down (units are sorted so).
        i = 0
        r = OK
        while i < nu:
            m = lu[3 * i]
            k = lu[3 * i + 1]
            j = i
            beaten = False
            while j < nu and lu[3 * j] == m and lu[3 * j + 1] == k:
                if not beaten:
                    for seat in range(4):
                        if seat != leader and self._beats(hands[seat], s, m, k, lu[3 * j + 2]):
                            beaten = True
                            break
                j += 1
            if beaten:
                # The weakest unit of this category: the last one (sorted
                # strongest first within a category).
                if forced is not None:
                    self._emit_unit(cards, cnt, s, m, k, lu[3 * (j - 1) + 2], forced)
                r = R_THROW_FAILED
                break
            i = j
        self._uncount(cards, cnt)
        return r

    def _beats(self, hand, s, m, k, top):
        # type: (bytearray, int, int, int, int) -> bool
        """Does the hand hold, in suit s, k sets of width >= m at consecutive
        positions with a top above `top`?"""
        order = self.order
        pidx = self.pidx
        base = s * _NPOS
        run = 0
        for p in range(self.npos[s]):
            ok = False
            for i in range(pidx[base + p], pidx[base + p + 1]):
                if hand[order[i]] >= m:
                    ok = True
                    break
            if ok:
                run += 1
                if p > top and run >= k:
                    return True
            else:
                run = 0
        return False

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

    def check_follow(self, lead, hand, play):
        # type: (Sequence[int], bytearray, Sequence[int]) -> int
        """Reason code of a follow (RULES §6): OK when legal.

        hand is the follower's face-count array before the play (holding it)."""
        n = len(lead)
        if len(play) != n:
            return R_WRONG_COUNT
        s = self.lead_suit(lead)
        if s == MIXED or n == 0:
            return R_MIXED_SUIT if n else R_EMPTY
        pc = self._pc
        eff = self.eff
        r = OK
        ps = 0
        for c in play:
            f = c % FACES
            pc[f] += 1
            if eff[f] == s:
                ps += 1
        for c in play:
            f = c % FACES
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
                r = self._structure(lead, hand, pc, s)
        self._uncount(play, pc)
        return r

    def _structure(self, lead, hand, pc, s):
        # type: (Sequence[int], bytearray, bytearray, int) -> int
        """Structure of a follow that holds more suit cards than the lead has:
        compare the play's (all suit) cards with the holding (RULES §6.2-3)."""
        lc = self._lc
        self._count(lead, lc)
        lu = self._lu
        nu = self._decompose(lc, s, lu)
        self._uncount(lead, lc)
        self._nlu = nu
        if lu[0] == 1:
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
        # Vector (t, q), RULES §6.2.
        if nb:
            self._nbins = nb
            th = self._t(hand, s)
            if th and self._t(pc, s) < th:
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

    def _t(self, cnt, s):
        # type: (bytearray, int) -> int
        """t of RULES §6.2: most pairs in disjoint runs of width 2 that the lead's
        tractors (self._bins, capacities in pairs) can take."""
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

    # ------------------------------------------------------- shape matching

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
        hi = self.npos[s] - 1
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

    def _match_key(self, cards, s, cnt):
        # type: (Sequence[int], int, bytearray) -> int
        """Key of a play matched against the lead's units (self._lu), or -1 when
        it does not match (RULES §7). cards all of effective suit s."""
        self._count(cards, cnt)
        lu = self._lu
        if lu[0] >= 2:
            ok = self._fits(cnt, s, 0, _NPOS)
            key = self.key if ok else -1
        else:
            # Only singles: the strongest card.
            key = 0
            pos = self.pos
            for c in cards:
                p = pos[c % FACES]
                if p > key:
                    key = p
        self._uncount(cards, cnt)
        return key

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
        self._lvec(0, hand, s)
        for j in range(nv):
            vh[j] = vr[j]
        self._lvec(0, pc, s)
        for j in range(nv):
            if vr[j] != vh[j]:
                return self._rung_reason(lu[3 * j], lu[3 * j + 1], vh[j], vr[j])
        return OK

    def _rung_reason(self, m, k, need, got):
        # type: (int, int, int, int) -> int
        """Reason code when a play reached rung `got` of a led unit's ladder
        where the holding reached rung `need`: what the needed rung's pattern
        has that the play's lacks (a Titanic, triples, a tractor; else pairs)."""
        if self.same_shape_only or m >= 4:
            return R_SAME_SHAPE
        fn = self._rung_feat(m, k, need)
        fg = self._rung_feat(m, k, got)
        if (fn >> 8) and not (fg >> 8):
            return R_TITANIC
        if ((fn >> 1) & 127) > ((fg >> 1) & 127):
            return R_TRIPLES
        if (fn & 1) and not (fg & 1):
            return R_TRACTOR
        return R_PAIRS

    def _rung_feat(self, m, k, r):
        # type: (int, int, int) -> int
        """Features of the (first pattern of) rung r of the ladder of (m, k):
        Titanic << 8 | triples << 1 | tractor; 0 past the last rung."""
        if m == 3:
            if k == 1:
                return 2 if r == 0 else 0
            if r == 0:
                return 256 | (k << 1)
            if r == 1:
                return k << 1
            if r == 2:
                return 1
            n = 3
            for j in range(k - 1, -1, -1):
                for i in range(k - j, -1, -1):
                    if j == 0 and i == 0:
                        continue
                    if n == r:
                        return j << 1
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
                    return 1 if t else 0
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
        sp = self._setpat
        if self.same_shape_only or m >= 4 or (m == 2 and k == 1):
            if self._rung(i, sp(i, 0, m, k), cnt, s):
                return self._setrung(i, 0)
            r = 1
        elif m == 3 and k == 1:
            if self._rung(i, sp(i, 0, 3, 1), cnt, s):
                return self._setrung(i, 0)
            if self._rung(i, sp(i, 0, 2, 1), cnt, s):
                return self._setrung(i, 1)
            r = 2
        elif m == 3:
            if self._rung(i, sp(i, 0, 3, k), cnt, s):
                return self._setrung(i, 0)
            for j in range(k):
                sp(i, j, 3, 1)
            if self._rung(i, k, cnt, s):
                return self._setrung(i, 1)
            if self._rung(i, sp(i, 0, 2, k), cnt, s):
                return self._setrung(i, 2)
            r = 3
            for j in range(k - 1, -1, -1):
                for ii in range(k - j, -1, -1):
                    if j == 0 and ii == 0:
                        continue
                    n = 0
                    for _ in range(j):
                        n = sp(i, n, 3, 1)
                    for _ in range(ii):
                        n = sp(i, n, 2, 1)
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
        units. True when it cannot be beaten (all zeros)."""
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
        zero = True
        for j in range(i + 1, nv):
            v = vr[a + j]
            vr[b + j] = v
            if v:
                zero = False
        return zero

    # ---------------------------------------------------------------- tricks

    def trick_winner(self, plays):
        # type: (Sequence[Sequence[int]]) -> int
        """Index (0 = the lead) of the play that wins the trick (RULES §7)."""
        lead = plays[0]
        s = self.lead_suit(lead)
        if s == MIXED:
            return 0
        lc = self._lc
        self._count(lead, lc)
        self._nlu = self._decompose(lc, s, self._lu)
        self._uncount(lead, lc)
        win = 0
        wkey = self._match_key(lead, s, self._pc)
        wtrump = s == TRUMP
        for i in range(1, len(plays)):
            p = plays[i]
            if len(p) != len(lead):
                continue
            ps = self.lead_suit(p)
            if ps != s and ps != TRUMP:
                continue
            key = self._match_key(p, ps, self._pc)
            if key < 0:
                continue
            if ps == TRUMP and not wtrump:
                win = i
                wkey = key
                wtrump = True
            elif (ps == TRUMP) == wtrump and key > wkey:
                win = i
                wkey = key
        return win

    # ----------------------------------------------------------------- kitty

    def kitty_multiplier(self, lead):
        # type: (Sequence[int]) -> int
        """Multiplier from the top category of the last trick's lead (RULES §8)."""
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
