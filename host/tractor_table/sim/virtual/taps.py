"""Typing taps at the virtual table (``tractor-table virtual`` without ``--bots``).

The table tells what it did by its events (over the link), its sounds (the
buzzer: a card taken, a play accepted, a refusal) and its display. After each
command this module says, in one line, what the table did with it; and it keeps
a :class:`~tractor_table.tablewatch.TableWatch` (the phase and the seat to
play as the events tell them) to say what the table waits for (the prompt) and
to label a refusal with the phase it happened in.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ... import events as E
from ...errors import CommandError
from ...events import EV, card_name, cards_text
from ...tablewatch import KITTY_UP, TableWatch, describe_in

if TYPE_CHECKING:
    from shengji import Rules

    from .runner import VirtualTable

def echo(verb: str, seat: int, card: int, events: Sequence[E.Event | Sequence[Any]], sounds: list[int],
         watch: TableWatch) -> str:
    """One line: what the table did with one command. ``events`` came after it
    (the watch has not seen them yet), ``sounds`` the buzzer's since it."""
    words: list[str] = []
    for ev in events:
        words.append(describe_in(ev, watch))
        watch.on_event(ev)
    if verb == "tap" and not events:
        if EV.SND_TAP in sounds or EV.SND_OK in sounds:
            held = watch.waiting[seat]
            if card not in held:
                held.append(card)
            words.append(f"S{seat} tapped {card_name(card)}: waiting {cards_text(held)}")
        elif EV.SND_ERROR not in sounds:
            words.append(f"S{seat} tapped {card_name(card)}: the table took nothing (that card is waiting already)")
    elif verb == "undo" and not events:
        back = watch.waiting[seat]
        words.append(f"S{seat} undo: {'took back ' + cards_text(back) if back else 'nothing was waiting'}")
        watch.waiting[seat] = []
    elif verb in ("ok", "challenge") and not events:
        if verb == "challenge" and EV.SND_ERROR not in sounds:
            words.append(f"S{seat} challenges the throw: tap the cards that beat it, then ok {seat}")
        elif verb == "ok" and watch.phase == KITTY_UP:
            words.append(f"ok {seat}: nobody bid; the kitty is turned up next")
        else:
            words.append(f"{verb} {seat}: the table did nothing (it does not wait for that now)")
    return "; ".join(words)


def read_commands(
    vt: VirtualTable,
    rules: Rules,
    lines: Iterable[str],
    say: Callable[[str], None] = print,
    *,
    side_events: bool = False,
) -> bool:
    """The typed commands' loop: each command sent, then one line of what the
    table did and, when it changed, what it waits for. ``side_events`` (the
    table served to another program's link, ``virtual --serve``): the events
    come beside the link, in order with the board's answer to
    :meth:`~.runner.VirtualTable.settle`, so each command's are all there once
    the table has handled it. True when ``quit`` ended it, False at the end of the lines."""
    from ...tapgrammar import CONSOLE_HELP, parse_console

    kinds = {"ok": EV.BTN_OK, "undo": EV.BTN_UNDO, "challenge": EV.BTN_CHALLENGE}
    watch = TableWatch(rules, vt.hand_scan)
    say(CONSOLE_HELP)
    if side_events:
        vt.settle()
        for ev in _queued(vt):
            watch.on_event(ev)
    else:
        _take(vt, watch, 1.0)
    last_prompt = ""

    def prompt() -> None:
        nonlocal last_prompt
        text = watch.prompt()
        if text != last_prompt:
            say("> " + text)
            last_prompt = text

    prompt()
    for raw in lines:
        try:
            command = parse_console(raw, vt.decks)
        except ValueError as exc:
            say(f"bad input: {exc}")
            continue
        if command is None:
            continue
        verb, seat, card = command
        if verb == "quit":
            return True
        if verb == "show":
            for line in vt.lines:
                say("  |" + line.ljust(16) + "|")
            last_prompt = ""
            prompt()
            continue
        sounds_before = len(vt.sounds)
        if verb == "tap":
            vt.tap(seat, card)
        else:
            if verb == "ok":
                watch.pressed_ok(seat)
            vt.press(seat, kinds[verb])
        if side_events:
            if not vt.settle():
                if not vt.alive():
                    raise CommandError(f"the virtual table stopped: {vt.firmware_errors()}")
                say(f"  {verb} {seat}: the table has not handled it yet (busy?); "
                    "its answer comes with the next command, 'show' shows its display")
                continue
            got = _queued(vt)
        else:
            got = _collect(vt, sounds_before)
        sounds = vt.sounds[sounds_before:]
        say("  " + echo(verb, seat, card, got, sounds, watch))
        prompt()
    return False


def _queued(vt: VirtualTable) -> list[E.Event]:
    """The events already here (after :meth:`~.runner.VirtualTable.settle`)."""
    got: list[E.Event] = []
    while True:
        try:
            got.append(vt.events.get_nowait())
        except queue.Empty:
            return got


def _collect(vt: VirtualTable, sounds_before: int, settle: float = 0.15, most: float = 1.5) -> list[E.Event]:
    """The events that follow a command: until the table has beeped (or ``most``
    seconds), then until ``settle`` seconds pass without another event."""
    vt.wait(lambda: len(vt.sounds) > sounds_before or not vt.events.empty(), most)
    got: list[E.Event] = []
    quiet_until = time.monotonic() + settle
    while time.monotonic() < quiet_until:
        try:
            got.append(vt.events.get(timeout=max(quiet_until - time.monotonic(), 0.01)))
            quiet_until = time.monotonic() + settle
        except queue.Empty:
            break
    return got


def _take(vt: VirtualTable, watch: TableWatch, wait: float) -> None:
    """The events the table sent by itself (the hand's start after boot)."""
    seen = 0
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            watch.on_event(vt.events.get(timeout=0.1))
            seen += 1
        except queue.Empty:
            if seen:
                break
