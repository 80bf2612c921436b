# runs-under: micropython heapsize=160K
"""Device rules engine: 3-4 deck ladders, same_shape_only and quads (docs/rules.md §6.3),
each rung legal and illegal; CPython and MicroPython (160 KB heap: 1.15x the least it passes in from source, bench/mpy_heap_margin.py; the viper emitter compiling the sweep from source takes more than the native one did)."""


import drules as D
import drules_sweep
from dcards import engine, hand, ids

# the ladders' and the oracle's code compiled from source while the heap is
# empty (an engine loads them when its rules or a check first asks them)
drules_sweep.load_all(D)

T = "T"  # level ten, as in most of docs/rules.md's examples


def follow(e, lead, h, play):
    return e.check_follow(ids(lead), hand(h), ids(play))


def test_triple_ladder():
    e = engine("2", "H", decks=3)
    lead = "KS KS KS"
    assert follow(e, lead, "9S 9S 9S 4S 4S 5S", "9S 4S 4S") == D.R_TRIPLES
    assert follow(e, lead, "9S 9S 9S 4S 4S 5S", "9S 9S 9S") == D.OK
    assert follow(e, lead, "9S 4S 4S 5S", "9S 5S 4S") == D.R_PAIRS
    assert follow(e, lead, "9S 4S 4S 5S", "4S 4S 9S") == D.OK


def test_titanic_ladder():
    e = engine("2", "H", decks=3)
    lead = "KS KS KS QS QS QS"
    h = "9S 9S 9S 7S 7S 5S 3S"
    # triple + pair held (no two triples, no tractor): rung "triple and a pair"
    assert follow(e, lead, h, "9S 9S 9S 7S 7S 5S") == D.OK
    assert follow(e, lead, h, "9S 9S 9S 7S 5S 3S") == D.R_PAIRS
    assert follow(e, lead, h, "9S 9S 7S 7S 5S 3S") == D.R_TRIPLES
    h2 = "9S 9S 8S 8S 5S 5S 5S"
    # a tractor of two pairs comes before a triple and a pair
    assert follow(e, lead, h2, "9S 9S 8S 8S 5S 5S") == D.OK
    assert follow(e, lead, h2, "9S 9S 5S 5S 5S 8S") == D.R_TRACTOR
    h3 = "9S 9S 9S 8S 8S 8S 3S"
    assert follow(e, lead, h3, "9S 9S 9S 8S 8S 8S") == D.OK
    assert follow(e, lead, h3, "9S 9S 9S 8S 8S 3S") == D.R_TITANIC


def test_same_shape_only():
    e = engine(T, "S", same_shape_only=True)
    lead = "KH KH QH QH"
    assert follow(e, lead, "9H 9H 8H 8H 3H", "9H 9H 8H 3H") == D.R_SAME_SHAPE
    assert follow(e, lead, "9H 9H 8H 8H 3H", "9H 9H 8H 8H") == D.OK
    # no tractor held: anything in suit, pairs or not
    assert follow(e, lead, "9H 9H 7H 7H 3H", "9H 7H 3H 9H") == D.OK


def test_quads_follow_same_shape():
    e = engine("2", "H", decks=4)
    lead = "KS KS KS KS"
    assert follow(e, lead, "9S 9S 9S 9S 3S 4S", "9S 9S 9S 3S") == D.R_SAME_SHAPE
    assert follow(e, lead, "9S 9S 9S 9S 3S 4S", "9S 9S 9S 9S") == D.OK
    assert follow(e, lead, "9S 9S 9S 8S 3S 4S", "9S 8S 3S 4S") == D.OK


def test_throw_with_a_triple_and_a_tractor():
    # led: triple 9 + tractor JJ QQ KK; the triple takes a pair (the way best
    # for the tractor), the tractor of three must then be played whole
    e = engine("2", "H", decks=3)
    lead = "9S 9S 9S JS JS QS QS KS KS"
    h = "3S 3S 4S 4S 6S 6S 7S 7S 8S 8S 5S 2D"
    assert follow(e, lead, h, "3S 3S 6S 6S 7S 7S 8S 8S 4S") == D.OK
    # a tractor of two where three were held: still a tractor short
    assert follow(e, lead, h, "3S 3S 7S 7S 8S 8S 4S 5S 6S") == D.R_TRACTOR
    # no tractor at all
    assert follow(e, lead, h, "3S 3S 6S 6S 8S 8S 4S 5S 7S") == D.R_TRACTOR


