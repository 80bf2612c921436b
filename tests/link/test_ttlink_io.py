"""The device's stdio adapter (firmware/ttlink_io.py): never blocks on read,
checks write counts. (Under MicroPython it runs in test_e2e.py, on a pty.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "firmware"))

import ttlink_io  # noqa: E402


class ShortWriter:
    """An output that takes only part of what it is given (the rp2 when the
    host stops reading), then fails."""

    def __init__(self) -> None:
        self.calls = 0

    def write(self, data: bytes) -> int:
        self.calls += 1
        if self.calls == 1:
            return len(data)
        if self.calls == 2:
            return len(data) // 2
        raise OSError(5, "EIO")


def test_read_takes_what_is_there_and_never_blocks() -> None:
    r, w = os.pipe()
    with os.fdopen(r, "rb", buffering=0) as rf:
        port = ttlink_io.StdioPort(stdin=rf, stdout=ShortWriter())
        assert port.read() is None
        os.write(w, b"abc")
        assert port.read() == b"abc"  # part of a line: what is there
        assert port.read() is None
        os.write(w, b"x" * 300)
        got = port.read()
        assert got is not None and len(got) == 128  # at most one buffer per call
        assert port.read() == b"x" * 128
        assert port.read() == b"x" * 44
    os.close(w)


def test_read_takes_one_frame_a_call() -> None:
    # the host's frames that came together (its acks) are read one a turn of
    # the main loop, not all in the turn they came
    r, w = os.pipe()
    with os.fdopen(r, "rb", buffering=0) as rf:
        port = ttlink_io.StdioPort(stdin=rf, stdout=ShortWriter())
        os.write(w, b"@[1]*00\n@[2]*01\nab")
        assert port.read() == b"@[1]*00\n"
        assert port.read() == b"@[2]*01\n"
        assert port.read() == b"ab"
        assert port.read() is None
    os.close(w)


def test_write_counts_are_checked() -> None:
    r, w = os.pipe()
    with os.fdopen(r, "rb", buffering=0) as rf:
        out = ShortWriter()
        port = ttlink_io.StdioPort(stdin=rf, stdout=out)
        assert port.write(b"frame one\n") is True
        assert port.write(b"frame two\n") is False
        assert port.short_writes == 1
        assert port.write(b"frame three\n") is False
        assert port.write_errors == 1
    os.close(w)


def test_random32_is_30_bits_and_varies() -> None:
    values = {ttlink_io.random32() for _ in range(20)}
    assert len(values) > 15
    assert all(0 <= v < 2**30 for v in values)
