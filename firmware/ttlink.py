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
from array import array

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

# Link states.
DOWN = const(0)
HANDSHAKE = const(1)
UP = const(2)
INCOMPATIBLE = const(3)

# Timings in milliseconds (defaults; both classes take overrides).
RTO_MIN = const(200)
RTO_MAX = const(2000)
PING_MS = const(1000)
DOWN_MS = const(3000)
HELLO_MAX = const(1000)
ANNOUNCE_GAP = const(500)

_IS_CPY = sys.implementation.name != "micropython"
_SEP = (",", ":")
_CPY_KW = {"ensure_ascii": False}

if _IS_CPY:
    import re as _re

    # CPython writes \b and \f; MicroPython writes \u0008 and \u000c. The
    # canonical form (what the device hashes) is MicroPython's.
    _BF = _re.compile(r"(?<!\\)((?:\\\\)*)\\([bf])")

    def _bf(m):  # type: ignore[no-untyped-def]
        return m.group(1) + ("\\u0008" if m.group(2) == "b" else "\\u000c")

    def dumps(obj):  # type: ignore[no-untyped-def]
        s = json.dumps(obj, separators=_SEP, **_CPY_KW)  # type: ignore[arg-type]
        if "\\b" in s or "\\f" in s:
            s = _BF.sub(_bf, s)
        return s

else:

    def dumps(obj):
        return json.dumps(obj, separators=_SEP)


def canonical(value):
    """The canonical JSON bytes of a value (compact, UTF-8, MicroPython escapes)."""
    return dumps(value).encode()


_HB = bytearray(4)


def chain_hash(prev, event):
    """State hash after `event` given the hash `prev` before it (docs/protocol.md, "The state hash").

    crc32 over prev as 4 big-endian bytes followed by the event's canonical
    JSON bytes; the hash before event 0 is 0.
    """
    return _chain(prev, canonical(event))


def _chain(prev, data):
    hb = _HB
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


def _try_frame(line, at):
    star = line.rfind(b"*")
    if star <= at or len(line) - star != 9:
        return None
    body = line[at + 1 : star]
    # compared as text: exactly 8 lower-case hex digits, nothing else
    if line[star + 1 :] != ("%08x" % (binascii.crc32(body) & 0xFFFFFFFF)).encode():
        return None
    try:
        f = json.loads(body)
    except Exception:  # noqa: BLE001 - any malformed body is just not a frame
        return None
    if type(f) is not list or len(f) != 6:
        return None
    for k in range(5):
        if type(f[k]) is not int or f[k] < 0:
            return None
    return f


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
    at = line.find(b"@")
    while at >= 0:
        f = _try_frame(line, at)
        if f is not None:
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

    def reset(self):
        self._n = 0
        self._over = False


# ---------------------------------------------------------------- snapshots
# Sent and received in chunks by ttlink_snap.py, loaded when one starts or its
# BEGIN arrives and dropped once none is under way (_snap_idle): the table
# holds its code only then (as persist loads persistload for a read).


def _snap():
    import ttlink_snap

    return ttlink_snap


def _snap_idle(link):
    # no snapshot under way: its module leaves the heap if it came from a
    # .mpy file (the Pico, the virtual table); one compiled from source (the
    # tests under MicroPython; CPython) is kept, as table._done keeps a part
    if link._snap_out is None and link._snap_in is None:
        m = sys.modules.get("ttlink_snap")
        if m is not None and not getattr(m, "__file__", ".py").endswith(".py"):
            del sys.modules["ttlink_snap"]


# ---------------------------------------------------------------- link core


# What take_notes() returns when there is nothing: shared, never appended to.
_NO_NOTES = []

