"""The table's snapshot read and written by the host: :class:`Snapshot`, the
layout of ``firmware/snaplayout.py`` (``F_*`` through :class:`SnapshotField`,
the nested parts' ``T_*``, ``C_*``, ``X_*``) and ``tablebase.SNAPSHOT_VERSION``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .enums import SNAPSHOT_VERSION, SnapshotField
from .loader import Consts

_SNAP = Consts("snaplayout")

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


def saved_snapshot(text: str) -> list[Any]:
    """The snapshot in the text of a table's snapshot file (``table.json`` on
    its flash, ``firmware/persist.py``: the JSON body, then a ``ttsnap1 <crc>``
    line), its tricks as lists: on flash they are one base64 string of their
    packed bytes (``persist._dense``; ``persistload._tricks`` reads them on the
    table). The crc is not checked here. Raises ValueError if the text is not
    such a file."""
    import base64
    import json

    body, sep, _ = text.rpartition("\nttsnap1 ")
    if not sep:
        raise ValueError("not a table snapshot file (no ttsnap1 line)")
    snap = json.loads(body)
    tricks = snap[17] if isinstance(snap, list) and len(snap) > 17 else None
    if isinstance(tricks, str):
        snap[17] = _saved_tricks(base64.b64decode(tricks))
    return snap  # type: ignore[no-any-return]


def _saved_tricks(b: bytes) -> list[list[Any]]:
    # persist._dense's bytes as [leader, winner, points, forced, p0, p1, p2, p3]
    out: list[list[Any]] = []
    i = 0
    try:
        while i < len(b):
            h = b[i]
            wide = 2 if h & 64 else 1
            pts = int.from_bytes(b[i + 1 : i + 1 + wide], "big")
            i += 1 + wide
            same = h & 32
            counts = [b[i]] * 4 if same else list(b[i : i + 4])
            i += 1 if same else 4
            tr: list[Any] = [h & 3, h >> 2 & 3, pts, h >> 4 & 1]
            for n in counts:
                if i + n > len(b):
                    raise IndexError
                tr.append(list(b[i : i + n]))
                i += n
            if len(tr) != 8:
                raise IndexError
            out.append(tr)
    except IndexError:
        raise ValueError("the saved tricks are cut short") from None
    return out
