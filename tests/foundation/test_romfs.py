"""A module imported from a ROMFS image (``vfs.VfsRom``) leaves its bytecode
and its str/bytes constants in the image; from a folder they are copied into
the GC heap (bench/bench_romfs.py measures the firmware so, docs/performance.md
"Heap with the firmware in a ROMFS partition")."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mpremote.romfs import VfsRomWriter
from tractor_table import firmware_build, mpy, mpy_native

#: one long bytecode function and a long str constant
SOURCE = (
    "TEXT = '" + "romfs " * 200 + "'\n"
    "def f(x, y):\n" + "\n".join(f"    x = x + {i} * y" for i in range(150)) + "\n    return x\n"
)

PROBE = """
import gc, sys, vfs
def live():
    gc.collect(); gc.collect()
    return gc.mem_alloc()
if IMAGE:
    buf = bytearray(SIZE)
    with open(IMAGE, "rb") as fh:
        fh.readinto(buf)
    fh = None
    vfs.mount(vfs.VfsRom(buf), "/rom")
    sys.path.insert(0, "/rom")
a = live()
import big
print(live() - a, big.f(1, 2), len(big.TEXT), big.__file__)
"""


def _import(folder: Path, image: Path | None) -> tuple[int, str]:
    code = f"IMAGE = {str(image) if image else ''!r}\nSIZE = {image.stat().st_size if image else 0}\n" + PROBE
    proc = mpy.run(code=code, path=[] if image else [folder], heapsize="256K", timeout=60)
    assert proc.returncode == 0, proc.stderr
    size, result, text, where = proc.stdout.split()
    assert (int(result), int(text)) == (1 + sum(range(150)) * 2, 1200)
    return int(size), where


def test_bytecode_and_constants_stay_in_the_image(tmp_path: Path) -> None:
    src = tmp_path / "big.py"
    src.write_text(SOURCE)
    folder = tmp_path / "lib"
    folder.mkdir()
    target = folder / "big.mpy"
    subprocess.run([firmware_build.mpy_cross_binary(), firmware_build.OPT, "-o", str(target), str(src)],
                   check=True, capture_output=True)
    writer = VfsRomWriter()
    writer.mkfile("big.mpy", target.read_bytes())
    image = tmp_path / "big.romfs"
    image.write_bytes(writer.finalise())

    counts = mpy_native.read_file(target)
    assert sum(counts.bytecode_sizes) == counts.bytecode_bytes and counts.bytecode_functions == 2
    assert counts.const_bytes >= 1200 + 1  # the text and its null
    assert counts.bytecode_heap(16) <= counts.bytecode_heap(32) < counts.bytecode_bytes + 2 * 32

    from_dir, where_dir = _import(folder, None)
    from_rom, where_rom = _import(folder, image)
    assert where_dir == f"{folder}/big.mpy" and where_rom == "/rom/big.mpy"
    # from the folder the heap holds the bytecode (this port's 32-byte blocks)
    # and the text (1,200 B; the module's path differs, a block either way);
    # from the image neither
    assert from_dir - from_rom >= counts.bytecode_heap(32) + 1200 - 64
    assert from_rom < from_dir // 4


NATIVE = """import micropython
@micropython.native
def f(x, y):
    for i in range(10):
        x = x + i * y
    return x
def g(x):
    return x + 1
"""

OVERWRITE = """
import sys, vfs
buf = bytearray(SIZE)
with open(IMAGE, "rb") as fh:
    fh.readinto(buf)
vfs.mount(vfs.VfsRom(buf), "/rom")
sys.path.insert(0, "/rom")
import nat
print("before", nat.f(1, 2), nat.g(1))
for i in range(len(buf)):
    buf[i] = 0
print("native", nat.f(1, 2))
try:
    print("bytecode", nat.g(1))
except Exception as e:
    print("bytecode failed", type(e).__name__)
"""


def test_native_code_is_copied_bytecode_runs_in_place(tmp_path: Path) -> None:
    """With the image overwritten after the import, the native function still
    runs (its machine code was copied out, as the rp2 port copies it into its
    heap) and the bytecode function does not (it ran from the image)."""
    src = tmp_path / "nat.py"
    src.write_text(NATIVE)
    target = tmp_path / "nat.mpy"
    subprocess.run([firmware_build.mpy_cross_binary(), "-march=host", firmware_build.OPT, "-o", str(target), str(src)],
                   check=True, capture_output=True)
    writer = VfsRomWriter()
    writer.mkfile("nat.mpy", target.read_bytes())
    image = tmp_path / "nat.romfs"
    image.write_bytes(writer.finalise())
    proc = mpy.run(code=f"IMAGE = {str(image)!r}\nSIZE = {image.stat().st_size}\n" + OVERWRITE, path=[],
                   heapsize="256K", timeout=60)
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["before 91 2", "native 91"], proc.stdout + proc.stderr
    # the zeroed bytecode either raises or crashes the process; it never answers 2
    assert "bytecode 2" not in lines
