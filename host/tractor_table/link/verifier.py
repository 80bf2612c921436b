"""The verifier: a second opinion on every event the table reports.

The table (the device) is authoritative for the live game; the host checks
it. Every event that arrives over the link is handed to a *replayer* — a
rules engine on the host — which says what the event should have been (its
own verdict: legal or not, who won the trick, the points, the levels) and
then follows what the table did, so that the next event is judged from the
same position. The verifier compares the two events field by field and the
chained state hashes (``ttlink.chain_hash``, as defined in
docs/protocol.md): a difference is a :class:`Disagreement`, shown with both
views, kept in :attr:`Verifier.disagreements` and appended to a JSON-lines
file if one is given. It is never silently fixed: the only way to change the
table's state is :meth:`Verifier.push_host_state`, an operator's decision,
which sends the replayer's state to the table as a snapshot (the table swaps
it in only once the whole snapshot checks out).

Connect it to a link with ``SerialLink(on_note=verifier.on_note)``.

The table's WELCOME carries its rules digest (docs/protocol.md,
:mod:`tractor_table.rulescodec`). With ``rules`` given, the verifier
compares them with the table's and, when they differ, refuses to judge with
one line naming the options that differ and what to do; with ``rules`` None
and ``adopt`` given it takes the table's rules and builds its replayer for
them (``tractor-table link`` without ``--rules``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import CommandError
from ..events import Event, decode
from ..events import describe as describe_event
from . import ttlink
from .notes import Note, Rollback, SnapshotDone, SnapshotIn, Up, typed

if TYPE_CHECKING:
    from shengji import Rules


class Replayer(Protocol):
    """A rules engine that re-judges the table's events.

    ``replay`` returns the event as the host's engine would have produced it
    from the same inputs (None: this kind of event is outside what it can
    judge), then adopts the table's event as what happened.
    """

    name: str

    def reset(self, snapshot: bytes | None) -> None:
        """Start again from a table snapshot (None: the start of a match)."""

    def replay(self, index: int, event: Event) -> Event | None: ...

    def host_state(self) -> bytes | None:
        """The host's state in the table's snapshot format, or None if this
        replayer cannot express it (then it cannot be pushed)."""


class TrustingReplayer:
    """Judges nothing: only the link's own checks (order, hash chain) apply."""

    name = "trusting"

    def reset(self, snapshot: bytes | None) -> None:
        pass

    def replay(self, index: int, event: Event) -> Event | None:
        return None

    def host_state(self) -> bytes | None:
        return None


