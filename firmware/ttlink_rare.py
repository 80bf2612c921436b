# The link's code that a table rarely runs (docs/firmware.md, "The link's
# parts"; docs/protocol.md, "State machines", "The ring, reboots and
# snapshots"): the device end's set-up at boot, its ANNOUNCE, its answer to a
# HELLO (a new session and its WELCOME), the host's SYNC and SNAPREQ, and the
# restart of its log after a reboot or a snapshot; and the canonical JSON
# under CPython (the host's, never run on the table).
#
# ttlink.DeviceLink loads this module for each of these steps and drops it
# after (ttlink._drop, as table._done drops a table part): the table holds
# its code only while a host connects or a log restarts, never on the
# per-event path (add_event, the frames in and out, the acks), which stays in
# ttlink. Its first load, at boot (the link's set-up), interns its names
# then, so that a load in a heap a match has cut up opens no qstr pool.
#
# Like ttlink, written in the subset CPython and MicroPython both accept, no
# I/O. The device's vocabulary comes from the link served (`link.DEV`,
# indexed by the constants below), so that this module imports nothing of
# ttlink (which loads it: no import cycle).
#
# Dependencies: array (on the rp2 port); json and re under CPython only.
from array import array

try:
    from micropython import const
except ImportError:

    def const(x):  # type: ignore[no-redef]
        return x


# places in ttlink.DeviceLink.DEV
_PROTO = const(0)
_HELLO = const(1)
_WELCOME = const(2)
_ANNOUNCE = const(3)
_SYNC = const(4)
_SNAPREQ = const(5)
_UP = const(6)
_MAX_EVENT = const(7)


def link_init(link, now, timing, reader, down):
    """ttlink._Link.__init__'s body (both ends: the device's DeviceLink, the
    host's HostLink): the timings, the line reader given, the first session
    and the counters."""
    link.rto_min, link.rto_max, link.ping_ms, link.down_ms = timing
    link.state = down
    link.sid = 0
    link._reader = reader
    link._out = []  # encoded frames waiting for take_output()
    link._notes = []
    link._snap_seq = 0
    link._now = now
    link._new_session(0, now)
    # counters
    link.frames_in = 0
    link.frames_out = 0
    link.resent = 0
    link.bad = 0
    link.stale = 0
    link.dups = 0
    link.malformed = 0
    link.bytes_out = 0
    link.bytes_in = 0


def init(link, boot_id, rand, fw_version, rules_id, ring, snap_limit, table_uid, ring_bytes):
    """DeviceLink.__init__'s own part (the rest is _Link.__init__): its
    identity and the ring, or ValueError before anything is set."""
    least = link.DEV[_MAX_EVENT]
    if ring_bytes < least or ring_bytes > 65535:
        raise ValueError("ring_bytes=%d: give %d to 65535 (the longest event must fit)" % (ring_bytes, least))
    link.boot_id = boot_id
    # the table's own identity (hex of machine.unique_id(); "" unknown):
    # the ninth WELCOME field, so a host tells two tables apart
    link.table_uid = table_uid
    # the rules digest (tableconfig.Options.digest, set by the app; ""
    # unknown): the tenth WELCOME field, so a host sees the rules the table plays
    link.rules_digest = ""
    link._rand = rand
    link.fw_version = fw_version
    link.rules_id = rules_id
    link._limit = snap_limit
    link._nonce = -1
    link._welcome = None
    link._ring_n = ring
    link.ring_size = ring
    # the ring (docs/protocol.md, "The ring"): each event's canonical JSON
    # bytes, one after the other in one preallocated buffer (a record that
    # does not fit before its end goes at its start), its place and length
    # and its state hash per slot: four objects, however many events
    link._ring_b = bytearray(ring_bytes)
    link._ring_at = array("H", [0] * ring)
    link._ring_len = array("H", [0] * ring)
    link._ring_h = array("I", [0] * ring)  # unboxed: crc32 values pass 2**30
    link._wpos = 0  # where the next record goes
    link.count = 0
    link.head = 0
    link._base = 0  # oldest index that can be replayed
    link._base_hash = 0  # hash before event _base
    link._tx_ev = -1  # next event to send; -1 until the host says SYNC
    link._ev_pend = -1
    link._last_ann = None
    link.snapshot_source = None
    link.on_snapshot = None


