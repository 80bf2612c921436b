# A long press takes back the seat's last play (firmware/table.py's button).
# A part of the table core (tablebase.py): a function of the table's state,
# loaded by table.Table only for that press, then dropped (the heap budget,
# docs/firmware.md).
#
# The rule (docs/firmware.md "Taking back a play"): in the play phase, the
# seat that made the last accepted play may take it back with a long press
# while nothing has followed it: the next seat has tapped no card, no other
# event but a refusal came after it (no TRICK: a trick once scored stands; no
# FORCED, REVOKE, PARTNER or FORFEIT), nobody has declared a challenge. Its
# cards go back to its hand as far as the table knows, the turn is its own
# again and an UNDO event [UNDO, trick_no, seat, cards...] is emitted. A
# throw's lead may be taken back this way (the challenge window closes with
# it); the first follow of a throw taken back opens the window again.
# Refused (nothing to take back, or it stands): the display says `S2 no undo`.
import events as E
import tablebase as T


def undo(tb: "T.TableBase", seat, now_ms):
    """Take back seat's last play if the rule allows it (True), else say that
    the play stands (the display's `S2 no undo`; no event)."""
    cards = tb.plays[seat]
    if tb.phase != T.PLAY or tb.undo_seat != seat or cards is None or tb.pending[tb.turn]:
        tb.say("S%d no undo" % seat, now_ms)
        return False
    tb.undo_seat = -1
    tb.plays[seat] = None
    for c in cards:
        tb.seen[c] = 0
    if tb.hand_scan:
        tb.hands[seat].extend(cards)
    if tb.friend:
        for c in cards:
            if c % 54 == tb.call:
                tb.fby[c // 54] = 0  # that copy is not located by this play any more
    if seat == tb.leader:
        tb.lead = None
        tb.throw_open = False
        tb.forced = False
    elif seat == ((tb.leader + 1) & 3) and not tb.forced:
        tb.throw_open = tb.rules.is_throw(tb.lead)  # and not challenged: the window again
    tb.turn = seat
    ev = [E.UNDO, len(tb.tricks), seat]
    for c in cards:
        ev.append(c)
    tb.emit(ev)
    tb.beep(E.SND_OK)
    tb.say("S%d takes back" % seat, now_ms)
    return True
