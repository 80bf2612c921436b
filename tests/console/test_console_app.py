"""The console (Textual), headless, against the real firmware: compiled,
running under MicroPython on a virtual table, its link on a pseudo-terminal
opened with pyserial, every event judged by the full engine.

Each test drives the app with Textual's pilot inside ``asyncio.run`` (no
pytest plugin needed)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from shengji import Rules
from textual.pilot import Pilot
from tractor_table.commands.console import make_verifier
from tractor_table.console.app import ConsoleApp
from tractor_table.console.source import PortSource, TableSource
from tractor_table.console.widgets import Confirm, Pane
from tractor_table.events import describe
from tractor_table.link.engine_replayer import EngineReplayer
from tractor_table.link.verifier import Verifier
from tractor_table.records import Recorder, Store
from tractor_table.sim.patience import Patience
from tractor_table.sim.virtual.game import BotGame
from tractor_table.sim.virtual.runner import VirtualTable
from tractor_table.sim.virtual.source import VirtualSource

SIZE = (140, 45)


def run(app: ConsoleApp, scenario: Callable[[Pilot[int]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await scenario(pilot)

    asyncio.run(main())


async def until(pilot: Pilot[int], what: Callable[[], Any], timeout: float = 15.0) -> None:
    # the time-out counted as an idle machine would (sim/patience.py): on a
    # loaded one this process waits for a CPU, and that is no hang
    patience = Patience(timeout)
    while not what():
        if patience.left() <= 0:
            raise AssertionError(f"timed out waiting for {what.__doc__ or what}")
        await pilot.pause(0.05)


def pane(app: ConsoleApp, name: str) -> str:
    return app.query_one(f"#{name}", Pane).text


def log_lines(app: ConsoleApp, name: str = "events") -> list[str]:
    from tractor_table.console.textlog import TextLog

    return list(app.query_one(f"#{name}", TextLog).plain)


def record(source: TableSource) -> list[list[Any]]:
    link = source.link
    assert link is not None
    return link.with_link(lambda h: [list(e) for _, e in h.record.events])  # type: ignore[no-any-return]


async def type_line(pilot: Pilot[int], text: str, *, typed: bool = True) -> None:
    """Type a line in the tap input (``t`` opens it; it stays open after enter);
    ``typed=False`` puts the text in at once (the pilot takes ~80 ms a key)."""
    from textual.widgets import Input

    focused = pilot.app.focused
    if focused is None or focused.id != "tap":
        await pilot.press("t")
    if typed:
        await pilot.press(*text)
    else:
        pilot.app.query_one("#tap", Input).value = text
    await pilot.press("enter")
    await pilot.pause(0.05)


def test_bots_play_a_hand_taps_and_quit(tmp_path: Path) -> None:
    rules = Rules(decks=1)  # 12 tricks: quicker than two decks' 25, the same code
    source = VirtualSource(rules, bots=True, readers="direct", seed=1)
    store = Store.open(tmp_path / "records.sqlite")
    recorder = Recorder(store, port="virtual", source="console", rules=rules)
    source.start()
    app = ConsoleApp(source, make_verifier(rules), recorder=recorder)
    seen: list[list[Any]] = []

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: "state     synced" in pane(app, "link"))
        assert "rules     rules-2026.1" in pane(app, "link")
        assert f"table     {source.vt.uid}" in pane(app, "link")  # the virtual table's identity
        # the table's state, not a transient message: the bots are done and the
        # verifier has judged every event the table sent (however busy the machine)
        await until(pilot, lambda: not source.bots_playing and "bots      done" in pane(app, "link"), 120)
        await until(pilot, lambda: app.verifier.next_index == len(record(source)) > 30, 30)
        events = record(source)
        assert app.messages[0] == "the bots deal seed 1 (the same deal again: --seed 1)"
        ended = events[-1]
        assert ended[0] == 12  # HAND_END
        # the event log: every event described, with the verifier's verdict
        lines = [x for x in log_lines(app) if not x.startswith("-----")]
        assert len(lines) == len(events) == app.verifier.next_index > 30
        assert all(x.endswith("[agreed]") for x in lines), [x for x in lines if not x.endswith("[agreed]")]
        parsed = [re.fullmatch(r" *(\d+)  (.*)  \[agreed\]", x) for x in lines]
        assert [(int(m[1]), m[2]) if m else x for m, x in zip(parsed, lines, strict=True)] == [
            (k, describe(e)) for k, e in enumerate(events)
        ]
        assert sum("wins" in x for x in lines) == 12
        assert f"{len(events)}" in pane(app, "link").split("events")[1].split("\n")[0]
        # the game pane: the last trick by seat and the hand's result
        game = pane(app, "game")
        last = [e for e in events if e[0] == 6][-4:]  # the last trick's four plays
        assert "hand      1" in game and "trick 12: S" in game
        for play in last:
            assert f"S{play[2]}        {describe(play).split(' plays ')[1]}" in game
        assert f"attackers {ended[1]} points" in game and "result    hand over" in game
        # the display mirror is the board's (its "hand over: N" lasts 3 s: the
        # mirror is compared with the board, whichever frame that is now)
        await until(pilot, lambda: pane(app, "display").split("\n")
                    == ["|" + x.ljust(16) + "|" for x in source.vt.lines])
        # no disagreement, neither the verifier's nor the bots'
        assert app.verifier.disagreements == [] and app.verifier.agreed == len(events)
        assert log_lines(app, "disagreements") == [] and app.disagreement_count == 0
        assert source.game is not None and source.game.disagreements == []

        # the pixels too (key d): the frame firmware/display.py draws, as half blocks
        from tractor_table.monoframe import Frame
        from tractor_table.screens import frame_of_lines

        await pilot.press("d")
        # 140x45 has no room for 128 columns of pixels: the whole frame at half size
        await until(pilot, lambda: pane(app, "display").split("\n")
                    == Frame(frame_of_lines(list(source.vt.lines))).half_blocks(2))
        shown = pane(app, "display").split("\n")
        assert len(shown) == 16 and {len(x) for x in shown} == {64} and any("█" in x for x in shown)
        await pilot.press("d")
        assert len(pane(app, "display").split("\n")) == 8

        # a tap of a card the table does not take now (the hand is over): refused
        await type_line(pilot, "tap 2 AS")
        assert "sent: tap AS at S2" in app.messages[-2:] and app.sent == 1
        await until(pilot, lambda: app.messages[-1].startswith("the table refused"))
        # labelled with the phase, not with a thirteenth trick that never was
        assert app.messages[-1] == "the table refused: after the hand (hand over): S2 refused: not now AS"
        assert log_lines(app)[-1].endswith("S2 refused: not now AS  [not judged]")  # the engine judges plays, not this
        assert "refused   after the hand (hand over): S2 refused: not now AS" in pane(app, "game")

        # bad input: a clear message, nothing sent
        count = app.verifier.next_index
        await type_line(pilot, "tap 5 AS", typed=False)
        assert app.messages[-1] == "bad input: seat '5': give a seat 0-3; nothing was sent"
        await type_line(pilot, "tap 1 1X", typed=False)
        assert app.messages[-1].startswith("bad input: ") and "1X" in app.messages[-1]
        await type_line(pilot, "tap 1 AS.1", typed=False)
        assert app.messages[-1] == (
            "bad input: 'AS.1': the copy after the dot is the deck, 0 with 1 deck(s) (0 is the "
            "first); nothing was sent"
        )
        await pilot.pause(0.5)
        assert app.sent == 1 and app.verifier.next_index == count == len(record(source))

        # s: the status
        await pilot.press("escape", "s")
        assert app.messages[-1].startswith(
            f"status: {count} events: {count - 1} judged, {count - 1} agreed, 0 disagreements, "
            "1 outside the replayer; link synced"
        )

        # q: the app ends, the firmware stops by itself and the link closes
        seen.extend(record(source))
        assert f"records   records.sqlite: {len(seen)} new event(s)" in pane(app, "link")
        await pilot.press("q")
        await until(pilot, lambda: source.closed, timeout=10)

    run(app, scenario)
    assert app.return_code == 0
    assert source.vt.proc is not None and source.vt.proc.returncode == 0
    assert source.vt.link is None and not source.vt.alive()
    # the records: the hand, every event with the verdict the console showed
    assert recorder.failed == "" and recorder.new_events == len(seen)
    (hand,) = store.hands()
    kept = store.hand_events(hand)
    assert [e["event"].raw() for e in kept] == seen, (len(kept), len(seen))
    verdicts = [[v["verdict"] for v in e["verdicts"]] for e in kept]
    assert verdicts == [["agreed"]] * (len(seen) - 1) + [["unchecked"]]  # the typed tap's refusal
    store.close()


def test_push_asks_first_and_shows_the_table_s_answer() -> None:
    """The players (the full engine's bots, tapping at the readers) play two
    tricks; the operator pushes the host's state between tricks."""
    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    source.start()
    app = ConsoleApp(source, make_verifier(rules))
    game = BotGame(source.vt, rules, seed=2, say=lambda s: None)

    def start_and_lead() -> None:
        game.start_hand(source.vt.next_event())
        game.play_one()

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: "state     synced" in pane(app, "link"))
        await asyncio.to_thread(start_and_lead)
        await pilot.pause(0.3)
        # in the middle of a trick the host has nothing to push
        await pilot.press("p")
        assert isinstance(app.screen, Confirm)
        await pilot.press("y")
        assert app.messages[-1].startswith("push: the host has no state to push now")
        assert app.verifier.pushed is None
        await asyncio.to_thread(game.play_trick)
        await asyncio.to_thread(game.play_trick)
        await pilot.pause(0.3)
        assert "trick 2: S" in pane(app, "game") and " wins " in pane(app, "game")
        # asked, and answered no: nothing sent
        await pilot.press("p")
        assert isinstance(app.screen, Confirm)
        await pilot.press("n")
        assert not isinstance(app.screen, Confirm)
        assert app.messages[-1] == "push cancelled: nothing was sent" and app.verifier.pushed is None
        # asked, and answered yes: the table checks the snapshot and takes it
        count = app.verifier.next_index
        said = len(app.messages)
        await pilot.press("p", "y")
        sent = re.fullmatch(r"push: snapshot (\d+) sent; waiting for the table's answer", app.messages[said])
        assert sent is not None, app.messages[said:]
        sid = int(sent[1])
        await until(pilot, lambda: len(app.messages) > said + 1)
        assert app.messages[-1] == f"push: snapshot {sid} taken by the table"
        assert log_lines(app)[-1] == f"----- push: snapshot {sid} taken by the table"
        assert app.verifier.base == count and app.verifier.pushed is None
        # the game goes on from the pushed state, and every event still agrees
        await asyncio.to_thread(game.play_trick)
        await pilot.pause(0.3)
        assert app.verifier.next_index > count and app.verifier.disagreements == []
        assert game.disagreements == []
        assert "trick 3: S" in pane(app, "game")
        await pilot.press("q")
        await until(pilot, lambda: source.closed, timeout=10)

    try:
        run(app, scenario)
    finally:
        source.close()


