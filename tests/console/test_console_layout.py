"""The console for people: what is on the screen at 80x24 and at 200x50 (read
from the screen as drawn, not from the panes' text), colours, the bots' pace
with pause and step, and keys typed in a burst on a loaded machine all
arriving. Headless, with Textual's pilot, against the real firmware."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from shengji import Rules
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input
from tractor_table.commands.console import make_verifier
from tractor_table.console.app import ConsoleApp
from tractor_table.console.colour import AGREED, BLACK, DISAGREES, RED, coloured
from tractor_table.console.widgets import Confirm
from tractor_table.sim.patience import Patience
from tractor_table.sim.virtual.source import VirtualSource


def screen(app: ConsoleApp, styles: bool = False) -> list[str]:
    """The screen as drawn, one string a row (with ``styles``, ANSI escapes kept)."""
    w, h = app.size
    console = Console(width=w, height=h, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens,
                                                      simplify=True))
    return console.export_text(styles=styles).splitlines()


async def until(pilot: Pilot[int], what: Callable[[], Any], timeout: float = 30.0) -> None:
    # the time-out counted as an idle machine would (sim/patience.py): on a
    # loaded one this process waits for a CPU, and that is no hang
    patience = Patience(timeout)
    while not what():
        if patience.left() <= 0:
            raise AssertionError(f"timed out waiting for {what.__doc__ or what}")
        await pilot.pause(0.05)


def run(app: ConsoleApp, size: tuple[int, int], scenario: Callable[[Pilot[int]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await scenario(pilot)

    asyncio.run(main())


def _bots_hand(size: tuple[int, int]) -> tuple[ConsoleApp, list[str], tuple[bool, str]]:
    """The bots play a one-deck hand at full speed; the app, its screen at the
    end, and the tap input's state then (disabled, placeholder)."""
    rules = Rules(decks=1)
    source = VirtualSource(rules, bots=True, readers="direct", seed=1, pace=0)
    source.start()
    app = ConsoleApp(source, make_verifier(rules))
    drawn: list[str] = []
    tap_state: list[tuple[bool, str]] = []

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: not source.bots_playing and app.bots_state != "the bots are playing")
        await pilot.pause(0.3)
        drawn.extend(screen(app))
        tap = app.query_one("#tap", Input)
        tap_state.append((tap.disabled, tap.placeholder))
        await pilot.press("q")

    try:
        run(app, size, scenario)
    finally:
        source.close()
    assert source.game is not None and source.game.disagreements == []
    return app, drawn, tap_state[0]


def _last_trick_lines(app: ConsoleApp) -> list[str]:
    return [x for x in app.game.text(compact=app.size.width < 120).splitlines() if x.strip().startswith("S")]


def test_at_80x24_everything_that_matters_is_on_the_screen() -> None:
    app, drawn, (tap_disabled, placeholder) = _bots_hand((80, 24))
    text = "\n".join(drawn)
    assert len(drawn) == 24 and all(len(x) <= 80 for x in drawn)
    # the link, in two lines on top, each whole (no label alone on its line)
    assert drawn[0].startswith(" link synced · /dev/pts/") and " events · boot " in drawn[0]
    assert drawn[1].startswith(" verifier ") and " agreed, 0 disagree · records off · bots done" in drawn[1]
    # the display beside the game; the last trick by seat and the result, none cut off
    assert "│|hand over: " in text
    game = app.game.text(compact=True).splitlines()
    assert len(game) <= 8
    for line in game:
        assert any(line in row for row in drawn), line
    assert any(" over: attackers " in row and ", next S" in row for row in drawn)
    assert len(_last_trick_lines(app)) == 4
    # the events pane shows several events, the last one whole (wrapped, not cut)
    event_rows = [row for row in drawn if "  [agreed]" in row or " trick " in row and "plays" in row]
    assert len(event_rows) >= 4
    assert any(row.rstrip(" │").endswith("[agreed]") for row in drawn)
    hand_over = [row for row in drawn if "hand over: attackers" in row and "next dealer" in row]
    assert hand_over, text
    # the message and the keys
    assert any("the bots played 1 hand(s)" in row for row in drawn)
    assert "p push" in drawn[-1] and "space pause/go" in drawn[-1] and "n step" in drawn[-1]
    assert "q quit" in drawn[-1] and "+ faster" in drawn[-1] and "- slower" in drawn[-1]
    # the bots are done: the tap input is back, with its commands
    assert not tap_disabled and placeholder.startswith("tap SEAT CARD")
    assert any(row.strip().startswith("tap SEAT CARD") for row in drawn)


