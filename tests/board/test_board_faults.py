"""Faults injected on the board model, the real firmware running on it:

- a power cut at a flash operation during a bots' hand: the board boots again
  from the NOR flash image as the cut left it (the real main.py restoring
  from the snapshot on littlefs), the game goes on having lost at most the
  trick whose save the cut interrupted, and the verifier (the full engine
  replaying the link's events, rolled back over the reboot) finds 0
  disagreements;
- a hung main loop: the 8 s watchdog resets the board, which resumes from
  the snapshot on flash;
- a display that stops answering on I2C and comes back: set up again, the
  table drawn on it again.
"""

from __future__ import annotations

from pathlib import Path

from shengji import Rules
from tractor_table.errors import CommandError
from tractor_table.events import describe
from tractor_table.link.engine_replayer import EngineReplayer
from tractor_table.link.notes import App, DeviceLine, Up
from tractor_table.link.serial_link import host_identity
from tractor_table.link.verifier import Verifier
from tractor_table.sim.board.runner import PicoTable
from tractor_table.sim.virtual.game import BotGame
from tractor_table.vocab.enums import AppCode
from vtable_rig import board_workdir, wait_board_saved


def _ups(vt: PicoTable) -> list[Up]:
    return [n for n in vt.notes if isinstance(n, Up)]


def _rewind(vt: PicoTable, game: BotGame, ups: int) -> int:
    """The table resumed from its snapshot: once the link is up again (more
    than ``ups`` WELCOMEs), take back on the host what it lost, from the
    WELCOME's event count (a save may hold the next trick's first plays:
    at most the trick in progress is lost); returns the plays taken back."""
    assert vt.wait(lambda: len(_ups(vt)) > ups, 30), vt.firmware_errors()
    lost = game.rewind_to(_ups(vt)[-1].count)
    assert lost <= 4
    hand = game.hand
    assert hand is not None
    words = vt.lines[2].split()
    assert words[0].startswith("trick") and words[1] == f"S{hand.next_seat()}", vt.lines
    return lost


def test_a_hung_loop_is_reset_by_the_watchdog_and_resumes_from_flash(compiled: Path) -> None:
    rules = Rules(decks=1)
    said: list[str] = []
    vt = PicoTable(1, workdir=board_workdir(compiled, "hang"), rules=rules)
    verifier = Verifier(EngineReplayer(rules), host_identity()[1], describe=describe)
    vt.note_hooks.append(verifier.on_note)
    device: list[str] = []
    vt.note_hooks.append(lambda n: device.append(n.text) if isinstance(n, DeviceLine) else None)
    with vt:
        game = BotGame(vt, rules, seed=4, strength=1, say=said.append, event_timeout=20)
        assert game.start_hand(vt.next_event(20)) == "play"
        assert not game.play_trick()
        game.play_one()  # trick 2's lead, then the loop hangs
        # trick 1's save begins once no card is pending (after the lead's
        # frame, issue 22): on flash before the hang
        wait_board_saved(vt.image, compiled, 1)
        frames = vt.frames
        ups = len(_ups(vt))
        vt.hang()
        assert vt.wait(lambda: vt.restored and vt.frames > frames and vt.lines[2].startswith("trick"), 30), (
            vt.lines, vt.firmware_errors(), vt.power_ups, vt.restored, vt.frames, frames)
        # the lead of trick 2 is lost, or was saved with trick 1
        assert _rewind(vt, game, ups) in (0, 1)
        while not game.play_trick():
            pass
        game.finish_hand()
        vt.wait(lambda: False, 0.2)
    assert vt.figures["boots"] == 2
    assert "board: reset (the watchdog expired)" in device, device
    assert game.disagreements == [], said
    assert verifier.disagreements == [], [d.show() for d in verifier.disagreements]


def test_a_display_that_stops_answering_comes_back(compiled: Path) -> None:
    rules = Rules(decks=1)
    device: list[str] = []
    vt = PicoTable(1, workdir=board_workdir(compiled, "display"), rules=rules)
    vt.note_hooks.append(lambda n: device.append(n.text) if isinstance(n, DeviceLine) else None)
    with vt:
        game = BotGame(vt, rules, seed=2, strength=1, say=lambda _s: None, event_timeout=20)
        assert game.start_hand(vt.next_event(20)) == "play"
        vt.display_off(1000)  # no ACK from the display for 1 s of board time
        game.play_one()  # redraws: the first fails, the display is dropped
        assert vt.wait(lambda: any("display: I2C error 1" in d for d in device), 20), device
        frames = vt.frames
        game.play_one()
        # set up again 5 s after the error (board time), and drawn on again
        assert vt.wait(lambda: any("display: back after 1 I2C error" in d for d in device), 30), device
        assert vt.wait(lambda: vt.frames > frames, 10)
        hand = game.hand
        assert hand is not None
        assert vt.wait(lambda: vt.lines[2].startswith(f"trick1 S{hand.next_seat()}"), 10), vt.lines
        # the control protocol's "P n" (docs/firmware.md): answered once the
        # table has taken every input sent before it, as on the fast board
        game.play_one()
        assert vt.settle(30), vt.firmware_errors()
        assert vt.board_says == []


