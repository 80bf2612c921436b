"""The host end of the host–table link.

The codec and the link state machines live in ONE module, ``firmware/ttlink.py``,
which the Pico runs under MicroPython. The host does not keep a copy: this
package loads that very file (from :data:`tractor_table.paths.FIRMWARE_DIR`)
as ``tractor_table.link._ttlink``; ``_ttlink.pyi`` types it for mypy, and
``tests/link/test_shared_module.py`` checks the stub against the module.

- :mod:`.serial_link` — pyserial I/O: find the Pico, open it exclusively, a
  reader thread that always drains, reconnects.
- :mod:`.verifier` — replays the device's events through a rules engine and
  records every disagreement.
"""

from __future__ import annotations

import importlib.util
import sys

from ..paths import FIRMWARE_DIR

SHARED_SOURCE = FIRMWARE_DIR / "ttlink.py"


def _load_shared() -> None:
    name = f"{__name__}._ttlink"
    if name in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(name, SHARED_SOURCE)
    if spec is None or spec.loader is None:  # pragma: no cover - broken checkout
        raise ImportError(f"cannot load the link module from {SHARED_SOURCE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    setattr(sys.modules[__name__], "_ttlink", module)  # noqa: B010


_load_shared()

from . import _ttlink as ttlink  # noqa: E402

__all__ = ["SHARED_SOURCE", "ttlink"]
