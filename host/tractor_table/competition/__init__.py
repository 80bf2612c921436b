"""Competitions, sans IO: scoring as data, standings as a pure function, pairings, entries.

Nothing here touches a database, a clock or a network; the club server stores the facts
(matches, adjustments, seatings) and calls these functions to derive everything else
(docs/competition.md, "Competitions").

- :mod:`.scoring` — a competition's scoring rules as data (level ladder, match points,
  walkover, tie-break chain), validated, with the presets of real events.
- :mod:`.model` — players, entries (pairs and teams), table matches, adjustments.
- :mod:`.standings` — ``rank(scoring, entries, matches, adjustments)``: the standings,
  recomputed every time, never stored as the truth.
- :mod:`.pairing` — Swiss ("high against high", no repeat meeting, round 1 drawn, byes) and
  round robin (Berger tables).
- :mod:`.seating` — a round's meetings bound to tables and seats.
- :mod:`.entries_csv` — the player list from a CSV, all or nothing, every error with its line.
"""

from __future__ import annotations
