"""The host's side of the club's table commands (club/commands.py): a command
the server offers is sent to the table over the link as its ``CMD_*`` app
message (docs/protocol.md) and the table's ``APP_REPLY`` is reported back.

:class:`LinkCommands` is given to the :class:`~.uploader.Uploader` as its
``on_command``; :meth:`LinkCommands.on_note` follows the link's notes for the
replies, and :meth:`LinkCommands.attach` gives it the link's ``send_app`` once
the link is up (before that a command waits, offered again by the server).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..link.notes import App
from ..vocab.enums import AppCode, TableCommand

#: the server's command names, as the table's commands
CODES = {"new_match": int(TableCommand.NEW_MATCH), "call_time": int(TableCommand.CALL_TIME)}
REPLY_S = 5.0


class LinkCommands:
    def __init__(self, send: Callable[[list[Any]], None] | None = None, *,
                 synced: Callable[[], bool] | None = None, reply_s: float = REPLY_S,
                 say: Callable[[str], None] | None = None) -> None:
        self.send = send
        self.synced = synced
        self.reply_s = reply_s
        self.say = say
        self._cond = threading.Condition()
        self._replies: dict[int, tuple[bool, str]] = {}
        self.sent: list[str] = []
        #: told each command's name just before it is sent (the host's verifier: a new
        #: match restarts its match, :meth:`~tractor_table.link.verifier.Verifier.expect_new_match`)
        self.before_send: list[Callable[[str], None]] = []

    def attach(self, send: Callable[[list[Any]], None], synced: Callable[[], bool] | None = None) -> None:
        self.send, self.synced = send, synced

    def on_note(self, note: Any) -> None:
        if isinstance(note, App):
            p = note.payload
            if len(p) >= 3 and p[0] == AppCode.REPLY and p[1] in CODES.values():
                with self._cond:
                    self._replies[int(p[1])] = (p[2] == 0, str(p[3]) if len(p) > 3 else "")
                    self._cond.notify_all()

    def __call__(self, cmd: dict[str, Any]) -> tuple[bool, str] | None:
        """Send one command; (ok, the table's words), or None: not now (no link yet)."""
        name = str(cmd.get("command", ""))
        code = CODES.get(name)
        if code is None:
            return False, f"this host does not know the command {name[:40]!r}: update it"
        if self.send is None or (self.synced is not None and not self.synced()):
            return None
        with self._cond:
            self._replies.pop(code, None)
        self.sent.append(name)
        for hook in self.before_send:
            hook(name)
        self.send([code])
        with self._cond:
            self._cond.wait_for(lambda: code in self._replies, self.reply_s)
            got = self._replies.pop(code, None)
        if got is None:
            return False, f"sent; the table did not answer in {self.reply_s:.0f} s"
        if self.say is not None:
            self.say(f"club: {name.replace('_', ' ')} {'done' if got[0] else 'refused: ' + got[1]}")
        return got
