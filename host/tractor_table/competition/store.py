"""The competition's facts in the club's PostgreSQL (migration 010), and the director's
actions on them. Each action is one transaction: it checks everything first with the pure
core (:mod:`.pairing`, :mod:`.seating`, :mod:`.model`) and then writes, so a refused action
changes nothing. Standings are derived on every read (:func:`standings`), never stored but
inside a publication, frozen with its version.
"""

from __future__ import annotations

import datetime as dt
import difflib
import json
from dataclasses import dataclass, field, replace
from typing import Any, Final

import psycopg

from ..report.cards import level_name
from .entries_csv import parse_roster
from .model import Adjustment, CompetitionError, Entry, Player, TableMatch, check_adjustments
from .pairing import Pairing, berger, met_pairs, swiss
from .scoring import Scoring
from .seating import Seat, check_seating, seat_round
from .standings import Standings, rank
from .tableplay import Derived, Hand, call_time, command_states, mark_round, table_results

STATES: Final = ("draft", "seated", "playing", "time_called", "closed", "published")
#: which state an action moves a round from, and to
MOVES: Final = {
    "start": (("seated",), "playing"),
    "call_time": (("playing",), "time_called"),
    "close": (("playing", "time_called", "seated"), "closed"),
}


class ActionError(CompetitionError):
    """A director's action refused; nothing was changed."""


@dataclass(frozen=True)
class Round:
    round_id: int
    no: int
    state: str
    time_limit_min: int | None
    deal_limit: int | None
    started_at: dt.datetime | None
    time_called_at: dt.datetime | None


@dataclass(frozen=True)
class Competition:
    """Everything :func:`standings` and the pages need, read in one transaction."""

    comp_id: int
    name: str
    site: str
    starts_on: dt.date
    movement: str
    scoring: Scoring
    correction_minutes: int
    players: dict[str, Player]
    entries: dict[str, Entry]
    rounds: list[Round]
    pairings: dict[int, Pairing]
    seats: dict[int, list[Seat]]
    matches: list[TableMatch]
    adjustments: list[Adjustment]
    #: match id -> why its table's events give no result (off the ladder, not heard...)
    notes: dict[str, str] = field(default_factory=dict)
    #: match id -> where its result comes from: 'table' (its uploaded events) or 'director'
    sources: dict[str, str] = field(default_factory=dict)
    #: (round, label) -> the commands sent to the table and their state
    commands: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    #: match id -> its hands as the table's uploaded events give them
    hands: dict[str, tuple[Hand, ...]] = field(default_factory=dict)

    def round(self, no: int) -> Round:
        for r in self.rounds:
            if r.no == no:
                return r
        raise ActionError(f"round {no} does not exist (rounds: {', '.join(str(r.no) for r in self.rounds) or 'none yet'})")

    def names(self, entry: str) -> str:
        e = self.entries[entry]
        return " & ".join(self.players[p].name for p in e.members)


def match_id(round_no: int, label: str) -> str:
    return f"r{round_no}-{label}"


def create(conn: psycopg.Connection, name: str, *, scoring: Scoring, site: str = "",
           movement: str = "swiss", correction_minutes: int = 30, lots_seed: int = 0,
           starts_on: dt.date | None = None) -> int:
    if movement not in ("swiss", "round_robin"):
        raise ActionError(f"movement {movement!r}: use swiss or round_robin")
    scoring = replace(scoring, lots_seed=lots_seed)
    with conn.transaction():
        row = conn.execute(
            "INSERT INTO competitions (name, site, starts_on, movement, scoring, correction_minutes,"
            " lots_seed) VALUES (%s, %s, coalesce(%s, current_date), %s, %s, %s, %s)"
            " RETURNING comp_id",
            (name, site, starts_on, movement, json.dumps(scoring.to_dict()), correction_minutes,
             lots_seed)).fetchone()
        assert row is not None
        conn.execute("INSERT INTO comp_sessions (comp_id, no) VALUES (%s, 1)", (row[0],))
    return int(row[0])


