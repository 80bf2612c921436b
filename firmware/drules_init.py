# The device rules engine's set-up: drules.Engine.__init__ (its buffers)
# and set_trump (a hand's order tables), run once a hand when tablerules
# builds the hand's engine (the end of the draw, or a restore), loaded for
# it and dropped after (tablerules: the play's heap does not hold their code;
# docs/firmware.md, "Heap"). Each function takes the engine as its first
# argument; drules.Engine's methods of the same names call them.
from micropython import const

try:
    from typing import Any, Callable  # noqa: F401
except ImportError:
    pass

_TRUMP = const(4)  # drules.TRUMP: the effective suit of trump cards
_NT = const(4)  # drules.NT: no trump suit
_SMALL_JOKER = const(52)
_BIG_JOKER = const(53)
_FACES = const(54)
_KM_STRUCTURE = const(0)  # drules.KM_STRUCTURE
_NPOS = const(18)  # drules' sizes of the scratch buffers
_MAXU = const(64)
_MAXB = const(16)
_VW = const(24)
_FD = const(16)  # drules_match's frames of the t-search
# _fits's steps before the oracle when the oracle's placement is loaded with the
# ladders (3-4 decks, same_shape_only): bot play's direct searches took 0-2 steps
# mostly, at most 8 since their tops skip what the play cannot hold (issue 21;
# 1,200 hands: none reached the oracle, whose search would load drules_sweep;
# at most 15 before); a near miss's are bytecode spent before the oracle answers
_LSTEPS = const(12)


def init(
    self,
    parts,
    decks=2,
    permanent_twos=False,
    same_shape_only=False,
    kitty_multiplier=_KM_STRUCTURE,
    kitty_requires_trump=False,
    throw_penalty=0,
):
    # type: (Any, Callable[[bool], None], int, bool, bool, int, bool, int) -> None
    if decks < 1 or decks > 4:
        raise ValueError("decks must be 1-4")
    self.decks = decks
    self.permanent_twos = bool(permanent_twos)
    self.same_shape_only = bool(same_shape_only)
    self.kitty_policy = kitty_multiplier
    self.kitty_requires_trump = bool(kitty_requires_trump)
    self.throw_penalty = throw_penalty
    self.level = 0
    self.trump = _NT
    # Per face: effective suit and position (0 = weakest) in that suit.
    self.eff = bytearray(_FACES)
    self.pos = bytearray(_FACES)
    # Faces sorted by (effective suit, position); suit s is
    # order[start[s]:start[s+1]], its faces at position p are
    # order[pidx[s*_NPOS+p]:pidx[s*_NPOS+p+1]].
    self.order = bytearray(_FACES)
    self.start = bytearray(6)
    self.npos = bytearray(5)
    self.pidx = bytearray(5 * _NPOS)
    # Scratch: face counts of the lead, of a play, of a hand's suit.
    self._lc = bytearray(_FACES)
    self._pc = bytearray(_FACES)
    self._wc = bytearray(_FACES)
    self._zf = bytes(_FACES)  # zeros: a count array cleared in one slice copy
    # Profiles over positions.
    self._pr = bytearray(_NPOS)
    self._pr2 = bytearray(_NPOS)
    # Units of the last decomposition: (m, k, top) triples.
    self.units = bytearray(3 * _MAXU)
    self.nunits = 0
    self._lu = bytearray(3 * _MAXU)  # the lead's units, kept during a check
    self._nlu = 0
    self._bins = bytearray(_MAXB)
    # the explicit stacks of the searches (no recursion: docs/firmware.md,
    # "The C stack"): _fits's unit tops and faces placed; _fill's frames
    self._ut = bytearray(_MAXU)
    self._fi = bytearray(_MAXU)
    self._ff = bytearray(8 * _FD)
    self._nbins = 0
    self._best = 0
    self._cap = 0
    self.nforced = 0
    self.key = 0  # key of the last matched play (see _match_key)
    self._pmax = 0  # strongest position of the play being matched
    self._steps = 0
    self._floor = 0  # the least key a match must have (see _match_key)
    # (no use: it keeps the oracle engine's map at 74 attributes or more,
    # in 97 slots, not 73 in 73, where every miss probes them all:
    # tests/device_rules/test_engine_map.py; _fits's _nfi until issue 21)
    self._pad = 0
    self.match_steps = 32  # steps of the direct search before the oracle
    # Ladders (docs/rules.md §6.3): the vectors of rungs of the holding and of
    # the play, the question's runs of pairs; the placement oracle's own.
    self._vh = bytearray(_VW)
    # The play's figures (_ladder): its faces of 2, 3, >= 4 copies (0-2),
    # its longest stretches of each width (3-5); the faces left over by
    # the placement in self._u when _tail found them with no choice (6-8,
    # 9: 1 if so); 10: the pairs in runs a question misses (_try, for
    # _unit); 11: 1 while _ladder asks _lvector to stop early; 12: the
    # widths _lstart sets up (_psetup's nw: 1 when the lead has no run of
    # triples or quads); 13: 1 once one pair more did not fit (_try); 14:
    # 1 while _ladder asks the play's questions, the holding's placement
    # kept in _lc (_try). One buffer: no more names (qstrs) in the heap.
    self._vp = bytearray(18)
    self._vp[12] = 3
    # The decomposition's scratch (_decompose), shared with the oracle:
    # faces of 2, 3, >= 4 copies per position, and its zeros. The
    # oracle's own buffers and code come with it: at once with ladders
    # (3-4 decks, same_shape_only: every led triple asks it), else at the
    # first question to it (_oracle); _qm empty until then.
    self._a = bytearray(3 * _NPOS)
    # its zeros: _zf's bytes when the sizes agree (54 both), one object fewer
    self._z = self._zf if 3 * _NPOS == _FACES else bytes(3 * _NPOS)
    self._qm = bytearray()
    if decks > 2 or same_shape_only:
        parts(True)  # drules._parts (given: this module does not import drules)
        self._place_init()
        # the oracle's placement is here already: a trick's direct search
        # gives up sooner (issue 21: adv-54, adv-59, adv-08 spent 32 steps
        # of bytecode in each _fits before the oracle answered; with 1-2
        # decks 32 keeps the oracle's code out of bot play's heap)
        self.match_steps = _LSTEPS
    set_trump(self, 0, _NT)