def test_a_table_on_a_port_mirrors_its_display_over_the_link() -> None:
    """The --port path: the firmware's USB serial (a pty) opened by path; the
    display comes over the link (APP 101/102), and q closes the port."""
    vt = VirtualTable(1, readers="direct", rules=Rules(decks=1))
    vt.start()
    try:
        assert vt.link is not None
        port = vt.link.port
        assert port is not None
        vt.link.close()  # the table's USB cable, now the console's
        source = PortSource(port, 1)
        source.start()
        app = ConsoleApp(source, make_verifier(Rules(decks=1)))

        async def scenario(pilot: Pilot[int]) -> None:
            await until(pilot, lambda: "state     synced" in pane(app, "link"))
            await until(pilot, lambda: app.remote_lines is not None)
            assert pane(app, "display").split("\n") == ["|" + x.ljust(16) + "|" for x in vt.lines]
            assert "hand      1" in pane(app, "game")
            assert "    0  " + describe([1, 1, -1, 1, 0, 0, 1]) + "  [agreed]" in log_lines(app)
            # a real table's cards are tapped at its readers, not here
            await pilot.press("t")
            assert app.messages[-1].startswith("taps need the virtual table")
            await pilot.press("q")
            await until(pilot, lambda: source.closed, timeout=10)

        run(app, scenario)
        link = source.link
        assert link is not None and not link.connected
        assert vt.alive()
    finally:
        vt.close()


