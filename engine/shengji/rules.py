"""The rule options of docs/rules.md (§0) as one immutable, validated value.

:class:`Rules` holds every option docs/rules.md names (§0, each described in
its section), with the default of the classic two-deck game. Named presets
give the variants of the sources (docs/rules.md §0, "Presets")::

    >>> Rules.preset("tournament").throw_penalty
    10
    >>> Rules.preset("onedeck", decks=2)
    Traceback (most recent call last):
    ...
    shengji.rules.InvalidRulesError: level_table: 'onedeck' is the one-deck table (docs/rules.md §8.4) but decks=2

The level being played and the trump suit change every hand, so they are not
options: they live in :class:`shengji.order.Order` (the card order of one
hand), built from a ``Rules`` plus ``level`` and ``trump``.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from typing import Any, Final

from .cards import MAX_DECKS, Rank

__all__ = [
    "OPTIONS",
    "PRESETS",
    "FirstDealer",
    "InvalidRulesError",
    "KittyMultiplier",
    "LevelLadder",
    "LevelTable",
    "NoBid",
    "Option",
    "OptionKind",
    "Partners",
    "Revoke",
    "Rules",
]


class InvalidRulesError(ValueError):
    """A rule option with a bad value, or options that cannot go together.

    ``option`` names the option at fault (``"decks"``, ``"level_table"``, …).
    """

    def __init__(self, option: str, why: str) -> None:
        super().__init__(f"{option}: {why}")
        self.option = option
        self.why = why


class _Option(enum.StrEnum):
    """An option with named string values; ``repr`` pastes back as code."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class KittyMultiplier(_Option):
    """How the kitty bonus multiplier follows the last lead's top unit (docs/rules.md §8.3)."""

    STRUCTURE = "structure"  #: 2 * m ** k (the classic rule)
    LINEAR = "linear"  #: 2 * m * k (QQ game rooms)
    CARDS = "cards"  #: 4 * m * k, four times the unit's cards (Xuwen)


class LevelTable(_Option):
    """Which settling table turns the attackers' score into levels (docs/rules.md §8.4)."""

    CLASSIC = "classic"
    LIANZHONG = "lianzhong"
    QQ = "qq"
    TOURNAMENT = "tournament"
    ONEDECK = "onedeck"
    XUWEN = "xuwen"


class LevelLadder(_Option):
    """The levels a side climbs: every rank, or 2 5 T J Q K A (docs/rules.md §8.6)."""

    FULL = "full"
    TOURNAMENT = "tournament"

    @property
    def levels(self) -> tuple[Rank, ...]:
        if self is LevelLadder.FULL:
            return tuple(Rank)
        return (Rank.TWO, Rank.FIVE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)


class NoBid(_Option):
    """What happens when nobody declared by the end of the draw (not on the first hand;
    docs/rules.md §8.1)."""

    NT = "nt"  #: play without a trump suit
    KITTY = "kitty"  #: the first kitty card's suit is trump


class FirstDealer(_Option):
    """Who deals the match's first hand: the first declarer or the final one (docs/rules.md §8.1)."""

    FIRST = "first"
    FINAL = "final"


class Partners(_Option):
    """Fixed partnerships (seats i and i+2) or find-a-friend (docs/rules.md §9)."""

    FIXED = "fixed"
    CALLED = "called"


class Revoke(_Option):
    """What a revoke costs: a report (``flag``) or the hand (``forfeit``; docs/rules.md §10.3)."""

    FLAG = "flag"
    FORFEIT = "forfeit"


_ENUMS: Final[dict[str, type[enum.StrEnum]]] = {
    "kitty_multiplier": KittyMultiplier,
    "level_table": LevelTable,
    "level_ladder": LevelLadder,
    "no_bid": NoBid,
    "first_dealer": FirstDealer,
    "partners": Partners,
    "revoke": Revoke,
}

class OptionKind(enum.StrEnum):
    """How an option's value is written (in :meth:`Rules.to_dict`, ``table.cfg`` and a case)."""

    INT = "int"  #: a whole number in ``low .. high`` (``high`` -1: no bound), a multiple of ``step``
    FLAG = "flag"  #: true or false
    CHOICE = "choice"  #: one of ``values``, by name
    LEVELS = "levels"  #: a set of levels (2 ... A), written as letters


