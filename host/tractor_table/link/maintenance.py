"""Stopping a running table for maintenance, over its own link.

The table firmware turns Ctrl-C off (a stray 0x03 on the USB serial must not
end a game), so tools that need the REPL — ``tractor-table deploy`` — first ask
the table to stop: they connect as the host does, and send the link's
application message ``[APP_MAINTENANCE]`` (``firmware/main.py``). The table
answers, lets the link deliver its last frames, gives Ctrl-C back and returns
from ``main()``; its state is already saved to flash, so the game resumes at the
next start.
"""

from __future__ import annotations

import threading
from typing import Any

from ..errors import CommandError
from ..vocab.enums import AppCode
from .notes import App, Note
from .serial_link import SerialLink

#: the application messages (``firmware/events.py``; ``firmware/main.py`` answers them)
APP_REPLY, APP_MAINTENANCE = AppCode.REPLY, AppCode.MAINTENANCE


def stop_table(port: str, timeout: float = 6.0) -> None:
    """Ask the table on ``port`` to stop; raise :class:`CommandError` if it does not agree."""
    answered = threading.Event()
    reply: list[Any] = []

    def on_note(note: Note) -> None:
        if isinstance(note, App):
            payload = note.payload
            if payload and payload[0] == APP_REPLY and len(payload) >= 3 and payload[1] == APP_MAINTENANCE:
                reply[:] = list(payload)
                answered.set()

    link = SerialLink(port, on_note=on_note, reconnect_s=0.1).start()
    try:
        if not link.wait_synced(timeout):
            raise CommandError(
                f"the table on {port} did not complete the link handshake within {timeout:g} s; "
                "unplug it, hold seat 0's button while plugging it back in (a maintenance start), "
                "and try again"
            )
        link.send_app([APP_MAINTENANCE])
        if not answered.wait(timeout):
            raise CommandError(f"the table on {port} did not answer the maintenance request")
        if reply[2] != 0:
            raise CommandError(f"the table on {port} refused to stop: {reply[3] if len(reply) > 3 else ''}")
        # let the table see the ack of its answer before we let go of the port
        link.wait_for(lambda h: False, 0.3)
    finally:
        link.close()