def test_a_disagreement_shows_both_views() -> None:
    """The host judges with the wrong --decks (2) a table that plays one deck:
    the table's first event already differs from the engine's, and the
    console shows the disagreement as the verifier words it."""
    source = VirtualSource(Rules(decks=1), readers="direct")
    source.start()
    app = ConsoleApp(source, make_verifier(Rules(decks=2)))

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: "state     synced" in pane(app, "link"))
        await until(pilot, lambda: app.disagreement_count == 1)
        (d,) = app.verifier.disagreements
        assert d.index == 0 and d.what == "verdict" and d.fields == ("decks",)
        assert log_lines(app, "disagreements") == d.show().splitlines()
        assert app.query_one("#disagreements").border_title == "disagreements: 1"
        assert any(x.endswith("[DISAGREES]") and "hand 1: 1 deck(s)" in x for x in log_lines(app))
        assert "1 judged, 0 agreed, 1 disagree" in pane(app, "link")
        await pilot.press("q")
        await until(pilot, lambda: source.closed, timeout=10)

    try:
        run(app, scenario)
    finally:
        source.close()


class _BrokenReplayer(EngineReplayer):
    """The full engine with a bug planted at the third event (what the console
    must survive: the verifier is engineer T's, and may fail)."""

    def replay(self, index: int, event: list[Any]) -> list[Any] | None:
        if index == 2:
            raise KeyError("planted")
        return super().replay(index, event)


