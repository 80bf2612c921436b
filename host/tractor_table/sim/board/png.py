"""The SSD1306's pixels as a PNG file (zlib and struct only) or console text."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

WIDTH = 128
HEIGHT = 64


def pixel(ram: bytes | bytearray, x: int, y: int) -> int:
    """The pixel at (x, y) of a 1,024-byte MONO_VLSB display RAM (1 lit), as
    the firmware draws it (its A1/C8 setting shows the RAM unmirrored)."""
    return (ram[(y >> 3) * WIDTH + x] >> (y & 7)) & 1


def console_art(ram: bytes | bytearray, on: str = "#", off: str = ".") -> list[str]:
    """The display as 32 text rows (two pixel rows per character, half blocks)."""
    rows = []
    for y in range(0, HEIGHT, 2):
        row = []
        for x in range(WIDTH):
            top, bottom = pixel(ram, x, y), pixel(ram, x, y + 1)
            row.append(" ▀▄█"[top | (bottom << 1)] if on == "#" and off == "." else (on if top or bottom else off))
        rows.append("".join(row))
    return rows


def png_bytes(ram: bytes | bytearray, scale: int = 4) -> bytes:
    """A greyscale PNG of the display, each pixel ``scale`` x ``scale``."""
    if len(ram) != WIDTH * HEIGHT // 8:
        raise ValueError(f"display RAM must be {WIDTH * HEIGHT // 8} bytes, not {len(ram)}")
    if not 1 <= scale <= 16:
        raise ValueError(f"scale must be 1-16, not {scale}")
    raw = bytearray()
    for y in range(HEIGHT):
        line = bytearray()
        for x in range(WIDTH):
            v = 0xFF if pixel(ram, x, y) else 0x10
            line.extend(bytes((v,)) * scale)
        for _ in range(scale):
            raw.append(0)  # filter: none
            raw.extend(line)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", WIDTH * scale, HEIGHT * scale, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")


def write_png(ram: bytes | bytearray, path: Path, scale: int = 4) -> Path:
    path.write_bytes(png_bytes(ram, scale))
    return path
