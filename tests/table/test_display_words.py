"""Words that fit: every message and every line the display can show fits its
16 columns (issue 22). ``display.DisplayModel`` counts each line it had to
cut (``cut``, ``cut_text``): these tests render the table in every phase,
with every reason at every seat, big point totals and 1-4 decks, find-a-friend
tables and challengers' lines, and require no line to be cut; every message
the firmware's sources can say (``say("...")``) is formatted with its widest
values and must fit too."""

from __future__ import annotations

import re
from pathlib import Path

import display as D
import events as E
import table as T
import tablebase as TB
import tablefriend
from tablescript import deal_to_play, make

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
COLS = D.COLS


def lines_of(t: T.Table) -> list[str]:
    m = D.DisplayModel()
    lines = list(m.text_lines(t))
    assert m.cut == 0, f"cut to {COLS} columns: {m.cut_text!r}"
    assert all(len(x) <= COLS for x in lines)
    return lines


def test_every_reason_at_every_seat_fits_whole() -> None:
    for reason in range(len(E.REASONS)):
        for seat in range(4):
            t, _r = make()
            t.refuse(seat, reason, (), 0)
            lines = lines_of(t)
            assert lines[7] == f"S{seat} {E.REASONS[reason]}"


def test_a_reason_too_long_is_caught() -> None:
    # the check can fail: a message of 17 characters is counted as cut
    t, _r = make()
    t.say("S1 card seen twic", 0)
    m = D.DisplayModel()
    m.text_lines(t)
    assert m.cut == 1 and m.cut_text == "S1 card seen twic"


def test_hand_end_with_every_score_and_deck_count() -> None:
    for decks in (1, 2, 3, 4):
        for score in (0, 5, 40, 80, 95, 120, 200, 300, 100 * decks):
            t, _r = make(decks=decks)
            t.phase = TB.HAND_END
            t.score = score
            t.hand_no = 99
            lines = lines_of(t)
            assert lines[2] == f"over {score} OK=next"
            assert lines[1].endswith(f"pts{score}")
        t.forfeit = [0, 3]
        assert lines_of(t)[2] == "revoke S3 OK=nxt"


def test_time_called_is_shown_in_play_and_at_the_hand_end() -> None:
    # CMD_CALL_TIME (the club's "call time"): the last line says so while the
    # deal goes on (a message still wins its 3 s), the hand's end says no new deal
    t, _r = make()
    deal_to_play(t)
    assert lines_of(t)[7] != "TIME: last deal"
    t.command([TB.CMD_CALL_TIME])
    t.tick(t.message_until)  # the draw's last message timed out
    assert lines_of(t)[7] == "TIME: last deal"
    t.say("S1 not your turn", 0)
    assert lines_of(t)[7] == "S1 not your turn"
    for decks in (1, 4):
        t, _r = make(decks=decks)
        t.command([TB.CMD_CALL_TIME])
        t.phase = TB.HAND_END
        t.score = 100 * decks
        assert lines_of(t)[2] == f"over {100 * decks} time up"


def test_play_lines_fit_with_long_plays_and_a_challenger() -> None:
    for decks in (1, 2, 3, 4):
        t, _r = make(decks=decks)
        if decks == 1:
            deal_to_play(t)  # a real hand's play
        t.phase = TB.PLAY
        t.turn = 2
        t.dealer = 1
        # the last trick of a 4-deck hand, a 12-card throw on every line
        t.tricks = [bytearray(8)] * 26  # packed tricks: only their count and winner are shown
        for s in range(4):
            t.plays[s] = list(range(12 * s, 12 * s + 12))
        for challenger in (-1, 0, 1, 2, 3):
            t.challenger = challenger
            lines = lines_of(t)
            assert lines[2] == f"trick27 S{t.turn} plays"
            for s in range(4):
                assert lines[3 + s].endswith("+")  # the cards shown, the rest as "+"
        # the trick's last card counted, its end not worked out yet (Table.work):
        # nobody to play, the four plays still shown
        t.challenger = -1
        t.turn = -1
        lines = lines_of(t)
        assert lines[2] == "trick done" and all(x[0] == " " and x.endswith("+") for x in lines[3:7])
        t.turn = 2
        # cards tapped and not committed yet: a dot each, or their count
        t.plays = [None] * 4
        t.pending[2] = list(range(20))
        assert lines_of(t)[5].endswith("20 cards")


