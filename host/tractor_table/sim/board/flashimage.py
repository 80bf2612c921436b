"""A Pico's flash as ``deploy`` leaves it, as a littlefs image on the host.

:func:`build` formats a :class:`NorFlash <norflash>` image (the model of the
Pico's 1,408 KiB of filesystem flash, ``board/mpy/norflash.py``) with the
unix port's own ``vfs.VfsLfs2.mkfs`` (the same littlefs code as the rp2 port's)
and copies in what ``tractor-table deploy`` puts on a Pico
(:func:`deploy_items`): every firmware module as ``.mpy``, ``boot.py`` and
``main.py`` as sources, ``cards.bin`` when a card set is given, ``table.cfg``
and ``deployed.txt``. The work is done under MicroPython
(``board/mpy/flashimage_mp.py``), run by :func:`tractor_table.mpy.run`.

:func:`listing` and :func:`read` read an image back (tests, debugging): a
board powered off, or cut, can be looked at as it was left.

``march="armv6m"`` compiles the modules as ``deploy`` does, for a Pico;
``march="host"`` compiles them for this machine (native code for the unix
port), for a board model that boots from the image here.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ... import firmware_build, mpy
from ...deploy import cards as deploy_cards
from ...deploy import manifest as deploy_manifest
from ...errors import CommandError
from ...paths import FIRMWARE_DIR

MPY_DIR = Path(__file__).resolve().parent / "mpy"
#: the rp2 port's filesystem on a 2 MB Pico: 1,408 KiB (boards/RPI_PICO)
BLOCKS = 352
BLOCK_SIZE = 4096
HEAP = "128K"


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build` did: the files written and the flash work it took."""

    image: Path
    files: tuple[deploy_manifest.Item, ...]
    reads: int
    erases: int
    programs: int
    prog_bytes: int
    busy_us: int  # the chip's typical erase/program/read times, summed
    blocks_used: int

    @property
    def total_bytes(self) -> int:
        return sum(len(i.data) for i in self.files)


def deploy_items(
    *,
    cards: Path | None = None,
    rules: str = "",
    march: str = "armv6m",
    src: Path = FIRMWARE_DIR,
    build_dir: Path | None = None,
    precompiled: Path | None = None,
) -> list[deploy_manifest.Item]:
    """The files ``deploy`` would copy (:func:`tractor_table.deploy.manifest.manifest`);
    ``precompiled``: a folder where the modules are already compiled for ``march``."""
    with tempfile.TemporaryDirectory(prefix="tractor-image-") as tmp:
        out = build_dir or Path(tmp) / "mpy"
        if precompiled is not None:
            compiled = [
                firmware_build.Compiled(s, precompiled / (s.stem + ".mpy"))
                for s in firmware_build.firmware_sources(src)
            ]
        elif march == "armv6m":
            compiled = firmware_build.compile_all(src=src, out=out)
        elif march == "host":
            from ..virtual.runner import compile_for_host

            compile_for_host(out)
            compiled = [
                firmware_build.Compiled(s, out / (s.stem + ".mpy"))
                for s in firmware_build.firmware_sources(src)
            ]
        else:
            raise CommandError(f"march {march!r}: give 'armv6m' (a Pico) or 'host' (this machine)")
        card_set = deploy_cards.read_cards(cards) if cards is not None else None
        # the manifest reads the compiled files now, while they still exist
        return deploy_manifest.manifest(compiled, cards=card_set, config=None, rules=rules)


def _run(args: Sequence[str]) -> list[str]:
    proc = mpy.run(MPY_DIR / "flashimage_mp.py", path=[MPY_DIR], heapsize=HEAP, args=list(args), timeout=300)
    lines = proc.stdout.splitlines()
    for line in lines:
        if line.startswith("ERR "):
            raise CommandError(f"flash image {args[1]}: {line[4:]}")
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        raise CommandError(f"flash image {args[1]}: MicroPython failed: {last}")
    return lines


def build(image: Path, items: Sequence[deploy_manifest.Item]) -> BuildResult:
    """Format ``image`` (created, or overwritten) and copy ``items`` into its root."""
    names = [i.name for i in items]
    if len(set(names)) != len(names):
        raise CommandError("flash image: two files with the same name")
    for n in names:
        if not n or "/" in n or n.startswith("."):
            raise CommandError(f"flash image: {n!r} is not a plain file name")
    image.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tractor-image-") as tmp:
        for item in items:
            (Path(tmp) / item.name).write_bytes(item.data)
        lines = _run(["build", str(image), tmp, *names])
    ok = next(ln for ln in lines if ln.startswith("OK "))
    reads, erases, programs, prog_bytes, busy_us, used = (int(x) for x in ok.split()[1:])
    return BuildResult(image, tuple(items), reads, erases, programs, prog_bytes, busy_us, used)


def listing(image: Path) -> dict[str, int]:
    """The files in the image's root and their sizes (-1 for a folder)."""
    if not image.exists():
        raise CommandError(f"flash image {image}: no such file")
    out: dict[str, int] = {}
    for line in _run(["list", str(image)]):
        if line.startswith("F "):
            _f, name, size = line.split(" ", 2)
            out[name] = int(size)
    return out


def read(image: Path, name: str) -> bytes:
    """The bytes of one file of the image."""
    if not image.exists():
        raise CommandError(f"flash image {image}: no such file")
    with tempfile.TemporaryDirectory(prefix="tractor-image-") as tmp:
        out = Path(tmp) / "out"
        _run(["get", str(image), name, str(out)])
        return out.read_bytes()


def extract(image: Path, folder: Path) -> list[Path]:
    """Every file of the image's root, copied into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    done = []
    for name, size in sorted(listing(image).items()):
        if size >= 0:
            path = folder / name
            path.write_bytes(read(image, name))
            done.append(path)
    return done
