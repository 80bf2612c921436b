"""The board model's heap is the chip's (issue 21): the firmware gets what the
rp2 port's 240 KiB leave once its code is counted at the chip's size (native
code as its armv6m bytes), and a block larger than that fails with MemoryError
where the chip would fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from shengji import Rules
from tractor_table import virtual_heap as vh
from tractor_table.sim.board.runner import PicoTable
from tractor_table.sim.virtual.game import BotGame


def test_the_firmware_runs_out_where_the_chip_would(tmp_path: Path) -> None:
    with PicoTable(2, rules=Rules(decks=2), workdir=tmp_path) as vt:
        kinds = vt.code_kinds
        assert kinds is not None and vt.cap > 0 and vt.held_bytes > 0
        # the least of five probes: a probe lands at the App's next turn, which
        # may hold a reader poll's or a redraw's garbage-in-waiting under load
        free, alloc, _, _ = min((vt.probe_heap() for _ in range(5)), key=lambda p: p[1])
        firmware = alloc - vt.sim_bytes  # what the firmware holds now (the models' and the held block out)
        assert kinds.unix < firmware < vt.cap
        # on the chip: its code at the chip's size, its state and the free
        # heap as data; together the chip's heap, to the few GC blocks that
        # the held block's header and the rounding take
        chip_total = kinds.chip + vh.chip_data(firmware - kinds.unix) + vh.chip_data(free)
        assert abs(chip_total - vh.CHIP_HEAP) < 2048
        # the idle App on the chip, by kind, against the rp2 port's own
        # figure (137,312 B: audit of 2026-12-01 evening, readers absent).
        # That App held the rules engine and drules_hand, today's idle App
        # neither (the first bid and the end of the draw load them:
        # tablerules.py): the audit's figure less their code at the chip's
        # size and the engine's buffers (7.7 KB on the chip, docs/firmware.md,
        # the census of 2026-12-06)
        absent = [kinds.by_module[m] for m in ("drules", "drules_hand")]
        code_u = kinds.unix - sum(u for u, _ in absent)
        code_n = kinds.native - sum(n for _, n in absent)
        idle = vh.chip_code(code_u, code_n) + vh.chip_data(firmware - code_u)
        ref = 137_312 - vh.chip_code(sum(u for u, _ in absent), sum(n for _, n in absent)) - 7_700
        # and the code that audit's App held which today's loads only for a
        # step (2026-12-06, issue 21): the PN532 driver's set-up and blocking
        # commands (pn532cmd: a reader's set-up) and the engine's set-up
        # (drules_init: the hand's engine built), each measured after the
        # module it belonged to
        parts, _ = vh.code_by_module(vt.fw_dir, ("pn532", "drules", "pn532cmd", "drules_init"))
        ref -= vh.chip_code(parts["pn532cmd"] + parts["drules_init"])
        assert 0.9 < idle / ref < 1.25, (idle, ref)
        # most of what the chip would have free (in this port's bytes) can be
        # taken in small pieces (not all: the free heap is in fragments, as
        # on the chip); 4 KiB of the chip's heap more than it has cannot
        room = int(free * 0.7)
        assert vt.probe_heap(room)[3] == "ok"
        assert vt.probe_heap(free + int(4096 / vh.HEAP_DATA))[3] == "MemoryError"
        # and the table goes on
        assert vt.probe_heap(1024)[3] == "ok"


def test_an_explicit_heapsize_has_no_chip_cap(tmp_path: Path) -> None:
    # (room for the models, the firmware's names interned before them, and
    # the collector's calibration at power-up: 96 KB of state-like objects)
    with PicoTable(2, rules=Rules(decks=2), workdir=tmp_path, heapsize="480K") as vt:
        assert vt.cap == 0 and vt.held_bytes == 0 and vt.code_kinds is None
        assert vt.probe_heap()[0] > 0


# ---- the live peak, counted by kind with the modules loaded at that moment ----------


@pytest.fixture(scope="module")
def one_hand(tmp_path_factory: pytest.TempPathFactory) -> PicoTable:
    rules = Rules(decks=1)
    vt = PicoTable(1, rules=rules, workdir=tmp_path_factory.mktemp("peak"))
    with vt:
        game = BotGame(vt, rules, seed=1, strength=1, say=lambda _s: None)
        game.play(1)
    assert game.disagreements == []
    return vt


#: what the board model's whole-hand peak on the chip (by kind, one deck) must
#: stay under today: docs/performance.md, "Board model: the heap at its live
#: peak", measured 2026-12-06: 118,462 B with one deck, two hands (116 KiB;
#: 151,583 B before the rules engine went by turns and its oracle came at its
#: first question, docs/firmware.md "Heap"); under the issue-21 bound (128 KiB,
#: CHIP_BUDGET, the test below), not the goal (100 KiB)
PEAK_NOW = 124 * 1024


def test_the_peak_is_placed_and_counted_with_the_modules_loaded_then(one_hand: PicoTable) -> None:
    vt = one_hand
    # where it was: a tap of the run, what the display showed, the firmware's modules
    assert 0 < vt.peak_taps <= vt.figures["taps"]
    assert vt.peak_lines and vt.peak_lines[0].startswith("H1")
    mods = set(vt.peak_modules)
    assert {"table", "ttlink", "scanner", "pn532", "picoboard", "persist"} <= mods
    # read at the start and dropped (main.configured_app, the start's own
    # mainstart and picostart), the link's snapshots (none in play) and its
    # set-up and handshake (ttlink_rare: at boot and at the host's HELLO), and the models' own
    assert not mods & {"tableconfig", "ruleopts", "hwconfig", "picohw", "persistload", "cardmapload", "rulesinit", "mainstart", "picostart", "ttlink_snap",
                       "ttlink_rare", "mainhost", "picoboot", "machine", "norflash"}
    # the rules engine and the hand's rules by turns (tablerules.py): never
    # both in the heap (the play holds the engine, the draw and the hand's
    # end drules_hand); with one deck the ladders are never loaded (drules._ladders)
    assert not {"drules", "drules_hand"} <= mods
    assert "drules_ladder" not in mods
    # the littlefs mount is the platform's (before the chip's 240,720 B free), reported apart
    assert vt.figures["platform_bytes"] > 0
    at = vt.chip_peak_at_peak()
    assert at is not None
    chip, code = at
    # picoboard (not in the fixed resident list) counts as code; main.py as main
    assert "picoboard" in code.by_module and "main" in code.by_module
    assert code.native > 0 and code.unix < vt.firmware_peak
    assert chip == code.chip_peak(vt.firmware_peak)
    assert chip < PEAK_NOW


def test_the_peak_is_under_the_issue_21_bound(one_hand: PicoTable) -> None:
    # one deck, bots: since the rules engine by turns and its oracle at its
    # first question (docs/firmware.md, "Heap"); 3 and 4 decks are not under
    # it yet (docs/performance.md, board-heap)
    at = one_hand.chip_peak_at_peak()
    assert at is not None and at[0] < vh.CHIP_BUDGET


@pytest.fixture(scope="module")
def three_decks(tmp_path_factory: pytest.TempPathFactory) -> PicoTable:
    rules = Rules(decks=3)
    vt = PicoTable(3, rules=rules, workdir=tmp_path_factory.mktemp("peak3"))
    with vt:
        game = BotGame(vt, rules, seed=1, strength=1, say=lambda _s: None)
        game.play(1)
    assert game.disagreements == []
    return vt


#: what the whole-hand peak on the chip (by kind) with three decks must stay
#: under today: docs/performance.md, "Board model: the heap at its live peak",
#: measured 2026-12-06 with two hands: 139.3-140.7 KB with 3-4 decks since the
#: oracle's search comes at its first question (153.0-154.1 KB before,
#: docs/firmware.md "Heap"); still over the issue-21 bound (128 KiB). Since the
#: hand's end runs a piece per quiet turn (its audit's four hands live while
#: frames and the link's work allocate in between) the one-hand peak is
#: 140.3-141.1 KB, and what lands in those turns moves with the board time the
#: firmware's CPU is charged (the machine's speed): one run of the board tests
#: on a loaded machine passed 140 KiB. 142 KiB keeps a margin for that and
#: still fails on the oracle's search at the peak (13.8 KB on the chip)
PEAK34_NOW = 142 * 1024


@pytest.mark.slow
def test_three_decks_hold_the_ladders_and_the_oracles_placement_not_its_search(three_decks: PicoTable) -> None:
    vt = three_decks
    mods = set(vt.peak_modules)
    # the play's peak: the engine, its ladders and the oracle's placement
    # (asked at every led triple), not its search (drules_sweep: bot play never
    # reaches drules.Engine._feasible), and not drules_hand
    assert {"drules", "drules_ladder", "drules_place", "drules_memo"} <= mods
    assert "drules_sweep" not in mods and "drules_hand" not in mods
    at = vt.chip_peak_at_peak()
    assert at is not None
    chip, code = at
    assert "drules_sweep" not in code.by_module
    assert chip < PEAK34_NOW, chip


def test_the_app_leaves_no_collection_threshold_after_its_start(one_hand: PicoTable) -> None:
    # boot.py sets gc.threshold() so that the start's long-lived buffers are
    # made in a collected heap; mainstart.configured_app ends it (-1): the
    # threshold counted every frame a function takes from the heap and frees
    # at once (about 130 collections a bots' hand, docs/firmware.md, "The
    # firmware's collections"). From then on the allocator collects only when
    # the chip's heap is full.
    f = one_hand.figures
    assert f["gc_threshold"] == -1
    # collections at the threshold: those of the start only (6 on the board
    # model; with the threshold kept, about 130 a hand)
    assert f["gc_auto_thr"] <= 10, f
