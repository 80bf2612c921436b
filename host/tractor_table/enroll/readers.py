"""The readers enrollment and the checks read tags with: a PN532 on a USB-UART
adapter (:class:`AdafruitUartReader`) and a connected table's seat reader
(:class:`TableTagReader`, through :class:`~.tablelink.EnrollLink`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..errors import CommandError
from .tablelink import APP_ENROLL, EnrollLink

SEATS = 4


class TagReader(Protocol):
    """What enrollment needs from a reader.

    A reader that reports each tap once (a table's scanner, which already
    ignores a card resting on the reader) says so with a true ``taps_once``
    attribute: its ``poll`` returns a tag once per tap, and enrollment then
    does not wait for the reader to clear."""

    def poll(self) -> list[bytes]:
        """UIDs of the tags in the field now (0, 1 or 2)."""
        ...

    def read_code(self) -> bytes | None:
        """Pages 4-5 of the tag found by the last poll, or None if unreadable."""
        ...

    def write_code(self, data: bytes) -> bool:
        """Write 8 bytes to pages 4-5 of that tag; False if it failed."""
        ...


class AdafruitUartReader:
    """A PN532 on a USB-UART adapter, driven by Adafruit's ``PN532_UART`` over pyserial."""

    def __init__(self, port: str, baudrate: int = 115200) -> None:
        import serial
        from adafruit_pn532.uart import PN532_UART  # type: ignore[import-untyped]

        try:
            # The library reads more bytes than a short answer holds and waits for
            # the read timeout; it starts reading only once the answer is arriving,
            # and the longest answer (two tags, 34 bytes) takes 3 ms at 115200 baud.
            self.serial = serial.Serial(port, baudrate, timeout=0.01)
        except (serial.SerialException, OSError) as exc:
            raise CommandError(
                f"cannot open the reader on {port}: {exc}; is the USB-UART adapter plugged in?"
            ) from None
        try:
            self.pn532 = PN532_UART(self.serial)
            self.pn532.SAM_configuration()
            # Bounded passive activation (3 attempts): a poll without a card returns.
            self.pn532.call_function(0x32, params=[0x05, 0xFF, 0x01, 0x02])
        except (RuntimeError, OSError) as exc:
            self.serial.close()
            raise CommandError(
                f"no PN532 answered on {port} ({exc}); check TX/RX are crossed, "
                "the board's interface switches are set to HSU/UART, and its power"
            ) from None

    def close(self) -> None:
        self.serial.close()

    def poll(self) -> list[bytes]:
        try:
            resp = self.pn532.call_function(0x4A, response_length=40, params=[0x02, 0x00], timeout=0.5)
        except RuntimeError:
            return []  # a broken answer counts as "nothing seen"; the next poll retries
        if not resp:
            return []
        out = []
        i = 1
        for _ in range(min(resp[0], 2)):
            if i + 5 > len(resp):
                break
            n = resp[i + 4]
            out.append(bytes(resp[i + 5 : i + 5 + n]))
            i += 5 + n
        return out

    def read_code(self) -> bytes | None:
        try:
            data = self.pn532.mifare_classic_read_block(4)
        except (RuntimeError, TypeError):
            return None
        return bytes(data[:8]) if data is not None and len(data) >= 8 else None

    def write_code(self, data: bytes) -> bool:
        try:
            return bool(
                self.pn532.ntag2xx_write_block(4, data[:4]) and self.pn532.ntag2xx_write_block(5, data[4:8])
            )
        except (RuntimeError, TypeError):
            return False



class TableLostError(CommandError):
    """The link to the table came back (a replug, a table restart) but enroll
    mode could not be turned back on: the table refused or did not answer."""


