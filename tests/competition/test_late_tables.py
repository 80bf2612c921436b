"""A table that joins a round late (docs/competition.md, "Late tables"): a seated table no
table answered to when the round started gets the round's new match when its host first
uploads it; a new match the table's uploads show started is never offered again (a host
that took the table over, or restarted and forgot what it sent)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from psycopg_pool import AsyncConnectionPool
from tractor_table.club import commands, db
from tractor_table.competition import store
from tractor_table.competition.scoring import FULL_LADDER, PRESETS
from tractor_table.competition.simevent import CompTable, play_until_idle

pytestmark = pytest.mark.club

CSV = "entry,name,member_no\n" + "".join(
    f"Pair {i},Player {i}a,{i}01\nPair {i},Player {i}b,{i}02\n" for i in range(1, 5))


def q(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with db.connect(url) as c:
        return c.execute(sql, args).fetchall()


async def _pending(url: str, host: Any) -> list[dict[str, Any]]:
    pool = AsyncConnectionPool(url, min_size=1, max_size=1, open=False, kwargs={"autocommit": True})
    await pool.open(wait=True, timeout=30)
    try:
        return await commands.pending(pool, host)
    finally:
        await pool.close()


def test_a_table_heard_after_the_round_started_gets_its_new_match(club_server: Any,
                                                                  tmp_path: Path) -> None:
    server, token = club_server
    url = server.db
    with db.connect(url) as conn:
        comp = store.create(conn, "Late night", lots_seed=3,
                            scoring=replace(PRESETS["club"], ladder=FULL_LADDER))
        store.import_players(conn, comp, CSV)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    early = CompTable(tmp_path / "a", f"{0xC0DE1000:016x}", server.base, token, seed=5)
    late: CompTable | None = None
    try:
        play_until_idle([early], lambda: len(q(url, "SELECT 1 FROM tables")) == 1, 60)
        (first,) = [r[0] for r in q(url, "SELECT label FROM tables")]
        second = f"T{int(first[1:]) + 1}"  # the label the next table heard will get
        with db.connect(url) as conn:
            store.draw_round(conn, comp, deal_limit=1)
            store.seat(conn, comp, 1, [first, second], "td")
            store.move(conn, comp, 1, "start")
        assert q(url, "SELECT table_id FROM round_marks WHERE table_label = %s", second) == [(None,)]
        # the second table's host comes up now, after the round started
        late = CompTable(tmp_path / "b", f"{0xC0DE1001:016x}", server.base, token, seed=6)
        tables = [early, late]

        def round_over() -> bool:
            if q(url, "SELECT count(*) FROM table_commands WHERE done_at IS NULL")[0][0]:
                return False
            if not all(t.idle and t.up.pending() == 0 for t in tables):
                return False
            with db.connect(url) as conn:
                ev = store.load(conn, comp)
            return all(m.status == "finished" for m in ev.matches)

        play_until_idle(tables, round_over, 90)
        assert [t.matches for t in tables] == [1, 1]
        assert q(url, "SELECT t.label, c.ok FROM table_commands c JOIN tables t USING (table_id)"
                      " WHERE c.kind = 'new_match' ORDER BY t.label") == [(first, True), (second, True)]
        with db.connect(url) as conn:
            ev = store.load(conn, comp)
        assert {m.table: ev.sources[m.match_id] for m in ev.matches} == {first: "table", second: "table"}
    finally:
        early.close()
        if late is not None:
            late.close()

    # the report of the late table's new match lost, its host gone: whoever uploads the
    # table next is not offered it again (the match it started would be thrown away)
    (tid, host) = q(url, "SELECT t.table_id, h.host_id FROM tables t JOIN table_heads h"
                         " USING (table_id) WHERE t.label = %s", second)[0]
    q(url, "UPDATE table_commands SET done_at = NULL, ok = NULL, reply = NULL"
           " WHERE table_id = %s AND kind = 'new_match' RETURNING 1", tid)
    offered = asyncio.run(_pending(url, host))
    assert [c for c in offered if c["command"] == "new_match"] == []
    (reply,) = q(url, "SELECT reply FROM table_commands WHERE table_id = %s AND kind = 'new_match'"
                      " AND done_at IS NOT NULL", tid)[0]
    assert "started the match already" in reply


def test_a_late_table_after_time_was_called_gets_the_call_too(club_server: Any,
                                                             tmp_path: Path) -> None:
    server, token = club_server
    url = server.db
    with db.connect(url) as conn:
        comp = store.create(conn, "Later night", lots_seed=4,
                            scoring=replace(PRESETS["club"], ladder=FULL_LADDER))
        store.import_players(conn, comp, CSV)
        n = conn.execute("SELECT coalesce(max(table_id), 0) FROM tables").fetchone()
    assert n is not None
    labels = [f"T{int(n[0]) + 1}", f"T{int(n[0]) + 2}"]  # no table answers to either yet
    with db.connect(url) as conn:
        store.draw_round(conn, comp, deal_limit=3)
        store.seat(conn, comp, 1, labels, "td")
        store.move(conn, comp, 1, "start")
        store.move(conn, comp, 1, "call_time")
    (tmp_path / "c").mkdir()
    t = CompTable(tmp_path / "c", f"{0xC0DE2000:016x}", server.base, token, seed=7)
    try:
        play_until_idle([t], lambda: len(q(
            url, "SELECT 1 FROM table_commands WHERE done_at IS NOT NULL")) == 2, 60)
        assert q(url, "SELECT t.label, c.kind, c.ok FROM table_commands c JOIN tables t"
                      " USING (table_id) ORDER BY c.cmd_id") == [
            (labels[0], "new_match", True), (labels[0], "call_time", True)]
        assert t.matches == 1
    finally:
        t.close()