def test_same_shape_only_throw():
    # docs/rules.md §6.3: for a throw, each unit of the lead, widest and longest
    # first, is matched by the same shape if the cards left hold it
    e = engine(T, "S", same_shape_only=True)
    lead = "KH KH QH QH 9H 9H"  # a tractor and a pair
    h = "8H 8H 7H 7H 5H 5H 3H"
    assert follow(e, lead, h, "8H 8H 7H 7H 5H 5H") == D.OK
    assert follow(e, lead, h, "8H 8H 7H 7H 5H 3H") == D.R_SAME_SHAPE
    # a tractor of three held: the tractor takes two of its pairs, the pair
    # unit the third (the cards left hold a pair)
    h3 = "8H 8H 7H 7H 6H 6H 3H"
    assert follow(e, lead, h3, "8H 8H 7H 7H 6H 6H") == D.OK
    assert follow(e, lead, h3, "8H 8H 7H 7H 6H 3H") == D.R_SAME_SHAPE
    # no pair left beside the tractor: anything in suit for the pair unit
    h0 = "8H 8H 7H 7H 4H 3H 2H"
    assert follow(e, lead, h0, "8H 8H 7H 7H 4H 2H") == D.OK
    assert follow(e, lead, h0, "8H 4H 7H 7H 3H 2H") == D.R_SAME_SHAPE


def test_oracle_bounds_answer_failing_questions_without_a_sweep():
    # adversarial.jsonl's adv-19 and adv-17: each once had a failing oracle
    # question that swept 9-14 states (the runs' pairs only on the 3-faces
    # the triples need; more runs than a stretch's edges hold). The bounds
    # before the sweep (drules_place._feasible) answer them with none, and
    # the reasons stay those of the full engine.
    e = engine("4", "S", decks=3)
    n0 = e.nstates
    r = follow(
        e,
        "2S 2S 3S 3S 4S 4S 4S 5S 5S 5S 6S 6S 6S KS KS KS AS AS AS 4H 4D 4D 4D",
        "2S 3S 7S 7S 7S 8S 8S 8S 9S 9S 9S TS JS JS JS QS QS QS 4H 4H 6H 8H 5D 4C 4C 4C SJ BJ BJ BJ",
        "2S 3S 7S 8S 8S 8S 9S 9S 9S TS JS JS QS QS QS 4H 4C 4C 4C SJ BJ BJ BJ",
    )
    assert r == D.R_TITANIC
    assert e.nstates - n0 < 9, e.nstates - n0
    e = engine("A", "D", decks=4)
    n0 = e.nstates
    r = follow(
        e,
        "AS AS AS 3D 3D 4D 4D 5D 5D 9D 9D TD TD KD KD KD AD AD AD AD AC AC SJ SJ BJ BJ",
        "JS KS AH AH AH AH 2D 2D 2D 2D 4D 4D 6D 6D 6D 6D 7D 7D 7D 8D 9D 9D JD JD JD QD QD QD QD 4C SJ SJ BJ",
        "AH AH AH 2D 2D 4D 4D 6D 6D 6D 7D 7D 7D 8D 9D 9D JD JD JD QD QD QD QD SJ SJ BJ",
    )
    assert r == D.R_TRACTOR
    assert e.nstates - n0 < 9, e.nstates - n0


