"""The display's frame as the firmware draws it, read on the host: the one
decoder of MONO_VLSB frames.

``firmware/display.py`` draws the table's screen into a framebuf in
MONO_VLSB order, the order an SSD1306 or SSD1309 keeps its display RAM in:
page ``p`` (pixel rows ``8p`` to ``8p + 7``) is ``width`` bytes from
``p * width``, one byte per column, its bit ``k`` the row ``8p + k``
(docs/display.md). The frames come to the host from ``make screens``, the
board model's display RAM and the console (which composes one from the
lines it knows); every host place reads them through :class:`Frame`: its
pixels, its 8x8 character cells, its text, a PNG (:mod:`tractor_table.png`,
the one PNG writer) or Unicode half blocks for a terminal.
"""

from __future__ import annotations

from . import png

#: the geometry of the table's screen (the 128x64 panels; display.DisplayModel's layout)
WIDTH, HEIGHT = 128, 64
#: a panel's look in pictures: lit pixels light blue-white on a near-black glass
ON, OFF = (200, 230, 255), (12, 16, 24)


def frame_size(width: int = WIDTH, height: int = HEIGHT) -> int:
    """The bytes of a ``width`` x ``height`` MONO_VLSB frame."""
    return width * height // 8


class Frame:
    """A MONO_VLSB frame of ``width`` x ``height`` pixels (``height`` a multiple of 8)."""

    def __init__(self, data: bytes | bytearray, width: int = WIDTH, height: int = HEIGHT) -> None:
        if width < 1 or height < 8 or height % 8:
            raise ValueError(f"a frame of {width}x{height}: give a width of 1 or more and a height that is a multiple of 8")
        if len(data) != frame_size(width, height):
            raise ValueError(
                f"a {width}x{height} MONO_VLSB frame is {frame_size(width, height)} bytes, not {len(data)}"
            )
        self.data = bytes(data)
        self.width = width
        self.height = height

    def pixel(self, x: int, y: int) -> bool:
        """Whether pixel (x, y) is lit (byte ``(y // 8) * width + x``, bit ``y % 8``)."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel ({x}, {y}) is outside the {self.width}x{self.height} frame")
        return bool(self.data[(y >> 3) * self.width + x] >> (y & 7) & 1)

    def lit(self, x0: int = 0, y0: int = 0, x1: int | None = None, y1: int | None = None) -> int:
        """The lit pixels of the rectangle [x0, x1) x [y0, y1) (the whole frame by default)."""
        x1 = self.width if x1 is None else x1
        y1 = self.height if y1 is None else y1
        return sum(self.pixel(x, y) for y in range(y0, y1) for x in range(x0, x1))

    def cell(self, page: int, col: int) -> bytes:
        """The 8 column bytes of character cell ``col`` of page ``page`` (the
        firmware's 8x8 grid: framebuf's font draws a character as 8 such bytes)."""
        base = page * self.width + col * 8
        return self.data[base : base + 8]

    def text_lines(self, font: bytes) -> list[str]:
        """The text drawn on the firmware's 8-pixel grid with framebuf's font
        (``font``: 95 characters from 32, 8 column bytes each): one line per
        page, a line in inverse video read too, a cell that is no character
        read as '?', trailing blanks dropped."""
        cells = {font[i * 8 : i * 8 + 8]: chr(32 + i) for i in range(len(font) // 8)}
        out = []
        for page in range(self.height // 8):
            chars = []
            for col in range(self.width // 8):
                cell = self.cell(page, col)
                ch = cells.get(cell)
                if ch is None:
                    ch = cells.get(bytes(b ^ 0xFF for b in cell), "?")
                chars.append(ch)
            out.append("".join(chars).rstrip())
        return out

    def png(
        self,
        scale: int = 4,
        border: int = 2,
        on: tuple[int, int, int] = ON,
        off: tuple[int, int, int] = OFF,
    ) -> bytes:
        """A PNG of the frame, each pixel ``scale`` x ``scale``, with a
        ``border`` of dark glass (in pixels) around it."""
        if not 1 <= scale <= 16:
            raise ValueError(f"scale {scale}: give 1-16 picture pixels per display pixel")
        if border < 0:
            raise ValueError(f"border {border}: give 0 or more pixels")
        w = (self.width + 2 * border) * scale
        h = (self.height + 2 * border) * scale
        lit, dark = bytes(on) * scale, bytes(off) * scale
        edge = bytes(off) * (border * scale)
        blank = bytes(off) * w
        rows = [blank] * (border * scale)
        for y in range(self.height):
            row = edge + b"".join(lit if self.pixel(x, y) else dark for x in range(self.width)) + edge
            rows += [row] * scale
        rows += [blank] * (border * scale)
        return png.encode_rgb(w, h, rows)

    def half_blocks(self, scale: int = 1) -> list[str]:
        """The frame as lines of Unicode half blocks: each character two
        pixels high (▀ the upper lit, ▄ the lower, █ both, a space neither).
        ``scale`` N > 1 draws it smaller: each half block stands for N x N
        pixels and is lit when any of them is (so that a thin line stays
        visible); :func:`block_size` gives the characters drawn."""
        if scale < 1:
            raise ValueError(f"scale {scale}: give 1 or more pixels per half block")
        chars = " ▄▀█"

        def lit(bx: int, by: int) -> bool:  # the block bx, by of scale x scale pixels
            return any(
                self.pixel(x, y)
                for y in range(by * scale, min((by + 1) * scale, self.height))
                for x in range(bx * scale, min((bx + 1) * scale, self.width))
            )

        cols, _ = block_size(scale, self.width, self.height)
        blocks = -(-self.height // scale)  # half-block rows
        out = []
        for by in range(0, blocks, 2):
            out.append("".join(chars[lit(bx, by) * 2 + (by + 1 < blocks and lit(bx, by + 1))] for bx in range(cols)))
        return out


def block_size(scale: int, width: int = WIDTH, height: int = HEIGHT) -> tuple[int, int]:
    """The characters (columns, lines) :meth:`Frame.half_blocks` draws at this scale."""
    blocks = -(-height // scale)
    return -(-width // scale), -(-blocks // 2)


def from_hex(text: str, width: int = WIDTH, height: int = HEIGHT) -> Frame:
    """A frame sent as hex (the board model's "P" lines, ``make screens``)."""
    try:
        data = bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"a frame in hex: {text[:40]!r}... is not hex") from None
    return Frame(data, width, height)

