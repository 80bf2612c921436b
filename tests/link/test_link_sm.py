# runs-under: micropython heapsize=160K
"""The link state machines, driven by scripted byte streams and a fake clock.

Runs under CPython and under MicroPython: the same module runs on the Pico."""

import json

import ttlink
import ttlink_host
from linkapp import RULES, Lcg, Pair, chain, game_event


def frames(data):
    """Decode a block of output into frames (lists)."""
    out = []
    if not data:
        return out
    for line in data.split(b"\n"):
        if line:
            f, at = ttlink.decode_line(line)
            assert f is not None and at == 0, line
            out.append(f)
    return out


def types_of(data):
    return [f[4] for f in frames(data)]


def new_device(now=0, ring=8):
    rng = Lcg(7)
    return ttlink.DeviceLink(now, 4242, rng.next, "0.1.0", RULES, ring=ring)


def hello(nonce, have=0, have_hash=0, v=1):
    body = [v, "0.1.0", RULES, nonce, have, have_hash]
    return ttlink.encode_frame(0, 0, 0, ttlink.HELLO, body).replace(b"[1,0,0,0,", b"[%d,0,0,0," % v)


def handshake(dev, now, nonce=77, have=0, have_hash=0):
    dev.take_output()
    dev.feed(hello(nonce, have, have_hash), now)
    (w,) = frames(dev.take_output())
    assert w[4] == ttlink.WELCOME
    return w


def test_device_announces_itself_at_boot():
    dev = new_device()
    (f,) = frames(dev.take_output())
    assert f[4] == ttlink.ANNOUNCE and f[1] == 0
    assert f[5] == [ttlink.PROTO, "0.1.0", RULES, 4242, 0]


def test_the_welcome_carries_the_tables_identity():
    rng = Lcg(7)
    dev = ttlink.DeviceLink(0, 4242, rng.next, "0.1.0", RULES, ring=8, table_uid="e6613008e3a1b22f")
    w = handshake(dev, 10, nonce=5)
    assert w[5][3] == 4242 and w[5][8] == "e6613008e3a1b22f"
    # the host keeps it with the device's WELCOME
    host = ttlink_host.HostLink(0, rng.next, "0.1.0", RULES)
    host.start(0)
    host.feed(ttlink.encode_frame(w[1], 0, 0, ttlink.WELCOME, w[5][:4] + [host._nonce] + w[5][5:]), 1)
    assert host.device is not None and host.device[8] == "e6613008e3a1b22f"


def test_the_welcome_carries_the_rules_digest():
    # the tenth field: the table's rules digest (tableconfig.Options.digest), "" when not given
    rng = Lcg(3)
    digest = "2.0.0.10.0.0.3.1.4097.0.1.0.0.0.1"
    dev = ttlink.DeviceLink(0, 4242, rng.next, "0.1.0", RULES, ring=8)
    assert dev.rules_digest == ""
    dev.rules_digest = digest  # main.configured_app sets it from table.cfg
    w = handshake(dev, 10, nonce=9)
    assert len(w[5]) == 10 and w[5][9] == digest and w[5][8] == ""


def test_scripted_handshake_and_event_delivery():
    dev = new_device()
    for k in range(3):
        dev.add_event(game_event(k))
    w = handshake(dev, 10, nonce=77)
    sid = w[1]
    assert sid > 0 and dev.state == ttlink.UP
    assert w[5] == [1, "0.1.0", RULES, 4242, 77, 3, chain([game_event(k) for k in range(3)]), 1, "", ""]
    # nothing is sent before the host says where to start
    assert dev.take_output() is None
    dev.feed(ttlink.encode_frame(sid, 1, 0, ttlink.SYNC, [1]), 20)
    (ev,) = frames(dev.take_output())
    assert ev[2:6] == [1, 1, ttlink.EVENT, [1, chain([game_event(0), game_event(1)]), game_event(1)]]
    # the ack of event 1 (piggybacked on nothing: a pure ACK) brings event 2
    dev.feed(ttlink.encode_frame(sid, 0, 1, ttlink.ACK, []), 30)
    (ev,) = frames(dev.take_output())
    assert ev[2] == 2 and ev[5][0] == 2
    # a duplicate of the host's SYNC is acked again, not acted on
    dev.feed(ttlink.encode_frame(sid, 1, 1, ttlink.SYNC, [0]), 40)
    (ack,) = frames(dev.take_output())
    assert ack[4] == ttlink.ACK and ack[3] == 1
    assert dev.dups == 1


