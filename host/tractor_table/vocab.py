"""The firmware's vocabulary on the host: one loader, and the typed host types.

Every value the table and the host share is defined once, in ``firmware/``, as
``const()`` names (``tests/foundation/test_one_vocabulary.py`` fails on any
copy in the host's source):

| vocabulary | firmware | host type |
|---|---|---|
| game event kinds | ``events.py`` (``HAND_START`` ..., ``NAMES``) | :class:`EventKind` |
| the table's reasons (REJECT, BID, AUDIT) | ``events.py`` (``OK`` ... ``BID_SELF``, ``REASONS``) | :class:`TableReason` |
| the link's application messages | ``events.py`` (``APP_*``) | :class:`AppCode` |
| the host's commands | ``tablebase.py`` (``CMD_*``) | :class:`TableCommand` |
| sounds, buttons | ``events.py`` (``SND_*``, ``BTN_*``) | :class:`Sound`, :class:`Button` |
| the table core's phases | ``tablebase.py`` (``DEAL`` ... ``CALL``, ``PHASE_NAMES``) | :class:`TablePhase` |
| the device rules engine's codes (AUDIT's and REVOKE's rules_reason) | ``drules.py`` (``OK``, ``R_*``) | :class:`RulesCode` |
| the snapshot's layout | ``snaplayout.py`` (``F_*``, ``T_*``, ``C_*``, ``X_*``; ``tablebase.SNAPSHOT_VERSION``) | :class:`SnapshotField`, :class:`Snapshot` |

and :func:`shengji_maps` (:func:`table_reason`, :func:`rules_code`) maps
``shengji``'s reasons to the table's two codes: the only map between the two
vocabularies.

:func:`firmware` is the host's one loader of firmware modules (the link's
``ttlink``, ``version``, ``cardmap``'s format, and the modules above): it runs
``firmware/<name>.py`` under CPython as the module ``tractor_table.firmware.<name>``,
once, with the firmware's imports of each other resolved to the same loader
(never through ``sys.path``: no firmware module shadows a host one) and
``micropython`` given as a shim (``const``, ``native``, ``viper``).
"""

from __future__ import annotations

import ast
import builtins
import enum
import functools
import importlib.util
import sys
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .paths import FIRMWARE_DIR

PACKAGE = "tractor_table.firmware"

_lock = threading.RLock()
_loaded: dict[str, types.ModuleType] = {}


def _micropython_shim() -> types.ModuleType:
    shim = types.ModuleType("micropython", "MicroPython's compile-time helpers, as no-ops under CPython")

    def const(x: Any) -> Any:
        return x

    def native(f: Any) -> Any:
        return f

    shim.const = const  # type: ignore[attr-defined]
    shim.native = native  # type: ignore[attr-defined]
    shim.viper = native  # type: ignore[attr-defined]
    return shim


_MICROPYTHON = _micropython_shim()


@functools.cache
def firmware_names() -> frozenset[str]:
    """The firmware's module names (``firmware/*.py``)."""
    return frozenset(p.stem for p in FIRMWARE_DIR.glob("*.py"))


def _import(
    name: str,
    globals: Any = None,  # noqa: A002 - __import__'s signature
    locals: Any = None,  # noqa: A002
    fromlist: Sequence[str] = (),
    level: int = 0,
) -> types.ModuleType:
    if level == 0:
        if name == "micropython":
            return _MICROPYTHON
        if name in firmware_names():
            return firmware(name)
    return builtins.__import__(name, globals, locals, fromlist, level)


