"""Practice without hardware, end to end: ``tractor-table virtual --serve`` keeps
the real firmware running on a pseudo-terminal, and ``tractor-table link --port
PTY`` and ``tractor-table console --port PTY`` follow it as they follow a Pico,
while the cards are typed at the serving command (its standard input)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import IO

import pytest
from shengji import Rules
from tractor_table.commands.console import make_verifier
from tractor_table.console.app import ConsoleApp
from tractor_table.console.source import PortSource
from tractor_table.console.widgets import Pane


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tractor_table.cli", *args]


def _line_with(stream: IO[str], pattern: str, timeout: float = 30.0) -> tuple[re.Match[str], list[str]]:
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line.rstrip("\n"))
        m = re.search(pattern, line)
        if m:
            return m, seen
    raise AssertionError(f"no line matching {pattern!r} in {seen}")


@pytest.fixture()
def served() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc = subprocess.Popen(
        _cli("virtual", "--serve", "--readers", "direct"),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert proc.stdout is not None
    try:
        m, _ = _line_with(proc.stdout, r"serving on (\S+) \(pseudo-terminal\)")
        port = m[1]
        assert os.path.exists(port)
        _line_with(proc.stdout, r"^> draw ")  # the prompt: it reads commands now
        yield proc, port
    finally:
        if proc.poll() is None:
            proc.terminate()  # SIGTERM: the table is closed as on Ctrl-C
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _type(proc: subprocess.Popen[str], *lines: str) -> None:
    assert proc.stdin is not None
    for line in lines:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()


@pytest.mark.slow
def test_virtual_serve_with_link_then_console_on_its_port(served: tuple[subprocess.Popen[str], str]) -> None:
    proc, port = served
    assert proc.stdout is not None
    link = subprocess.Popen(
        _cli("link", "--port", port, "--seconds", "6", "--no-record"),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    assert link.stdout is not None
    _line_with(link.stdout, r"^link synced")
    _type(proc, "tap 1 2H", "ok 1", "ok 0")
    _line_with(proc.stdout, r"^  S1 tapped 2H: waiting 2H")  # the serving side's echo
    _, before = _line_with(link.stdout, r"trump H \(declared by S1\)")
    _type(proc, "tap 1 4S", "ok 1")  # one card of the kitty's eight, then OK: too few
    out, _ = link.communicate(timeout=30)
    out = "\n".join(before) + "\n" + out
    assert link.returncode == 0, out
    assert "S1 bids 2H: accepted" in out and "trump H (declared by S1), dealer S1" in out
    # labelled by phase, as docs/protocol.md says, not "trick 1:"
    assert "burial: S1 refused: kitty count 4S" in out and "trick 1: S1 refused" not in out, out
    assert "0 disagreements" in out

    # the table kept running after the link closed: the console follows it now,
    # from its start (the events the table keeps), and sees the next tap too
    rules = Rules()
    source = PortSource(port, rules.decks)
    source.start()
    app = ConsoleApp(source, make_verifier(rules))

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            deadline = time.monotonic() + 20
            while "synced" not in app.query_one("#link", Pane).text:
                assert time.monotonic() < deadline, app.query_one("#link", Pane).text
                await pilot.pause(0.1)
            _type(proc, "tap 3 3S")  # the burial is S1's: refused
            while not any("S3 refused: not now" in m for m in app.messages):
                assert time.monotonic() < deadline, (app.messages, app.query_one("#events").plain)
                await pilot.pause(0.1)
            game = app.query_one("#game", Pane).text  # 100 columns: the short lines
            assert "trump H by S1" in game and "refused burial: S3 refused: not now 3S" in game
            await pilot.press("q")

    try:
        asyncio.run(main())
    finally:
        source.close()
    assert app.verifier.disagreements == [] and app.verifier.agreed == 3  # the refusal is not judged
    _type(proc, "quit")
    assert proc.wait(timeout=15) == 0
    assert "virtual table stopped" in proc.stdout.read()
