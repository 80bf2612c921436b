"""The machine code an ``.mpy`` file puts in the heap of a port without
executable memory of its own (the rp2 port): its native functions' bytes.

On the rp2 port a native function loaded from an ``.mpy`` (``@micropython.native``,
``@micropython.viper``) is copied into the GC heap (``MP_PLAT_ALLOC_EXEC`` is not
defined there, so ``m_new``), machine code and prelude; on the unix port it goes
to memory mapped apart, outside the GC heap, so the unix port's
``gc.mem_alloc()`` never sees it. This module reads an ``.mpy`` (format v6, as
``mpy-cross`` writes it) and adds up its native functions' data, each rounded
up to the 16-byte GC blocks of a 32-bit port: the bytes the chip holds that the
unix port does not (``tractor_table.virtual_heap``, the heap by kind).

The format, as MicroPython's ``py/persistentcode.c`` reads it: a 4-byte header
(``M``, version 6, feature flags with the architecture in bits 2-7, small-int
bits), the qstr count and the constant count (var-uints), the qstrs, the
constants, then the module's raw code, each raw code being a var-uint
``len << 3 | has_children << 2 | kind``, ``len`` bytes of code, for native code
its prelude offset (kind native) or scope flags (viper), for viper optional
rodata / bss sizes, then its children (count, then each), then for native code
with relocations a relocation stream ending in 0xff.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

#: raw code kinds (kind_len & 3)
BYTECODE, NATIVE_PY, NATIVE_VIPER, NATIVE_ASM = 0, 1, 2, 3
#: persistent object types (py/persistentcode.h)
_OBJ_FUN_TABLE, _OBJ_NONE, _OBJ_FALSE, _OBJ_TRUE, _OBJ_ELLIPSIS = 0, 1, 2, 3, 4
_OBJ_STR, _OBJ_BYTES, _OBJ_INT, _OBJ_FLOAT, _OBJ_COMPLEX, _OBJ_TUPLE = 5, 6, 7, 8, 9, 10
#: scope flags of viper code (py/runtime0.h)
_VIPERRELOC, _VIPERRODATA, _VIPERBSS = 0x10, 0x20, 0x40
#: a GC block on a 32-bit port: 4 words
BLOCK = 16


class MpyError(ValueError):
    """Not an ``.mpy`` file this reader understands."""


@dataclass
class NativeCode:
    """What an ``.mpy`` holds, by kind of raw code."""

    functions: int = 0  # native and viper functions
    native_bytes: int = 0  # their code and preludes, as loaded
    native_heap: int = 0  # the same in 16-byte GC blocks (what the chip's heap holds)
    bytecode_functions: int = 0
    bytecode_bytes: int = 0
    arch: int = 0  # the header's architecture (0: none; 4: armv6m; 2: x64)
    #: each bytecode function's length (one heap allocation each when loaded
    #: from a file, none from a ROMFS image: bench/bench_romfs.py)
    bytecode_sizes: list[int] = field(default_factory=list)
    #: str and bytes constants' lengths, each with its null (the data a ROMFS
    #: image keeps in flash)
    const_sizes: list[int] = field(default_factory=list)
    #: the module's qstrs that are not the port's own (their text, which a
    #: ROMFS image keeps in flash)
    qstrs: list[bytes] = field(default_factory=list)

    @property
    def const_bytes(self) -> int:
        return sum(self.const_sizes)

    def bytecode_heap(self, block: int = BLOCK) -> int:
        """The bytecode as a port loading the file holds it: each function's
        bytes rounded up to GC blocks of ``block`` bytes (16 on a 32-bit port,
        32 on the 64-bit unix port)."""
        return sum(-(-n // block) * block for n in self.bytecode_sizes)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise MpyError("truncated .mpy")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def skip(self, n: int) -> None:
        if self.pos + n > len(self.data):
            raise MpyError("truncated .mpy")
        self.pos += n

    def uint(self) -> int:
        n = 0
        while True:
            b = self.byte()
            n = (n << 7) | (b & 0x7F)
            if not b & 0x80:
                return n


def _qstr(r: _Reader, out: NativeCode) -> None:
    n = r.uint()
    if n & 1:
        return  # a static qstr
    out.qstrs.append(r.data[r.pos : r.pos + (n >> 1)])
    r.skip((n >> 1) + 1)  # its bytes and the null


def _obj(r: _Reader, out: NativeCode) -> None:
    t = r.byte()
    if t in (_OBJ_FUN_TABLE, _OBJ_NONE, _OBJ_FALSE, _OBJ_TRUE, _OBJ_ELLIPSIS):
        return
    n = r.uint()
    if t == _OBJ_TUPLE:
        for _ in range(n):
            _obj(r, out)
    elif t in (_OBJ_STR, _OBJ_BYTES):
        out.const_sizes.append(n + 1)
        r.skip(n + 1)
    elif t in (_OBJ_INT, _OBJ_FLOAT, _OBJ_COMPLEX):
        r.skip(n)
    else:
        raise MpyError(f"unknown constant type {t}")


def _sig_flags(code: bytes, at: int) -> int:
    # MP_BC_PRELUDE_SIG_DECODE: the scope flags F of a prelude's signature
    z = code[at]
    at += 1
    f = 0
    n = 0
    while z & 0x80:
        z = code[at]
        at += 1
        f |= ((z & 0x40) >> 6) << n
        n += 1
    return f


def _raw_code(r: _Reader, out: NativeCode) -> None:
    kind_len = r.uint()
    kind = kind_len & 3
    has_children = bool(kind_len & 4)
    n = kind_len >> 3
    start = r.pos
    r.skip(n)
    flags = 0
    if kind == BYTECODE:
        out.bytecode_functions += 1
        out.bytecode_bytes += n
        out.bytecode_sizes.append(n)
    else:
        out.functions += 1
        out.native_bytes += n
        out.native_heap += -(-n // BLOCK) * BLOCK
        if kind == NATIVE_PY:
            prelude = r.uint()
            if prelude >= n:
                raise MpyError("a native prelude outside its code")
            flags = _sig_flags(r.data[start : start + n], prelude)
        else:
            flags = r.uint()
            if kind == NATIVE_ASM:
                r.uint()
                r.uint()
        if kind == NATIVE_VIPER:
            extra = 0
            if flags & _VIPERRODATA:
                rodata = r.uint()
                extra += rodata
            if flags & _VIPERBSS:
                extra += r.uint()
            if extra:
                out.native_heap += -(-extra // BLOCK) * BLOCK
            if flags & _VIPERRODATA:
                r.skip(rodata)
    if has_children:
        for _ in range(r.uint()):
            _raw_code(r, out)
    if kind != BYTECODE and flags & _VIPERRELOC:
        # the relocation stream (mp_native_relocate): ops until 0xff
        while True:
            op = r.byte()
            if op == 0xFF:
                break
            if op & 1:
                r.uint()
            op >>= 1
            if op <= 5 and op & 1:
                r.uint()


def read(data: bytes) -> NativeCode:
    """The native and bytecode functions of one ``.mpy`` file's bytes."""
    if len(data) < 4 or data[0] != ord("M") or data[1] != 6:
        raise MpyError("not an .mpy file of format v6")
    out = NativeCode(arch=data[2] >> 2)
    r = _Reader(data)
    r.skip(4)
    n_qstr = r.uint()
    n_obj = r.uint()
    for _ in range(n_qstr):
        _qstr(r, out)
    for _ in range(n_obj):
        _obj(r, out)
    _raw_code(r, out)
    if r.pos != len(data):
        raise MpyError(f"{len(data) - r.pos} bytes left after the module's code")
    return out


def read_file(path: Path) -> NativeCode:
    return read(path.read_bytes())