def firmware(name: str) -> types.ModuleType:
    """``firmware/<name>.py`` loaded under CPython (once; see the module docs).
    Raises ImportError naming the file when there is no such module."""
    with _lock:
        module = _loaded.get(name)
        if module is not None:
            return module
        source = FIRMWARE_DIR / f"{name}.py"
        if not source.is_file():
            raise ImportError(f"no firmware module {name!r} ({source} does not exist)")
        spec = importlib.util.spec_from_file_location(f"{PACKAGE}.{name}", source)
        if spec is None or spec.loader is None:  # pragma: no cover - broken checkout
            raise ImportError(f"cannot load the firmware module {source}")
        module = importlib.util.module_from_spec(spec)
        # the firmware's own imports (import events as E, from ttlink import ...)
        # go to this loader, at load time and in functions that import later
        module.__dict__["__builtins__"] = {**vars(builtins), "__import__": _import}
        _loaded[name] = module  # before running it: the firmware's modules import each other
        sys.modules[spec.name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del _loaded[name]
            del sys.modules[spec.name]
            raise
        return module


@functools.cache
def const_names(name: str) -> tuple[tuple[str, int], ...]:
    """The ``NAME = const(int)`` of a firmware module, in source order (private
    names too: the compiler inlines those and the device's heap never holds them)."""
    tree = ast.parse((FIRMWARE_DIR / f"{name}.py").read_text(encoding="utf-8"))
    out: list[tuple[str, int]] = []
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "const"
        ):
            target = node.targets[0].id
            try:  # const(literal), as the compiler reads it; else as the module computes it
                value = ast.literal_eval(node.value.args[0])
            except (ValueError, TypeError, SyntaxError, IndexError):
                value = getattr(firmware(name), target)
            out.append((target, int(value)))
    return tuple(out)


def _run(module: str, first: str, count: int, strip: str = "") -> dict[str, int]:
    """``count`` const names of ``module`` from ``first`` on, in source order."""
    names = const_names(module)
    at = next((i for i, (n, _) in enumerate(names) if n == first), None)
    if at is None or at + count > len(names):
        raise ImportError(f"firmware/{module}.py: no run of {count} const names from {first}")
    return {n.removeprefix(strip): v for n, v in names[at : at + count]}


def _prefixed(module: str, prefix: str) -> dict[str, int]:
    return {n.removeprefix(prefix): v for n, v in const_names(module) if n.startswith(prefix)}


_EV = firmware("events")
_TABLE = firmware("tablebase")  # the table core's constants (table.py is its surface)
class _Consts:
    """A firmware module's const names; one the host names and the module has
    not stops the import, saying which."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.values = dict(const_names(module))

    def __getitem__(self, name: str) -> int:
        try:
            return self.values[name]
        except KeyError:
            raise ImportError(
                f"firmware/{self.module}.py has no const {name}, which tractor_table.vocab names: "
                "change the one or the other"
            ) from None


_EVENTS = _Consts("events")
_TABLES = _Consts("tablebase")
_DRULES = _Consts("drules")
_SNAPS = _Consts("snaplayout")


def _complete(cls: type[enum.IntEnum], firmware_members: dict[str, int]) -> None:
    # the host names each member; the values are the firmware's, and a
    # member the firmware added or changed stops the host here, by name
    ours = {m.name: m.value for m in cls}
    if ours != firmware_members:
        missing = sorted(set(firmware_members) - set(ours))
        extra = sorted(set(ours) - set(firmware_members))
        raise ImportError(
            f"tractor_table.vocab.{cls.__name__} is not the firmware's: missing {missing}, "
            f"not in the firmware {extra}; name each of the firmware's in the class"
        )


class EventKind(enum.IntEnum):
    """A game event's kind (firmware/events.py): ``[kind, field, ...]``."""

    HAND_START = _EVENTS["HAND_START"]
    BID = _EVENTS["BID"]
    TRUMP = _EVENTS["TRUMP"]
    REDEAL = _EVENTS["REDEAL"]
    KITTY = _EVENTS["KITTY"]
    PLAY = _EVENTS["PLAY"]
    REJECT = _EVENTS["REJECT"]
    CHALLENGE = _EVENTS["CHALLENGE"]
    FORCED = _EVENTS["FORCED"]
    TRICK = _EVENTS["TRICK"]
    AUDIT = _EVENTS["AUDIT"]
    HAND_END = _EVENTS["HAND_END"]
    REVOKE = _EVENTS["REVOKE"]
    SCAN = _EVENTS["SCAN"]
    FORFEIT = _EVENTS["FORFEIT"]
    KITTY_UP = _EVENTS["KITTY_UP"]
    CALL = _EVENTS["CALL"]
    PARTNER = _EVENTS["PARTNER"]
    UNDO = _EVENTS["UNDO"]


