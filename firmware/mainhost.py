# What main.App does for the host on the link that a match rarely asks
# (docs/firmware.md, "The link's parts"): the answers to the host's
# application messages (APP: the table's commands, a maintenance stop, enroll
# mode; docs/protocol.md, "Message types") but the display's lines, and the
# table's state taken from a host (a link snapshot pushed to it).
#
# main.py loads this module for each and drops it after (main._drop, as
# mainstart after the start): main.py is compiled from source on the Pico and
# its bytecode stays in the heap as long as the table runs, so what an
# operator or a host asks now and then is here, as a .mpy that leaves the heap
# after it. The display's lines (APP_STATE, which the operator's console asks
# every second) stay in main.App._app. mainstart loads and drops it once at the
# start, so that its names are interned while the heap is in few pieces.
# Also the readers' outages (main.App._view: a reader lost or back). It takes
# the App it serves; it imports nothing of main.
import events as E
import table as T


def readers(app, down):
    """main.App._view's rare part: the seats whose reader does not answer
    (a bit per seat) changed: on the display, to the host, on the USB serial."""
    app.display.readers_down = down
    app.link.send_app([E.APP_READERS, down])
    if down:
        print("readers: no answer from seat(s) %s" % " ".join(str(s) for s in range(4) if down >> s & 1))
    else:
        print("readers: every seat answers")


def app_message(app, payload):
    """main.App._app's rare part: payload is the host's [command, ...]."""
    t = app.table
    c = payload[0]
    if c == E.APP_MAINTENANCE:
        app.link.send_app([E.APP_REPLY, c, 0, ""])
        app.stop_at = now = app.board.ticks_ms()
        t.say("maintenance stop", now)
        app.dirty = True
        return
    if c == E.APP_ENROLL:
        import enrollmode

        enrollmode.command(app, payload, app.board.ticks_ms())
        return
    if c == T.CMD_RESTORE:
        # a state comes only as a link snapshot: the link then restarts
        # its event log at the snapshot's index and hash, in step with us
        app.link.send_app([E.APP_REPLY, c, 1, "send the state as a link snapshot"])
        return
    try:
        t.command(payload)
    except T.TableError as exc:
        app.link.send_app([E.APP_REPLY, c, 1, str(exc)])
        return
    app.link.send_app([E.APP_REPLY, c, 0, ""])
    app.dirty = True


def snapshot_in(app, data, count, head):
    """main.App._snapshot_in: a host's state swapped in whole, or why not."""
    import json

    try:
        snap = json.loads(bytes(data).decode())
        # the link's numbering decides: fields F_EV_INDEX and F_EV_HASH
        # (snaplayout.py, which the table does not load)
        snap[13] = count
        snap[14] = head
        app.table.restore(snap)
    except (ValueError, TypeError, IndexError, T.TableError) as exc:
        return "snapshot refused: %s" % exc
    if app.store is not None:
        app.store.save(app.table.snapshot(True))
    app.dirty = True
    return ""
