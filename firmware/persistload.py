# The snapshot store's read path (persist.Store.load): read at boot, loaded
# for the read and dropped after (persist._drop), so that the table does not
# keep its code through the match (docs/firmware.md, "Heap").
#
# load() takes table.json, or the .new beside it when that one is whole and
# newer (a later event index: field 13 of the snapshot): a power cut between
# the close of .new and the rename leaves the newer state there; with neither,
# the store's old path (where an older firmware saved). A file whose
# crc does not match (a torn write) or that does not parse is ignored, with
# the reason kept in Store.last_error. The tricks (field 17) are on flash as
# the base64 of their packed bytes (persist._dense): they are made the
# snapshot's lists again here; a file of an older firmware, whose tricks are
# lists, is read as it is.
# Dependencies: json, binascii (both on the rp2 port).
import binascii
import json


def init(store, path, in_place, old):
    """persist.Store.__init__'s body."""
    store.path = path
    store.old = old
    store.tmp = path + ".new"
    store.last_error = ""
    store.saves = 0
    store._f = None  # the file of the save under way, or None
    store.crc = 0
    # the save's frozen form (begin): the text being written (the fields
    # before the tricks, then those after them), from where to where, the
    # text after the tricks, the tricks and their count, the next trick
    store._text = None
    store._tail = None
    store._at = 0
    store._stop = 0
    store._tricks = None
    store._n = 0
    store._i = 0
    store._rest = b""  # the tricks' packed bytes not yet in base64 (0-2)
    store.in_place = in_place
    # in_place: a .new left by an older firmware is removed at the first
    # save (load() would still prefer it over an older table.json), and
    # the snapshot at ``old``
    store._stale = in_place or old is not None


def load(store, magic):
    """The last snapshot ``store`` (a persist.Store) saved, or None (then
    store.last_error says why, if a file was bad); ``magic``: the files' last
    line's first word (persist.MAGIC: persist imports this module, not the
    other way round)."""
    store.last_error = ""
    snap = _read(store, store.path, magic)
    err = store.last_error
    new = _read(store, store.tmp, magic)
    if new is not None and (snap is None or _index(new) > _index(snap)):
        return new
    store.last_error = err
    if snap is None and store.old is not None:
        # nothing saved at the path yet: an older firmware's snapshot
        # (persist.Store's old, removed by the first save)
        snap = _read(store, store.old, magic)
        if snap is not None:
            store.last_error = ""
    return snap


def _read(store, path, magic):
    try:
        f = open(path)
    except OSError:
        return None
    try:
        text = f.read()
    finally:
        f.close()
    nl = text.rfind("\n", 0, len(text) - 1)
    tail = text[nl + 1 :].split() if nl >= 0 else []
    if len(tail) != 2 or tail[0] != magic:
        store.last_error = "%s: not a table snapshot file (or cut short)" % path
        return None
    body = text[:nl]
    if "%08x" % (binascii.crc32(body.encode()) & 0xFFFFFFFF) != tail[1]:
        store.last_error = "%s: checksum mismatch (a torn or damaged write)" % path
        return None
    try:
        snap = json.loads(body)
        if len(snap) > 17 and isinstance(snap[17], str):
            snap[17] = _tricks(binascii.a2b_base64(snap[17]))
        return snap
    except (ValueError, IndexError, TypeError):
        store.last_error = "%s: body does not parse" % path
        return None


def _tricks(b):
    # the tricks' packed bytes (persist._dense) as the snapshot's lists
    # [leader, winner, points, forced, p0, p1, p2, p3]
    out = []
    i = 0
    while i < len(b):
        h = b[i]
        i += 1
        pts = 0
        if h & 64:
            pts = b[i] << 8
            i += 1
        pts |= b[i]
        i += 1
        if h & 32:
            counts = (b[i],) * 4
            i += 1
        else:
            counts = b[i : i + 4]
            i += 4
        tr = [h & 3, h >> 2 & 3, pts, h >> 4 & 1]
        for n in counts:
            if i + n > len(b):
                raise ValueError("tricks cut short")
            tr.append(list(b[i : i + n]))
            i += n
        if len(tr) != 8:
            raise ValueError("tricks cut short")
        out.append(tr)
    return out


def _index(snap):
    # the event index a snapshot was taken at (snaplayout.F_EV_INDEX)
    try:
        return int(snap[13])
    except (IndexError, TypeError, ValueError):
        return -1
