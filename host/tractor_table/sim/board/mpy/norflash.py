# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# ruff: noqa: UP031
# NorFlash: the Raspberry Pi Pico's flash, modelled as the block device that
# littlefs (vfs.VfsLfs2) runs on. MicroPython (the unix port) and CPython both
# import it (plain Python, no MicroPython-only syntax).
#
# Interface (fixed with the board model; keep it stable):
#
#   NorFlash(image_path, clock=None, blocks=352, block_size=4096, prog_size=256)
#       image_path  a file on the host holding the flash's bytes; created erased
#                   (all 0xFF) if missing or of another size. It is opened once,
#                   here: a board may mount the littlefs at "/" afterwards. Every
#                   erase and program is written through to it at once, so the
#                   image is always the flash as left (a board powered off, or
#                   cut, boots again from it, in this process or another).
#       clock       None, or an object with advance_us(us) (pn532sim.chip's
#                   SimClock interface: now_us, advance_us, sleep_us): each
#                   operation charges the chip's time to it.
#   .calls          None, or an object with enter() and leave() (the board
#                   model's vclock.VClock): each call of the block protocol is
#                   then a call into a model, as the rp2 port's rp2.Flash is C:
#                   the model's own Python and the host file's system calls
#                   are not the Pico's time (only the chip's, via clock).
#                   Optionally also section(on, ok=True) and advance_us(us):
#                   each erase and each program is then a critical section as
#                   on the rp2 port (rp2_flash.c: interrupts off from
#                   begin_critical_flash_section() to its end; writeblocks()
#                   erases all its blocks in one, then programs in another),
#                   opened by section(True) and closed by section(False), or
#                   section(False, False) when the power went in it; the time
#                   it takes is charged through advance_us instead of clock
#                   (the board model: the person's hands move meanwhile, the
#                   pins' edges wait for its end).
#       times       "typ": the datasheet's typical erase and program times;
#                   "max": its maximum ones (a worn or hot chip: what the
#                   table must absorb at worst). TIMES has both.
#   The block protocol of MicroPython's extended block devices (what littlefs
#   calls; docs.micropython.org, "Block devices"):
#       readblocks(block, buf, offset=0)
#       writeblocks(block, buf, offset=None)  offset None: erase the blocks
#                   first, then program (as rp2.Flash does); with an offset:
#                   program only (NOR: new = old AND data)
#       ioctl(op, arg)  1 init, 2 deinit, 3 sync -> 0; 4 block count;
#                   5 block size; 6 erase block arg -> 0
#   Power cuts:
#       cut_at(n, part=-1, how="")  the power goes during the n-th erase or
#                   program of this device (counted in .ops from 1). part: how
#                   much of that operation reached the cells, 0.0 (none) to
#                   1.0 (all of it: the power went just after), -1 = drawn at
#                   random. how: for a program "prefix" (the first bytes of
#                   the page being programmed reached it) or "bits" (some of
#                   the bits it clears, anywhere in the page); for an erase
#                   "partial" (some bits went back to 1) or "preprogram" (the
#                   chip's first phase: a run of bytes went to 0); "" = drawn.
#                   The operation then raises PowerCut (a BaseException: no
#                   `except Exception` of the firmware catches it), and every
#                   later call raises it again: the board ends there. The
#                   image stays as the cut left it.
#       off()       after catching PowerCut: later calls fail with EIO (-5)
#                   instead of raising, so the dead board's files, closed by
#                   gc's finalisers, cannot raise into the next board (each
#                   prints one "OSError: [Errno 5] EIO" line). Boot again
#                   from the image in a new process, or in this one after
#                   off(), gc.collect() and vfs.umount().
#                   Close every file (littlefs keeps a list of the open ones: a
#                   file dropped open corrupts it and a later open can hang).
#       seed(s)     seeds the device's own generator (xorshift32: the same
#                   draws under MicroPython and CPython)
#       cut         None, or the PowerCut raised (op, kind, block, how, part)
#   Figures: reads, read_bytes, erases, programs, prog_bytes, prog_pages,
#       unaligned (programs not on a 256-byte page boundary), ops (erases +
#       programs), busy_us (time charged); stats() -> a list of them.
#
# The chip (the Pico's Winbond W25Q16JV, 2 MB, hardware/bom.csv's Raspberry
# Pi Pico; W25Q16JV datasheet, "AC electrical characteristics"): page program
# tPP 0.4 ms typical (at 25 C), 3 ms maximum; 4 KB sector erase tSE 45 ms
# typical, 400 ms maximum. A page program command takes up to
# 256 bytes; one that runs past the end of its page wraps to the start of the
# same page (the datasheet's "Page Program"), and the driver (the RP2040 ROM's
# flash_range_program, called by rp2.Flash) sends one such command per 256
# bytes from the address given. The rp2 port's filesystem on a 2 MB Pico is
# the top 1,408 KiB (MICROPY_HW_FLASH_STORAGE_BYTES, boards/RPI_PICO): 352
# blocks of 4 KiB, littlefs with progsize=256 (ports/rp2/modules/_boot.py).
# The serial transfer is charged at the rp2 port's flash clock, 31.25 MHz at
# 125 MHz (clk_sys / 4: rp2_flash.c picks the smallest even divisor for 60 MHz):
# 8 clocks a byte for a program's command, address and data, 2 a byte for a
# read (quad I/O through XIP, uncached).
#
# Memory: the image is never held in RAM; two page buffers (2 x prog_size
# bytes) are the model's only buffers.

