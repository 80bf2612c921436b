# runs-under: micropython heapsize=160K
"""The frame codec and the chained state hash, under CPython and MicroPython.

Independent references: the CRC is recomputed here from a hand-written
bitwise CRC-32 (not binascii), and the canonical JSON is compared against
literal bytes written out by hand.
"""

import ttlink


def crc32_bitwise(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_crc_reference_agrees_with_known_vector():
    assert crc32_bitwise(b"123456789") == 0xCBF43926


def test_frame_layout_is_at_json_star_crc_newline():
    f = ttlink.encode_frame(513, 7, 6, ttlink.EVENT, [3, 99, [2, 1, 52]])
    body = b"[1,513,7,6,11,[3,99,[2,1,52]]]"
    assert f == b"@" + body + b"*" + (f"{crc32_bitwise(body):08x}").encode() + b"\n"


def test_roundtrip():
    payload = [5, "AS KH", [1, 2], -3, "\u00e9\u4e2d"]
    f = ttlink.encode_frame(1, 2, 3, ttlink.APP, payload)
    frame, at = ttlink.decode_line(f[:-1])
    assert at == 0
    assert frame == [ttlink.PROTO, 1, 2, 3, ttlink.APP, payload]


def test_no_control_bytes_on_the_wire():
    # 0x03 would interrupt the program on the rp2; no control byte but the
    # final newline is ever sent, whatever the payload holds
    s = ""
    for i in range(32):
        s += chr(i)
    f = ttlink.encode_frame(1, 1, 0, ttlink.APP, [s, "\x7f"])
    for b in f[:-1]:
        assert b >= 0x20
    assert f[-1] == 10
    frame, _ = ttlink.decode_line(f[:-1])
    assert frame[5] == [s, "\x7f"]


def test_every_single_bit_flip_is_rejected():
    f = ttlink.encode_frame(9, 1, 0, ttlink.EVENT, [0, 12345, [1, 2, 3]])[:-1]
    for i in range(len(f)):
        for bit in range(8):
            bad = bytearray(f)
            bad[i] ^= 1 << bit
            frame, _ = ttlink.decode_line(bytes(bad))
            assert frame is None, (i, bit)


def test_truncated_and_junk_lines_are_not_frames():
    f = ttlink.encode_frame(9, 1, 0, ttlink.PING, [])[:-1]
    for n in range(len(f)):
        assert ttlink.decode_line(f[:n])[0] is None
    assert ttlink.decode_line(b"Traceback (most recent call last):")[0] is None
    assert ttlink.decode_line(b"")[0] is None


def test_frame_after_junk_or_a_cut_frame_on_the_same_line_is_found():
    f1 = ttlink.encode_frame(9, 1, 0, ttlink.PING, [])[:-1]
    f2 = ttlink.encode_frame(9, 2, 1, ttlink.APP, ["a@b"])[:-1]
    frame, at = ttlink.decode_line(b"boot ok " + f2)
    assert at == 8 and frame[2] == 2
    frame, at = ttlink.decode_line(f1[:10] + f2)
    assert at == 10 and frame[5] == ["a@b"]


def test_crlf_is_tolerated():
    f = ttlink.encode_frame(9, 1, 0, ttlink.PING, [])[:-1] + b"\r"
    assert ttlink.decode_line(f)[0] is not None


def test_frames_are_bounded():
    ttlink.encode_frame(1, 1, 0, ttlink.APP, ["x" * 400])
    try:
        ttlink.encode_frame(1, 1, 0, ttlink.APP, ["x" * ttlink.MAX_LINE])
    except ValueError:
        pass
    else:
        raise AssertionError("an overlong frame was encoded")


def test_wrong_shapes_with_valid_crc_are_rejected():
    for body in (b"[1,2,3]", b"{}", b'[1,2,3,4,"x",[]]', b"[1,2,3,4,-5,[]]", b"[1,2,3,4,5,[]"):
        line = b"@" + body + b"*" + (f"{crc32_bitwise(body):08x}").encode()
        assert ttlink.decode_line(line)[0] is None, body


def test_line_reader_any_chunking_and_overlong_lines():
    lines = []
    r = ttlink.LineReader(lines.append, size=16)
    data = b"abc\n" + b"x" * 40 + b"\ndef\n\nghi"
    for i in range(len(data)):
        r.feed(data[i : i + 1])
    assert lines == [b"abc", b"def", b""]
    assert r.overlong == 1
    r.feed(b"\n")
    assert lines[-1] == b"ghi"
    lines2 = []
    r2 = ttlink.LineReader(lines2.append, size=16)
    r2.feed(data + b"\n")
    assert lines2 == lines


def test_canonical_json_is_compact_utf8_with_micropython_escapes():
    ev = [3, "A\bB\fC\\b\u00e9", True, None, -7]
    assert ttlink.canonical(ev) == b'[3,"A\\u0008B\\u000cC\\\\b\xc3\xa9",true,null,-7]'


def test_chain_hash_definition():
    # crc32 over the previous hash as 4 big-endian bytes + canonical JSON
    ev = [2, 1, 52]
    h0 = ttlink.chain_hash(0, ev)
    assert h0 == crc32_bitwise(b"\x00\x00\x00\x00[2,1,52]")
    h1 = ttlink.chain_hash(h0, [4, "S"])
    prev = bytes([(h0 >> 24) & 255, (h0 >> 16) & 255, (h0 >> 8) & 255, h0 & 255])
    assert h1 == crc32_bitwise(prev + b'[4,"S"]')
    assert ttlink.chain_hash(0xFFFFFFFF, ev) == crc32_bitwise(b"\xff\xff\xff\xff[2,1,52]")
    assert ttlink.chain_hash(0, [2, 1, 53]) != h0