def import_players(conn: psycopg.Connection, comp_id: int, data: bytes | str) -> tuple[int, int]:
    """The player CSV into the competition, all or nothing; (players, entries) added."""
    roster = parse_roster(data)  # CsvError: nothing is touched
    with conn.transaction():
        conn.execute("SELECT 1 FROM competitions WHERE comp_id = %s FOR UPDATE", (comp_id,))
        have = {r[0] for r in conn.execute("SELECT name FROM entries WHERE comp_id = %s", (comp_id,))}
        keys = {r[0] for r in conn.execute("SELECT key FROM players WHERE comp_id = %s", (comp_id,))}
        clash = [e.name for e in roster.entries if e.name in have]
        clash_p = [p.name for p in roster.players if p.player_id in keys]
        if clash or clash_p:
            raise ActionError("player list not imported, nothing changed: already in the "
                              f"competition: {', '.join(clash + clash_p)[:300]}")
        if conn.execute("SELECT 1 FROM rounds WHERE comp_id = %s AND state <> 'draft'",
                        (comp_id,)).fetchone():
            raise ActionError("player list not imported: a round is already seated; add late "
                              "entries before the next round is drawn")
        pid: dict[str, int] = {}
        for p in roster.players:
            row = conn.execute(
                "INSERT INTO players (comp_id, key, name, member_no, club) VALUES (%s,%s,%s,%s,%s)"
                " RETURNING player_id", (comp_id, p.player_id, p.name, p.member_no, p.club)).fetchone()
            assert row is not None
            pid[p.player_id] = int(row[0])
        seed = conn.execute("SELECT coalesce(max(seed_no), 0) FROM entries WHERE comp_id = %s",
                            (comp_id,)).fetchone()
        next_seed = int(seed[0]) if seed else 0
        for e in roster.entries:
            next_seed += 1
            row = conn.execute(
                "INSERT INTO entries (comp_id, kind, name, seed_no) VALUES (%s,%s,%s,%s)"
                " RETURNING entry_id", (comp_id, e.kind, e.name, next_seed)).fetchone()
            assert row is not None
            for k, pair in enumerate(e.pairs, start=1):
                for pos, key in enumerate(pair):
                    conn.execute(
                        "INSERT INTO entry_members (comp_id, entry_id, player_id, pair_no, pos)"
                        " VALUES (%s,%s,%s,%s,%s)", (comp_id, row[0], pid[key], k, pos))
    return len(roster.players), len(roster.entries)


def edit_player(conn: psycopg.Connection, comp_id: int, player_id: int, *, name: str,
                member_no: str = "", club: str = "") -> str:
    """A player's name, member number and club corrected (a typo, a late change of
    partner's name); refused with the reason, nothing changed, for an empty or too long
    field or a member number (or, without one, a name) another player already has.
    Published versions keep the names they were published with."""
    name, member_no, club = name.strip(), member_no.strip(), club.strip()
    for what, v, need in (("name", name, True), ("member number", member_no, False),
                          ("club", club, False)):
        if need and not v:
            raise ActionError(f"player {player_id}: the name is empty; nothing changed")
        if len(v) > 100 or any(ord(ch) < 32 for ch in v):
            raise ActionError(f"player {player_id}: the {what} is longer than 100 characters or "
                              "holds a control character; nothing changed")
    key = f"#{member_no}" if member_no else name
    with conn.transaction():
        row = conn.execute("SELECT name FROM players WHERE comp_id = %s AND player_id = %s FOR UPDATE",
                           (comp_id, player_id)).fetchone()
        if row is None:
            raise ActionError(f"player {player_id} is not in this competition")
        other = conn.execute("SELECT name FROM players WHERE comp_id = %s AND key = %s AND player_id <> %s",
                             (comp_id, key, player_id)).fetchone()
        if other is not None:
            raise ActionError(
                f"player {player_id}: {'member number ' + member_no if member_no else 'the name ' + name}"
                f" is already {other[0]}'s; give a member number to tell two players of one name "
                "apart; nothing changed")
        conn.execute("UPDATE players SET name = %s, member_no = %s, club = %s, key = %s"
                     " WHERE player_id = %s", (name, member_no, club, key, player_id))
    return f"player {player_id}: {row[0]} is now {name}" if row[0] != name else f"player {player_id} saved"


