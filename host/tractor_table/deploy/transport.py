"""The board as deploying reaches it: :class:`DeployBoard` (exec, write, hash,
run, reset) and its implementation over mpremote's serial transport, the raw
REPL (:class:`MpremoteBoard`, :func:`open_board`), and the Picos plugged in
(:func:`pico_ports`)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import time
from collections.abc import Callable
from typing import Any, Protocol

from ..errors import CommandError

#: USB vendor id of Raspberry Pi (the Pico's MicroPython enumerates with it)
PICO_VID = 0x2E8A


Progress = Callable[[int, int], None]


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
        import serial

        gone: tuple[type[BaseException], ...] = (OSError, serial.SerialException)
        try:
            import termios  # POSIX: pyserial's flush is tcdrain, which raises termios.error

            gone += (termios.error,)
        except ImportError:
            pass
        self.t.exit_raw_repl()
        self.t.serial.write(b"\x04")
        # The board may restart before the byte has drained and take the port with
        # it (a Pico that resets its USB; the unix port ends its process): that is
        # the reset done, not a failure.
        with contextlib.suppress(*gone):
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


def probe(port: str) -> None:
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
            from ..link.maintenance import stop_table as _stop

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

    probe(port)
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


def literal(out: bytes) -> Any:
    import ast

    return ast.literal_eval(out.decode("utf-8").strip())
