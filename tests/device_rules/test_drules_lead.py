# runs-under: micropython heapsize=152K
"""Device rules engine: leads, throws and following with pairs and tractors (docs/rules.md §5-6.2),
each rule legal and illegal; CPython and MicroPython (152 KB heap: 1.15x the least it passes in from source, 132 KB since the search's methods are viper, bench/mpy_heap_margin.py; the search's module, drules_sweep, compiled from source at the top)."""


import drules as D
import drules_sweep
from dcards import engine, hand, ids, names

# the ladders' and the oracle's code compiled from source while the heap is
# empty (an engine loads them when its rules or a check first asks them)
drules_sweep.load_all(D)

T = "T"  # level ten, as in most of docs/rules.md's examples


# --- §5 leading and throws -----------------------------------------------------


def hands4(*texts):
    return [hand(t) for t in texts]


def test_lead_must_be_one_suit():
    e = engine(T, "S")
    assert e.check_lead(ids("AH KH")) == D.OK
    assert e.check_lead(ids("AH KD")) == D.R_MIXED_SUIT
    assert e.check_lead(ids("AH TD")) == D.R_MIXED_SUIT
    assert e.check_lead(ids("TD 3S")) == D.OK  # both trump
    assert e.check_lead(b"") == D.R_EMPTY


def test_lead_not_in_hand():
    e = engine(T, "S")
    hs = hands4("AH", "", "", "")
    assert e.check_lead(ids("KH"), hs, 0) == D.R_NOT_IN_HAND
    assert e.check_lead(ids("AH"), hs, 0) == D.OK


def test_one_unit_always_stands():
    e = engine(T, "S")
    hs = hands4("3D 3D", "AD AD", "", "")
    assert e.check_lead(ids("3D 3D"), hs, 0, bytearray(8)) == D.OK


def test_throw_stands_and_fails():
    e = engine(T, "S")
    lead = ids("9D 8D 8D 4D 4D")
    forced = bytearray(8)
    ok = hands4("9D 8D 8D 4D 4D 3C", "7D 3D 3D", "2D", "AS AS")
    assert e.check_lead(lead, ok, 0, forced) == D.OK
    # a higher single beats the 9: the single is forced
    single = hands4("9D 8D 8D 4D 4D 3C", "JD 2C 2C", "3D 3D 7H", "6C")
    assert e.check_lead(lead, single, 0, forced) == D.R_THROW_FAILED
    assert names(forced[: e.nforced]) == ["9D"]
    # pairs are checked first: QQ beats 88, the weakest pair (44) is forced
    pairs = hands4("9D 8D 8D 4D 4D 3C", "QD QD JD", "3H", "6C")
    assert e.check_lead(lead, pairs, 0, forced) == D.R_THROW_FAILED
    assert names(forced[: e.nforced]) == ["4D", "4D"]


def test_trumping_a_throw_is_not_beating_it():
    e = engine(T, "S")
    hs = hands4("AD KD", "3S 3S BJ", "", "")
    assert e.check_lead(ids("AD KD"), hs, 0, bytearray(4)) == D.OK


def test_throw_beaten_by_a_longer_run():
    e = engine(T, "S")
    lead = ids("5H 5H 6H 6H AH")
    hs = hands4("5H 5H 6H 6H AH", "7H 7H 8H 8H 9H 9H", "", "")
    forced = bytearray(8)
    assert e.check_lead(lead, hs, 0, forced) == D.R_THROW_FAILED
    assert names(forced[: e.nforced]) == ["5H", "5H", "6H", "6H"]


def test_throw_beaten_only_above_the_weakest_units_top():
    # (issue 21: each other seat's widest set per position, counted once; a
    # category's runs looked for from the weakest unit's top - k + 2 up)
    e = engine(T, "S", decks=4)
    lead = ids("5D 5D 6D 6D AD")
    forced = bytearray(8)
    # the same tractor, or one below, does not beat it
    for other in ("5D 5D 6D 6D", "3D 3D 4D 4D 5D 5D"):
        hs = hands4("5D 5D 6D 6D AD", other, "", "")
        assert e.check_lead(lead, hs, 0, forced) == D.OK, other
    # one a position higher does
    for seat in (1, 2, 3):
        hs = hands4("5D 5D 6D 6D AD", "", "", "")
        hs[seat] = hand("6D 6D 7D 7D")
        assert e.check_lead(lead, hs, 0, forced) == D.R_THROW_FAILED, seat
        assert names(forced[: e.nforced]) == ["5D", "5D", "6D", "6D"]


