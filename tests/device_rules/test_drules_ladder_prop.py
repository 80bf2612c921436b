# runs-under: micropython heapsize=160K
"""Device rules engine: the polynomial ladder (firmware/drules_ladder.py and
drules_place.py) against the exponential search it replaced (kept in
tests/support/drules_refladder.py as the reference), on random leads,
holdings and plays: 1-4 decks, every ladder shape (triples, Titanics, throws
with triples, tractors and pairs in them, quads), same_shape_only,
permanent_twos, NT. The vectors of rungs and the reasons must be the same.
CPython and MicroPython."""

import drules as D
import drules_sweep
from drules_refladder import RefEngine

# the ladders' and the oracle's code compiled from source while the heap is
# empty (an engine loads them when its rules or a check first asks them)
drules_sweep.load_all(D)

_NPOS = 18  # the stride of the engine's pidx (firmware/drules.py)


class Rng:
    """A small LCG, the same numbers under both runtimes."""

    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def _suit_faces(e, s):
    return [e.order[i] for i in range(e.start[s], e.start[s + 1])]


def _draw(rng, faces, counts, n, decks):
    """n cards of the given faces (counts: copies left), favouring sets and
    neighbours: a face, then often the same or the next one again."""
    out = []
    i = rng.below(len(faces))
    tries = 0
    while len(out) < n and tries < 200:
        tries += 1
        f = faces[i]
        if counts[f] > 0:
            take = 1 + rng.below(decks)
            while take and counts[f] > 0 and len(out) < n:
                out.append(f)
                counts[f] -= 1
                take -= 1
        j = rng.below(4)
        if j == 0:
            i = rng.below(len(faces))
        elif j < 3:
            i = (i + 1) % len(faces)
    return out


def _units(rng, e, s, counts, nunits, decks, out):
    """Cards of random units (a set or a run of width 2..decks, length 1-3)
    at random positions of suit s, as far as the copies left allow."""
    np_ = e.npos[s]
    for _ in range(nunits):
        m = 2 + rng.below(decks - 1) if decks > 1 else 1
        k = 1 + rng.below(3)
        top = rng.below(np_)
        for p in range(top - k + 1, top + 1):
            if p < 0:
                continue
            base = s * _NPOS + p
            lo = e.pidx[base]
            hi = e.pidx[base + 1]
            f = e.order[lo + rng.below(hi - lo)]
            for _ in range(m):
                if counts[f] > 0:
                    out.append(f)
                    counts[f] -= 1


def _case(rng, shape):
    decks = 3 + rng.below(2) if shape != 2 else 1 + rng.below(4)
    same = shape == 2 or rng.below(6) == 0
    twos = rng.below(3) == 0
    level = rng.below(13)
    trump = rng.below(5)
    opts = {"decks": decks, "permanent_twos": twos, "same_shape_only": same}
    new = D.Engine(**opts)
    ref = RefEngine(**opts)
    new.set_trump(level, trump)
    ref.set_trump(level, trump)
    s = 4 if rng.below(2) == 0 else rng.below(4)
    if s == trump:
        s = 4
    faces = _suit_faces(new, s)
    if not faces:
        return None
    counts = bytearray(54)
    for f in range(54):
        counts[f] = decks
    if shape == 3:
        # units put together: Titanics, triples, tractors, pairs, quads
        lead = []
        _units(rng, new, s, counts, 2 + rng.below(3), decks, lead)
        hold = []
        _units(rng, new, s, counts, 2 + rng.below(4), decks, hold)
        hold += _draw(rng, faces, counts, rng.below(6), decks)
        if not lead or len(hold) < len(lead):
            return None
        return new, ref, s, lead, hold
    nlead = 2 + rng.below(9 if shape != 1 else 13)
    lead = _draw(rng, faces, counts, nlead, decks)
    hold = _draw(rng, faces, counts, len(lead) + rng.below(10), decks)
    return new, ref, s, lead, hold


def _vectors(e, lead, cnt, s, new):
    lc = bytearray(54)
    for f in lead:
        lc[f] += 1
    nu = e._decompose(lc, s, e._lu, 1)
    e._nlu = nu
    nv = 0
    while nv < nu and e._lu[3 * nv] >= 2 and nv < 24:
        nv += 1
    if nv == 0:
        return []
    if new:
        out = bytearray(24)
        e._vp[12] = 3  # every width's stretches set up (_ladder asks only for those the lead runs)
        e._lstart(cnt, s)
        e._lvector(out, nv)
        return list(out[:nv])
    e._nlv = nv
    e._vector(cnt, s)
    return list(e._vr[:nv])


