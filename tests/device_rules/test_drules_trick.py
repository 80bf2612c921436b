# runs-under: micropython heapsize=152K
"""Device rules engine: trick winners, kitty bonus, and no allocation on the hot
paths (docs/rules.md §7-8); CPython and MicroPython (152 KB heap: 1.15x the least, 132 KB since the search's methods are viper; before, the least it passes in from source is 111 KB, bench/mpy_heap_margin.py, but since the engine's set-up became drules_init.py (compiled from source at the first Engine) 128 KB failed for a 1,792-byte block while 136 KB passed: the compiler's blocks, not the engine's heap; the search's module, drules_sweep, compiled from source at the top)."""

import sys

import drules as D
import drules_sweep
from dcards import engine, hand, ids

# the ladders' and the oracle's code compiled from source while the heap is
# empty (an engine loads them when its rules or a check first asks them)
drules_sweep.load_all(D)

T = "T"  # level ten, as in most of docs/rules.md's examples


# --- §7 tricks -----------------------------------------------------------------


def winner(e, *plays):
    seen = [0] * 54
    out = []
    for p in plays:
        b = bytearray()
        for tok in p.split():
            from dcards import face

            f = face(tok)
            b.append((seen[f] % 4) * 54 + f)
            seen[f] += 1
        out.append(b)
    return e.trick_winner(out)


def test_trick_equal_cards_first_wins():
    e = engine(T, "S")
    assert winner(e, "TH", "TC", "3S", "TD") == 0  # side levels equal: the first stands
    assert winner(e, "TH", "TC", "TS", "TD") == 2  # the main level is higher
    assert winner(e, "4H", "9H", "9H", "2C") == 1


def test_trick_kill_needs_the_structure():
    e = engine(T, "S")
    assert winner(e, "KD KD", "3S 4S", "2D 3D", "6D 7D") == 0
    assert winner(e, "KD KD", "3S 3S", "2D 3D", "6D 7D") == 1


def test_trick_overkill_by_the_top_category():
    e = engine(T, "S")
    assert winner(e, "5D 4D 4D", "9S 7S 7S", "8S 8S 4S", "2D 3D 3D") == 2
    assert winner(e, "5D 6D 7D", "9S 7S 7S", "8S 8S 4S", "2D 3D 4D") == 1


def test_trick_throw_killed_only_by_matching_trump():
    e = engine(T, "S")
    assert winner(e, "AD KD 5D 5D 4D 4D", "3D 3D 6D 7D 8D 9D", "9S 9S 8S 8S 7S 2S", "2C 3C 4C 5C 6C 7C") == 2
    assert winner(e, "AD AD 5D 5D 4D 4D", "3D 3D 6D 7D 8D 9D", "9S 9S 8S 8S 7S 2S", "2C 3C 4C 6C 7C 8C") == 0


def test_trick_carves_units_out_of_longer_runs():
    e = engine(T, "S")
    # trump 7788 99 matches a led tractor + pair (docs/rules.md §7)
    assert winner(e, "4D 4D 5D 5D AD AD", "7S 7S 8S 8S 9S 9S", "2D 3D 6D 7D 8D 9D", "2C 3C 4C 5C 6C 7C") == 1


def test_trick_play_without_the_leads_sets_by_count_is_no_match():
    # (issue 21) the lead's sets counted against the play's faces before the
    # direct search: a play that cannot hold them is no match with no step
    # and no oracle (with one step the search alone could not say so: 2
    # decks load the oracle's code at its first question)
    lead = "3D 3D 5D 5D 9D 9D"
    short = "6S 6S 7S 8S 8S 9S"  # trump, two pairs: no match, the lead stands
    e = engine(T, "S")
    e.match_steps = 1
    assert winner(e, lead, short, "2C 3C 4C 5C 6C 7C", "2H 3H 4H 5H 6H 7H") == 0
    assert not e._qm  # the oracle never asked
    e = engine(T, "S")
    assert winner(e, lead, "6S 6S 8S 8S JS JS", "2C 3C 4C 5C 6C 7C", short) == 1
    # 4 decks: a 4-face holds two pairs or one triple, not both
    e = engine(T, "S", decks=4)
    lead = "3D 3D 3D 5D 5D 9D 9D"
    assert winner(e, lead, "6S 6S 6S 6S 8S 8S 2S", "2C 3C 4C 5C 6C 7C 8C", "2H 3H 4H 5H 6H 7H 8H") == 0
    assert winner(e, lead, "6S 6S 6S 6S 8S 8S 8S", "2C 3C 4C 5C 6C 7C 8C", "2H 3H 4H 5H 6H 7H 8H") == 1


