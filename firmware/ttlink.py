# The host-table link: frame codec and link state machines (sans-IO).
#
# One module, shared: the Pico runs it under MicroPython and the host tool
# loads this very file under CPython (tractor_table.link). It is written in
# the subset both runtimes accept and does no I/O: bytes and times go in
# (feed(), tick()), bytes to send and notifications come out
# (take_output(), take_notes()). docs/protocol.md is the specification.
#
# The host's end (HostLink, and Record, its copy of the game log) is
# ttlink_host.py, which imports this module; this one never imports it, so
# the table, which never plays the host, does not hold its code in its heap.
#
# Frame (one ASCII line, at most MAX_LINE bytes):
#
#     '@' + compact JSON [v, sid, seq, ack, type, payload] + '*' + crc32 hex(8) + '\n'
#
# Dependencies: json, binascii (both on the rp2 port). No allocation-free
# promise here: decoding a frame builds Python objects; the table core, not
# the link, is the hot path.
import binascii
import json
import sys

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


try:
    from time import ticks_diff  # type: ignore[attr-defined]
except ImportError:

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return a - b


try:
    from typing import Any, Callable, List, Optional, Tuple  # noqa: F401
except ImportError:
    pass

PROTO = const(1)
MAX_LINE = const(512)
# Longest event (canonical JSON bytes) an EVENT frame can carry: MAX_LINE less
# the frame around it ('@[1,sid,seq,ack,11,[index,hash,' ... ']]*crc\n').
MAX_EVENT = const(416)
SNAP_CHUNK = const(192)  # raw bytes per snapshot chunk (256 base64 chars)
# The device's ring of events for replay (docs/protocol.md, "The ring"): the
# last `ring` events (64) as long as their JSON fits in this many bytes.
RING_BYTES = const(2048)

# Message types. Unreliable (seq 0): HELLO..ACK. Reliable (seq > 0): SYNC..APP.
HELLO = const(1)
WELCOME = const(2)
ANNOUNCE = const(3)
PING = const(4)
ACK = const(5)
SYNC = const(10)
EVENT = const(11)
SNAPREQ = const(12)
SNAP_BEGIN = const(13)
SNAP_CHUNK_T = const(14)
SNAP_DONE = const(15)
APP = const(16)

# Link states (the host's own two, HANDSHAKE and INCOMPATIBLE, are
# ttlink_host's: the table is DOWN or UP).
DOWN = const(0)
UP = const(2)

# Timings in milliseconds (defaults; both classes take overrides).
RTO_MIN = const(200)
_RTO_MAX = const(2000)
_PING_MS = const(1000)
_DOWN_MS = const(3000)
_ANNOUNCE_GAP = const(500)

if sys.implementation.name != "micropython":
    # CPython (the host) writes \b and \f where MicroPython writes \u0008
    # and \u000c: its canonical form is made in ttlink_rare (never run on
    # the table, so not in its heap)
    from ttlink_rare import cpy_dumps as dumps
else:

    def dumps(obj):
        return json.dumps(obj, separators=(",", ":"))


def canonical(value):
    """The canonical JSON bytes of a value (compact, UTF-8, MicroPython escapes)."""
    return dumps(value).encode()


def chain_hash(prev, event):
    """State hash after `event` given the hash `prev` before it (docs/protocol.md, "The state hash").

    crc32 over prev as 4 big-endian bytes followed by the event's canonical
    JSON bytes; the hash before event 0 is 0.
    """
    return _chain(prev, canonical(event))


def _chain(prev, data, hb=bytearray(4)):  # noqa: B008 - made once, on purpose
    # hb: the 4 bytes of prev, one preallocated buffer (a default argument,
    # not a global: one name fewer in the module dictionary every lookup searches)
    hb[0] = (prev >> 24) & 255
    hb[1] = (prev >> 16) & 255
    hb[2] = (prev >> 8) & 255
    hb[3] = prev & 255
    return binascii.crc32(data, binascii.crc32(hb)) & 0xFFFFFFFF


# ---------------------------------------------------------------- codec


