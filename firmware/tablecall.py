# The call of find-a-friend (partners = "called", tablefriend.py): the phase
# CALL, after the burial (tabledeal.bury sets it up), on the dealer's reader
# and button. A part of the
# table core (tablebase.py): loaded by table.Table for that phase only and
# dropped from sys.modules at the confirmation, so its code is not in the heap
# during play; find-a-friend's functions are tb.friend's (tablefriend.py).
#   tap a card     the call is that card's face; but with a suited call shown,
#                  a suited card of another rank gives its rank only (the suit
#                  stays): tap 5H then AS -> AH
#   double press   the face before, long press the face after, in the order
#                  2S .. AS 2H .. AH 2D .. AD 2C .. AC SJ BJ (and round again)
#   short press    confirm: the CALL event, then the play (the dealer leads)
# A face the dealer holds: tap, confirm (2 actions); one whose suit and rank
# it holds on other cards, or next to one it holds: 3 (docs/firmware.md,
# "Find-a-friend at the table", has the figures over random hands).
import sys

import events as E
import tablebase as T


def tap(tb: "T.TableBase", seat, card, now_ms):
    if seat != tb.dealer:
        tb.refuse(seat, E.WRONG_PHASE, (card,), now_ms)
        return
    f = card % 54
    b = tb.building
    if b < 0 or b >= 52 or f >= 52 or f % 13 == b % 13:
        b = f
    else:
        b = (b // 13) * 13 + f % 13  # another rank: the suit shown stays
    tb.building = b
    tb.beep(E.SND_TAP)


def button(tb: "T.TableBase", seat, kind, now_ms):
    if seat != tb.dealer:
        if kind != E.BTN_UNDO:
            tb.refuse(seat, E.WRONG_PHASE, (), now_ms)
        return
    b = tb.building
    if b < 0:
        tb.refuse(seat, E.EMPTY, (), now_ms)
        return
    if kind == E.BTN_CHALLENGE:  # double press: the face before
        tb.building = (b + 53) % 54
        tb.beep(E.SND_TAP)
    elif kind == E.BTN_UNDO:  # long press: the face after
        tb.building = (b + 1) % 54
        tb.beep(E.SND_TAP)
    elif kind == E.BTN_OK:
        confirm(tb, now_ms)


def confirm(tb: "T.TableBase", now_ms):
    tb.call = tb.building
    tb.building = -1
    tb.emit([E.CALL, tb.dealer, tb.call])
    tb.phase = T.PLAY
    tb.leader = tb.turn = tb.dealer
    tb.beep(E.SND_OK)
    tb.save_due = True
    F = tb.friend
    tb.say("call %s" % F.face_name(tb.call), now_ms)
    if tb.hand_scan:
        F.resolve(tb, now_ms)  # every hand is known: the partner at once
    sys.modules.pop("tablecall", None)  # the call is made: its code may go
