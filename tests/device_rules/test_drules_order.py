# runs-under: micropython heapsize=152K
"""Device rules engine: card order, points, units and decomposition (docs/rules.md §2-4).
Each rule with a case that holds and one that does not; CPython and MicroPython (152 KB heap: 1.15x the least it passes in from source, 132 KB since the search's methods are viper, bench/mpy_heap_margin.py)."""


import drules as D
import drules_sweep
from dcards import engine, ids, shape

# the ladders' and the oracle's code compiled from source while the heap is
# empty (an engine loads them when its rules or a check first asks them)
drules_sweep.load_all(D)

T = "T"  # level ten, as in most of docs/rules.md's examples


# --- §2 order -----------------------------------------------------------------


def test_order_trump_levels_and_jokers():
    e = engine(T, "S")
    c = lambda a, b: e.compare(ids(a)[0], ids(b)[0])  # noqa: E731
    assert c("TS", "TH") == 1  # main level over side level
    assert c("TH", "TC") == 0  # side levels equal
    assert c("TH", "AS") == 1  # side level over trump ace
    assert c("SJ", "TS") == 1 and c("BJ", "SJ") == 1
    assert c("2S", "AH") == 1  # any trump over a side suit
    assert c("AH", "2D") == D.CMP_NONE  # different side suits
    assert c("3H", "AH") == -1


def test_order_permanent_twos():
    e = engine(T, "S", permanent_twos=True)
    c = lambda a, b: e.compare(ids(a)[0], ids(b)[0])  # noqa: E731
    assert c("2S", "AS") == 1 and c("TC", "2S") == 1 and c("2S", "2H") == 1
    assert c("2H", "2D") == 0
    assert e.suit_of(ids("2H")[0]) == D.TRUMP
    # without the option a 2 of a side suit is a side card
    assert engine(T, "S").suit_of(ids("2H")[0]) == 1
    # at level 2 the option changes nothing
    e2 = engine("2", "S", permanent_twos=True)
    assert e2.compare(ids("2S")[0], ids("2H")[0]) == 1


def test_order_no_trump():
    e = engine("5", "NT")
    assert e.suit_of(ids("5C")[0]) == D.TRUMP
    assert e.suit_of(ids("AS")[0]) == 0
    assert e.compare(ids("5S")[0], ids("5C")[0]) == 0
    assert e.compare(ids("SJ")[0], ids("5S")[0]) == 1


def test_points():
    e = engine()
    assert e.points(ids("5S TH KD 3C SJ BJ")) == 25
    assert e.points(ids("AS QH")) == 0


# --- §3-4 units and decomposition ----------------------------------------------


def test_tractors_bridge_the_level_and_run_through_level_cards():
    assert shape(engine(T, "S"), "JH JH 9H 9H") == ["t2"]
    assert shape(engine(T, "S"), "SJ SJ TS TS") == ["t2"]
    assert shape(engine(T, "S"), "TS TS TH TH AS AS") == ["t3"]
    assert shape(engine("5", "H"), "4H 4H 6H 6H") == ["t2"]
    assert shape(engine("5", "H"), "AH AH 5C 5C") == ["t2"]


def test_not_tractors():
    assert shape(engine(T, "S"), "TH TH TC TC") == ["p", "p"]  # same position
    assert shape(engine(T, "S"), "AS AS 2S 2S") == ["p", "p"]  # no wrap
    assert shape(engine("5", "H"), "4H 4H 5H 5H") == ["p", "p"]
    assert shape(engine("5", "NT"), "5S 5S 5C 5C") == ["p", "p"]
    assert shape(engine(T, "S"), "5D 5D 3D 3D") == ["p", "p"]
    assert engine(T, "S").decompose(ids("JH JH TH TH")) == -1  # mixed suits


def test_widest_first():
    e = engine("2", "H", decks=3)
    assert shape(e, "3S 3S 3S 4S 4S") == ["3", "p"]
    assert shape(e, "9S 9S TS TS JS JS JS") == ["3", "t2"]
    assert shape(e, "9S 9S 9S TS TS JS JS JS") == ["3", "3", "p"]
    assert shape(engine("5", "H", decks=3), "4C 4C 4C 6C 6C 6C") == ["T2"]
    assert shape(engine("5", "H", decks=4), "4C 4C 4C 4C 6C 6C 6C 6C 7C") == ["Q2", "s"]