def test_retried_hello_gets_the_same_session():
    dev = new_device()
    w1 = handshake(dev, 10, nonce=5)
    w2 = handshake(dev, 20, nonce=5)
    assert w1 == w2
    w3 = handshake(dev, 30, nonce=6)
    assert w3[1] != w1[1] or w3[5][4] == 6


def test_frames_of_another_session_are_dropped_and_announced():
    dev = new_device()
    w = handshake(dev, 10)
    sid = w[1]
    other = (sid + 1) & 0xFFFF
    dev.feed(ttlink.encode_frame(other, 1, 0, ttlink.SYNC, [0]), 600)
    assert types_of(dev.take_output()) == [ttlink.ANNOUNCE]
    dev.feed(ttlink.encode_frame(other, 2, 0, ttlink.SYNC, [0]), 700)
    assert dev.take_output() is None  # rate-limited
    assert dev.stale == 2 and dev._tx_ev == -1


def test_retransmission_backs_off():
    dev = new_device()
    dev.add_event(game_event(0))
    sid = handshake(dev, 0)[1]
    dev.feed(ttlink.encode_frame(sid, 1, 0, ttlink.SYNC, [0]), 0)
    assert types_of(dev.take_output()) == [ttlink.EVENT]
    sent = []
    host_ping = ttlink.encode_frame(sid, 0, 0, ttlink.PING, [])
    for t in range(10, 2800, 10):
        if t % 500 == 0:
            dev.feed(host_ping, t)  # the host is alive, but acks nothing
        dev.tick(t)
        for f in frames(dev.take_output()):
            if f[4] == ttlink.EVENT:
                sent.append(t)
    assert sent == [200, 600, 1400], sent
    assert dev.resent == len(sent)


def test_keepalive_and_link_down():
    dev = new_device()
    sid = handshake(dev, 0)[1]
    pings = []
    for t in range(10, 2990, 10):
        dev.tick(t)
        pings += [t for f in frames(dev.take_output()) if f[4] == ttlink.PING]
    assert pings == [1000, 2000]
    assert dev.state == ttlink.UP
    dev.tick(3000)
    assert dev.state == ttlink.DOWN
    assert dev.take_notes()[-1][0] == "down"
    # down: the device stays quiet until a HELLO
    for t in range(3010, 8000, 100):
        dev.tick(t)
    assert dev.take_output() is None
    assert sid


def test_host_handshake_retries_with_backoff_and_link_down_restarts_it():
    rng = Lcg(3)
    host = ttlink_host.HostLink(0, rng.next, "0.1.0", RULES)
    hellos = []
    for t in range(0, 4000, 10):
        host.tick(t)
        hellos += [t for f in frames(host.take_output()) if f[4] == ttlink.HELLO]
    assert hellos == [0, 200, 600, 1400, 2400, 3400]


def test_pair_streams_every_event_once_in_order():
    p = Pair(seed=2)
    p.add_events(30)
    assert p.run_until(p.in_step, 5000)
    assert p.host_log() == p.app.events
    assert [n[1] for n in p.notes("event")] == list(range(30))
    assert p.notes("synced")[0][1] == 30
    p.add_events(5)
    assert p.run_until(p.in_step, 1000)
    assert len(p.notes("event")) == 35


def test_device_reboot_replays_from_the_ring():
    p = Pair(seed=3, ring=16)
    p.add_events(10)
    assert p.run_until(p.in_step, 3000)
    p.down = lambda b: b""  # host->device cut: events below are not acked
    p.add_events(5)
    p.run(100)
    p.boot()
    p.down = None
    assert p.run_until(p.in_step, 3000)
    assert len(p.notes("reboot")) == 1
    assert p.host_log() == p.app.events
    assert [n[1] for n in p.notes("event")] == list(range(15))
    assert not p.notes("snapshot")


