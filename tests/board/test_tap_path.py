"""Nothing slow between a tap and its frame (issue 22), on the board model
with the real firmware: bots play tricks, each trick's end saves the
snapshot to littlefs on the NOR flash model, and the next cards are laid
while that save is being written. The board's tap log
(``board/mpy/picoboot.py``, ``TapLog``) follows every tap from the card put
down to the first frame that shows it counted, and counts the taps with a
flash erase or program between their count and that frame: there must be
none (the frame is drawn before any save step, and a save step runs only
when no card is pending). A power cut while cards are being laid during a
save loses at most the trick in progress (the resumed game goes on with the
verifier finding no disagreement); so does a power cut with a card in flight
(put down, seen once, shown, being confirmed, counted and not yet drawn: the
board model cuts at that state, ``PicoTable.cut_in_flight``), and that card
is then counted once or not at all."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from shengji import Rules
from tractor_table.errors import CommandError
from tractor_table.events import Event, describe
from tractor_table.link.engine_replayer import EngineReplayer
from tractor_table.link.notes import Up
from tractor_table.link.serial_link import host_identity
from tractor_table.link.verifier import Verifier
from tractor_table.sim.board.runner import CUT_STAGES, PicoTable
from tractor_table.sim.virtual.game import BotGame
from vtable_rig import board_workdir, wait_board_saved


class _Frames(PicoTable):
    """The board model, keeping the text of every frame the firmware drew, in
    the order it drew them (the display's RAM after each frame)."""

    def __init__(self, *a: Any, **k: Any) -> None:
        super().__init__(*a, **k)
        self.shots: list[list[str]] = []

    def _out_line(self, line: str) -> None:
        super()._out_line(line)
        if line.startswith("P "):
            self.shots.append(list(self.lines))


@dataclass
class _Hand:
    """A bots' hand played out on the board model, as the module's tests observe it."""

    vt: _Frames
    game: BotGame
    verifier: Verifier
    said: list[str]


@pytest.fixture(scope="module")
def whole_hand(compiled: Path) -> _Hand:
    """One bots' hand (one deck, seed 3) on the board model with the flash at
    its maximum times (400 ms a sector erase: each save lasts long enough that
    the next cards are surely laid while it is written), every frame kept: the
    tap path's figures and the frames' order are both of this one run. The
    readers in the main loop's turn (reader_core=0): what is judged here is
    that loop's order, a save's step or a collection only once the pair in
    flight is read (Scanner.seen_once). With the readers on core 1 a
    collection may begin while core 1 reads a card's answer, before the card
    is the firmware's to know (docs/readers.md, "The readers on core 1");
    their saves: test_board_readers.py, a card during a 400 ms erase."""
    rules = Rules(decks=1)
    said: list[str] = []
    vt = _Frames(1, workdir=board_workdir(compiled, "tappath"), rules=rules, flash_times="max",
                 table_cfg={"reader_core": "0"})
    verifier = Verifier(EngineReplayer(rules), host_identity()[1], describe=describe)
    vt.note_hooks.append(verifier.on_note)
    with vt:
        game = BotGame(vt, rules, seed=3, strength=1, say=said.append, event_timeout=60)
        assert game.start_hand(vt.next_event(20)) == "play"
        while not game.play_trick():  # the whole hand: 11 saves after its tricks
            pass
        game.finish_hand()
        assert vt.wait(lambda: bool(vt.shots) and vt.shots[-1][2].startswith("over "), 20), vt.lines
        vt.wait(lambda: False, 0.2)
    return _Hand(vt, game, verifier, said)


def test_a_tap_during_a_save_is_drawn_before_the_flash_is_touched(whole_hand: _Hand) -> None:
    game, verifier, said = whole_hand.game, whole_hand.verifier, whole_hand.said
    f = whole_hand.vt.figures
    assert game.disagreements == [] and verifier.disagreements == [], said
    # every tap was followed to the frame that shows it counted
    assert f["lat_n"] >= 48 and f["unclosed"] == 0, f
    assert f["flash_programs"] > 0  # the tricks' saves were written
    # cards were laid while a save was being written (begun, not finished:
    # its steps wait while a card is pending, so few taps meet a flash
    # operation itself, saving_n)...
    assert f["placed_saving"] > 0, f
    # ...and no flash work came between any tap's count and its frame, nor a
    # gc.collect() of the firmware's between its first sighting and its frame
    assert f["flash_on_path"] == 0, f
    assert f["gc_on_path"] == 0 and f["gc_n"] > 0, f  # (the firmware does collect: at quiet turns)
    # the message line's inverse video no longer costs a whole frame: only
    # the first frame after boot is whole
    assert f["frames_full"] <= 2, f


def test_a_power_cut_while_cards_are_laid_during_a_save(compiled: Path) -> None:
    rules = Rules(decks=1)
    said: list[str] = []
    # the flash at its maximum times (400 ms a sector erase): each save lasts
    # long enough that a card is surely laid while one is written; at the
    # typical times a hand's saves could all fall between the bots' cards
    # (the next lead laid as a trick's save begins: once in a few runs none
    # met one, and the power was never cut)
    vt = PicoTable(1, workdir=board_workdir(compiled, "tapcut"), rules=rules, flash_times="max")
    verifier = Verifier(EngineReplayer(rules), host_identity()[1], describe=describe)
    vt.note_hooks.append(verifier.on_note)
    with vt:
        game = BotGame(vt, rules, seed=5, strength=1, say=said.append, event_timeout=60)
        assert game.start_hand(vt.next_event(20)) == "play"
        for _ in range(2):
            assert not game.play_trick()
        game.play_one()  # trick 3's lead
        wait_board_saved(vt.image, compiled, 2)  # trick 2's save is on flash
        # the power goes as the first card is put down while a save is being
        # written (begun, not finished): a trick's save, begun at the first
        # quiet turn after its last card, and a card of the next trick laid
        # then (the board model cuts on that state: PicoTable.cut_in_flight).
        # A save is a piece a quiet turn (the fields before the tricks, each
        # trick, the fields after them: persist.py), so an early trick's is
        # short: the cards are laid on from trick 3 until one meets a save
        ups = sum(isinstance(n, Up) for n in vt.notes)  # the link's WELCOMEs so far
        vt.cut_in_flight("tap-saving")
        real_next = vt.next_event

        def event_or_cut(timeout: float = 10.0) -> Event:
            # the card's event, or none once the power was cut and the link is
            # up again (the old board's output read to its end): its event was
            # lost (waiting on that state, not on a 5 s time-out)
            assert vt.wait(lambda: not vt.events.empty() or (
                vt.power_cut is not None and sum(isinstance(n, Up) for n in vt.notes) > ups), timeout), \
                vt.firmware_errors()
            if vt.events.empty():
                raise CommandError("the power was cut before the table answered")
            return real_next(timeout)

        vt.next_event = event_or_cut  # type: ignore[method-assign]
        try:
            for _ in range(4 * 9):  # to the hand's last trick at most
                game.play_one()
                if vt.power_cut is not None:
                    break
        except CommandError:
            pass  # the board went down before it answered
        finally:
            vt.next_event = real_next  # type: ignore[method-assign]
        assert vt.wait(lambda: vt.power_cut is not None, 30), vt.firmware_errors()
        # cut with a save half written and a card in flight
        assert vt.power_cut is not None and vt.power_cut[1] == "tap-saving", vt.power_cut
        assert vt.cut_tap is not None and vt.cut_tap[1] >= 0, vt.power_cut
        done = sum(1 for tr in game.hand.tricks if tr.complete)  # the host's, at the cut
        assert 3 <= done < 12, done
        assert vt.wait(lambda: vt.restored and vt.frames > vt.frames_at_cut, 30), vt.firmware_errors()
        # resumed at a trick's start: the trick in progress at most is lost
        words = vt.lines[2].split()
        assert words[0].startswith("trick"), vt.lines
        resumed_at = int(words[0][len("trick"):])
        assert resumed_at in (done, done + 1, done + 2), (vt.lines, done)
        # a save begins at the first quiet turn after a trick, so it may hold
        # the next trick's first plays: the host takes back what the table's
        # WELCOME (its event count) says it lost, and nothing it kept
        assert vt.wait(lambda: sum(isinstance(n, Up) for n in vt.notes) > ups, 30), vt.firmware_errors()
        count = [n.count for n in vt.notes if isinstance(n, Up)][-1]
        lost = game.rewind_to(count)
        assert lost <= 4 + 2  # the trick in progress and the cards of the next laid meanwhile
        while not game.play_trick():
            pass
        game.finish_hand()
        vt.wait(lambda: False, 0.2)
    assert vt.power_cut is not None
    assert game.disagreements == [], said
    assert verifier.disagreements == [], [d.show() for d in verifier.disagreements]
    assert game.hand is not None and len(game.hand.tricks) == 12


def test_a_power_cut_with_a_card_in_flight(compiled: Path) -> None:
    # (issue 22) the power goes while a follow's first card is in flight:
    # put down, seen once, shown as not yet counted, read by its confirming
    # poll, or counted with its frame not drawn yet: one stage a trick, from
    # trick 3 on, in one hand. The board model cuts at that very model call
    # (PicoTable.cut_in_flight: on the card's state, not after a time) and
    # reports the stage, seat and card it cut at. After each restart the card
    # is counted once or not at all, never half: the table's log ends before
    # that play (nothing of it kept), the table resumes at the trick in
    # progress, the host takes back no more than that trick's plays, and the
    # play goes on with the card laid again and taken once (the bots' engine
    # and the link's verifier, which replays every event the table logged,
    # find no disagreement)
    stages = [s for s in CUT_STAGES if s != "tap-saving"]
    rules = Rules(decks=1)
    said: list[str] = []
    vt = PicoTable(1, workdir=board_workdir(compiled, "cut-in-flight"), rules=rules)
    verifier = Verifier(EngineReplayer(rules), host_identity()[1], describe=describe)
    vt.note_hooks.append(verifier.on_note)
    indices: list[int] = []  # of the events the host got
    vt.note_hooks.append(lambda n: indices.append(n.index) if isinstance(n, Event) else None)
    with vt:
        game = BotGame(vt, rules, seed=5, strength=1, say=said.append, event_timeout=60)
        assert game.start_hand(vt.next_event(20)) == "play"
        for _ in range(2):
            assert not game.play_trick()
        hand = game.hand
        assert hand is not None
        for k, stage in enumerate(stages):
            trick = 3 + k
            game.play_one()  # the trick's lead
            # the trick before's save is on flash, and nothing more to save
            wait_board_saved(vt.image, compiled, trick - 1)
            assert len(hand.tricks) == trick and len(hand.tricks[-1].plays) == 1, stage
            before = len(game.hand_plays)
            # the events the host has: the play in flight would be the next
            known = 1 + max(indices)
            ups = sum(isinstance(n, Up) for n in vt.notes)
            power_ups = vt.power_ups
            seat = hand.next_seat()
            assert seat is not None
            cards = game.bots[seat].play(hand)
            vt.cut_in_flight(stage)
            for c in cards:
                vt.tap(seat, c)
            assert vt.wait(lambda p=power_ups: vt.power_ups > p, 60), (stage, vt.firmware_errors())
            # the cut came at that stage, with the follow's first card in flight
            assert vt.power_cut is not None and vt.power_cut[1] == stage, vt.power_cut
            assert vt.cut_tap == (seat, cards[0]), (stage, vt.cut_tap, seat, cards)
            assert vt.wait(lambda: vt.restored and vt.frames > vt.frames_at_cut, 60), (stage, vt.firmware_errors())
            assert vt.wait(lambda u=ups: sum(isinstance(n, Up) for n in vt.notes) > u, 60), (stage, vt.firmware_errors())
            # the table resumed at the trick in progress, its log without the
            # play in flight (not counted at all: no half of it kept)
            words = vt.lines[2].split()
            assert words and words[0] == f"trick{trick}", (stage, vt.lines)
            count = [n.count for n in vt.notes if isinstance(n, Up)][-1]
            assert count <= known, (stage, count, known)
            # at most the trick in progress lost: its lead, if the save after
            # the trick before was taken before it
            lost = game.rewind_to(count)
            assert lost <= 1 and len(game.hand_plays) == before - lost, (stage, lost, before)
            # the card laid again counts once: the trick is played out
            assert not game.play_trick(), stage
        assert not game.play_trick()  # and the next one, with no cut
        assert vt.settle(60), vt.firmware_errors()
    assert game.disagreements == [], said
    assert verifier.disagreements == [], [d.show() for d in verifier.disagreements]
    assert len(hand.tricks) == 3 + len(stages) and hand.tricks[-1].complete
    assert vt.power_ups == 1 + len(stages)


def _has_play(line: str) -> bool:
    # a seat's line (" S0 AS", ">S1 ..." a provisional " (KH)" aside) with a card on it
    return len(line[1:].split("(")[0].strip()) > len("S0")


def test_the_trick_ending_card_is_shown_counted_before_the_tricks_end_is_worked_out(whole_hand: _Hand) -> None:
    # The card that ends a trick is counted (its sound) and drawn in the turn
    # that took it; the trick's end (its revokes, winner and points, the
    # TRICK event) and the hand's (the audit, the score) come in the next
    # turns of the loop (table.Table.work). So for every trick the display
    # shows its four plays with nobody to play ("trick done") before it
    # shows the trick's result; and the events are those of the table done
    # at once (the verifier). (A frame's pages go in runs of changed lines:
    # the board's text after each run is kept, so only what a frame shows
    # once whole is judged here.)
    # (the module's one hand: whole_hand, the flash at its maximum times)
    vt, game, verifier, said = whole_hand.vt, whole_hand.game, whole_hand.verifier, whole_hand.said
    assert game.disagreements == [] and verifier.disagreements == [], said
    hand = game.hand
    assert hand is not None and len(hand.tricks) == 12
    shots = vt.shots
    state = [s[2] for s in shots]
    done = [i for i, s in enumerate(shots) if s[2] == "trick done" and all(_has_play(x) for x in s[3:7])]
    firsts = [i for i in done if i - 1 not in done]
    # one run of such frames per trick: its last card counted and drawn
    assert len(firsts) == 12, [shots[i] for i in done]
    for k, i in enumerate(firsts):
        # the trick being played before it...
        was = next(state[j] for j in range(i - 1, -1, -1) if state[j] != "trick done")
        assert was.startswith(f"trick{k + 1} S") and was.endswith(" plays"), was
        # ...and its result after it, never before: the winner to lead the
        # next trick, or the hand's end
        nxt = next(state[j] for j in range(i + 1, len(shots)) if state[j] != "trick done")
        if k < 11:
            assert nxt == f"trick{k + 2} S{hand.tricks[k].winner} plays", nxt
        else:
            assert nxt.startswith("over "), nxt
    f = vt.figures
    assert f["lat_n"] >= 48 and f["unclosed"] == 0, f
