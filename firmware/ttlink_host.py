# The host's end of the link (HostLink, and Record, its copy of the game log),
# kept out of ttlink.py so that the table, which never plays the host, does
# not hold its code in its heap. It imports ttlink, never the other way round:
# whoever plays the host imports this module itself, under CPython (the host
# tool, which loads it through tractor_table.vocab.firmware and exports it as
# tractor_table.link.ttlink_host) and MicroPython (tests running both ends).
from ttlink import (
    ANNOUNCE,
    EVENT,
    HELLO,
    PROTO,
    RTO_MIN,
    SNAP_DONE,
    SNAPREQ,
    SYNC,
    UP,
    WELCOME,
    _Link,
    chain_hash,
    ticks_diff,
)

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


# The host's own link states (ttlink's DOWN and UP are both ends'): a HELLO
# sent, no WELCOME yet; a table that speaks another protocol version.
HANDSHAKE = const(1)
INCOMPATIBLE = const(3)
# the longest wait between two HELLOs of a handshake (ms)
HELLO_MAX = const(1000)


class Record:
    """The host's copy of the game log: an optional base snapshot (count,
    hash, data) followed by events, each with its state hash."""

    def __init__(self):
        self.base = 0
        self.base_hash = 0
        self.base_data = None
        self.events = []  # [hash, event]

    @property
    def count(self):
        return self.base + len(self.events)

    @property
    def head(self):
        return self.events[-1][0] if self.events else self.base_hash

    def hash_at(self, i):
        if i == self.base - 1:
            return self.base_hash
        if self.base <= i < self.count:
            return self.events[i - self.base][0]
        return None

    def append(self, h, ev):
        self.events.append([h, ev])

    def truncate(self, n):
        del self.events[n - self.base :]

    def reset(self, count, head, data):
        self.base = count
        self.base_hash = head
        self.base_data = data
        self.events = []


