"""``tractor-table deploy``: build, open the board, check the ABI and the
room, copy (:mod:`.install`), reset, and run the self-test."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from .. import firmware_build
from ..errors import CommandError
from ..paths import BUILD_FIRMWARE_DIR, CONFIG_FILE, FIRMWARE_DIR
from .cards import read_cards
from .config import config_problems
from .install import deploy_to
from .manifest import Result, manifest
from .transport import open_board, probe


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
    probe(port)  # a wrong port fails before the compile, not after
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