@dataclasses.dataclass(frozen=True, slots=True)
class Option:
    """One rule option as every reader of options sees it: its name, kind, values,
    default (a plain value, as :meth:`Rules.to_dict` gives it) and the section of
    docs/rules.md that describes it.

    :data:`OPTIONS` is the schema: the table's reader of ``table.cfg``
    (``firmware/ruleopts.py``, generated from it), the host's codec
    (:mod:`tractor_table.rulescodec`) and the docs check follow it. A choice's
    device number is its index in ``values``.
    """

    name: str
    kind: OptionKind
    default: Any
    section: str
    what: str
    values: tuple[str, ...] = ()
    low: int = 0
    high: int = -1
    step: int = 1


def _choice(name: str, kind: type[enum.StrEnum], default: enum.StrEnum, section: str, what: str) -> Option:
    return Option(name, OptionKind.CHOICE, default.value, section, what, tuple(m.value for m in kind))


def _flag(name: str, default: bool, section: str, what: str) -> Option:
    return Option(name, OptionKind.FLAG, default, section, what)


#: The schema: every option of :class:`Rules`, in its field order (the order of
#: the table's rules digest, docs/protocol.md), with the section of
#: docs/rules.md that describes it (docs/rules.md §0, "Options at a glance").
OPTIONS: Final[tuple[Option, ...]] = (
    Option("decks", OptionKind.INT, 2, "§1", "cards in play, hand and kitty sizes", low=1, high=MAX_DECKS),
    _flag("permanent_twos", False, "§2", "every 2 is trump"),
    _flag("same_shape_only", False, "§6.3", "following: same shape or anything"),
    Option("throw_penalty", OptionKind.INT, 0, "§5.2", "cost of a failed throw", low=0, step=5),
    _choice("kitty_multiplier", KittyMultiplier, KittyMultiplier.STRUCTURE, "§8.3", "kitty bonus multiplier"),
    _flag("kitty_requires_trump", False, "§8.3", "bonus only when the last trick was won with trump"),
    _choice("level_table", LevelTable, LevelTable.CLASSIC, "§8.4", "score → levels"),
    _choice("level_ladder", LevelLadder, LevelLadder.FULL, "§8.6", "which levels exist"),
    Option("must_play", OptionKind.LEVELS, [], "§8.6", "levels a side must stop at"),
    _flag("allow_self_override", True, "§8.1", "may the declarer re-declare another suit"),
    _choice("no_bid", NoBid, NoBid.NT, "§8.1", "what happens when nobody declares"),
    _choice("first_dealer", FirstDealer, FirstDealer.FIRST, "§8.1", "who deals the match's first hand"),
    _choice("partners", Partners, Partners.FIXED, "§9", "fixed partners or find-a-friend"),
    _flag("hand_scan", False, "§10", "does the table see every hand"),
    _choice("revoke", Revoke, Revoke.FLAG, "§10.3", "what a revoke costs"),
)
_BOOLS: Final = tuple(o.name for o in OPTIONS if o.kind is OptionKind.FLAG)


#: Decks a level table is written for (``None``: any number of decks).
_TABLE_DECKS: Final[dict[LevelTable, tuple[int, str] | None]] = {
    LevelTable.CLASSIC: None,
    LevelTable.LIANZHONG: None,
    LevelTable.QQ: None,
    LevelTable.TOURNAMENT: (2, "the two-deck tournament table (docs/rules.md §8.4)"),
    LevelTable.ONEDECK: (1, "the one-deck table (docs/rules.md §8.4)"),
    LevelTable.XUWEN: (4, "the four-deck Xuwen table (docs/rules.md §8.4)"),
}

#: Hand and kitty sizes by decks (docs/rules.md §1).
_DEAL: Final[dict[int, tuple[int, int]]] = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}