def test_device_reboot_that_lost_events_rolls_the_host_back():
    p = Pair(seed=4, persist_every=4)
    p.add_events(10)  # persisted at 4 and 8
    assert p.run_until(p.in_step, 3000)
    p.boot(variant=1)  # comes back with 8 events; new events differ
    assert len(p.app.events) == 8
    assert p.run_until(p.in_step, 3000)
    assert p.notes("rollback") == [["rollback", 8, 10]]
    p.add_events(4)
    assert p.run_until(p.in_step, 3000)
    assert p.host_log() == p.app.events
    assert p.host_log()[8] == game_event(8, 1) != game_event(8, 0)
    assert not p.notes("snapshot")


def test_device_that_lost_events_and_moved_on_is_resynced_by_snapshot():
    p = Pair(seed=4, persist_every=4)
    p.add_events(10)
    assert p.run_until(p.in_step, 3000)
    p.boot(variant=1)
    p.add_events(4)  # before the host is back: histories fork at event 8
    assert p.run_until(p.in_step, 3000)
    assert not p.notes("rollback")
    assert p.notes("snapshot")[0][1] == 12
    assert p.host_log() == p.app.events


def test_ring_overrun_is_resolved_with_a_device_snapshot():
    p = Pair(seed=5, ring=8)
    p.add_events(3)
    assert p.run_until(p.in_step, 2000)
    p.up = lambda b: b""
    p.down = lambda b: b""
    p.add_events(20)
    p.run(4000)  # link down on both ends
    assert p.notes("down")
    p.up = p.down = None
    assert p.run_until(p.in_step, 5000)
    (snap,) = p.notes("snapshot")
    assert snap[1] == 23
    assert p.host_log() == p.app.events
    assert p.host.record.base == 23


def event_json(dev, i):
    """Event i's canonical JSON as the device's ring holds it; None if it has it no more."""
    if not dev._base <= i < dev.count:
        return None
    k = i % dev.ring_size
    a = dev._ring_at[k]
    return bytes(dev._ring_b[a : a + dev._ring_len[k]])


def test_the_ring_keeps_the_last_events_its_bytes_hold():
    """Events of 5-250 bytes in a ring of 8 slots and the least bytes (one
    MAX_EVENT): after each one the ring holds a suffix of the log, each event
    as its canonical JSON with its hash; it ends at the slots or at the
    bytes, and at the bytes it holds all but what a wrap and the last
    dropped record leave (docs/protocol.md, "The ring")."""
    rng = Lcg(11)
    nbytes = ttlink.MAX_EVENT
    dev = ttlink.DeviceLink(0, 4242, rng.next, "0.1.0", RULES, ring=8, ring_bytes=nbytes)
    made = [b""] * 200  # (made up front: MicroPython's heap of 160K)
    hashes = [0] * 201
    longest = 0
    by_slots = by_bytes = 0
    for k in range(200):
        # mostly a card or two, now and then a long throw or a scanned hand
        m = rng.next() % 60 if rng.next() % 5 == 0 else rng.next() % 3
        ev = [6, k] + [rng.next() % 216 for _ in range(m)]
        c = ttlink.canonical(ev)
        longest = max(longest, len(c))
        made[k] = c
        hashes[k + 1] = dev.add_event(ev)
        assert dev.count == k + 1 and dev.head == hashes[k + 1] == ttlink.chain_hash(hashes[k], ev)
        base = 0
        while event_json(dev, base) is None:
            base += 1
        for i in range(base, dev.count):
            assert event_json(dev, i) == made[i], i
            assert dev.hash_at(i) == hashes[i + 1]
        assert dev.hash_at(base - 1) == hashes[base]
        assert dev.hash_at(base - 2) is None
        kept = dev.count - base
        assert 1 <= kept <= 8
        if kept == 8:
            by_slots += 1
        elif base:
            by_bytes += 1
            assert sum(len(c) for c in made[base : k + 1]) > nbytes - 2 * longest, (k, base)
    assert by_slots > 10 and by_bytes > 10, (by_slots, by_bytes)
    # a reconnecting host is replayed the ring's events, frames as made
    base = dev.count - 1
    while event_json(dev, base - 1) is not None:
        base -= 1
    sid = handshake(dev, 0, have=base, have_hash=hashes[base])[1]
    got = []
    for seq in range(1, 9):
        dev.feed(ttlink.encode_frame(sid, seq if seq == 1 else 0, seq - 1, ttlink.SYNC if seq == 1 else ttlink.ACK,
                                     [base] if seq == 1 else []), seq)
        fs = [f for f in frames(dev.take_output()) if f[4] == ttlink.EVENT]
        got += fs
        if len(got) == dev.count - base:
            break
    assert [f[5][0] for f in got] == list(range(base, dev.count))
    assert [ttlink.canonical(f[5][2]) for f in got] == made[base : dev.count]
    assert [f[5][1] for f in got] == hashes[base + 1 : dev.count + 1]
    try:
        ttlink.DeviceLink(0, 4242, rng.next, "0.1.0", RULES, ring_bytes=nbytes - 1)
    except ValueError as exc:
        assert "ring_bytes=" + str(nbytes - 1) in str(exc)
    else:
        raise AssertionError("a ring too small for the longest event was made")