class TableTagReader:
    """A connected table's seat reader, through the link (``enroll --table``).

    The host asks the table for enroll mode at one seat (``[APP_ENROLL, seat]``);
    the table then plays no cards and reports every tag its scanner sees at that
    seat as ``[APP_TAG, seat, "uidhex"]``, or a reader error as
    ``[APP_TAG, seat, "", "two" | "crosstalk" | "fault"]``; a long press of the
    seat's button is ``[APP_TAG, seat, "", "undo"]`` (:meth:`take_undo`). ``close()`` leaves
    enroll mode (``[APP_ENROLL, -1]``). The scanner reports a tag once per tap,
    so this reader is ``taps_once``; it cannot read or write tag memory.

    Enroll mode belongs to the link session that asked for it, and the link
    starts a new session whenever it comes back (the cable was out, the table
    restarted): then ``poll`` asks for enroll mode again at the same seat,
    waits for the table's answer and says so in one line; a table that refuses
    or does not answer ends the reading with :class:`TableLostError`. Tags the
    table reported in the old session are delivered once (the link numbers
    them within a session and drops its queue with the session), so none is
    counted twice; a tap the table reported into a dead link is lost, and the
    operator is asked to tap the last card again.

    The link itself (its thread, the sessions, a request and its answer) is
    an :class:`~.tablelink.EnrollLink`; this class is the reader on top of it."""

    taps_once = True

    def __init__(
        self,
        port: str,
        seat: int = 0,
        say: Callable[[str], None] = print,
        timeout: float = 10.0,
        poll_wait: float = 0.05,
    ) -> None:
        if not 0 <= seat < SEATS:
            raise CommandError(f"--seat must be 0-{SEATS - 1}, not {seat}")
        self.port = port
        self.seat = seat
        self.say = say
        self.timeout = timeout
        self.poll_wait = poll_wait
        self._down_told = False
        self._unsure = False  # asked again, no answer: the table may be in enroll mode
        self.active = False
        self._undo = False  # a long press of the seat's button not yet taken
        #: times enroll mode was turned back on after the link came back
        self.resumed = 0
        self.link = EnrollLink(port, seat, on_down=self._tell_down)
        try:
            if not self.link.wait_synced(timeout):
                raise CommandError(
                    f"no table answered on {port} within {timeout:g} s (no link handshake); "
                    "is the table running and the port the table's?"
                )
            status, why = self.link.request(seat, timeout)
            if status == "refused":
                raise CommandError(f"the table on {port} refused enroll mode: {why}")
            if status != "ok":
                raise CommandError(
                    f"the table on {port} did not answer the enroll request; "
                    "its firmware may predate enroll mode (deploy it again)"
                )
        except BaseException:
            self.link.close()
            raise
        self.active = True

    def _tell_down(self, why: str) -> None:
        # ``why`` (pyserial's words, or the keepalive's) is in the link's log
        if self.active and not self._down_told:
            self._down_told = True
            self.say(
                f"lost the link to the table on {self.port} (cable out, or the table restarting); "
                "waiting for it to come back: tap no card meanwhile (the table may take it as a play)"
            )

    def _resume(self, session: int) -> None:
        """The link came back in a new session: enroll mode again, same seat."""
        restarted = self.link.boot_of(session) != self.link.boot_of(self.link.mode_session)
        what = "restarted" if restarted else "reconnected"
        status, why = self.link.request(self.seat, self.timeout)
        if status == "ok":
            self.resumed += 1
            self._down_told = False
            self.say(
                f"the table {what}: enroll mode is back on at seat {self.seat}; "
                "tap the last card again if it was not counted"
            )
            return
        if status == "no link":
            return  # down again before it answered: asked again when it is back
        self.active = False
        # a restart or another table on the port: the host cannot tell them apart
        came_back = f"after the link to the table on {self.port} came back, the table"
        if status == "refused":
            raise TableLostError(f"{came_back} refused enroll mode at seat {self.seat}: {why}")
        self._unsure = True
        raise TableLostError(
            f"{came_back} did not answer the request for enroll mode at seat {self.seat} "
            f"within {self.timeout:g} s; check the table and run the command again"
        )

    def close(self) -> None:
        try:
            if self.active:
                self.active = False
                # with the link down, wait a little for it (not the whole reply timeout)
                status, why = self.link.request(
                    -1, self.timeout if self.link.up() else min(self.timeout, 2.0)
                )
                if status == "refused":
                    self.say(f"note: the table on {self.port} refused to leave enroll mode: {why}")
                elif status != "ok":
                    self.say(
                        f"note: the table on {self.port} did not confirm that it left enroll mode; "
                        "with this host gone it leaves it at the next tap, and that tap is the game's"
                    )
                # let the table see the ack of its answer before we let go of the port
                self.link.linger(0.3)
            elif self._unsure:
                self._unsure = False
                self.link.send_now([APP_ENROLL, -1])  # in case the request got there after all
                self.link.linger(0.3)
        finally:
            self.link.close()

    # --- the reader

    def poll(self) -> list[bytes]:
        item = self.link.next_item(self.poll_wait)
        if item is None:
            return []
        kind, session, data = item
        if kind == "down":
            self._tell_down(data)
            return []
        if kind == "up":
            if self.active and session > self.link.mode_session:
                self._resume(session)
            return []
        if kind != "tag":
            return []  # a late answer to a request already given up on
        p = data
        if p[2]:
            try:
                return [bytes.fromhex(p[2])]
            except (TypeError, ValueError):
                self.say(f"the table sent a tag UID that is not hex ({p[2]!r}); tap the card again")
                return []
        reason = p[3] if len(p) > 3 else ""
        if reason == "undo":  # a long press of the seat's button: enroll's undo
            self._undo = True
            return []
        if reason == "two":
            return [b"", b""]  # two tags, UIDs not told: enrollment asks for one at a time
        if reason == "crosstalk":
            self.say(
                f"the tag was also seen at another seat's reader (crosstalk); "
                f"tap the card again in the middle of seat {self.seat}'s reader, away from the others"
            )
        elif reason == "fault":
            self.say(f"the table reports that seat {self.seat}'s reader stopped answering; it is being reset")
        else:
            self.say(f"the table reported a reader error at seat {self.seat} ({reason!r}); tap the card again")
        return []

    def take_undo(self) -> bool:
        """Whether the seat's button asked for an undo (a long press) since the last call."""
        wanted, self._undo = self._undo, False
        return wanted

    def read_code(self) -> bytes | None:
        return None  # the table does not read tag memory for the host

    def write_code(self, data: bytes) -> bool:
        return False
