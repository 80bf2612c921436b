"""The host link's notes as typed values.

``HostLink`` (``firmware/ttlink_host.py``, which MicroPython runs too) reports
what happened as plain lists, ``["event", index, hash, event]``,
``["up", welcome]``, ...; :func:`typed` turns each into one frozen value here,
once, where the link hands it over (:class:`~.serial_link.SerialLink`, the
virtual table), so that every consumer (the verifier, the records, the
console, ``link``) dispatches on the type (``match note: case Event(): ...``)
and reads fields by name. A game event's note is the game event itself
(:class:`tractor_table.events.Event`, with its ``index`` and ``hash``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..events import Event, decode


@dataclass(frozen=True, slots=True)
class Up:
    """The link is up: the table's WELCOME (docs/protocol.md)."""

    fw_version: str
    rules_id: str
    boot_id: int
    count: int
    head: int
    agree: int
    table_uid: str
    #: the table's rules digest (WELCOME's tenth field; "" from a table that sends none)
    rules_digest: str
    welcome: tuple[Any, ...]

    @classmethod
    def of(cls, welcome: Any) -> Up:
        p = list(welcome)
        uid = p[8] if len(p) > 8 and isinstance(p[8], str) else ""
        digest = p[9] if len(p) > 9 and isinstance(p[9], str) else ""
        return cls(str(p[1]), str(p[2]), int(p[3]), int(p[5]), int(p[6]), int(p[7]), uid, digest, tuple(p))


@dataclass(frozen=True, slots=True)
class Down:
    """The link went down (why, in words)."""

    why: str


@dataclass(frozen=True, slots=True)
class Incompatible:
    """The table speaks another link protocol (what to do, in words)."""

    text: str


@dataclass(frozen=True, slots=True)
class Reboot:
    """The table rebooted between two sessions (a new boot id)."""

    old_boot: int
    new_boot: int


@dataclass(frozen=True, slots=True)
class Rollback:
    """The table lost events from ``device_count`` on (the host had ``host_count``)."""

    device_count: int
    host_count: int


@dataclass(frozen=True, slots=True)
class Conflict:
    """The log did not continue at ``index`` (a gap, a broken hash chain)."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class SnapshotIn:
    """The log now starts from the table's snapshot (``count`` events, ``head`` hash)."""

    count: int
    head: int
    data: bytes | None


@dataclass(frozen=True, slots=True)
class Synced:
    """The host's record has every event the table has (``count``)."""

    count: int


@dataclass(frozen=True, slots=True)
class App:
    """An application message from the table (``[APP_*, ...]``, docs/protocol.md)."""

    payload: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class SnapshotDone:
    """The table's answer to a snapshot the host pushed."""

    id: int
    ok: bool
    reason: str


@dataclass(frozen=True, slots=True)
class SnapshotRejected:
    """A snapshot the host pushed was not sent or not taken."""

    id: int
    reason: str


@dataclass(frozen=True, slots=True)
class DeviceLine:
    """A line from the device that is not a frame (a print, a traceback)."""

    text: str


Note = (
    Up | Down | Incompatible | Reboot | Event | Rollback | Conflict | SnapshotIn | Synced | App
    | SnapshotDone | SnapshotRejected | DeviceLine
)


def _bytes(x: Any) -> bytes | None:
    if x is None:
        return None
    return x if isinstance(x, bytes) else bytes(x) if isinstance(x, (bytearray, memoryview)) else str(x).encode()


def typed(note: Note | list[Any]) -> Note:
    """One HostLink note as its typed value (a typed one is returned as it is).
    Raises ValueError naming a note this host does not know."""
    if not isinstance(note, list):
        return note
    kind, p = note[0], note[1:]
    if kind == "event":
        return decode(p[2], index=p[0], hash=p[1], lenient=True)
    if kind == "up":
        return Up.of(p[0])
    if kind == "down":
        return Down(str(p[0]))
    if kind == "incompatible":
        return Incompatible(str(p[0]))
    if kind == "reboot":
        return Reboot(p[0], p[1])
    if kind == "rollback":
        return Rollback(p[0], p[1])
    if kind == "conflict":
        return Conflict(p[0], str(p[1]))
    if kind == "snapshot":
        return SnapshotIn(p[0], p[1], _bytes(p[2]) if len(p) > 2 else None)
    if kind == "synced":
        return Synced(p[0])
    if kind == "app":
        return App(tuple(p[0]))
    if kind == "snapshot_done":
        return SnapshotDone(p[0], bool(p[1]), str(p[2]))
    if kind == "snapshot_rejected":
        return SnapshotRejected(p[0], str(p[1]))
    if kind == "device":
        return DeviceLine(bytes(p[0]).decode("utf-8", "replace").rstrip() if not isinstance(p[0], str) else p[0])
    raise ValueError(f"a link note this host does not know: {note!r}")


_KINDS: dict[type, str] = {
    Up: "up", Down: "down", Incompatible: "incompatible", Reboot: "reboot", Rollback: "rollback",
    Conflict: "conflict", SnapshotIn: "snapshot", Synced: "synced", App: "app",
    SnapshotDone: "snapshot_done", SnapshotRejected: "snapshot_rejected", DeviceLine: "device",
}


def kind_of(note: Note) -> str:
    """The note's name as HostLink spells it (``"event"``, ``"up"``, ...): what the records keep."""
    return "event" if isinstance(note, Event) else _KINDS[type(note)]


def detail_of(note: Note) -> list[Any]:
    """The note's fields after its name, as HostLink gave them (the records' ``link_notes.detail``)."""
    if isinstance(note, Event):
        return [note.index, note.hash, note.raw()]
    if isinstance(note, Up):
        return [list(note.welcome)]
    if isinstance(note, App):
        return [list(note.payload)]
    return [getattr(note, f.name) for f in fields(note)]


def note_words(note: Note) -> str:
    """``kind: fields`` of a link note, for a log line (a snapshot's data left out)."""
    rest = " ".join(str(x) for x in detail_of(note) if not isinstance(x, bytes | bytearray))
    return f"{kind_of(note)}: {rest}".rstrip()


__all__ = [
    "note_words",
    "kind_of",
    "detail_of",
    "App",
    "Conflict",
    "DeviceLine",
    "Down",
    "Incompatible",
    "Note",
    "Reboot",
    "Rollback",
    "SnapshotDone",
    "SnapshotIn",
    "SnapshotRejected",
    "Synced",
    "Up",
    "typed",
]