def _readers_said(vt: PicoTable) -> list[int]:
    # the table's [APP_READERS, down] messages on the link, in order
    return [n.payload[1] for n in vt.notes if isinstance(n, App) and n.payload and n.payload[0] == AppCode.READERS]


def test_a_missing_reader_is_on_the_display_and_the_link(compiled: Path) -> None:
    # (issue 21) the board model powers up with seat 2's reader unplugged
    # (never answering, a reset does not bring it back): the real firmware
    # says so on the display's last line (the SSD1306 model's RAM, read back)
    # and to the host over the USB link; plugged in, both clear; seat 0's
    # unplugged mid-game, both say so again
    vt = PicoTable(1, workdir=board_workdir(compiled, "noreader"), rules=Rules(decks=1), missing_readers=(2,))
    with vt:
        assert vt.wait(lambda: vt.lines[7] == "S2 no reader", 60), (vt.lines, vt.firmware_errors())
        assert vt.wait(lambda: _readers_said(vt) == [0b0100], 30), (_readers_said(vt), vt.firmware_errors())
        vt.reader_missing(2, False)
        assert vt.wait(lambda: _readers_said(vt) == [0b0100, 0], 30), (_readers_said(vt), vt.firmware_errors())
        assert vt.wait(lambda: vt.lines[7] == "", 30), vt.lines
        vt.reader_missing(0, True)
        assert vt.wait(lambda: _readers_said(vt) == [0b0100, 0, 0b0001], 30), (_readers_said(vt), vt.firmware_errors())
        assert vt.wait(lambda: vt.lines[7] == "S0 no reader", 30), vt.lines
    assert vt.board_says == []


def test_power_cut_at_a_save_resumes_from_the_flash_image(compiled: Path) -> None:
    rules = Rules(decks=1)
    said: list[str] = []
    vt = PicoTable(1, workdir=board_workdir(compiled, "powercut"), rules=rules)
    verifier = Verifier(EngineReplayer(rules), host_identity()[1], describe=describe)
    vt.note_hooks.append(verifier.on_note)
    with vt:
        game = BotGame(vt, rules, seed=3, strength=1, say=said.append, event_timeout=60)
        assert game.start_hand(vt.next_event(20)) == "play"
        for _ in range(2):
            assert not game.play_trick()
        game.play_one()  # trick 3's lead
        wait_board_saved(vt.image, compiled, 2)  # trick 2's save is on flash
        ups = len(_ups(vt))
        # the first flash operation from here: inside trick 3's save (1 to 5
        # operations, written over table.json in place)
        vt.cut_power(1)
        game.timeout = 5
        try:
            # its last card: the TRICK event is sent, then the save starts; the
            # cut may stop the board before the link delivered the event
            assert not game.play_trick()
        except CommandError:
            pass
        game.timeout = 60  # the board boots again from the image: slow under a loaded suite
        assert vt.wait(lambda: vt.power_cut is not None, 20), vt.firmware_errors()
        # the board is up again, from the image: main.py restored the snapshot
        # and drew the table as it was at the last save
        assert vt.wait(lambda: vt.restored and vt.frames > vt.frames_at_cut, 30), vt.firmware_errors()
        assert vt.lines[2].startswith("trick"), vt.lines
        _rewind(vt, game, ups)
        while not game.play_trick():
            pass
        game.finish_hand()
        vt.wait(lambda: False, 0.2)
    assert vt.power_cut is not None and vt.power_cut[1] in ("erase", "program"), vt.power_cut
    assert vt.power_ups == 2 and vt.figures["boots"] == 1  # a new process: a fresh heap
    assert game.disagreements == [], said
    assert verifier.disagreements == [], [d.show() for d in verifier.disagreements]
    assert verifier.checked > 0
    assert game.hand is not None and len(game.hand.tricks) == 12
