"""The invariants every club test ends with: the server's events of each table
equal its host's (current and superseded alike), the server's current chain
verifies with ``ttlink.chain_hash``, nothing is duplicated, nothing lost."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tractor_table.club import db
from tractor_table.link import ttlink


def host_events(path: Path) -> dict[str, set[tuple[int, int, str, bool]]]:
    con = sqlite3.connect(path)
    try:
        host = con.execute("SELECT host_uuid FROM club_host").fetchone()[0]
        out: dict[str, set[tuple[int, int, str, bool]]] = {}
        for tid, uid in con.execute("SELECT id, uid FROM tables"):
            out[uid or f"h:{host}:{tid}"] = {
                (i, h, e, bool(c)) for i, h, e, c in con.execute(
                    "SELECT idx, hash, event, current FROM events WHERE table_id = ?", (tid,))}
        return out
    finally:
        con.close()


def server_events(url: str, uid: str) -> list[tuple[int, int, str, bool]]:
    with db.connect(url) as c:
        return [(int(i), int(h), t, bool(cur)) for i, h, t, cur in c.execute(
            "SELECT e.idx, e.hash, e.canon, e.current FROM events e JOIN tables t USING (table_id) "
            "WHERE t.uid = %s ORDER BY e.idx, e.event_pk", (uid,))]


def chain_verifies(rows: list[tuple[int, int, str, bool]]) -> bool:
    h, prev = 0, -1
    for i, hh, t, cur in rows:
        if not cur:
            continue
        if i != prev + 1:
            return False
        h = ttlink.chain_hash(h, json.loads(t))
        if h != hh:
            return False
        prev = i
    return True


def assert_same(path: Path, url: str) -> int:
    """Every table of the host's file is on the server exactly; the events compared."""
    n = 0
    for uid, mine in host_events(path).items():
        theirs = server_events(url, uid)
        assert len(theirs) == len(set(theirs)), f"table {uid}: duplicates on the server"
        assert set(theirs) == mine, (
            f"table {uid}: server {len(theirs)} events, host {len(mine)}; only on the host: "
            f"{sorted(mine - set(theirs))[:3]}, only on the server: {sorted(set(theirs) - mine)[:3]}")
        if all(cur for *_x, cur in theirs) and theirs and theirs[0][0] == 0:
            assert chain_verifies(theirs), f"table {uid}: the chain does not verify"
        n += len(mine)
    return n