def test_a_question_covering_one_that_failed_fails_without_a_sweep():
    # adversarial.jsonl's adv-52: a Titanic and two runs of two pairs failed
    # for one unit of the ladder, then the same with three pairs more for the
    # next: that question asks for no less than the one that failed, so it
    # fails without the search's 13 states (drules_sweep._failed, _beaten;
    # 28 states before), with the full engine's reason. adv-47: pairs past a
    # tractor's runs failed, then the led pair beside them (no state at all).
    e = engine("Q", "C", decks=4)
    n0 = e.nstates
    r = follow(
        e,
        "QS QS 2C 2C 2C 3C 3C 3C 4C 4C 4C 5C 5C 6C 6C 7C 7C 8C 8C 9C 9C JC SJ SJ BJ BJ",
        "2S 9S TS 3H 5H 7H 7H 9H QH QH QH QH KH 2D 3D 5D 6D 6D 8D 8D 9D KD 2C 3C 4C 5C 5C 6C 6C 8C 8C"
        " TC TC TC TC JC QC QC QC KC KC KC KC AC AC AC AC",
        "QH QH QH QH 3C 4C 5C 5C 6C 6C 8C 8C TC TC TC TC JC QC QC KC KC KC KC AC AC AC",
    )
    assert r == D.R_PAIRS
    assert e.nstates - n0 < 20, e.nstates - n0
    e = engine("2", "D", decks=4)
    n0 = e.nstates
    r = follow(
        e,
        "2S 2S 2S 2S 2H 2H 2D 2D 7D 7D 8D JD JD JD QD QD QD KD KD AD AD 2C 2C 2C 2C SJ SJ",
        "KS 2H 2H 3D 3D 3D 3D 4D 4D 5D 5D 5D 7D 9D 9D 9D 9D TD TD TD TD JD KD KD SJ BJ BJ BJ BJ",
        "2H 2H 3D 3D 3D 3D 4D 4D 5D 5D 5D 7D 9D 9D 9D 9D TD TD TD TD JD KD SJ BJ BJ BJ BJ",
    )
    assert r == D.R_PAIRS
    assert e.nstates - n0 == 0, e.nstates - n0


def test_runs_of_pairs_that_find_no_neighbours_fail_without_a_sweep():
    # adversarial.jsonl's adv-53 and adv-51: questions that every count bound
    # lets through fail on where the faces are (drules_sweep._posbound): the
    # triple tractor takes two of the only stretch of triples' three
    # positions (adv-53), the quad and triple tractors positions 9-11 whole
    # (adv-51), and the pairs each position keeps, capped by its neighbours',
    # are fewer than the runs of pairs need. 32 and 21 states before.
    e = engine("Q", "S", decks=4)
    n0 = e.nstates
    r = follow(
        e,
        "2S 5S 5S 5S 6S 6S 6S 9S TS TS JS JS QS QS KS KS AS AS QH QH QD QD QC QC SJ SJ BJ BJ",
        "2S 2S 2S 3S 3S 3S 3S 4S 4S 4S 4S 5S 6S 7S 7S 7S 7S 8S 8S 8S 8S 9S 9S 9S TS TS JS JS QS QS KS KS AS AS"
        " QH QH QD QD QC QC SJ SJ BJ BJ",
        "2S 2S 3S 3S 4S 4S 4S 7S 7S 7S 7S 8S 8S 8S 8S 9S 9S 9S QS QS AS AS QH QD QD QC QC BJ",
    )
    assert r == D.R_TRACTOR
    assert e.nstates - n0 == 0, e.nstates - n0
    e = engine("5", "D", decks=4)
    n0 = e.nstates
    r = follow(
        e,
        "2D 2D 2D 2D 3D 3D 3D 4D 4D 4D 5D 5D 5D 5D 6D 6D 6D 6D 7D 7D 7D 8D 8D 8D 9D 9D TD TD JD JD SJ SJ SJ SJ",
        "4S 4S 5S 5S 5S 5S 6S 6S 8S TS 3H 5H 5H 5H 5H 7H 3D 4D 7D 8D 9D 9D TD TD JD JD QD QD QD QD KD KD KD KD"
        " AD AD AD AD 2C 3C 4C 4C 5C 5C 5C 5C 7C 7C JC BJ BJ BJ BJ",
        "5S 5S 5S 5S 5H 5H 5H 5H 3D 7D 9D 9D TD TD JD JD QD QD QD KD KD KD KD AD AD AD AD 5C 5C 5C 5C BJ BJ BJ",
    )
    assert r == D.R_PAIRS
    assert e.nstates - n0 < 10, e.nstates - n0