def test_trick_search_skips_tops_the_play_cannot_hold():
    # (issue 21) the direct search's tops skip the positions where the play
    # holds no face of the unit's width: a few steps settle a match or its
    # absence below the play's strongest single (without the skip, each top
    # from AS down cost a step, and the oracle answered)
    # two pairs led: 33 and 55 below the ace are a match
    e = engine(T, "S")
    e.match_steps = 6
    assert winner(e, "3D 3D 9D 9D 5D", "3S 3S 5S 5S AS", "2C 3C 4C 5C 6C", "2H 3H 4H 5H 6H") == 1
    assert not e._qm
    # 3S 3S 4S 4S is a tractor (positions 1, 2), 3S 3S 5S 5S (1, 3) is not
    e = engine(T, "S")
    e.match_steps = 4
    assert winner(e, "8D 8D 9D 9D 5D", "3S 3S 4S 4S AS", "2C 3C 4C 5C 6C", "2H 3H 4H 5H 6H") == 1
    assert winner(e, "8D 8D 9D 9D 5D", "3S 3S 5S 5S AS", "2C 3C 4C 5C 6C", "2H 3H 4H 5H 6H") == 0
    assert not e._qm


def test_trick_leaves_the_scratch_counts_clear():
    # the match's profile of the play (decompose's scratch, lent to it) is
    # zeros again after the trick: the next decomposition counts only its
    # own cards (a fuzz-rules disagreement before: a failed throw's forced
    # pair reported where the single was forced)
    e = engine(T, "S", decks=4)
    assert winner(e, "3D 3D 5D 5D 9D", "6S 6S 8S 8S JS", "2C 3C 4C 5C 6C", "2H 3H 4H 5H 6H") == 1
    for single in ("6S", "8S", "JS", "9D"):
        assert e.decompose(ids(single)) == 1
        assert (e.units[0], e.units[1]) == (1, 1), single
    assert e.decompose(ids("6S 8S")) == 2
    assert (e.units[0], e.units[3]) == (1, 1)


# --- §8 kitty ------------------------------------------------------------------


def test_trick_one_unit_lead_matched_directly():
    # A lead of one set or one run is matched without a search (drules_match:
    # k faces of m copies at k consecutive positions): the same winners as
    # the oracle's (match_steps 0), where faces share a position or a run
    # crosses the removed level rank
    tricks = [
        ("3D 3D", "5S 5S", "5C 5D", "4D 4D", 1),  # off-suit level pair kills; two level faces are no pair
        ("3D 3D 4D 4D", "5S 5S 5C 5C", "4H 4H 6H 6H", "5S 5S 5H 5H", 3),  # same position: no tractor
        ("3D 3D 4D 4D", "5S 5S 5C 5C", "4H 4H 6H 6H", "6H 6H 8H 8H", 2),  # 6-8 skips 7: no tractor
        ("3D 3D 4D 4D", "5S 5S 5C 5C", "AH AH 5C 5C", "QH QH KH KH", 2),  # A then the off-suit level
        ("3D 3D 4D 4D", "6D 6D 7D 7D", "3H 3H 7H 7H", "8D 8D 9D 9D", 3),
        ("3D 3D 4D 4D", "9D 9D 6D 6D", "SJ SJ BJ BJ", "5H 5H SJ SJ", 2),
        ("3D 3D 4D 4D 6D 6D", "5S 5S 5C 5C SJ SJ", "4H 4H 6H 6H 7H 7H", "5S 5S 5H 5H SJ SJ", 3),
    ]
    for decks in (2, 4):
        e = engine("5", "H", decks=decks)
        o = engine("5", "H", decks=decks)
        o.match_steps = 0  # the placement oracle answers
        for lead, a, b, c, want in tricks:
            assert winner(e, lead, a, b, c) == want, (decks, lead, a, b, c)
            assert winner(o, lead, a, b, c) == want, (decks, lead, a, b, c)
    e = engine("5", "H", decks=3)
    assert winner(e, "7D 7D 7D", "9D 9D 8D", "8D 8D 8D", "2H 2H 2H") == 3
    assert winner(e, "7D 7D 7D 8D 8D 8D", "9D 9D 9D TD TD TD", "2H 2H 2H 4H 4H 4H", "3H 3H 3H 4H 4H 4H") == 3


def test_kitty_multipliers():
    kitty = ids("KD KD 5C TH 3C 4C 6C 7C")
    e = engine(T, "S")
    assert e.kitty_multiplier(ids("AC")) == 2
    assert e.kitty_multiplier(ids("AC AC")) == 4
    assert e.kitty_multiplier(ids("AC AC KC KC QC QC")) == 16
    assert e.kitty_bonus(ids("AC AC KC KC"), ids("3S 3S 4S 4S"), kitty) == 280
    lin = engine(T, "S", kitty_multiplier=D.KM_LINEAR)
    assert lin.kitty_multiplier(ids("AC AC KC KC QC QC")) == 12
    cards = engine(T, "S", kitty_multiplier=D.KM_CARDS)
    assert cards.kitty_multiplier(ids("AC AC")) == 8
    t3 = engine(T, "S", decks=3)
    assert t3.kitty_multiplier(ids("AC AC AC KC KC KC")) == 18


