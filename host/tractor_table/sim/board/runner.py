"""The board model as the host sees it: :class:`PicoTable`.

The same handle as :class:`~tractor_table.sim.virtual.runner.VirtualTable` (taps,
presses, the link, the display's lines, the memory figures), but the
MicroPython process runs ``mpy/start.py pico`` (the board's other mode): a modelled Raspberry Pi Pico whose
flash (the NOR flash model, ``mpy/norflash.py``, in a file) holds a littlefs
image built as ``deploy`` would write it (:func:`.flashimage.build` of
:func:`.flashimage.deploy_items`: ``.mpy`` modules, ``boot.py`` and ``main.py``
as source, ``cards.bin``, ``table.cfg``, ``deployed.txt``), booting ``boot.py``
then ``main.py``; the real
``picoboard.PicoBoard`` reads the PN532 models through ``machine.SPI``. A tap
is a tag put on the seat's PN532 model, a press the seat's button pin held
low as a person would, and the display's lines are read back from the
display model's RAM (its pixels in :attr:`PicoTable.pixels`, read through
:class:`~tractor_table.monoframe.Frame`).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from shengji import Rules

from ... import chip_qstrs, mpy, paths, rulescodec, virtual_heap
from ...deploy import manifest as deploy_manifest
from ...errors import CommandError
from ...hardware.hwconfig import render_hwconfig
from ...hardware.pinmap import PinMap
from ...monoframe import Frame
from ..virtual import runner as vr
from . import C_FACTOR, CPU_FACTOR, flashimage, kinds

BOARD_DIR = Path(__file__).resolve().parent / "mpy"
#: the board model's modules (its machine and time, the device models, the
#: board, the control protocol, the chip's stack), compiled into the table's
#: board folder, and the events beside the link (vevents, loaded with
#: ``side_events`` only); not the fast mode's own (vboard, its heap report)
PICO_SOURCES = tuple(
    p for p in sorted(BOARD_DIR.glob("*.py"))
    if p.name not in ("start.py", "vboard.py", "heapreport.py", "flashimage_mp.py", "flashsoak_mp.py")
)
#: firmware files the Pico runs from source (firmware_build.SOURCE_ONLY)
SOURCE_ONLY = ("main.py", "boot.py")
#: the device models' share of the process's heap (machine, the four PN532s,
#: the SSD1306, the board: about 105K on this 64-bit port, measured and
#: reported apart as ``sim_bytes``, the tap log's six histograms, 12 KB, and
#: its font table among them), and room for what they allocate as they answer;
#: 176K since the wrappers of mpy/kinds.py (the firmware's native code charged
#: as native: about 8 KB with their table) and the models' growth (163 KB
#: measured at 160K, when the firmware's cap no longer left room to hold back);
#: 184K since the allocator model (its entry points as native code, larger than
#: bytecode: at 176K the held block was 32 bytes, too small to give back the
#: littlefs mount's share, and the firmware got 2.5 KB less than the chip's);
#: 192K since the models' cut on a card's stage, the unplugged readers and the
#: imports timed as C (2026-12-06, evening: at 184K the held block was 32
#: bytes again, test_board_serve's check of it failing); 196K since
#: chipstack.py runs the firmware on the main thread (issue 21: its code and
#: run()'s objects, 2.9 KB more; the held block 5.9 -> 3.0 KB at 192K)
MODELS_HEAP = 196 * 1024
#: flash images this process built, by what went into them (a digest of every
#: file's name and bytes): the same firmware and configuration give the same
#: littlefs image but for the files' modification times (MicroPython's littlefs
#: records them; the firmware reads none), and building one (a MicroPython
#: process that formats the flash and copies every file) was 1-3 s of each
#: board's start; a test process starts dozens. At most _IMAGES_KEPT (1.4 MB each)
_IMAGES: dict[str, bytes] = {}
_IMAGES_KEPT = 4
#: the stages of a card in flight at which cut_in_flight cuts the power
#: (mpy/picoboot.py's CUT_STAGES, in its order)
CUT_STAGES = ("tap-placed", "tap-seen", "tap-shown", "tap-confirming", "tap-counted", "tap-saving")
#: room beyond the firmware's cap for the garbage made between two of the
#: process's collections (the allocator model: the process never collects in
#: the firmware's stretches; docs/firmware.md, "The firmware's collections")
GC_SLACK = 96 * 1024
#: a board given an explicit heapsize (no chip cap): the firmware's heap of the
#: virtual board plus the models'
BOARD_HEAP_BY_DECKS = {d: f"{int(h[:-1]) + MODELS_HEAP // 1024}K" for d, h in vr.FIRMWARE_HEAP_BY_DECKS.items()}


def board_heap(decks: int) -> str:
    return BOARD_HEAP_BY_DECKS.get(decks, "224K")


def chip_cap(fw_dir: Path, names: tuple[str, ...] = virtual_heap.RESIDENT) -> tuple[int, virtual_heap.CodeKinds]:
    """The firmware's share of the board model's heap, in this port's bytes,
    such that it runs out where the chip's 240 KiB would (issue 21): the
    resident modules' code as it is here, plus what the chip has left once
    that code is counted at the chip's size (bytecode x HEAP_BYTECODE, native
    code as its armv6m bytes), in data bytes of this port (/ HEAP_DATA).
    Measured once per compiled firmware and set of modules
    (``fw_dir/heapkinds.json``; with the engine's ladders and oracle, which
    3-4 decks hold, ``heapkinds-ladders.json``: virtual_heap.resident_names)."""
    cache = fw_dir / ("heapkinds.json" if names == virtual_heap.RESIDENT else "heapkinds-ladders.json")
    try:
        raw = json.loads(cache.read_text())
        kinds = virtual_heap.CodeKinds(raw["unix"], raw["native"], {k: (v[0], v[1]) for k, v in raw["by"].items()})
    except (OSError, ValueError, KeyError):
        kinds = virtual_heap.resident_code(fw_dir, names)
        cache.write_text(json.dumps({"unix": kinds.unix, "native": kinds.native, "by": kinds.by_module}))
    free = (virtual_heap.CHIP_HEAP - kinds.chip) / virtual_heap.HEAP_DATA
    return kinds.unix + int(free), kinds


class PicoTable(vr.VirtualTable):
    """The firmware on the board model (a modelled Pico). Use as a context manager."""

    mode = "pico"
    what = "the board model"

    #: the board's link timers run on board time, which runs faster or slower
    #: than real time (the person's pace; a loaded machine): the board keeps
    #: itself at most a second ahead of real time since the host's link last
    #: wrote (mpy/picoboot.py, Board._pace), so the host resends as usual
    #: (ttlink's 200 ms / 2 s) and pings after 0.5 s of silence instead of 1 s
    #: (a board waiting for the host waits at most that long); it takes the
    #: table for gone only after 30 s of silence, not 3 s of real time in which
    #: a busy machine may have run only a fraction of that on the board (a new
    #: process after a power cut or a reset announces itself: the link needs
    #: no time-out to see it)
    link_timing = (200, 2000, 500, 30000)
    #: the bots' wait for the next event: the person's pace is board time,
    #: which a busy machine runs slower than real time
    event_timeout = 60.0

    def __init__(
        self,
        decks: int = 2,
        *,
        heapsize: str | None = None,
        workdir: Path | None = None,
        keep_state: bool = False,
        hand_scan: bool = False,
        rules: Rules | None = None,
        cpu_factor: float = CPU_FACTOR,
        c_factor: float | None = None,
        flash_times: str = "typ",
        pace_ms: tuple[int, int] | None = None,
        pace_seed: int = 1,
        readers: str = "spi",
        heap_report: bool = False,
        table_cfg: dict[str, str] | None = None,
        pinmap: PinMap | None = None,
        missing_readers: tuple[int, ...] = (),
    ) -> None:
        """``pinmap``: the board's wiring when not hardware/pinmap.toml's (an
        SSD1309 display, say): generated into the firmware's ``hwconfig.py``
        as ``make hardware`` does, for the flash and for the board's models.
        ``c_factor``: the charge of the firmware's C calls timed apart
        (gc.collect, json): by default C_FACTOR with the RP2040's CPU_FACTOR,
        else ``cpu_factor``. ``flash_times``: the flash chip's "typ" or "max"
        erase and program times. ``pace_ms``: (lo, hi), a person's pace, a
        card every lo-hi ms at the table (drawn with ``pace_seed``); None:
        the bots' pace, each card as soon as its seat is free.
        ``missing_readers``: seats whose reader is unplugged from power-up on
        (it never answers; :meth:`reader_missing` plugs it in again)."""
        if flash_times not in ("typ", "max"):
            raise CommandError(f"flash times {flash_times!r}: 'typ' or 'max'")
        if pace_ms is not None and not 0 < pace_ms[0] <= pace_ms[1]:
            raise CommandError(f"pace {pace_ms!r}: give 0 < lo <= hi (ms)")
        if readers != "spi":
            raise CommandError("the board model reads its PN532 models over SPI: --readers spi only")
        if heap_report:
            raise CommandError("the heap report needs the virtual board (--board virtual)")
        #: the last answer to probe_heap: (free, live, bytes tried, "ok" / "MemoryError" / "-")
        self.heap_probe: tuple[int, int, int, str] | None = None
        #: the firmware's share of the heap in this port's bytes (chip_cap), 0
        #: with an explicit ``heapsize`` (then the firmware has all but the models')
        self.cap = 0
        self.code_kinds: virtual_heap.CodeKinds | None = None
        self._auto_heap = heapsize is None
        super().__init__(
            decks,
            heapsize=heapsize or board_heap(decks),
            workdir=workdir,
            keep_state=keep_state,
            readers="spi",
            hand_scan=hand_scan,
            rules=rules,
        )
        self.cpu_factor = cpu_factor
        if c_factor is None:
            c_factor = C_FACTOR if cpu_factor == CPU_FACTOR else cpu_factor
        self.c_factor = c_factor
        self.flash_times = flash_times
        self.pace_ms = pace_ms
        self.pace_seed = pace_seed
        #: more table.cfg keys (e.g. reader_groups), after the rules'
        self.table_cfg = dict(table_cfg or {})
        self.pinmap = pinmap
        if any(not 0 <= m < 4 for m in missing_readers):
            raise CommandError(f"missing readers {missing_readers!r}: seats 0-3")
        self.missing_readers = tuple(missing_readers)
        self.image = self.workdir / "flash.img"
        #: the power cut that ended the board ("C" line): (flash op, kind, % done), or None
        self.power_cut: tuple[int, str, int] | None = None
        self.frames_at_cut = -1  # the display frames drawn before it
        #: a cut with a card in flight (cut_in_flight): (seat, card) of that
        #: card, its stage in power_cut's kind; None for a cut at a flash operation
        self.cut_tap: tuple[int, int] | None = None
        self.power_ups = 0  # MicroPython processes started: 1 + the power cuts and resets
        self._reset_args: list[str] = []  # a relaunch after a reset: its cause, the boots so far
        self._relaunch: threading.Thread | None = None
        self.resets = 0  # resets of the board (machine.reset, the watchdog)
        #: the SSD1306's display RAM after the last frame (1,024 bytes)
        self.pixels = b""
        #: the board's figures at power-off ("V" line): virtual_us, cpu_us,
        #: taps, frames, lat_p50, lat_p99, cycle_p50, ... (microseconds)
        self.figures: dict[str, int] = {}
        self.wall_ms = -1
        #: framebuf's 8x8 font (characters 32-126, 8 bytes each), from the board
        self.font = b""
        #: where the heap's live peak was (issue 21): the taps done then, the
        #: firmware's modules loaded (main.py, run as __main__, not among
        #: them) and the display's text lines; known after close()
        self.peak_taps = -1
        self.peak_modules: list[str] = []
        self.peak_lines: list[str] = []

    def _flash_image(self) -> None:
        """The Pico's flash as ``deploy`` leaves it: a littlefs image of the
        firmware compiled for this machine, the virtual deck's card set and the
        table's configuration (a kept image, ``keep_state``, boots as it was left)."""
        if self.keep_state and self.image.exists():
            return
        if not self.fw_dir.exists():
            vr.compile_for_host(self.fw_dir)
        if self.pinmap is not None:
            hw = self.workdir / "hwconfig.py"
            hw.write_text(render_hwconfig(self.pinmap), encoding="utf-8")
            vr.compile_for_host(self.fw_dir, hw)
        items = [
            i for i in flashimage.deploy_items(march="host", precompiled=self.fw_dir)
            if i.name not in ("cards.bin", "table.cfg")
        ]
        items.append(deploy_manifest.Item(paths.CARDS_FILE, vr.virtual_card_map(self.decks), "card set"))
        config = rulescodec.table_cfg(self.rules, hand_scan=self.hand_scan, writer="the board model")
        for k, v in self.table_cfg.items():
            config += f"{k}={v}\n"
        items.append(deploy_manifest.Item(paths.CONFIG_FILE, config.encode(), "configuration"))
        self.image.unlink(missing_ok=True)
        digest = hashlib.sha256()
        for item in items:
            digest.update(b"%d %s %d\n" % (len(item.name), item.name.encode(), len(item.data)))
            digest.update(item.data)
        key = digest.hexdigest()
        built = _IMAGES.get(key)
        if built is None:
            flashimage.build(self.image, items)
            built = self.image.read_bytes()
            while len(_IMAGES) >= _IMAGES_KEPT:
                del _IMAGES[next(iter(_IMAGES))]
            _IMAGES[key] = built
        else:
            self.image.parent.mkdir(parents=True, exist_ok=True)
            self.image.write_bytes(built)

    def probe_heap(self, block: int = 0, timeout: float = 30.0) -> tuple[int, int, int, str]:
        """The board's heap as the firmware finds it at its next turn: (free
        bytes, live bytes, ``block``, whether ``block`` bytes could be
        allocated (in pieces of 480 bytes, as the state of a table is: fragments count): "ok", "MemoryError", or "-" for none tried)."""
        self.heap_probe = None
        self._send(b"G %d\n" % block)
        if not self.wait(lambda: self.heap_probe is not None, timeout):
            raise CommandError(f"the board did not answer the heap probe in {timeout:.0f} s")
        assert self.heap_probe is not None
        return self.heap_probe

    @property
    def chip_peak(self) -> int:
        """The firmware's live heap peak as bytes on the chip, counted by kind
        (its resident code at the chip's size, the rest as data); -1 before it is known."""
        peak = self.firmware_peak
        if peak < 0 or self.code_kinds is None:
            return -1
        return self.code_kinds.chip_peak(peak)

    def peak_code(self) -> virtual_heap.CodeKinds | None:
        """The code of the modules loaded at the live peak (``peak_modules``
        and main), by kind: each module's own heap here and its armv6m native
        code, measured in a fresh process in the order the firmware loads
        them (``virtual_heap.RESIDENT``'s first, then the rest); None before
        the peak is known."""
        if not self.peak_modules:
            return None
        if not self.fw_dir.is_dir():
            raise CommandError(
                f"the firmware compiled for the board ({self.fw_dir}) is gone: give the PicoTable a workdir "
                "that outlives it to count the peak's code"
            )
        mods = set(self.peak_modules) | {"main"}
        names = tuple(n for n in virtual_heap.RESIDENT if n in mods)
        names += tuple(sorted(n for n in mods if n not in names))
        code = virtual_heap.resident_code(self.fw_dir, names)
        missing = [n for n in names if n not in code.by_module]
        if missing:
            raise CommandError(f"the peak's modules {missing} did not import from {self.fw_dir}")
        return code

    def chip_peak_at_peak(self) -> tuple[int, virtual_heap.CodeKinds] | None:
        """The live peak on the chip by kind with the code of the modules
        loaded at that moment (``peak_code``), not the fixed resident list:
        a module loaded then (picoboard, a phase's part) counts as code, one
        dropped (tabledeal in the play) not at all; None before it is known."""
        code = self.peak_code()
        peak = self.firmware_peak
        if code is None or peak < 0:
            return None
        return code.chip_peak(peak), code

    def cut_power(self, after_ops: int) -> None:
        """Cut the power during the ``after_ops``-th flash erase or program from
        now (``norflash.cut_at``): the board ends there, its image as the cut left it."""
        if after_ops < 1:
            raise CommandError(f"cut_power({after_ops}): give a count of 1 or more flash operations")
        self._send(b"C %d\n" % after_ops)

    def reader_missing(self, seat: int, missing: bool) -> None:
        """The seat's reader unplugged (``missing``: it never answers, a reset
        does not bring it back) or plugged in again."""
        if not 0 <= seat < 4:
            raise CommandError(f"reader_missing({seat}): give a seat 0-3")
        self._send(b"N %d %d\n" % (seat, 1 if missing else 0))

    def cut_in_flight(self, stage: str) -> None:
        """Cut the power when the next card put down reaches ``stage``
        ("tap-placed", "tap-seen", "tap-shown", "tap-confirming",
        "tap-counted": mpy/picoboot.py, CUT_STAGES), at the model call where
        it does (wherever the firmware is then): :attr:`power_cut` has the
        stage as its kind and :attr:`cut_tap` the card's seat and id.
        "tap-saving": the first card put down while a save is being written
        (begun, not finished), as it is put down."""
        if stage not in CUT_STAGES:
            raise CommandError(f"cut_in_flight({stage!r}): give one of {', '.join(CUT_STAGES)}")
        self._send(b"J %d\n" % (CUT_STAGES.index(stage) + 1))

    def hang(self) -> None:
        """The firmware's next call into a model never returns (a stuck bus
        transaction): only the watchdog gets it out."""
        self._send(b"H\n")

    def display_off(self, ms: int) -> None:
        """The display does not answer on I2C for ``ms`` ms of board time (a loose cable)."""
        if ms < 1:
            raise CommandError(f"display_off({ms}): give a time of 1 ms or more")
        self._send(b"I %d\n" % ms)

    def start(self, timeout: float = 30.0, *, host_link: bool = True, side_events: bool = False) -> PicoTable:
        """Boot the board; with ``host_link`` False the terminal is left for
        another program's link (``virtual --board pico --serve``): :attr:`port`.
        ``side_events``: the board reports the table's events beside the link
        as the fast board does (mpy/vevents.py: the firmware's link caught as
        main.App makes it, its log written at each turn of the main loop, in
        the models' time and heap, not the firmware's)."""
        super().start(timeout, host_link=host_link, side_events=side_events)
        return self

    def _prepare(self) -> None:
        """The board compiled, the flash image built, the chip's cap measured."""
        sim_dir = self.workdir / "sim"
        if not (sim_dir / "chip.mpy").exists():
            vr.compile_for_host(sim_dir, vr.CHIP_SOURCE)
        # the models compiled as the firmware is (less of the heap than
        # source); the launcher runs from there, so that its folder (the
        # first on the path) holds no source that would win over them
        self._launcher = vr.compile_board(self.workdir / "board", PICO_SOURCES)
        # the firmware's native methods, charged as native code (kinds.py)
        kinds.write_fwkinds(self._launcher.parent / "fwkinds.py", kinds.fw_kinds(paths.FIRMWARE_DIR))
        self._flash_image()
        # the names start.py interns first: the firmware's, as on the chip
        vr.write_names(
            self._launcher.parent / vr.NAMES_FILE, self.fw_dir, chip_qstrs.match_modules(self.rules, hand_scan=self.hand_scan)
        )
        if self._auto_heap:
            ladders = bool(self.rules is not None and self.rules.same_shape_only)
            self.cap, self.code_kinds = chip_cap(self.fw_dir, virtual_heap.resident_names(self.decks, ladders))
            # TT_TAPTRACE (mpy/taptrace.py): its timeline's fixed arrays, the models' too
            trace = 700 * 1024 if os.environ.get("TT_TAPTRACE") else 0
            self.heapsize = f"{(self.cap + MODELS_HEAP + GC_SLACK + trace) // 1024 + 1}K"

    def _launch(self) -> None:
        """Power up: a MicroPython process running the board from the image
        (after a power cut, a new one on the same USB pty and FIFOs: a
        fresh heap, as a Pico's after power-up)."""
        self.power_ups += 1
        with open(self.stderr_path, "ab" if self.power_ups > 1 else "wb") as err:
            self.proc = mpy.popen(
                self._launcher,
                # the board's machine and time first: they replace the built-ins;
                # the firmware folder only for hwconfig (the wiring): the firmware
                # itself runs from the flash
                path=[self._launcher.parent, self.workdir / "sim", self.fw_dir],
                heapsize=self.heapsize,
                args=[
                    self.mode,
                    str(self._ctl_path),
                    str(self._out_path),
                    str(self.image.resolve()),
                    f"{self.cpu_factor!r},{self.c_factor!r},{self.flash_times}",
                    f"{self.decks}/{self.cap}/{GC_SLACK}" if self.cap else str(self.decks),
                    *self._reset_args,
                    *(["events"] if self._side_events else []),
                    *([f"missing={','.join(map(str, self.missing_readers))}"] if self.missing_readers else []),
                ],
                stdin=self._master,
                stdout=self._master,
                stderr=err,
            )
        if self.pace_ms is not None:
            # the person's pace, in the control FIFO before anything else
            lo, hi = self.pace_ms
            os.write(self._ctl, b"K %d %d %d\n" % (lo, hi, self.pace_seed + self.power_ups))

    def _power_back(self) -> None:
        # the cut board's process ends (its figures written); the power comes back
        proc = self.proc
        if proc is not None:
            proc.wait()
        with self._changed:
            if self._stop.is_set():
                return
            self.restored = False
            self._launch()
            self._changed.notify_all()

    def wait(self, predicate: Any, timeout: float) -> bool:
        """As VirtualTable.wait, but a board between two processes (a reset,
        a power cut: the host starts the next one) is not a board that stopped.
        The time-out counts time as an idle machine would (sim/patience.py)."""
        patience = self._patience(timeout)
        grace = -1.0
        with self._changed:
            while not predicate():
                now = time.monotonic()
                left = patience.left()
                relaunching = self._relaunch is not None and self._relaunch.is_alive()
                stopped = self.proc is not None and self.proc.poll() is not None and not relaunching
                if stopped and grace < 0:
                    # its last lines (a power cut's "C", the figures) may still
                    # be on their way through the output thread: a moment more
                    grace = now + 2.0
                if left <= 0 or (stopped and now >= grace):
                    return bool(predicate())
                self._changed.wait(min(left, 0.05))
            return True

    def _send(self, line: bytes) -> None:
        t = self._relaunch
        if t is not None and t.is_alive():
            t.join(timeout=10)  # the next process is being started
        super()._send(line)

    def close(self) -> None:
        t = self._relaunch
        if t is not None:
            t.join(timeout=10)
            self._relaunch = None
        super().close()

    def _drain_reports(self, timeout: float = 2.0) -> None:
        super()._drain_reports(timeout)
        if self.proc is not None and self.proc.returncode == 0:
            self.wait(lambda: self.wall_ms >= 0, timeout)

    def _out_line(self, line: str) -> None:
        op, _, rest = line.partition(" ")
        if op == "F":
            self.font = bytes.fromhex(rest)
            return
        if op == "P":
            ram = bytes.fromhex(rest)
            with self._changed:
                self.pixels = ram
                self.lines = Frame(ram).text_lines(self.font)
                self.frames += 1
                self._changed.notify_all()
            return
        if op == "V":
            words = rest.split()
            with self._changed:
                figures = {k: int(v) for k, v in zip(words[::2], words[1::2], strict=True)}
                if "wall_ms" in figures:  # the process's last line: its real time
                    self.wall_ms = figures.pop("wall_ms")
                self.figures.update(figures)
                self._changed.notify_all()
            return
        if op == "C":
            kind = rest.split()
            with self._changed:
                self.power_cut = (int(kind[0]), kind[1], int(kind[2]))
                self.cut_tap = (int(kind[3]), int(kind[4])) if len(kind) > 4 and int(kind[3]) >= 0 else None
                self.frames_at_cut = self.frames
                self._reset_args = []
                self._relaunch = threading.Thread(target=self._power_back, daemon=True)
                self._relaunch.start()
            return
        if op == "Z":
            # machine.reset(), the watchdog: the board boots again in a new process
            cause, boots = rest.split()
            with self._changed:
                self._reset_args = [cause, boots]
                self.resets += 1
                self._relaunch = threading.Thread(target=self._power_back, daemon=True)
                self._relaunch.start()
                self._changed.notify_all()
            return
        if op == "Y":
            taps, *mods = rest.split()
            with self._changed:
                self.peak_taps = int(taps)
                self.peak_modules = mods
                self._changed.notify_all()
            return
        if op == "Q":
            with self._changed:
                self.peak_lines = Frame(bytes.fromhex(rest)).text_lines(self.font)
                self._changed.notify_all()
            return
        if op == "G":
            free, alloc, n, got = rest.split()
            with self._changed:
                self.heap_probe = (int(free), int(alloc), int(n), got)
                self._changed.notify_all()
            return
        super()._out_line(line)