def load(conn: psycopg.Connection, comp_id: int) -> Competition:
    with conn.transaction():
        c = conn.execute(
            "SELECT name, site, starts_on, movement, scoring, correction_minutes FROM competitions"
            " WHERE comp_id = %s", (comp_id,)).fetchone()
        if c is None:
            raise ActionError(f"competition {comp_id} does not exist")
        players = {str(r[0]): Player(str(r[0]), r[1], r[2], r[3]) for r in conn.execute(
            "SELECT player_id, name, member_no, club FROM players WHERE comp_id = %s", (comp_id,))}
        members: dict[int, dict[int, list[str]]] = {}
        for eid, pair_no, _pos, p in conn.execute(
                "SELECT entry_id, pair_no, pos, player_id FROM entry_members WHERE comp_id = %s"
                " ORDER BY entry_id, pair_no, pos", (comp_id,)):
            members.setdefault(eid, {}).setdefault(pair_no, []).append(str(p))
        entries: dict[str, Entry] = {}
        for eid, kind, name in conn.execute(
                "SELECT entry_id, kind, name FROM entries WHERE comp_id = %s ORDER BY seed_no",
                (comp_id,)):
            pairs = tuple((ps[0], ps[1]) for _, ps in sorted(members.get(eid, {}).items()))
            entries[str(eid)] = Entry(str(eid), name, kind, pairs)
        rounds = [Round(*r) for r in conn.execute(
            "SELECT round_id, no, state, time_limit_min, deal_limit, started_at, time_called_at"
            " FROM rounds WHERE comp_id = %s ORDER BY no", (comp_id,))]
        no_of = {r.round_id: r.no for r in rounds}
        pm: dict[int, list[tuple[str, str | None]]] = {}
        for rid, a, b in conn.execute(
                "SELECT round_id, entry_a, entry_b FROM pairings WHERE comp_id = %s ORDER BY round_id, pos",
                (comp_id,)):
            pm.setdefault(no_of[rid], []).append((str(a), None if b is None else str(b)))
        pairings = {
            no: Pairing(no, tuple((a, b) for a, b in ms if b is not None),
                        next((a for a, b in ms if b is None), None))
            for no, ms in pm.items()
        }
        seats: dict[int, list[Seat]] = {}
        for rid, label, seat, eid, p in conn.execute(
                "SELECT round_id, table_label, seat, entry_id, player_id FROM seatings"
                " WHERE comp_id = %s ORDER BY round_id, table_label, seat", (comp_id,)):
            seats.setdefault(no_of[rid], []).append(Seat(label, seat, str(eid), str(p)))
        latest: dict[tuple[int, str], tuple[Any, ...]] = {}
        for row in conn.execute(
                "SELECT round_id, table_label, status, level0, level1, passed, deals, source"
                " FROM results WHERE comp_id = %s ORDER BY result_id", (comp_id,)):
            latest[(no_of[row[0]], row[1])] = row[2:]
        derived = table_results(conn, comp_id, {r.no: (r.state, r.deal_limit) for r in rounds})
        commands = command_states(conn, comp_id)
        adjs = [Adjustment(int(r[0]), r[1], None if r[2] is None else match_id(no_of[r[3]], r[2]),
                           None if r[4] is None else str(r[4]), int(r[5]),
                           None if r[6] is None else int(r[6]), r[7], r[8])
                for r in conn.execute(
                    "SELECT adj_id, kind, table_label, round_id, entry_id, value, revokes, reason,"
                    " director FROM adjustments WHERE comp_id = %s ORDER BY adj_id", (comp_id,))]
    scoring = Scoring.from_dict(c[4])
    matches: list[TableMatch] = []
    notes: dict[str, str] = {}
    sources: dict[str, str] = {}
    hands: dict[str, tuple[Hand, ...]] = {}
    for no, ss in sorted(seats.items()):
        by_table: dict[str, dict[int, str]] = {}
        for s in ss:
            by_table.setdefault(s.table, {})[s.seat] = s.entry
        for label, side in sorted(by_table.items()):
            mid = match_id(no, label)
            res = latest.get((no, label))
            dh = derived.get((no, label))
            if dh is not None and dh.hands:
                hands[mid] = dh.hands
            if res is not None:  # entered: the director's (or a program's) word wins
                status, l0, l1, passed, deals, src = res
                levels = (int(l0), int(l1)) if status == "finished" else None
                sources[mid] = str(src)
            else:
                d = derived.get((no, label)) or Derived("not_played", None, None, 0, False)
                status, levels, passed, deals = d.status, d.levels, d.passed, d.deals
                if d.why:
                    notes[mid] = d.why
                if levels is not None:
                    off = [lv for lv in levels if lv not in [int(x) for x in scoring.ladder]]
                    if off:
                        notes[mid] = (f"the table played level {off[0]} that is not on the "
                                      "competition's ladder: set the tables' rules to its ladder, "
                                      "or enter the result")
                        status, levels, passed = "not_played", None, None
                if d.status != "not_played":
                    sources[mid] = "table"
            matches.append(TableMatch(mid, no, label, (side[0], side[1]),
                                      status, levels, passed, deals))
    for no, p in pairings.items():
        if p.bye is not None:
            matches.append(TableMatch(match_id(no, "bye"), no, "bye", (p.bye, None)))
    return Competition(comp_id, c[0], c[1], c[2], c[3], scoring, int(c[5]), players, entries,
                       rounds, pairings, seats, matches, adjs, notes, sources, commands, hands)