@dataclasses.dataclass(frozen=True, slots=True)
class Rules:
    """Every option of docs/rules.md (§0), validated; immutable (use :meth:`replace`).

    Options (the section of docs/rules.md in brackets):

    - ``decks`` (§1): 1-4 decks of 54 cards.
    - ``permanent_twos`` (§2): every 2 is trump, just below the level cards.
    - ``same_shape_only`` (§6.3): followers must match a led unit's shape if they
      hold it, else anything in the suit (no pair/tractor ladder).
    - ``throw_penalty`` (§5.2): points a failed throw costs the thrower's side.
    - ``kitty_multiplier``, ``kitty_requires_trump`` (§8.3): the kitty bonus.
    - ``level_table`` (§8.4), ``level_ladder``, ``must_play`` (§8.6): settling and levels.
    - ``allow_self_override``, ``no_bid``, ``first_dealer`` (§8.1): declaring.
    - ``partners`` (§9): fixed or called (find-a-friend).
    - ``hand_scan`` (§10), ``revoke`` (§10.3): what the table sees, what a revoke costs.
    """

    decks: int = 2
    permanent_twos: bool = False
    same_shape_only: bool = False
    throw_penalty: int = 0
    kitty_multiplier: KittyMultiplier = KittyMultiplier.STRUCTURE
    kitty_requires_trump: bool = False
    level_table: LevelTable = LevelTable.CLASSIC
    level_ladder: LevelLadder = LevelLadder.FULL
    must_play: tuple[Rank, ...] = ()
    allow_self_override: bool = True
    no_bid: NoBid = NoBid.NT
    first_dealer: FirstDealer = FirstDealer.FIRST
    partners: Partners = Partners.FIXED
    hand_scan: bool = False
    revoke: Revoke = Revoke.FLAG

    def __post_init__(self) -> None:
        if not isinstance(self.decks, int) or isinstance(self.decks, bool):
            raise InvalidRulesError("decks", f"must be an int 1-{MAX_DECKS}, not {self.decks!r}")
        if not 1 <= self.decks <= MAX_DECKS:
            raise InvalidRulesError("decks", f"must be 1-{MAX_DECKS}, not {self.decks}")
        for name in _BOOLS:
            if not isinstance(getattr(self, name), bool):
                raise InvalidRulesError(name, f"must be true or false, not {getattr(self, name)!r}")
        for name, kind in _ENUMS.items():
            if not isinstance(getattr(self, name), kind):
                choices = ", ".join(repr(m.value) for m in kind)
                raise InvalidRulesError(
                    name, f"must be one of {choices}, not {getattr(self, name)!r}"
                )
        tp = self.throw_penalty
        if not isinstance(tp, int) or isinstance(tp, bool) or tp < 0 or tp % 5:
            raise InvalidRulesError(
                "throw_penalty", f"must be a multiple of 5 points, 0 or more, not {tp!r}"
            )
        if not isinstance(self.must_play, tuple) or not all(
            isinstance(r, Rank) for r in self.must_play
        ):
            raise InvalidRulesError("must_play", f"must be a tuple of Rank, not {self.must_play!r}")
        if len(set(self.must_play)) != len(self.must_play):
            raise InvalidRulesError("must_play", "lists a level twice")
        ladder = self.level_ladder.levels
        for r in self.must_play:
            if r not in ladder:
                raise InvalidRulesError(
                    "must_play",
                    f"level {r.letter} is not on the {self.level_ladder.value!r} ladder "
                    f"({' '.join(x.letter for x in ladder)}), so no side can stop there",
                )
        need = _TABLE_DECKS[self.level_table]
        if need is not None and need[0] != self.decks:
            raise InvalidRulesError(
                "level_table",
                f"{self.level_table.value!r} is {need[1]} but decks={self.decks}",
            )

    # --- derived figures -------------------------------------------------

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat (12, 25, 39, 52)."""
        return _DEAL[self.decks][0]

    @property
    def kitty_size(self) -> int:
        """Cards in the kitty (6, 8, 6, 8)."""
        return _DEAL[self.decks][1]

    @property
    def card_count(self) -> int:
        """Cards in play: 54 per deck."""
        return 54 * self.decks

    @property
    def total_points(self) -> int:
        """100 points per deck."""
        return 100 * self.decks

    @property
    def step(self) -> int:
        """The settling step, 20 points per deck (docs/rules.md §8.4)."""
        return 20 * self.decks

    @property
    def levels(self) -> tuple[Rank, ...]:
        """The levels of the ladder, lowest first."""
        return self.level_ladder.levels

    # --- construction ----------------------------------------------------

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated; strings accepted as in :meth:`from_dict`)."""
        return Rules.from_dict({**self.to_dict(), **changes})

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named preset (``classic``, ``qq``, ``lianzhong``, ``tournament``,
        ``onedeck``, ``titanic``, ``xuwen``), optionally with options changed."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise InvalidRulesError(
                "preset", f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}"
            ) from None
        return cls.from_dict({**base, **overrides})

    @classmethod
    def from_dict(cls, options: Mapping[str, Any], *, ignore: Iterable[str] = ()) -> Rules:
        """Rules from a mapping of option names to plain values (JSON-like).

        Enum options take their string value, ``must_play`` a list of level
        letters. Keys in ``ignore`` are skipped; any other unknown key is an error.
        """
        skip = set(ignore)
        fields = {f.name for f in dataclasses.fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in options.items():
            if key in skip:
                continue
            if key not in fields:
                raise InvalidRulesError(
                    key, f"unknown option; options are {', '.join(sorted(fields))}"
                )
            kwargs[key] = _coerce(key, value)
        return cls(**kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Plain values (JSON-ready), the inverse of :meth:`from_dict`."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, enum.StrEnum):
                value = value.value
            elif f.name == "must_play":
                value = [r.letter for r in value]
            out[f.name] = value
        return out

    def __repr__(self) -> str:
        changed = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                changed.append(f"{f.name}={value!r}")
        return f"Rules({', '.join(changed)})"


def _coerce(key: str, value: Any) -> Any:
    kind = _ENUMS.get(key)
    if kind is not None and isinstance(value, str) and not isinstance(value, enum.StrEnum):
        try:
            return kind(value.lower())
        except ValueError:
            choices = ", ".join(repr(m.value) for m in kind)
            raise InvalidRulesError(key, f"must be one of {choices}, not {value!r}") from None
    if key == "must_play":
        if isinstance(value, str):
            value = value.replace(",", " ").split()
        if isinstance(value, (list, tuple)):
            ranks = []
            for item in value:
                if isinstance(item, Rank):
                    ranks.append(item)
                elif isinstance(item, str):
                    try:
                        ranks.append(Rank.parse(item))
                    except ValueError:
                        raise InvalidRulesError(
                            key, f"{item!r} is not a level (2-9, T, J, Q, K, A)"
                        ) from None
                else:
                    raise InvalidRulesError(key, f"{item!r} is not a level (2-9, T, J, Q, K, A)")
            return tuple(ranks)
    return value


#: The named presets: option overrides on top of the defaults (classic);
#: docs/rules.md §0, "Presets", names each one's source.
PRESETS: Final[dict[str, dict[str, Any]]] = {
    # The classic two-deck game, every default.
    "classic": {},
    # QQ game rooms: capped gains, linear kitty multiplier, the final
    # declarer deals the first hand, a kitty card picks trump when nobody bids.
    "qq": {
        "level_table": "qq",
        "kitty_multiplier": "linear",
        "first_dealer": "final",
        "no_bid": "kitty",
    },
    # Lianzhong (联众) online rules.
    "lianzhong": {"level_table": "lianzhong"},
    # Tournament rules: ladder 2 5 T J Q K A with 2 and A to be
    # played, failed throw costs 10, a revoke loses the hand, no self-override,
    # the first kitty card picks trump when nobody bids.
    "tournament": {
        "level_table": "tournament",
        "level_ladder": "tournament",
        "must_play": ["2", "A"],
        "throw_penalty": 10,
        "revoke": "forfeit",
        "allow_self_override": False,
        "no_bid": "kitty",
    },
    # One deck ("40 points" / 打百分).
    "onedeck": {"decks": 1, "level_table": "onedeck"},
    # Three decks with triples and Titanics.
    "titanic": {"decks": 3},
    # Find-a-friend (挑选对家, docs/rules.md §9): the classic game with a called partner.
    "friend": {"partners": "called"},
    # Xuwen (徐闻) four-deck game.
    "xuwen": {
        "decks": 4,
        "level_table": "xuwen",
        "same_shape_only": True,
        "kitty_multiplier": "cards",
        "kitty_requires_trump": True,
        "allow_self_override": False,
    },
}


def _check_schema() -> None:
    """The schema names every field of :class:`Rules`, in order, with its default."""
    fields = dataclasses.fields(Rules)
    names = [f.name for f in fields]
    if [o.name for o in OPTIONS] != names:
        raise RuntimeError(f"shengji.rules.OPTIONS lists {[o.name for o in OPTIONS]}, Rules has {names}")
    plain = Rules().to_dict()
    for o in OPTIONS:
        if plain[o.name] != o.default:
            raise RuntimeError(f"shengji.rules.OPTIONS: {o.name} defaults to {o.default!r}, Rules to {plain[o.name]!r}")
        if o.kind is OptionKind.CHOICE and tuple(m.value for m in _ENUMS[o.name]) != o.values:
            raise RuntimeError(f"shengji.rules.OPTIONS: {o.name}'s values are not its enum's")


_check_schema()
