# Persistence of the table core: after every completed trick (and after the
# burial and the hand's end) the game state is written to flash atomically, so
# that a power cut loses at most the trick in progress; at boot it is read back.
#
# Atomic write: the snapshot goes to `<path>.new`, is flushed and closed, and
# is then renamed over `<path>`. littlefs (the rp2 port's filesystem) renames
# over an existing file atomically; where rename refuses an existing target
# (FAT), the old file is removed first and load() falls back to `.new`, so
# there is always one whole snapshot on flash.
#
# Format: a header line "ttsnap1 <crc32 of the body, hex>" and then the body:
# the table's snapshot as JSON (nested lists of ints, see tablesnap.py). A file
# whose crc does not match or that does not parse is ignored, with the reason
# kept in Store.last_error.
# Dependencies: json, os, binascii (all on the rp2 port).
import binascii
import json
import os

MAGIC = "ttsnap1"


class Store:
    def __init__(self, path="/table.json"):
        self.path = path
        self.tmp = path + ".new"
        self.last_error = ""
        self.saves = 0

    def save(self, snap):
        body = json.dumps(snap)
        crc = binascii.crc32(body.encode()) & 0xFFFFFFFF
        f = open(self.tmp, "w")
        try:
            f.write("%s %08x\n" % (MAGIC, crc))
            f.write(body)
            if hasattr(f, "flush"):
                f.flush()
        finally:
            f.close()
        try:
            os.rename(self.tmp, self.path)
        except OSError:
            # the target exists and this filesystem will not replace it
            try:
                os.remove(self.path)
            except OSError:
                pass
            os.rename(self.tmp, self.path)
        self.saves += 1

    def _read(self, path):
        try:
            f = open(path)
        except OSError:
            return None
        try:
            text = f.read()
        finally:
            f.close()
        nl = text.find("\n")
        head = text[:nl].split() if nl > 0 else []
        if len(head) != 2 or head[0] != MAGIC:
            self.last_error = "%s: not a table snapshot file" % path
            return None
        body = text[nl + 1 :]
        if "%08x" % (binascii.crc32(body.encode()) & 0xFFFFFFFF) != head[1]:
            self.last_error = "%s: checksum mismatch (a torn or damaged write)" % path
            return None
        try:
            return json.loads(body)
        except ValueError:
            self.last_error = "%s: body does not parse" % path
            return None

    def load(self):
        """The last snapshot saved, or None (then last_error says why, if a file was bad)."""
        self.last_error = ""
        snap = self._read(self.path)
        if snap is None:
            snap = self._read(self.tmp)
        return snap

    def clear(self):
        for p in (self.path, self.tmp):
            try:
                os.remove(p)
            except OSError:
                pass
