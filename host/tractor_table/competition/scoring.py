"""A competition's scoring as data: the level ladder, match points, walkovers, tie-breaks.

Every event converts a match's level difference into match points its own way (docs/competition.md,
"Scoring"): win/draw/loss 3/1/0, or a base of 15 plus or minus the level difference capped at
10 with a walkover worth 18. A :class:`Scoring` holds one such conversion and the order of the
tie-break chain; it round-trips through a plain dict (``to_dict``/``from_dict``) so the club
server can keep it as JSON beside the competition, and every field is checked on the way in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from shengji.cards import Rank

#: The tie-break criteria a chain may list, best first (docs/competition.md, "Tie-breaks").
TIE_BREAKS: Final = (
    "match_points",  # 总积分: the sum of match points
    "net_levels",  # 净胜级数 / 级差分总和: the sum of (capped) level differences
    "total_levels",  # 升级数: the levels the entry itself gained
    "rounds_won",  # 胜轮次: meetings won (a walkover or a bye counts as won)
    "progressive_cut1",  # 去首累进分: running match-point totals summed, first round dropped
    "buchholz",  # opponents' match points summed (a bye adds nothing)
    "lots",  # 抽签: a reproducible draw from the competition's seed
)

TIE_BREAK_NAMES: Final = {
    "en": {
        "match_points": "match points",
        "net_levels": "net levels",
        "total_levels": "levels gained",
        "rounds_won": "rounds won",
        "progressive_cut1": "progressive (first round dropped)",
        "buchholz": "opponents' points",
        "lots": "lots",
    },
    "zh": {
        "match_points": "总积分",
        "net_levels": "净胜级数",
        "total_levels": "升级数",
        "rounds_won": "胜轮次",
        "progressive_cut1": "去首累进分",
        "buchholz": "对手分",
        "lots": "抽签",
    },
}

METHODS: Final = ("wdl", "base")
TEAM_COMBINE: Final = ("levels", "points")

TOURNAMENT_LADDER: Final = (
    Rank.TWO, Rank.FIVE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE,
)
FULL_LADDER: Final = tuple(Rank)


class ScoringError(ValueError):
    """A scoring field that cannot be used: names the field and what to write instead."""

    def __init__(self, field_name: str, problem: str) -> None:
        super().__init__(f"scoring {field_name}: {problem}")
        self.field = field_name
        self.problem = problem


@dataclass(frozen=True)
class Scoring:
    """How matches become match points and how equal totals are separated.

    ``method`` ``"wdl"``: the side with the higher level (or the one that passed the top of
    the ladder) wins ``win`` points, the other ``loss``; equal levels ``draw`` each.
    ``method`` ``"base"``: each side gets ``base`` plus its level difference, the difference
    capped at ``cap`` (the 15 ± 10 of docs/competition.md). A walkover gives the side that came
    ``walkover_win`` and the absent side ``walkover_loss``, and credits ``walkover_levels``
    of level difference; a bye is worth ``bye`` points and counts as a round won.
    ``team_combine`` says how a team's tables add up in one meeting: ``"levels"`` sums the
    tables' level differences and converts once, ``"points"`` converts each table and sums.
    """

    ladder: tuple[Rank, ...] = TOURNAMENT_LADDER
    method: str = "wdl"
    win: int = 3
    draw: int = 1
    loss: int = 0
    base: int = 15
    cap: int | None = 10
    walkover_win: int = 3
    walkover_loss: int = 0
    walkover_levels: int = 0
    bye: int = 3
    tie_breaks: tuple[str, ...] = ("match_points", "net_levels", "total_levels", "lots")
    team_combine: str = "levels"
    lots_seed: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.ladder, tuple) or len(self.ladder) < 2:
            raise ScoringError("ladder", "needs at least two levels, lowest first")
        if not all(isinstance(r, Rank) for r in self.ladder):
            raise ScoringError("ladder", "lists something that is not a rank")
        if list(self.ladder) != sorted(set(self.ladder)):
            raise ScoringError("ladder", "must rise strictly, each level once (e.g. 2 5 T J Q K A)")
        if self.method not in METHODS:
            raise ScoringError("method", f"{self.method!r} is not one of {', '.join(METHODS)}")
        for name in ("win", "draw", "loss", "base", "walkover_win", "walkover_loss",
                     "walkover_levels", "bye", "lots_seed"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool):
                raise ScoringError(name, f"must be a whole number, not {v!r}")
            if name != "lots_seed" and not -1000 <= v <= 1000:
                raise ScoringError(name, f"{v} is out of range (-1000..1000)")
        if self.cap is not None and (
            not isinstance(self.cap, int) or isinstance(self.cap, bool) or not 1 <= self.cap <= 100
        ):
            raise ScoringError("cap", f"must be a whole number 1..100 or none, not {self.cap!r}")
        if self.method == "wdl" and not self.win >= self.draw >= self.loss:
            raise ScoringError("win", "a win must be worth at least a draw, a draw a loss")
        if self.walkover_win < self.walkover_loss:
            raise ScoringError("walkover_win", "must be worth at least walkover_loss")
        if not isinstance(self.tie_breaks, tuple) or not self.tie_breaks:
            raise ScoringError("tie_breaks", "needs at least one criterion")
        for t in self.tie_breaks:
            if t not in TIE_BREAKS:
                raise ScoringError(
                    "tie_breaks", f"{t!r} is not a criterion; use any of {', '.join(TIE_BREAKS)}"
                )
        if len(set(self.tie_breaks)) != len(self.tie_breaks):
            raise ScoringError("tie_breaks", "lists a criterion twice")
        if "lots" in self.tie_breaks and self.tie_breaks[-1] != "lots":
            raise ScoringError("tie_breaks", "lots can only come last (it separates everyone)")
        if self.team_combine not in TEAM_COMBINE:
            raise ScoringError(
                "team_combine", f"{self.team_combine!r} is not one of {', '.join(TEAM_COMBINE)}"
            )

    # -- the ladder -------------------------------------------------------------------

    @property
    def top(self) -> int:
        """The position of a side that passed the top level (one beyond the last)."""
        return len(self.ladder)

    def position(self, level: int) -> int:
        """A level (a :class:`Rank` number, 2=0 … A=12) as its step on the ladder."""
        try:
            return self.ladder.index(Rank(level))
        except ValueError:
            raise ScoringError(
                "ladder",
                f"level {Rank(level).letter if 0 <= level <= 12 else level} is not on the ladder "
                f"({' '.join(r.letter for r in self.ladder)}): the match was played under other "
                "rules; fix the competition's ladder or the table's rules",
            ) from None

    def capped(self, diff: int) -> int:
        if self.cap is None:
            return diff
        return max(-self.cap, min(self.cap, diff))

    # -- match points -----------------------------------------------------------------

    def points(self, diff: int) -> tuple[int, int]:
        """TableMatch points of (this side, the other side) for a level difference ``diff``
        (already summed over a team's tables when ``team_combine`` is ``"levels"``)."""
        if self.method == "base":
            d = self.capped(diff)
            return (self.base + d, self.base - d)
        if diff > 0:
            return (self.win, self.loss)
        if diff < 0:
            return (self.loss, self.win)
        return (self.draw, self.draw)

    # -- as data ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "extra":
                continue
            v = getattr(self, f.name)
            if f.name == "ladder":
                v = [r.letter for r in v]
            elif f.name == "tie_breaks":
                v = list(v)
            out[f.name] = v
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scoring:
        """A scoring from JSON-shaped data: ``{"preset": "wuxi", "cap": 8}`` starts from a
        preset and overrides fields; unknown keys are an error (a typo must not be ignored)."""
        if not isinstance(data, Mapping):
            raise ScoringError("scoring", "must be an object of fields")
        data = dict(data)
        preset = data.pop("preset", None)
        start = PRESETS.get(preset) if isinstance(preset, str) else None
        if preset is not None and start is None:
            raise ScoringError("preset", f"{preset!r} is not one of {', '.join(PRESETS)}")
        names = {f.name for f in fields(cls)} - {"extra"}
        kw: dict[str, Any] = {}
        for key, v in data.items():
            if key not in names:
                raise ScoringError(str(key), f"is not a scoring field; use any of {', '.join(sorted(names))}")
            if key == "ladder":
                if not isinstance(v, (list, tuple)):
                    raise ScoringError("ladder", "must be a list of levels such as [2, 5, T, J, Q, K, A]")
                try:
                    v = tuple(Rank.parse(str(x)) for x in v)
                except ValueError as e:
                    raise ScoringError("ladder", str(e)) from None
            elif key == "tie_breaks":
                if not isinstance(v, (list, tuple)):
                    raise ScoringError("tie_breaks", "must be a list of criteria")
                v = tuple(str(x) for x in v)
            kw[key] = v
        base = start if start is not None else cls()
        return replace(base, **kw)


#: Real events' conversions (docs/competition.md, "Scoring"; the sources are in its table).
PRESETS: Final[dict[str, Scoring]] = {
    # win 3 / draw 1 / loss 0, then net levels, total levels, lots (an internal club event)
    "club": Scoring(),
    # 广西勘察设计协会 2019: base 15 ± levels capped at 10, walkover 18 (= +3 levels)
    "guangxi": Scoring(
        method="base", base=15, cap=10, walkover_win=18, walkover_loss=12, walkover_levels=3,
        bye=18, tie_breaks=("match_points", "net_levels", "total_levels", "lots"),
    ),
    # 2022 无锡 掼蛋 5 rounds: points, first-round-dropped progressive, rounds won,
    # level differences, levels gained, lots
    "wuxi": Scoring(
        method="wdl", win=2, draw=1, loss=0, walkover_win=2, bye=2,
        tie_breaks=("match_points", "progressive_cut1", "rounds_won", "net_levels",
                    "total_levels", "lots"),
    ),
}
