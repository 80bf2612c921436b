# Snapshots over the host-table link, both ends (docs/protocol.md, "The
# ring, reboots and snapshots"): one sent in chunks (SnapOut), one received
# (SnapIn), and the link's steps around them.
#
# ttlink.py loads this module when a snapshot starts or a SNAP_BEGIN arrives,
# and drops it once no snapshot is under way (ttlink._snap_idle): a table
# holds its code only while one is sent or received (after a reconnect whose
# history the ring cannot replay, or a host's push), never during play. Like
# ttlink, written in the subset CPython and MicroPython both accept, no I/O.
#
# The message types and the chunk size are ttlink's, taken from the link
# served (`link.SNAP`: SNAP_CHUNK, SNAP_BEGIN, SNAP_CHUNK_T, SNAP_DONE), so
# that this module imports nothing of ttlink (which loads it: no cycle).
#
# Dependencies: binascii (on the rp2 port).
import binascii


class SnapOut:
    def __init__(self, sid, data, count, head, snap):
        self.id = sid
        self.data = data
        self.count = count
        self.head = head
        self.snap = snap  # ttlink's SNAP
        self.n = (len(data) + snap[0] - 1) // snap[0]
        self.next = -1  # -1: BEGIN not yet sent

    def next_message(self):
        chunk, begin, chunk_t = self.snap[0], self.snap[1], self.snap[2]
        if self.next < 0:
            self.next = 0
            crc = binascii.crc32(self.data) & 0xFFFFFFFF
            return begin, [self.id, len(self.data), self.n, crc, self.count, self.head]
        if self.next >= self.n:
            return None
        k = self.next
        self.next = k + 1
        raw = self.data[k * chunk : (k + 1) * chunk]
        return chunk_t, [self.id, k, binascii.b2a_base64(raw).decode().strip()]


class SnapIn:
    def __init__(self, p, limit):
        self.ok = False
        self.error = ""
        if len(p) != 6 or p[1] < 0 or p[2] < 0 or p[1] > limit:
            self.id = p[0] if p else 0
            self.error = "snapshot too large or malformed"
            return
        self.id, self.total, self.n, self.crc, self.count, self.head = p
        self.buf = bytearray(self.total)
        self.got = 0
        self.pos = 0

    def chunk(self, p):
        """Take one chunk; returns None while incomplete, else an error or ''."""
        if self.error:
            return self.error
        try:
            raw = binascii.a2b_base64(p[2])
        except Exception:  # noqa: BLE001
            raw = None
        if p[1] != self.got or raw is None or self.pos + len(raw) > self.total:
            self.error = "chunk %d out of order or malformed" % p[1]
            return self.error
        self.buf[self.pos : self.pos + len(raw)] = raw
        self.pos += len(raw)
        self.got += 1
        if self.got < self.n:
            return None
        if self.pos != self.total:
            return "snapshot length %d, announced %d" % (self.pos, self.total)
        if binascii.crc32(self.buf) & 0xFFFFFFFF != self.crc:
            return "snapshot checksum mismatch"
        self.ok = True
        return ""


def deliver(link, mtype, payload):
    """A SNAP_BEGIN or SNAP_CHUNK delivered to `link` (either end)."""
    if mtype == link.SNAP[1]:
        s = link._snap_in = SnapIn(payload, link._limit)
        if s.error:
            failed(link, s.id, s.error)
        return
    s = link._snap_in
    if s is None or not payload or payload[0] != s.id:
        return
    err = s.chunk(payload)
    if err is None:
        return
    link._snap_in = None
    if err:
        failed(link, s.id, err)
        return
    # the host's end takes a snapshot its own way (HostLink._snapshot_received);
    # the device's is applied here
    own = getattr(link, "_snapshot_received", None)
    data = bytes(s.buf)
    err = applied(link, data, s.count, s.head) if own is None else own(data, s.count, s.head)
    if err:
        failed(link, s.id, err)
    else:
        link._queue.append((link.SNAP[3], [s.id, 1, ""]))


def failed(link, sid, err):
    link._snap_in = None
    link._queue.append((link.SNAP[3], [sid, 0, err]))
    link._note("snapshot_rejected", sid, err)


def start(link, data, count, head):
    """Send `data` (the state after `count` events, hash `head`); its id."""
    link._snap_seq += 1
    link._snap_out = SnapOut(link._snap_seq, data, count, head, link.SNAP)
    return link._snap_seq


def send_own(link):
    """The device's snapshot (its snapshot_source), on SNAPREQ or a SYNC its
    ring cannot serve."""
    link._tx_ev = -1  # no event is sent while the snapshot goes
    link._ev_pend = -1
    src = link.snapshot_source
    if src is None:
        link._queue.append((link.SNAP[3], [0, 0, "device has no snapshot source"]))
        return
    data, count, head = src()
    start(link, data, count, head)


def applied(link, data, count, head):
    """The device's answer to a whole snapshot from the host: '' once its
    on_snapshot has swapped it in (the log restarts at `count`), else why not."""
    cb = link.on_snapshot
    if cb is None:
        return "device does not accept snapshots"
    err = cb(data, count, head)
    if err:
        return err
    link.restore(count, head, ())
    link._tx_ev = count
    link._ev_pend = -1
    link._note("snapshot_applied", count, head)
    return ""