def test_at_200x50_the_panes_use_the_room() -> None:
    app, drawn, _ = _bots_hand((200, 50))
    text = "\n".join(drawn)
    assert len(drawn) == 50
    # the link pane with a line per label, the disagreements pane beside the events
    for label in ("state     synced", "port      /dev/pts/", "verifier  ", "records   off", "bots      done"):
        assert label in text, label
    assert "disagreements: 0" in text and "outside the replayer" in text
    for line in app.game.text().splitlines():
        assert any(line in row for row in drawn), line
    assert "result    hand over: attackers" in text
    # more events than at 80x24: at least 25 rows of them
    assert sum(1 for row in drawn if "[agreed]" in row) >= 25


def test_colours_of_suits_and_verdicts() -> None:
    t = coloured("   12  trick 3: S1 plays AH 10D KS BJ SJ  [agreed]")

    def style_at(word: str) -> str:
        at = t.plain.index(word)
        return " ".join(str(span.style) for span in t.spans if span.start <= at < span.end)

    assert style_at("AH") == RED and style_at("10D") == RED and style_at("BJ") == RED
    assert style_at("KS") == BLACK and style_at("SJ") == BLACK
    assert style_at("[agreed]") == AGREED
    assert style_at("S1") == ""  # a seat is no card
    bad = coloured("    4  S1 bids 2H: accepted  [DISAGREES]")
    assert any(str(s.style) == DISAGREES for s in bad.spans)
    assert isinstance(t, Text)


def test_colours_are_drawn_on_the_screen() -> None:
    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    source.start()
    app = ConsoleApp(source, make_verifier(rules))

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: app.verifier.agreed >= 1)
        app.command("tap 1 2H")
        app.command("ok 1")
        await until(pilot, lambda: any("S1 bids 2H: accepted" in x for x in app.query_one("#events").plain))
        await pilot.pause(0.2)
        rows = screen(app, styles=True)
        row = next(x for x in rows if "bids" in x and "2H" in x)
        # 2H in bold red, [agreed] in green (the theme's truecolor shades)
        import re

        def colour_before(word: str) -> tuple[int, int, int]:
            found = re.findall(r"38;2;(\d+);(\d+);(\d+)", row[: row.index(word)])
            r, g, b = found[-1]
            return int(r), int(g), int(b)

        r, g, _ = colour_before("2H")
        assert r > 150 and g < 100, repr(row)
        assert "\x1b[1;38;2;" in row[: row.index("2H")]  # bold
        r, g, _ = colour_before("[agreed]")
        assert g > 150 and g > r, repr(row)
        await pilot.press("q")

    try:
        run(app, (80, 24), scenario)
    finally:
        source.close()


def test_pace_pause_and_step() -> None:
    rules = Rules(decks=1)
    source = VirtualSource(rules, bots=True, readers="direct", seed=1, pace=0.25)
    source.start()
    app = ConsoleApp(source, make_verifier(rules))
    pacer = source.pacer

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: app.link_view.events >= 3)
        t0, n0 = time.monotonic(), app.link_view.events
        await pilot.pause(1.6)
        rate = (app.link_view.events - n0) / (time.monotonic() - t0)
        assert rate < 1 / 0.25 + 1.5, rate  # about one event each 0.25 s, not dozens
        assert "pace 0.25 s" in " ".join(screen(app))
        await pilot.press("space")
        assert pacer.paused and app.messages[-1] == "paused: space goes on, n plays one step"
        await pilot.pause(0.6)  # what was under way lands
        n1 = app.link_view.events
        await pilot.pause(1.0)
        assert app.link_view.events == n1  # paused: nothing more
        assert "paused" in " ".join(screen(app))
        await pilot.press("n")
        await until(pilot, lambda: app.link_view.events > n1, 10)
        await pilot.pause(0.6)
        n2 = app.link_view.events
        await pilot.pause(1.0)
        assert app.link_view.events == n2 and n2 - n1 <= 3  # one step: one play (and its trick)
        await pilot.press("space")
        assert not pacer.paused
        await until(pilot, lambda: app.link_view.events > n2 + 2, 10)
        await pilot.press("q")

    try:
        run(app, (80, 24), scenario)
    finally:
        source.close()


