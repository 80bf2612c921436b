"""The player list from a CSV file, all or nothing.

One line per player::

    entry,kind,pair,name,member_no,club
    East Wind,pair,,Li Wei,1001,Riverside
    East Wind,pair,,Wang Fang,1002,Riverside
    Dragons,team,1,Zhang San,2001,Harbour
    ...

``entry`` and ``name`` are required; ``kind`` is ``pair`` (the default) or ``team``; a team
names each player's partnership in ``pair`` (1, 2, …: two players each). Chinese headers
(组合, 类型, 对, 姓名, 会员号, 俱乐部) are accepted too. Every problem is reported with its line
and field, and a file with any problem gives nothing: the caller applies a :class:`Roster`
whole or not at all.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from .model import Entry, Player

MAX_BYTES = 1_000_000
MAX_ROWS = 4000
MAX_FIELD = 100

COLUMNS = ("entry", "kind", "pair", "name", "member_no", "club")
ALIASES = {
    "组合": "entry", "参赛队": "entry", "队名": "entry", "类型": "kind", "对": "pair",
    "姓名": "name", "名字": "name", "会员号": "member_no", "俱乐部": "club",
    "member": "member_no", "member number": "member_no", "team": "entry",
}
REQUIRED = ("entry", "name")


@dataclass(frozen=True)
class Problem:
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "file"
        return f"{where}, {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class CsvError(ValueError):
    """The file was not imported; ``problems`` lists every line and field at fault."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        shown = "; ".join(str(p) for p in self.problems[:20])
        more = f" (and {len(self.problems) - 20} more)" if len(self.problems) > 20 else ""
        super().__init__(f"player list not imported, nothing changed: {shown}{more}")


@dataclass(frozen=True)
class Roster:
    players: tuple[Player, ...]
    entries: tuple[Entry, ...]


