"""The firmware's vocabularies as host enums (each member's value read from
``firmware/``; a member the firmware added, removed or changed stops the import
by name), and the constants the host reads beside them."""

from __future__ import annotations

import enum

from .loader import Consts, const_prefixed, const_run, firmware

_EV = firmware("events")
_TABLE = firmware("tablebase")  # the table core's constants (table.py is its surface)
_EVENTS = Consts("events")
_TABLES = Consts("tablebase")
_DRULES = Consts("drules")
_SNAPS = Consts("snaplayout")


def _complete(cls: type[enum.IntEnum], firmware_members: dict[str, int]) -> None:
    # the host names each member; the values are the firmware's, and a
    # member the firmware added or changed stops the host here, by name
    ours = {m.name: m.value for m in cls}
    if ours != firmware_members:
        missing = sorted(set(firmware_members) - set(ours))
        extra = sorted(set(ours) - set(firmware_members))
        raise ImportError(
            f"tractor_table.vocab.enums.{cls.__name__} is not the firmware's: missing {missing}, "
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


_complete(EventKind, {n.upper(): i for i, n in enumerate(firmware("evlayout").NAMES) if i})


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


_complete(TableReason, const_run("events", "OK", len(_EV.REASONS)))


class AppCode(enum.IntEnum):
    """The link's application messages (firmware/events.py, APP_*; main.py answers them)."""

    REPLY = _EVENTS["APP_REPLY"]
    STATE = _EVENTS["APP_STATE"]
    LINES = _EVENTS["APP_LINES"]
    MAINTENANCE = _EVENTS["APP_MAINTENANCE"]
    ENROLL = _EVENTS["APP_ENROLL"]
    TAG = _EVENTS["APP_TAG"]
    READERS = _EVENTS["APP_READERS"]


_complete(AppCode, const_prefixed("events", "APP_"))


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


_complete(Sound, const_prefixed("events", "SND_"))


class Button(enum.IntEnum):
    """A seat button's press (firmware/events.py, BTN_*)."""

    OK = _EVENTS["BTN_OK"]
    UNDO = _EVENTS["BTN_UNDO"]
    CHALLENGE = _EVENTS["BTN_CHALLENGE"]


_complete(Button, const_prefixed("events", "BTN_"))


class TableCommand(enum.IntEnum):
    """The host's commands to the table core (firmware/tablebase.py, CMD_*), sent as app messages."""

    NEW_MATCH = _TABLES["CMD_NEW_MATCH"]
    RESTORE = _TABLES["CMD_RESTORE"]
    NEXT_HAND = _TABLES["CMD_NEXT_HAND"]
    CALL_TIME = _TABLES["CMD_CALL_TIME"]


_complete(TableCommand, const_prefixed("tablebase", "CMD_"))


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


_complete(TablePhase, const_run("tablebase", "DEAL", len(_TABLE.PHASE_NAMES)))


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


_complete(RulesCode, const_run("drules", "OK", 1 + len(const_prefixed("drules", "R_")), strip="R_"))


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


_complete(SnapshotField, const_prefixed("snaplayout", "F_"))

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
