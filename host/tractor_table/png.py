"""PNG files with the standard library only (zlib): write an RGB image, read
one back (8-bit grey, RGB or RGBA, any filter; what a browser's screenshot
is). The display pictures (``tractor_table.screens``) and the report tests
use it."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_rgb(width: int, height: int, rows: Sequence[bytes]) -> bytes:
    """A PNG of ``height`` rows of ``3 * width`` bytes (R, G, B)."""
    if len(rows) != height or any(len(r) != 3 * width for r in rows):
        raise ValueError(f"give {height} rows of {3 * width} bytes")
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return SIGNATURE + _chunk(b"IHDR", head) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")


class Image:
    """A decoded PNG: ``pixel(x, y)`` -> (r, g, b)."""

    def __init__(self, width: int, height: int, channels: int, data: bytes) -> None:
        self.width, self.height, self.channels, self.data = width, height, channels, data

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        i = (y * self.width + x) * self.channels
        if self.channels < 3:
            v = self.data[i]
            return (v, v, v)
        return (self.data[i], self.data[i + 1], self.data[i + 2])

    def pixels(self) -> list[tuple[int, int, int]]:
        return [self.pixel(x, y) for y in range(self.height) for x in range(self.width)]


def decode(data: bytes) -> Image:
    """Read an 8-bit, non-interlaced PNG (grey, grey+alpha, RGB, RGBA)."""
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    pos = len(SIGNATURE)
    idat = b""
    width = height = 0
    channels = 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            width, height, depth, color, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace:
                raise ValueError("only 8-bit, non-interlaced PNGs are read")
            channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(color, 0)
            if not channels:
                raise ValueError(f"PNG colour type {color} is not read")
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    out = bytearray(stride * height)
    prev = bytearray(stride)
    k = 0
    for y in range(height):
        f = raw[k]
        line = bytearray(raw[k + 1:k + 1 + stride])
        k += 1 + stride
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return Image(width, height, channels, bytes(out))
