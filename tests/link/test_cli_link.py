"""``tractor-table link`` against the device program on a pty."""

from __future__ import annotations

from pathlib import Path

import pytest
from relay import Relay
from test_e2e import Device
from tractor_table.cli import main


def test_link_command_follows_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    relay = Relay(tmp_path)
    device = Device(relay, tmp_path / "state.json")
    device.start(target=12)
    try:
        rc = main(["link", "--port", str(relay.path), "--seconds", "1", "--no-verify"])
    finally:
        device.kill()
        relay.close()
    out = capsys.readouterr().out
    assert rc == 0
    assert "link up: firmware 0.1.0, rules rules-2026.1" in out
    assert "12 events: 0 judged" in out.splitlines()[-1]
    assert sum(1 for line in out.splitlines() if line[:5].strip().isdigit()) == 12


def test_link_command_says_at_once_that_the_port_does_not_exist(capsys: pytest.CaptureFixture[str]) -> None:
    import time

    t0 = time.monotonic()
    rc = main(["link", "--port", "/nonexistent/ttyACM9"])  # the default --connect-timeout is 10 s
    out, err = capsys.readouterr()
    assert rc == 1 and time.monotonic() - t0 < 2
    assert out == ""  # no records summary: nothing was started
    # the console's words, for the same mistake
    assert err.strip() == (
        "tractor-table link: --port /nonexistent/ttyACM9: no such port; plug the table in and name its "
        "port (e.g. /dev/ttyACM0), or leave --port out to find the Pico by its USB id"
    )
    assert main(["console", "--port", "/nonexistent/ttyACM9"]) == 1
    assert capsys.readouterr().err.strip() == err.strip().replace("tractor-table link:", "tractor-table console:")


def test_link_command_says_when_the_table_does_not_answer(capsys: pytest.CaptureFixture[str]) -> None:
    import os

    master, slave = os.openpty()  # a port that opens, with nothing behind it
    name = os.ttyname(slave)
    try:
        rc = main(["link", "--port", name, "--connect-timeout", "0.3", "--no-record"])
    finally:
        os.close(master)
        os.close(slave)
    err = capsys.readouterr().err
    assert rc == 1
    assert f"no link with the table on {name} within 0.3 s" in err


def test_link_command_takes_operator_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import time

    relay = Relay(tmp_path)
    device = Device(relay, tmp_path / "state.json")
    device.start(target=3)
    r, w = os.pipe()
    os.write(w, b"status\npush\nbogus\n")
    stdin = os.fdopen(r, "rb")
    monkeypatch.setattr("sys.stdin", stdin)
    t0 = time.monotonic()
    try:
        os.write(w, b"quit\n")
        rc = main(["link", "--port", str(relay.path), "--seconds", "30", "--quiet"])
    finally:
        os.close(w)
        stdin.close()
        device.kill()
        relay.close()
    out = capsys.readouterr().out
    assert rc == 0 and time.monotonic() - t0 < 10  # 'quit' ended it
    assert "judged" in out
    # the test stream is no game: the engine has no state to push, and says so
    assert "push: the full engine replayer cannot express the host's state" in out
    assert "unknown command 'bogus'" in out
