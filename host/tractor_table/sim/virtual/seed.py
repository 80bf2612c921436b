"""The bots' seed: given with --seed (the same deal again), or a fresh one."""

from __future__ import annotations

import secrets

#: fresh seeds are 1..SEED_MAX: short enough to read off the screen and type back
SEED_MAX = 999_999


def bots_seed(given: int | None) -> int:
    """``given``, or a fresh seed (every demo a new deal)."""
    return given if given is not None else 1 + secrets.randbelow(SEED_MAX)


def seed_line(seed: int) -> str:
    return f"the bots deal seed {seed} (the same deal again: --seed {seed})"