_complete(EventKind, {n.upper(): i for i, n in enumerate(_EV.NAMES) if i})


class TableReason(enum.IntEnum):
    """Why the table refused a play, a bid or a burial, or what an AUDIT found
    (firmware/events.py; ``REASONS`` has them in words)."""

    OK = _EVENTS["OK"]
    OUT_OF_TURN = _EVENTS["OUT_OF_TURN"]
    SEEN_TWICE = _EVENTS["SEEN_TWICE"]
    COUNT = _EVENTS["COUNT"]
    MIXED_LEAD = _EVENTS["MIXED_LEAD"]
    UNKNOWN_CARD = _EVENTS["UNKNOWN_CARD"]
    WRONG_PHASE = _EVENTS["WRONG_PHASE"]
    BID_WEAK = _EVENTS["BID_WEAK"]
    BID_CARDS = _EVENTS["BID_CARDS"]
    KITTY_COUNT = _EVENTS["KITTY_COUNT"]
    REVOKE_FOLLOW = _EVENTS["REVOKE_FOLLOW"]
    THROW_FAILED = _EVENTS["THROW_FAILED"]
    CHALLENGE_FAILED = _EVENTS["CHALLENGE_FAILED"]
    EMPTY = _EVENTS["EMPTY"]
    READER_FAULT = _EVENTS["READER_FAULT"]
    NOT_HELD = _EVENTS["NOT_HELD"]
    BID_SELF = _EVENTS["BID_SELF"]


_complete(TableReason, _run("events", "OK", len(_EV.REASONS)))


class AppCode(enum.IntEnum):
    """The link's application messages (firmware/events.py, APP_*; main.py answers them)."""

    REPLY = _EVENTS["APP_REPLY"]
    STATE = _EVENTS["APP_STATE"]
    LINES = _EVENTS["APP_LINES"]
    MAINTENANCE = _EVENTS["APP_MAINTENANCE"]
    ENROLL = _EVENTS["APP_ENROLL"]
    TAG = _EVENTS["APP_TAG"]
    READERS = _EVENTS["APP_READERS"]


_complete(AppCode, _prefixed("events", "APP_"))


def readers_status(down: int) -> str:
    """What [APP_READERS, down] says (a bit per seat whose reader does not
    answer), for the link's output and the console's events."""
    seats = [s for s in range(4) if down >> s & 1]
    if not seats:
        return "readers: every seat's reader answers"
    names = ", ".join(f"S{s}" for s in seats)
    return f"readers: no answer from the reader at {names}: check its cable and its SPI switches"


class Sound(enum.IntEnum):
    """What the buzzer plays (firmware/events.py, SND_*)."""

    NONE = _EVENTS["SND_NONE"]
    TAP = _EVENTS["SND_TAP"]
    OK = _EVENTS["SND_OK"]
    ERROR = _EVENTS["SND_ERROR"]
    TRICK = _EVENTS["SND_TRICK"]
    HAND = _EVENTS["SND_HAND"]


_complete(Sound, _prefixed("events", "SND_"))


class Button(enum.IntEnum):
    """A seat button's press (firmware/events.py, BTN_*)."""

    OK = _EVENTS["BTN_OK"]
    UNDO = _EVENTS["BTN_UNDO"]
    CHALLENGE = _EVENTS["BTN_CHALLENGE"]


_complete(Button, _prefixed("events", "BTN_"))


class TableCommand(enum.IntEnum):
    """The host's commands to the table core (firmware/tablebase.py, CMD_*), sent as app messages."""

    NEW_MATCH = _TABLES["CMD_NEW_MATCH"]
    RESTORE = _TABLES["CMD_RESTORE"]
    NEXT_HAND = _TABLES["CMD_NEXT_HAND"]
    CALL_TIME = _TABLES["CMD_CALL_TIME"]


_complete(TableCommand, _prefixed("tablebase", "CMD_"))


