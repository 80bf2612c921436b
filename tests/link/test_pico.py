"""The link against a real Pico running the firmware (PICO_PORT=/dev/ttyACM0).

Skipped when no Pico is attached: everything else in tests/link runs the same
link against the firmware under MicroPython's unix port on a pty."""

from __future__ import annotations

import os
import time

import pytest
from tractor_table.link import notes
from tractor_table.link.serial_link import SerialLink, host_identity

PORT = os.environ.get("PICO_PORT", "")

pytestmark = [
    pytest.mark.pico,
    pytest.mark.skipif(not PORT, reason="no Pico: set PICO_PORT=/dev/ttyACM0 to run"),
]


def test_a_real_table_handshakes_syncs_and_stays_up() -> None:
    got: list[notes.Note] = []
    with SerialLink(PORT, on_note=got.append) as link:
        assert link.wait_synced(10), link.last_error or link.device_lines[-5:]
        up = next(n for n in got if isinstance(n, notes.Up))
        assert up.rules_id == host_identity()[1], "the Pico runs other rules: make deploy"
        time.sleep(3.5)  # longer than the link-down timeout: pings keep it up
        assert not [n for n in got if isinstance(n, (notes.Down, notes.Incompatible, notes.Conflict))]
        assert link.synced()
