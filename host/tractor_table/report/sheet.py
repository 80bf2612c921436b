"""The match score sheet of recorded hands: one line per hand with the dealer,
trump, the attackers' points, the kitty bonus and the levels after, as
``tractor-table simulate`` prints them."""

from __future__ import annotations

from typing import Any

from .cards import level_name, trump_name
from .model import attackers_of, levels_of

HEADER = (f"{'hand':>5}  {'table':>5}  {'#':>3}  {'dealer':>6}  {'trump':<9}  {'attackers':<9}  "
          f"{'points':>6}  {'kitty':<12}  {'levels':<7}")


def columns(h: dict[str, Any], lang: str = "en") -> str:
    """The sheet's columns of a hand of ``Store.hands()`` (without the hand and table numbers)."""
    dealer = f"S{h['dealer']}" if h["dealer"] is not None and h["dealer"] >= 0 else "-"
    trump = "-"
    if h["trump"] is not None:
        trump = trump_name(h["trump"], lang)
        if h["declarer"] is not None and h["declarer"] >= 0:
            trump += f" (by {h['declarer']})"
    att = "-"
    per_seat = h.get("level2") is not None  # find-a-friend: levels per seat
    if h["dealer"] is not None and h["dealer"] >= 0:
        att = attackers_of(h["dealer"], per_seat, h.get("partner"))
    points = "-" if h["attackers_score"] is None else str(h["attackers_score"])
    kitty = "-"
    if h["multiplier"]:
        kitty = f"{h['kitty_points']}x{h['multiplier']}={h['bonus']}"
    if h["status"] == "done" and h["next_level0"] is not None:
        levels = " ".join(level_name(x) for x in _next(h))
    elif h["level0"] is not None:
        levels = f"({' '.join(level_name(x) for x in levels_of(h))})"
    else:
        levels = "?"
    return f"{dealer:>6}  {trump:<9}  {att:<9}  {points:>6}  {kitty:<12}  {levels:<7}"


def _next(h: dict[str, Any]) -> tuple[Any, ...]:
    """The levels after a hand: per side, or per seat (find-a-friend)."""
    if h.get("next_level2") is not None:
        return (h["next_level0"], h["next_level1"], h["next_level2"], h["next_level3"])
    return (h["next_level0"], h["next_level1"])


def line(h: dict[str, Any], lang: str = "en") -> str:
    no = "?" if h["hand_no"] is None else h["hand_no"]
    return f"{h['id']:>5}  {h['table_id']:>5}  {no:>3}  {columns(h, lang)}"


def render(hands: list[dict[str, Any]], lang: str = "en") -> str:
    """The sheet, table by table (levels after each finished hand; in
    brackets, the levels a hand not finished was played at)."""
    out: list[str] = []
    tables = sorted({h["table_id"] for h in hands})
    for t in tables:
        mine = [h for h in hands if h["table_id"] == t]
        done = [h for h in mine if h["status"] == "done"]
        out.append(f"table {t}: {len(mine)} hand(s), {len(done)} finished")
        out.append(HEADER + "  result")
        for h in mine:
            res = h["status"] if h["status"] != "done" else ("revoke" if (h["forfeit_seat"] or -1) >= 0
                                                             else "done")
            out.append(f"{line(h, lang)}  {res}")
        last = next((h for h in reversed(done) if h["next_level0"] is not None), None)
        if last is not None and last.get("next_level2") is not None:
            win = last["match_winner"]
            won = " ".join(f"S{s}" for s in range(4) if win is not None and win >= 0 and win >> s & 1)
            tail = f"; {won} won the match" if won else ""
            out.append(f"levels now {' '.join(level_name(x) for x in _next(last))}"
                       f" (S0 S1 S2 S3), next dealer S{last['next_dealer']}{tail}")
        elif last is not None:
            win = last["match_winner"]
            tail = f"; side {win} won the match" if win is not None and win >= 0 else ""
            out.append(f"levels now {level_name(last['next_level0'])} {level_name(last['next_level1'])}"
                       f" (sides 0&2, 1&3), next dealer S{last['next_dealer']}{tail}")
        out.append("")
    return "\n".join(out)