class TablePhase(enum.IntEnum):
    """The table core's phases (firmware/tablebase.py), as a snapshot's PHASE field carries them."""

    DEAL = _TABLES["DEAL"]
    KITTY = _TABLES["KITTY"]
    PLAY = _TABLES["PLAY"]
    HAND_END = _TABLES["HAND_END"]
    MATCH_END = _TABLES["MATCH_END"]
    SCAN = _TABLES["SCAN"]
    REVEAL = _TABLES["REVEAL"]
    CALL = _TABLES["CALL"]


_complete(TablePhase, _run("tablebase", "DEAL", len(_TABLE.PHASE_NAMES)))


class RulesCode(enum.IntEnum):
    """The device rules engine's codes (firmware/drules.py, OK and R_*): AUDIT's and
    REVOKE's rules_reason."""

    OK = _DRULES["OK"]
    EMPTY = _DRULES["R_EMPTY"]
    NOT_IN_HAND = _DRULES["R_NOT_IN_HAND"]
    MIXED_SUIT = _DRULES["R_MIXED_SUIT"]
    WRONG_COUNT = _DRULES["R_WRONG_COUNT"]
    FOLLOW_SUIT = _DRULES["R_FOLLOW_SUIT"]
    PAIRS = _DRULES["R_PAIRS"]
    TRACTOR = _DRULES["R_TRACTOR"]
    TRIPLES = _DRULES["R_TRIPLES"]
    TITANIC = _DRULES["R_TITANIC"]
    SAME_SHAPE = _DRULES["R_SAME_SHAPE"]
    THROW_FAILED = _DRULES["R_THROW_FAILED"]


_complete(RulesCode, _run("drules", "OK", 1 + len(_prefixed("drules", "R_")), strip="R_"))


class SnapshotField(enum.IntEnum):
    """A field's index in the table's snapshot (firmware/snaplayout.py, F_*)."""

    VERSION = _SNAPS["F_VERSION"]
    DECKS = _SNAPS["F_DECKS"]
    PHASE = _SNAPS["F_PHASE"]
    HAND_NO = _SNAPS["F_HAND_NO"]
    FIRST_HAND = _SNAPS["F_FIRST_HAND"]
    DEALER = _SNAPS["F_DEALER"]
    LEVEL0 = _SNAPS["F_LEVEL0"]
    LEVEL1 = _SNAPS["F_LEVEL1"]
    TRUMP = _SNAPS["F_TRUMP"]
    DECLARER = _SNAPS["F_DECLARER"]
    SCORE = _SNAPS["F_SCORE"]
    KITTY_POINTS = _SNAPS["F_KITTY_POINTS"]
    MATCH_WINNER = _SNAPS["F_MATCH_WINNER"]
    EV_INDEX = _SNAPS["F_EV_INDEX"]
    EV_HASH = _SNAPS["F_EV_HASH"]
    BIDS = _SNAPS["F_BIDS"]
    KITTY = _SNAPS["F_KITTY"]
    TRICKS = _SNAPS["F_TRICKS"]
    REVOKED = _SNAPS["F_REVOKED"]
    RESULT = _SNAPS["F_RESULT"]
    CURRENT = _SNAPS["F_CURRENT"]
    KITTY_UP = _SNAPS["F_KITTY_UP"]
    EXTRA = _SNAPS["F_EXTRA"]


_complete(SnapshotField, _prefixed("snaplayout", "F_"))

#: The trump field's no-trump value (0-3 are S H D C).
NT: int = _TABLE.NT
#: A snapshot's partner field while the called partner is not known (-1: the dealer alone).
PARTNER_UNKNOWN: int = _TABLE.PARTNER_UNKNOWN
SNAPSHOT_VERSION: int = _TABLE.SNAPSHOT_VERSION
#: The trump field (TRUMP, a snapshot) in letters: S H D C, NT (firmware/display.py).
TRUMP_NAMES: tuple[str, ...] = tuple(firmware("display").TRUMPS)
#: The phases in which a hand goes on (the draw, the kitty turned up, the
#: scans, the burial, the call, the play); HAND_END and MATCH_END are after it.
HAND_PHASES = frozenset(p for p in TablePhase if p not in (TablePhase.HAND_END, TablePhase.MATCH_END))