def _tcheck(seed, n):
    """The t of docs/rules.md §6.2 (leads of pairs and tractors, 1-4 decks): the
    search, the oracle it falls back on, and the reference agree."""
    rng = Rng(seed)
    done = 0
    while done < n:
        decks = 2 + rng.below(3)
        opts = {"decks": decks, "permanent_twos": rng.below(3) == 0}
        new = D.Engine(**opts)
        ref = RefEngine(**opts)
        level = rng.below(13)
        trump = rng.below(5)
        new.set_trump(level, trump)
        ref.set_trump(level, trump)
        s = 4 if rng.below(2) == 0 else rng.below(4)
        if s == trump or not _suit_faces(new, s):
            s = 4
        counts = bytearray(54)
        for f in range(54):
            counts[f] = 2  # pairs at most: no triples led
        lead = []
        _units(rng, new, s, counts, 2 + rng.below(4), 2, lead)
        for f in range(54):
            counts[f] = decks - (2 - counts[f])
        hold = []
        _units(rng, new, s, counts, 3 + rng.below(5), decks, hold)
        if not lead or len(hold) <= len(lead):
            continue
        h = bytearray(54)
        for f in hold:
            h[f] += 1
        lc = bytearray(54)
        for f in lead:
            lc[f] += 1
        for e in (new, ref):
            nu = e._decompose(lc, s, e._lu, 1)
            e._nlu = nu
            nb = 0
            for i in range(nu):
                if e._lu[3 * i] == 2 and e._lu[3 * i + 1] >= 2:
                    e._bins[nb] = e._lu[3 * i + 1]
                    nb += 1
            e._nbins = nb
        if new._nbins == 0 or new._lu[0] > 2:
            continue
        t = new._t(h, s, 0, 32)
        to = new._t(h, s, 0, 0)  # the oracle alone
        # asked only whether t reaches a floor: the floor if so, else 0
        for lo in (t, t + 1):
            if lo >= 2:
                for steps in (0, 8, 32):  # the oracle alone, a short search first, a longer one
                    assert new._t(h, s, lo, steps) == (lo if t >= lo else 0), (seed, lead, hold, t, lo, steps)
        assert t == to == ref._t(h, s), (seed, lead, hold, t, to)
        play = hold[: len(lead)]
        assert new.check_follow(lead, h, play) == ref.check_follow(lead, h, play)
        done += 1


def test_tractor_pairs_t():
    _tcheck(5, 150)


def _check(seed, n, shape):
    rng = Rng(seed)
    done = 0
    while done < n:
        c = _case(rng, shape)
        if c is None:
            continue
        new, ref, s, lead, hold = c
        h = bytearray(54)
        for f in hold:
            h[f] += 1
        vn = _vectors(new, lead, h, s, True)
        vr = _vectors(ref, lead, h, s, False)
        assert vn == vr, (seed, lead, hold, vn, vr)
        plays = []
        for _ in range(3):
            # a play: len(lead) of the holding's cards
            pool = list(hold)
            play = []
            while len(play) < len(lead) and pool:
                play.append(pool.pop(rng.below(len(pool))))
            pc = bytearray(54)
            for f in play:
                pc[f] += 1
            assert _vectors(new, lead, pc, s, True) == _vectors(ref, lead, pc, s, False), (
                seed,
                lead,
                play,
            )
            if len(play) == len(lead):
                a = new.check_follow(lead, h, play)
                b = ref.check_follow(lead, h, play)
                assert a == b, (seed, lead, hold, play, a, b)
                plays.append(bytearray(play))
        if len(plays) > 1:
            # the trick: matching against the lead's units, the keys
            plays.insert(0, bytearray(lead))
            assert new.trick_winner(plays) == ref.trick_winner(plays), (seed, plays)
            for p in plays[1:]:
                top = 0
                for f in p:
                    if new.pos[f] > top:
                        top = new.pos[f]
                kn = new._match_key(p, s, new._pc, top)
                new.match_steps = 0  # the placement oracle alone
                ko = new._match_key(p, s, new._pc, top)
                new.match_steps = 32
                kr = ref._match_key(p, s, ref._pc, top)
                assert kn == ko == kr, (seed, lead, list(p), kn, ko, kr)
                floor = rng.below(top + 2)  # only a key of floor or more
                want = kr if kr >= floor else -1
                assert new._match_key(p, s, new._pc, top, floor) == want, (seed, list(p), floor)
                new.match_steps = 0
                assert new._match_key(p, s, new._pc, top, floor) == want, (seed, list(p), floor)
                new.match_steps = 32
        done += 1


def test_ladders_of_triples_and_titanics():
    _check(1, 120, 0)


def test_throws_with_triples_tractors_and_pairs():
    _check(2, 80, 1)


def test_same_shape_only_any_decks():
    _check(3, 120, 2)


def test_units_put_together():
    _check(4, 150, 3)


def test_the_issue_12_case():
    # 4 decks, level 7, trump S (docs/rules.md "How the table reads it")
    from dcards import hand, ids

    opts = {"decks": 4}
    e = D.Engine(**opts)
    r = RefEngine(**opts)
    e.set_trump(5, 0)
    r.set_trump(5, 0)
    lead = ids("7S 7S 7S 9S 9S 9S JS JS QS QS KS KS KS AS AS AS 7D 7D 7D 7C 7C 7C")
    h = hand("2S 2S 3S 3S 4S 4S 4S 4S 6S 6S 7S 8S 8S 9S TS TS JS JS QS QS KS AS 7D 7C SJ SJ BJ")
    play = ids("SJ 2S 9S 7C 3S 7S 6S 4S AS 6S 8S SJ JS 4S 4S 2S QS TS 7D 8S 3S QS")
    assert e.check_follow(lead, h, play) == r.check_follow(lead, h, play) == D.R_TRACTOR
