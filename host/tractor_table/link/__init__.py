"""The host end of the host–table link.

The codec and the link state machines live in ONE module, ``firmware/ttlink.py``,
which the Pico runs under MicroPython; the host's end (``HostLink``, and
``Record``, its copy of the game log) is ``firmware/ttlink_host.py``, which
imports ``ttlink`` and which the table never loads. The host does not keep a
copy: this package takes those very modules from the host's one loader of
firmware modules (:func:`tractor_table.vocab.firmware`) as :data:`ttlink` and
:data:`ttlink_host`; ``_ttlink.pyi`` and ``_ttlink_host.pyi`` type them for
mypy, and ``tests/link/test_host_serial.py`` checks the stubs against the modules.

- :mod:`.serial_link` — pyserial I/O: find the Pico, open it exclusively, a
  reader thread that always drains, reconnects.
- :mod:`.verifier` — replays the device's events through a rules engine and
  records every disagreement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..paths import FIRMWARE_DIR
from ..vocab.loader import firmware

SHARED_SOURCE = FIRMWARE_DIR / "ttlink.py"

if TYPE_CHECKING:
    from . import _ttlink as ttlink
    from . import _ttlink_host as ttlink_host
else:
    ttlink = firmware("ttlink")
    ttlink_host = firmware("ttlink_host")

__all__ = ["SHARED_SOURCE", "ttlink", "ttlink_host"]
