"""The verifier: every event re-judged, disagreements shown and recorded,
never fixed but by the operator pushing the host's state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from linkapp import RULES, Pair, chain, game_event
from tractor_table.errors import CommandError
from tractor_table.events import Event, decode
from tractor_table.link import ttlink
from tractor_table.link.verifier import Disagreement, TrustingReplayer, Verifier


class StreamEngine:
    """The host's 'engine' for the test stream: event k should be
    game_event(k) (variant 0); it then follows what the table did."""

    name = "stream"

    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.resets = 0

    def reset(self, snapshot: bytes | None) -> None:
        self.resets += 1
        self.seen = list(json.loads(snapshot)) if snapshot else []

    def replay(self, index: int, event: Event) -> Event | None:
        mine = game_event(index)
        self.seen.append(event.raw())  # the table's event is what happened
        if mine[0] == 9:
            return None  # notes are outside what this engine judges
        return decode(mine, lenient=True)

    def host_state(self) -> bytes | None:
        return ttlink.canonical([game_event(k) for k in range(len(self.seen))])


def feed(p: Pair, v: Verifier, done: int) -> int:
    for n in p.host_notes[done:]:
        v.on_note(n)
    return len(p.host_notes)


def test_agreeing_stream_is_all_agreed() -> None:
    p = Pair(seed=1)
    v = Verifier(StreamEngine(), RULES)
    p.add_events(40)
    assert p.run_until(p.in_step, 5000)
    feed(p, v, 0)
    assert v.disagreements == []
    assert v.next_index == 40 and v.host_hash == p.dev.head
    notes = sum(1 for k in range(40) if game_event(k)[0] == 9)
    assert (v.checked, v.agreed, v.unchecked) == (40 - notes, 40 - notes, notes)
    assert "0 disagreements" in v.summary()


def test_disagreement_is_shown_recorded_and_not_fixed(tmp_path: Path) -> None:
    p = Pair(seed=2)
    log = tmp_path / "disagreements.jsonl"
    v = Verifier(StreamEngine(), RULES, describe=lambda ev: f"kind {ev[0]}", log_path=log)
    p.add_events(10)
    # the table goes wrong on event 10 (a different verdict), then right again
    bad = list(game_event(10))
    bad[-1] = bad[-1] + 1
    p.app.add(bad)
    p.produced[(10, p.dev.head)] = ttlink.canonical(bad)
    p.add_events(5)
    assert p.run_until(p.in_step, 5000)
    feed(p, v, 0)
    (d,) = v.disagreements
    assert isinstance(d, Disagreement)
    assert d.index == 10 and d.what == "verdict" and d.fields == ("values",)
    assert d.device_event.raw() == bad and d.host_event is not None and d.host_event.raw() == game_event(10)
    shown = d.show()
    assert json.dumps(bad) in shown and json.dumps(game_event(10)) in shown
    assert "table:" in shown and "host:" in shown
    # recorded
    (line,) = log.read_text().splitlines()
    assert json.loads(line)["index"] == 10
    # not fixed: the host's record keeps what the table said
    assert p.host_log()[10] == bad
    # the events after it are judged from the table's state, and agree
    assert v.agreed == v.checked - 1
    assert v.host_hash == p.dev.head


def test_a_wrong_state_hash_is_a_disagreement() -> None:
    v = Verifier(StreamEngine(), RULES)
    ev = game_event(0)
    assert v.check(0, ttlink.chain_hash(0, ev), ev) is None
    d = v.check(1, 12345, game_event(1))
    assert d is not None and d.what == "hash" and d.device_hash == 12345
    with pytest.raises(ValueError, match="event 5"):
        v.check(5, 0, game_event(5))


def test_other_rules_are_refused() -> None:
    p = Pair(seed=3)
    v = Verifier(StreamEngine(), "rules-1999.9")
    p.add_events(5)
    assert p.run_until(p.in_step, 3000)
    feed(p, v, 0)
    assert "rules-2026.1" in v.refused and v.checked == 0
    assert v.summary().startswith("not verifying")


def test_operator_pushes_the_host_state() -> None:
    p = Pair(seed=4)
    v = Verifier(StreamEngine(), RULES)
    p.add_events(6)
    for k in range(6, 9):  # three events the host disagrees with
        ev = list(game_event(k, 5))
        p.app.add(ev)
        p.produced[(k, p.dev.head)] = ttlink.canonical(ev)
    assert p.run_until(p.in_step, 3000)
    done = feed(p, v, 0)
    assert len(v.disagreements) >= 1
    sid = v.push_host_state(p.host.push_snapshot)
    assert p.run_until(lambda: bool(p.notes("snapshot_done")), 3000)
    done = feed(p, v, done)
    assert p.notes("snapshot_done")[0][1:3] == [sid, 1]
    host_view = [game_event(k) for k in range(9)]
    assert p.app.events == host_view
    assert p.dev.head == chain(host_view) == v.host_hash
    # play goes on from the pushed state, and agrees
    before = len(v.disagreements)
    p.add_events(4)
    assert p.run_until(p.in_step, 3000)
    feed(p, v, done)
    assert len(v.disagreements) == before and v.next_index == 13


def test_push_needs_a_replayer_that_can_express_state() -> None:
    v = Verifier(TrustingReplayer(), RULES)
    with pytest.raises(CommandError, match="trusting"):
        v.push_host_state(lambda data, count, head: 0)


def test_rollback_replays_the_kept_events() -> None:
    p = Pair(seed=5, persist_every=4)
    eng = StreamEngine()
    v = Verifier(eng, RULES)
    p.add_events(10)
    assert p.run_until(p.in_step, 3000)
    done = feed(p, v, 0)
    p.boot()
    assert p.run_until(p.in_step, 3000)
    p.add_events(3)
    assert p.run_until(p.in_step, 3000)
    feed(p, v, done)
    assert p.notes("rollback") == [["rollback", 8, 10]]
    assert eng.resets == 1 and len(eng.seen) == 11
    assert v.next_index == 11 and v.host_hash == p.dev.head and v.disagreements == []
