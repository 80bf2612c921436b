# What the scanner (scanner.py) runs once: its set-up (Scanner.__init__'s
# body) and a change of its readers' grouping (set_group). Loaded for each
# and dropped after (scanner._part, _done), as pn532cmd is for the driver's
# set-up: the play's heap does not hold them (issue 21, docs/firmware.md
# "Heap"). A reader's set-up and reset stay the scanner's: mid-match (after a
# reset) they would bring this module in with the driver's pn532cmd.
# Functions taking the scanner first.
# Dependencies: array, micropython.const.
from array import array

from micropython import const

# the scanner's (const() does not cross modules)
_UID_MAX = const(10)


def init(
    self, readers, cardmap, confirm_ms, away_ms, alternate_ms, crosstalk_ms, fault_after, reset_low_ms, boot_ms,
    retry_ms, max_targets, max_retries, queue, group,
):
    # Scanner.__init__ (the module's docstring names the parameters)
    self.readers = readers
    self.cardmap = cardmap
    self.confirm_ms = confirm_ms
    self.away_ms = away_ms
    self.alternate_ms = alternate_ms
    self.crosstalk_ms = crosstalk_ms
    self.fault_after = fault_after
    self.reset_low_ms = reset_low_ms
    self.boot_ms = boot_ms
    self.retry_ms = retry_ms
    self.max_targets = max_targets
    self.max_retries = max_retries
    # the readers' RxGain (pn532.PN532.set_rx_gain), set after each set-up
    # (a reset puts the chip's default back); -1: the default
    self.rx_gain = -1
    n = len(readers)
    self.seats = n
    self._next = 0
    # the group whose polls launch() began and the next tick() reads (-1:
    # none), and the main loop's ``now`` when they began: its sightings
    # are judged by it (the tags were in the field then, not a turn later)
    self._flight = -1
    self._flight_at = 0
    self._again = False  # the last group launched was a pending seat's (_repoll)
    set_group(self, group)
    self._phase = bytearray(n)  # scanner._P_*
    # the card each seat shows as seen once, not confirmed yet (-1: none;
    # -2: a tag not in the card map)
    self.shown = [-1] * n
    self._state = bytearray(n)  # all _INIT
    self._all_up = False  # every reader _OK (tick skips the set-up round)
    self._due = [0] * n
    self._fails = bytearray(n)
    self._backoff = bytearray(n)  # set-ups failed in a row (the reset's back-off)
    self._faulted = bytearray(n)
    self._two = bytearray(n)
    self._cur = [bytearray(_UID_MAX) for _ in range(n)]
    self._cur_len = bytearray(n)
    self._cur_seen = [0] * n
    # a poll of the seat found no tag since its tag was last seen: only
    # then can the same tag, seen again, be a new tap (away_ms)
    self._missed = bytearray(n)
    # a new tag seen by one poll, not reported yet: since when (-1: none)
    self._pend = bytearray(n)
    self._pend_at = [0] * n
    self.unconfirmed = 0  # tags seen by one poll only (stray reads dropped)
    self._prev = [bytearray(_UID_MAX) for _ in range(n)]
    self._prev_len = bytearray(n)
    self._prev_seen = [0] * n
    # Event ring.
    self._q = queue
    self._q_head = 0
    self._q_len = 0
    self._q_kind = bytearray(queue)
    self._q_seat = bytearray(queue)
    # (arrays of int32, not lists: 4 bytes an entry, not a word and more)
    self._q_arg = array("i", bytes(4 * queue))
    self._q_t = array("i", bytes(4 * queue))
    # the events' UIDs, _UID_MAX bytes each, in one buffer (one block,
    # not a list of 16 buffers: issue 21, 16 x 32 B less on the chip)
    self._q_uid = bytearray(queue * _UID_MAX)
    self._q_uid_len = bytearray(queue)
    self.dropped = 0
    self.lock = None  # the event queue's lock: the readers on the second core (readcore.py)
    self.setup_due = -1  # ... the seat whose set-up core 1 asked the main loop for (Scanner._bring_up)
    # The event last popped.
    self.kind = 0  # scanner.EV_NONE
    self.seat = 0
    self.card = -1
    self.other = -1
    self.code = 0
    self.t_ms = 0
    self.uid = bytearray(_UID_MAX)
    self.uid_len = 0
    # Counters (for the display's service page and the benchmarks).
    self.polls = 0
    self.off_failures = 0  # field-offs that failed (each reset the reader at once)
    self.faults = 0
    self.recoveries = 0


def set_group(self, group):
    # Scanner.set_group
    n = self.seats
    if group > n:
        group = n  # fewer readers than the group: all of them at once
    if self._flight >= 0:
        raise ValueError("group: a group's polls are running (launch); change it after a tick")
    if group < 1 or n % group:
        raise ValueError("group: %d readers at once does not divide %d seats" % (group, n))
    self.group = group
    self._groups = n // group  # polls per cycle: group g is seats g, g + n // group, ...
    self._group = 0
