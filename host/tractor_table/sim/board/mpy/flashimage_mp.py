# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# ruff: noqa: UP031
# The MicroPython side of tractor_table/sim/board/flashimage.py: littlefs on a
# NorFlash image, formatted and filled, or read back, by the unix port's own
# vfs.VfsLfs2 (the same littlefs as the rp2 port's).
#
#   micropython flashimage_mp.py build IMAGE DIR NAME...   format IMAGE, copy DIR/NAME in
#   micropython flashimage_mp.py list IMAGE                 "F name size" lines
#   micropython flashimage_mp.py get IMAGE NAME OUT          copy NAME out to OUT
# Then one line "OK reads erases programs prog_bytes busy_us blocks_used" (build, list)
# or "ERR what" (and exit status 1).
import os
import sys

import norflash
import vfs

MOUNT = "/flash"


def fail(what):
    print("ERR", what)
    sys.exit(1)


def mount(nf):
    try:
        vfs.mount(vfs.VfsLfs2(nf, progsize=256), MOUNT)
    except OSError as exc:
        fail("not a littlefs image (mount: %r)" % (exc,))


def copy(src, dst):
    buf = bytearray(1024)
    a = open(src, "rb")
    try:
        b = open(dst, "wb")
        try:
            while True:
                n = a.readinto(buf)
                if not n:
                    break
                b.write(memoryview(buf)[:n])
        finally:
            b.close()
    finally:
        a.close()


def used(nf):
    s = os.statvfs(MOUNT)
    return s[2] - s[3]


def done(nf):
    st = nf.stats()
    print("OK", st[0], st[2], st[3], st[4], st[8], used(nf))


def main(argv):
    cmd = argv[1]
    nf = norflash.NorFlash(argv[2])
    if cmd == "build":
        vfs.VfsLfs2.mkfs(nf, progsize=256)
        mount(nf)
        for name in argv[4:]:
            copy(argv[3] + "/" + name, MOUNT + "/" + name)
        done(nf)
    elif cmd == "list":
        mount(nf)
        for name, kind, _ino, size in vfs_ilistdir(MOUNT):
            print("F", name, size if kind == 0x8000 else -1)
        done(nf)
    elif cmd == "get":
        mount(nf)
        try:
            copy(MOUNT + "/" + argv[3], argv[4])
        except OSError:
            fail("no file %s on the image" % argv[3])
    else:
        fail("unknown command " + cmd)
    vfs.umount(MOUNT)
    nf.close()


def vfs_ilistdir(path):
    return [e[:4] for e in os.ilistdir(path)]


main(sys.argv)