def test_the_console_outlives_a_verifier_that_fails() -> None:
    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    source.start()
    app = ConsoleApp(source, Verifier(_BrokenReplayer(rules), "rules-2026.1", describe=describe))
    game = BotGame(source.vt, rules, seed=2, say=lambda s: None)

    def play() -> None:
        game.start_hand(source.vt.next_event())
        game.play_trick()

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: "state     synced" in pane(app, "link"))
        await asyncio.to_thread(play)
        await until(pilot, lambda: app.link_view.events == len(record(source)) > 6)
        assert app.messages[0] == "the verifier stopped at event [2]: KeyError: 'planted'"
        lines = [x for x in log_lines(app) if not x.startswith("-----")]
        assert [x.rsplit("  [", 1)[1] for x in lines[:2]] == ["agreed]", "agreed]"]
        assert all(x.endswith("[not verified: the verifier stopped]") for x in lines[2:])
        assert "verifier  stopped (see the message line)" in pane(app, "link")
        assert "trick 1: S" in pane(app, "game")  # the game is followed all the same
        await pilot.press("p")
        assert not isinstance(app.screen, Confirm)
        assert app.messages[-1] == "push: the host has no state of its own to push (it stopped); nothing was sent"
        await pilot.press("q")
        await until(pilot, lambda: source.closed, timeout=10)

    try:
        run(app, scenario)
    finally:
        source.close()


def test_a_refresh_after_the_screen_went_away_does_nothing() -> None:
    """The console's timers and its bots' thread can call for a refresh while
    Textual takes the screen down (a run that ends without q, or a tick late
    after the quit): that refresh shows nothing and raises nothing."""
    rules = Rules(decks=1)
    source = VirtualSource(rules, readers="direct")
    source.start()
    app = ConsoleApp(source, make_verifier(rules))
    torn: list[bool] = []

    async def scenario(pilot: Pilot[int]) -> None:
        await until(pilot, lambda: "state     synced" in pane(app, "link"))
        assert not app.torn_down()
        app.refresh_panes()  # with the screen up: a refresh as always

    try:
        run(app, scenario)  # the scenario ends without q: Textual shuts the app down
        torn.append(app.torn_down())
        app.refresh_panes()  # no NoMatches '#link', no ScreenStackError
        app.drain()
        app.action_pause()
    finally:
        source.close()
    assert torn == [True]
