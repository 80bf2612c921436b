# mypy: ignore-errors
# (MicroPython code, run by the unix port: not part of the typed host package.)
# The table's game events beside its link, for ``tractor-table virtual --serve``:
# the serving command has no link of its own (another program holds the
# table's USB serial), so the virtual board writes each event the table's log
# takes on its output FIFO as well, one line each:
#   "W welcome-json"  the log's start as a WELCOME would say it (its count is
#                     the oldest event kept, its head the hash before it): at
#                     boot, and again whenever the log restarts (a snapshot);
#   "E index hash event-json"  each event, in order.
# Loaded only when the runner asks for it (the "events" argument of vboard.main),
# so that a table followed by its own link carries none of this in its heap.
import ttlink


class EventTap:
    def __init__(self, out, link):
        self.out = out
        self.link = link
        self.sent = -1  # the next index to write; -1: the start not written yet
        self.last = 0  # the hash of the event before it

    def pass_on(self):
        L = self.link
        if self.sent < 0 or self.sent > L.count or L.hash_at(self.sent - 1) != self.last:
            base = L._base
            self.sent = base
            self.last = L._base_hash
            self.out.write(b"W " + ttlink.canonical([
                ttlink.PROTO, L.fw_version, L.rules_id, L.boot_id, 0, base, self.last, -1,
                L.table_uid, L.rules_digest]) + b"\n")
        while self.sent < L.count:
            slot = self.sent % L._ring_n
            h = L._ring_h[slot]
            self.out.write(b"E %d %d " % (self.sent, h) + ttlink.canonical(L._ring_ev[slot]) + b"\n")
            self.sent += 1
            self.last = h
