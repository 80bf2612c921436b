# runs-under: micropython heapsize=64K
"""A dual-runtime module: these run under CPython and under MicroPython.

They check what firmware code relies on in both runtimes."""

import sys


def test_firmware_folder_is_on_the_path():
    assert any(p.endswith("firmware") for p in sys.path)


def test_bytearray_slices_and_memoryview():
    buf = bytearray(8)
    mv = memoryview(buf)
    mv[2:4] = b"\x01\x02"
    assert buf == bytearray(b"\x00\x00\x01\x02\x00\x00\x00\x00")


def test_int_bit_ops_used_by_spi_bit_reversal():
    # the rp2 SPI has no LSB-first mode; drivers reverse bits in software
    b = 0x01
    r = 0
    for _ in range(8):
        r = (r << 1) | (b & 1)
        b >>= 1
    assert r == 0x80