def test_a_run_on_faces_with_a_choice_leaves_no_stale_left_overs():
    # adversarial.jsonl's adv-62..adv-65 (adv-60 shrunk, 4 decks, level 9,
    # diamonds trump): at the level cards 9H 9H 9H 9H and 9C 9C 9C sit at one
    # position, so a pair of a run there is cut from the quad or the triple
    # (_tail's choice). The question's left-over faces, known from the
    # placement before that run (no choice then), were kept, and a later
    # pair was placed on the AD pair and the level cards that run had taken.
    e = engine("9", "D", decks=4)
    # Q Q Q, T2 T2, p: the quads on 5D QD 9H, the Titanic SJ-BJ, the second
    # Titanic's tractor KD-AD or AD-9C, the pair the other: one KD left out,
    # the pair gets nothing (the device engine said OK)
    lead = "9S 9S 9S 2D 2D 2D 3D 3D 3D 4D 4D 4D 4D 6D 6D 6D 6D 8D 8D 8D 8D 9D 9D 9D KD KD"
    h = "9H 9H 9H 9H 3D 5D 5D 5D 5D QD QD QD QD KD KD AD AD 9C 9C 9C SJ SJ SJ SJ BJ BJ BJ"
    assert follow(e, lead, h, h.replace("KD ", "", 1)) == D.R_PAIRS
    assert follow(e, lead, h, h.replace("3D ", "", 1)) == D.OK
    # T2, t3, p p p: the Titanic 3D-4D, the tractor AD AD + a level pair and
    # one more pair, one pair left for the first led pair (the device engine
    # gave the holding two more, so a legal play fell short)
    lead = "9S 9S 9S 9D 9D 9D 5D 5D 6D 6D 7D 7D 2D 2D TD TD QD QD"
    h = "3D 3D 3D 3D 4D 4D 4D AD AD 9H 9H 9H 9H 9C 9C 9C 9S KD JD"
    assert follow(e, lead, h, h.replace("3D ", "", 1)) == D.OK
    assert follow(e, lead, h, h.replace("9H ", "", 1)) == D.R_PAIRS


def test_a_tractor_at_the_rung_of_the_tractor_before():
    # fuzz-rules --adversarial 2000 --seed 777, adv-777-1143 (3 decks, level
    # Q, diamonds trump): two led tractors of the same length in a row, the
    # second asked at the first one's rung (_rung: t pairs in runs and more
    # pairs, in one question); a 26-card follow that leaves a tractor out
    e = engine("Q", "D", decks=3)
    lead = "3D 5D 5D 6D 6D 7D 7D 8D 8D TD TD JD JD QD QD QD KD KD AD AD SJ SJ SJ BJ BJ BJ"
    h = ("3S 5S 5S TS JS QS QS QS 8H QH QH QH AH 2D 2D 2D 3D 3D 4D 4D 4D 5D 6D 7D 8D 9D 9D 9D TD JD KD AD"
         " 5C 6C 6C 8C 8C JC JC JC QC QC QC AC")
    play = "QS QS QS QH QH 2D 2D 2D 3D 3D 4D 4D 4D 5D 6D 7D 8D 9D 9D TD JD KD AD QC QC QC"
    assert follow(e, lead, h, play) == D.R_TRACTOR


def _calls(name, e, lead, h, play):
    # the verdict and how many times the check called Engine.<name>
    # patched on the engine's own class: another test in the same process
    # (the table's unload) may have dropped the drules module this file
    # imported, and an engine made since is of the module loaded again
    n = [0]
    cls = type(e)
    f = getattr(cls, name)

    def counted(self, *a):
        n[0] += 1
        return f(self, *a)

    setattr(cls, name, counted)
    try:
        r = follow(e, lead, h, play)
    finally:
        setattr(cls, name, f)
    return r, n[0]


# adversarial.jsonl's adv-66 (4 decks, level 3, diamonds trump): a quad, a
# Titanic, a tractor of five pairs, two tractors of two pairs and a pair led;
# the holding's first tractor of two pairs takes two pairs (its runs do not
# fit), the second not even that: one pair
ADV66_LEAD = "3H 3H 2D 2D 3D 3D 3D 3D 4D 4D 5D 8D 8D 9D 9D TD TD JD JD QD QD AD AD AD 3C 3C 3C SJ SJ BJ BJ"
ADV66_HAND = (
    "2S 3S 3S 3S 3S 8S 8S 9S 9S QS KS KS AS 3H 5H TH 2D 2D 4D 4D 5D 5D 5D 6D 6D 6D 6D 7D 7D 7D 7D 8D 8D TD TD"
    " QD QD KD KD KD KD AD 3C 9C JC QC AC SJ BJ"
)
ADV66_PLAY = "3S 3S 3S 3S 3H 2D 2D 4D 4D 5D 5D 5D 6D 6D 6D 6D 7D 7D 7D 7D 8D 8D TD QD QD KD KD KD AD 3C SJ"


