"""A round's match result at a table, read from the events the table uploaded.

The table records every hand; the club server holds its chain (``events``).
When the director starts a round, each seated table's chain index is marked
(``round_marks``) and the table is sent a new match (``table_commands``). The
round's match at a table is then the first new match (a ``HAND_START`` of hand
1 with ``first_hand``) at or after the mark, up to the next round's mark at
the same table; its result is the last ``HAND_END`` in that window:

- the match is **finished** when a side passed the top of the ladder (the
  hand end's ``match_winner``), when the round's deal limit is reached, or when
  time was called (or the round closed) and no deal is in progress;
- otherwise it is **playing**, with the levels so far (the grid shows them and
  the standings count the match once it is finished).

:func:`derive` is the pure part (tested without a database); :func:`table_results`
reads the windows. A result the director entered (``results``) overrides the
table's; the table's is never stored, so a late upload or a fork the host
recorded changes it the way it changes the records.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from .. import events as E
from ..vocab.enums import EventKind

#: the kinds a result is read from (the rest of the chain is never fetched)
KINDS = (int(EventKind.HAND_START), int(EventKind.TRUMP), int(EventKind.HAND_END))


@dataclass(frozen=True)
class PlayedHand:
    """One hand of a match, as its record's fixed header gives it."""

    hand_no: int
    dealer: int  # -1: nobody bid (a redeal)
    level: int  # the dealer side's level (rank number, 2 = 0)
    trump: int  # 0-3 = S H D C, 4 = no trump, -1 none
    attackers: int  # the attackers' points
    levels_after: tuple[int, int]
    match_winner: int  # -1: the match goes on


@dataclass(frozen=True)
class Derived:
    """What a table's events say of its match in a round."""

    status: str  # finished / playing / not_played
    levels: tuple[int, int] | None
    passed: int | None
    deals: int
    in_deal: bool  # a deal started and not yet ended
    why: str = ""  # why nothing could be read (shown on the director's grid)
    first_idx: int | None = None
    last_idx: int | None = None
    hands: tuple[PlayedHand, ...] = ()


def derive(events: Iterable[tuple[int, Sequence[int] | E.Event]], *, time_called: bool,
           deal_limit: int | None) -> Derived:
    """The match from one table's ``HAND_START``/``HAND_END`` events ``(idx, event)`` in
    index order, within the round's window."""
    started = False
    first_idx: int | None = None
    levels: tuple[int, int] | None = None
    passed: int | None = None
    deals = 0
    in_deal = False
    last_idx: int | None = None
    hands: list[PlayedHand] = []
    cur: list[int] = [0, -1, 0, -1]  # hand_no, dealer, level by side, trump
    at_start: tuple[int, ...] = (0, 0)
    for idx, raw in events:
        ev = E.decode(raw, lenient=True)
        if isinstance(ev, E.Trump) and started:
            cur[1], cur[3] = ev.dealer, ev.trump
            continue
        if isinstance(ev, E.HandStart):
            if ev.first_hand and ev.hand_no == 1:
                if deals > 0:
                    break  # a second new match after deals: this round's ended before it
                if len(ev.levels) != 2:
                    return Derived("not_played", None, None, 0, False,
                                   "the table plays with called partners: levels per seat, "
                                   "no side result", idx, idx)
                # the match starts here (again, if a new match came before any deal ended)
                started, first_idx = True, idx
                levels = (ev.levels[0], ev.levels[1])
                hands = []
            elif not started:
                continue  # the table's previous match, still going: not this round's
            in_deal = True
            last_idx = idx
            cur = [ev.hand_no, ev.dealer, 0, -1]
            at_start = tuple(ev.levels)
        elif isinstance(ev, E.HandEnd) and started:
            if len(ev.levels) != 2:
                continue
            levels = (ev.levels[0], ev.levels[1])
            deals += 1
            in_deal = False
            last_idx = idx
            dealer = cur[1]
            hands.append(PlayedHand(cur[0], dealer, at_start[dealer & 1] if dealer >= 0 else at_start[0],
                              cur[3], ev.attackers_score, levels, ev.match_winner))
            if ev.match_winner in (0, 1):
                passed = ev.match_winner
                break
    if not started:
        return Derived("not_played", None, None, 0, False, "no new match at the table yet")
    done = passed is not None or (deal_limit is not None and deals >= deal_limit) or (
        time_called and not in_deal)
    return Derived("finished" if done else "playing", levels, passed, deals, in_deal, "",
                   first_idx, last_idx, tuple(hands))


@dataclass(frozen=True)
class Mark:
    round_no: int
    label: str
    table_id: int | None
    start_idx: int


