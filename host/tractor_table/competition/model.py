"""The facts of a competition: players, entries, table matches, adjustments.

These are the things the club server stores; everything else (meetings, match points,
standings) is derived from them by :mod:`.standings`. An entry is a pair (two partners at
one table) or a team (two or more pairs, each pair at a different table, their results
added up, as the FCG team rules say; docs/competition.md, "Entries").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

ENTRY_KINDS: Final = ("pair", "team")
MATCH_STATUSES: Final = ("finished", "playing", "not_played")
ADJUSTMENT_KINDS: Final = ("score", "level", "penalty", "forfeit", "walkover", "revoke")

ADJUSTMENT_NAMES: Final = {
    "en": {"score": "score", "level": "level", "penalty": "penalty", "forfeit": "forfeit",
           "walkover": "walkover", "revoke": "revoked"},
    "zh": {"score": "改分", "level": "改级", "penalty": "罚分", "forfeit": "弃权",
           "walkover": "不战而胜", "revoke": "撤销"},
}


class CompetitionError(ValueError):
    """A fact that cannot be accepted, with what was wrong and what to do."""


@dataclass(frozen=True)
class Player:
    player_id: str
    name: str
    member_no: str = ""
    club: str = ""


@dataclass(frozen=True)
class Entry:
    """A pair or a team. ``pairs`` lists the partnerships, each two player ids; a pair entry
    has exactly one, a team two or more (each sits at its own table in a meeting)."""

    entry_id: str
    name: str
    kind: str
    pairs: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        if self.kind not in ENTRY_KINDS:
            raise CompetitionError(f"entry {self.name!r}: kind {self.kind!r} is not pair or team")
        if self.kind == "pair" and len(self.pairs) != 1:
            raise CompetitionError(f"entry {self.name!r}: a pair has exactly two players")
        if self.kind == "team" and len(self.pairs) < 2:
            raise CompetitionError(
                f"entry {self.name!r}: a team has at least two pairs (four players)"
            )
        members = [p for pair in self.pairs for p in pair]
        if len(set(members)) != len(members):
            raise CompetitionError(f"entry {self.name!r}: a player is listed twice")

    @property
    def members(self) -> tuple[str, ...]:
        return tuple(p for pair in self.pairs for p in pair)

    @property
    def tables(self) -> int:
        """Tables the entry fills in one meeting: one per pair."""
        return len(self.pairs)


@dataclass(frozen=True)
class TableMatch:
    """One table in one round: ``entries`` (side 0 in seats 0 and 2, side 1 in seats 1 and
    3), and when ``status`` is ``"finished"`` each side's final level (a rank number,
    2=0 … A=12) and the side that passed the top of the ladder, if one did. A bye is a match
    whose second entry is ``None``. The teams of a team meeting play several matches with
    the same two entries in the same round, one per table."""

    match_id: str
    round_no: int
    table: str
    entries: tuple[str, str | None]
    status: str = "finished"
    levels: tuple[int, int] | None = None
    passed: int | None = None
    deals: int = 0

    def __post_init__(self) -> None:
        if self.status not in MATCH_STATUSES:
            raise CompetitionError(f"match {self.match_id}: status {self.status!r} is unknown")
        if self.round_no < 1:
            raise CompetitionError(f"match {self.match_id}: rounds are numbered from 1")
        a, b = self.entries
        if a == b:
            raise CompetitionError(f"match {self.match_id}: an entry cannot meet itself")
        if b is not None and self.status == "finished":
            if self.levels is None:
                raise CompetitionError(f"match {self.match_id}: a finished match needs its levels")
            if self.passed not in (None, 0, 1):
                raise CompetitionError(f"match {self.match_id}: passed is side 0, 1 or none")

    @property
    def is_bye(self) -> bool:
        return self.entries[1] is None


@dataclass(frozen=True)
class Adjustment:
    """A director's correction, append-only: a later row with ``kind="revoke"`` and
    ``revokes`` = this row's id takes it back. ``score``/``penalty``: ``value`` match points
    added to (``penalty``: taken from) ``entry`` in the round of ``match_id``; ``level``:
    ``value`` steps on the ladder added to ``entry``'s final level at that table; ``forfeit``:
    ``entry`` forfeits the meeting of ``match_id`` (the other side wins by walkover);
    ``walkover``: ``entry`` is awarded the meeting by walkover."""

    adj_id: int
    kind: str
    match_id: str | None = None
    entry: str | None = None
    value: int = 0
    revokes: int | None = None
    reason: str = ""
    director: str = ""


def check_adjustments(
    adjustments: Iterable[Adjustment], matches: Iterable[TableMatch]
) -> None:
    """Raise :class:`CompetitionError` for the first adjustment that cannot apply: an unknown
    kind, a match or entry that does not exist, a revoke of nothing or of a revoke, a row
    revoked twice, an adjustment without a reason."""
    by_id = {m.match_id: m for m in matches}
    seen: dict[int, Adjustment] = {}
    revoked: set[int] = set()
    for a in sorted(adjustments, key=lambda a: a.adj_id):
        where = f"adjustment {a.adj_id}"
        if a.adj_id in seen:
            raise CompetitionError(f"{where}: the id is used twice")
        if a.kind not in ADJUSTMENT_KINDS:
            raise CompetitionError(
                f"{where}: kind {a.kind!r} is not one of {', '.join(ADJUSTMENT_KINDS)}"
            )
        if not a.reason.strip():
            raise CompetitionError(f"{where}: give a reason (it is shown on the score sheet)")
        if a.kind == "revoke":
            target = seen.get(a.revokes) if a.revokes is not None else None
            if target is None:
                raise CompetitionError(f"{where}: revokes {a.revokes}, which is not an earlier adjustment")
            if target.kind == "revoke":
                raise CompetitionError(f"{where}: a revoke cannot be revoked; enter the adjustment again")
            if target.adj_id in revoked:
                raise CompetitionError(f"{where}: adjustment {target.adj_id} is already revoked")
            revoked.add(target.adj_id)
        else:
            m = by_id.get(a.match_id) if a.match_id is not None else None
            if m is None:
                raise CompetitionError(f"{where}: match {a.match_id!r} does not exist")
            if a.entry not in m.entries or a.entry is None:
                raise CompetitionError(f"{where}: entry {a.entry!r} did not play match {m.match_id}")
            if m.is_bye and a.kind in ("level", "forfeit", "walkover"):
                raise CompetitionError(f"{where}: a bye has no opponent; use a score adjustment")
            if a.kind in ("score", "penalty", "level") and a.value == 0:
                raise CompetitionError(f"{where}: a {a.kind} adjustment needs a value other than 0")
            if a.kind == "penalty" and a.value < 0:
                raise CompetitionError(f"{where}: a penalty is a positive number of points taken")
            if a.kind == "level" and m.status != "finished":
                raise CompetitionError(f"{where}: the match has no result to adjust; use walkover or forfeit")
        seen[a.adj_id] = a