def encode_frame(sid, seq, ack, mtype, payload):
    """One frame as bytes, newline included; ValueError if longer than MAX_LINE.

    A `payload` of type bytes is its canonical JSON already (the device's
    EVENT payloads, made from its ring's records) and is put in as it is."""
    if type(payload) is bytes:
        head = b"[%d,%d,%d,%d,%d," % (PROTO, sid, seq, ack, mtype)
        crc = binascii.crc32(b"]", binascii.crc32(payload, binascii.crc32(head)))
        out = b"".join((b"@", head, payload, b"]*%08x\n" % (crc & 0xFFFFFFFF)))
    else:
        body = dumps([PROTO, sid, seq, ack, mtype, payload]).encode()
        out = b"".join((b"@", body, b"*%08x\n" % (binascii.crc32(body) & 0xFFFFFFFF)))
    if len(out) > MAX_LINE:
        raise ValueError("frame of %d bytes is longer than MAX_LINE=%d" % (len(out), MAX_LINE))
    return out


def decode_line(line):
    """Decode one line (bytes, without its newline).

    Returns (frame, start): frame is the list [v, sid, seq, ack, type, payload]
    or None, start the offset of the frame's '@' (bytes before it are not part
    of any frame: a device print cut short, or noise). Every '@' is tried, so a
    frame that follows a truncated one on the same line is still found.
    """
    n = len(line)
    if n and line[n - 1] == 13:  # '\r'
        line = line[: n - 1]
        n -= 1
    star = line.rfind(b"*")  # the last: a frame's own CRC ends the line
    if star < 0 or n - star != 9:
        return None, -1
    crc = line[star + 1 :]
    at = line.find(b"@")
    while 0 <= at < star:
        body = line[at + 1 : star]
        # compared as text: exactly 8 lower-case hex digits, nothing else
        if crc == ("%08x" % (binascii.crc32(body) & 0xFFFFFFFF)).encode():
            try:
                f = json.loads(body)
            except Exception:  # noqa: BLE001 - any malformed body is just not a frame
                f = None
            if type(f) is list and len(f) == 6:
                k = 0
                while k < 5 and type(f[k]) is int and f[k] >= 0:
                    k += 1
                if k == 5:
                    return f, at
        at = line.find(b"@", at + 1)
    return None, -1


class LineReader:
    """Splits a byte stream into lines in a fixed buffer of MAX_LINE bytes.

    feed() calls on_line(bytes) for every complete line; a line longer than
    the buffer is dropped whole (counted in `overlong`).
    """

    def __init__(self, on_line, size=MAX_LINE):
        self._buf = bytearray(size)
        self._mv = memoryview(self._buf)
        self._n = 0
        self._over = False
        self._on_line = on_line
        self.overlong = 0

    def feed(self, data):
        start = 0
        end = len(data)
        size = len(self._buf)
        while start < end:
            j = data.find(b"\n", start)
            if j >= 0 and self._n == 0 and not self._over:
                # the common case: a whole line in this block, no copy
                if j - start <= size:
                    self._on_line(data[start:j])
                else:
                    self.overlong += 1
                start = j + 1
                continue
            stop = end if j < 0 else j
            k = stop - start
            if not self._over:
                if self._n + k > size:
                    self._over = True
                    self.overlong += 1
                else:
                    self._mv[self._n : self._n + k] = data[start:stop]
                    self._n += k
            if j < 0:
                return
            if not self._over:
                self._on_line(bytes(self._mv[: self._n]))
            self._n = 0
            self._over = False
            start = j + 1


# ---------------------------------------------------------------- parts
# What a match rarely runs is in parts loaded when needed and dropped after
# (docs/firmware.md, "The link's parts"): ttlink_snap, the snapshots sent and
# received in chunks (loaded when one starts or its BEGIN arrives, dropped
# once none is under way: _snap_idle); ttlink_rare, the device end's set-up,
# handshake, SYNC and restart of its log (loaded for each, dropped after).


def _drop(name):
    # a part's module leaves the heap if it came from a .mpy file (the Pico,
    # the virtual table); one compiled from source (the tests under
    # MicroPython; CPython) is kept, as table._done keeps a table part
    m = sys.modules.get(name)
    if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
        del sys.modules[name]


def _snap_idle(link):
    if link._snap_out is None and link._snap_in is None:
        _drop("ttlink_snap")


# ttlink_rare's names interned now, with this module's: its first load is the
# link's set-up, but a host's HELLO loads it again, in a heap a match may have
# cut up, where it then opens no qstr pool (as table.py does for its parts)
import ttlink_rare  # noqa: E402

_drop("ttlink_rare")
del ttlink_rare  # (the module leaves the heap: no name here holds it)


# ---------------------------------------------------------------- link core


