"""The competition's facts in a real PostgreSQL: a two-round Swiss event from the player
CSV to version 2 of a publication, and every refused action changing nothing."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest
from shengji.cards import Rank
from tractor_table.club import db
from tractor_table.competition import store
from tractor_table.competition.entries_csv import CsvError
from tractor_table.competition.model import CompetitionError
from tractor_table.competition.scoring import PRESETS
from tractor_table.competition.seating import Seat, SeatingError

pytestmark = pytest.mark.club

CSV = "entry,name,member_no\n" + "".join(
    f"Pair {i},Player {i}a,{i}01\nPair {i},Player {i}b,{i}02\n" for i in range(1, 9))


def counts(conn: psycopg.Connection) -> tuple[int, ...]:
    out = []
    for t in ("players", "entries", "rounds", "seatings", "results", "adjustments", "publications"):
        row = conn.execute(f"SELECT count(*) FROM {t}").fetchone()
        assert row is not None
        out.append(int(row[0]))
    return tuple(out)


def test_a_two_round_event(club_db: str) -> None:
    with db.connect(club_db) as conn:
        comp = store.create(conn, "Club night", scoring=PRESETS["guangxi"], site="Riverside",
                            correction_minutes=30, lots_seed=5)
        before = counts(conn)
        with pytest.raises(CsvError, match="line 3"):
            store.import_players(conn, comp, "entry,name\nA,x\nA,\n")
        assert counts(conn) == before
        assert store.import_players(conn, comp, CSV) == (16, 8)
        with pytest.raises(CompetitionError, match="already in the competition"):
            store.import_players(conn, comp, CSV)
        assert store.draw_round(conn, comp, time_limit_min=50, deal_limit=9) == 1
        with pytest.raises(CompetitionError, match="close it"):
            store.draw_round(conn, comp)
        with pytest.raises(CompetitionError, match="listed twice"):
            store.seat(conn, comp, 1, ["T1", "T2", "T1", "T4"], "td")
        seats = store.seat(conn, comp, 1, ["T1", "T2", "T3", "T4"], "td")
        assert len(seats) == 16
        ev = store.load(conn, comp)
        # a duplicate seating is refused and nothing is written
        before = counts(conn)
        s0 = seats[0]
        with pytest.raises(CompetitionError, match="seated"):
            store.seat_by_hand(conn, comp, 1, [Seat("T9", 0, s0.entry, s0.player)], "td")
        with pytest.raises(SeatingError):
            store.seat_by_hand(conn, comp, 1, [Seat("T1", 0, s0.entry, s0.player)], "td")
        assert counts(conn) == before
        assert store.move(conn, comp, 1, "start") == "playing"
        assert store.move(conn, comp, 1, "call_time") == "time_called"
        with pytest.raises(CompetitionError, match="cannot call time"):
            store.move(conn, comp, 1, "call_time")
        levels = [(Rank.ACE, Rank.TWO), (Rank.KING, Rank.KING), (Rank.FIVE, Rank.JACK),
                  (Rank.QUEEN, Rank.TEN)]
        for t, (a, b) in zip(("T1", "T2", "T3", "T4"), levels, strict=True):
            store.record_result(conn, comp, 1, t, status="finished", levels=(int(a), int(b)),
                                deals=9)
        store.move(conn, comp, 1, "close")
        ev = store.load(conn, comp)
        std = store.standings(ev)
        t1 = next(m for m in ev.matches if m.table == "T1")
        assert std.row(t1.entries[0]).match_points == 15 + 6
        assert std.row(t1.entries[1]).match_points == 15 - 6
        assert store.publish(conn, comp, 1, "td") == 1
        # within the correction period an adjustment is taken, and version 2 shows the change
        adj = store.adjust(conn, comp, 1, kind="score", label="T2", entry=ev.matches[1].entries[0],
                           value=2, reason="scoring error at T2", director="td")
        assert store.load(conn, comp).round(1).state == "closed"
        assert store.publish(conn, comp, 1, "td") == 2
        row = conn.execute("SELECT diff_from_prev FROM publications WHERE version = 2").fetchone()
        assert row is not None and "+[Adjustment" in row[0] and "scoring error at T2" in row[0]
        # after the correction period: refused, nothing written
        later = dt.datetime.now(dt.UTC) + dt.timedelta(hours=2)
        before = counts(conn)
        with pytest.raises(CompetitionError, match="correction period ended"):
            store.adjust(conn, comp, 1, kind="revoke", revokes=adj, reason="undo",
                         director="td", now=later)
        assert counts(conn) == before
        store.adjust(conn, comp, 1, kind="revoke", revokes=adj, reason="undo (TD and organiser "
                     "satisfied the record was wrong)", director="td", now=later,
                     beyond_correction=True)
        assert store.publish(conn, comp, 1, "td") == 3
        # round 2: Swiss, no repeat meeting
        assert store.draw_round(conn, comp) == 2
        ev = store.load(conn, comp)
        r1 = {frozenset(m) for m in ev.pairings[1].meetings}
        assert not r1 & {frozenset(m) for m in ev.pairings[2].meetings}
        leaders = store.standings(ev, 1).order()[:2]
        assert set(ev.pairings[2].meetings[0]) == set(leaders) or frozenset(leaders) in r1
        export = store.export_round(ev, 1)
        assert export == store.export_round(store.load(conn, comp), 1)
        assert '[Event "Club night"]' in export and '[Table "T1"]' in export
