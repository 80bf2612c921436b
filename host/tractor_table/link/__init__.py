"""The host end of the host–table link.

The codec and the link state machines live in ONE module, ``firmware/ttlink.py``,
which the Pico runs under MicroPython (with ``firmware/ttlink_host.py``, the
host's end, which the table never loads). The host does not keep a copy: this
package takes that very module from the host's one loader of firmware modules
(:func:`tractor_table.vocab.firmware`); ``_ttlink.pyi`` types it for mypy, and
``tests/link/test_host_serial.py`` checks the stub against the module.

- :mod:`.serial_link` — pyserial I/O: find the Pico, open it exclusively, a
  reader thread that always drains, reconnects.
- :mod:`.verifier` — replays the device's events through a rules engine and
  records every disagreement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..paths import FIRMWARE_DIR
from ..vocab import firmware

SHARED_SOURCE = FIRMWARE_DIR / "ttlink.py"

if TYPE_CHECKING:
    from . import _ttlink as ttlink
else:
    ttlink = firmware("ttlink")

__all__ = ["SHARED_SOURCE", "ttlink"]