def set_trump(self, level, trump):
    # type: (Any, int, int) -> None
    """Build the order tables for a hand at `level` (rank 0-12) and `trump` (0-3 or NT)."""
    if level < 0 or level > 12 or trump < 0 or trump > _NT:
        raise ValueError("bad level or trump")
    self.level = level
    self.trump = trump
    eff = self.eff
    pos = self.pos
    twos = self.permanent_twos and level != 0
    # Side suits: A down to 2, skipping the level (and 2s).
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
    if trump != _NT:
        for r in range(13):
            if r == level or (twos and r == 0):
                continue
            f = trump * 13 + r
            eff[f] = _TRUMP
            pos[f] = p
            p += 1
    if twos:
        for s in range(4):
            if s != trump:
                eff[s * 13] = _TRUMP
                pos[s * 13] = p
        p += 1
        if trump != _NT:
            eff[trump * 13] = _TRUMP
            pos[trump * 13] = p
            p += 1
    for s in range(4):
        if s != trump:
            eff[s * 13 + level] = _TRUMP
            pos[s * 13 + level] = p
    p += 1
    if trump != _NT:
        eff[trump * 13 + level] = _TRUMP
        pos[trump * 13 + level] = p
        p += 1
    eff[_SMALL_JOKER] = _TRUMP
    pos[_SMALL_JOKER] = p
    eff[_BIG_JOKER] = _TRUMP
    pos[_BIG_JOKER] = p + 1
    # Sorted order and indexes: a counting sort on (suit, position).
    order = self.order
    start = self.start
    npos = self.npos
    pidx = self.pidx
    for k in range(5 * _NPOS):
        pidx[k] = 0
    for f in range(_FACES):
        pidx[eff[f] * _NPOS + pos[f]] += 1
    i = 0
    for s in range(5):
        start[s] = i
        base = s * _NPOS
        mx = 0
        for p in range(_NPOS):
            c = pidx[base + p]
            if c:
                mx = p + 1
            pidx[base + p] = i
            i += c
        npos[s] = mx
    start[5] = i
    # the cursors, one per (suit, position): made here, once a hand (the
    # end of the draw, a restore), not held by the engine through the play
    cur = bytearray(pidx)
    for f in range(_FACES):
        k = eff[f] * _NPOS + pos[f]
        order[cur[k]] = f
        cur[k] += 1