class HostLink(_Link):
    """The host's end: handshakes, keeps the Record in step with the device.

    Notes (take_notes()): ["up", info], ["down", why], ["incompatible", text],
    ["reboot", old_boot, new_boot], ["event", index, hash, event],
    ["rollback", device_count, host_count], ["conflict", index, text],
    ["snapshot", count, head, data], ["synced", count], ["app", payload],
    ["snapshot_done", id, ok, reason], ["snapshot_rejected", id, reason],
    ["device", line] (a device line that is not a frame).
    """

    _limit = 1 << 30  # the largest snapshot taken from the device: no limit

    def __init__(self, now, rand, version, rules_id, record=None, timing=None):
        self._rand = rand
        self.version = version
        self.rules_id = rules_id
        self.record = record if record is not None else Record()
        self.device = None  # WELCOME payload of the current session
        self.boot_id = None
        self.synced = False
        self._target = 0
        self._nonce = 0
        self._hello_at = now
        self._hello_rto = RTO_MIN
        self._pushing = None  # (id, data, count, head) of a host snapshot in flight
        self._awaiting = False  # SNAPREQ sent, snapshot not yet in
        _Link.__init__(self, now, timing)
        self.start(now)

    def start(self, now):
        """(Re)start the handshake: a new HELLO now and retried with backoff."""
        self._now = now
        if self.state == UP:
            self._new_session(0, now)
        self.state = HANDSHAKE
        self.synced = False
        self._nonce = self._rand() & 0x3FFFFFFF
        self._hello_rto = self.rto_min
        self._hello()

    def _hello(self):
        r = self.record
        self._hello_at = self._now
        self._emit(
            0,
            HELLO,
            [PROTO, self.version, self.rules_id, self._nonce, r.count, r.head],
            sid=0,
        )

    def tick(self, now):
        _Link.tick(self, now)
        self._tick_state(now)

    def _tick_state(self, now):
        if self.state == HANDSHAKE or self.state == INCOMPATIBLE:
            if ticks_diff(now, self._hello_at) >= self._hello_rto:
                self._hello_rto = min(self._hello_rto * 2, HELLO_MAX if self.state == HANDSHAKE else 5000)
                self._hello()

    def _link_down(self, why):
        _Link._link_down(self, why)
        self.synced = False
        self.start(self._now)

    def lost(self, why):
        """The port went away: down, and quiet until start() (at reopen)."""
        _Link._link_down(self, why)
        self.synced = False

    def _junk(self, text):
        self._note("device", text)

    def _stale_frame(self, sid):
        pass

    def _acked(self, mtype, payload):
        pass

    def push_snapshot(self, data, count, head):
        """Send the host's state to the device; the device swaps it in only
        once the whole snapshot checks out (answer: a snapshot_done note)."""
        import ttlink_snap

        sid = ttlink_snap.start(self, data, count, head)
        self._pushing = (sid, data, count, head)
        self._pump()
        return sid

    def request_snapshot(self):
        self._ask_snapshot()
        self._pump()

    def _ask_snapshot(self):
        if not self._awaiting:
            self._awaiting = True
            self._queue.append((SNAPREQ, []))

    def _control(self, v, sid, mtype, payload):
        p = payload
        if mtype == ANNOUNCE:
            if v != PROTO:
                self._incompatible(v, p)
            elif self.state != UP or (len(p) > 4 and p[4] != self.sid):
                if self.state != HANDSHAKE:
                    self.start(self._now)
                else:
                    self._hello()
            return
        if mtype != WELCOME or self.state != HANDSHAKE:
            return
        if v != PROTO:
            self._incompatible(v, p)
            return
        if len(p) < 8 or p[4] != self._nonce or sid == 0:
            return
        self._new_session(sid, self._now)
        self.state = UP
        self._awaiting = False
        old = self.boot_id
        self.device = p
        self.boot_id = p[3]
        self._note("up", p)
        if old is not None and old != p[3]:
            self._note("reboot", old, p[3])
        count, head, agree = p[5], p[6], p[7]
        r = self.record
        have = r.count
        self._target = count
        if have <= count and agree == 1:
            self._sync(have)
        elif have > count and r.hash_at(count - 1) == head:
            r.truncate(count)
            self._note("rollback", count, have)
            self._sync(count)
        else:
            self._ask_snapshot()
            self._pump()

    def _incompatible(self, v, p):
        was = self.state
        self.state = INCOMPATIBLE
        if was != INCOMPATIBLE:
            self._note(
                "incompatible",
                "device speaks link protocol %r, this host speaks %d: update the firmware"
                " (make deploy) or the host tool" % (v, PROTO),
            )

    def _sync(self, frm):
        self._queue.append((SYNC, [frm]))
        self._check_synced()
        self._pump()

    def _check_synced(self):
        if not self.synced and self.state == UP and self.record.count >= self._target:
            self.synced = True
            self._note("synced", self.record.count)

    def _deliver_more(self, mtype, payload):
        p = payload
        if mtype == EVENT:
            i, h, ev = p
            if self._awaiting:
                return  # a snapshot replaces the log; events resume after it
            r = self.record
            n = r.count
            if i < n:
                self.dups += 1
                return
            if i > n:
                self._note("conflict", i, "gap: event %d after %d events; resyncing" % (i, n))
                self._sync(n)
                return
            if chain_hash(r.head, ev) != h:
                self._note("conflict", i, "state hash chain broken at event %d; asking for a snapshot" % i)
                self._ask_snapshot()
                return
            r.append(h, ev)
            self._note("event", i, h, ev)
            self._check_synced()
        elif mtype == SNAP_DONE:
            sid, ok, reason = p
            push = self._pushing
            if push is not None and push[0] == sid:
                self._pushing = None
                if ok:
                    self.record.reset(push[2], push[3], push[1])
                    self._target = push[2]
            self._note("snapshot_done", sid, ok, reason)

    def _snapshot_received(self, data, count, head) -> str:
        self._awaiting = False
        self.record.reset(count, head, data)
        self._note("snapshot", count, head, data)
        self._target = max(self._target, count)
        self._queue.append((SYNC, [count]))
        self._check_synced()
        return ""
