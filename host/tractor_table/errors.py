"""Errors the user can act on.

A :class:`CommandError` ends a command with exit status 1 and one clear line
(no traceback), in the manner of mpremote.
"""

from __future__ import annotations


class CommandError(Exception):
    """A failure the user can fix; the message says what was wrong and what to do."""