_SNAP = _SNAPS


# ------------------------------------------------------------------ snapshots
class SnapshotError(ValueError):
    """Not a table snapshot of this layout: the message says what is wrong."""


@dataclass
class SnapTrick:
    """A completed trick as the snapshot keeps it."""

    leader: int
    winner: int
    points: int
    forced: int
    plays: list[list[int]]

    @classmethod
    def parse(cls, x: Any) -> SnapTrick:
        at = _SNAP["T_PLAYS"]
        if not isinstance(x, list) or len(x) != at + 4:
            raise SnapshotError(f"snapshot: bad trick {x!r}")
        return cls(x[_SNAP["T_LEADER"]], x[_SNAP["T_WINNER"]], x[_SNAP["T_POINTS"]], x[_SNAP["T_FORCED"]],
                   [list(p) for p in x[at:]])

    def to_list(self) -> list[Any]:
        out: list[Any] = [0] * _SNAP["T_PLAYS"]
        out[_SNAP["T_LEADER"]], out[_SNAP["T_WINNER"]] = self.leader, self.winner
        out[_SNAP["T_POINTS"]], out[_SNAP["T_FORCED"]] = self.points, self.forced
        return out + [list(p) for p in self.plays]


@dataclass
class SnapCurrent:
    """The trick in progress: each seat's play, or None before it plays."""

    leader: int
    forced: int
    throw_open: int
    plays: list[list[int] | None]

    @classmethod
    def parse(cls, x: Any) -> SnapCurrent | None:
        if x is None:
            return None
        at = _SNAP["C_PLAYS"]
        if not isinstance(x, list) or len(x) != at + 4:
            raise SnapshotError(f"snapshot: bad trick in progress {x!r}")
        return cls(x[_SNAP["C_LEADER"]], x[_SNAP["C_FORCED"]], x[_SNAP["C_THROW_OPEN"]],
                   [None if p is None else list(p) for p in x[at:]])


@dataclass
class SnapScans:
    """hand_scan mode: the seats scanned (bits) and the cards each still holds."""

    done: int
    hands: list[list[int]]

    def to_list(self) -> list[Any]:
        return [_SNAP["X_SCAN"], self.done, *(list(h) for h in self.hands)]


@dataclass
class SnapFriend:
    """partners = "called": the call (a face, -1 before it), the partner
    (PARTNER_UNKNOWN, -1 alone) and the levels of seats 2 and 3."""

    call: int
    partner: int
    levels: list[int]

    def to_list(self) -> list[Any]:
        return [_SNAP["X_FRIEND"], self.call, self.partner, *self.levels]