def test_host_pushes_its_state_and_device_swaps_it_in_whole():
    p = Pair(seed=6)
    p.add_events(12)
    assert p.run_until(p.in_step, 3000)
    mine = [game_event(k, 2) for k in range(40)]  # the host's view, larger than one chunk
    data = ttlink.canonical(mine)
    assert len(data) > 2 * ttlink.SNAP_CHUNK
    sid = p.host.push_snapshot(data, 40, chain(mine))
    assert p.run_until(lambda: p.notes("snapshot_done"), 3000)
    assert p.notes("snapshot_done") == [["snapshot_done", sid, 1, ""]]
    assert p.app.events == mine and p.dev.count == 40 and p.dev.head == chain(mine)
    p.add_events(2)
    assert p.run_until(p.in_step, 2000)
    assert p.host_log() == p.app.events


def test_bad_snapshot_is_refused_and_nothing_changes():
    p = Pair(seed=7)
    p.add_events(4)
    assert p.run_until(p.in_step, 2000)
    before = list(p.app.events)
    mine = [game_event(k, 3) for k in range(9)]
    # announced head hash does not match the data: the app refuses it
    p.host.push_snapshot(ttlink.canonical(mine), 9, 12345)
    assert p.run_until(lambda: p.notes("snapshot_done"), 3000)
    (done,) = p.notes("snapshot_done")
    assert done[2] == 0 and "hash" in done[3]
    assert p.app.events == before and p.dev.count == 4
    assert p.host.record.count == 4


def test_snapshot_chunks_are_checked_before_the_swap():
    import binascii

    dev = new_device()
    applied = []
    dev.on_snapshot = lambda data, count, head: applied.append(data) or ""
    sid = handshake(dev, 0)[1]
    data = bytes(range(256)) * 2
    crc = binascii.crc32(data) & 0xFFFFFFFF
    seq = [0, 0]  # ours, the device's last

    def send(mtype, payload):
        seq[0] += 1
        dev.feed(ttlink.encode_frame(sid, seq[0], seq[1], mtype, payload), seq[0])
        out = frames(dev.take_output())
        for f in out:
            seq[1] = max(seq[1], f[2])
        # ack what came, so that the next reliable answer can follow
        dev.feed(ttlink.encode_frame(sid, 0, seq[1], ttlink.ACK, []), seq[0])
        out += frames(dev.take_output())
        return [f[5] for f in out if f[4] == ttlink.SNAP_DONE]

    def chunk(k):
        return binascii.b2a_base64(data[k * 192 : (k + 1) * 192]).decode().strip()

    # checksum mismatch: refused after the last chunk
    send(ttlink.SNAP_BEGIN, [1, len(data), 3, crc ^ 1, 0, 0])
    assert send(ttlink.SNAP_CHUNK_T, [1, 0, chunk(0)]) == []
    assert send(ttlink.SNAP_CHUNK_T, [1, 1, chunk(1)]) == []
    assert send(ttlink.SNAP_CHUNK_T, [1, 2, chunk(2)]) == [[1, 0, "snapshot checksum mismatch"]]
    # a chunk missing: refused at once
    send(ttlink.SNAP_BEGIN, [2, len(data), 3, crc, 0, 0])
    send(ttlink.SNAP_CHUNK_T, [2, 0, chunk(0)])
    (done,) = send(ttlink.SNAP_CHUNK_T, [2, 2, chunk(2)])
    assert done[:2] == [2, 0] and "out of order" in done[2]
    # too large for the device: refused at the start
    (done,) = send(ttlink.SNAP_BEGIN, [3, 10**6, 5209, crc, 0, 0])
    assert done[:2] == [3, 0]
    assert applied == []
    # whole and right: swapped in
    send(ttlink.SNAP_BEGIN, [4, len(data), 3, crc, 0, 0])
    send(ttlink.SNAP_CHUNK_T, [4, 0, chunk(0)])
    send(ttlink.SNAP_CHUNK_T, [4, 1, chunk(1)])
    assert applied == []
    assert send(ttlink.SNAP_CHUNK_T, [4, 2, chunk(2)]) == [[4, 1, ""]]
    assert applied == [data]