class _Link:
    """Session, reliable delivery, keepalive: what both ends share."""

    # the snapshot's vocabulary for ttlink_snap, which takes it from the link
    # it serves (it imports nothing of this module: no import cycle)
    SNAP = (SNAP_CHUNK, SNAP_BEGIN, SNAP_CHUNK_T, SNAP_DONE)

    def __init__(self, now, timing=None):
        t = timing or (RTO_MIN, RTO_MAX, PING_MS, DOWN_MS)
        self.rto_min, self.rto_max, self.ping_ms, self.down_ms = t
        self.state = DOWN
        self.sid = 0
        self._reader = LineReader(self._line)
        self._out = []  # encoded frames waiting for take_output()
        self._notes = []
        self._snap_seq = 0
        self._now = now
        self._new_session(0, now)
        # counters
        self.frames_in = 0
        self.frames_out = 0
        self.resent = 0
        self.bad = 0
        self.stale = 0
        self.dups = 0
        self.malformed = 0
        self.bytes_out = 0
        self.bytes_in = 0

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
        self._tick_state(now)

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

    def _junk(self, text):
        pass

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

    def _acked(self, mtype, payload):
        pass

    def _deliver(self, mtype, payload):
        if mtype == APP:
            self._note("app", payload)
        elif mtype == SNAP_BEGIN or mtype == SNAP_CHUNK_T:
            _snap().deliver(self, mtype, payload)
            _snap_idle(self)
        else:
            self._deliver_more(mtype, payload)

    def _start_snapshot(self, data, count, head):
        # no _pump() here: callers are inside _frame() (which pumps after
        # delivering) or public methods (which pump themselves)
        return _snap().start(self, data, count, head)

    # hooks
    def _snap_limit(self) -> int:
        return 1 << 30

    def _snapshot_received(self, data, count, head) -> str:
        return ""

    def _deliver_more(self, mtype, payload):
        pass

    def _control(self, v, sid, mtype, payload):
        pass

    def _stale_frame(self, sid):
        pass

    def _tick_state(self, now):
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
        if ring_bytes < MAX_EVENT or ring_bytes > 65535:
            raise ValueError("ring_bytes=%d: give %d to 65535 (the longest event must fit)" % (ring_bytes, MAX_EVENT))
        self.boot_id = boot_id
        # the table's own identity (hex of machine.unique_id(); "" unknown):
        # the ninth WELCOME field, so a host tells two tables apart
        self.table_uid = table_uid
        # the rules digest (tableconfig.Options.digest, set by the app; ""
        # unknown): the tenth WELCOME field, so a host sees the rules the table plays
        self.rules_digest = ""
        self._rand = rand
        self.fw_version = fw_version
        self.rules_id = rules_id
        self._limit = snap_limit
        self._nonce = -1
        self._welcome = None
        self._ring_n = ring
        self.ring_size = ring
        # the ring (docs/protocol.md, "The ring"): each event's canonical JSON
        # bytes, one after the other in one preallocated buffer (a record that
        # does not fit before its end goes at its start), its place and length
        # and its state hash per slot: four objects, however many events
        self._ring_b = bytearray(ring_bytes)
        self._ring_at = array("H", [0] * ring)
        self._ring_len = array("H", [0] * ring)
        self._ring_h = array("I", [0] * ring)  # unboxed: crc32 values pass 2**30
        self._wpos = 0  # where the next record goes
        self.count = 0
        self.head = 0
        self._base = 0  # oldest index that can be replayed
        self._base_hash = 0  # hash before event _base
        self._tx_ev = -1  # next event to send; -1 until the host says SYNC
        self._ev_pend = -1
        self._last_ann = None
        self.snapshot_source = None  # type: Optional[Callable[[], Tuple[bytes, int, int]]]
        self.on_snapshot = None  # type: Optional[Callable[[bytes, int, int], str]]
        _Link.__init__(self, now, timing)
        self._announce()

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
        self.count = base
        self.head = base_hash
        self._base = base
        self._base_hash = base_hash
        self._wpos = 0
        for ev in events:
            self.add_event(ev)

    def hash_at(self, i):
        """Hash after event i, if the ring still knows it (i = -1: before event 0)."""
        if i == self._base - 1:
            return self._base_hash
        if self._base <= i < self.count:
            return self._ring_h[i % self._ring_n]
        return None

    # --- link hooks

    def _announce(self):
        self._last_ann = self._now
        self._emit(0, ANNOUNCE, [PROTO, self.fw_version, self.rules_id, self.boot_id, self.sid], sid=0)

    def _control(self, v, sid, mtype, payload):
        p = payload
        if mtype != HELLO:
            return
        if v != PROTO:
            self._announce()
            return
        try:
            nonce, have, have_hash = p[3], p[4], p[5]
        except (IndexError, TypeError):
            return
        if self.state == UP and nonce == self._nonce and self._welcome is not None:
            # a retried HELLO: same answer, same session
            self._emit(0, WELCOME, self._welcome)
            return
        new_sid = self._rand() & 0xFFFF or 1
        self._new_session(new_sid, self._now)
        self.state = UP
        self._nonce = nonce
        self._set_tx(-1)
        known = self.hash_at(have - 1) if have <= self.count else None
        agree = -1 if known is None else (1 if known == have_hash else 0)
        self._welcome = [
            PROTO,
            self.fw_version,
            self.rules_id,
            self.boot_id,
            nonce,
            self.count,
            self.head,
            agree,
            self.table_uid,
            self.rules_digest,
        ]
        self._emit(0, WELCOME, self._welcome)
        self._note("up", new_sid)

    def _stale_frame(self, sid):
        # The host talks to a session we do not have (we rebooted, or it is
        # stale): tell it who we are, at most every ANNOUNCE_GAP ms.
        if self._last_ann is None or ticks_diff(self._now, self._last_ann) >= ANNOUNCE_GAP:
            self._announce()

    def _deliver_more(self, mtype, payload):
        p = payload
        if mtype == SYNC:
            frm = p[0]
            if frm < self._base or frm > self.count:
                self._send_own_snapshot()
            else:
                self._set_tx(frm)
        elif mtype == SNAPREQ:
            self._send_own_snapshot()

    def _set_tx(self, i):
        # an EVENT still in flight must not move the pointer when acked later
        self._tx_ev = i
        self._ev_pend = -1

    def _send_own_snapshot(self):
        _snap().send_own(self)

    def _next_message(self):
        m = _Link._next_message(self)
        if m is not None:
            return m
        i = self._tx_ev
        if 0 <= i < self.count:
            if i < self._base:  # overrun while sending: the host needs a snapshot
                self._send_own_snapshot()
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
        # one _ev_pend names, unless _set_tx moved the pointer since (-1)
        if mtype == EVENT and self._ev_pend >= 0:
            self._tx_ev = self._ev_pend + 1
            self._ev_pend = -1

    def _snap_limit(self) -> int:
        return self._limit

    def _snapshot_received(self, data, count, head) -> str:
        return _snap().applied(self, data, count, head)

    def _link_down(self, why):
        _Link._link_down(self, why)
        self._set_tx(-1)
        self._welcome = None

