"""Put the firmware, the card set and the configuration on a Pico.

A module for each job (import from the module): ``abi`` (the ``.mpy`` ABI
check), ``cards`` (the card set read and checked), ``config`` (``table.cfg``),
``transport`` (the board over mpremote's raw REPL), ``manifest`` (what lands on
the flash), ``install`` (the copy as one step), ``selftest`` (the board's
self-test) and ``run`` (the command: :func:`.run.deploy`).

``tractor-table deploy --port PORT`` (``make deploy PORT=...``):

1. compiles ``firmware/`` with ``mpy-cross`` (:mod:`tractor_table.firmware_build`);
2. opens the board with mpremote's serial transport and stops whatever runs
   there (Ctrl-C, raw REPL); reads the board's ``sys.implementation._mpy`` and
   refuses firmware the board's MicroPython could not import (another ``.mpy``
   version or sub-version, native code for another architecture:
   :func:`check_abi`); checks there is room on the flash;
3. writes every file under a temporary name (``NAME.new``), with a progress bar;
4. verifies each temporary file on the board (size and SHA-256, computed by the
   board itself; read back whole if the board has no ``hashlib``);
5. only then renames them all into place in one step, removes any old ``.py``
   that would shadow a new ``.mpy`` (MicroPython imports ``.py`` first) and
   any module the previous deploy listed in ``deployed.txt`` that this one no
   longer has, and verifies the final files once more;
6. soft-resets the board, so that ``main.py`` starts the new firmware.

A failure before step 5 removes the temporary files and leaves the old firmware
as it was. What lands on the flash (all in ``/``): every firmware module as
``.mpy``, ``main.py`` and ``boot.py`` as source (the Pico runs them by name),
the card set as ``cards.bin`` and the configuration as ``table.cfg`` (the names
are in ``hwconfig.CARDS_FILE`` / ``CONFIG_FILE``).

The board is reached through :class:`~.transport.DeployBoard`, a small interface over mpremote's
``SerialTransport`` (exec, write, hash). The tests drive the real thing: mpremote
over a pseudo-terminal to MicroPython's unix port, whose raw REPL is the same
code as the Pico's.
"""
