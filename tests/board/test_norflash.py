# The NOR flash model (host/tractor_table/sim/board/mpy/norflash.py): erase and
# program semantics, page wrap, timing, the image file, power cuts partway.
# runs-under: micropython
# ruff: noqa: UP031
import os
import sys

_here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
_mpy = _here + "/../../host/tractor_table/sim/board/mpy"
if _mpy not in sys.path:
    sys.path.append(_mpy)

import norflash  # noqa: E402

_n = [0]


def _path():
    _n[0] += 1
    p = "/tmp/tt-norflash-%d-%d.img" % (os.getpid() if hasattr(os, "getpid") else 0, _n[0])
    try:
        os.remove(p)
    except OSError:
        pass
    return p


class Clock:
    def __init__(self):
        self.now_us = 0

    def advance_us(self, us):
        self.now_us += us


def small(clock=None, path=None):
    return norflash.NorFlash(path or _path(), clock, blocks=4, block_size=4096, prog_size=256)


def read(nf, block, n=4096, off=0):
    b = bytearray(n)
    nf.readblocks(block, b, off)
    return b


def test_a_new_image_is_erased_and_the_ioctls_answer():
    nf = small()
    assert read(nf, 3) == b"\xff" * 4096
    assert nf.ioctl(4, 0) == 4 and nf.ioctl(5, 0) == 4096
    assert nf.ioctl(1, 0) == 0 and nf.ioctl(3, 0) == 0 and nf.ioctl(2, 0) == 0
    assert nf.ioctl(99, 0) is None
    nf.close()


def test_the_default_is_the_rp2_ports_1408_kib():
    p = _path()
    nf = norflash.NorFlash(p)
    assert nf.ioctl(4, 0) * nf.ioctl(5, 0) == 1408 * 1024
    nf.close()
    os.remove(p)


def test_program_only_clears_bits_and_erase_sets_them():
    nf = small()
    nf.writeblocks(1, b"\xf0" * 256, 0)
    nf.writeblocks(1, b"\x3c" * 256, 0)
    assert read(nf, 1, 256) == b"\x30" * 256  # old AND new
    assert read(nf, 1, 256, 256) == b"\xff" * 256  # the next page untouched
    nf.ioctl(6, 1)
    assert read(nf, 1) == b"\xff" * 4096
    nf.close()


def test_writeblocks_without_an_offset_erases_first():
    nf = small()
    nf.writeblocks(2, b"\x00" * 512, 0)
    data = bytes(range(256)) * 16
    nf.writeblocks(2, data)
    assert read(nf, 2) == data
    assert nf.erases == 1 and nf.programs == 2 and nf.ops == 3
    nf.close()


def test_a_program_past_its_page_wraps_to_the_page_start():
    nf = small()
    data = bytes(range(256))
    nf.writeblocks(0, data, 128)
    page = read(nf, 0, 256)
    assert page[128:] == data[:128] and page[:128] == data[128:]
    assert read(nf, 0, 256, 256) == b"\xff" * 256
    assert nf.unaligned == 1
    nf.close()


def test_times_are_charged_to_the_clock():
    c = Clock()
    nf = small(c)
    nf.ioctl(6, 0)
    erase = c.now_us
    assert 45000 <= erase < 46000
    nf.writeblocks(0, b"\x00" * 512, 0)  # two pages
    assert 800 <= c.now_us - erase < 1000
    assert nf.busy_us == c.now_us and nf.prog_pages == 2 and nf.prog_bytes == 512
    nf.close()


def test_the_datasheets_maximum_times_are_charged_when_asked():
    c = Clock()
    nf = norflash.NorFlash(_path(), c, blocks=4, block_size=4096, prog_size=256, times="max")
    nf.ioctl(6, 0)
    erase = c.now_us
    assert 400000 <= erase < 401000  # tSE max, W25Q16JV
    nf.writeblocks(0, b"\x00" * 512, 0)  # two pages
    assert 6000 <= c.now_us - erase < 6200  # 2 x tPP max (3 ms)
    nf.close()
    try:
        norflash.NorFlash(_path(), c, blocks=4, times="worst")
    except ValueError as exc:
        assert "typ" in str(exc) and "max" in str(exc)
    else:
        raise AssertionError("an unknown timing was accepted")


def test_the_image_keeps_the_flash_as_left():
    p = _path()
    nf = small(path=p)
    nf.writeblocks(3, b"\x12" * 256, 512)
    nf.close()
    again = small(path=p)
    assert read(again, 3, 256, 512) == b"\x12" * 256
    assert read(again, 3, 256, 0) == b"\xff" * 256
    again.close()