@dataclass
class Snapshot:
    """The table's snapshot (firmware/tablesnap.py, the layout named in snaplayout.py).

    :meth:`parse` takes the wire's list (or its JSON bytes), :meth:`to_list`
    gives it back in the same layout. With partners = "called" ``levels``
    holds four (seats 0-3; the wire keeps seats 2 and 3 in ``friend``)."""

    decks: int
    phase: int
    hand_no: int
    first_hand: int
    dealer: int
    levels: list[int]
    trump: int = -1
    declarer: int = -1
    score: int = 0
    kitty_points: int = 0
    match_winner: int = -1
    ev_index: int = 0
    ev_hash: int = 0
    bids: list[list[Any]] = field(default_factory=list)
    kitty: list[int] = field(default_factory=list)
    tricks: list[SnapTrick] = field(default_factory=list)
    revoked: list[list[int]] = field(default_factory=list)
    result: list[int] | None = None
    current: SnapCurrent | None = None
    kitty_up: list[int] = field(default_factory=list)
    scans: SnapScans | None = None
    friend: SnapFriend | None = None
    #: the table's rules digest (docs/protocol.md; "" from a table that sends none)
    rules_digest: str = ""
    time_called: bool = False  # X_TIME: CMD_CALL_TIME was taken (no new deal)
    version: int = SNAPSHOT_VERSION

    @classmethod
    def parse(cls, data: Any) -> Snapshot:
        """A snapshot from the wire (a list, or its JSON); raises SnapshotError."""
        if isinstance(data, (bytes, bytearray, str)):
            import json

            try:
                data = json.loads(data)
            except ValueError as exc:
                raise SnapshotError(f"snapshot: not JSON ({exc})") from None
        F = SnapshotField
        if not isinstance(data, list) or len(data) < F.EXTRA:
            raise SnapshotError("snapshot: not a table snapshot (wrong shape)")
        if data[F.VERSION] != SNAPSHOT_VERSION:
            raise SnapshotError(f"snapshot version {data[F.VERSION]!r}, this host reads {SNAPSHOT_VERSION}")
        if not all(isinstance(data[i], int) for i in range(F.VERSION, F.BIDS)):
            raise SnapshotError("snapshot: a number field is not a number")
        scans: SnapScans | None = None
        friend: SnapFriend | None = None
        digest = ""
        called = False
        for x in data[F.EXTRA :]:
            if isinstance(x, list) and x and x[0] == _SNAP["X_SCAN"] and len(x) == _SNAP["SCAN_HANDS"] + 4:
                scans = SnapScans(x[_SNAP["SCAN_DONE"]], [list(h) for h in x[_SNAP["SCAN_HANDS"] :]])
            elif isinstance(x, list) and x and x[0] == _SNAP["X_FRIEND"] and len(x) == _SNAP["FRIEND_LEVELS"] + 2:
                friend = SnapFriend(x[_SNAP["FRIEND_CALL"]], x[_SNAP["FRIEND_PARTNER"]], list(x[_SNAP["FRIEND_LEVELS"] :]))
            elif isinstance(x, list) and len(x) == 2 and x[0] == _SNAP["X_RULES"] and isinstance(x[1], str):
                digest = x[_SNAP["RULES_DIGEST"]]
            elif x == [_SNAP["X_TIME"]]:
                called = True
            else:
                raise SnapshotError(f"snapshot: bad optional field {x!r}")
        levels = [data[F.LEVEL0], data[F.LEVEL1], *(friend.levels if friend else ())]
        return cls(
            version=data[F.VERSION], decks=data[F.DECKS], phase=data[F.PHASE], hand_no=data[F.HAND_NO],
            first_hand=data[F.FIRST_HAND], dealer=data[F.DEALER], levels=levels, trump=data[F.TRUMP],
            declarer=data[F.DECLARER], score=data[F.SCORE], kitty_points=data[F.KITTY_POINTS],
            match_winner=data[F.MATCH_WINNER], ev_index=data[F.EV_INDEX], ev_hash=data[F.EV_HASH],
            bids=[[b[0], list(b[1])] for b in data[F.BIDS]], kitty=list(data[F.KITTY]),
            tricks=[SnapTrick.parse(t) for t in data[F.TRICKS]], revoked=[list(r) for r in data[F.REVOKED]],
            result=data[F.RESULT], current=SnapCurrent.parse(data[F.CURRENT]), kitty_up=list(data[F.KITTY_UP]),
            scans=scans, friend=friend, rules_digest=digest, time_called=called,
        )

    def to_list(self) -> list[Any]:
        """The wire's list, in firmware/tablesnap.py's layout."""
        F = SnapshotField
        out: list[Any] = [None] * F.EXTRA
        cur = self.current
        for f, v in (
            (F.VERSION, self.version), (F.DECKS, self.decks), (F.PHASE, int(self.phase)),
            (F.HAND_NO, self.hand_no), (F.FIRST_HAND, self.first_hand), (F.DEALER, self.dealer),
            (F.LEVEL0, self.levels[0]), (F.LEVEL1, self.levels[1]), (F.TRUMP, self.trump),
            (F.DECLARER, self.declarer), (F.SCORE, self.score), (F.KITTY_POINTS, self.kitty_points),
            (F.MATCH_WINNER, self.match_winner), (F.EV_INDEX, self.ev_index), (F.EV_HASH, self.ev_hash),
            (F.BIDS, self.bids), (F.KITTY, self.kitty), (F.TRICKS, [t.to_list() for t in self.tricks]),
            (F.REVOKED, self.revoked), (F.RESULT, self.result),
            (F.CURRENT, None if cur is None else [cur.leader, cur.forced, cur.throw_open, *cur.plays]),
            (F.KITTY_UP, self.kitty_up),
        ):
            out[f] = v
        if self.scans is not None:
            out.append(self.scans.to_list())
        if self.friend is not None:
            out.append(self.friend.to_list())
        if self.time_called:
            out.append([_SNAP["X_TIME"]])
        if self.rules_digest:
            out.append([_SNAP["X_RULES"], self.rules_digest])
        return out