def standings(ev: Competition, through: int | None = None) -> Standings:
    """The standings after round ``through`` (all rounds when None)."""
    ms = [m for m in ev.matches if through is None or m.round_no <= through]
    ids = {m.match_id for m in ms}
    adjs = [a for a in ev.adjustments if a.match_id is None or a.match_id in ids]
    return rank(ev.scoring, ev.entries.values(), ms, adjs)


def draw_round(conn: psycopg.Connection, comp_id: int, *, time_limit_min: int | None = None,
               deal_limit: int | None = None) -> int:
    """The next round, drawn: Swiss on the standings so far (round 1 by lot), or the next
    Berger round. The previous round must be closed or published."""
    ev = load(conn, comp_id)
    if len(ev.entries) < 2:
        raise ActionError("import the players first: a round needs at least two entries")
    if ev.rounds and ev.rounds[-1].state not in ("closed", "published"):
        last = ev.rounds[-1]
        raise ActionError(f"round {last.no} is {last.state}: close it before drawing the next")
    no = len(ev.rounds) + 1
    if ev.movement == "round_robin":
        pairing = berger(list(ev.entries), no)
    else:
        order = standings(ev).order()
        side0: dict[str, int] = {}
        for p in ev.pairings.values():
            for a, _ in p.meetings:
                side0[a] = side0.get(a, 0) + 1
        pairing = swiss(order, no, met=met_pairs(ev.pairings.values()),
                        had_bye={p.bye for p in ev.pairings.values() if p.bye},
                        side0=side0, seed=ev.scoring.lots_seed)
    with conn.transaction():
        sess = conn.execute("SELECT comp_session_id FROM comp_sessions WHERE comp_id = %s"
                            " ORDER BY no DESC LIMIT 1", (comp_id,)).fetchone()
        assert sess is not None
        row = conn.execute(
            "INSERT INTO rounds (comp_id, comp_session_id, no, time_limit_min, deal_limit)"
            " VALUES (%s,%s,%s,%s,%s) RETURNING round_id",
            (comp_id, sess[0], no, time_limit_min, deal_limit)).fetchone()
        assert row is not None
        for pos, (a, b) in enumerate([*pairing.meetings, *([(pairing.bye, None)] if pairing.bye else [])]):
            conn.execute("INSERT INTO pairings (comp_id, round_id, pos, entry_a, entry_b)"
                         " VALUES (%s,%s,%s,%s,%s)", (comp_id, row[0], pos, int(a), None if b is None else int(b)))
    return no


def seat(conn: psycopg.Connection, comp_id: int, round_no: int, tables: list[str],
         entered_by: str) -> list[Seat]:
    """Bind the round's meetings to ``tables`` (labels, in order); the round becomes seated."""
    ev = load(conn, comp_id)
    r = ev.round(round_no)
    if r.state != "draft":
        raise ActionError(f"round {round_no} is already {r.state}: its seating stands")
    labels = [t.strip() for t in tables if t.strip()]
    if len(set(labels)) != len(labels):
        dup = next(t for t in labels if labels.count(t) > 1)
        raise ActionError(f"table {dup} is listed twice: each table seats one match")
    seats = seat_round(ev.pairings[round_no], ev.entries, labels)
    _write_seats(conn, ev, r, seats, entered_by)
    return seats


