"""The operator console's virtual table (``tractor-table console --virtual``):
the real firmware under MicroPython on a virtual table, with bots or not, as a
:class:`~tractor_table.console.source.TableSource`. It lives with the
simulators; the console knows only the source's interface."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ...console.source import TableSource
from ...errors import CommandError

if TYPE_CHECKING:
    from shengji import Rules

    from ...link.serial_link import SerialLink
    from .game import BotGame
    from .runner import VirtualTable


class VirtualSource(TableSource):
    """The real firmware under MicroPython on a virtual table, with bots or not."""

    kind = "virtual"
    can_tap = True

    def __init__(
        self,
        rules: Rules,
        *,
        bots: bool = False,
        hands: int = 1,
        seed: int = 1,
        strength: int = 1,
        readers: str = "spi",
        table: VirtualTable | None = None,
        pace: float = 0.0,
    ) -> None:
        from ...console.pace import Pacer
        from .runner import VirtualTable

        super().__init__()
        self.rules = rules
        self.decks = rules.decks
        self.bots = bots
        self.hands = hands
        self.seed = seed
        self.strength = strength
        self.vt = table if table is not None else VirtualTable(rules.decks, readers=readers, rules=rules)
        self.vt.note_hooks.append(self._put_note)
        #: the bots' pace, pause and step (console/pace.py)
        self.pacer = Pacer(pace)
        self.vt.note_hooks.append(self.pacer.on_note)
        self.game: BotGame | None = None
        self._bots: threading.Thread | None = None

    @property
    def link(self) -> SerialLink | None:
        return self.vt.link

    def start(self) -> None:
        self.vt.start()
        link = self.vt.link
        self.port = (link.port or "") if link is not None else ""

    def close(self) -> None:
        self.closing = True  # the bots' errors from here on are the table going away
        self.pacer.close()
        self.vt.close()
        if self._bots is not None:
            self._bots.join(timeout=2)
        self.closed = True

    def display(self) -> list[str] | None:
        return list(self.vt.lines)

    def tap(self, seat: int, card: int) -> None:
        self.vt.tap(seat, card)

    def press(self, seat: int, kind: int) -> None:
        self.vt.press(seat, kind)

    def start_bots(self) -> None:
        if not self.bots or self._bots is not None:
            return
        from ...console.pace import PacedTable
        from .game import BotGame

        self.game = BotGame(
            PacedTable(self.vt, self.pacer),  # type: ignore[arg-type]
            self.rules,
            seed=self.seed,
            strength=self.strength,
            say=lambda text: self.inbox.put(("bots", text)),
        )
        from .seed import seed_line

        self.inbox.put(("bots_seed", seed_line(self.seed)))
        self._bots = threading.Thread(target=self._play, name="tt-console-bots", daemon=True)
        self._bots.start()

    @property
    def bots_playing(self) -> bool:
        return self._bots is not None and self._bots.is_alive()

    def _play(self) -> None:
        game = self.game
        assert game is not None
        try:
            game.play(self.hands)
        except CommandError as exc:
            if not self.closing:
                self.inbox.put(("bots_error", f"the bots stopped: {exc}"))
            return
        self.inbox.put(
            (
                "bots_done",
                f"the bots played {game.hands_played} hand(s), {game.tricks_played} tricks; "
                f"{game.checks} checks with the deal known, {len(game.disagreements)} disagreement(s)",
            )
        )