@pytest.fixture()
def loaded() -> Iterator[None]:
    """Both cores busy, as on a loaded machine."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for p in busy:
            p.kill()
            p.wait()


def test_keys_typed_in_a_burst_under_load_all_arrive(loaded: None) -> None:
    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    source.start()
    app = ConsoleApp(source, make_verifier(rules))

    def burst(keys: list[str]) -> None:
        # as a terminal delivers them when the program is slow: all queued at
        # once, before the first is handled
        driver = app._driver
        assert driver is not None
        for key in keys:
            char = key if len(key) == 1 else (" " if key == "space" else None)
            ev = events.Key(key, char)
            ev.set_sender(app)
            driver.send_message(ev)

    def chars(text: str) -> list[str]:
        return ["space" if c == " " else c for c in text]

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: app.verifier.agreed >= 1)
        burst(["t", *chars("tap 1 2H"), "enter", *chars("ok 1"), "enter", "escape", "s"])
        try:
            await until(pilot, lambda: app.sent == 2 and app.messages[-1].startswith("status:"), 20)
        except AssertionError:
            raise AssertionError((app.sent, app.messages, app.query_one("#tap").value)) from None
        assert "sent: tap 2H at S1" in app.messages and "sent: ok at S1" in app.messages
        assert not any(m.startswith("bad input") for m in app.messages), app.messages
        await until(pilot, lambda: any("S1 bids 2H: accepted" in x for x in app.query_one("#events").plain))
        t0 = time.monotonic()
        burst(["p"])
        await until(pilot, lambda: isinstance(app.screen, Confirm), 10)  # the question, at once
        assert time.monotonic() - t0 < 3
        burst(["n"])  # no: nothing is pushed
        await until(pilot, lambda: app.messages[-1] == "push cancelled: nothing was sent", 10)
        await pilot.press("q")

    try:
        run(app, (80, 24), scenario)
    finally:
        source.close()


def _expected_blocks(frame: bytes, scale: int) -> list[str]:
    """The frame as half blocks at ``scale`` pixels a block, any lit pixel
    lighting its block: computed here from the frame buffer (MONO_VLSB, 128x64),
    not with the console's code."""

    def lit(x: int, y: int) -> bool:
        return 0 <= x < 128 and 0 <= y < 64 and bool(frame[(y // 8) * 128 + x] >> (y % 8) & 1)

    def block(bx: int, by: int) -> bool:
        return any(lit(x, y) for x in range(bx * scale, bx * scale + scale)
                   for y in range(by * scale, by * scale + scale))

    cols = (128 + scale - 1) // scale
    rows = ((64 + scale - 1) // scale + 1) // 2
    chars = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}
    return ["".join(chars[block(bx, 2 * r), block(bx, 2 * r + 1)] for bx in range(cols)) for r in range(rows)]


def _pixel_view(size: tuple[int, int]) -> tuple[ConsoleApp, list[str], list[str], list[str]]:
    """Key d on a virtual table at this size: the app, the display pane as
    drawn on the screen (inside its border), the lines it drew them from, the
    whole screen."""
    from tractor_table.console.widgets import Pane
    from tractor_table.screens import frame_of_lines

    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    source.start()
    app = ConsoleApp(source, make_verifier(rules))
    got: dict[str, Any] = {}

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: app.verifier.agreed >= 1 and any(source.vt.lines))
        await pilot.press("d")
        pane = app.query_one("#display", Pane)
        # drawn once the pane has the frame of the lines the board shows now
        lines = list(source.vt.lines)
        await until(pilot, lambda: pane.text != "(not known yet)" and list(source.vt.lines) == lines
                    and app._pixels_cache[0] is not None and app._pixels_cache[0][0] == tuple(lines)
                    or pane.text.startswith("the pixels need"))
        await pilot.pause(0.2)
        region = pane.content_region
        drawn = screen(app)
        got["pane"] = [row[region.x: region.x + region.width] for row in drawn[region.y: region.y + region.height]]
        got["lines"], got["screen"] = list(source.vt.lines), drawn
        got["frame"] = frame_of_lines(list(source.vt.lines))
        # d again: the eight lines, in the pane's own 20 columns and the top's 10 or 14 rows
        await pilot.press("d")
        top = app.query_one("#top")
        await until(pilot, lambda: pane.outer_size.width == 20 and top.outer_size.height in (10, 14)
                    and pane.text.startswith("|"))
        await pilot.press("q")

    try:
        run(app, size, scenario)
    finally:
        source.close()
    return app, got["pane"], got["lines"], got["screen"]


@pytest.mark.parametrize(("size", "scale"), [((200, 60), 1), ((80, 24), 3)])
def test_pixel_view_draws_the_whole_frame(size: tuple[int, int], scale: int) -> None:
    from tractor_table.screens import frame_of_lines

    app, pane, lines, drawn = _pixel_view(size)
    expected = _expected_blocks(frame_of_lines(lines), scale)
    # 200x60: 128x64 pixels in 128 columns x 32 rows; 80x24: 3x3 pixels a half block, 43x11
    assert (len(expected[0]), len(expected)) == ((128, 32) if scale == 1 else (43, 11))
    assert app.pixel_scale() == scale
    assert pane[: len(expected)] == expected, "\n".join(drawn)
    assert all(not row.strip() for row in pane[len(expected):])  # nothing more under it
    assert any("█" in row for row in expected) and any(" " in row for row in expected)
    title = "pixels 1:1" if scale == 1 else f"pixels 1/{scale}"
    assert any(title in row for row in drawn)
    # the rest of the console is still there: the game and some events
    assert any("game" in row for row in drawn) and any("events: " in row for row in drawn)
    if scale > 1:
        assert any("1:1 needs 180x43" in m for m in app.messages), app.messages


def test_pixel_view_says_why_it_cannot_in_a_small_terminal() -> None:
    app, pane, _, drawn = _pixel_view((60, 20))
    text = " ".join(row.strip() for row in pane)
    assert "the pixels need a terminal of 64x21 or more (this one is 60x20)" in text, "\n".join(drawn)
    assert any(m.startswith("pixels: no room in 60x20; the frame needs a terminal of 64x21") for m in app.messages)
    assert app.pixels_need(3) == (75, 24) and app.pixels_need(1) == (180, 43)


def test_at_80x24_with_bots_the_link_bar_shows_their_pace_and_taps_are_off(tmp_path: Path) -> None:
    """The link bar whole at 80 columns (the bots' pace in it, with records on),
    the tap input off while the bots play, and + and - changing the pace the
    bots are held to as they play."""
    from tractor_table.records import Recorder, Store

    rules = Rules(decks=1)
    source = VirtualSource(rules, bots=True, readers="direct", seed=1, pace=0.25)
    store = Store.open(tmp_path / "records.sqlite")
    source.start()
    app = ConsoleApp(source, make_verifier(rules),
                     recorder=Recorder(store, port="virtual", source="console", rules=rules))
    pacer = source.pacer

    def bar() -> list[str]:
        return screen(app)[:2]

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: app.link_view.events >= 3 and app.recorder is not None
                    and app.recorder.new_events >= 3)
        await pilot.pause(0.1)
        drawn = screen(app)
        assert all(len(row) <= 80 and "…" not in row for row in drawn[:2]), drawn[:2]
        assert drawn[0].startswith(" link synced · /dev/pts/")
        assert drawn[1].startswith(" bots playing, pace 0.25 s · "), drawn[1]
        assert " agreed, 0 disagree · " in drawn[1] and "records.sqlite +" in drawn[1]
        # the tap input: off while the bots play, and it says so
        tap = app.query_one("#tap", Input)
        assert tap.disabled
        assert any(row.strip().startswith("taps are off while the bots play") for row in drawn), drawn
        await pilot.press("t")
        assert app.focused is not tap
        assert app.messages[-1] == "taps are off while the bots play: nothing to type until they are done"
        # - slower: the bots are held to 0.5 s from their next action on
        await pilot.press("minus")
        assert pacer.pace == 0.5
        assert app.messages[-1] == "pace: 0.5 s between the table's events (was 0.25 s); + faster, - slower"
        await until(pilot, lambda: pacer.used == 0.5, 10)
        await until(pilot, lambda: bar()[1].startswith(" bots playing, pace 0.5 s · "), 10)
        # + faster, twice: 0.1 s
        await pilot.press("plus", "plus")
        assert pacer.pace == 0.1
        await until(pilot, lambda: pacer.used == 0.1, 10)
        await until(pilot, lambda: bar()[1].startswith(" bots playing, pace 0.1 s · "), 10)
        # and down to full speed, where + stays
        said = len(app.messages)
        await pilot.press("plus", "plus")
        # the second + is answered so; the bots may end their hand (and say so) right after
        assert pacer.pace == 0 and "pace: already the fastest (full speed)" in app.messages[said:]
        await until(pilot, lambda: pacer.used == 0, 10)
        assert "bots playing, full speed" in " ".join(bar()) or not source.bots_playing
        await pilot.press("q")

    try:
        run(app, (80, 24), scenario)
    finally:
        source.close()


def test_the_pace_keys_step_through_the_paces() -> None:
    from tractor_table.console.pace import PACES, Pacer, faster, slower

    assert [slower(p) for p in PACES] == [*PACES[1:], PACES[-1]]
    assert [faster(p) for p in PACES] == [0.0, *PACES[:-1]]
    assert slower(0.3) == 0.5 and faster(0.3) == 0.25 and slower(9) == 9  # a --pace between or above them
    pacer = Pacer(0.25)
    pacer.set_pace(-1)
    assert pacer.pace == 0
    pacer.gate()
    assert pacer.used == 0


def test_pace_keys_without_bots_say_so() -> None:
    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    source.start()
    app = ConsoleApp(source, make_verifier(rules))

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: app.verifier.agreed >= 1)
        await pilot.press("plus")
        assert app.messages[-1] == "pace: only the bots have a pace (--virtual --bots)"
        assert not app.query_one("#tap", Input).disabled
        await pilot.press("q")

    try:
        run(app, (80, 24), scenario)
    finally:
        source.close()