def seat_by_hand(conn: psycopg.Connection, comp_id: int, round_no: int, seats: list[Seat],
                 entered_by: str) -> None:
    ev = load(conn, comp_id)
    r = ev.round(round_no)
    if r.state not in ("draft", "seated"):
        raise ActionError(f"round {round_no} is {r.state}: its seating can no longer change")
    _write_seats(conn, ev, r, [*ev.seats.get(round_no, []), *seats], entered_by, only=seats)


def _write_seats(conn: psycopg.Connection, ev: Competition, r: Round, seats: list[Seat],
                 entered_by: str, only: list[Seat] | None = None) -> None:
    check_seating(seats, ev.entries)  # SeatingError: nothing written
    with conn.transaction():
        for s in (seats if only is None else only):
            conn.execute(
                "INSERT INTO seatings (comp_id, round_id, table_label, seat, entry_id, player_id,"
                " entered_by) VALUES (%s,%s,%s,%s,%s,%s,%s)",
                (ev.comp_id, r.round_id, s.table, s.seat, int(s.entry), int(s.player), entered_by))
        conn.execute("UPDATE rounds SET state = 'seated' WHERE round_id = %s", (r.round_id,))


def move(conn: psycopg.Connection, comp_id: int, round_no: int, action: str) -> str:
    """start / call_time / close a round; the new state."""
    if action not in MOVES:
        raise ActionError(f"{action!r} is not an action on a round")
    allowed, to = MOVES[action]
    with conn.transaction():
        row = conn.execute("SELECT round_id, state FROM rounds WHERE comp_id = %s AND no = %s"
                           " FOR UPDATE", (comp_id, round_no)).fetchone()
        if row is None:
            raise ActionError(f"round {round_no} does not exist")
        if row[1] not in allowed:
            raise ActionError(f"round {round_no} is {row[1]}: it cannot {action.replace('_', ' ')}"
                              f" (only when {' or '.join(allowed)})")
        stamp = {"playing": "started_at", "time_called": "time_called_at", "closed": "closed_at"}[to]
        conn.execute(f"UPDATE rounds SET state = %s, {stamp} = now() WHERE round_id = %s",
                     (to, row[0]))
        if action == "start":
            # each seated table's chain index now, and a new match sent to it
            labels = [r[0] for r in conn.execute(
                "SELECT DISTINCT table_label FROM seatings WHERE round_id = %s", (row[0],))]
            mark_round(conn, comp_id, int(row[0]), labels)
        elif action == "call_time":
            call_time(conn, comp_id, int(row[0]))  # the tables finish the deal in progress
    return to


def record_result(conn: psycopg.Connection, comp_id: int, round_no: int, label: str, *,
                  status: str, levels: tuple[int, int] | None = None, passed: int | None = None,
                  deals: int = 0, source: str = "table") -> None:
    ev = load(conn, comp_id)
    r = ev.round(round_no)
    if match_id(round_no, label) not in {m.match_id for m in ev.matches}:
        raise ActionError(f"table {label} is not seated in round {round_no}")
    if r.state in ("closed", "published") and source == "table":
        raise ActionError(f"round {round_no} is {r.state}: a late result needs a director's adjustment")
    if status == "finished":
        if levels is None:
            raise ActionError("a finished result needs both sides' levels")
        for lv in levels:
            ev.scoring.position(lv)
    with conn.transaction():
        conn.execute(
            "INSERT INTO results (comp_id, round_id, table_label, status, level0, level1, passed,"
            " deals, source) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)",
            (comp_id, r.round_id, label, status, None if levels is None else levels[0],
             None if levels is None else levels[1], passed, deals, source))