def announce(link):
    """The ANNOUNCE: at boot, and to a host that talks to a session the
    device does not have (at most every ANNOUNCE_GAP ms: ttlink)."""
    d = link.DEV
    link._last_ann = link._now
    link._emit(0, d[_ANNOUNCE], [d[_PROTO], link.fw_version, link.rules_id, link.boot_id, link.sid], sid=0)


def hello(link, v, payload):
    """A host's HELLO: a new session and its WELCOME; the same WELCOME again
    for a retried HELLO (the same nonce) of the session under way."""
    d = link.DEV
    proto = d[_PROTO]
    if v != proto:
        announce(link)
        return
    try:
        nonce, have, have_hash = payload[3], payload[4], payload[5]
    except (IndexError, TypeError):
        return
    if link.state == d[_UP] and nonce == link._nonce and link._welcome is not None:
        # a retried HELLO: same answer, same session
        link._emit(0, d[_WELCOME], link._welcome)
        return
    new_sid = link._rand() & 0xFFFF or 1
    link._new_session(new_sid, link._now)
    link.state = d[_UP]
    link._nonce = nonce
    link._tx_ev = -1  # no event is sent until the host's SYNC
    link._ev_pend = -1
    known = link.hash_at(have - 1) if have <= link.count else None
    agree = -1 if known is None else (1 if known == have_hash else 0)
    link._welcome = [
        proto,
        link.fw_version,
        link.rules_id,
        link.boot_id,
        nonce,
        link.count,
        link.head,
        agree,
        link.table_uid,
        link.rules_digest,
    ]
    link._emit(0, d[_WELCOME], link._welcome)
    link._note("up", new_sid)


def deliver(link, mtype, payload):
    """The host's SYNC (send events from an index on: from the ring, or the
    snapshot when the ring no longer holds it) and SNAPREQ."""
    # the host is up: no HELLO of this session comes again (the host sends
    # one again only while it waits for the WELCOME), so none is answered
    # with the WELCOME kept for it
    link._welcome = None
    d = link.DEV
    if mtype == d[_SYNC]:
        frm = payload[0]
        if frm < link._base or frm > link.count:
            _send_own(link)
        else:
            link._tx_ev = frm
            link._ev_pend = -1  # an EVENT in flight does not move it when acked
    elif mtype == d[_SNAPREQ]:
        _send_own(link)


def _send_own(link):
    import ttlink_snap

    ttlink_snap.send_own(link)


def restore(link, base, base_hash, events):
    """DeviceLink.restore: the log restarts after event `base - 1`, whose
    hash is `base_hash`, and takes `events` (the ring keeps the last)."""
    link.count = base
    link.head = base_hash
    link._base = base
    link._base_hash = base_hash
    link._wpos = 0
    for ev in events:
        link.add_event(ev)


# ---------------------------------------------------------------- the host's JSON
# ttlink.dumps under CPython (the host loads ttlink from the same file; the
# table never runs this): CPython writes \b and \f where MicroPython writes
# \u0008 and \u000c, and escapes what is not ASCII unless told not to. The
# canonical form (what the device hashes: docs/protocol.md, "The state
# hash") is MicroPython's.


def cpy_dumps(obj):
    import json
    import re

    s = json.dumps(obj, separators=(",", ":"), **{"ensure_ascii": False})  # (MicroPython's stub has no such keyword)
    if "\\b" in s or "\\f" in s:
        s = re.sub(r"(?<!\\)((?:\\\\)*)\\([bf])", _bf, s)
    return s


def _bf(m):
    return m.group(1) + ("\\u0008" if m.group(2) == "b" else "\\u000c")