def parse_roster(data: bytes | str) -> Roster:
    """A :class:`Roster` from CSV text (UTF-8, with or without a BOM), or :class:`CsvError`."""
    if isinstance(data, bytes):
        if len(data) > MAX_BYTES:
            raise CsvError([Problem(0, "", f"the file is larger than {MAX_BYTES // 1000} kB")])
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = data[: e.start].count(b"\n") + 1
            raise CsvError([Problem(line, "", "is not UTF-8 text; save the file as UTF-8 CSV")]) from None
    else:
        text = data.removeprefix("\ufeff")
    if "\x00" in text:
        raise CsvError([Problem(0, "", "holds NUL bytes: is this a spreadsheet, not a CSV?")])
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    problems: list[Problem] = []
    try:
        rows = list(reader)
    except csv.Error as e:
        raise CsvError([Problem(reader.line_num, "", f"not valid CSV ({e})")]) from None
    if not rows:
        raise CsvError([Problem(0, "", "is empty; the first line names the columns: " + ",".join(COLUMNS))])
    if len(rows) > MAX_ROWS + 1:
        raise CsvError([Problem(0, "", f"has more than {MAX_ROWS} players")])
    header = [ALIASES.get(h.strip().lower(), ALIASES.get(h.strip(), h.strip().lower())) for h in rows[0]]
    for i, h in enumerate(header):
        if h not in COLUMNS:
            problems.append(Problem(1, rows[0][i].strip() or f"column {i + 1}",
                                    f"unknown column; use {', '.join(COLUMNS)}"))
        elif header.index(h) != i:
            problems.append(Problem(1, h, "the column is named twice"))
    for r in REQUIRED:
        if r not in header:
            problems.append(Problem(1, r, "the column is missing"))
    if problems:
        raise CsvError(problems)
    col = {h: i for i, h in enumerate(header)}

    players: dict[str, Player] = {}
    player_line: dict[str, int] = {}
    by_name_no_member: dict[str, int] = {}
    entry_kind: dict[str, tuple[str, int]] = {}
    entry_members: dict[str, list[tuple[int, str, int]]] = {}  # entry -> (pair no, pid, line)
    player_entry: dict[str, str] = {}
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            problems.append(Problem(n, "", f"has {len(row)} fields, the header {len(header)}"))
            continue
        v = {h: row[i].strip() for h, i in col.items()}
        bad = False
        for h, text in v.items():
            if len(text) > MAX_FIELD:
                problems.append(Problem(n, h, f"is longer than {MAX_FIELD} characters"))
                bad = True
            elif any(ord(c) < 32 for c in text):
                problems.append(Problem(n, h, "holds a control character"))
                bad = True
        for r in REQUIRED:
            if not v.get(r):
                problems.append(Problem(n, r, "is empty"))
                bad = True
        kind = (v.get("kind") or "pair").lower()
        if kind not in ("pair", "team", "对", "队"):
            problems.append(Problem(n, "kind", f"{v.get('kind')!r} is not pair or team"))
            bad = True
        kind = {"对": "pair", "队": "team"}.get(kind, kind)
        pair_no = 1
        if kind == "team":
            p = v.get("pair", "")
            if not p.isdigit() or not 1 <= int(p) <= 50:
                problems.append(Problem(n, "pair", f"{p!r}: a team player needs a pair number 1..50"))
                bad = True
            else:
                pair_no = int(p)
        if bad:
            continue
        entry, name = v["entry"], v["name"]
        member = v.get("member_no", "")
        pid = f"#{member}" if member else name
        prev_kind = entry_kind.setdefault(entry, (kind, n))
        if prev_kind[0] != kind:
            problems.append(Problem(n, "kind", f"{entry} is a {prev_kind[0]} on line {prev_kind[1]}"))
            continue
        if pid in players:
            old = players[pid]
            what = (f"member number {member} is already {old.name}" if member and old.name != name
                    else f"{name} is already listed")
            problems.append(Problem(n, "member_no" if member else "name",
                                    f"{what} on line {player_line[pid]}"))
            continue
        if not member:
            if name in by_name_no_member:
                problems.append(Problem(n, "name", f"{name} is already listed on line "
                                        f"{by_name_no_member[name]}; give member numbers to tell "
                                        "two players of one name apart"))
                continue
            by_name_no_member[name] = n
        players[pid] = Player(pid, name, member, v.get("club", ""))
        player_line[pid] = n
        player_entry[pid] = entry
        entry_members.setdefault(entry, []).append((pair_no, pid, n))

    entries: list[Entry] = []
    for entry, members in entry_members.items():
        kind, first = entry_kind[entry]
        by_pair: dict[int, list[str]] = {}
        for pair_no, pid, _ in members:
            by_pair.setdefault(pair_no, []).append(pid)
        bad_pairs = [(k, ps) for k, ps in sorted(by_pair.items()) if len(ps) != 2]
        if kind == "pair" and len(members) != 2:
            problems.append(Problem(first, "entry", f"pair {entry} has {len(members)} players, "
                                    "a pair needs exactly 2"))
            continue
        if kind == "team":
            if bad_pairs:
                for k, ps in bad_pairs:
                    problems.append(Problem(first, "pair", f"team {entry} pair {k} has {len(ps)} "
                                            "players, a pair needs exactly 2"))
                continue
            if len(by_pair) < 2:
                problems.append(Problem(first, "entry", f"team {entry} has one pair; a team has "
                                        "two or more (or make it a pair)"))
                continue
        pairs = tuple((ps[0], ps[1]) for _, ps in sorted(by_pair.items()))
        entries.append(Entry(entry, entry, kind, pairs))
    if problems:
        raise CsvError(sorted(problems, key=lambda p: p.line))
    if not entries:
        raise CsvError([Problem(0, "", "lists no players")])
    return Roster(tuple(players.values()), tuple(entries))


def roster_csv(roster: Roster) -> str:
    """The roster back as CSV in the import form (``parse_roster`` reads it back equal)."""
    by_id = {p.player_id: p for p in roster.players}
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for e in roster.entries:
        for k, (p, q) in enumerate(e.pairs, start=1):
            for pid in (p, q):
                pl = by_id[pid]
                w.writerow([e.name, e.kind, k if e.kind == "team" else "", pl.name,
                            pl.member_no, pl.club])
    return out.getvalue()