def test_throw_beaten_by_a_set_of_one_face_at_a_shared_position():
    # the off-suit level cards share a position: two of them are no pair,
    # two of one face are (a seat's widest set at a position is its face's)
    e = engine(T, "S")
    lead = ids("9S 9S BJ")
    forced = bytearray(4)
    assert e.check_lead(lead, hands4("9S 9S BJ", "TD TC", "TH", ""), 0, forced) == D.OK
    assert e.check_lead(lead, hands4("9S 9S BJ", "TD TC", "", "TH TH"), 0, forced) == D.R_THROW_FAILED
    assert names(forced[: e.nforced]) == ["9S", "9S"]
    # the leader's own cards never beat the throw
    assert e.check_lead(lead, hands4("9S 9S BJ TH TH", "", "", ""), 0, forced) == D.OK


# --- §6 following --------------------------------------------------------------


def follow(e, lead, h, play):
    return e.check_follow(ids(lead), hand(h), ids(play))


def test_count_and_cards_held():
    e = engine(T, "S")
    assert follow(e, "AH", "3H 4H", "3H 4H") == D.R_WRONG_COUNT
    assert follow(e, "AH", "3H 4H", "5H") == D.R_NOT_IN_HAND
    assert follow(e, "AH", "3H 4H", "3H") == D.OK


def test_follow_suit():
    e = engine(T, "S")
    assert follow(e, "AH", "3H 2S", "2S") == D.R_FOLLOW_SUIT
    assert follow(e, "AH", "3D 2S", "2S") == D.OK  # void: may trump
    assert follow(e, "AH AH", "3H 2S 4C", "3H 2S") == D.OK  # last heart + anything
    assert follow(e, "AH AH", "3H 4H 2S", "3H 2S") == D.R_FOLLOW_SUIT


def test_pairs():
    e = engine(T, "S")
    assert follow(e, "KH KH", "3H 3H 5H 2C", "3H 5H") == D.R_PAIRS
    assert follow(e, "KH KH", "3H 3H 5H 2C", "3H 3H") == D.OK
    assert follow(e, "KH KH", "3H 2C 2C", "3H 2C") == D.OK


def test_tractors():
    e = engine(T, "S")
    lead = "KH KH QH QH"
    assert follow(e, lead, "9H 9H 8H 8H 3H 2C", "9H 9H 8H 3H") == D.R_TRACTOR
    assert follow(e, lead, "9H 9H 8H 8H 3H 2C", "9H 9H 8H 8H") == D.OK
    assert follow(e, lead, "9H 9H 7H 7H 5H 2C", "9H 9H 7H 5H") == D.R_PAIRS
    assert follow(e, lead, "9H 9H 7H 7H 5H 2C", "9H 9H 7H 7H") == D.OK


def test_shorter_tractor_must_be_played():
    e = engine(T, "S")
    lead = "KH KH QH QH JH JH"
    h = "9H 9H 8H 8H 5H 5H 3H 4H"
    assert follow(e, lead, h, "9H 9H 5H 5H 3H 4H") == D.R_TRACTOR
    assert follow(e, lead, h, "9H 9H 8H 8H 5H 5H") == D.OK


def test_two_tractors_led_take_two_runs():
    e = engine(T, "S")
    lead = "AH AH KH KH 6H 6H 5H 5H"
    h = "QH QH JH JH 8H 8H 7H 7H 3H"
    assert follow(e, lead, h, "QH QH JH JH 8H 8H 7H 3H") == D.R_TRACTOR
    assert follow(e, lead, h, "QH QH JH JH 8H 8H 7H 7H") == D.OK
    # a run of four fits a tractor of two only as two pairs + a run of 2
    h2 = "QH QH JH JH 9H 9H 8H 8H 3H 4H"
    assert follow(e, "AH AH KH KH 3H", h2[: len(h2)], "QH QH JH JH 4H") == D.OK


def test_equal_position_pairs_make_two_runs():
    # AS AS | TH TH, TC TC (same position) | TS TS: two tractors of two
    e = engine(T, "S")
    lead = "8S 8S 7S 7S 5S 5S 4S 4S"
    h = "AS AS TH TH TC TC TS TS 3S"
    assert follow(e, lead, h, "AS AS TH TH TC TC TS TS") == D.OK
    assert follow(e, lead, h, "AS AS TH TH TC TC TS 3S") == D.R_TRACTOR


def test_lead_checks_in_the_full_engines_order():
    # empty, then cards not held, then mixed suits (as shengji's check_lead)
    e = engine(T, "S")
    hs = hands4("AH", "", "", "")
    assert e.check_lead(ids("KH KD"), hs, 0) == D.R_NOT_IN_HAND
    assert e.check_lead(ids("AH"), hs, 0) == D.OK
    assert e.check_lead(ids("KH KD")) == D.R_MIXED_SUIT  # hands unknown: no holding check