# What take_notes() returns when there is nothing: shared, never appended to.
_NO_NOTES = []

class _Link:
    """Session, reliable delivery, keepalive: what both ends share."""

    # the snapshot's vocabulary for ttlink_snap, which takes it from the link
    # it serves (it imports nothing of this module: no import cycle)
    SNAP = (SNAP_CHUNK, SNAP_BEGIN, SNAP_CHUNK_T, SNAP_DONE)

    # each end's own steps (DeviceLink's, ttlink_host.HostLink's), declared
    # for the type checker only (MicroPython keeps nothing of these)
    _control: "Callable[[int, int, int, Any], None]"
    _stale_frame: "Callable[[int], None]"
    _deliver_more: "Callable[[int, Any], None]"
    _acked: "Callable[[int, Any], None]"  # a reliable message of ours acked
    _limit: int  # the largest snapshot taken (ttlink_snap)
    # what ttlink_rare.link_init sets (the set-up of both ends)
    rto_min: int
    rto_max: int
    ping_ms: int
    down_ms: int
    state: int
    sid: int
    _reader: LineReader
    _out: "List[bytes]"
    _notes: "List[Any]"
    _snap_seq: int
    _now: int
    frames_in: int
    frames_out: int
    resent: int
    bad: int
    stale: int
    dups: int
    malformed: int
    bytes_out: int
    bytes_in: int

    def __init__(self, now, timing=None):
        # the set-up is ttlink_rare's (run once a link: not held through a match)
        import ttlink_rare

        ttlink_rare.link_init(self, now, timing or (RTO_MIN, _RTO_MAX, _PING_MS, _DOWN_MS), LineReader(self._line), DOWN)
        _drop("ttlink_rare")

    def _new_session(self, sid, now):
        self.sid = sid
        self._tx_seq = 1
        self._rx_last = 0
        self._pend = None  # [seq, type, payload, sent_at, rto]
        self._queue = []
        self._snap_out = None
        self._snap_in = None
        _snap_idle(self)
        self._ack_due = False
        self._last_rx = now
        self._last_tx = now

    # --- I/O surface

    def feed(self, data, now):
        """Bytes received from the peer, in any chunking."""
        self._now = now
        self.bytes_in += len(data)
        self._reader.feed(data)

    def take_output(self):
        """Bytes to write to the peer now, or None."""
        if not self._out:
            return None
        out = b"".join(self._out) if len(self._out) > 1 else self._out[0]
        self._out = []
        return out

    def take_notes(self):
        """Notifications for the application since the last call (a list of lists)."""
        n = self._notes
        if not n:
            return _NO_NOTES  # the idle loop's call allocates nothing
        self._notes = []
        return n

    def tick(self, now):
        self._now = now
        if self.state == UP:
            if ticks_diff(now, self._last_rx) >= self.down_ms:
                self._link_down("no frame for %d ms" % ticks_diff(now, self._last_rx))
                return
            p = self._pend
            if p is not None and ticks_diff(now, p[3]) >= p[4]:
                self.resent += 1
                p[4] = min(p[4] * 2, self.rto_max)
                p[3] = now
                self._emit(p[0], p[1], p[2])
            if ticks_diff(now, self._last_tx) >= self.ping_ms:
                self._emit(0, PING, [])

    def send_app(self, payload):
        """Queue an application message (an array) for reliable delivery;
        ValueError (nothing queued) if it cannot fit in a frame."""
        encode_frame(0xFFFF, 1 << 24, 1 << 24, APP, payload)  # raises if too long
        self._queue.append((APP, payload))
        self._pump()

    def busy(self):
        return self._pend is not None or bool(self._queue) or self._snap_out is not None

    # --- internals

    def _emit(self, seq, mtype, payload, sid=-1):
        frame = encode_frame(self.sid if sid < 0 else sid, seq, self._rx_last, mtype, payload)
        self._out.append(frame)
        self.frames_out += 1
        self.bytes_out += len(frame)
        self._last_tx = self._now
        self._ack_due = False

    def _note(self, *items):
        self._notes.append(list(items))

    def _line(self, line):
        f, at = decode_line(line)
        if f is None:
            if line.find(b"@[") >= 0:
                self.bad += 1  # a damaged frame
            elif line:
                self._junk(line)  # the peer's own text (prints, tracebacks)
            return
        if at > 0:
            self._junk(line[:at])
        self.frames_in += 1
        try:
            self._frame(f)
        except (IndexError, TypeError, ValueError, KeyError):
            # a well-formed frame with a payload we cannot use (a newer or
            # buggy peer): count it, never crash the table
            self.malformed += 1

    def _frame(self, f):
        v, sid, seq, ack, mtype, payload = f
        now = self._now
        if mtype == HELLO or mtype == WELCOME or mtype == ANNOUNCE:
            self._control(v, sid, mtype, payload)
            return
        if v != PROTO or self.state != UP or sid != self.sid:
            self.stale += 1
            self._stale_frame(sid)
            return
        self._last_rx = now
        p = self._pend
        if p is not None and ack >= p[0]:
            self._pend = None
            self._acked(p[1], p[2])
        if seq:
            if seq == self._rx_last + 1:
                self._rx_last = seq
                self._ack_due = True
                self._deliver(mtype, payload)
            elif seq <= self._rx_last:
                self.dups += 1
                self._ack_due = True
            else:
                self.stale += 1
        self._pump()
        if self._ack_due and self.state == UP:
            self._emit(0, ACK, [])

    def _pump(self):
        """Send the next reliable message if nothing is in flight."""
        if self.state != UP or self._pend is not None:
            return
        while True:
            m = self._next_message()
            if m is None:
                return
            seq = self._tx_seq
            try:
                self._emit(seq, m[0], m[1])
            except ValueError as exc:  # too long for a frame: never sendable
                self._note("dropped", m[0], str(exc))
                continue
            self._tx_seq = seq + 1
            self._pend = [seq, m[0], m[1], self._now, self.rto_min]
            return

    def _next_message(self):
        if self._queue:
            return self._queue.pop(0)
        s = self._snap_out
        if s is not None:
            m = s.next_message()
            if m is not None:
                return m
            self._snap_out = None
            _snap_idle(self)
        return None

    def _deliver(self, mtype, payload):
        if mtype == APP:
            self._note("app", payload)
        elif mtype == SNAP_BEGIN or mtype == SNAP_CHUNK_T:
            import ttlink_snap

            ttlink_snap.deliver(self, mtype, payload)
            _snap_idle(self)
        else:
            self._deliver_more(mtype, payload)

    # hooks (each end's own: _control, _deliver_more, _snapshot_received;
    # these two the device's as they are, the host's in ttlink_host)
    def _junk(self, text):
        pass

    def _link_down(self, why):
        self.state = DOWN
        self._new_session(0, self._now)
        self._note("down", why)


