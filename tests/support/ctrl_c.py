"""Ctrl-C for a command a test starts and interrupts.

A test run started in the background (``make test &``, nohup, some CI shells)
has SIGINT ignored, and a child inherits that across exec: the command would
then never see the Ctrl-C its test sends. ``preexec_fn=default_sigint`` gives
the child SIGINT's default, as a person's terminal would.
"""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """In the child, before exec: SIGINT back to its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