def test_a_unit_of_the_shape_before_climbs_from_its_rung():
    # (branch follow12) A led unit of the same shape as the one before it
    # takes no better rung than that one's, and its own rung is asked first
    # (_rung); where that does not fit, the next one down is asked before
    # the climb from the top of the ladder (_unit), which asked again the
    # rungs the unit before had failed. adv-66 (illegal: the play falls
    # short at the first tractor of two pairs): 15 _try calls on main, 13;
    # adversarial.jsonl's adv-55 (legal, 4 decks): 13, 11.
    e = engine("3", "D", decks=4)
    r, n = _calls("_try", e, ADV66_LEAD, ADV66_HAND, ADV66_PLAY)
    assert r == D.R_PAIRS
    assert n <= 13, n
    e = engine("7", "H", decks=4)
    r, n = _calls(
        "_try",
        e,
        "3H 3H 6H 6H 7H 7H 7H 8H 8H 9H 9H 9H 9H TH TH TH TH JH JH QH QH QH KH KH KH AH AH AH AH 7C 7C 7C BJ BJ BJ",
        "4S 5S 6S 6S 7S 7S 7S 7S 8S TS AS 2H 2H 2H 2H 3H 3H 4H 4H 4H 4H 5H 5H 5H 5H 6H 6H 7H 8H 8H JH JH QH KH"
        " 2D 5D 5D 6D 7D 7D 7D 7D JD 2C 4C TC JC QC SJ SJ SJ SJ BJ",
        "7S 7S 7S 7S 2H 2H 2H 3H 3H 4H 4H 4H 4H 5H 5H 5H 5H 6H 6H 7H 8H 8H JH JH QH KH 7D 7D 7D 7D SJ SJ SJ SJ BJ",
    )
    assert r == D.OK
    assert n <= 11, n


def test_the_plays_questions_try_the_holdings_placement_before_a_search():
    # (branch follow12) The play's part of a ladder (_reach) asks the
    # holding's rungs again; a question the greedy tries do not place is
    # first put on the holding's placement, kept from its vector (_lc): it
    # places every run the play's questions ask, so where its runs fit the
    # play's faces and the question's sets fit in what they leave, the
    # question is placed with no search. adv-66 (illegal): the tractor of
    # five pairs beside the Titanic placed so (its search swept 8 states),
    # 5 _qtest calls on main, 4. adv-56 with cards swapped (legal, 4
    # decks, level J): the holding's placement tried, its runs not on the
    # play's faces, the search answers as before.
    tried = [0, 0]
    e = engine("3", "D", decks=4)
    cls = type(e)  # not D.Engine: see _calls
    f = cls._tail

    def tail(self, *a):
        kept = self._vp[14] and self._u == self._lc
        r = f(self, *a)
        if kept:
            tried[0] += 1
            tried[1] += bool(r)
        return r

    cls._tail = tail
    try:
        r, n = _calls("_qtest", e, ADV66_LEAD, ADV66_HAND, ADV66_PLAY)
        assert r == D.R_PAIRS
        assert n <= 4, n
        assert tried[1] >= 1, tried
        tried[0] = tried[1] = 0
        e = engine("J", "H", decks=4)
        assert type(e) is cls
        r = follow(
            e,
            "JS 3H 3H 3H 4H 4H 4H 5H 5H 5H 5H 6H 6H 7H 7H 8H KH JD JD JC JC SJ SJ SJ BJ BJ BJ",
            "2H 2H 2H 2H 6H 6H 8H 9H TH TH JH JH JH JH QH QH QH QH AH AH AH AH 6D TD JD JD 2C JC JC SJ BJ",
            "2H 2H 2H 2H 6H 6H 8H 9H AH AH AH BJ JC JC JD JD JH JH JH JH QH QH QH QH SJ TH TH",
        )
        assert r == D.OK
        assert tried == [1, 0], tried
    finally:
        cls._tail = f
    assert not any(e._lc) and not e._vp[14]