def test_draw_burial_reveal_scan_lines_fit() -> None:
    for decks in (1, 2, 3, 4):
        t, _r = make(decks=decks)
        t.tap(1, 0, 0)  # a bid shown
        lines_of(t)
        t.bids = [[3, list(range(8))]]
        lines_of(t)
        for ph in (TB.KITTY, TB.REVEAL, TB.SCAN, TB.MATCH_END):
            t.phase = ph
            t.dealer = 3
            t.pending[3] = list(range(t.kitty_size))
            lines_of(t)


def test_find_a_friend_lines_fit() -> None:
    class Friend:
        display = staticmethod(tablefriend.display)

    for score in (0, 120, 400):
        for partner in (-2, -1, 3):
            for ph in (TB.PLAY, TB.HAND_END, TB.MATCH_END, TB.CALL):
                t, _r = make(decks=4)
                t.friend = Friend()
                t.levels = [12, 12, 12, 12]
                t.call = 53
                t.building = 53
                t.partner = partner if partner != -2 else tablefriend.DF.FRIEND_UNKNOWN
                t.spts = [400, 400, 400, 400]
                t.score = score
                t.dealer = 3
                t.hand_no = 99
                t.match_winner = 15
                t.phase = ph
                lines_of(t)


def _widest(fmt: str) -> str:
    """A say() format with its widest values: seats one digit, tricks two,
    other numbers three (400 points with 4 decks), names as the firmware
    makes them (a card face, an exception's name as main.py cuts it)."""
    out = re.sub(r"S%d", "S3", fmt)
    out = re.sub(r"t%d", "t27", out)
    out = out.replace("%d", "400")
    return out.replace("%s", "BJ")


def test_every_message_the_firmware_says_fits() -> None:
    says: list[tuple[str, str]] = []
    for path in sorted(FIRMWARE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\bsay\(\s*\(?\s*\"([^\"]*)\"", text):
            says.append((path.name, m.group(1)))
    assert len(says) >= 20, says  # the scan finds the firmware's messages
    for name, fmt in says:
        if fmt == "S%d %s":
            continue  # a reason: test_every_reason_at_every_seat_fits_whole
        shown = _widest(fmt)
        assert len(shown) <= COLS, f"{name}: {fmt!r} shows {shown!r} ({len(shown)} > {COLS})"
    # main.py's error line: the exception's name cut to what fits
    src = (FIRMWARE / "main.py").read_text(encoding="utf-8")
    assert 'say("err: " + type(exc).__name__[:11]' in src
    assert len("err: " + "NotImplementedError"[:11]) <= COLS


def test_provisional_cards_and_missing_readers_fit() -> None:
    # what main.App shows beside the table's state: the card each reader saw
    # once and has not confirmed, at the end of its seat's line (a tag not in
    # the card map "(??)"), and on the message line the seats whose reader
    # does not answer, for every set of them
    for decks in (1, 4):
        t, _r = make(decks=decks)
        t.phase = TB.PLAY
        t.turn = 2
        t.challenger = 1
        for s in range(4):
            t.plays[s] = list(range(12 * s, 12 * s + 12))  # full lines
        m = D.DisplayModel()
        m.shown = [53, -2, 10, -1]
        for down in range(16):
            m.readers_down = down
            lines = m.text_lines(t)
            assert m.cut == 0, m.cut_text
            assert lines[3].endswith(f"({D.card_name(53)})") and lines[4].endswith("(??)"), lines
            assert lines[5].endswith(f"({D.card_name(10)})") and "(" not in lines[6], lines
            if not down:
                assert lines[7] == "", lines
            elif down == 15:
                assert lines[7] == "no reader S0-S3"
            else:
                named = {int(c) for c in lines[7] if c.isdigit()}
                assert named == {s for s in range(4) if down >> s & 1}, lines[7]


def test_every_boot_problem_the_display_names_fits() -> None:
    # the board's problems at boot (picostart.py: no card map, no display)
    # and table.cfg's (mainstart.py) are said on the message line
    found: list[str] = []
    for name in ("picostart.py", "mainstart.py"):
        for line in (FIRMWARE / name).read_text(encoding="utf-8").splitlines():
            if re.search(r"\bproblem\s*=", line):
                found += re.findall(r"\"([^\"]+)\"", line)
    assert len(found) >= 3, found
    for text in found:
        assert len(text) <= COLS, text
        t, _r = make()
        t.say(text, 0)
        assert lines_of(t)[7] == text