@dataclass(frozen=True)
class Disagreement:
    """One event on which the table and the host differ."""

    index: int
    what: str  # "verdict" (the events differ) or "hash" (the state hashes do)
    device_event: Event
    host_event: Event | None
    device_hash: int
    host_hash: int
    fields: tuple[str, ...] = ()  # the names of the fields where the events differ
    device_text: str = ""
    host_text: str = ""

    def show(self) -> str:
        """Both views, for a person."""
        lines = [f"event {self.index}: the table and the host disagree ({self.what})"]
        lines.append(f"  table: {self.device_text or self.device_event}")
        lines.append(f"         {json.dumps(self.device_event.raw())}  hash {self.device_hash:08x}")
        host = self.host_event
        lines.append(f"  host:  {self.host_text or host}")
        lines.append(f"         {json.dumps(host.raw() if host is not None else None)}  hash {self.host_hash:08x}")
        if self.fields:
            lines.append(f"  fields that differ: {', '.join(self.fields)}")
        return "\n".join(lines)

    def to_json(self) -> str:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["device_event"] = self.device_event.raw()
        d["host_event"] = self.host_event.raw() if self.host_event is not None else None
        return json.dumps(d, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Verifier:
    replayer: Replayer
    rules_id: str
    describe: Callable[[Event], str] = describe_event
    log_path: Path | None = None
    disagreements: list[Disagreement] = field(default_factory=list)
    checked: int = 0  # events the replayer judged
    agreed: int = 0
    unchecked: int = 0  # events outside what the replayer judges
    refused: str = ""  # why the verifier does not verify this table (rules id)
    next_index: int = 0
    host_hash: int = 0  # state hash before the next event (re-anchored on the table's)
    own_hash: int = 0  # state hash over the host's own verdicts (never re-anchored)
    events: list[Event] = field(default_factory=list)  # since base, as the table sent them
    base: int = 0
    base_hash: int = 0
    base_data: bytes | None = None
    pushed: tuple[int, bytes, int, int] | None = None  # (id, data, count, head) in flight
    #: the rules the host judges by (None: the table's, taken from its WELCOME with ``adopt``)
    rules: Rules | None = None
    #: builds the replayer for the table's rules (``rules`` None)
    adopt: Callable[[Rules], Replayer] | None = None
    #: how the operator gave the rules, for the mismatch line (``--rules onedeck``)
    given: str = "--rules"
    #: what the verifier did with the table's rules at the last WELCOME, in words ("" nothing to say)
    rules_note: str = ""

    # --- feeding

    def on_note(self, note: Note | list[Any]) -> None:
        """Take a note from the host link (:mod:`tractor_table.link.notes`; a
        HostLink list is typed first)."""
        note = typed(note)
        match note:
            case Up(rules_id=rules):
                if rules != self.rules_id:
                    self.refused = (
                        f"the table runs rules {rules!r}, the host {self.rules_id!r}: verdicts are "
                        "not comparable; deploy matching firmware (make deploy)"
                    )
                else:
                    self.refused = ""
                    self._table_rules(note.rules_digest)
            case Event():
                self.check(note.index, note.hash, note)
            case SnapshotIn():
                self._rebase(note.count, note.head, note.data)
            case Rollback():
                self._rollback(note.device_count)
            case SnapshotDone():
                p = self.pushed
                if p is not None and p[0] == note.id:
                    self.pushed = None
                    if note.ok:
                        self._rebase(p[2], p[3], p[1])
            case _:
                pass

    def expect_new_match(self) -> None:
        """The host sent the table a new match (CMD_NEW_MATCH, the club's new round): the
        replayer starts a fresh match at the table's next first hand (any thread)."""
        hook = getattr(self.replayer, "expect_new_match", None)
        if hook is not None:
            hook()

    def _table_rules(self, digest: str) -> None:
        """Meet the table's rules digest (WELCOME): compare, or adopt."""
        from .. import rulescodec

        self.rules_note = ""
        if not digest:
            if self.rules is None and self.adopt is not None:
                from shengji import Rules

                self.rules = Rules()
                self.replayer = self.adopt(self.rules)
                self.rules_note = (
                    "rules: classic (the table does not say its rules: firmware from before the rules "
                    "digest); give --rules if it plays others, or update the firmware (make deploy)"
                )
            return
        if self.rules is None:
            if self.adopt is None:
                return
            try:
                rules = rulescodec.rules_of_digest(digest)
            except rulescodec.RulesCodecError as exc:
                self.refused = str(exc)
                return
            self.rules = rules
            self.replayer = self.adopt(rules)
            self.rules_note = f"rules: the table's, {rulescodec.rules_words(rules)}"
        elif rulescodec.digest(self.rules) != digest:
            self.refused = rulescodec.mismatch_line(digest, self.rules, self.given)

    def rebase(self, count: int, head: int, data: bytes | None) -> None:
        """The log now starts at a snapshot (the link reset its record)."""
        self._rebase(count, head, data)

    def _rebase(self, count: int, head: int, data: bytes | None) -> None:
        self.base, self.base_hash, self.base_data = count, head, data
        self.events = []
        self.next_index = count
        self.host_hash = self.own_hash = head
        self.replayer.reset(data)

    def _rollback(self, n: int) -> None:
        """The table lost events n.. (a reboot): replay up to n again."""
        keep = self.events[: n - self.base]
        self.replayer.reset(self.base_data)
        self.events = []
        self.next_index = self.base
        self.host_hash = self.base_hash
        h = self.base_hash
        for k, ev in enumerate(keep):
            h = ttlink.chain_hash(h, ev.raw())
            self.replayer.replay(self.base + k, ev)
            self.events.append(ev)
        self.next_index = n
        self.host_hash = self.own_hash = h

    def check(self, index: int, device_hash: int, event: Event | Sequence[Any]) -> Disagreement | None:
        """Judge one event of the table (typed, or the table's list: decoded
        here); returns the disagreement, if any."""
        event = decode(event, index=index, hash=device_hash, lenient=True)
        if index != self.next_index:
            raise ValueError(f"event {index} given to the verifier where {self.next_index} was due")
        prev = self.host_hash
        self.next_index = index + 1
        self.events.append(event)
        host_ev = self.replayer.replay(index, event) if not self.refused else None
        if host_ev is None:
            self.unchecked += 1
            self.own_hash = ttlink.chain_hash(self.own_hash, event.raw())
            self.host_hash = ttlink.chain_hash(prev, event.raw())
            if self.host_hash != device_hash:
                return self._record(index, "hash", event, None, device_hash)
            return None
        self.checked += 1
        self.own_hash = ttlink.chain_hash(self.own_hash, host_ev.raw())
        self.host_hash = ttlink.chain_hash(prev, host_ev.raw())
        if host_ev == event and self.host_hash == device_hash:
            self.agreed += 1
            return None
        what = "verdict" if host_ev != event else "hash"
        return self._record(index, what, event, host_ev, device_hash)

    def _record(
        self, index: int, what: str, event: Event, host_ev: Event | None, device_hash: int
    ) -> Disagreement:
        d = Disagreement(
            index=index,
            what=what,
            device_event=event,
            host_event=host_ev,
            device_hash=device_hash,
            host_hash=self.host_hash,
            fields=event.differing(host_ev) if host_ev is not None else (),
            device_text=self._text(event),
            host_text=self._text(host_ev) if host_ev is not None else "",
        )
        self.disagreements.append(d)
        if self.log_path is not None:
            with self.log_path.open("a", encoding="utf-8") as f:
                f.write(d.to_json() + "\n")
        # The table is authoritative for the live game: from here on, events
        # are judged from the state it reports (recorded above, not hidden).
        self.host_hash = device_hash
        return d

    def _text(self, ev: Event) -> str:
        try:
            return self.describe(ev)
        except Exception as exc:  # noqa: BLE001 - a describer must not stop verification
            return f"{ev!r} (not describable: {exc})"

    # --- the operator's remedy

    def push_host_state(self, push: Callable[[bytes, int, int], int]) -> int:
        """Send the replayer's state to the table (e.g. ``SerialLink.push_snapshot``).

        The snapshot is numbered as the log stands, with the state hash of the
        host's own verdicts; the table swaps it in whole or not at all and
        answers with a ``snapshot_done`` note, on which the verifier starts
        again from the pushed state.
        """
        data = self.replayer.host_state()
        if data is None:
            raise CommandError(
                f"the {self.replayer.name} replayer cannot express the host's state as a "
                "table snapshot; nothing was sent"
            )
        sid = push(data, self.next_index, self.own_hash)
        self.pushed = (sid, data, self.next_index, self.own_hash)
        return sid

    def summary(self) -> str:
        if self.refused:
            return f"not verifying: {self.refused}"
        return (
            f"{self.next_index} events: {self.checked} judged, {self.agreed} agreed, "
            f"{len(self.disagreements)} disagreements, {self.unchecked} outside the replayer"
        )
