"""The virtual table end to end: the compiled firmware under MicroPython, its
own scanner and PN532 driver reading simulated chips on a simulated SPI bus,
its USB serial on a pseudo-terminal opened with pyserial by the host link, bots
of the full engine tapping cards, every event checked against the full engine;
a power cut between tricks and the resume from flash; the firmware's live heap
under its budget (the simulated chips' share measured and taken out)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from shengji import Rules
from tractor_table import cli, virtual_heap
from tractor_table.errors import CommandError
from tractor_table.events import EV
from tractor_table.link.notes import SnapshotIn, Up
from tractor_table.paths import FIRMWARE_DIR
from tractor_table.sim.virtual.game import BotGame
from tractor_table.sim.virtual.runner import VirtualTable, compile_for_host
from tractor_table.vocab.snapshot import saved_snapshot
from vtable_rig import table_in


def test_bots_play_a_two_deck_hand_and_the_engine_agrees(compiled: Path) -> None:
    lines: list[str] = []
    with table_in(compiled, "full", 2) as vt:
        game = BotGame(vt, Rules(decks=2), seed=3, strength=2, say=lines.append)
        game.play(1)
        assert vt.wait(lambda: vt.lines[2].startswith("over"), 5)
        display = list(vt.lines)
    assert game.disagreements == []
    assert game.hands_played == 1
    assert game.tricks_played >= 13  # 25 cards each, some plays of several cards
    assert game.checks > 100
    # the display shows the result; the output names every trick
    assert display[0].startswith("H1 ")
    assert sum(1 for x in lines if x.strip().startswith("trick")) == game.tricks_played
    assert any(x.strip().startswith("hand over: attackers") for x in lines)
    # the firmware's live heap stayed under its budget, the simulation's
    # share apart: the chip models, the hands and the fast board itself
    # (chipstack, vboard: not on the Pico; their code alone is in the share)
    board, _ = virtual_heap.code_by_module(vt.workdir / "sim", ("chipstack", "vboard", "hands"))
    assert len(board) == 3 and sum(board.values()) < vt.sim_bytes < 64 * 1024, (board, vt.sim_bytes)
    assert 0 < vt.firmware_peak < virtual_heap.firmware_budget(vt.decks)
    # the scanner polls in pairs by default (seats 0+2, then 1+3: the USB power
    # budget, hardware/README.md): two RF fields at most; the bus saw no collision
    assert vt.max_fields_on == 2 and vt.collisions == 0


def test_the_fast_board_loads_no_firmware_module_before_its_own_heap_is_counted(tmp_path: Path) -> None:
    # vboard.main counts everything the process holds before it imports the
    # firmware as the board's (not the chip's); a firmware module vboard.py
    # imported at its top (persist, ttlink_io did) would be counted there and
    # leave the firmware's figures short of the chip's
    from tractor_table import mpy
    from tractor_table.sim.virtual.runner import BOARD_SOURCES, compile_board

    sim = tmp_path / "sim"
    compile_board(sim, BOARD_SOURCES)
    firmware = {p.stem for p in FIRMWARE_DIR.glob("*.py")}
    proc = mpy.run(code="import sys\nimport vboard\nprint(' '.join(sorted(sys.modules)))", path=[sim, FIRMWARE_DIR], timeout=60)
    assert proc.returncode == 0, proc.stderr
    loaded = set(proc.stdout.split())
    assert "vboard" in loaded
    assert loaded & firmware == set(), loaded & firmware


def test_failed_throws_are_challenged_and_forced_as_the_engine_says(compiled: Path) -> None:
    # random bots throw combinations that fail; the full engine (knowing the
    # hands) forces them at once, the table only when a seat challenges (§10):
    # a seat that can beat the throw challenges, and the table must force the
    # same cards
    lines: list[str] = []
    with table_in(compiled, "throws", 1) as vt:
        game = BotGame(vt, Rules(decks=1), seed=2, strength=0, say=lines.append)
        game.play(1)
    assert game.disagreements == []
    assert game.challenges >= 2
    assert sum(1 for x in lines if "must lead" in x) == game.challenges


def test_hand_scan_mode_end_to_end(compiled: Path) -> None:
    # every seat scans its hand after the draw; the table then refuses what
    # the full engine refuses and forces failing throws at once, unchallenged
    lines: list[str] = []
    vt = VirtualTable(1, workdir=compiled / "scan", hand_scan=True)
    (compiled / "scan").mkdir(exist_ok=True)
    if not (compiled / "scan" / "firmware").exists():
        (compiled / "scan" / "firmware").symlink_to(compiled / "firmware")
    with vt:
        game = BotGame(vt, Rules(decks=1), seed=2, strength=0, say=lines.append)
        game.play(1)
    assert game.disagreements == []
    assert "  every hand scanned" in lines
    assert game.forced_at_once >= 2 and game.challenges == 0
    assert 0 < vt.firmware_peak < virtual_heap.firmware_budget(vt.decks)


def test_a_hand_with_taps_given_as_card_ids_runs_in_the_firmware_budget(compiled: Path) -> None:
    # readers "direct": no scanner and no chip models, the heap capped at the firmware's budget
    with table_in(compiled, "direct", 1, readers="direct") as vt:
        assert vt.heapsize == virtual_heap.FIRMWARE_HEAP_BY_DECKS[1]
        game = BotGame(vt, Rules(decks=1), seed=4, strength=1, say=lambda _: None)
        game.play(1)
    assert game.disagreements == [] and game.hands_played == 1
    assert 0 < vt.firmware_peak < virtual_heap.firmware_budget(vt.decks)


def test_four_decks_with_card_ids_get_a_four_deck_heap_and_the_audit_fits(compiled: Path) -> None:
    # random bots' four-deck throws make the end-of-hand audit allocate in
    # bursts; with taps as card ids the heap is sized by decks as with the
    # simulated readers (it was 160K whatever the decks, and ran out there)
    rules = Rules.preset("xuwen")
    work = compiled / "four"
    work.mkdir(exist_ok=True)
    if not (work / "firmware").exists():
        (work / "firmware").symlink_to(compiled / "firmware")
    with VirtualTable(4, workdir=work, readers="direct", rules=rules, heap_report=True) as vt:
        assert vt.heapsize == virtual_heap.FIRMWARE_HEAP_BY_DECKS[4]
        game = BotGame(vt, rules, seed=5, strength=0, say=lambda _: None)
        game.play(2)
        assert vt.link is not None
        # no failure reported on the USB serial (step_safe prints tracebacks there)
        assert not [x for x in vt.link.device_lines if "Error" in x]
    assert game.disagreements == [] and game.hands_played == 2
    # the live peak itself stays within the two-deck budget
    assert 0 < vt.firmware_peak < virtual_heap.firmware_budget(vt.decks)
    # what held the heap at the end (mpy/heapreport.py): every part measured,
    # the last hand's tricks packed (a list of lists each took about 350 bytes)
    parts = dict(vt.heap_parts)
    assert len(parts) >= 8 and parts["rest"] > 64 * 1024
    tricks = [(k, v) for k, v in parts.items() if "completed tricks" in k]
    assert len(tricks) == 1
    n = int(tricks[0][0].split()[2])
    assert n >= 10 and 0 < tricks[0][1] < 160 * n
    # code the table does not need stayed out of the heap: the host's end of
    # the link, the Pico's board, snapshot restoring and table.cfg's reader;
    # and the link's set-up and handshake, loaded for them only (ttlink_rare)
    assert "table" in vt.modules_loaded and "ttlink" in vt.modules_loaded
    for never in ("ttlink_host", "picoboard", "tablerestore", "persistload", "cardmapload", "rulesinit", "tableconfig", "enrollmode", "snaplayout", "evlayout",
                  "mainstart", "mainhost", "ttlink_snap", "ttlink_rare"):
        assert never not in vt.modules_loaded
    # the rules engine and the hand's rules by turns (tablerules.py): at the
    # hand's end the engine has left the heap and drules_hand settled the
    # hand; the second hand's burial and play, which loaded the engine again
    # at the end of its draw, were checked (no disagreement above)
    assert "drules_hand" in vt.modules_loaded
    assert not {"drules", "drules_base", "drules_play", "drules_sweep", "drules_place"} & set(vt.modules_loaded)
    # the hand's end (its audit and settlement, tablehandend.py) left the heap
    # once the hand was settled; the tags' pages (pn532tag.py) never came
    assert not {"tablehandend", "pn532tag"} & set(vt.modules_loaded)


def _saved_tricks(store: Path) -> int:
    """How many tricks the snapshot on the virtual flash holds (-1: none whole yet).
    The file is read by vocab.snapshot.saved_snapshot (firmware/persist.py's
    form); index 17 of the snapshot is its list of tricks (firmware/tablesnap.py)."""
    try:
        return len(saved_snapshot(store.read_text())[17])
    except (OSError, ValueError, IndexError, TypeError):
        return -1


def test_power_cut_between_tricks_resumes_from_flash(compiled: Path) -> None:
    lines: list[str] = []
    vt = table_in(compiled, "cut", 1, keep=True).start()
    try:
        game = BotGame(vt, Rules(decks=1), seed=5, strength=1, say=lines.append)
        start = vt.next_event()
        assert start.kind == EV.HAND_START
        assert game.start_hand(start) == "play"
        for _ in range(4):
            assert not game.play_trick()
        # the snapshot is written right after the TRICK event goes out: wait
        # until the one on flash holds the four tricks, then cut the power
        assert vt.wait(lambda: _saved_tricks(vt.store) == 4, 10), vt.store
        vt.kill()
    finally:
        vt.close()
    assert game.hand is not None
    tricks_before = len(game.hand.tricks)
    vt2 = table_in(compiled, "cut", 1, keep=True)
    vt2.heap_report = True
    vt2.start()
    try:
        assert vt2.restored
        assert vt2.wait(lambda: vt2.lines[7].startswith("resumed hand 1"), 5)
        assert vt2.lines[2] == f"trick{tricks_before + 1} S{game.hand.next_seat()} plays"
        game.table = vt2
        while not game.play_trick():
            pass
        game.finish_hand()
    finally:
        vt2.close()
    assert game.disagreements == []
    assert len(game.hand.tricks) > tricks_before
    # the snapshot's reader and restorer were loaded for the start from flash
    # only, and the link's snapshot code for the snapshot it sent the host (the
    # ring starts at the restored state: the host's record had to start there)
    assert any(isinstance(n, SnapshotIn) for n in vt2.notes)
    assert "table" in vt2.modules_loaded
    assert not {"tablerestore", "persistload", "ttlink_snap", "ttlink_rare"} & set(vt2.modules_loaded)


def test_power_cut_in_the_middle_of_a_trick_loses_only_that_trick(compiled: Path) -> None:
    vt = table_in(compiled, "midcut", 1, keep=True).start()
    try:
        game = BotGame(vt, Rules(decks=1), seed=6, strength=1, say=lambda _: None)
        assert game.start_hand(vt.next_event()) == "play"
        for _ in range(3):
            assert not game.play_trick()
        game.play_one()  # the lead of trick 4 ...
        game.play_one()  # ... and one follow, then the power goes
        lead_at, follow_at = game.trick_plays
        # the save after trick 3 waits for a turn with no input: wait until it
        # is on flash (it may hold the lead too, never a trick less), then cut
        assert vt.wait(lambda: _saved_tricks(vt.store) == 3, 10), vt.store
        vt.kill()
    finally:
        vt.close()
    assert game.hand is not None
    vt2 = table_in(compiled, "midcut", 1, keep=True).start()
    try:
        assert vt2.restored
        # the table resumed from its last save: the one after trick 3, taken
        # at its first quiet turn, so with none, one or both plays of trick 4
        # (never a part of a play, never less than trick 3: the link's count
        # says where its log ends); the host takes back what the table lost
        count = next(n.count for n in vt2.notes if isinstance(n, Up))  # the WELCOME's count
        assert game.trick_start <= count <= follow_at + 1, (game.trick_start, count, follow_at)
        kept = (count > lead_at) + (count > follow_at)
        assert game.rewind_to(count) == 2 - kept
        last = game.hand.tricks[-1]
        assert (len(last.plays), len(game.hand.tricks)) == ((kept, 4) if kept else (4, 3))
        after = game.hand.next_seat()
        assert vt2.wait(lambda: vt2.lines[2] == f"trick4 S{after} plays", 5), vt2.lines
        game.table = vt2
        while not game.play_trick():
            pass
        game.finish_hand()
    finally:
        vt2.close()
    assert game.disagreements == []
    assert len(game.hand.tricks) == 12


def test_refusals_reach_the_host(compiled: Path) -> None:
    with table_in(compiled, "refuse", 1) as vt:
        assert vt.next_event().kind == EV.HAND_START
        vt.tap(2, -1)  # an unknown tag
        ev = vt.next_event().raw()
        assert ev[:4] == [EV.REJECT, 0, 2, EV.UNKNOWN_CARD]
        vt.tap(1, 13)  # 2H: a level card
        vt.tap(1, 14)  # 3H: not the same card
        vt.press(1, EV.BTN_OK)
        ev = vt.next_event().raw()
        assert ev == [EV.BID, 1, 0, EV.BID_CARDS, 13, 14]
        assert vt.wait(lambda: vt.lines[7] == "S1 not a bid", 5)
        assert EV.SND_ERROR in vt.sounds
        vt.tap(3, -2)  # two tags on seat 3's reader at once: an error, not two plays
        ev = vt.next_event().raw()
        assert ev[:4] == [EV.REJECT, 0, 3, EV.READER_FAULT]


def test_virtual_command_plays_and_reports(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["virtual", "--bots", "--hands", "1", "--decks", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "link up on" in out
    assert "trick  1:" in out
    assert "hand over: attackers" in out
    assert "0 disagreement(s)" in out
    # the host link's verifier re-judged every event with the full engine
    line = next(x for x in out.splitlines() if x.startswith("verifier"))
    assert " 0 disagreements" in line and "judged" in line
    judged = int(line.split(" judged")[0].split()[-1])
    agreed = int(line.split(" agreed")[0].split()[-1])
    assert judged == agreed > 50


def test_virtual_command_rejects_bad_options() -> None:
    from tractor_table.commands import virtual

    with pytest.raises(CommandError, match="--hands"):
        virtual.run(cli.build_parser().parse_args(["virtual", "--bots", "--hands", "0"]))


def _saved_phase(store: Path) -> int:
    """The phase of the snapshot on the virtual flash (-1: none whole yet)."""
    try:
        return int(saved_snapshot(store.read_text())[2])
    except (OSError, ValueError, IndexError, TypeError):
        return -1


def test_power_cut_during_the_kitty_reveal_resumes_it(compiled: Path) -> None:
    # no_bid = "kitty": nobody bids in hand 2; the dealer has turned three
    # kitty cards up when the power goes; the table comes back asking for the
    # kitty again from its first card, and names trump from it
    rules = Rules(decks=1).replace(no_bid="kitty")
    work = compiled / "revealcut"
    work.mkdir(exist_ok=True)
    if not (work / "firmware").exists():
        (work / "firmware").symlink_to(compiled / "firmware")
    vt = VirtualTable(1, workdir=work, keep_state=True, rules=rules).start()
    try:
        game = BotGame(vt, rules, seed=4, strength=1, say=lambda _: None)
        assert game.play_hand(vt.next_event()) == "done"
        vt.press(0, EV.BTN_OK)
        start = vt.next_event().raw()
        assert start[:2] == [EV.HAND_START, 2]
        dealer = start[2]
        vt.press(0, EV.BTN_OK)  # the draw is over: nobody bid
        assert vt.wait(lambda: vt.lines[2] == f"S{dealer} kitty up 0/6", 5)
        for c in (27, 3, 53):
            vt.tap(dealer, c)
        assert vt.wait(lambda: vt.lines[2] == f"S{dealer} kitty up 3/6", 5)
        assert vt.wait(lambda: _saved_phase(vt.store) == 6, 10)  # REVEAL
        vt.kill()
    finally:
        vt.close()
    vt2 = VirtualTable(1, workdir=work, keep_state=True, rules=rules).start()
    try:
        assert vt2.restored
        assert vt2.wait(lambda: vt2.lines[2] == f"S{dealer} kitty up 0/6", 5)
        vt2.tap((dealer + 1) % 4, 27)  # another seat: refused
        ev = vt2.next_event().raw()
        assert ev == [EV.REJECT, 0, (dealer + 1) % 4, EV.WRONG_PHASE, 27]
        level = start[4 + (dealer & 1)]
        first = 26 + (12 if level != 12 else 11)  # AD (KD at level A) first: diamonds are trump
        up = [first, 3, 53, 40, 41, 42]
        for c in up:
            vt2.tap(dealer, c)
        assert vt2.next_event().raw() == [EV.KITTY_UP, dealer, *up]
        assert vt2.next_event().raw() == [EV.TRUMP, 2, -1, dealer]
        assert vt2.wait(lambda: vt2.lines[0].endswith(" D") and "bury" in vt2.lines[2], 5)
    finally:
        vt2.close()


def _tournament_hand_scans(compiled: Path, name: str, fw: Path, heapsize: str | None = None) -> VirtualTable:
    # both options the table core plays itself at work, with the simulated
    # readers and hand scans (the largest firmware): a hand lost by a revoke
    # the table knows at once, a hand without a bid whose kitty is turned up
    rules = Rules.preset("tournament")
    work = compiled / name
    work.mkdir(exist_ok=True)
    if not (work / "firmware").exists():
        (work / "firmware").symlink_to(fw)
    lines: list[str] = []
    with VirtualTable(2, workdir=work, rules=rules, hand_scan=True, heapsize=heapsize) as vt:
        game = BotGame(vt, rules, seed=3, strength=1, say=lines.append, revoke_from=4, quiet_hands=(2,))
        game.play(2)
        assert vt.wait(lambda: vt.lines[2].startswith("revoke S"), 5)
    assert game.disagreements == []
    assert game.revokes == 2 and game.kitty_reveals == 1
    assert sum(1 for x in lines if "loses the hand" in x) == 2
    return vt


def _chip_heap_needed(code: virtual_heap.CodeKinds, peak: int) -> float:
    # the largest firmware, calibrated by kind (its resident code at the chip's
    # size, native code as the armv6m bytes; the rest as data: bench/rp2040.py,
    # "Heap, by kind"), with the data's share twice over for what lives inside
    # a turn of the main loop (the peak is the largest live heap between two
    # turns: vboard.py measures every turn that may pass it)
    return code.chip + 2 * virtual_heap.chip_data(peak - code.unix)


#: how far the live peak of one and the same match moves from run to run on
#: this port (bytes): see below
_RUN_SPREAD = 5 * 1024


def test_tournament_rules_with_hand_scans_fit_the_heap_budget(compiled: Path) -> None:
    # the largest firmware fits the chip's heap. Issue 21's bound (128 KiB,
    # half the heap) is a benchmark's target (bench_heap.py,
    # docs/performance.md), not met today: this asserts what must hold for
    # the table to run at all
    vt = _tournament_hand_scans(compiled, "tournament", compiled / "firmware")
    code = virtual_heap.resident_code(compiled / "firmware")
    peak = vt.firmware_peak
    assert code.unix < peak
    need = _chip_heap_needed(code, peak)
    assert need < virtual_heap.CHIP_HEAP
    # and the check holds the firmware to that budget: the same firmware
    # holding 4 KB more data than the room left (a buffer made when `events`
    # loads, kept to the end) is over it, by the peak the board measured (the
    # buffer's bytes on this port, give or take what the peak of one match
    # moves by from run to run, not by an estimate. That spread is what is live
    # at once at the second hand's kitty, link frames not yet acknowledged
    # among it: about 1 KB in most runs, but one run in six lands 2.5-4 KB
    # higher (bench_heap.py's repeats; a CI run of 1d7f70e measured 3.9 KB), so
    # the tolerance is _RUN_SPREAD and the buffer overshoots the room by twice
    # that: over the budget even if the bloated run is a low one and the plain
    # run a high one
    room = (virtual_heap.CHIP_HEAP - need) / (2 * virtual_heap.HEAP_DATA)
    bloat = int(room) + 2 * _RUN_SPREAD
    fat = compiled / "firmware-bloated"
    if not fat.exists():
        shutil.copytree(compiled / "firmware", fat)
        src = compiled / "bloated-src" / "events.py"
        src.parent.mkdir(exist_ok=True)
        src.write_text((FIRMWARE_DIR / "events.py").read_text() + f"\n_BLOAT = bytearray({bloat})\n")
        compile_for_host(fat, src)
    more = f"{(bloat + int(vt.heapsize[:-1]) * 1024) // 1024 + 1}K"  # room for it on this port
    fat_peak = _tournament_hand_scans(compiled, "tournament-bloated", fat, more).firmware_peak
    assert bloat - _RUN_SPREAD < fat_peak - peak < bloat + _RUN_SPREAD, (bloat, fat_peak - peak)
    assert _chip_heap_needed(code, fat_peak) > virtual_heap.CHIP_HEAP


def test_the_heap_factors_are_the_ones_the_benches_use() -> None:
    # one set of factors by kind: bench/rp2040.py's (the benches) are the
    # board model's (virtual_heap), and no single "heap" factor is left
    import runpy

    bench = runpy.run_path(str(Path(__file__).resolve().parents[2] / "bench" / "rp2040.py"))
    assert bench["HEAP_BY_KIND"] == virtual_heap.HEAP_BY_KIND
    assert set(virtual_heap.HEAP_BY_KIND) == {"native", "bytecode", "data"}
    assert "HEAP" not in bench and "rp2_bytes" not in bench


def test_the_bots_deal_a_fresh_seed_and_print_it(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --seed every run is a new deal, and says its seed: given back
    with --seed it is the same deal again."""
    import re

    def play(*seed: str) -> tuple[int, str]:
        argv = ["virtual", "--bots", "--hands", "1", "--decks", "1", "--readers", "direct", "--no-record"]
        assert cli.main([*argv, *seed]) == 0
        out = capsys.readouterr().out
        m = re.search(r"^the bots deal seed (\d+) \(the same deal again: --seed \1\)$", out, re.M)
        assert m, out
        tricks = [x for x in out.splitlines() if x.lstrip().startswith(("trick ", "trump "))]
        assert tricks, out
        return int(m[1]), "\n".join(tricks)

    first, deal = play()
    second, _ = play()
    assert first != second  # 1 in 999,999 to meet by chance
    assert play("--seed", str(first)) == (first, deal)
