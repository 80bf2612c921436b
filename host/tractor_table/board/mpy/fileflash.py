# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# A flash block device kept in a file on the host, for littlefs (vfs.VfsLfs2).
#
# A stand-in with the interface of the NOR-flash model (norflash.NorFlash,
# written apart): NorFlash(image_path, clock=None, blocks=352,
# block_size=4096, prog_size=256) with readblocks/writeblocks/ioctl (the
# extended block protocol littlefs uses) and the chip's erase and program
# times charged to clock.advance_us(). Its data lives in the file, not in
# the MicroPython heap (the Pico's flash is not in its RAM either). Unlike
# NOR flash it does not check that a block was erased before a program.
ERASE_US = 45000  # 4 KiB sector erase, typical (W25Q16JV datasheet: 45 ms)
PROG_US = 400  # 256-byte page program, typical (0.4 ms)
READ_BYTE_NS = 80  # QSPI XIP reads are cheap: charged per byte read


class FileFlash:
    def __init__(self, image_path, clock=None, blocks=352, block_size=4096, prog_size=256):
        self.blocks = blocks
        self.block_size = block_size
        self.prog_size = prog_size
        self.clock = clock
        self._blank = b"\xff" * block_size
        self.erases = 0
        self.programs = 0
        try:
            self.f = open(image_path, "r+b")
        except OSError:
            self.f = open(image_path, "w+b")
        self.f.seek(0, 2)
        size = self.f.tell()
        want = blocks * block_size
        if size < want:
            self.f.seek(size)
            while size < want:
                self.f.write(self._blank[: min(block_size, want - size)])
                size += block_size
            self.f.flush()

    def _charge(self, us):
        if self.clock is not None:
            self.clock.advance_us(us)

    def readblocks(self, block, buf, offset=0):
        self.f.seek(block * self.block_size + offset)
        self.f.readinto(buf)
        self._charge(len(buf) * READ_BYTE_NS // 1000)

    def writeblocks(self, block, buf, offset=None):
        if offset is None:
            # the simple protocol: erase, then program whole blocks
            n = len(buf) // self.block_size
            for i in range(n):
                self.ioctl(6, block + i)
            offset = 0
        self.f.seek(block * self.block_size + offset)
        self.f.write(buf)
        pages = (len(buf) + self.prog_size - 1) // self.prog_size
        self.programs += pages
        self._charge(pages * PROG_US)

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return self.blocks
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase a block
            self.f.seek(arg * self.block_size)
            self.f.write(self._blank)
            self.erases += 1
            self._charge(ERASE_US)
            return 0
        if op == 3:  # sync
            self.f.flush()
            return 0
        return 0 if op in (1, 2) else None