def test_a_cut_partway_through_a_program_keeps_a_prefix():
    nf = small()
    nf.cut_at(1, 0.5, "prefix")
    try:
        nf.writeblocks(0, b"\x00" * 256, 0)
        raise AssertionError("no power cut")
    except Exception as exc:
        raise AssertionError("a PowerCut must not be an Exception (the firmware catches those)") from exc
    except norflash.PowerCut as cut:
        assert cut.kind == "program" and cut.op == 1
    page = bytearray(256)
    nf.f.seek(0)
    nf.f.readinto(page)
    assert page == b"\x00" * 128 + b"\xff" * 128
    # dead: later calls raise again, until off()
    try:
        nf.readblocks(0, bytearray(4))
        raise AssertionError("the dead chip answered")
    except norflash.PowerCut:
        pass
    nf.off()
    assert nf.writeblocks(0, b"\x00" * 256, 0) == -5
    assert nf.ioctl(6, 0) == -5
    nf.close()


def test_a_cut_partway_through_a_program_clears_some_of_its_bits():
    nf = small()
    nf.writeblocks(0, b"\x0f" * 256, 0)
    nf.seed(7)
    nf.cut_at(2, 0.5, "bits")
    try:
        nf.writeblocks(0, b"\x33" * 256, 0)
    except norflash.PowerCut:
        pass
    page = bytearray(256)
    nf.f.seek(0)
    nf.f.readinto(page)
    for b in page:
        assert b & ~0x0F == 0  # no bit set
        assert b & 0x03 == 0x03  # the bits the program keeps stay
    assert page != b"\x0f" * 256 and page != b"\x03" * 256  # neither old nor new
    nf.close()


def test_a_cut_partway_through_an_erase_leaves_neither_old_nor_erased():
    for how in ("partial", "preprogram"):
        nf = small()
        nf.writeblocks(1, b"\x5a" * 4096, 0)
        nf.seed(3)
        nf.cut_at(2, 0.4, how)
        try:
            nf.ioctl(6, 1)
            raise AssertionError("no power cut")
        except norflash.PowerCut as cut:
            assert cut.kind == "erase" and cut.block == 1
        nf.off()
        blk = bytearray(4096)
        nf.f.seek(4096)
        nf.f.readinto(blk)
        assert blk != b"\x5a" * 4096 and blk != b"\xff" * 4096, how
        if how == "partial":
            for b in blk:
                assert b & 0x5A == 0x5A  # an erase only sets bits
        else:
            assert blk[0] == 0 and blk[-1] == 0x5A
        nf.close()


def test_a_cut_of_an_erased_block_still_leaves_a_mark():
    nf = small()
    nf.seed(1)
    nf.cut_at(1, 0.5, "partial")
    try:
        nf.ioctl(6, 0)
    except norflash.PowerCut:
        pass
    assert read(norflash.NorFlash(nf.path, None, 4), 0) != b"\xff" * 4096
    nf.close()


def test_cut_points_are_counted_and_checked():
    nf = small()
    nf.writeblocks(0, b"\x00" * 256, 0)
    try:
        nf.cut_at(1)
        raise AssertionError("a past op was accepted")
    except ValueError:
        pass
    nf.cut_at(2, 0.0)
    try:
        nf.writeblocks(0, b"\x00" * 256, 256)
    except norflash.PowerCut as cut:
        assert cut.part == 0.0
    assert read(norflash.NorFlash(nf.path, None, 4), 0, 256, 256) == b"\xff" * 256
    nf.close()


def test_the_draws_are_the_same_in_both_runtimes():
    nf = small()
    nf.seed(42)
    assert [nf._rand() for _ in range(3)] == [621060581, 2519955033, 3892145797]
    nf.close()


class Calls:
    # the board model's clock as the block protocol sees it (vclock.VClock:
    # enter() and leave() around a call into a model)
    def __init__(self):
        self.depth = 0
        self.entered = 0
        self.deepest = 0

    def enter(self):
        self.depth += 1
        self.entered += 1
        self.deepest = max(self.deepest, self.depth)

    def leave(self):
        self.depth -= 1


def test_each_block_call_is_one_model_call_with_calls_set():
    # rp2.Flash is C on the chip: each call littlefs makes is a call into a
    # model, so that the model's own Python and its host file I/O are not
    # charged as the Pico's CPU time (only the chip's times, on the clock)
    clock = Clock()
    nf = small(clock)
    nf.writeblocks(0, b"\x00" * 256, 0)  # no calls set: nothing entered
    calls = Calls()
    nf.calls = calls
    nf.readblocks(0, bytearray(16), 0)
    nf.writeblocks(1, b"\x00" * 4096)  # an erase, then 16 page programs: one call
    assert nf.ioctl(6, 2) == 0 and nf.ioctl(4, 0) == 4
    assert calls.entered == 4 and calls.depth == 0 and calls.deepest == 1
    # a power cut inside a call still leaves it
    nf.cut_at(nf.ops + 1, 0.5)
    try:
        nf.ioctl(6, 3)
        raise AssertionError("the cut did not come")
    except norflash.PowerCut:
        pass
    assert calls.depth == 0 and calls.entered == 5
    nf.close()