def adjust(conn: psycopg.Connection, comp_id: int, round_no: int, *, kind: str, reason: str,
           director: str, label: str | None = None, entry: str | None = None, value: int = 0,
           revokes: int | None = None, beyond_correction: bool = False,
           now: dt.datetime | None = None) -> int:
    """An adjustment (append-only; ``kind="revoke"`` takes back ``revokes``). On a published
    round it is taken within the correction period; after it only with
    ``beyond_correction`` (the round then needs a new publication version)."""
    ev = load(conn, comp_id)
    r = ev.round(round_no)
    with conn.transaction():
        pub = conn.execute("SELECT version, correction_until, now() FROM publications"
                           " WHERE round_id = %s ORDER BY version DESC LIMIT 1",
                           (r.round_id,)).fetchone()
        if pub is not None:
            at = now or pub[2]
            if at > pub[1] and not beyond_correction:
                raise ActionError(
                    f"round {round_no} was published as version {pub[0]} and its correction "
                    f"period ended at {pub[1].astimezone().strftime('%H:%M')}: nothing changed; a "
                    "correction now must be marked as beyond the correction period and is "
                    "published as a new version")
        if kind == "revoke":
            target = next((a for a in ev.adjustments if a.adj_id == revokes), None)
            if target is None or target.match_id is None or not target.match_id.startswith(f"r{round_no}-"):
                raise ActionError(f"adjustment {revokes} is not an adjustment of round {round_no}")
        new = Adjustment(1 << 62, kind, None if label is None else match_id(round_no, label),
                         entry, value, revokes, reason, director)
        check_adjustments([*ev.adjustments, new], ev.matches)  # CompetitionError: nothing written
        row = conn.execute(
            "INSERT INTO adjustments (comp_id, round_id, table_label, entry_id, kind, value,"
            " revokes, reason, director) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING adj_id",
            (comp_id, r.round_id, label, None if entry is None else int(entry), kind, value,
             revokes, reason.strip(), director)).fetchone()
        assert row is not None
        if r.state == "published":
            conn.execute("UPDATE rounds SET state = 'closed' WHERE round_id = %s", (r.round_id,))
    return int(row[0])


def export_round(ev: Competition, round_no: int) -> str:
    """Every match of the round in one strict form: a fixed header per match, keys in a fixed
    order, one space, LF; byte for byte the same for the same facts, so two published
    versions diff line by line."""
    out: list[str] = []
    std = standings(ev, round_no)
    by_id = {m.match_id: m for m in ev.matches if m.round_no == round_no}
    for mid in sorted(by_id):
        m = by_id[mid]
        a, b = m.entries
        names = {0: "?", 1: "?", 2: "?", 3: "?"}
        for s in ev.seats.get(round_no, []):
            if s.table == m.table:
                names[s.seat] = ev.players[s.player].name
        res = next((x for x in std.row(a).rounds if x.round_no == round_no), None)
        result = "-" if res is None else f"{res.result} {res.points}:{_other_points(std, b, round_no)}"
        lv = "-" if m.levels is None else f"{level_name(m.levels[0])}/{level_name(m.levels[1])}"
        tags = [
            ("Event", ev.name), ("Site", ev.site), ("Date", ev.starts_on.isoformat()),
            ("Round", str(round_no)), ("Table", m.table),
            ("Seat0", names[0]), ("Seat1", names[1]), ("Seat2", names[2]), ("Seat3", names[3]),
            ("Side0", ev.entries[a].name), ("Side1", "-" if b is None else ev.entries[b].name),
            ("Levels", lv), ("Passed", "-" if m.passed is None else str(m.passed)),
            ("Deals", str(m.deals)), ("Result", result),
        ]
        out.extend(f'[{k} "{v.replace(chr(34), chr(39))}"]' for k, v in tags)
        for adj in ev.adjustments:
            if adj.match_id == mid:
                out.append(f'[Adjustment "{adj.adj_id} {adj.kind} {adj.entry or "-"} '
                           f'{adj.value} {adj.revokes or "-"} {adj.reason.replace(chr(34), chr(39))}"]')
        out.append("")
    return "\n".join(out)


def _seat_names(ev: Competition, round_no: int, table: str) -> dict[int, str]:
    names = {0: "?", 1: "?", 2: "?", 3: "?"}
    for s in ev.seats.get(round_no, []):
        if s.table == table:
            names[s.seat] = ev.players[s.player].name
    return names


