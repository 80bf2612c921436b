# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# ruff: noqa: UP031
# The MicroPython side of the power-cut soak (tractor_table/sim/board/flashsoak.py).
#
# One run of this script is one boot of the table: it mounts the littlefs of
# a flash image (norflash.NorFlash), restores the table core from the snapshot
# there as main.py does at boot (persist.Store.load, Table.restore), plays the
# recorded inputs on from where that snapshot was taken, saving after every
# take_save() exactly as main.py does, until the power is cut at the flash
# operation asked for (or the inputs end).
#
#   micropython flashsoak_mp.py ref  DECKS ACTIONS IMAGE
#       the uncut reference run (the image is formatted first)
#   micropython flashsoak_mp.py boot DECKS ACTIONS IMAGE REF CUT_AFTER SEED MANIFEST
#       a boot: the power goes at the CUT_AFTER-th erase or program after the
#       mount (0: never); REF lists the reference's saves ("crc action" lines),
#       MANIFEST the files that must be intact ("name size crc" lines)
#
# ACTIONS: the inputs, 3 bytes each: kind (0 new match, 1 tap, 2 OK button,
# 3 tap at the dealer's seat), seat, card.
# Output lines (the host parses them; anything else is ignored):
#   S k action ev crc flash_us serialise_us ops hand tricks erases pages    a save (ref)
#   H hand action crc ev_hash                       a hand's end (its snapshot)
#   B k resume ev                                    booted: restored save k
#                                                    (-1: none on flash)
#   X what                                           corrupt or wrong (a failure)
#   C op kind how part action ev                     the power was cut
#   F crc ev_hash                                    the inputs ended
import binascii
import gc
import json
import sys
import time

import events as E
import norflash
import persist
import table as T
import tablerules
import ttlink
import vfs

MOUNT = "/flash"
# the actions, flat: (kind, seat, card)
NEW = 0
TAP = 1
OK = 2
TAP_DEALER = 3


class Clock:
    def __init__(self):
        self.now_us = 0

    def advance_us(self, us):
        self.now_us += us

    def sleep_us(self, us):
        self.now_us += us


class Actions:
    """The recorded inputs, 3 bytes each (kind, seat, card), read from the
    host's file one at a time (the whole list would not fit the heap)."""

    def __init__(self, path):
        self.f = open(path, "rb")
        self.f.seek(0, 2)
        self.n = self.f.tell() // 3
        self.f.seek(0)
        self.buf = bytearray(3)
        self.at = -1

    def get(self, i):
        if i != self.at + 1:
            self.f.seek(3 * i)
        self.f.readinto(self.buf)
        self.at = i
        return self.buf


def act(t, a):
    k = a[0]
    seat = a[1]
    card = a[2]
    if k == NEW:
        t.command([T.CMD_NEW_MATCH])
    elif k == TAP:
        t.tap(seat, card, 0)
    elif k == OK:
        t.button(seat, E.BTN_OK, 0)
    else:
        t.tap(t.dealer, card, 0)
    for _i, _h, ev in t.take_events():
        if ev[0] == E.REJECT:
            raise RuntimeError("the table refused a recorded input: %r" % (ev,))


def snap_crc(t):
    return binascii.crc32(json.dumps(t.snapshot()).encode()) & 0xFFFFFFFF


def hand_end(t, i):
    if t.phase == T.HAND_END:
        print("H", t.hand_no, i, snap_crc(t), t.ev_hash)


def mount(nf):
    try:
        fs = vfs.VfsLfs2(nf, progsize=256)
    except OSError as exc:
        return "mount failed: %r" % (exc,)
    vfs.mount(fs, MOUNT)
    return ""


