"""Seating: a round's meetings bound to tables and seats.

Side 0 of a table is seats 0 and 2, side 1 seats 1 and 3 (partners sit opposite). A pair
meeting takes one table; a team meeting takes one table per pair, the two teams' pairs
alternating sides from table to table, so a team's members sit at different tables in
different positions (the FCG team rule, docs/competition.md, "Entries").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .model import CompetitionError, Entry, TableMatch
from .pairing import Pairing


class SeatingError(CompetitionError):
    """A seating that cannot stand: a seat taken twice, a player or pair at two tables."""


@dataclass(frozen=True)
class Seat:
    table: str
    seat: int
    entry: str
    player: str


def seat_round(pairing: Pairing, entries: Mapping[str, Entry],
               tables: Sequence[str]) -> list[Seat]:
    """Seats for every meeting of ``pairing``, filling ``tables`` in order."""
    seats: list[Seat] = []
    free = list(tables)
    if len(set(free)) != len(free):
        raise SeatingError("a table is listed twice")
    for a_id, b_id in pairing.meetings:
        try:
            a, b = entries[a_id], entries[b_id]
        except KeyError as e:
            raise SeatingError(f"entry {e.args[0]!r} is not in the competition") from None
        if a.tables != b.tables:
            raise SeatingError(
                f"{a.name} ({a.tables} pairs) cannot meet {b.name} ({b.tables} pairs): "
                "teams of one meeting need the same number of pairs"
            )
        if len(free) < a.tables:
            need = sum(entries[x].tables for x, _ in pairing.meetings)
            raise SeatingError(
                f"round {pairing.round_no} needs {need} tables, only {len(tables)} are set up; "
                "add tables or give an entry a bye"
            )
        for j in range(a.tables):
            table = free.pop(0)
            s0, s1 = (a, b) if j % 2 == 0 else (b, a)
            for side, ent in ((0, s0), (1, s1)):
                p, q = ent.pairs[j]
                seats.append(Seat(table, side, ent.entry_id, p))
                seats.append(Seat(table, side + 2, ent.entry_id, q))
    check_seating(seats, entries)
    return seats


def check_seating(seats: Iterable[Seat], entries: Mapping[str, Entry]) -> None:
    """Raise :class:`SeatingError` for a seat given twice, a player at two seats, a pair
    split over two tables or over two sides, a table with other than two entries."""
    by_seat: dict[tuple[str, int], Seat] = {}
    by_player: dict[str, Seat] = {}
    sides: dict[tuple[str, int], str] = {}
    for s in seats:
        if not 0 <= s.seat <= 3:
            raise SeatingError(f"table {s.table}: seat {s.seat} does not exist (0..3)")
        ent = entries.get(s.entry)
        if ent is None:
            raise SeatingError(f"table {s.table}: entry {s.entry!r} is not in the competition")
        if s.player not in ent.members:
            raise SeatingError(f"table {s.table}: player {s.player!r} is not in {ent.name}")
        prev = by_seat.get((s.table, s.seat))
        if prev is not None:
            raise SeatingError(
                f"table {s.table} seat {s.seat} is given twice ({prev.player} and {s.player}); "
                "clear one of them first"
            )
        by_seat[(s.table, s.seat)] = s
        other = by_player.get(s.player)
        if other is not None:
            raise SeatingError(
                f"player {s.player} is seated twice (table {other.table} seat {other.seat} "
                f"and table {s.table} seat {s.seat})"
            )
        by_player[s.player] = s
        side = sides.setdefault((s.table, s.seat % 2), s.entry)
        if side != s.entry:
            raise SeatingError(f"table {s.table}: partners of two entries on one side")
    for s in by_player.values():
        ent = entries[s.entry]
        partner = next(q if p == s.player else p for p, q in ent.pairs if s.player in (p, q))
        ps = by_player.get(partner)
        if ps is not None and (ps.table != s.table or ps.seat != (s.seat + 2) % 4):
            raise SeatingError(
                f"{s.player} and partner {partner} must sit opposite at one table "
                f"(now table {s.table} seat {s.seat}, table {ps.table} seat {ps.seat})"
            )


def matches_of(round_no: int, seats: Iterable[Seat], prefix: str = "") -> list[TableMatch]:
    """One not-yet-played match per seated table, side 0 the entry in seat 0."""
    by_table: dict[str, dict[int, str]] = {}
    for s in seats:
        by_table.setdefault(s.table, {})[s.seat] = s.entry
    out = []
    for table in sorted(by_table):
        seat = by_table[table]
        if 0 not in seat or 1 not in seat:
            raise SeatingError(f"table {table}: both sides need an entry")
        out.append(TableMatch(f"{prefix}r{round_no}-{table}", round_no, table, (seat[0], seat[1]),
                         status="not_played"))
    return out