def test_incompatible_protocol_is_reported_once():
    rng = Lcg(9)
    host = ttlink_host.HostLink(0, rng.next, "0.1.0", RULES)
    host.take_output()
    body = [2, "9.0", RULES, 1, 0]
    line = ttlink.encode_frame(0, 0, 0, ttlink.ANNOUNCE, body).replace(b"@[1,", b"@[2,")
    # re-CRC the edited frame
    import binascii

    b = line[1 : line.rfind(b"*")]
    line = b"@" + b + b"*" + ("%08x" % (binascii.crc32(b) & 0xFFFFFFFF)).encode() + b"\n"
    host.feed(line, 10)
    host.feed(line, 20)
    notes = host.take_notes()
    assert [n[0] for n in notes] == ["incompatible"]
    assert "protocol 2" in notes[0][1] and host.state == ttlink_host.INCOMPATIBLE


def test_device_lines_that_are_not_frames_reach_the_host_as_notes():
    rng = Lcg(9)
    host = ttlink_host.HostLink(0, rng.next, "0.1.0", RULES)
    host.feed(b"MicroPython v1.29 on rp2\r\nTraceback (most recent call last):\n", 5)
    notes = host.take_notes()
    assert [n[1] for n in notes] == [b"MicroPython v1.29 on rp2\r", b"Traceback (most recent call last):"]


def test_app_messages_both_ways():
    p = Pair(seed=8)
    assert p.run_until(lambda: p.host.synced, 2000)
    p.host.send_app([1, "undo"])
    p.dev.send_app([2, "ok"])
    p.run(200)
    assert p.notes("app") == [["app", [2, "ok"]]]
    assert p.dev_notes[-1] == ["app", [1, "undo"]] or ["app", [1, "undo"]] in p.dev_notes


def test_snapshot_source_json_roundtrip():
    p = Pair(seed=10)
    p.add_events(3)
    data, count, head = p.app.snapshot()
    assert json.loads(data) == p.app.events and count == 3 and head == p.dev.head


def test_unknown_reliable_type_is_acked_and_ignored():
    dev = new_device()
    sid = handshake(dev, 0)[1]
    dev.feed(ttlink.encode_frame(sid, 1, 0, 99, ["from the future"]), 10)
    (f,) = frames(dev.take_output())
    assert f[4] == ttlink.ACK and f[3] == 1
    assert dev.state == ttlink.UP and dev.malformed == 0


def test_the_longest_event_fits_a_frame_and_a_longer_one_is_refused():
    dev = new_device()
    sid = handshake(dev, 0)[1]
    big = [9, 3, "x" * (ttlink.MAX_EVENT - 8)]
    assert len(ttlink.canonical(big)) == ttlink.MAX_EVENT
    dev.add_event(big)
    too_big = [9, 3, "x" * (ttlink.MAX_EVENT - 7)]
    try:
        dev.add_event(too_big)
    except ValueError:
        pass
    else:
        raise AssertionError("an event too long for a frame was taken")
    assert dev.count == 1
    # with the largest index, hash, sid, seq and ack, the frame still fits
    f = ttlink.encode_frame(65535, 10**9, 10**9, ttlink.EVENT, [10**9, 4294967295, big])
    assert len(f) <= ttlink.MAX_LINE
    dev.feed(ttlink.encode_frame(sid, 1, 0, ttlink.SYNC, [0]), 10)
    (ev,) = frames(dev.take_output())
    assert ev[5][2] == big


def test_an_app_message_too_long_is_refused_up_front():
    dev = new_device()
    handshake(dev, 0)
    try:
        dev.send_app(["y" * ttlink.MAX_LINE])
    except ValueError:
        pass
    else:
        raise AssertionError("a message too long for a frame was queued")
    assert not dev.busy()
    dev.send_app(["fits"])
    assert types_of(dev.take_output()) == [ttlink.APP]
