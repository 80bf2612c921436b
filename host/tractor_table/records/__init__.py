"""The host's records of the tables it followed, in SQLite.

One database file (by default ``records.sqlite`` in the user's data directory,
:func:`default_path`; ``--db FILE`` elsewhere) keeps, for every table the
host has followed over the link:

- the **tables** and their **boots** (boot id, firmware version, rules id),
- the link **sessions** (up, synced, down and why; where; the rules the host
  judged with) and the link's notes (reboots, rollbacks, conflicts, the
  table's own prints),
- every **game event** exactly as the link delivered it: index, state hash,
  canonical JSON. An event sent again (a replay after a reconnect, a new run
  of the host) is stored once; a different event at an index already held
  (the table rolled back and the game went on otherwise, or its history
  forked) is stored as well, and the old one is kept, marked superseded
  (``current = 0``, why, when) — never overwritten. At most one event per
  index is current (a unique index enforces it);
- the snapshots the table sent (the log then starts at the snapshot),
- the **hands** as the events say (start and end, dealer, trump, levels,
  score, result), derived from the current events in the same transaction,
- the verifier's **verdicts** on every event, per session, with both views
  of a disagreement.

API (small on purpose; the link and virtual commands and the console use it)::

    store = Store.open(path)            # RecordsError: a clear line naming the file
    rec = Recorder(store, port="/dev/ttyACM0", source="link", rules=rules)
    link = SerialLink(port, on_note=rec.follow(verifier))   # notes + verdicts
    # or, without a verifier: SerialLink(port, on_note=rec.on_note)
    # a verdict given by hand: rec.on_verdict(index, "agreed") / rec.on_disagreement(d)
    # a snapshot the operator pushes: verifier.push_host_state(rec.pushing(link.push_snapshot))
    store.close()

``on_note`` is safe to call from the link's thread. Every note is written in
one transaction (an event with its verdict and its hand), so a crash loses at
most the note in flight. A failure to write (a full disk) stops recording
with :attr:`Recorder.failed` set; it never stops the link.

Who is a table? The link carries no serial number: a boot seen before is its
table's; a new boot joins the table whose stored log holds the state hash the
table announces after its last event (it rebooted and kept its log);
otherwise it is a new table (a fresh table, or one that rebooted and played
on while no host recorded it).

The schema is versioned with ``PRAGMA user_version`` (:data:`SCHEMA_VERSION`)
and ``PRAGMA application_id`` (:data:`APPLICATION_ID`); older files are
migrated in place, in one transaction. A file that is not SQLite, an SQLite
file of another program, a file from a newer version or a damaged one is
refused with a :class:`RecordsError` and never written to.

The package, one job a module (none imports one listed after it):

- :mod:`.common`: :class:`RecordsError`, the clock, the default file, row helpers;
- :mod:`.hands`: the hands derived from the events (:class:`HandFacts`, :func:`derive_hands`);
- :mod:`.schema`: the schema, its migrations, the check that a file is ours;
- :mod:`.store`: :class:`Store`, reading and :meth:`Store.check`;
- :mod:`.recorder`: :class:`Recorder` and :func:`open_recorder`;
- :mod:`.export`: :func:`engine_record` and :func:`events_record`.
"""


from __future__ import annotations

from .common import DEFAULT_NAME, RecordsError, default_path, now_utc
from .export import NotFaithful, branch, engine_record, events_record
from .hands import HandFacts, derive_hands
from .recorder import Recorder, open_recorder
from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION
from .store import Store

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_NAME",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "HandFacts",
    "NotFaithful",
    "Recorder",
    "RecordsError",
    "Store",
    "branch",
    "default_path",
    "derive_hands",
    "engine_record",
    "events_record",
    "now_utc",
    "open_recorder",
]
