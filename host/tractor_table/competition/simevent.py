"""Simulated tables in a competition: the club's :class:`~tractor_table.sim.virtual.clubtable.SimTable`
(the firmware's table core, the bots' hands, the real recorder in its own SQLite file, the
real uploader) taking the club server's table commands as a table takes them over its link.

A :class:`CompTable` plays nothing by itself: when the director starts a round the server
sends it a new match (``new_match``), and it then plays the bots' hand(s) of that match;
``call_time`` is given to the table core as ``CMD_CALL_TIME``. The uploader's thread only
hands a command over (:meth:`CompTable.on_command` answers "not now" until the table's own
loop, :meth:`CompTable.pump`, has applied it and recorded the table's answer), so the table
core and its records are only ever touched by one thread.

:func:`recompute` is the independent check of the simulated event test: the round results
read straight from each host's SQLite file, and match points and level differences
recomputed from them without the competition's code.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..sim.virtual.clubtable import SimTable


class CompTable:
    def __init__(self, folder: Path, uid: str, url: str, token: str, *, seed: int,
                 hands: int = 1, heartbeat_s: float = 0.2, name: str = "") -> None:
        from ..club.uploader import Uploader
        from ..sim.board.flashsoak import record_actions

        self._record_actions = record_actions
        self.sim = SimTable(folder, uid, seed=seed, hands=0)
        self.seed = seed
        self.hands = hands
        self.matches = 0
        self._lock = threading.Lock()
        self._todo: dict[int, dict[str, Any]] = {}
        self._done: dict[int, tuple[bool, str]] = {}
        self._seen: set[int] = set()
        self.up = Uploader(self.sim.path, url, token, heartbeat_s=heartbeat_s,
                           name=name or f"sim host {uid}", on_command=self.on_command)
        self.sim.recorder.on_written.append(self.up.wake)
        self.up.start()

    # the uploader's thread
    def on_command(self, cmd: dict[str, Any]) -> tuple[bool, str] | None:
        with self._lock:
            cid = int(cmd["id"])
            if cid in self._done:
                return self._done[cid]
            if cid in self._seen:
                return None  # handed over already, being applied: never twice
            self._seen.add(cid)
            self._todo[cid] = cmd
        return None  # applied by the table's loop, reported the next time it is offered

    # the table's loop
    def pump(self) -> bool:
        """Apply the commands handed over, then one input of the match in play; whether
        anything happened."""
        with self._lock:
            todo = sorted(self._todo.items())
            self._todo.clear()
        for cid, cmd in todo:
            got = self._apply(str(cmd.get("command", "")))
            with self._lock:
                self._done[cid] = got
        if todo:
            self.up.wake()
        if self.sim.done:
            return bool(todo)
        self.sim.step()
        return True

    @property
    def idle(self) -> bool:
        """Nothing left to play and no command waiting."""
        with self._lock:
            return self.sim.done and not self._todo

    def _apply(self, name: str) -> tuple[bool, str]:
        t = self.sim.table
        T = self.sim.T
        code = {"new_match": T.CMD_NEW_MATCH, "call_time": T.CMD_CALL_TIME}.get(name)
        if code is None:
            return False, f"unknown command {name!r}"
        try:
            t.command([code])
        except T.TableError as exc:
            return False, str(exc)
        self._record()
        if name == "new_match":
            self.matches += 1
            script = self._record_actions(self.hands, self.seed * 7919 + self.matches, t.decks)
            # the script's own new match is the one just made: its hands follow
            self.sim.actions = script[3:] if script[:1] == b"\x00" else script
            self.sim.at = 0
        return True, ""

    def _record(self) -> None:
        for idx, h, ev in self.sim.table.take_events():
            self.sim.recorder.on_note(["event", idx, h, list(ev)])

    def close(self) -> None:
        self.up.stop(flush_s=5.0)
        self.sim.close()


def play_until_idle(tables: Iterable[CompTable], done: Any, timeout: float = 120.0) -> None:
    """Pump every table until ``done()`` holds (checked whenever no table had anything to
    do), within ``timeout`` seconds."""
    import time

    ts = list(tables)
    end = time.monotonic() + timeout
    while True:
        busy = False
        for t in ts:
            busy = t.pump() or busy
        if not busy:
            if done():
                return
            if time.monotonic() > end:
                raise TimeoutError("the simulated tables did not finish in time")
            time.sleep(0.02)


def matches_in_file(path: Path) -> list[tuple[tuple[int, int], int, int]]:
    """A host's SQLite file read on its own (its events decoded by the link's one decoder,
    nothing of the competition's code): each match the table started (a hand start of hand
    1, first hand) as (the levels after its last hand's end, hands ended, the side that
    passed the top or -1)."""
    from .. import events as E

    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT event FROM events WHERE current = 1 ORDER BY idx").fetchall()
    out: list[list[Any]] = []
    for (text,) in rows:
        ev = E.decode(json.loads(text))
        if isinstance(ev, E.HandStart) and ev.hand_no == 1 and ev.first_hand:
            out.append([tuple(ev.levels), 0, -1])
        elif isinstance(ev, E.HandEnd) and out:
            out[-1][0], out[-1][2] = tuple(ev.levels), ev.match_winner
            out[-1][1] += 1
    return [(m[0], m[1], m[2]) for m in out]


def recompute(files: dict[str, Path], seatings: dict[int, dict[str, tuple[str, str]]],
              *, win: int = 3, draw: int = 1, loss: int = 0, top: int = 13
              ) -> dict[str, tuple[int, int, int]]:
    """Each entry's (match points, net levels, meetings played) from the hosts' files:
    ``files`` maps a table's label to its host's SQLite file, ``seatings`` each round's
    table label to its (side 0, side 1) entries. Round r at a table is the r-th match that
    table started in the event (one new match per round). Points: win / draw / loss by the
    higher level (a side that passed the top counts ``top``); net levels: the sum of the
    level differences (a full ladder: a level is its rank number)."""
    per_table = {label: matches_in_file(p) for label, p in files.items()}
    seen: dict[str, int] = {}
    out: dict[str, list[int]] = {}
    for rnd in sorted(seatings):
        for label, (a, b) in sorted(seatings[rnd].items()):
            k = seen.get(label, 0)
            seen[label] = k + 1
            levels, _hands, passed = per_table[label][k]
            la = top if passed == 0 else levels[0]
            lb = top if passed == 1 else levels[1]
            for me, mine, theirs in ((a, la, lb), (b, lb, la)):
                row = out.setdefault(me, [0, 0, 0])
                row[0] += win if mine > theirs else draw if mine == theirs else loss
                row[1] += mine - theirs
                row[2] += 1
    return {e: (r[0], r[1], r[2]) for e, r in out.items()}