def test_kitty_requires_trump():
    e = engine(T, "S", kitty_requires_trump=True)
    kitty = ids("KD 5C")
    assert e.kitty_bonus(ids("AC"), ids("3S"), kitty) == 30
    assert e.kitty_bonus(ids("AC"), ids("KC"), kitty) == 0
    # the multiplier is still the table's when the bonus is voided
    assert e.kitty_multiplier(ids("QC QC JC JC")) == 8
    assert e.kitty_bonus(ids("QC QC JC JC"), ids("AC AC KC KC"), kitty) == 0
    assert e.kitty_bonus(ids("QC QC JC JC"), ids("3S 3S 4S 4S"), kitty) == 8 * 15
    assert e.kitty_bonus(ids("QC QC JC JC"), ids("TS TS SJ SJ"), kitty) == 8 * 15
    assert engine(T, "S").kitty_bonus(ids("QC QC JC JC"), ids("AC AC KC KC"), kitty) == 8 * 15


# --- the hot path allocates nothing --------------------------------------------


def test_checks_allocate_nothing_under_micropython():
    if sys.implementation.name != "micropython":
        return
    import gc

    e = engine(T, "S")
    lead = ids("KH KH QH QH")
    h = hand("9H 9H 8H 8H 3H 2C AS AS TC 5D")
    play = ids("9H 9H 8H 8H")
    hs = [hand("KH KH QH QH 4H"), h, hand("AH AH 5H"), hand("3C")]
    throw = ids("KH KH QH QH 4H")
    forced = bytearray(16)
    plays = [lead, play, ids("AH AH 5H 7H"), ids("3C 4C 5C 6C")]
    e.check_follow(lead, h, play)
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        for _ in range(5):
            e.check_follow(lead, h, play)
            e.check_lead(throw, hs, 0, forced)
            e.trick_winner(plays)
        used = gc.mem_alloc() - before
    finally:
        gc.enable()
    assert used == 0, used


def test_ladder_checks_allocate_nothing_under_micropython():
    if sys.implementation.name != "micropython":
        return
    import gc

    e = engine("2", "H", decks=3)
    lead = ids("AS AS AS QS QS QS TS TS TS 8S 8S")
    h = hand("KS KS KS JS JS JS 9S 9S 9S 7S 7S 5S 5S 3S 3S 3S 2D 4D")
    play = ids("KS KS KS JS JS JS 9S 9S 9S 7S 7S")
    bad = ids("KS KS KS JS JS JS 9S 9S 7S 7S 5S")
    e.check_follow(lead, h, play)
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        for _ in range(3):
            assert e.check_follow(lead, h, play) == D.OK
            assert e.check_follow(lead, h, bad) != D.OK
        used = gc.mem_alloc() - before
    finally:
        gc.enable()
    assert used == 0, used


def test_oracle_paths_allocate_nothing_under_micropython():
    # the placement oracle's sweep, its remembered states, t on the oracle,
    # a trick matched by the oracle (no direct search: match_steps = 0)
    if sys.implementation.name != "micropython":
        return
    import gc

    e = engine("7", "S", decks=4)
    lead = ids("7S 7S 7S 9S 9S 9S JS JS QS QS KS KS KS AS AS AS 7D 7D 7D 7C 7C 7C")
    h = hand("2S 2S 3S 3S 4S 4S 4S 4S 6S 6S 7S 8S 8S 9S TS TS JS JS QS QS KS AS 7D 7C SJ SJ BJ")
    play = ids("SJ 2S 9S 7C 3S 7S 6S 4S AS 6S 8S SJ JS 4S 4S 2S QS TS 7D 8S 3S QS")
    plays = [lead, play, ids("2S 2S 3S 3S 4S 4S 4S 4S 6S 6S 8S 8S TS TS JS JS QS QS SJ SJ KS AS")]
    t_lead = ids("3S 3S 4S 4S 6S 6S 7S 7S 9S 9S TS TS")
    t_hand = hand("3S 3S 4S 4S 5S 5S 7S 7S 8S 8S 9S 9S JS JS QS QS KS KS")
    t_play = ids("3S 3S 4S 4S 5S 5S 7S 7S 8S 8S 9S 9S")
    e.match_steps = 0
    r = e.check_follow(lead, h, play)
    w = e.trick_winner(plays)
    rt = e.check_follow(t_lead, t_hand, t_play)
    gc.collect()
    gc.disable()
    try:
        before = gc.mem_alloc()
        for _ in range(3):
            assert e.check_follow(lead, h, play) == r == D.R_TRACTOR
            assert e.trick_winner(plays) == w
            assert e.check_follow(t_lead, t_hand, t_play) == rt
        used = gc.mem_alloc() - before
    finally:
        gc.enable()
    assert used == 0, used
    assert e.nstates > 0  # the sweep ran
