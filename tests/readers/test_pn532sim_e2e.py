"""``tractor-table pn532sim`` end to end: the simulated USB-UART PN532 on a
pseudo-terminal, driven by the commands typed at it, with ``tractor-table
enroll --reader PTY`` (the real Adafruit library over pyserial) enrolling a
whole deck and exporting cards.bin, then ``tractor-table deckcheck --reader
PTY`` checking the set by tapping every card again."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO

import pytest
from tractor_table.enroll import CardSet
from tractor_table.sim.pn532sim.taps import Taps, card_uid, parse_card
from tractor_table.sim.virtual.runner import uid_of


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tractor_table.cli", *args]


def _until(stream: IO[str], pattern: str, timeout: float = 30.0) -> list[str]:
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line.rstrip("\n"))
        if re.search(pattern, line):
            return seen
    raise AssertionError(f"no line matching {pattern!r} in {seen}")


@contextmanager
def _simulator() -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A ``pn532sim`` process with one deck, up and waiting for commands: (process, its port)."""
    proc = subprocess.Popen(
        _cli("pn532sim", "--decks", "1", "--hold", "0.01", "--gap", "0.01"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    try:
        first = _until(proc.stdout, r"simulated PN532 \(USB-UART\) on ")[-1]
        port = first.split(" on ")[1].split(",")[0]
        _until(proc.stdout, r"commands: tap")
        yield proc, port
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture()
def sim() -> Iterator[tuple[subprocess.Popen[str], str]]:
    with _simulator() as running:
        yield running


def _type(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(line + "\n")
    proc.stdin.flush()


@pytest.mark.slow
def test_enroll_then_deckcheck_against_the_simulated_reader(
    sim: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    proc, port = sim
    set_file, cards_bin = tmp_path / "red.cards", tmp_path / "cards.bin"
    enroll = subprocess.Popen(
        _cli("enroll", "--reader", port, "--set", str(set_file), "--name", "red", "--decks", "1",
             "--export", str(cards_bin)),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert enroll.stdout is not None
    _until(enroll.stdout, r"^\[1/54\] tap 2S$")  # the reader answered; enroll waits
    _type(proc, "foreign")  # a bank card first: refused, nothing enrolled
    _type(proc, "deck")
    out, err = enroll.communicate(timeout=90)
    assert enroll.returncode == 0, (out, err)
    assert "foreign tag deadbeef" in out
    assert "all 54 cards enrolled" in out and f"wrote the firmware map {cards_bin} (54 tags)" in out
    cs = CardSet.load(set_file)
    # each card's tag the one the simulator tapped when enroll asked for that card
    assert {card: uid for uid, card in cs.cards.items()} == {c: card_uid(c) for c in range(54)}
    assert cards_bin.stat().st_size > 0

    check = subprocess.Popen(
        _cli("deckcheck", str(set_file), "--reader", port, "--idle", "20"),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert check.stdout is not None
    _until(check.stdout, r"^tap every card of set 'red'")
    _type(proc, "deck")  # the deck again, from its first card
    out, err = check.communicate(timeout=90)
    assert check.returncode == 0, (out, err)
    assert "scanned 54 distinct tags (all cards seen)" in out
    assert out.rstrip().endswith("set is complete and consistent")


def test_the_taps_commands_and_their_errors() -> None:
    class Sim:  # only what Taps touches when no card is tapped
        def clear(self) -> None:
            self.cleared = True

    said: list[str] = []
    taps = Taps(Sim(), 2, say=said.append, sleep=lambda s: None)  # type: ignore[arg-type]
    assert card_uid(17) == uid_of(17)  # the virtual table's deck
    assert parse_card("7H", 2) == 18 and parse_card("7H.1", 2) == 72
    with pytest.raises(ValueError, match="0-1 with 2 deck"):
        parse_card("7H.2", 2)
    assert taps.run(["remove", "bogus", "wait x", "deck two", "tap 1X", "quit", "tap"]) is True
    assert said[0] == "the reader is clear"
    assert said[1].startswith("bad input: not a command: 'bogus'; commands: tap")
    assert said[2] == "bad input: wait x: give seconds, 0 to 3600"
    assert said[3] == "bad input: deck two: give a number of cards, or nothing for all"
    assert said[4].startswith("bad input: ") and "1X" in said[4]
    assert len(said) == 5 and taps.tapped == 0  # quit stopped before the last line


def _shifted(cs: CardSet, by: int) -> CardSet:
    """The set as enroll records it when every tap after the first card is one
    card late (the operator's taps one behind the prompts)."""
    out = CardSet(cs.name, cs.decks)
    tags = {card: uid for uid, card in cs.cards.items()}
    for card in range(cs.total):
        out.cards[tags[(card + by) % cs.total]] = card
    return out


@pytest.mark.slow
def test_two_then_tap_a_mis_tap_undone_and_a_shifted_set_caught(
    sim: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    """The new user's path: ``two`` then ``tap`` at the simulator (the
    simulator's next card is again the first of the two, as enroll still asks
    for it), a mis-tap undone with ``u`` at enroll (the card asked again), and
    ``deckcheck --in-order`` passing that set and catching one whose order is
    shifted (any-order deckcheck cannot: every tag is a card of the set)."""
    proc, port = sim
    set_file = tmp_path / "red.cards"
    enroll = subprocess.Popen(
        _cli("enroll", "--reader", port, "--set", str(set_file), "--name", "red", "--decks", "1"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert enroll.stdout is not None and enroll.stdin is not None
    try:
        _until(enroll.stdout, r"^\[1/54\] tap 2S$")
        _type(proc, "two")
        _until(enroll.stdout, r"^two cards on the reader")
        said = _until(proc.stdout, r"two cards were on the reader")  # type: ignore[arg-type]
        assert "2S and 3S" in said[-1] and "the next tap is 2S" in said[-1]
        _type(proc, "tap")
        _until(enroll.stdout, rf"^enrolled 2S as {card_uid(0).hex()} \(1/54\)")
        _type(proc, "tap 5S")  # a mis-tap: enroll asked for 3S
        _until(enroll.stdout, rf"^enrolled 3S as {card_uid(3).hex()} \(2/54\)")
        enroll.stdin.write("u\n")
        enroll.stdin.flush()
        undone = _until(enroll.stdout, r"^\[2/54\] tap 3S$")
        assert any(ln.startswith(f"undone: 3S (tag {card_uid(3).hex()}) is no longer enrolled (1/54)")
                   for ln in undone), undone
        _type(proc, "deck")  # from the simulator's next card, 3S
        out, err = enroll.communicate(timeout=90)
    finally:
        if enroll.poll() is None:
            enroll.kill()
            enroll.wait()
    assert enroll.returncode == 0, (out, err)
    cs = CardSet.load(set_file)
    assert {card: uid for uid, card in cs.cards.items()} == {c: card_uid(c) for c in range(54)}

    shifted_file = tmp_path / "shifted.cards"
    _shifted(cs, 1).save(shifted_file)
    _until(proc.stdout, r"^tapped BJ ")  # type: ignore[arg-type]  # enroll's last card is gone
    for path, good in ((set_file, True), (shifted_file, False)):
        # each check on a simulator of its own: a check ends as it reads the
        # last card, and the simulator keeps a card down until it was read
        # twice, so the first simulator's last tap would end only at its
        # 30 s time-out (taps.Taps._until_read) before it took a new command
        with ExitStack() as stack:
            sim_proc, sim_port = (proc, port) if good else stack.enter_context(_simulator())
            check = subprocess.Popen(
                _cli("deckcheck", str(path), "--reader", sim_port, "--in-order", "--idle", "20"),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            assert check.stdout is not None
            _until(check.stdout, r"^\[1/54\] tap 2S$")
            _type(sim_proc, "deck")
            out, err = check.communicate(timeout=90)
        if good:
            assert check.returncode == 0, (out, err)
            assert out.rstrip().endswith("set is complete and consistent")
        else:
            assert check.returncode == 1, (out, err)
            assert "asked for 3S, the tag is enrolled as 2S" in out, out
            assert "the set's order is shifted: 54 cards' tags are enrolled as the card 1 place(s) " \
                   "before theirs" in out, out
            assert "set has problems" in out
