# A small device application over the link, for the link's own tests: a
# deterministic stream of game-like events, a persisted log (so a "reboot"
# can restore it), snapshots both ways. Written in the subset both CPython
# and MicroPython accept: the end-to-end test runs it under MicroPython as
# the device (device_prog.py), the state-machine tests and the fuzzing run it
# in-process against the host link with a fake clock (Pair).
import json

import ttlink

FW = "0.1.0"
RULES = "rules-2026.1"


def game_event(k, variant=0):
    """Event number k of the test stream: flat lists of small ints/strings,
    shaped like the table's (a play, a trick won, now and then a note)."""
    x = (k * 2654435761 + variant * 40503 + 12345) & 0xFFFFFFFF
    if k % 17 == 16:
        return [9, k % 4, "n\u00e9\bte " + str(x % 1000)]
    if k % 5 == 4:
        return [7, (x >> 3) % 4, ((x >> 9) % 21) * 5]
    return [3, k % 4, (x >> 7) % 108]


def chain(events, h=0):
    for ev in events:
        h = ttlink.chain_hash(h, ev)
    return h


class MemStore:
    """'Flash' in memory (the in-process tests)."""

    def __init__(self):
        self.data = None
        self.writes = 0

    def save(self, data):
        self.data = data
        self.writes += 1

    def load(self):
        return self.data


class FileStore:
    """Flash on a file system: written atomically (new file, then rename)."""

    def __init__(self, path):
        self.path = path
        self.writes = 0

    def save(self, data):
        import os

        tmp = self.path + ".new"
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, self.path)
        self.writes += 1

    def load(self):
        try:
            with open(self.path, "rb") as f:
                return f.read()
        except OSError:
            return None


class DeviceApp:
    """The device's side: its log is authoritative; persisted every
    `persist_every` events (a reboot loses the events since)."""

    def __init__(self, link, store, persist_every=1, variant=0):
        self.link = link
        self.store = store
        self.persist_every = persist_every
        self.variant = variant
        self.events = []
        self.applied = 0  # snapshots applied
        link.snapshot_source = self.snapshot
        link.on_snapshot = self.apply_snapshot
        data = store.load()
        if data:
            self.events = json.loads(data)
            ring = link.ring_size
            start = len(self.events) - ring if len(self.events) > ring else 0
            link.restore(start, chain(self.events[:start]), self.events[start:])

    def next_event(self):
        ev = game_event(len(self.events), self.variant)
        self.add(ev)
        return ev

    def add(self, ev):
        self.events.append(ev)
        self.link.add_event(ev)
        if len(self.events) % self.persist_every == 0:
            self.persist()

    def persist(self):
        self.store.save(ttlink.canonical(self.events))

    def snapshot(self):
        return ttlink.canonical(self.events), len(self.events), self.link.head

    def apply_snapshot(self, data, count, head):
        try:
            events = json.loads(data)
        except ValueError:
            return "snapshot is not a JSON event list"
        if type(events) is not list or len(events) != count:
            return f"snapshot holds {len(events)} events, announced {count}"
        if chain(events) != head:
            return "snapshot events do not hash to the announced state"
        self.events = events
        self.applied += 1
        self.persist()
        return ""


class Lcg:
    """A tiny deterministic generator (MicroPython has no random.Random)."""

    def __init__(self, seed):
        self.x = seed & 0x7FFFFFFF or 1

    def next(self):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return self.x >> 1

    def below(self, n):
        return self.next() % n


def host_full_log(record):
    """The host's whole log: the base snapshot's events, then the rest."""
    events = json.loads(record.base_data) if record.base_data else []
    if len(events) != record.base:
        events = [None] * record.base  # a base without a readable snapshot
    return events + [e[1] for e in record.events]


class Pair:
    """Host link and device link joined by two byte pipes and a fake clock.

    `up` and `down` (device->host, host->device) are functions bytes->bytes
    run on every block in transit: the place to inject faults.
    """

    def __init__(self, seed=1, ring=64, persist_every=1, timing=None, store=None, variant=0, ring_bytes=0):
        self.rng = Lcg(seed)
        self.ring_bytes = ring_bytes or ttlink.RING_BYTES
        self.now = 1000
        self.timing = timing
        self.ring = ring
        self.persist_every = persist_every
        self.store = store if store is not None else MemStore()
        self.up = None
        self.down = None
        import ttlink_host  # the host's end: here, not at the top, so the device (device_prog.py) never loads it

        self.host = ttlink_host.HostLink(self.now, self.rng.next, "0.1.0", RULES, timing=timing)
        self.host_notes = []
        self.dev_notes = []
        self.produced = {}  # (index, hash) -> canonical event, of every event ever made
        self.expect = 0  # index of the next event the host may accept
        self.boot(variant)

    def boot(self, variant=0):
        """(Re)start the device from its store, as after a power cycle."""
        self.dev = ttlink.DeviceLink(
            self.now, self.rng.next(), self.rng.next, FW, RULES, ring=self.ring, timing=self.timing,
            ring_bytes=self.ring_bytes,
        )
        self.app = DeviceApp(self.dev, self.store, self.persist_every, variant)

    def add_events(self, n):
        for _ in range(n):
            self.app.next_event()
            i = len(self.app.events) - 1
            self.produced[(i, self.dev.head)] = ttlink.canonical(self.app.events[i])

    def step(self, ms=10):
        self.now += ms
        out = self.dev.take_output()
        if self.up is not None:
            out = self.up(out or b"")
        if out:
            self.host.feed(out, self.now)
        out = self.host.take_output()
        if self.down is not None:
            out = self.down(out or b"")
        if out:
            self.dev.feed(out, self.now)
        self.dev.tick(self.now)
        self.host.tick(self.now)
        for n in self.host.take_notes():
            self.host_notes.append(n)
            kind = n[0]
            if kind == "rollback" or kind == "snapshot":
                self.expect = n[1]
            elif kind == "snapshot_done" and n[2]:
                self.expect = self.host.record.count
            elif kind == "event":
                # in order, each index once (a rollback or snapshot rewinds)
                assert n[1] == self.expect, f"event {n[1]} where {self.expect} was due"
                self.expect = n[1] + 1
                key = (n[1], n[2])
                assert key in self.produced, f"host accepted an event the device never made: {n!r}"
                assert self.produced[key] == ttlink.canonical(n[3]), f"corrupted event {n!r}"
        for n in self.dev_notes_take():
            self.dev_notes.append(n)

    def dev_notes_take(self):
        return self.dev.take_notes()

    def run(self, ms, step=10):
        end = self.now + ms
        while self.now < end:
            self.step(step)

    def run_until(self, pred, ms, step=10):
        end = self.now + ms
        while self.now < end:
            if pred():
                return True
            self.step(step)
        return pred()

    def in_step(self):
        r = self.host.record
        return (
            self.host.synced
            and r.count == len(self.app.events)
            and r.head == self.dev.head
            and not self.dev.busy()
        )

    def host_log(self):
        return host_full_log(self.host.record)

    def notes(self, kind):
        return [n for n in self.host_notes if n[0] == kind]