def marks(conn: psycopg.Connection, comp_id: int) -> list[Mark]:
    return [Mark(int(r[0]), r[1], None if r[2] is None else int(r[2]), int(r[3]))
            for r in conn.execute(
                "SELECT r.no, m.table_label, m.table_id, m.start_idx FROM round_marks m"
                " JOIN rounds r USING (round_id) WHERE m.comp_id = %s ORDER BY r.no, m.table_label",
                (comp_id,))]


def table_results(conn: psycopg.Connection, comp_id: int,
                  rounds: dict[int, tuple[str, int | None]]) -> dict[tuple[int, str], Derived]:
    """Each marked (round, table label)'s match as its table's current events say;
    ``rounds`` maps a round's number to its state and deal limit."""
    ms = marks(conn, comp_id)
    out: dict[tuple[int, str], Derived] = {}
    for m in ms:
        if m.table_id is None:
            out[(m.round_no, m.label)] = Derived(
                "not_played", None, None, 0, False,
                f"no table {m.label} heard yet: it gets the round's new match when its host uploads it, or enter its result")
            continue
        later = [x.start_idx for x in ms if x.table_id == m.table_id and x.round_no > m.round_no]
        end = min(later) if later else 2**31 - 1
        rows = conn.execute(
            "SELECT idx, canon FROM events WHERE table_id = %s AND current AND kind = ANY(%s)"
            " AND idx >= %s AND idx < %s ORDER BY idx",
            (m.table_id, list(KINDS), m.start_idx, end)).fetchall()
        state, limit = rounds.get(m.round_no, ("playing", None))
        out[(m.round_no, m.label)] = derive(
            ((int(i), json.loads(c)) for i, c in rows),
            time_called=state in ("time_called", "closed", "published"), deal_limit=limit)
    return out


def mark_round(conn: psycopg.Connection, comp_id: int, round_id: int, labels: Iterable[str]) -> list[str]:
    """At a round's start: each seated table's chain index, and a new match queued for it.
    The labels no table answers to yet (their results are the director's to enter)."""
    unknown: list[str] = []
    for label in sorted(set(labels)):
        row = conn.execute(
            "SELECT t.table_id, greatest(h.count, coalesce(h.host_count, 0)) FROM tables t"
            " JOIN table_heads h USING (table_id) WHERE t.label = %s", (label,)).fetchone()
        tid, start = (int(row[0]), int(row[1])) if row else (None, 0)
        if tid is None:
            unknown.append(label)
        conn.execute(
            "INSERT INTO round_marks (comp_id, round_id, table_label, table_id, start_idx)"
            " VALUES (%s,%s,%s,%s,%s) ON CONFLICT (round_id, table_label) DO NOTHING",
            (comp_id, round_id, label, tid, start))
        if tid is not None:
            queue(conn, comp_id, round_id, tid, "new_match")
    return unknown


def queue(conn: psycopg.Connection, comp_id: int, round_id: int, table_id: int, kind: str) -> None:
    conn.execute(
        "INSERT INTO table_commands (comp_id, round_id, table_id, kind) VALUES (%s,%s,%s,%s)"
        " ON CONFLICT (round_id, table_id, kind) DO NOTHING", (comp_id, round_id, table_id, kind))
    conn.execute("SELECT pg_notify('tt_table', %s)", (str(table_id),))


def call_time(conn: psycopg.Connection, comp_id: int, round_id: int) -> int:
    """Time called: each of the round's tables that was heard gets the command; how many."""
    n = 0
    for (tid,) in conn.execute(
            "SELECT DISTINCT table_id FROM round_marks WHERE round_id = %s AND table_id IS NOT NULL",
            (round_id,)).fetchall():
        queue(conn, comp_id, round_id, int(tid), "call_time")
        n += 1
    return n


def command_states(conn: psycopg.Connection, comp_id: int) -> dict[tuple[int, str], dict[str, Any]]:
    """(round number, table label) -> {kind: 'waiting' / 'sent' / 'done' / 'refused: ...'}."""
    out: dict[tuple[int, str], dict[str, Any]] = {}
    for no, label, kind, offered, done, ok, reply in conn.execute(
            "SELECT r.no, t.label, c.kind, c.offered_at, c.done_at, c.ok, c.reply"
            " FROM table_commands c JOIN rounds r USING (round_id) JOIN tables t USING (table_id)"
            " WHERE c.comp_id = %s ORDER BY c.cmd_id", (comp_id,)):
        word = ("done" if ok else f"refused: {reply}") if done else ("sent" if offered else "waiting")
        out.setdefault((int(no), label), {})[kind] = word
    return out
