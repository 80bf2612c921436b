# Enroll mode: a seat's reader lends itself to `tractor-table enroll --table`.
#
# Imported only when the host asks for it (main.App._app on [APP_ENROLL, seat]),
# so that a game's heap never holds this code. While enroll mode is on:
#
# - the board hands every scanner event to Enroller.tag (board.tag_sink) before
#   it maps the event to a card; the events at the enroll seat go to the host
#   as [APP_TAG, seat, "uidhex"] (known and unknown tags alike: re-enrolling a
#   set must be possible) or, for a reader error, [APP_TAG, seat, "", reason]
#   with reason "two" (two tags on the reader), "crosstalk" (the tag was seen
#   at another seat too) or "fault" (the reader stopped answering);
# - a long press of the enroll seat's button (BTN_UNDO) goes to the host as
#   [APP_TAG, seat, "", "undo"] (enroll takes its last card back); that
#   seat's other presses do nothing, and no press of that seat reaches the game;
# - main.App feeds no taps to the game (App.enroll is not None).
#
# [APP_ENROLL, -1] leaves enroll mode. Both are answered
# [APP_REPLY, APP_ENROLL, 0 ok / 1 refused, text]. The mode belongs to the
# link session that asked for it: when that session ends (the host went away
# without [APP_ENROLL, -1], or another host connected) the next scanner event
# ends enroll mode, and that tap is the game's again; nothing piles up in the
# link's queue for a host that is gone. The mode is not saved: a restart ends it.
#
# Enroll mode plays no card: the rules engine (tablerules.TableRules.unload)
# leaves the heap while it is on, and this module when it ends; the next play
# loads the engine again.
import gc
import sys
import events as E  # the APP_* codes

import scanner as S

_HEX = "0123456789abcdef"


class Enroller:
    def __init__(self, app, seat):
        self.app = app
        self.link = app.link
        self.sid = app.link.sid  # the session that asked
        self.seat = seat
        self.sent = 0

    def tag(self, sc):
        """A scanner event (the scanner itself, its last popped event)."""
        if self.link.sid != self.sid:
            _end(self.app, sc.t_ms)
            return
        if sc.seat != self.seat:
            return
        k = sc.kind
        if k == S.EV_CARD or k == S.EV_UNKNOWN:
            uid = sc.uid
            text = ""
            for i in range(sc.uid_len):
                b = uid[i]
                text += _HEX[b >> 4] + _HEX[b & 15]
            msg = [E.APP_TAG, sc.seat, text]
        elif k == S.EV_TWO:
            msg = [E.APP_TAG, sc.seat, "", "two"]
        elif k == S.EV_CROSSTALK:
            msg = [E.APP_TAG, sc.seat, "", "crosstalk"]
        elif k == S.EV_FAULT:
            msg = [E.APP_TAG, sc.seat, "", "fault"]
        else:
            return
        self.link.send_app(msg)
        self.sent += 1


    def press(self, seat, kind):
        """A button press: True when it was the enroll seat's (not the game's)."""
        if self.link.sid != self.sid or seat != self.seat:
            return False
        if kind == E.BTN_UNDO:
            self.link.send_app([E.APP_TAG, seat, "", "undo"])
        return True


def command(app, payload, now):
    """[APP_ENROLL, seat] (0-3) starts enroll mode at that seat, [APP_ENROLL, -1]
    ends it; the reply says whether the table agreed."""
    link = app.link
    board = app.board
    seat = payload[1] if len(payload) > 1 else None
    if not isinstance(seat, int) or seat < -1 or seat > 3:
        link.send_app([E.APP_REPLY, E.APP_ENROLL, 1, "enroll needs a seat 0-3, or -1 to stop"])
        return
    if not hasattr(board, "tag_sink"):
        link.send_app([E.APP_REPLY, E.APP_ENROLL, 1, "this table's readers report cards, not tags"])
        return
    if seat < 0:
        _end(app, now)
    else:
        unload = getattr(app.table.rules, "unload", None)
        if unload is not None:
            unload()
            gc.collect()
        app.enroll = Enroller(app, seat)
        board.tag_sink = app.enroll.tag
        app.table.say("enroll at S%d" % seat, now)
        app.dirty = True
    link.send_app([E.APP_REPLY, E.APP_ENROLL, 0, ""])


def _end(app, now):
    app.board.tag_sink = None
    app.enroll = None
    app.table.say("enroll ended", now)
    app.dirty = True
    sys.modules.pop("enrollmode", None)  # imported again for the next [APP_ENROLL, seat]
