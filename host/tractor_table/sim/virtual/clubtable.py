"""A simulated table for the club's demo, tests and bench: the firmware's own
table core (``firmware/table.py`` with the device rules, under CPython), fed the
inputs of hands the full engine's bots played, its events (with their real
chain hashes) handed to the real :class:`~tractor_table.records.Recorder` in
its own SQLite file, uploaded by the real :class:`~tractor_table.club.uploader.Uploader` (it lives with the
simulators: the club imports none of them).

Only the USB link is left out: the notes the link would deliver ("up" with the
table's identity, then each event) are given to the recorder directly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...vocab.loader import firmware

NEW, TAP, OK, TAP_DEALER = 0, 1, 2, 3


class SimTable:
    def __init__(self, folder: Path, uid: str, *, seed: int = 1, decks: int = 2,
                 hands: int = 4, on_event: Callable[[int, int, list[int]], None] | None = None) -> None:
        from ...records import Recorder, Store
        from ..board.flashsoak import record_actions

        self.T = firmware("table")
        self.E = firmware("events")
        tablerules = firmware("tablerules")
        ttlink = firmware("ttlink")
        self.uid = uid
        self.path = Path(folder) / "records.sqlite"
        self.store = Store.open(self.path)
        self.recorder = Recorder(self.store, port="sim", source="sim")
        self.table = self.T.Table(tablerules.TableRules(decks), decks=decks,
                                  chain_hash=ttlink.chain_hash)
        self.table.take_events()
        self.actions = record_actions(hands, seed, decks)
        self.at = 0
        self.count = 0  # the table's event count (its next index)
        self.head = 0
        self.made = 0  # events recorded (the first index may be above 0)
        self.on_event = on_event
        self.rng = random.Random(seed)
        self.recorder.on_note(["up", [1, "sim", "rules-sim", self.rng.getrandbits(30), 1, 0, 0, 1, uid]])

    def more(self, hands: int, seed: int) -> None:
        """Play on: ``hands`` more hands (each a new match, as the script's own)."""
        from ..board.flashsoak import record_actions

        self.actions = self.actions[self.at:] + record_actions(hands, seed, self.table.decks)
        self.at = 0

    @property
    def done(self) -> bool:
        return self.at >= len(self.actions)

    def step(self) -> list[list[int]]:
        """One input (a tap or a button); the events it made, recorded."""
        if self.done:
            return []
        k, seat, card = self.actions[self.at:self.at + 3]
        self.at += 3
        t = self.table
        if k == NEW:
            t.command([self.T.CMD_NEW_MATCH])
        elif k == TAP:
            t.tap(seat, card, 0)
        elif k == OK:
            t.button(seat, self.E.BTN_OK, 0)
        else:
            t.tap(t.dealer, card, 0)
        out = []
        for idx, h, ev in t.take_events():
            ev = list(ev)
            self.recorder.on_note(["event", idx, h, ev])
            self.count, self.head = idx + 1, h
            self.made += 1
            out.append(ev)
            if self.on_event is not None:
                self.on_event(idx, h, ev)
        return out

    def step_event(self) -> list[list[int]]:
        """Inputs until at least one event came (or the script ended)."""
        while not self.done:
            evs = self.step()
            if evs:
                return evs
        return []

    def close(self) -> None:
        self.recorder.on_note(["down", "the simulation ended"])
        self.store.close()


def attach(sim: SimTable, url: str, token: str, **kw: Any) -> Any:
    """The real uploader beside the sim's recorder, started."""
    from ...club.uploader import Uploader

    up = Uploader(sim.path, url, token, **kw)
    sim.recorder.on_written.append(up.wake)
    return up.start()