def hand_result(h: Hand) -> str:
    """A hand's result in the export: the attackers' points, the levels after, and the
    side that passed the top when the hand won the match (``85 2/5``, ``130 A/3 won 0``)."""
    out = f"{h.attackers} {level_name(h.levels_after[0])}/{level_name(h.levels_after[1])}"
    return out + (f" won {h.match_winner}" if h.match_winner in (0, 1) else "")


def export_hands(ev: Competition, round_no: int) -> str:
    """Every hand of the round's matches as the tables recorded them, one record each with
    the fixed header (event, site, date, round, table, the four names, dealer, level, trump,
    result) in the strict form of :func:`export_round`: byte for byte the same for the same
    facts. Tables whose result the director entered without the table's records have none."""
    out: list[str] = []
    by_id = {m.match_id: m for m in ev.matches if m.round_no == round_no}
    for mid in sorted(by_id):
        m = by_id[mid]
        names = _seat_names(ev, round_no, m.table)
        for h in ev.hands.get(mid, ()):
            tags = [
                ("Event", ev.name), ("Site", ev.site), ("Date", ev.starts_on.isoformat()),
                ("Round", str(round_no)), ("Table", m.table), ("Hand", str(h.hand_no)),
                ("Seat0", names[0]), ("Seat1", names[1]), ("Seat2", names[2]), ("Seat3", names[3]),
                ("Dealer", "-" if h.dealer < 0 else f"S{h.dealer}"),
                ("Level", level_name(h.level)),
                ("Trump", "-" if h.trump < 0 else "SHDCN"[h.trump] if h.trump <= 4 else str(h.trump)),
                ("Result", hand_result(h)),
            ]
            out.extend(f'[{k} "{v.replace(chr(34), chr(39))}"]' for k, v in tags)
            out.append("")
    return "\n".join(out)


def _other_points(std: Standings, entry: str | None, round_no: int) -> str:
    if entry is None:
        return "-"
    res = next((x for x in std.row(entry).rounds if x.round_no == round_no), None)
    return "-" if res is None else str(res.points)


def standings_json(ev: Competition, std: Standings) -> list[dict[str, Any]]:
    return [{"rank": r.rank, "shared": r.shared, "entry": r.name, "players": ev.names(r.entry),
             "match_points": r.match_points, "net_levels": r.net_levels,
             "total_levels": r.total_levels, "rounds_won": r.rounds_won,
             "progressive_cut1": r.progressive_cut1, "played": r.played} for r in std.rows]


def publish(conn: psycopg.Connection, comp_id: int, round_no: int, director: str) -> int:
    """Publish a closed round as the next version; the version number."""
    ev = load(conn, comp_id)
    r = ev.round(round_no)
    if r.state != "closed":
        raise ActionError(f"round {round_no} is {r.state}: close it before publishing")
    std = standings(ev, round_no)
    if any(mid.startswith(f"r{round_no}-") for mid in std.pending):
        raise ActionError(f"round {round_no} has tables without a result: enter them or adjust "
                          "(walkover, forfeit) before publishing")
    text = export_round(ev, round_no)
    hands = export_hands(ev, round_no)
    body = json.dumps(standings_json(ev, std), ensure_ascii=False, sort_keys=True)
    with conn.transaction():
        prev = conn.execute("SELECT version, results_export, hands_export FROM publications"
                            " WHERE round_id = %s ORDER BY version DESC LIMIT 1 FOR UPDATE",
                            (r.round_id,)).fetchone()
        version = 1 if prev is None else int(prev[0]) + 1
        diff = "" if prev is None else "\n".join(difflib.unified_diff(
            (prev[1] + "\n" + prev[2]).splitlines(), (text + "\n" + hands).splitlines(),
            f"round {round_no} v{prev[0]}", f"round {round_no} v{version}", lineterm=""))
        conn.execute(
            "INSERT INTO publications (comp_id, round_id, version, correction_until, director,"
            " standings, results_export, hands_export, diff_from_prev) VALUES (%s,%s,%s,"
            " now() + make_interval(mins => %s), %s,%s,%s,%s,%s)",
            (comp_id, r.round_id, version, ev.correction_minutes, director, body, text, hands, diff))
        conn.execute("UPDATE rounds SET state = 'published' WHERE round_id = %s", (r.round_id,))
    return version