try:
    import micropython
except ImportError:  # CPython: the decorator below does nothing

    class micropython:  # noqa: N801
        @staticmethod
        def native(f):
            return f


_T_PP_US = 400  # page program, typical
_T_SE_US = 45000  # 4 KB sector erase, typical
_T_PP_MAX_US = 3000  # page program, the datasheet's maximum
_T_SE_MAX_US = 400000  # 4 KB sector erase, the datasheet's maximum
#: the chip's times by name: (page program us, sector erase us)
TIMES = {"typ": (_T_PP_US, _T_SE_US), "max": (_T_PP_MAX_US, _T_SE_MAX_US)}
_FLASH_HZ = 31250000
_OVERHEAD_US = 10  # XIP exit, cache flush and re-entry around an erase or program


class PowerCut(BaseException):
    """The power went during a flash operation: the board ends here."""

    def __init__(self, op, kind, block, how, part):
        super().__init__(
            "power cut at flash op %d (%s of block %d, %s, %d%% done)"
            % (op, kind, block, how, int(part * 100))
        )
        self.op = op
        self.kind = kind
        self.block = block
        self.how = how
        self.part = part


class NorFlash:
    def __init__(self, image_path, clock=None, blocks=352, block_size=4096, prog_size=256, times="typ"):
        if block_size % prog_size or prog_size <= 0 or blocks <= 0:
            raise ValueError("block_size must be a multiple of prog_size")
        if times not in TIMES:
            raise ValueError("flash times %r: 'typ' or 'max'" % (times,))
        self.times = times
        self.t_pp_us, self.t_se_us = TIMES[times]
        self.path = image_path
        self.clock = clock
        self.blocks = blocks
        self.block_size = block_size
        self.prog_size = prog_size
        self.size = blocks * block_size
        self._page = bytearray(prog_size)
        self._ff = b"\xff" * prog_size
        f = None
        try:
            f = open(image_path, "r+b")
            f.seek(0, 2)
            if f.tell() != self.size:
                f.close()
                f = None
        except OSError:
            f = None
        if f is None:
            f = open(image_path, "wb")
            for _ in range(self.size // prog_size):
                f.write(self._ff)
            f.close()
            f = open(image_path, "r+b")
        self.f = f
        self.reads = 0
        self.read_bytes = 0
        self.erases = 0
        self.programs = 0
        self.prog_bytes = 0
        self.prog_pages = 0
        self.unaligned = 0
        self.ops = 0
        self.busy_us = 0
        self.cut = None
        self._quiet = False
        self._cut_op = 0
        self._cut_part = -1.0
        self._cut_how = ""
        self._rng = 0x2545F491
        self.trace = None  # taptrace.Trace, or None
        self.calls = None  # see the header (.calls)
        self._section = None  # the calls whose critical section is open, or None

    # --- the generator (xorshift32: identical draws in both runtimes)
    def seed(self, s):
        self._rng = (s * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF or 1
        for _ in range(4):
            self._rand()

    def _rand(self):
        x = self._rng
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self._rng = x
        return x

    def _below(self, n):
        return self._rand() % n if n > 0 else 0

    # --- power cuts
    def cut_at(self, n, part=-1.0, how=""):
        """Cut the power during the n-th erase or program (see the header)."""
        if n <= self.ops:
            raise ValueError("op %d is past: %d ops done" % (n, self.ops))
        self._cut_op = n
        self._cut_part = part
        self._cut_how = how

    def off(self):
        """After a PowerCut was caught: every later call fails with EIO
        instead of raising, so that the finalisers of the dead board's open
        files (run by gc) do not raise PowerCut into the next board's code
        (each prints one line, "OSError: [Errno 5] EIO"); the image is never
        touched again."""
        if self.cut is None:
            self.cut = PowerCut(self.ops, "off", -1, "", 0.0)
        self._quiet = True

    def _dead(self):
        """True when the power is off and the call must fail quietly."""
        if self.cut is not None:
            if self._quiet:
                return True
            raise self.cut
        return False

    def _charge(self, us):
        self.busy_us += us
        if self._section is not None:
            self._section.advance_us(us)
        elif self.clock is not None:
            self.clock.advance_us(us)

    def _critical(self, fn, a, b):
        """fn(a, b) as one critical section (see the header's .calls)."""
        c = self.calls
        if c is None or not hasattr(c, "section"):
            return fn(a, b)
        c.section(True)
        self._section = c
        ok = False
        try:
            r = fn(a, b)
            ok = True
            return r
        finally:
            self._section = None
            c.section(False, ok)

    # --- the block protocol
    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def readblocks(self, block, buf, offset=0):
        c = self.calls
        if c is None:
            return self._readblocks(block, buf, offset)
        c.enter()
        try:
            return self._readblocks(block, buf, offset)
        finally:
            c.leave()

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def writeblocks(self, block, buf, offset=None):
        c = self.calls
        if c is None:
            return self._writeblocks(block, buf, offset)
        c.enter()
        try:
            return self._writeblocks(block, buf, offset)
        finally:
            c.leave()

    @micropython.native  # no heap frame: allocates nothing in the firmware's stretch
    def ioctl(self, op, arg):
        c = self.calls
        if c is None:
            return self._ioctl(op, arg)
        c.enter()
        try:
            return self._ioctl(op, arg)
        finally:
            c.leave()

    def _readblocks(self, block, buf, offset=0):
        if self._dead():
            return -5
        n = len(buf)
        addr = block * self.block_size + offset
        if addr < 0 or addr + n > self.size:
            raise ValueError("read past the end of the flash")
        self.f.seek(addr)
        self.f.readinto(buf)
        self.reads += 1
        self.read_bytes += n
        self._charge(1 + (n * 2 * 1000000) // _FLASH_HZ)

    def _writeblocks(self, block, buf, offset=None):
        if self._dead():
            return -5
        if offset is None:
            nblocks = (len(buf) + self.block_size - 1) // self.block_size
            self._critical(self._erase_n, block, nblocks)  # one section, as rp2.Flash's flash_range_erase
            offset = 0
        self._critical(self._program, block * self.block_size + offset, buf)

    def _ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return self.block_size
        if op == 6:
            if self._dead():
                return -5
            self._critical(self._erase_n, arg, 1)
            return 0
        if op in (1, 2, 3):
            return 0
        return None

    # --- the chip
    def _start_op(self):
        """Count one erase or program; True when the power goes during it."""
        self.ops += 1
        return self.ops == self._cut_op

    def _part(self):
        p = self._cut_part
        if p < 0:
            # a third of the cuts at an end (nothing done, or all of it), the rest partway
            r = self._below(6)
            p = 0.0 if r == 0 else 1.0 if r == 1 else (1 + self._below(999)) / 1000.0
        return p

    def _erase_n(self, block, n):
        for i in range(n):
            self._erase(block + i)

    def _erase(self, block):
        if block < 0 or block >= self.blocks:
            raise ValueError("erase of block %d: the flash has %d" % (block, self.blocks))
        cut = self._start_op()
        self.erases += 1
        base = block * self.block_size
        ps = self.prog_size
        if not cut:
            self.f.seek(base)
            for _ in range(self.block_size // ps):
                self.f.write(self._ff)
            if self.trace is not None:
                self.trace.flash(True, self.t_se_us + _OVERHEAD_US)
            self._charge(self.t_se_us + _OVERHEAD_US)
            return
        part = self._part()
        how = self._cut_how or ("partial", "preprogram")[self._below(2)]
        self._charge(int(self.t_se_us * part) + _OVERHEAD_US)
        if part >= 1.0:
            self.f.seek(base)
            for _ in range(self.block_size // ps):
                self.f.write(self._ff)
        elif part > 0.0:
            if how == "preprogram":
                # the run of bytes driven to 0 before the erase proper
                self._zero_run(base, int(self.block_size * part) or 1)
            else:
                self._partial_erase(base, part)
        self._power_off("erase", block, how, part)

    def _zero_run(self, base, n):
        pg = self._page
        at = 0
        while at < n:
            k = min(self.prog_size, n - at)
            for i in range(k):
                pg[i] = 0
            self.f.seek(base + at)
            self.f.write(memoryview(pg)[:k])
            at += k

    def _partial_erase(self, base, part):
        # each bit back to 1 with a chance growing with the part done; a block
        # already erased gets its start zeroed instead (never old, never all 0xFF)
        pg = self._page
        ps = self.prog_size
        thresh = int(part * 256)
        changed = False
        for at in range(0, self.block_size, ps):
            self.f.seek(base + at)
            self.f.readinto(pg)
            for i in range(ps):
                old = pg[i]
                if old != 0xFF:
                    m = 0
                    for b in range(8):
                        if (self._rand() & 255) < thresh:
                            m |= 1 << b
                    if m & ~old & 0xFF:
                        changed = True
                    pg[i] = old | m
            self.f.seek(base + at)
            self.f.write(pg)
        if not changed:
            self._zero_run(base, 1 + self._below(self.prog_size))

    def _program(self, addr, buf):
        n = len(buf)
        if addr < 0 or addr + n > self.size:
            raise ValueError("program past the end of the flash")
        ps = self.prog_size
        cut = self._start_op()
        self.programs += 1
        self.prog_bytes += n
        if addr % ps:
            self.unaligned += 1
        mv = memoryview(buf)
        npages = (n + ps - 1) // ps
        cut_page = npages
        part = 1.0
        how = ""
        whole = 1.0
        if cut:
            part = whole = self._part()
            how = self._cut_how or ("prefix", "bits")[self._below(2)]
            done = part * npages
            cut_page = int(done)
            part = done - cut_page  # of the page being programmed
        at = 0
        k = 0
        while at < n and k < cut_page:
            m = min(ps, n - at)
            self._page_program(addr + at, mv[at : at + m], 1.0, how)
            at += m
            k += 1
        if cut:
            if at < n and part > 0.0:
                m = min(ps, n - at)
                self._page_program(addr + at, mv[at : at + m], part, how)
            self._power_off("program", addr // self.block_size, how, whole)

    def _page_program(self, addr, data, part, how):
        """One page program command: wraps within its page, as the chip does."""
        ps = self.prog_size
        n = len(data)
        base = addr - addr % ps
        start = addr - base
        pg = self._page
        self.f.seek(base)
        self.f.readinto(pg)
        if part >= 1.0:
            if start == 0 and n == ps and pg == self._ff:
                pg[:] = data  # an erased page: AND with 0xFF is the data itself
            else:
                for i in range(n):
                    j = (start + i) % ps
                    pg[j] &= data[i]
        elif how == "prefix":
            for i in range(int(n * part)):
                j = (start + i) % ps
                pg[j] &= data[i]
        else:
            thresh = int(part * 256)
            for i in range(n):
                j = (start + i) % ps
                clear = pg[j] & ~data[i] & 0xFF
                if clear:
                    m = 0
                    for b in range(8):
                        if clear & (1 << b) and (self._rand() & 255) < thresh:
                            m |= 1 << b
                    pg[j] &= ~m & 0xFF
        self.f.seek(base)
        self.f.write(pg)
        self.prog_pages += 1
        us = int(self.t_pp_us * part) + _OVERHEAD_US + ((4 + n) * 8 * 1000000) // _FLASH_HZ
        if self.trace is not None:
            self.trace.flash(False, us)
        self._charge(us)

    def _power_off(self, kind, block, how, part):
        self.f.flush()
        self.cut = PowerCut(self.ops, kind, block, how, part)
        raise self.cut

    # --- figures
    def stats(self):
        return [
            self.reads,
            self.read_bytes,
            self.erases,
            self.programs,
            self.prog_bytes,
            self.prog_pages,
            self.unaligned,
            self.ops,
            self.busy_us,
        ]

    def close(self):
        if self.f is not None:
            self.f.close()
            self.f = None
