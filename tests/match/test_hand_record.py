"""Hand records (docs/records.md): JSON lines that replay to the identical hand."""

from __future__ import annotations

import json

import pytest
from match_scenario import KITTY, c, deal, new_hand, play_events, tricks
from shengji import record
from shengji.hand import Challenge, Play, Reveal, Scan


def test_card_tokens_round_trip() -> None:
    ids = [0, 12, 53, 54 + 12, 3 * 54 + 52]
    text = record.format_ids(ids)
    assert text == "2S AS BJ AS.1 SJ.3"
    assert record.parse_ids(text) == tuple(ids)
    with pytest.raises(ValueError):
        record.parse_ids("AS.x")


def test_seen_hand_with_challenge_and_reveal_replays() -> None:
    h = new_hand(known=False, throw_penalty=10)
    h.apply(Play(0, (c("AS"), c("TS"))))
    h.apply(Challenge(1, (c("KS"),)))
    text = record.dumps(h)
    lines = text.splitlines()
    head = json.loads(lines[0])
    assert head["format"] == "tractor-table/hand" and head["version"] == 1
    assert [json.loads(x)["event"] for x in lines[1:]] == ["end_draw", "bury", "play", "challenge"]
    again = record.replay(text)
    assert again.state_hash() == h.state_hash()
    assert again.state_dict() == h.state_dict()


def test_scanned_hand_replays_and_keys_order_does_not_matter() -> None:
    h = new_hand(known=False, hand_scan=True)
    h.apply(Scan.of(deal().hands, KITTY))
    for e in play_events(tricks()):
        h.apply(e)
    text = record.dumps(h)
    # reverse the keys of every line: nothing may depend on their order
    shuffled = "\n".join(
        json.dumps(dict(reversed(list(json.loads(x).items())))) for x in text.splitlines()
    )
    assert record.replay(shuffled).state_hash() == h.state_hash()


def test_full_seen_hand_replays() -> None:
    h = new_hand(known=False)
    for e in play_events(tricks()):
        h.apply(e)
    h.apply(Reveal(tuple(KITTY)))
    assert record.replay(record.dumps(h)).result() == h.result()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda ls: ["not json", *ls[1:]], "line 1"),
        (lambda ls: [ls[0].replace('"version": 1', '"version": 99'), *ls[1:]], "version"),
        (lambda ls: [*ls[:4], ls[4].replace('"seat": 0', '"seat": 2')], "line 5"),
        (lambda ls: [*ls[:4], ls[4].replace('"hash": "', '"hash": "0')], "hash"),
        (lambda ls: [*ls[:4], '{"event": "dance"}'], "unknown event"),
        (lambda ls: [], "empty"),
    ],
)
def test_bad_records_name_the_line(mutate: object, message: str) -> None:
    h = new_hand(known=True)
    h.apply(play_events(tricks())[0])
    lines = record.dumps(h).splitlines()
    bad = mutate(lines)  # type: ignore[operator]
    with pytest.raises(record.RecordError, match=message):
        record.replay("\n".join(bad))


def _header(line: str, **changes: object) -> str:
    head = json.loads(line)
    for key, value in changes.items():
        if value is None:
            del head[key]
        else:
            head[key] = value
    return json.dumps(head)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rules": {"decks": 9}}, r"line 1: decks: must be 1-4, not 9"),
        ({"rules": {"dekcs": 2}}, r"line 1: dekcs: unknown option"),
        ({"rules": {"revoke": "maybe"}}, r"line 1: revoke: must be one of"),
        ({"level": "Z"}, r"line 1: bad level 'Z'"),
        ({"dealer": 7, "first_hand": False}, r"line 1: bad dealer 7"),
        ({"rules": None}, r"line 1: missing 'rules'"),
        ({"level": 5}, r"line 1: 'level' should be str"),
    ],
)
def test_a_bad_header_is_a_record_error_naming_line_1(changes: dict[str, object], message: str) -> None:
    # a reader catching RecordError (the verifier's log, a tool listing records)
    # must not meet InvalidRulesError, SettleError or HandError from a header
    h = new_hand(known=True)
    lines = record.dumps(h).splitlines()
    with pytest.raises(record.RecordError, match=message):
        record.replay("\n".join([_header(lines[0], **changes), *lines[1:]]))
    assert record.replay("\n".join(lines)).state_hash() == h.state_hash()  # the unchanged record replays