# ---------------------------------------------------------------- device end


class DeviceLink(_Link):
    """The table's end: answers the host's HELLO, streams game events.

    add_event(ev) appends to the event log (the device is authoritative);
    the last `ring` events are kept for replay after a reconnect. The
    application sets:
      snapshot_source() -> (data: bytes, count, head_hash)   (for SNAPREQ)
      on_snapshot(data, count, head_hash) -> '' or an error  (host push)
    """

    # the vocabulary for ttlink_rare, which takes it from the link it serves
    # (places: ttlink_rare's _PROTO ...; it imports nothing of this module)
    DEV = (PROTO, HELLO, WELCOME, ANNOUNCE, SYNC, SNAPREQ, UP, MAX_EVENT)

    # what ttlink_rare.init sets, declared for the type checker only (bare
    # annotations: MicroPython keeps nothing of them)
    boot_id: int
    table_uid: str
    rules_digest: str
    fw_version: str
    rules_id: str
    ring_size: int
    count: int
    head: int
    snapshot_source: "Optional[Callable[[], Tuple[bytes, int, int]]]"
    on_snapshot: "Optional[Callable[[bytes, int, int], str]]"
    _rand: "Callable[[], int]"
    _limit: int
    _nonce: int
    _welcome: "Optional[List[Any]]"
    _ring_n: int
    _ring_b: bytearray
    _ring_at: "Any"  # array('H'): where each slot's record starts in _ring_b
    _ring_len: "Any"  # array('H'): its length
    _ring_h: "Any"  # array('I'): its state hash
    _wpos: int
    _base: int
    _base_hash: int
    _tx_ev: int
    _ev_pend: int
    _last_ann: int

    def __init__(
        self,
        now,
        boot_id,
        rand,
        fw_version,
        rules_id,
        ring=64,
        timing=None,
        snap_limit=4096,
        table_uid="",
        ring_bytes=RING_BYTES,
    ):
        # the set-up is ttlink_rare's (run once): the identity, the ring
        import ttlink_rare as d

        d.init(self, boot_id, rand, fw_version, rules_id, ring, snap_limit, table_uid, ring_bytes)
        _Link.__init__(self, now, timing)
        d.announce(self)
        _drop("ttlink_rare")

    # --- game log

    def add_event(self, ev):
        """Append a game event (a flat list); returns its state hash.
        ValueError (nothing changed) if its JSON is longer than MAX_EVENT."""
        c = canonical(ev)
        n = len(c)
        if n > MAX_EVENT:
            raise ValueError("event of %d bytes is longer than MAX_EVENT=%d" % (n, MAX_EVENT))
        h = _chain(self.head, c)
        rb = self._ring_b
        w = self._wpos
        wrap = w + n > len(rb)  # written at the start: the buffer's end is left
        pos = 0 if wrap else w
        # the live records run from the oldest's start round to w, in order:
        # the oldest go while their slot is needed or their record starts in
        # what this one takes ([w, w + n), or from w round to n on a wrap)
        at = self._ring_at
        rh = self._ring_h
        rn = self._ring_n
        cnt = self.count
        b = self._base
        while cnt > b:
            k = b % rn
            if cnt - b < rn:
                a = at[k]
                if (n <= a < w) if wrap else (a < w or a >= w + n):
                    break
            self._base_hash = rh[k]
            b += 1
        self._base = b
        rb[pos : pos + n] = c
        slot = cnt % rn
        at[slot] = pos
        self._ring_len[slot] = n
        rh[slot] = h
        self._wpos = pos + n
        self.count = cnt + 1
        self.head = h
        self._pump()
        return h

    def restore(self, base, base_hash, events):
        """Rebuild the log after a reboot: `events` follow index `base`,
        whose preceding hash is `base_hash` (only the last that the ring
        holds are kept)."""
        import ttlink_rare

        ttlink_rare.restore(self, base, base_hash, events)
        _drop("ttlink_rare")

    def hash_at(self, i):
        """Hash after event i, if the ring still knows it (i = -1: before event 0)."""
        if i == self._base - 1:
            return self._base_hash
        if self._base <= i < self.count:
            return self._ring_h[i % self._ring_n]
        return None

    # --- link hooks: the rare ones in ttlink_rare

    def _control(self, v, sid, mtype, payload):
        if mtype == HELLO:
            import ttlink_rare

            ttlink_rare.hello(self, v, payload)
            _drop("ttlink_rare")

    def _stale_frame(self, sid):
        # The host talks to a session we do not have (we rebooted, or it is
        # stale): tell it who we are, at most every ANNOUNCE_GAP ms.
        if ticks_diff(self._now, self._last_ann) >= _ANNOUNCE_GAP:
            import ttlink_rare

            ttlink_rare.announce(self)
            _drop("ttlink_rare")

    def _deliver_more(self, mtype, payload):
        if mtype == SYNC or mtype == SNAPREQ:
            import ttlink_rare

            ttlink_rare.deliver(self, mtype, payload)
            _drop("ttlink_rare")

    def _next_message(self):
        m = _Link._next_message(self)
        if m is not None:
            return m
        i = self._tx_ev
        if 0 <= i < self.count:
            if i < self._base:  # overrun while sending: the host needs a snapshot
                import ttlink_snap

                ttlink_snap.send_own(self)
                return _Link._next_message(self)
            self._ev_pend = i
            slot = i % self._ring_n
            a = self._ring_at[slot]
            # the payload [i, hash, event] as JSON bytes, the event's own
            # straight from the ring (encode_frame puts bytes in as they are)
            return EVENT, b"".join((b"[%d,%d," % (i, self._ring_h[slot]), self._ring_b[a : a + self._ring_len[slot]], b"]"))
        return None

    def _acked(self, mtype, payload):
        # one reliable message is in flight at a time: an acked EVENT is the
        # one _ev_pend names, unless a SYNC or a snapshot moved the pointer
        # since (-1: an EVENT still in flight must not move it when acked later)
        if mtype == EVENT and self._ev_pend >= 0:
            self._tx_ev = self._ev_pend + 1
            self._ev_pend = -1

    def _link_down(self, why):
        _Link._link_down(self, why)
        self._tx_ev = -1  # no event is sent until the next session's SYNC
        self._ev_pend = -1
        self._welcome = None