# ------------------------------------------------------- shengji's reasons
def _shengji_maps() -> tuple[dict[Any, TableReason], dict[Any, RulesCode]]:
    from shengji import play

    R = play.Reason
    # the refusals of a play or event the table has a code for (REJECT's reason)
    table: dict[Any, TableReason] = {}
    for engine, ours in (
        ("OUT_OF_TURN", TableReason.OUT_OF_TURN), ("SEEN_TWICE", TableReason.SEEN_TWICE),
        ("WRONG_COUNT", TableReason.COUNT), ("MIXED_SUITS", TableReason.MIXED_LEAD),
        ("PHASE", TableReason.WRONG_PHASE), ("NOT_IN_HAND", TableReason.NOT_HELD),
    ):
        table[_engine_reason(R, engine)] = ours
    # why a follow breaks docs/rules.md's "Following" (AUDIT's and REVOKE's rules_reason)
    rules = {
        R.NOT_IN_HAND: RulesCode.NOT_IN_HAND, R.WRONG_COUNT: RulesCode.WRONG_COUNT,
        R.MUST_FOLLOW_SUIT: RulesCode.FOLLOW_SUIT, R.MUST_PLAY_PAIRS: RulesCode.PAIRS,
        R.MUST_PLAY_TRACTOR: RulesCode.TRACTOR, R.MUST_PLAY_TRIPLES: RulesCode.TRIPLES,
        R.MUST_PLAY_TITANIC: RulesCode.TITANIC, R.MUST_PLAY_SAME_SHAPE: RulesCode.SAME_SHAPE,
    }
    return table, rules


def _engine_reason(reasons: Any, name: str) -> Any:
    # what the hand's findings carry: shengji.play.Reason (the one vocabulary)
    return reasons[name]


@functools.cache
def shengji_maps() -> tuple[dict[Any, TableReason], dict[Any, RulesCode]]:
    """The one map between ``shengji``'s reasons and the table's codes:
    (shengji's reason for refusing a play or an event -> the table's reason,
    REJECT's; a follow's ``shengji.play.Reason`` -> the device rules engine's
    code, AUDIT's and REVOKE's rules_reason). A reason missing is one the
    table has no code for. Built on first use (``shengji`` loads then)."""
    return _shengji_maps()


def table_reason(engine_reason: Any, default: int = -1) -> int:
    """The table's reason code for shengji's, or ``default``."""
    return int(shengji_maps()[0].get(engine_reason, default))


def rules_code(engine_reason: Any, default: int = -1) -> int:
    """The device rules engine's code for shengji's reason, or ``default``."""
    return int(shengji_maps()[1].get(engine_reason, default))


__all__ = [
    "AppCode",
    "Button",
    "EventKind",
    "HAND_PHASES",
    "NT",
    "PARTNER_UNKNOWN",
    "RulesCode",
    "SNAPSHOT_VERSION",
    "SnapCurrent",
    "SnapFriend",
    "SnapScans",
    "SnapTrick",
    "Snapshot",
    "SnapshotError",
    "SnapshotField",
    "Sound",
    "TRUMP_NAMES",
    "TableCommand",
    "TablePhase",
    "TableReason",
    "const_names",
    "firmware",
    "firmware_names",
    "rules_code",
    "shengji_maps",
    "table_reason",
]
