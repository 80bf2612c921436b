"""The board model serving its table to another program's link
(``tractor-table virtual --serve --board pico``): the table's events come
beside the link (mpy/vevents.py, as on the fast board), caught from the
firmware's own link with the firmware unchanged, in the models' heap, and each
typed command is answered from them."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from shengji import Rules
from tractor_table import cli, rulescodec
from tractor_table.events import EV, Bid, Event, HandStart
from tractor_table.link.notes import Up
from tractor_table.records import Store
from vtable_rig import board_workdir

DRAW = ["tap 1 2H", "ok 1", "ok 0"]  # S1 bids 2H, the draw ends: S1 deals, hearts trump
BURY = [f"tap 1 {c}D" for c in "3456789T"]  # the kitty: eight diamonds


def _queued(vt: Any) -> list[Event]:
    """The events already here (after settle(): all of the commands sent)."""
    got: list[Event] = []
    while not vt.events.empty():
        got.append(vt.events.get_nowait())
    return got



def test_the_board_model_reports_its_events_beside_the_link_from_the_models_heap(compiled: Path) -> None:
    from tractor_table.sim.board.runner import PicoTable

    rules = Rules(decks=1)
    held = {}
    for side in (True, False):
        vt = PicoTable(1, workdir=board_workdir(compiled, f"side{side}"), rules=rules)
        try:
            vt.start(host_link=False, side_events=side)
            assert vt.settle(30), vt.firmware_errors()
            held[side] = vt.held_bytes
            if not side:
                assert vt.events.empty() and not vt.notes
                continue
            # the log's start as the table's WELCOME says it, then its events
            (up,) = vt.notes
            assert isinstance(up, Up)
            assert (up.count, up.head) == (0, 0)
            assert up.rules_digest == rulescodec.digest(rules)  # set by main.App after the link is made
            (start,) = _queued(vt)
            assert isinstance(start, HandStart)
            vt.tap(1, 13)  # 2H
            vt.press(1, EV.BTN_OK)
            assert vt.settle(30), vt.firmware_errors()
            (bid,) = _queued(vt)
            assert isinstance(bid, Bid) and bid.accepted and bid.seat == 1
            assert bid.index == 1
            assert vt.side_errors == []
        finally:
            vt.close()
    # the tap's objects come out of what the board holds back for the chip's
    # cap, not out of the firmware's share of the heap
    assert 0 < held[False] - held[True] < 8192, held


def _serve(lines: list[str], *flags: str) -> list[str]:
    mp = pytest.MonkeyPatch()
    out = io.StringIO()
    try:
        mp.setattr("sys.stdin", io.StringIO("".join(x + "\n" for x in [*lines, "quit"])))
        mp.setattr("sys.stdout", out)
        assert cli.main(["virtual", "--serve", "--board", "pico", *flags]) == 0
    finally:
        mp.undo()
    return out.getvalue().splitlines()


def test_serve_on_the_board_model_answers_from_the_tables_events(tmp_path: Path) -> None:
    db = tmp_path / "practice.sqlite"
    out = _serve([*DRAW, *BURY], "--db", str(db))
    assert any(x.startswith("virtual table serving on ") and "on the board model" in x for x in out), out
    answers = [x.strip() for x in out if x.startswith("  ") and not x.startswith("  |")]
    answers = answers[next(i for i, x in enumerate(answers) if x.startswith("type taps here")) + 1:]
    assert answers[:3] == ["S1 tapped 2H: waiting 2H", "S1 bids 2H: accepted",
                           "trump H (declared by S1), dealer S1"], out
    assert "> burial: S1 taps the 8 cards of the kitty (the table takes them at the 8th)" in out
    with Store.open(db, create=False) as store:
        (hand,) = store.hands()
        events = store.hand_events(hand)
        # the host judged every event from the side channel as from a link: all agreed
        verdicts = [v["verdict"] for e in events for v in e["verdicts"]]
        assert verdicts and set(verdicts) == {"agreed"}, verdicts
        assert hand["disagreements"] == 0


def test_serve_on_the_board_model_needs_its_spi_readers(capsys: pytest.CaptureFixture[str]) -> None:
    # it was served on the fast board, --board pico left unsaid
    assert cli.main(["virtual", "--serve", "--board", "pico", "--readers", "direct"]) == 1
    err = capsys.readouterr()
    assert "--board pico reads its PN532 models over SPI: leave out --readers direct" in err.err
    assert "serving" not in err.out
