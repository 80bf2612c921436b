"""Find-a-friend (``--rules friend``) in the records: the virtual table's
hands recorded with their levels per seat, the face called and the partner
(schema 4); the score sheet and the hand report say them; a schema-3 file of
such hands is migrated and the hands derived again (old files stay readable);
the engine record of a hand replays with its call."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from shengji import record as erecord
from tractor_table import cli
from tractor_table.events import EV, Trick
from tractor_table.records import SCHEMA_VERSION, Store


@pytest.fixture(scope="module")
def friend_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("friend") / "records.sqlite"
    assert cli.main(["virtual", "--bots", "--rules", "friend", "--hands", "2", "--seed", "1", "--db", str(db)]) == 0
    return db


def _seat_levels(store: Store) -> list[tuple[object, ...]]:
    return store.query(
        "SELECT hand_no, level0, level1, level2, level3, next_level0, next_level1, next_level2, "
        "next_level3, called, partner FROM hands ORDER BY start_idx"
    )


def test_the_hands_keep_the_levels_per_seat_the_call_and_the_partner(friend_db: Path) -> None:
    with Store.open(friend_db, create=False) as store:
        rows = _seat_levels(store)
        hands = store.hands()
        events = [[e["event"].raw() for e in store.hand_events(h)] for h in hands]
    assert SCHEMA_VERSION >= 4 and len(rows) == 2
    for row, evs in zip(rows, events, strict=True):
        start = next(e for e in evs if e[0] == EV.HAND_START)
        end = next(e for e in evs if e[0] == EV.HAND_END)
        call = next(e for e in evs if e[0] == EV.CALL)
        partner = next(e for e in evs if e[0] == EV.PARTNER)
        assert row[1:5] == (start[4], start[5], start[7], start[8])
        assert row[5:9] == (end[6], end[7], end[9], end[10])
        assert row[9:] == (call[2], partner[2])
    # each hand starts at the levels the last one ended with
    assert rows[1][1:5] == rows[0][5:9]


def test_the_score_sheet_and_the_report_say_the_levels_per_seat(
    friend_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Store.open(friend_db, create=False) as store:
        rows = _seat_levels(store)
        dealer = store.hands()[0]["dealer"]
    capsys.readouterr()
    assert cli.main(["records", "sheet", "--db", str(friend_db)]) == 0
    sheet = capsys.readouterr().out
    names = "23456789TJQKA"
    last = " ".join(names[x] for x in rows[-1][5:9])  # type: ignore[index]
    assert f"levels now {last} (S0 S1 S2 S3)" in sheet
    first = sheet.splitlines()[3]  # the first hand's line: the attackers are the two others
    attackers = "&".join(str(s) for s in range(4) if s not in (dealer, rows[0][10]))
    assert f" {attackers} " in first and " ".join(names[x] for x in rows[0][5:9]) in first  # type: ignore[index]
    assert cli.main(["records", "show", "1", "--db", str(friend_db), "--color", "never"]) == 0
    report = capsys.readouterr().out
    assert "levels 2 2 2 2" in report and "level(s) each" in report


def test_a_schema_3_file_is_migrated_and_its_hands_derived_again(friend_db: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite"
    old.write_bytes(friend_db.read_bytes())
    db = sqlite3.connect(old)
    for col in ("level2", "level3", "next_level2", "next_level3", "called", "partner"):
        db.execute(f"ALTER TABLE hands DROP COLUMN {col}")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    with Store.open(old, create=False) as store:
        assert store.query("PRAGMA user_version") == [(SCHEMA_VERSION,)]
        migrated = _seat_levels(store)
    with Store.open(friend_db, create=False) as store:
        assert migrated == _seat_levels(store)


def test_the_engine_record_replays_with_the_call(friend_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "h1.json"
    assert cli.main(["records", "export", "1", "--db", str(friend_db), "--out", str(out)]) == 0
    text = out.read_text()
    assert '"event": "call"' in text
    hand = erecord.replay(text)
    assert hand.friend_face is not None and hand.defenders is not None


def test_records_show_says_the_levels_once_per_seat(
    friend_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The report says the levels before the hand per seat; the event list after
    it does not say them again (it said seats 0 and 1's as if they were the
    sides' levels, ``levels 2/2``)."""
    import re

    with Store.open(friend_db, create=False) as store:
        hand = store.hands()[1]
    names = "23456789TJQKA"
    per_seat = " ".join(names[hand[f"level{s}"]] for s in range(4))
    capsys.readouterr()
    assert cli.main(["records", "show", str(hand["id"]), "--db", str(friend_db), "--color", "never"]) == 0
    out = capsys.readouterr().out
    summary = [ln for ln in out.splitlines() if re.match(r"\s+dealer S\d", ln)]
    assert len(summary) == 1 and f"levels {per_seat};" in summary[0]
    assert re.search(r"levels \w+/\w+", out) is None  # no per-side levels in a find-a-friend hand


def _trick_lines(out: str) -> list[str]:
    import re

    return [ln for ln in out.splitlines() if re.match(r"\s+\d+\. S\d", ln)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_trick_before_the_partner_is_known_says_the_points_by_seat(
    friend_db: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    """Before the partner shows itself the table's TRICK carries no attackers'
    score (-1): the report says the points each seat has taken so far and that
    the partner is not yet known (it said ``attackers -1``); once known, the
    attackers' total the table sent."""
    unknown_word = "partner not yet known" if lang == "en" else "朋友未明"
    attackers_word = "attackers" if lang == "en" else "闲家"
    seen_unknown = seen_known = 0
    with Store.open(friend_db, create=False) as store:
        hands = store.hands()
        events = [[e["event"] for e in store.hand_events(h)] for h in hands]
    for hand, evs in zip(hands, events, strict=True):
        capsys.readouterr()
        assert cli.main(["records", "show", str(hand["id"]), "--db", str(friend_db),
                         "--color", "never", "--lang", lang]) == 0
        out = capsys.readouterr().out
        assert f"{attackers_word} -1" not in out
        lines = _trick_lines(out)
        tricks = [e for e in evs if isinstance(e, Trick)]
        assert len(lines) == len(tricks)
        by_seat = [0, 0, 0, 0]
        for line, ev in zip(lines, tricks, strict=True):
            by_seat[ev.winner] += ev.points
            if ev.attackers_score < 0:
                seen_unknown += 1
                assert unknown_word in line
                assert " ".join(f"S{s} {by_seat[s]}" for s in range(4)) in line
            else:
                seen_known += 1
                assert line.endswith(f"{attackers_word} {ev.attackers_score}") and unknown_word not in line
        capsys.readouterr()
        assert cli.main(["records", "show", str(hand["id"]), "--db", str(friend_db),
                         "--format", "html", "--lang", lang]) == 0
        page = capsys.readouterr().out
        assert ">-1<" not in page
        assert page.count(unknown_word) == sum(1 for ev in tricks if ev.attackers_score < 0)
    assert seen_unknown and seen_known