def ref(decks, acts, image):
    clock = Clock()
    nf = norflash.NorFlash(image, clock)
    vfs.VfsLfs2.mkfs(nf, progsize=256)
    mount(nf)
    store = persist.Store(MOUNT + "/save/table.json", in_place=True)  # as picoboard.PicoBoard
    t = T.Table(tablerules.TableRules(decks), decks=decks, chain_hash=ttlink.chain_hash)
    t.take_save()
    t.take_events()
    k = 0
    for i in range(acts.n):
        a = acts.get(i)
        act(t, a)
        if t.take_save():
            crc = snap_crc(t)
            # the snapshot serialised, as the save does (the CPU part of a
            # save): the best of three after a collection (no gc pause in it)
            sink = _NullOut()
            ser = 1 << 30
            for _ in range(3):
                gc.collect()
                t0 = time.ticks_us()
                w = persist.Store()
                w._start(sink, t.snapshot(True))
                while w._more():
                    pass
                ser = min(ser, time.ticks_diff(time.ticks_us(), t0))
            sink = w = None
            v0 = clock.now_us
            o0 = nf.ops
            e0 = nf.erases
            p0 = nf.prog_pages
            store.save(t.snapshot(True))
            gc.collect()
            print("S", k, i, t.ev_index, crc, clock.now_us - v0, ser, nf.ops - o0,
                  t.hand_no, len(t.tricks), nf.erases - e0, nf.prog_pages - p0)
            k += 1
        if a[0] != NEW:
            hand_end(t, i)
    print("F", snap_crc(t), t.ev_hash)
    vfs.umount(MOUNT)
    nf.close()


class _NullOut:
    def write(self, b):
        return len(b)


def check_files(manifest):
    bad = []
    f = open(manifest)
    lines = f.read().split("\n")
    f.close()
    buf = bytearray(1024)
    for line in lines:
        if not line:
            continue
        name, size, crc = line.split()
        try:
            g = open(MOUNT + "/" + name, "rb")
        except OSError:
            bad.append(name + " missing")
            continue
        c = 0
        n = 0
        try:
            while True:
                k = g.readinto(buf)
                if not k:
                    break
                c = binascii.crc32(memoryview(buf)[:k], c)
                n += k
        finally:
            g.close()
        if n != int(size) or (c & 0xFFFFFFFF) != int(crc):
            bad.append(name + " damaged")
    return bad


def find_save(refpath, crc):
    """(k, action) of the reference's save with this crc, or (-1, -1)."""
    f = open(refpath)
    k = 0
    try:
        while True:
            line = f.readline()
            if not line:
                return -1, -1
            c, i = line.split()
            if int(c) == crc:
                return k, int(i)
            k += 1
    finally:
        f.close()


def boot(decks, acts, image, refpath, cut_after, seed, manifest):
    clock = Clock()
    nf = norflash.NorFlash(image, clock)
    nf.seed(seed)
    why = mount(nf)
    if why:
        print("X", why)
        return
    bad = check_files(manifest) if manifest != "-" else []
    if bad:
        print("X files:", ", ".join(bad))
        return
    store = persist.Store(MOUNT + "/save/table.json", in_place=True)  # as picoboard.PicoBoard
    t = T.Table(tablerules.TableRules(decks), decks=decks, chain_hash=ttlink.chain_hash)
    t.take_save()
    t.take_events()
    snap = store.load()
    if store.last_error:
        print("N", store.last_error)
    start = 0
    if snap is None:
        print("B", -1, 0, 0)
    else:
        try:
            t.restore(snap)
        except T.TableError as exc:
            print("X the saved state does not restore:", exc)
            return
        t.take_events()
        crc = snap_crc(t)
        k, i = find_save(refpath, crc)
        if k < 0:
            print("X restored a state the uncut run never saved (crc %d)" % crc)
            return
        start = i + 1
        print("B", k, start, t.ev_index)
    snap = None
    gc.collect()
    if cut_after > 0:
        nf.cut_at(nf.ops + cut_after)
    i = start
    try:
        while i < acts.n:
            a = acts.get(i)
            act(t, a)
            if t.take_save():
                store.save(t.snapshot(True))
                gc.collect()
            if a[0] != NEW:
                hand_end(t, i)
            i += 1
    except norflash.PowerCut as cut:
        print("C", cut.op, cut.kind, cut.how, int(cut.part * 1000), i, t.ev_index)
        nf.off()
        return
    print("F", snap_crc(t), t.ev_hash)
    vfs.umount(MOUNT)
    nf.close()


def main(argv):
    decks = int(argv[2])
    acts = Actions(argv[3])
    if argv[1] == "ref":
        ref(decks, acts, argv[4])
    else:
        boot(decks, acts, argv[4], argv[5], int(argv[6]), int(argv[7]), argv[8])


main(sys.argv)
