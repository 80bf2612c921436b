"""Fuzzing the link (hypothesis): random chunking, dropped bytes, flipped
bits, duplicated and stale blocks, device reboots, both directions.

While faults last, the host must never accept a corrupted, unknown,
duplicated or out-of-order event (checked at every step by ``Pair``); once
they stop, every event must arrive: the host's log equals the device's.
"""

from __future__ import annotations

import random

import ttlink
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from linkapp import Pair


class Channel:
    """One direction of a faulty wire: bytes in, (fewer, other) bytes out."""

    def __init__(self, rng: random.Random, drop: float, flip: float, dup: float, stale: float) -> None:
        self.rng = rng
        self.drop, self.flip, self.dup, self.stale = drop, flip, dup, stale
        self.faulty = True
        self.buf = bytearray()
        self.history: list[bytes] = []

    def __call__(self, data: bytes) -> bytes:
        rng = self.rng
        if data:
            if self.faulty:
                self.history.append(data)
                out = bytearray()
                for b in data:
                    if rng.random() < self.drop:
                        continue
                    if rng.random() < self.flip:
                        b ^= 1 << rng.randrange(8)
                    out.append(b)
                if rng.random() < self.dup:
                    out += bytes(out)
                if self.history and rng.random() < self.stale:
                    out += rng.choice(self.history)
                data = bytes(out)
            self.buf += data
        if not self.buf:
            return b""
        # random chunking: release a random prefix (everything once calm)
        n = len(self.buf) if not self.faulty else rng.randrange(len(self.buf) + 1)
        out_b = bytes(self.buf[:n])
        del self.buf[:n]
        return out_b


faults = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**31),
        "drop": st.sampled_from([0.0, 0.001, 0.01, 0.05]),
        "flip": st.sampled_from([0.0, 0.001, 0.01, 0.03]),
        "dup": st.sampled_from([0.0, 0.1, 0.3]),
        "stale": st.sampled_from([0.0, 0.05, 0.2]),
        "events": st.integers(1, 60),
        "reboots": st.integers(0, 2),
        "persist_every": st.sampled_from([1, 4]),
        "ring": st.sampled_from([8, 64]),
        # the ring's bytes: the default, and the least (the window then ends
        # at its bytes, not its slots: about 25 of the stream's events)
        "ring_bytes": st.sampled_from([0, 416]),
    }
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(faults)
def test_no_bad_event_is_accepted_and_all_arrive_after_faults(f: dict[str, float]) -> None:
    rng = random.Random(f["seed"])
    p = Pair(seed=int(f["seed"]), ring=int(f["ring"]), persist_every=int(f["persist_every"]),
             ring_bytes=int(f["ring_bytes"]))
    up = Channel(rng, f["drop"], f["flip"], f["dup"], f["stale"])
    down = Channel(rng, f["drop"], f["flip"], f["dup"], f["stale"])
    p.up, p.down = up, down
    n_events = int(f["events"])
    reboot_at = sorted(rng.randrange(6000) for _ in range(int(f["reboots"])))
    start = p.now
    while p.now - start < 6000:
        if p.app.events.__len__() < n_events and rng.random() < 0.15:
            p.add_events(1)
        if reboot_at and p.now - start >= reboot_at[0]:
            reboot_at.pop(0)
            p.boot(variant=rng.randrange(3))
        p.step(10)
    # faults stop; the device finishes its stream
    up.faulty = down.faulty = False
    while len(p.app.events) < n_events:
        p.add_events(1)
    assert p.run_until(p.in_step, 30000), (
        p.host.state,
        p.host.record.count,
        len(p.app.events),
        p.host_notes[-5:],
    )
    assert p.host_log() == p.app.events
    r = p.host.record
    for k, (h, ev) in enumerate(r.events):
        assert h == ttlink.chain_hash(r.hash_at(r.base + k - 1), ev)


def test_fuzz_channel_really_corrupts() -> None:
    rng = random.Random(1)
    ch = Channel(rng, 0.05, 0.05, 0.0, 0.0)
    ch.faulty = True
    data = b"x" * 10000
    got = ch(data)
    ch.faulty = False
    got += ch(b"")
    assert 9000 < len(got) < 9800
    assert got.count(b"x") < len(got)


def test_heavy_faults_are_seen_and_survived() -> None:
    """One fixed, harsh run: the faults really reach the link (its counters
    say so) and the logs still end equal."""
    rng = random.Random(42)
    p = Pair(seed=42, ring=16, persist_every=4)
    up = Channel(rng, 0.005, 0.005, 0.2, 0.1)
    down = Channel(rng, 0.005, 0.005, 0.2, 0.1)
    p.up, p.down = up, down
    before = 0
    for t in range(2000):
        if t % 15 == 0:
            p.add_events(1)
        if t == 900:
            before = p.dev.resent + p.dev.bad
            p.boot(variant=1)
        p.step(10)
    up.faulty = down.faulty = False
    assert p.run_until(p.in_step, 30000)
    assert p.host_log() == p.app.events
    h, d = p.host, p.dev
    assert h.bad + d.bad > 10
    assert h.resent + d.resent + before > 10
    assert h.dups + d.dups > 0
    assert h.stale + d.stale > 0
    assert p.notes("reboot")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_arbitrary_bytes_never_break_either_end(blocks: list[bytes]) -> None:
    """Garbage on the wire: nothing raises, nothing is accepted, the links stay sane."""
    p = Pair(seed=11)
    assert p.run_until(lambda: p.host.synced, 2000)
    for k, b in enumerate(blocks):
        p.host.feed(b, p.now + k)
        p.dev.feed(b, p.now + k)
    p.step(10)
    assert p.host.record.count == 0 and not p.notes("event")
    assert p.host.malformed == 0 and p.dev.malformed == 0
    p.add_events(3)
    assert p.run_until(p.in_step, 5000)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.integers(-(2**40), 2**40), st.text(max_size=20), st.booleans(), st.none()),
        max_size=8,
    )
)
def test_any_flat_event_roundtrips_with_its_hash(ev: list[object]) -> None:
    f = ttlink.encode_frame(1, 1, 0, ttlink.EVENT, [0, ttlink.chain_hash(0, ev), ev])
    frame, at = ttlink.decode_line(f[:-1])
    assert frame is not None and at == 0
    assert frame[5][2] == ev
    assert ttlink.chain_hash(0, frame[5][2]) == frame[5][1]
    assert all(b >= 0x20 for b in f[:-1])
