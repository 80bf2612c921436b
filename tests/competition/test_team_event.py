"""A team event at uploading tables: four teams of two pairs, each meeting at two tables
(a team's pairs at different tables, on alternating sides), two Swiss rounds played by
simulated tables (the firmware's table core, the bots' hands, each host's own SQLite file,
the real uploader) on a real club server process. The team standings equal a recomputation
from the hosts' SQLite files alone: each meeting's level differences added up over its
tables, then win / draw / loss on the sum (the club preset, ``team_combine = "levels"``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tractor_table.club import db
from tractor_table.competition import store
from tractor_table.competition.scoring import FULL_LADDER, PRESETS
from tractor_table.competition.simevent import CompTable, matches_in_file, play_until_idle

pytestmark = pytest.mark.club

TEAMS = 4
TABLES = 4
ROUNDS = 2
TOP = 13  # a side that passed the top of the full ladder


def q(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with db.connect(url) as c:
        return c.execute(sql, args).fetchall()


def team_recompute(files: dict[str, Path], seatings: dict[int, dict[str, tuple[str, str]]]
                   ) -> dict[str, tuple[int, int, int]]:
    """Each team's (match points, net levels, meetings) from the hosts' files: round r at a
    table is the r-th match that table started; a meeting's tables (the same two teams in a
    round) add their level differences up; 3 / 1 / 0 on the sum."""
    per_table = {label: matches_in_file(p) for label, p in files.items()}
    seen: dict[str, int] = {}
    out: dict[str, list[int]] = {}
    for rnd in sorted(seatings):
        sums: dict[frozenset[str], dict[str, int]] = {}
        for label, (a, b) in sorted(seatings[rnd].items()):
            k = seen.get(label, 0)
            seen[label] = k + 1
            levels, _hands, passed = per_table[label][k]
            la = TOP if passed == 0 else levels[0]
            lb = TOP if passed == 1 else levels[1]
            s = sums.setdefault(frozenset((a, b)), {a: 0, b: 0})
            s[a] += la - lb
            s[b] += lb - la
        for s in sums.values():
            for team, diff in s.items():
                row = out.setdefault(team, [0, 0, 0])
                row[0] += 3 if diff > 0 else 1 if diff == 0 else 0
                row[1] += diff
                row[2] += 1
    return {e: (r[0], r[1], r[2]) for e, r in out.items()}


def test_a_team_event_at_uploading_tables(club_server: Any, tmp_path: Path) -> None:
    server, token = club_server
    url = server.db
    csv = "entry,kind,pair,name,member_no\n" + "".join(
        f"Team {t},team,{p},Player {t}{p}{s},{t}{p}{s}\n"
        for t in range(1, TEAMS + 1) for p in (1, 2) for s in "ab")
    with db.connect(url) as conn:
        comp = store.create(conn, "Team night", site="Riverside", lots_seed=5,
                            scoring=replace(PRESETS["club"], ladder=FULL_LADDER))
        store.import_players(conn, comp, csv)
    tables = []
    for n in range(TABLES):
        d = tmp_path / f"host{n}"
        d.mkdir()
        tables.append(CompTable(d, f"{0xC0DE3000 + n:016x}", server.base, token, seed=200 + n))
    try:
        play_until_idle(tables, lambda: len(q(url, "SELECT 1 FROM tables")) == TABLES, 60)
        labels = [r[0] for r in q(url, "SELECT label FROM tables ORDER BY table_id")]
        by_uid = {r[0]: r[1] for r in q(url, "SELECT uid, label FROM tables")}
        files = {by_uid[t.sim.uid]: t.sim.path for t in tables}
        for rnd in range(1, ROUNDS + 1):
            with db.connect(url) as conn:
                assert store.draw_round(conn, comp, deal_limit=1) == rnd
                store.seat(conn, comp, rnd, labels, "td")
                store.move(conn, comp, rnd, "start")

            def round_over(rnd: int = rnd) -> bool:
                if q(url, "SELECT count(*) FROM table_commands WHERE done_at IS NULL")[0][0]:
                    return False
                if not all(t.idle and t.up.pending() == 0 for t in tables):
                    return False
                with db.connect(url) as conn:
                    ev = store.load(conn, comp)
                return all(m.status == "finished" for m in ev.matches if m.round_no == rnd)

            try:
                play_until_idle(tables, round_over, 60)
            except TimeoutError:
                with db.connect(url) as conn:
                    ev = store.load(conn, comp)
                raise AssertionError((rnd, [(m.table, m.status, m.deals) for m in ev.matches],
                                      [t.idle for t in tables], [t.matches for t in tables],
                                      q(url, "SELECT table_id, kind, done_at IS NULL, ok, reply"
                                             " FROM table_commands"))) from None
            with db.connect(url) as conn:
                store.move(conn, comp, rnd, "close")
                assert store.publish(conn, comp, rnd, "td") == 1
        assert [t.matches for t in tables] == [ROUNDS] * TABLES
    finally:
        for t in tables:
            t.close()

    with db.connect(url) as conn:
        ev = store.load(conn, comp)
    assert all(e.kind == "team" for e in ev.entries.values())
    seatings: dict[int, dict[str, tuple[str, str]]] = {no: {} for no in ev.pairings}
    for m in ev.matches:
        assert m.entries[1] is not None and ev.sources[m.match_id] == "table"
        seatings[m.round_no][m.table] = (ev.entries[m.entries[0]].name, ev.entries[m.entries[1]].name)
    # each meeting at two tables, the teams on alternating sides; no teams meet twice
    for rnd, tabs in seatings.items():
        meetings: dict[frozenset[str], list[tuple[str, str]]] = {}
        for pair in tabs.values():
            meetings.setdefault(frozenset(pair), []).append(pair)
        assert len(meetings) == TEAMS // 2, (rnd, tabs)
        for sides in meetings.values():
            assert len(sides) == 2 and sides[0] == sides[1][::-1], sides
    met = [frozenset(m) for p in ev.pairings.values() for m in p.meetings]
    assert len(met) == len(set(met)) == TEAMS // 2 * ROUNDS
    # a team's members sat at different tables in each round
    for s in q(url, "SELECT round_id, entry_id, count(DISTINCT table_label) FROM seatings"
                    " GROUP BY 1, 2"):
        assert s[2] == 2, s
    want = team_recompute(files, seatings)
    std = store.standings(ev)
    got = {r.name: (r.match_points, r.net_levels, r.played) for r in std.rows}
    assert got == want
    assert len(got) == TEAMS and not std.pending
    assert len({v[1] for v in got.values()}) > 1  # not all equal: the sums are tested