def test_longest_then_strongest_with_equal_positions():
    # two side-level pairs at one position: one joins the run, one stays a pair
    e = engine(T, "S")
    assert shape(e, "AS AS TH TH TC TC") == ["t2", "p"]
    assert shape(e, "AS AS TH TH TC TC TS TS") == ["t3", "p"]


def test_parts_use_the_same_constants():
    # each part module re-declares the const() values it needs (const names are
    # inlined only within their own module): they must equal drules.py's
    import drules_ladder
    import drules_match
    import drules_play

    checked = 0
    for part in (drules_play, drules_match, drules_ladder):
        for name in dir(part):
            if name.isupper() and hasattr(D, name):
                assert getattr(part, name) == getattr(D, name), (part, name)
                checked += 1
    assert checked >= 15


def _named(f, part, n):
    # the function of that name: a viper function has no __name__ under
    # MicroPython (nor a repr that names it), so it must be the part's own
    if hasattr(f, "__name__"):
        return f.__name__ == n
    return f is part.__dict__[n]


def test_the_ladders_and_the_oracle_come_with_the_rules_or_the_check_that_asks_them():
    # drules._parts puts the parts' methods on the Engine: the ladders and the
    # placement oracle at once with 3-4 decks (or same_shape_only), the
    # oracle alone at its first question otherwise (docs/firmware.md, "Heap")
    import drules_ladder
    import drules_memo
    import drules_place
    import drules_sweep

    e = engine("2", "NT", decks=2)
    assert not e._qm  # no oracle buffers: nothing asked it yet
    lead = ids("3H 3H 4H 4H")
    plays = [lead, ids("5H 5H 6H 6H"), ids("7H 8H 9H TH"), ids("2C 3C 4C 5C")]
    assert e.trick_winner(plays) == 1  # the direct search settles it
    assert not e._qm
    e.match_steps = 0  # every trick to the oracle
    assert e.trick_winner(plays) == 1
    assert e._qm  # it came, with the same verdict
    e3 = engine("2", "NT", decks=3)
    assert e3._qm  # with ladders: at once
    # each part's every method on the class itself (by name: the table core's
    # tests drop the engine's modules and load them again, so the part
    # imported here may be another copy of the module the Engine took it from)
    own = D.Engine.__dict__
    for part in (drules_ladder.Ladders, drules_place.Placer, drules_memo.Memo):
        for n in dir(part):
            if n[:2] != "__":
                assert n in own and _named(own[n], part, n), n
    e3.set_trump(8, 0)  # level ten, spades
    # a led triple against a holding of a triple: the ladder's verdict (§6.3)
    lead = ids("AH AH AH")
    hand = D.hand_from(ids("KH KH KH 3H 4H"))
    assert e3.check_follow(lead, hand, ids("KH KH 3H")) == D.R_TRIPLES
    assert e3.check_follow(lead, hand, ids("KH KH KH")) == D.OK
    # the oracle's search (drules_sweep): its methods on the class (put by
    # load_all above; a table's engine gets them at the first question that
    # reaches _feasible: test_engine_parts.py), and a near-miss follow (adv-21)
    # that asks it answered
    e3.set_trump(3, 3)  # level 5, clubs
    lead = ids("5S 5S 5H 5H 5H 5D 5C 5C 5C 7C 7C 8C 8C 9C 9C 9C TC TC TC SJ SJ SJ")
    hand = D.hand_from(ids("2S 5S QS QS KS 4H 4H 7H 9H JH KH 3D 5D 5D 8D 8D AD 2C 2C 3C 3C 3C 4C 4C 4C "
                           "6C 6C 6C 7C 8C JC JC JC QC QC AC AC BJ BJ BJ"))
    play = ids("5S 5D 5D 2C 3C 3C 3C 4C 4C 4C 6C 6C 6C 7C 8C JC JC QC QC AC BJ BJ")
    assert e3.check_follow(lead, hand, play) == D.R_TRIPLES
    for n in dir(drules_sweep.Sweep):
        if n[:2] != "__":
            assert n in own and _named(own[n], drules_sweep.Sweep, n), n
