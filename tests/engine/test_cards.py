"""Cards and notation (docs/rules.md: the notation, §1 card ids)."""

from __future__ import annotations

import pickle

import pytest
from shengji import (
    BIG_JOKER,
    SMALL_JOKER,
    Card,
    CardCountError,
    CardNotationError,
    InvalidCardError,
    Rank,
    Suit,
    cards,
    format_cards,
    parse_cards,
    parse_face,
    parse_faces,
)
from shengji.cards import face_name, face_points


def test_face_numbers_follow_interfaces() -> None:
    assert parse_face("2S") == 0
    assert parse_face("AS") == 12
    assert parse_face("2H") == 13
    assert parse_face("AC") == 51
    assert parse_face("SJ") == SMALL_JOKER == 52
    assert parse_face("BJ") == BIG_JOKER == 53


def test_card_ids_are_copy_times_54_plus_face() -> None:
    c = Card.parse("AC", copy=3)
    assert c.id == 3 * 54 + 51
    assert c.face == 51 and c.copy == 3
    assert Card(c.id) is c
    assert Card.from_face(53, 1).id == 107


@pytest.mark.parametrize(
    "token,name",
    [
        ("AS", "AS"),
        ("as", "AS"),
        ("aS", "AS"),
        ("TH", "TH"),
        ("10H", "TH"),
        ("10♥", "TH"),
        ("♥10", "TH"),
        ("♠A", "AS"),
        ("A♠", "AS"),
        ("♣q", "QC"),
        ("k♦", "KD"),
        ("♡3", "3H"),
        ("sj", "SJ"),
        ("Bj", "BJ"),
        ("小王", "SJ"),
        ("大王", "BJ"),
        (" 9d ", "9D"),
    ],
)
def test_notation_variants_parse_to_the_canonical_face(token: str, name: str) -> None:
    assert face_name(parse_face(token)) == name


@pytest.mark.parametrize("token", ["", "X", "1H", "11S", "AX", "SA", "JJ", "A♠♠", "♠", "S"])
def test_bad_tokens_raise_a_notation_error_naming_the_token(token: str) -> None:
    with pytest.raises(CardNotationError) as info:
        parse_face(token)
    assert info.value.token == token
    assert repr(token) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_suit_first_letters_get_a_hint() -> None:
    with pytest.raises(CardNotationError, match="rank comes first"):
        parse_face("HK")


def test_parse_faces_names_the_bad_token_in_a_list() -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_faces("AS KH ZZ 5C")
    assert info.value.token == "ZZ"


def test_copies_are_distinct_cards_with_equal_faces() -> None:
    a, b = parse_cards("5H 5H")
    assert a != b and a.face == b.face
    assert (a.copy, b.copy) == (0, 1)
    assert len({a, b}) == 2


def test_too_many_copies_for_the_decks_is_an_error() -> None:
    assert len(parse_cards("5H 5H", decks=2)) == 2
    with pytest.raises(CardCountError) as info:
        parse_cards("5H 5H 5H", decks=2)
    assert info.value.token == "5H"
    with pytest.raises(CardCountError):
        parse_cards("SJ SJ", decks=1)


@pytest.mark.parametrize("bad", [-1, 216, 1000])
def test_card_ids_out_of_range(bad: int) -> None:
    assert Card(215).face == 53
    with pytest.raises(CardCountError):
        Card(bad)


def test_notation_round_trips_for_every_card() -> None:
    for card_id in range(216):
        c = Card(card_id)
        assert Card.parse(str(c), copy=c.copy) is c
        assert Card.parse(c.pretty(), copy=c.copy) is c
        assert eval(repr(c), {"Card": Card}) is c
        assert pickle.loads(pickle.dumps(c)) is c


def test_cards_are_immutable() -> None:
    c = Card.parse("AS")
    with pytest.raises(AttributeError):
        c.face = 3  # type: ignore[misc]


def test_suit_rank_points() -> None:
    assert Card.parse("KH").suit is Suit.HEARTS and Card.parse("KH").rank is Rank.KING
    assert Card.parse("SJ").suit is None and Card.parse("SJ").is_joker
    assert [face_points(parse_face(t)) for t in "5S TD KC QH AS SJ".split()] == [5, 10, 10, 0, 0, 0]
    assert sum(face_points(f) for f in range(54)) == 100


def test_format_cards_prints_canonical_notation() -> None:
    assert format_cards(parse_cards("10♥ ♠a bj")) == "TH AS BJ"
    assert Card.parse("TH").pretty() == "10♥"


def test_suit_and_rank_parse() -> None:
    assert Suit.parse("♣") is Suit.CLUBS and Suit.parse("h") is Suit.HEARTS
    assert Rank.parse("10") is Rank.TEN and Rank.parse("t") is Rank.TEN
    with pytest.raises(CardNotationError):
        Suit.parse("X")
    with pytest.raises(CardNotationError):
        Rank.parse("1")


@pytest.mark.parametrize(
    ("token", "face"),
    [("红桃A", 25), ("黑桃10", 8), ("方块2", 26), ("梅花K", 50), ("方片3", 27), ("草花J", 48),
     ("大王", 53), ("小王", 52), (" 红桃q ", 23)],
)
def test_chinese_card_names_parse(token: str, face: int) -> None:
    assert cards.parse_face(token) == face
    if face < 52:
        assert cards.parse_face(cards.face_name_zh(face)) == face


@pytest.mark.parametrize("token", ["红桃", "红桃1", "红桃Z", "绿桃A", "大鬼"])
def test_bad_chinese_card_names_say_what_is_wrong(token: str) -> None:
    with pytest.raises(cards.CardNotationError) as err:
        cards.parse_face(token)
    assert repr(token.strip()) in str(err.value) or token in str(err.value)


def test_one_notation_for_a_cards_copy() -> None:
    assert [cards.card_id_name(i) for i in (12, 66, 214, 53)] == ["AS", "AS.1", "SJ.3", "BJ"]
    assert cards.card_id_name(66, "zh") == "黑桃A.1" and cards.card_id_name(107, "zh") == "大王.1"
    for i in range(4 * 54):
        assert cards.parse_card_id(cards.card_id_name(i)) == i
        assert cards.parse_card_id(cards.card_id_name(i, "zh")) == i
    assert cards.parse_card_id("AS.1", decks=2) == 66
    with pytest.raises(cards.CardCountError, match="0-1 with 2 deck"):
        cards.parse_card_id("AS.2", decks=2)
    with pytest.raises(cards.CardNotationError, match="after a dot"):
        cards.parse_card_id("AS#1")
    with pytest.raises(cards.CardCountError):
        cards.parse_card_id("AS.x")
